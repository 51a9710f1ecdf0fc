/* SPDX-License-Identifier: MIT */
/* cl_devices: the OpenCL platforms and devices the ICD loader finds, one line each.
 *
 * Part of the GPU bundle (test_suite/bench/gpu_bundle.py): its run.sh runs it
 * before any kernel, so the log says which device the runs will use.  It opens
 * libOpenCL.so.1 with dlopen, as pencilcc's runtime does (no OpenCL headers or
 * import library needed to build it), and prints
 *
 *   platform P: <name> | <vendor> | <version>
 *   device P:D: <name> | type GPU | <OpenCL version> | driver <version> |
 *     local mem LOCAL <bytes> B | compute units <n> | global mem <MiB> MiB |
 *     max work-group <n>
 *   devices: <count> (<gpus> GPU)
 *
 * Exit status: 0 when at least one device is listed, 3 when the library cannot
 * be loaded, 4 when it lists no platform, 5 when the platforms have no device.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int32_t cl_int_t;
typedef uint32_t cl_uint_t;
typedef uint64_t cl_ulong_t;
typedef struct platform_s *platform_id;
typedef struct device_s *device_id;

#define ALL_TYPES 0xFFFFFFFFu
#define PLATFORM_VERSION 0x0901u
#define PLATFORM_NAME 0x0902u
#define PLATFORM_VENDOR 0x0903u
#define DEVICE_TYPE 0x1000u
#define DEVICE_MAX_COMPUTE_UNITS 0x1002u
#define DEVICE_MAX_WORK_GROUP_SIZE 0x1004u
#define DEVICE_GLOBAL_MEM_SIZE 0x101Fu
#define DEVICE_LOCAL_MEM_TYPE 0x1022u
#define DEVICE_LOCAL_MEM_SIZE 0x1023u
#define DEVICE_NAME 0x102Bu
#define DRIVER_VERSION 0x102Du
#define DEVICE_VERSION 0x102Fu

typedef cl_int_t (*get_platforms_fn)(cl_uint_t, platform_id *, cl_uint_t *);
typedef cl_int_t (*get_platform_info_fn)(platform_id, cl_uint_t, size_t, void *, size_t *);
typedef cl_int_t (*get_devices_fn)(platform_id, cl_ulong_t, cl_uint_t, device_id *, cl_uint_t *);
typedef cl_int_t (*get_device_info_fn)(device_id, cl_uint_t, size_t, void *, size_t *);

static get_platform_info_fn platform_info;
static get_device_info_fn device_info;

static const char *platform_text(platform_id p, cl_uint_t what, char *buf, size_t size)
{
  buf[0] = '\0';
  if (platform_info(p, what, size, buf, NULL) != 0)
    snprintf(buf, size, "?");
  buf[size - 1] = '\0';
  return buf;
}

static const char *device_text(device_id d, cl_uint_t what, char *buf, size_t size)
{
  buf[0] = '\0';
  if (device_info(d, what, size, buf, NULL) != 0)
    snprintf(buf, size, "?");
  buf[size - 1] = '\0';
  return buf;
}

static cl_ulong_t device_number(device_id d, cl_uint_t what, size_t width)
{
  cl_ulong_t value = 0; /* little-endian: a cl_uint lands in the low half */
  if (device_info(d, what, width, &value, NULL) != 0)
    return 0;
  return value;
}

static const char *type_name(cl_ulong_t type)
{
  if (type & (1u << 2))
    return "GPU";
  if (type & (1u << 1))
    return "CPU";
  if (type & (1u << 3))
    return "ACCELERATOR";
  return "OTHER";
}

int main(void)
{
  void *lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL)
    lib = dlopen("libOpenCL.so", RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    printf("cl_devices: cannot load the OpenCL library (%s)\n", dlerror());
    return 3;
  }
  get_platforms_fn get_platforms = (get_platforms_fn)dlsym(lib, "clGetPlatformIDs");
  get_devices_fn get_devices = (get_devices_fn)dlsym(lib, "clGetDeviceIDs");
  platform_info = (get_platform_info_fn)dlsym(lib, "clGetPlatformInfo");
  device_info = (get_device_info_fn)dlsym(lib, "clGetDeviceInfo");
  if (!get_platforms || !get_devices || !platform_info || !device_info) {
    printf("cl_devices: the OpenCL library lacks clGetPlatformIDs/clGetDeviceIDs/clGet*Info\n");
    return 3;
  }
  platform_id platforms[16];
  cl_uint_t nplatforms = 0;
  cl_int_t err = get_platforms(16, platforms, &nplatforms);
  if (err != 0 || nplatforms == 0) {
    printf("cl_devices: no OpenCL platform (clGetPlatformIDs: error %d, %u platforms)\n", (int)err,
           (unsigned)nplatforms);
    return 4;
  }
  if (nplatforms > 16)
    nplatforms = 16;
  unsigned total = 0, gpus = 0;
  char a[256], b[256], c[256];
  for (cl_uint_t p = 0; p < nplatforms; p++) {
    printf("platform %u: %s | %s | %s\n", (unsigned)p, platform_text(platforms[p], PLATFORM_NAME, a, sizeof a),
           platform_text(platforms[p], PLATFORM_VENDOR, b, sizeof b),
           platform_text(platforms[p], PLATFORM_VERSION, c, sizeof c));
    device_id devices[16];
    cl_uint_t ndevices = 0;
    err = get_devices(platforms[p], ALL_TYPES, 16, devices, &ndevices);
    if (err != 0 || ndevices == 0) {
      printf("  no device (clGetDeviceIDs: error %d)\n", (int)err);
      continue;
    }
    if (ndevices > 16)
      ndevices = 16;
    for (cl_uint_t d = 0; d < ndevices; d++) {
      cl_ulong_t type = device_number(devices[d], DEVICE_TYPE, sizeof(cl_ulong_t));
      cl_ulong_t local_type = device_number(devices[d], DEVICE_LOCAL_MEM_TYPE, sizeof(cl_uint_t));
      char driver[128];
      printf("device %u:%u: %s | type %s | %s | driver %s | local mem %s %llu B | compute units %llu"
             " | global mem %llu MiB | max work-group %llu\n",
             (unsigned)p, (unsigned)d, device_text(devices[d], DEVICE_NAME, a, sizeof a), type_name(type),
             device_text(devices[d], DEVICE_VERSION, b, sizeof b),
             device_text(devices[d], DRIVER_VERSION, driver, sizeof driver),
             local_type == 1 ? "LOCAL" : local_type == 2 ? "GLOBAL" : "NONE",
             (unsigned long long)device_number(devices[d], DEVICE_LOCAL_MEM_SIZE, sizeof(cl_ulong_t)),
             (unsigned long long)device_number(devices[d], DEVICE_MAX_COMPUTE_UNITS, sizeof(cl_uint_t)),
             (unsigned long long)(device_number(devices[d], DEVICE_GLOBAL_MEM_SIZE, sizeof(cl_ulong_t)) >> 20),
             (unsigned long long)device_number(devices[d], DEVICE_MAX_WORK_GROUP_SIZE, sizeof(size_t)));
      total++;
      gpus += (type & (1u << 2)) != 0;
    }
  }
  printf("devices: %u (%u GPU)\n", total, gpus);
  return total ? 0 : 5;
}
