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
# (lib/libOpenCL.so.1, through LD_LIBRARY_PATH) at it with OCL_ICD_VENDORS; where none is
# found, or it lists no device, it tries the machine's /etc/OpenCL/vendors (a GPU needed
# there), unless GPU_BUNDLE_ICD named the library. Then bin/cl_devices lists the
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
  timeout 20 nvidia-smi 2>&1 | head -25
  timeout 20 nvidia-smi --query-gpu=name,driver_version,persistence_mode,mig.mode.current,memory.total,clocks.max.sm,clocks.max.mem,pcie.link.gen.max,pcie.link.width.max --format=csv 2>&1
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
  if [ -z "$ICD" ]; then
    say "no NVIDIA OpenCL ICD library (libnvidia-opencl.so*) under /usr/local/nvidia, /usr/lib*, /usr/local/cuda*, /opt"
  fi
fi
list_devices() {
  timeout 30 "$BUNDLE/bin/cl_devices" >"$WORK/devices.txt" 2>&1
  local status=$?
  cat "$WORK/devices.txt"
  return $status
}
export LD_LIBRARY_PATH="$BUNDLE/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
STATUS=1
TRIED=""
if [ -n "$ICD" ]; then
  ICD=$(readlink -f "$ICD")
  say "ICD library: $ICD"
  ls -la "$ICD"
  ICD_DIR=$(dirname "$ICD")
  if command -v ldd >/dev/null 2>&1; then
    LD_LIBRARY_PATH="$ICD_DIR:$LD_LIBRARY_PATH" ldd "$ICD" 2>&1 | grep -E 'not found|cuda|nvidia' | head -20
  fi
  mkdir -p "$WORK/vendors"
  echo "$ICD" >"$WORK/vendors/gpu.icd"
  # The driver's own folder too: libnvidia-opencl needs libcuda and others beside it.
  export LD_LIBRARY_PATH="$BUNDLE/lib:$ICD_DIR${LD_LIBRARY_PATH#"$BUNDLE/lib"}"
  export OCL_ICD_VENDORS="$WORK/vendors"
  export GPU_BUNDLE_ICD_FOUND="$ICD"
  say "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  say "OCL_ICD_VENDORS=$OCL_ICD_VENDORS (gpu.icd: $ICD)"
  echo "---- OpenCL platforms and devices (bin/cl_devices)"
  list_devices
  STATUS=$?
  TRIED="$ICD"
fi
if [ "$STATUS" -ne 0 ] && [ -z "${GPU_BUNDLE_ICD:-}" ]; then
  # The bundle's loader (ocl-icd 2.3.1 reads OCL_ICD_VENDORS, not OCL_ICD_FILENAMES) with the
  # machine's own /etc/OpenCL/vendors, where a container runtime may have put nvidia.icd.
  unset OCL_ICD_VENDORS
  export GPU_BUNDLE_ICD_FOUND="/etc/OpenCL/vendors"
  echo "---- OpenCL platforms and devices through /etc/OpenCL/vendors (bin/cl_devices)"
  list_devices
  STATUS=$?
  if [ "$STATUS" -eq 0 ] && ! grep -q 'type GPU' "$WORK/devices.txt"; then
    STATUS=6
    echo "cl_devices: no GPU among these devices" >>"$WORK/devices.txt"
  fi
  TRIED="${TRIED:+$TRIED, then }/etc/OpenCL/vendors"
fi
if [ "$STATUS" -ne 0 ]; then
  fail "no OpenCL device through $TRIED (cl_devices exit status $STATUS: $(tail -1 "$WORK/devices.txt"))"
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
