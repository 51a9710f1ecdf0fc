#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run.sh of a GPU bundle (python -m test_suite.bench.gpu_bundle; test_suite/bench/README.md,
# "The GPU bundle"): times the bundle's prebuilt kernels on this machine's OpenCL GPU.
#
#   OUT=/path/to/results bash run.sh [runner options, e.g. --budget 300 --kernels gemm,atax]
#
# Needs bash, coreutils and python3 (standard library only). It finds the OpenCL driver
# (NVIDIA's libnvidia-opencl.so*, or GPU_BUNDLE_ICD=/path/to/an/icd/library), writes an
# .icd file for it into a vendors folder of its own, and points the bundle's ICD loader
# (lib/libOpenCL.so.1, through LD_LIBRARY_PATH) at it with OCL_ICD_VENDORS; where that
# lists no platform it tries OCL_ICD_FILENAMES instead. Then bin/cl_devices lists the
# devices and the runner (test_suite.bench.gpu_runner) writes $OUT/gpu.json, $OUT/gpu.md;
# everything printed goes to $OUT/log.txt too. Without a platform it writes the reason
# to gpu.md and gpu.json and exits 2 at once.
set -u
BUNDLE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${OUT:-$BUNDLE/out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
LOG=$OUT/log.txt
: >"$LOG"
exec > >(tee -a "$LOG") 2>&1
TEE_PID=$!

say() { echo "run.sh: $*"; }
START=$(date +%s)
say "bundle $BUNDLE, results in $OUT, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
say "host: $(uname -srm), $(nproc 2>/dev/null || echo '?') CPUs, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2)"
say "glibc: $(ldd --version 2>/dev/null | head -1)"
PYTHON=$(command -v python3 || command -v python || true)
say "python: ${PYTHON:-none} $(${PYTHON:-true} --version 2>&1)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pencilcc-gpu-icd.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

fail() {
  say "FAILED: $1"
  if [ -n "$PYTHON" ]; then
    (cd "$BUNDLE/py" && "$PYTHON" -B -m test_suite.bench.gpu_runner --bundle "$BUNDLE" --out "$OUT" \
      --devices "$WORK/devices.txt" --fail "$1")
  else
    printf '# pencilcc OpenCL on the GPU: nothing ran\n\n%s\n' "$1" >"$OUT/gpu.md"
  fi
  wait_tee
  exit 2
}
wait_tee() { exec >&- 2>&-; wait "$TEE_PID" 2>/dev/null; }
: >"$WORK/devices.txt"

echo "---- what the machine has (OpenCL, NVIDIA, CUDA)"
if command -v nvidia-smi >/dev/null 2>&1; then
  timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,pcie.link.gen.max,pcie.link.width.max --format=csv 2>&1
else
  say "no nvidia-smi on PATH"
fi
ls -la /etc/OpenCL/vendors/ 2>&1
for f in /etc/OpenCL/vendors/*.icd; do [ -e "$f" ] && echo "$f: $(cat "$f")"; done
ls -d /usr/local/nvidia /usr/local/nvidia/* /usr/local/cuda* 2>&1
CANDIDATES=$( (
  for dir in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib \
             /usr/local/cuda*/lib64 /usr/local/cuda*/targets/x86_64-linux/lib /usr/local/cuda*/compat; do
    ls -d "$dir"/libnvidia-opencl.so* "$dir"/libOpenCL.so* 2>/dev/null
  done
  timeout 20 find /usr/local/nvidia /usr/lib /usr/lib64 /usr/local /opt -xdev \
    \( -name 'libnvidia-opencl.so*' -o -name 'libOpenCL.so*' \) 2>/dev/null
) | sort -u)
echo "candidates:"
for f in $CANDIDATES; do ls -la "$f"; done

ICD=${GPU_BUNDLE_ICD:-}
if [ -n "$ICD" ]; then
  say "GPU_BUNDLE_ICD=$ICD (given)"
  case "$ICD" in
    *.icd) [ -f "$ICD" ] && ICD=$(head -1 "$ICD") && say "the .icd file names $ICD" ;;
  esac
  if [ ! -e "$ICD" ]; then
    fail "GPU_BUNDLE_ICD=$ICD: no such file (the ICD library, e.g. /usr/local/nvidia/lib64/libnvidia-opencl.so.1)"
  fi
else
  # NVIDIA's ICD library: the .so.1 link first, else any version of it.
  for f in $CANDIDATES; do
    case "$f" in */libnvidia-opencl.so.1) ICD=$f; break ;; esac
  done
  if [ -z "$ICD" ]; then
    for f in $CANDIDATES; do
      case "$f" in */libnvidia-opencl.so*) ICD=$f; break ;; esac
    done
  fi
  [ -n "$ICD" ] || fail "no NVIDIA OpenCL ICD library (libnvidia-opencl.so*) under /usr/local/nvidia, /usr/lib*, /usr/local/cuda*, /opt; set GPU_BUNDLE_ICD=/path/to/it"
fi
ICD=$(readlink -f "$ICD")
say "ICD library: $ICD"
ls -la "$ICD"
ICD_DIR=$(dirname "$ICD")
if command -v ldd >/dev/null 2>&1; then
  LD_LIBRARY_PATH="$ICD_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$ICD" 2>&1 | grep -E 'not found|cuda|nvidia' | head -20
fi

mkdir -p "$WORK/vendors" "$WORK/empty"
echo "$ICD" >"$WORK/vendors/gpu.icd"
export LD_LIBRARY_PATH="$BUNDLE/lib:$ICD_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OCL_ICD_VENDORS="$WORK/vendors"
unset OCL_ICD_FILENAMES
export GPU_BUNDLE_ICD_FOUND="$ICD"
say "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
say "OCL_ICD_VENDORS=$OCL_ICD_VENDORS (gpu.icd: $ICD)"

echo "---- OpenCL platforms and devices (bin/cl_devices)"
timeout 60 "$BUNDLE/bin/cl_devices" >"$WORK/devices.txt" 2>&1
STATUS=$?
cat "$WORK/devices.txt"
if [ "$STATUS" -ne 0 ]; then
  say "cl_devices exit status $STATUS with OCL_ICD_VENDORS; trying OCL_ICD_FILENAMES=$ICD (loader debug on)"
  export OCL_ICD_VENDORS="$WORK/empty" OCL_ICD_FILENAMES="$ICD"
  OCL_ICD_DEBUG=15 timeout 60 "$BUNDLE/bin/cl_devices" >"$WORK/devices.txt" 2>&1
  STATUS=$?
  cat "$WORK/devices.txt"
  grep -v '^ocl-icd' "$WORK/devices.txt" >"$WORK/devices.clean" && mv "$WORK/devices.clean" "$WORK/devices.txt"
  [ "$STATUS" -eq 0 ] || fail "no OpenCL device through $ICD (cl_devices exit status $STATUS: $(tail -1 "$WORK/devices.txt"))"
fi
grep -q 'type GPU' "$WORK/devices.txt" || say "WARNING: no GPU among the devices: the runs use the first device"
[ -n "$PYTHON" ] || fail "no python3 on PATH: the runner needs it"

echo "---- kernels ($(( $(date +%s) - START )) s so far)"
(cd "$BUNDLE/py" && "$PYTHON" -B -m test_suite.bench.gpu_runner --bundle "$BUNDLE" --out "$OUT" \
  --devices "$WORK/devices.txt" "$@")
STATUS=$?
say "runner exit status $STATUS after $(( $(date +%s) - START )) s"
wait_tee
exit $STATUS
