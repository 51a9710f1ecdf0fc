/* SPDX-License-Identifier: MIT */
/*
 * pencilcc_runtime.c: the OpenCL runtime of pencilcc's generated host code.
 *
 * The back end adds this file (and -ldl -lpthread) to the user's link line, so
 * it is compiled by the user's compiler with the user's flags: it is strict
 * C99 plus POSIX, and warning-free under -Wall -Wextra -pedantic.
 *
 * It does not include the OpenCL headers nor link libOpenCL: the library is
 * opened with dlopen on first use, and the few types, constants and entry
 * points used are declared here (values from the OpenCL 1.2 specification).
 * A program that never reaches an OpenCL region therefore never loads OpenCL,
 * and one on a machine without it runs its regions on the CPU.
 *
 * State, all behind one mutex:
 *   - the device, its context and one in-order command queue;
 *   - a table of device buffers keyed by the host address of the array each
 *     mirrors, with which copy is current (host, both, device);
 *   - programs (built once per process, cached on disk as device binaries)
 *     and their kernels;
 *   - counters and, with PENCILCC_PROFILE=1, profiling events, printed at exit.
 */
#define _POSIX_C_SOURCE 200809L

#include "pencilcc_runtime.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* OpenCL declarations (OpenCL 1.2 specification; cl.h is not included)     */
/* ------------------------------------------------------------------------ */

typedef int32_t ocl_int;
typedef uint32_t ocl_uint;
typedef uint64_t ocl_ulong;
typedef ocl_uint ocl_bool;
typedef ocl_ulong ocl_bitfield;
typedef ocl_bitfield ocl_device_type;
typedef ocl_bitfield ocl_mem_flags;
typedef ocl_bitfield ocl_queue_properties;
typedef ocl_uint ocl_info; /* every cl_*_info enumeration is a cl_uint */
typedef intptr_t ocl_context_properties;

typedef struct ocl_platform_s *ocl_platform_id;
typedef struct ocl_device_s *ocl_device_id;
typedef struct ocl_context_s *ocl_context;
typedef struct ocl_queue_s *ocl_queue;
typedef struct ocl_mem_s *ocl_mem;
typedef struct ocl_program_s *ocl_program;
typedef struct ocl_kernel_s *ocl_kernel;
typedef struct ocl_event_s *ocl_event;

#define OCL_SUCCESS 0
#define OCL_MEM_OBJECT_ALLOCATION_FAILURE (-4)
#define OCL_OUT_OF_RESOURCES (-5)
#define OCL_INVALID_WORK_GROUP_SIZE (-54)
#define OCL_FALSE 0u
#define OCL_TRUE 1u

#define OCL_PLATFORM_NAME 0x0902u
#define OCL_DEVICE_TYPE_CPU (1u << 1)
#define OCL_DEVICE_TYPE_GPU (1u << 2)
#define OCL_DEVICE_TYPE_ACCELERATOR (1u << 3)
#define OCL_DEVICE_TYPE_ALL 0xFFFFFFFFu
#define OCL_DEVICE_TYPE 0x1000u
#define OCL_DEVICE_MAX_WORK_ITEM_DIMENSIONS 0x1003u
#define OCL_DEVICE_MAX_WORK_GROUP_SIZE 0x1004u
#define OCL_DEVICE_MAX_WORK_ITEM_SIZES 0x1005u
#define OCL_DEVICE_AVAILABLE 0x1027u
#define OCL_DEVICE_NAME 0x102Bu
#define OCL_DRIVER_VERSION 0x102Du
#define OCL_DEVICE_OPENCL_C_VERSION 0x103Du
#define OCL_QUEUE_PROFILING_ENABLE (1u << 1)
#define OCL_CONTEXT_PLATFORM 0x1084
#define OCL_MEM_READ_WRITE (1u << 0)
#define OCL_PROGRAM_BINARY_SIZES 0x1165u
#define OCL_PROGRAM_BINARIES 0x1166u
#define OCL_PROGRAM_BUILD_LOG 0x1183u
#define OCL_KERNEL_WORK_GROUP_SIZE 0x11B0u
#define OCL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE 0x11B3u
#define OCL_KERNEL_COMPILE_WORK_GROUP_SIZE 0x11B1u
#define OCL_PROFILING_COMMAND_START 0x1282u
#define OCL_PROFILING_COMMAND_END 0x1283u

/* The entry points used, as (name without "cl", return type, parameters).
   CL_API_CALL is empty on every platform that has dlopen. */
#define OCL_FUNCTIONS(X)                                                                  \
  X(GetPlatformIDs, ocl_int, (ocl_uint, ocl_platform_id *, ocl_uint *))                   \
  X(GetPlatformInfo, ocl_int, (ocl_platform_id, ocl_info, size_t, void *, size_t *))      \
  X(GetDeviceIDs, ocl_int,                                                                \
    (ocl_platform_id, ocl_device_type, ocl_uint, ocl_device_id *, ocl_uint *))            \
  X(GetDeviceInfo, ocl_int, (ocl_device_id, ocl_info, size_t, void *, size_t *))          \
  X(CreateContext, ocl_context,                                                           \
    (const ocl_context_properties *, ocl_uint, const ocl_device_id *,                     \
     void (*)(const char *, const void *, size_t, void *), void *, ocl_int *))            \
  X(CreateCommandQueue, ocl_queue,                                                        \
    (ocl_context, ocl_device_id, ocl_queue_properties, ocl_int *))                        \
  X(CreateProgramWithSource, ocl_program,                                                 \
    (ocl_context, ocl_uint, const char **, const size_t *, ocl_int *))                    \
  X(CreateProgramWithBinary, ocl_program,                                                 \
    (ocl_context, ocl_uint, const ocl_device_id *, const size_t *,                        \
     const unsigned char **, ocl_int *, ocl_int *))                                       \
  X(BuildProgram, ocl_int,                                                                \
    (ocl_program, ocl_uint, const ocl_device_id *, const char *,                          \
     void (*)(ocl_program, void *), void *))                                              \
  X(GetProgramInfo, ocl_int, (ocl_program, ocl_info, size_t, void *, size_t *))           \
  X(GetProgramBuildInfo, ocl_int,                                                         \
    (ocl_program, ocl_device_id, ocl_info, size_t, void *, size_t *))                     \
  X(CreateKernel, ocl_kernel, (ocl_program, const char *, ocl_int *))                     \
  X(GetKernelWorkGroupInfo, ocl_int,                                                      \
    (ocl_kernel, ocl_device_id, ocl_info, size_t, void *, size_t *))                      \
  X(SetKernelArg, ocl_int, (ocl_kernel, ocl_uint, size_t, const void *))                  \
  X(CreateBuffer, ocl_mem, (ocl_context, ocl_mem_flags, size_t, void *, ocl_int *))       \
  X(EnqueueWriteBuffer, ocl_int,                                                          \
    (ocl_queue, ocl_mem, ocl_bool, size_t, size_t, const void *, ocl_uint,                \
     const ocl_event *, ocl_event *))                                                     \
  X(EnqueueReadBuffer, ocl_int,                                                           \
    (ocl_queue, ocl_mem, ocl_bool, size_t, size_t, void *, ocl_uint, const ocl_event *,   \
     ocl_event *))                                                                        \
  X(EnqueueNDRangeKernel, ocl_int,                                                        \
    (ocl_queue, ocl_kernel, ocl_uint, const size_t *, const size_t *, const size_t *,     \
     ocl_uint, const ocl_event *, ocl_event *))                                           \
  X(Finish, ocl_int, (ocl_queue))                                                         \
  X(WaitForEvents, ocl_int, (ocl_uint, const ocl_event *))                                \
  X(GetEventProfilingInfo, ocl_int, (ocl_event, ocl_info, size_t, void *, size_t *))      \
  X(ReleaseEvent, ocl_int, (ocl_event))                                                   \
  X(ReleaseMemObject, ocl_int, (ocl_mem))                                                 \
  X(ReleaseKernel, ocl_int, (ocl_kernel))                                                 \
  X(ReleaseProgram, ocl_int, (ocl_program))                                               \
  X(ReleaseCommandQueue, ocl_int, (ocl_queue))                                            \
  X(ReleaseContext, ocl_int, (ocl_context))

#define OCL_TYPEDEF(name, ret, params) typedef ret (*ocl_##name##_fn) params;
OCL_FUNCTIONS(OCL_TYPEDEF)
#undef OCL_TYPEDEF

static struct {
#define OCL_MEMBER(name, ret, params) ocl_##name##_fn name;
  OCL_FUNCTIONS(OCL_MEMBER)
#undef OCL_MEMBER
} ocl;

/* ------------------------------------------------------------------------ */
/* Runtime state                                                            */
/* ------------------------------------------------------------------------ */

enum { RT_UNINIT, RT_READY, RT_UNAVAILABLE, RT_FINISHED };

/* Which copy of a buffer is current. */
enum {
  COPY_HOST_NEWER,   /* the device copy is stale: upload before a launch */
  COPY_SYNC,         /* both copies equal */
  COPY_DEVICE_NEWER  /* a kernel wrote it: read back before the host uses it */
};

struct buffer {
  const void *host;
  uint64_t size;
  ocl_mem mem;
  int copy;
  /* rt.epoch when an upload from `host` was last enqueued: while it equals
     rt.epoch the upload may still be reading host memory. */
  unsigned long long upload_epoch;
};

struct scratch {
  const void *name;
  uint64_t size;
  ocl_mem mem;
};

struct kernel {
  char *name;
  ocl_kernel kernel;    /* NULL: creation failed (reported once) */
  size_t wg_size;       /* CL_KERNEL_WORK_GROUP_SIZE */
  size_t wg_multiple;   /* CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE */
  size_t wg_required[3]; /* CL_KERNEL_COMPILE_WORK_GROUP_SIZE: reqd_work_group_size, or 0s */
  size_t stat;          /* index in rt.kstats */
  int launch_reported;  /* a launch error was printed */
  struct kernel *next;
};

struct program {
  const char *source_addr; /* the string constant it was first seen at */
  char *source;            /* a copy, for lookups by content */
  size_t source_len;
  uint64_t hash;
  ocl_program program; /* NULL: the build failed (log printed once) */
  struct kernel *kernels;
  struct program *next;
};

struct kernel_stat {
  char *name;
  unsigned long long launches;
  unsigned long long ns;
};

struct transfer_stat {
  unsigned long long count, bytes, ns;
};

/* A profiling event not yet read: what >= 0 is a kernel_stat index. */
enum { EVENT_H2D = -1, EVENT_D2H = -2 };
struct pending_event {
  ocl_event event;
  int what;
};

/* Profiling events are read at the next synchronisation point, or once this
   many are pending (which waits for them). */
#define MAX_PENDING_EVENTS 1024

static pthread_mutex_t rt_lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
  int state;
  void *lib;
  ocl_platform_id platform;
  ocl_device_id device;
  ocl_context context;
  ocl_queue queue;
  char platform_name[256];
  char device_name[256];
  char driver_version[256];
  const char *build_options;
  size_t max_wg;
  size_t max_items[3];
  int profiling;

  /* Incremented whenever the queue has drained (clFinish or a blocking
     read); `busy` says whether anything was enqueued since. */
  unsigned long long epoch;
  int busy;

  struct buffer **buffers;
  size_t n_buffers, cap_buffers;
  struct scratch *scratch; /* SCRATCH arguments' device memory, by name */
  size_t n_scratch, cap_scratch;
  /* Host addresses pencilcc_cl_discard named before any buffer existed for them, in this
     region call: their first buffer is not uploaded. */
  const void **discarded;
  size_t n_discarded, cap_discarded;
  struct program *programs;
  struct kernel_stat *kstats;
  size_t n_kstats;
  struct pending_event *pending;
  size_t n_pending;

  char *cache_dir; /* NULL: no disk cache */
  int cache_dir_known;
  unsigned cache_tmp_counter;

  struct transfer_stat h2d, d2h;
  unsigned long long programs_built, programs_loaded;
  unsigned long long buffers_allocated, buffers_reused;
} rt;

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */
/* ------------------------------------------------------------------------ */

static char *dup_string(const char *s, size_t n)
{
  char *copy = (char *)malloc(n + 1);
  if (copy) {
    memcpy(copy, s, n);
    copy[n] = '\0';
  }
  return copy;
}

/* The API passes arrays as const pointers (a launch only reads the host copy);
   a read-back writes the same array, which is the program's own writable
   storage. The detour through uintptr_t states that without -Wcast-qual noise. */
static void *writable(const void *p)
{
  return (void *)(uintptr_t)p;
}

static int fits_size_t(uint64_t n)
{
#if SIZE_MAX < UINT64_MAX
  return n <= (uint64_t)SIZE_MAX;
#else
  (void)n;
  return 1;
#endif
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
  const unsigned char *p = (const unsigned char *)data;
  while (n--) {
    h ^= *p++;
    h *= 0x100000001b3ULL;
  }
  return h;
}
#define FNV_OFFSET 0xcbf29ce484222325ULL

static int env_flag(const char *name)
{
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") != 0;
}

/* Case-insensitive: does `hay` contain `needle`? */
static int contains_nocase(const char *hay, const char *needle)
{
  size_t n = strlen(needle), i;
  for (; *hay; hay++) {
    for (i = 0; i < n; i++)
      if (tolower((unsigned char)hay[i]) != tolower((unsigned char)needle[i]))
        break;
    if (i == n)
      return 1;
    if (!hay[i])
      break;
  }
  return n == 0;
}

static int equals_nocase(const char *a, const char *b)
{
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
      return 0;
  return *a == *b;
}

/* A string query of a platform (is_device == 0) or device into buf,
   truncated to fit and stripped of trailing blanks (some drivers pad names). */
static void info_string(int is_device, void *obj, ocl_info param, char *buf, size_t n)
{
  size_t size = 0, len;
  char *tmp;
  ocl_int err;
  buf[0] = '\0';
  err = is_device ? ocl.GetDeviceInfo((ocl_device_id)obj, param, 0, NULL, &size)
                  : ocl.GetPlatformInfo((ocl_platform_id)obj, param, 0, NULL, &size);
  if (err != OCL_SUCCESS || size == 0 || !(tmp = (char *)malloc(size + 1)))
    return;
  err = is_device ? ocl.GetDeviceInfo((ocl_device_id)obj, param, size, tmp, NULL)
                  : ocl.GetPlatformInfo((ocl_platform_id)obj, param, size, tmp, NULL);
  if (err == OCL_SUCCESS) {
    tmp[size] = '\0';
    len = strlen(tmp);
    while (len > 0 && isspace((unsigned char)tmp[len - 1]))
      len--;
    if (len >= n)
      len = n - 1;
    memcpy(buf, tmp, len);
    buf[len] = '\0';
  }
  free(tmp);
}

/* ------------------------------------------------------------------------ */
/* Profiling events and synchronisation                                     */
/* ------------------------------------------------------------------------ */

/* Read and release every pending profiling event (waiting for them). */
static void drain_events(void)
{
  size_t i;
  if (rt.n_pending == 0)
    return;
  for (i = 0; i < rt.n_pending; i++) {
    struct pending_event *p = &rt.pending[i];
    ocl_ulong start = 0, end = 0;
    unsigned long long ns = 0;
    /* One at a time: a failed command's event must not hide the others. */
    if (ocl.WaitForEvents(1, &p->event) == OCL_SUCCESS &&
        ocl.GetEventProfilingInfo(p->event, OCL_PROFILING_COMMAND_START, sizeof start, &start,
                                  NULL) == OCL_SUCCESS &&
        ocl.GetEventProfilingInfo(p->event, OCL_PROFILING_COMMAND_END, sizeof end, &end,
                                  NULL) == OCL_SUCCESS &&
        end > start)
      ns = (unsigned long long)(end - start);
    if (p->what == EVENT_H2D)
      rt.h2d.ns += ns;
    else if (p->what == EVENT_D2H)
      rt.d2h.ns += ns;
    else
      rt.kstats[p->what].ns += ns;
    ocl.ReleaseEvent(p->event);
  }
  rt.n_pending = 0;
}

/* The event out-parameter for an enqueue: NULL unless profiling. */
static ocl_event *event_slot(void)
{
  if (!rt.profiling)
    return NULL;
  if (!rt.pending) {
    rt.pending = (struct pending_event *)malloc(MAX_PENDING_EVENTS * sizeof *rt.pending);
    if (!rt.pending)
      return NULL;
  }
  if (rt.n_pending == MAX_PENDING_EVENTS)
    drain_events();
  rt.pending[rt.n_pending].event = NULL;
  return &rt.pending[rt.n_pending].event;
}

/* Keep the event event_slot() handed out, when the enqueue created one. */
static void event_keep(int what)
{
  if (rt.profiling && rt.pending && rt.pending[rt.n_pending].event) {
    rt.pending[rt.n_pending].what = what;
    rt.n_pending++;
  }
}

/* Everything enqueued so far has completed (clFinish, or a blocking read on
   the in-order queue). */
static void queue_drained(void)
{
  rt.epoch++;
  rt.busy = 0;
  drain_events();
}

static void finish_queue(void)
{
  if (rt.busy) {
    ocl.Finish(rt.queue);
    queue_drained();
  }
}

/* ------------------------------------------------------------------------ */
/* Initialisation: library, device, context, queue                          */
/* ------------------------------------------------------------------------ */

static void rt_at_exit(void);

static void no_device(const char *why)
{
  fprintf(stderr, "pencilcc: %s; OpenCL regions run on the CPU\n", why);
  fflush(stderr);
}

static int load_library(char *why, size_t n)
{
  static const char *const names[] = {
    "libOpenCL.so.1", "libOpenCL.so",
#ifdef __APPLE__
    "/System/Library/Frameworks/OpenCL.framework/OpenCL",
#endif
  };
  char first_error[256] = "";
  size_t i;
  for (i = 0; i < sizeof names / sizeof names[0]; i++) {
    const char *err;
    rt.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (rt.lib)
      break;
    err = dlerror();
    if (i == 0 && err)
      snprintf(first_error, sizeof first_error, "%s", err);
  }
  if (!rt.lib) {
    snprintf(why, n, "cannot load the OpenCL library (%s)",
             first_error[0] ? first_error : "libOpenCL.so.1 not found");
    return 0;
  }
  /* dlsym returns an object pointer; ISO C has no conversion to a function
     pointer, so the bits are copied (POSIX guarantees they are the same). */
#define OCL_LOAD(name, ret, params)                                      \
  {                                                                      \
    void *sym = dlsym(rt.lib, "cl" #name);                               \
    if (!sym) {                                                          \
      snprintf(why, n, "the OpenCL library lacks cl%s", #name);          \
      return 0;                                                          \
    }                                                                    \
    memcpy(&ocl.name, &sym, sizeof ocl.name);                            \
  }
  OCL_FUNCTIONS(OCL_LOAD)
#undef OCL_LOAD
  return 1;
}

struct candidate {
  ocl_platform_id platform;
  ocl_device_id device;
  unsigned platform_index, device_index;
  ocl_device_type type;
  int available;
  char platform_name[256];
  char device_name[256];
};

/* Parse "P:D" (decimal indices). */
static int parse_index_pair(const char *s, unsigned long *p, unsigned long *d)
{
  char *end;
  if (!isdigit((unsigned char)s[0]))
    return 0;
  *p = strtoul(s, &end, 10);
  if (*end != ':' || !isdigit((unsigned char)end[1]))
    return 0;
  *d = strtoul(end + 1, &end, 10);
  return *end == '\0';
}

/* The candidate PENCILCC_DEVICE names (or the default choice), or -1. */
static long choose_device(const struct candidate *c, size_t n, const char *want)
{
  size_t i;
  unsigned long p, d;
  ocl_device_type type = 0;
  if (!want || !*want) {
    for (i = 0; i < n; i++)
      if (c[i].available && (c[i].type & OCL_DEVICE_TYPE_GPU))
        return (long)i;
    for (i = 0; i < n; i++)
      if (c[i].available)
        return (long)i;
    return -1;
  }
  if (equals_nocase(want, "gpu"))
    type = OCL_DEVICE_TYPE_GPU;
  else if (equals_nocase(want, "cpu"))
    type = OCL_DEVICE_TYPE_CPU;
  else if (equals_nocase(want, "accelerator"))
    type = OCL_DEVICE_TYPE_ACCELERATOR;
  if (type) {
    for (i = 0; i < n; i++)
      if (c[i].available && (c[i].type & type))
        return (long)i;
    return -1;
  }
  if (parse_index_pair(want, &p, &d)) {
    for (i = 0; i < n; i++)
      if (c[i].platform_index == p && c[i].device_index == d)
        return (long)i;
    return -1;
  }
  for (i = 0; i < n; i++) {
    char both[520];
    snprintf(both, sizeof both, "%s %s", c[i].platform_name, c[i].device_name);
    if (contains_nocase(both, want))
      return (long)i;
  }
  return -1;
}

/* Every device of every platform, in platform then device order. */
static struct candidate *list_devices(size_t *count, char *why, size_t n)
{
  ocl_uint n_platforms = 0, p, d;
  ocl_platform_id *platforms = NULL;
  struct candidate *c = NULL;
  size_t used = 0, cap = 0;
  ocl_int err = ocl.GetPlatformIDs(0, NULL, &n_platforms);
  *count = 0;
  if (err != OCL_SUCCESS || n_platforms == 0) {
    if (err != OCL_SUCCESS)
      snprintf(why, n, "no OpenCL platform (clGetPlatformIDs: error %d)", (int)err);
    else
      snprintf(why, n, "no OpenCL platform");
    return NULL;
  }
  platforms = (ocl_platform_id *)malloc(n_platforms * sizeof *platforms);
  if (!platforms || ocl.GetPlatformIDs(n_platforms, platforms, NULL) != OCL_SUCCESS) {
    snprintf(why, n, "cannot list the OpenCL platforms");
    free(platforms);
    return NULL;
  }
  for (p = 0; p < n_platforms; p++) {
    ocl_uint n_devices = 0;
    ocl_device_id *devices;
    char platform_name[256];
    if (ocl.GetDeviceIDs(platforms[p], OCL_DEVICE_TYPE_ALL, 0, NULL, &n_devices) !=
            OCL_SUCCESS ||
        n_devices == 0)
      continue; /* CL_DEVICE_NOT_FOUND: a platform without devices */
    devices = (ocl_device_id *)malloc(n_devices * sizeof *devices);
    if (!devices)
      break;
    if (ocl.GetDeviceIDs(platforms[p], OCL_DEVICE_TYPE_ALL, n_devices, devices, NULL) !=
        OCL_SUCCESS) {
      free(devices);
      continue;
    }
    info_string(0, platforms[p], OCL_PLATFORM_NAME, platform_name, sizeof platform_name);
    for (d = 0; d < n_devices; d++) {
      struct candidate *e;
      ocl_bool available = OCL_TRUE;
      if (used == cap) {
        size_t new_cap = cap ? 2 * cap : 8;
        struct candidate *grown = (struct candidate *)realloc(c, new_cap * sizeof *c);
        if (!grown)
          break;
        c = grown;
        cap = new_cap;
      }
      e = &c[used++];
      memset(e, 0, sizeof *e);
      e->platform = platforms[p];
      e->device = devices[d];
      e->platform_index = p;
      e->device_index = d;
      if (ocl.GetDeviceInfo(devices[d], OCL_DEVICE_TYPE, sizeof e->type, &e->type, NULL) !=
          OCL_SUCCESS)
        e->type = 0;
      if (ocl.GetDeviceInfo(devices[d], OCL_DEVICE_AVAILABLE, sizeof available, &available,
                            NULL) != OCL_SUCCESS)
        available = OCL_TRUE;
      e->available = available != OCL_FALSE;
      memcpy(e->platform_name, platform_name, sizeof platform_name);
      info_string(1, devices[d], OCL_DEVICE_NAME, e->device_name, sizeof e->device_name);
    }
    free(devices);
  }
  free(platforms);
  if (used == 0) {
    snprintf(why, n, "no OpenCL device");
    free(c);
    return NULL;
  }
  *count = used;
  return c;
}

/* "-cl-std=CL1.2" when the device's OpenCL C is 1.2 or newer. */
static const char *choose_build_options(void)
{
  char version[128];
  int major = 0, minor = 0;
  info_string(1, rt.device, OCL_DEVICE_OPENCL_C_VERSION, version, sizeof version);
  /* "OpenCL C <major>.<minor> <vendor text>" */
  if (sscanf(version, "OpenCL C %d.%d", &major, &minor) == 2 &&
      (major > 1 || (major == 1 && minor >= 2)))
    return "-cl-std=CL1.2";
  return "";
}

static void query_limits(void)
{
  ocl_uint dims = 0;
  size_t items[16];
  int i;
  rt.max_wg = 1;
  ocl.GetDeviceInfo(rt.device, OCL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof rt.max_wg, &rt.max_wg,
                    NULL);
  if (rt.max_wg == 0)
    rt.max_wg = 1;
  for (i = 0; i < 3; i++)
    rt.max_items[i] = rt.max_wg;
  if (ocl.GetDeviceInfo(rt.device, OCL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, sizeof dims, &dims,
                        NULL) == OCL_SUCCESS &&
      dims >= 3 && dims <= 16 &&
      ocl.GetDeviceInfo(rt.device, OCL_DEVICE_MAX_WORK_ITEM_SIZES, dims * sizeof items[0],
                        items, NULL) == OCL_SUCCESS)
    for (i = 0; i < 3; i++)
      rt.max_items[i] = items[i] ? items[i] : 1;
}

/* Sets rt.state to RT_READY or RT_UNAVAILABLE (printing why). */
static void initialise(void)
{
  char why[512];
  struct candidate *c;
  size_t n = 0;
  long chosen;
  ocl_int err = OCL_SUCCESS;
  const char *want = getenv("PENCILCC_DEVICE");
  ocl_context_properties props[3];

  rt.state = RT_UNAVAILABLE;
  if (!load_library(why, sizeof why)) {
    no_device(why);
    return;
  }
  c = list_devices(&n, why, sizeof why);
  if (!c) {
    no_device(why);
    return;
  }
  chosen = choose_device(c, n, want);
  if (chosen < 0) {
    if (want && *want)
      snprintf(why, sizeof why, "no OpenCL device matches PENCILCC_DEVICE=%s", want);
    else
      snprintf(why, sizeof why, "no available OpenCL device");
    free(c);
    no_device(why);
    return;
  }
  rt.platform = c[chosen].platform;
  rt.device = c[chosen].device;
  memcpy(rt.platform_name, c[chosen].platform_name, sizeof rt.platform_name);
  memcpy(rt.device_name, c[chosen].device_name, sizeof rt.device_name);
  free(c);
  info_string(1, rt.device, OCL_DRIVER_VERSION, rt.driver_version, sizeof rt.driver_version);

  props[0] = OCL_CONTEXT_PLATFORM;
  props[1] = (ocl_context_properties)rt.platform;
  props[2] = 0;
  rt.context = ocl.CreateContext(props, 1, &rt.device, NULL, NULL, &err);
  if (!rt.context || err != OCL_SUCCESS) {
    snprintf(why, sizeof why, "cannot create an OpenCL context on %s (error %d)",
             rt.device_name, (int)err);
    rt.context = NULL;
    no_device(why);
    return;
  }
  rt.profiling = env_flag("PENCILCC_PROFILE");
  rt.queue = ocl.CreateCommandQueue(rt.context, rt.device,
                                    rt.profiling ? OCL_QUEUE_PROFILING_ENABLE : 0, &err);
  if (!rt.queue || err != OCL_SUCCESS) {
    snprintf(why, sizeof why, "cannot create an OpenCL command queue on %s (error %d)",
             rt.device_name, (int)err);
    ocl.ReleaseContext(rt.context);
    rt.context = NULL;
    rt.queue = NULL;
    no_device(why);
    return;
  }
  query_limits();
  rt.build_options = choose_build_options();
  rt.state = RT_READY;
  atexit(rt_at_exit);
}

/* Under rt_lock: 1 when the device is ready (initialising on first use). */
static int ensure_ready(void)
{
  if (rt.state == RT_UNINIT)
    initialise();
  return rt.state == RT_READY;
}

/* ------------------------------------------------------------------------ */
/* Disk cache of program binaries                                           */
/* ------------------------------------------------------------------------ */

/*
 * One file per (source, device, driver, options), named by a hash of them:
 *
 *   "PCCOCL01"                      8 bytes of magic
 *   source, ident, options, binary  4 uint64 lengths (native byte order)
 *   checksum                        uint64 FNV-1a of the binary
 *   the four byte strings
 *
 * `ident` is "<platform>\n<device>\n<driver version>". A lookup compares all
 * of them and the exact file size, so a collision, a truncated or a garbled
 * file is a miss, and the entry is rewritten after the build.
 */
#define CACHE_MAGIC "PCCOCL01"
#define CACHE_HEADER (8 + 5 * 8)
#define CACHE_MAX_FILE (1ULL << 30)

static int make_dirs(char *path)
{
  char *p;
  struct stat st;
  for (p = path + 1; *p; p++) {
    if (*p != '/')
      continue;
    *p = '\0';
    if (mkdir(path, 0700) != 0 && errno != EEXIST) {
      *p = '/';
      return 0;
    }
    *p = '/';
  }
  if (mkdir(path, 0700) != 0 && errno != EEXIST)
    return 0;
  /* Cached binaries are native code the program loads: only a folder of this user's that
     nobody else may write holds them. */
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
         (st.st_mode & (S_IWGRP | S_IWOTH)) == 0 && access(path, W_OK | X_OK) == 0;
}

/* rt.cache_dir, decided and created on first use; NULL when unusable. */
static const char *cache_dir(void)
{
  const char *base, *suffix;
  size_t len;
  if (rt.cache_dir_known)
    return rt.cache_dir;
  rt.cache_dir_known = 1;
  if ((base = getenv("PENCILCC_NO_CACHE")) && *base && strcmp(base, "0") != 0)
    return NULL; /* as the compile cache: PENCILCC_NO_CACHE=1 turns caching off */
  if ((base = getenv("PENCILCC_CACHE_DIR")) && *base)
    suffix = "/opencl";
  else if ((base = getenv("XDG_CACHE_HOME")) && *base)
    suffix = "/pencilcc/opencl";
  else if ((base = getenv("HOME")) && *base)
    suffix = "/.cache/pencilcc/opencl";
  else
    return NULL;
  len = strlen(base) + strlen(suffix) + 1;
  rt.cache_dir = (char *)malloc(len);
  if (!rt.cache_dir)
    return NULL;
  snprintf(rt.cache_dir, len, "%s%s", base, suffix);
  if (!make_dirs(rt.cache_dir)) {
    free(rt.cache_dir);
    rt.cache_dir = NULL;
  }
  return rt.cache_dir;
}

static void device_ident(char *buf, size_t n)
{
  snprintf(buf, n, "%s\n%s\n%s", rt.platform_name, rt.device_name, rt.driver_version);
}

/* The cache file's path for a program (malloc'd), or NULL. */
static char *cache_path(const struct program *prog)
{
  const char *dir = cache_dir();
  char ident[1024];
  uint64_t h;
  size_t len;
  char *path;
  if (!dir)
    return NULL;
  device_ident(ident, sizeof ident);
  h = fnv1a(FNV_OFFSET, prog->source, prog->source_len + 1);
  h = fnv1a(h, ident, strlen(ident) + 1);
  h = fnv1a(h, rt.build_options, strlen(rt.build_options));
  len = strlen(dir) + 32;
  path = (char *)malloc(len);
  if (path)
    snprintf(path, len, "%s/%016llx.clbin", dir, (unsigned long long)h);
  return path;
}

static uint64_t get_u64(const unsigned char *p)
{
  uint64_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* Read a whole regular file (at most CACHE_MAX_FILE bytes), or NULL. */
static unsigned char *read_file(const char *path, size_t *size)
{
  struct stat st;
  unsigned char *data;
  size_t done = 0;
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    return NULL;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < CACHE_HEADER ||
      (unsigned long long)st.st_size > CACHE_MAX_FILE ||
      !(data = (unsigned char *)malloc((size_t)st.st_size))) {
    close(fd);
    return NULL;
  }
  while (done < (size_t)st.st_size) {
    ssize_t got = read(fd, data + done, (size_t)st.st_size - done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      free(data);
      close(fd);
      return NULL;
    }
    done += (size_t)got;
  }
  close(fd);
  *size = done;
  return data;
}

/* A program built from the cached binary of `prog`, or NULL (a miss). */
static ocl_program cache_load(const struct program *prog, const char *path)
{
  char ident[1024];
  size_t size = 0, ident_len, options_len;
  uint64_t len_source, len_ident, len_options, len_binary, checksum;
  const unsigned char *p, *binary;
  ocl_program program;
  ocl_int err = OCL_SUCCESS, status = OCL_SUCCESS;
  size_t binary_size;
  unsigned char *data = read_file(path, &size);
  if (!data)
    return NULL;
  device_ident(ident, sizeof ident);
  ident_len = strlen(ident);
  options_len = strlen(rt.build_options);
  len_source = get_u64(data + 8);
  len_ident = get_u64(data + 16);
  len_options = get_u64(data + 24);
  len_binary = get_u64(data + 32);
  checksum = get_u64(data + 40);
  p = data + CACHE_HEADER;
  /* Each length is compared with what it must be before any sum is formed,
     so a garbled header cannot overflow the size check. */
  if (memcmp(data, CACHE_MAGIC, 8) != 0 || len_source != prog->source_len ||
      len_ident != ident_len || len_options != options_len || len_binary == 0 ||
      len_binary > size || size - CACHE_HEADER != len_source + len_ident + len_options + len_binary ||
      memcmp(p, prog->source, prog->source_len) != 0 ||
      memcmp(p + len_source, ident, ident_len) != 0 ||
      memcmp(p + len_source + len_ident, rt.build_options, options_len) != 0) {
    free(data);
    return NULL;
  }
  binary = p + len_source + len_ident + len_options;
  binary_size = (size_t)len_binary;
  if (fnv1a(FNV_OFFSET, binary, binary_size) != checksum) {
    free(data);
    return NULL;
  }
  program = ocl.CreateProgramWithBinary(rt.context, 1, &rt.device, &binary_size, &binary,
                                        &status, &err);
  free(data);
  if (!program || err != OCL_SUCCESS || status != OCL_SUCCESS) {
    if (program)
      ocl.ReleaseProgram(program);
    return NULL;
  }
  if (ocl.BuildProgram(program, 1, &rt.device, rt.build_options, NULL, NULL) != OCL_SUCCESS) {
    ocl.ReleaseProgram(program);
    return NULL;
  }
  return program;
}

static int write_all(int fd, const void *data, size_t n)
{
  const unsigned char *p = (const unsigned char *)data;
  while (n > 0) {
    ssize_t put = write(fd, p, n);
    if (put < 0 && errno == EINTR)
      continue;
    if (put <= 0)
      return 0;
    p += put;
    n -= (size_t)put;
  }
  return 1;
}

/* Store the binary of a freshly built program; failures are silent (the
   cache is an optimisation). Written to a temporary file and renamed, so a
   concurrent reader sees the old entry, the new one or none. */
static void cache_store(const struct program *prog, ocl_program program, const char *path)
{
  char ident[1024];
  size_t binary_size = 0, tmp_len;
  unsigned char *binary;
  unsigned char header[CACHE_HEADER];
  uint64_t fields[5];
  char *tmp;
  int fd, ok;
  if (ocl.GetProgramInfo(program, OCL_PROGRAM_BINARY_SIZES, sizeof binary_size, &binary_size,
                         NULL) != OCL_SUCCESS ||
      binary_size == 0 || !(binary = (unsigned char *)malloc(binary_size)))
    return;
  if (ocl.GetProgramInfo(program, OCL_PROGRAM_BINARIES, sizeof binary, &binary, NULL) !=
      OCL_SUCCESS) {
    free(binary);
    return;
  }
  device_ident(ident, sizeof ident);
  fields[0] = prog->source_len;
  fields[1] = strlen(ident);
  fields[2] = strlen(rt.build_options);
  fields[3] = binary_size;
  fields[4] = fnv1a(FNV_OFFSET, binary, binary_size);
  memcpy(header, CACHE_MAGIC, 8);
  memcpy(header + 8, fields, sizeof fields);

  tmp_len = strlen(path) + 64;
  tmp = (char *)malloc(tmp_len);
  if (!tmp) {
    free(binary);
    return;
  }
  snprintf(tmp, tmp_len, "%s.tmp.%ld.%u", path, (long)getpid(), rt.cache_tmp_counter++);
  fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd >= 0) {
    ok = write_all(fd, header, sizeof header) &&
         write_all(fd, prog->source, prog->source_len) &&
         write_all(fd, ident, (size_t)fields[1]) &&
         write_all(fd, rt.build_options, (size_t)fields[2]) &&
         write_all(fd, binary, binary_size);
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, path) != 0)
      unlink(tmp);
  }
  free(tmp);
  free(binary);
}

/* ------------------------------------------------------------------------ */
/* Programs and kernels                                                     */
/* ------------------------------------------------------------------------ */

static void print_build_log(ocl_program program, ocl_int err)
{
  size_t size = 0;
  char *log = NULL;
  if (ocl.GetProgramBuildInfo(program, rt.device, OCL_PROGRAM_BUILD_LOG, 0, NULL, &size) ==
          OCL_SUCCESS &&
      size > 0 && (log = (char *)malloc(size + 1)) != NULL) {
    if (ocl.GetProgramBuildInfo(program, rt.device, OCL_PROGRAM_BUILD_LOG, size, log, NULL) !=
        OCL_SUCCESS)
      size = 0;
    log[size] = '\0';
  }
  fprintf(stderr,
          "pencilcc: building an OpenCL program for %s failed (error %d); its kernels run on "
          "the CPU. Build log:\n%s\n",
          rt.device_name, (int)err, log && *log ? log : "(empty)");
  fflush(stderr);
  free(log);
}

static ocl_program build_from_source(const struct program *prog)
{
  ocl_int err = OCL_SUCCESS;
  const char *src = prog->source;
  ocl_program program =
      ocl.CreateProgramWithSource(rt.context, 1, &src, &prog->source_len, &err);
  if (!program || err != OCL_SUCCESS) {
    fprintf(stderr,
            "pencilcc: cannot create an OpenCL program (error %d); its kernels run on the "
            "CPU\n",
            (int)err);
    return NULL;
  }
  err = ocl.BuildProgram(program, 1, &rt.device, rt.build_options, NULL, NULL);
  if (err != OCL_SUCCESS) {
    print_build_log(program, err);
    ocl.ReleaseProgram(program);
    return NULL;
  }
  return program;
}

/* The program of `source`, built or loaded on first use; NULL only when out
   of memory. A program whose build failed is kept with program == NULL so
   the failure is reported once. */
static struct program *get_program(const char *source)
{
  struct program *prog;
  size_t len;
  uint64_t hash;
  char *path;
  for (prog = rt.programs; prog; prog = prog->next)
    if (prog->source_addr == source)
      return prog;
  len = strlen(source);
  hash = fnv1a(FNV_OFFSET, source, len);
  for (prog = rt.programs; prog; prog = prog->next)
    if (prog->hash == hash && prog->source_len == len && memcmp(prog->source, source, len) == 0)
      return prog;

  prog = (struct program *)calloc(1, sizeof *prog);
  if (!prog || !(prog->source = dup_string(source, len))) {
    free(prog);
    return NULL;
  }
  prog->source_addr = source;
  prog->source_len = len;
  prog->hash = hash;
  path = cache_path(prog);
  if (path && (prog->program = cache_load(prog, path)) != NULL) {
    rt.programs_loaded++;
  } else if ((prog->program = build_from_source(prog)) != NULL) {
    rt.programs_built++;
    if (path)
      cache_store(prog, prog->program, path);
  }
  free(path);
  prog->next = rt.programs;
  rt.programs = prog;
  return prog;
}

static size_t kernel_stat_index(const char *name)
{
  size_t i;
  struct kernel_stat *grown;
  for (i = 0; i < rt.n_kstats; i++)
    if (strcmp(rt.kstats[i].name, name) == 0)
      return i;
  grown = (struct kernel_stat *)realloc(rt.kstats, (rt.n_kstats + 1) * sizeof *rt.kstats);
  if (!grown)
    return (size_t)-1;
  rt.kstats = grown;
  grown[rt.n_kstats].name = dup_string(name, strlen(name));
  grown[rt.n_kstats].launches = 0;
  grown[rt.n_kstats].ns = 0;
  if (!grown[rt.n_kstats].name)
    return (size_t)-1;
  return rt.n_kstats++;
}

/* The kernel `name` of a built program; NULL only when out of memory. */
static struct kernel *get_kernel(struct program *prog, const char *name)
{
  struct kernel *k;
  ocl_int err = OCL_SUCCESS;
  for (k = prog->kernels; k; k = k->next)
    if (strcmp(k->name, name) == 0)
      return k;
  k = (struct kernel *)calloc(1, sizeof *k);
  if (!k || !(k->name = dup_string(name, strlen(name)))) {
    free(k);
    return NULL;
  }
  k->stat = kernel_stat_index(name);
  if (k->stat == (size_t)-1) {
    free(k->name);
    free(k);
    return NULL;
  }
  k->kernel = ocl.CreateKernel(prog->program, name, &err);
  if (!k->kernel || err != OCL_SUCCESS) {
    fprintf(stderr, "pencilcc: no OpenCL kernel %s in its program (error %d); it runs on the CPU\n",
            name, (int)err);
    k->kernel = NULL;
  } else {
    if (ocl.GetKernelWorkGroupInfo(k->kernel, rt.device, OCL_KERNEL_WORK_GROUP_SIZE,
                                   sizeof k->wg_size, &k->wg_size, NULL) != OCL_SUCCESS)
      k->wg_size = 0;
    if (ocl.GetKernelWorkGroupInfo(k->kernel, rt.device,
                                   OCL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                   sizeof k->wg_multiple, &k->wg_multiple, NULL) != OCL_SUCCESS)
      k->wg_multiple = 0;
    /* A kernel that declares reqd_work_group_size (a reduction's tree in local memory is
       sized by it) must be launched with exactly that size. */
    if (ocl.GetKernelWorkGroupInfo(k->kernel, rt.device, OCL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                   sizeof k->wg_required, k->wg_required, NULL) != OCL_SUCCESS)
      k->wg_required[0] = k->wg_required[1] = k->wg_required[2] = 0;
  }
  k->next = prog->kernels;
  prog->kernels = k;
  return k;
}

/* The work-group size for a launch. Dimension 0 varies fastest (consecutive
   work-items touch consecutive elements), so it gets the preferred multiple
   (a GPU's SIMD width) and the rest of the budget goes to dimensions 1, 2. */
static void choose_local(const struct kernel *k, uint32_t dims, const size_t *global,
                         size_t *local)
{
  /* 256 work-items fill the SIMD lanes of current GPUs while leaving
     registers per work-item; more rarely helps generated code. */
  size_t budget = 256, multiple, want;
  uint32_t d;
  if (k->wg_required[0]) {
    for (d = 0; d < dims; d++)
      local[d] = k->wg_required[d] ? k->wg_required[d] : 1;
    return;
  }
  if (rt.max_wg < budget)
    budget = rt.max_wg;
  if (k->wg_size && k->wg_size < budget)
    budget = k->wg_size;
  multiple = k->wg_multiple ? k->wg_multiple : 1;
  if (multiple > budget)
    multiple = budget;

  want = dims == 1 ? budget : (multiple > 32 ? multiple : 32);
  if (want > budget)
    want = budget;
  if (want > rt.max_items[0])
    want = rt.max_items[0];
  /* Small extents: round up to the multiple rather than run idle lanes. */
  if (global[0] < want)
    want = (global[0] + multiple - 1) / multiple * multiple;
  if (want > budget)
    want = budget;
  local[0] = want ? want : 1;
  budget /= local[0];

  for (d = 1; d < dims; d++) {
    want = budget;
    if (d == 1 && dims == 3)
      while (want > 1 && (want / 2) * (want / 2) >= budget)
        want /= 2; /* about the square root: share with dimension 2 */
    if (want > rt.max_items[d])
      want = rt.max_items[d];
    if (want > global[d])
      want = global[d];
    local[d] = want ? want : 1;
    budget /= local[d];
    if (budget == 0)
      budget = 1;
  }
}

/* ------------------------------------------------------------------------ */
/* Buffers                                                                  */
/* ------------------------------------------------------------------------ */

static struct buffer *find_buffer(const void *host)
{
  size_t i;
  for (i = 0; i < rt.n_buffers; i++)
    if (rt.buffers[i]->host == host)
      return rt.buffers[i];
  return NULL;
}

static void remove_buffer(size_t i)
{
  struct buffer *b = rt.buffers[i];
  if (b->mem)
    ocl.ReleaseMemObject(b->mem); /* deferred by OpenCL until its commands complete */
  free(b);
  rt.buffers[i] = rt.buffers[--rt.n_buffers];
}

/* Copy a device-newer buffer back to the host (blocking), at most `bytes`. */
static int read_back(struct buffer *b, uint64_t bytes)
{
  ocl_int err;
  if (bytes > b->size)
    bytes = b->size;
  if (bytes > 0) {
    err = ocl.EnqueueReadBuffer(rt.queue, b->mem, OCL_TRUE, 0, (size_t)bytes, writable(b->host), 0,
                                NULL, event_slot());
    if (err != OCL_SUCCESS) {
      fprintf(stderr, "pencilcc: reading an OpenCL buffer back failed (error %d)\n", (int)err);
      return 0;
    }
    event_keep(EVENT_D2H);
    rt.d2h.count++;
    rt.d2h.bytes += bytes;
    queue_drained();
  }
  b->copy = COPY_SYNC;
  return 1;
}

/* Do the host ranges [a, a + an) and [b, b + bn) share a byte? */
static int overlaps(const void *a, uint64_t an, const void *b, uint64_t bn)
{
  uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  return an > 0 && bn > 0 && x < y + bn && y < x + an;
}

/* Whether two BUFFER arguments of a launch cover overlapping host memory differently (the
   same array twice, as one buffer, is fine): one device copy per host byte could not serve
   both, and two would disagree. */
static int overlapping_arguments(uint32_t n_args, const pencilcc_cl_arg *args)
{
  uint32_t i, j;
  for (i = 0; i < n_args; i++)
    for (j = i + 1; j < n_args; j++)
      if (args[i].kind == PENCILCC_CL_BUFFER && args[j].kind == PENCILCC_CL_BUFFER &&
          (args[i].data != args[j].data || args[i].size != args[j].size) &&
          overlaps(args[i].data, args[i].size, args[j].data, args[j].size))
        return 1;
  return 0;
}

/* Does a BUFFER argument of the current launch use `host`? */
static int used_by(const void *host, uint32_t n_args, const pencilcc_cl_arg *args)
{
  uint32_t i;
  for (i = 0; i < n_args; i++)
    if (args[i].kind == PENCILCC_CL_BUFFER && args[i].data == host)
      return 1;
  return 0;
}

static ocl_mem create_mem(uint64_t size, uint32_t n_args, const pencilcc_cl_arg *args)
{
  ocl_int err = OCL_SUCCESS;
  size_t i;
  /* OpenCL has no empty buffers; an empty array gets one unused byte. */
  size_t bytes = size ? (size_t)size : 1;
  ocl_mem mem = ocl.CreateBuffer(rt.context, OCL_MEM_READ_WRITE, bytes, NULL, &err);
  if (mem && err == OCL_SUCCESS)
    return mem;
  if (err != OCL_MEM_OBJECT_ALLOCATION_FAILURE && err != OCL_OUT_OF_RESOURCES)
    return NULL;
  /* Device memory is full: drop the buffers whose contents the host has
     (not newer on the device) and that this launch does not use, then retry. */
  for (i = rt.n_buffers; i-- > 0;)
    if (rt.buffers[i]->copy != COPY_DEVICE_NEWER && !used_by(rt.buffers[i]->host, n_args, args))
      remove_buffer(i);
  mem = ocl.CreateBuffer(rt.context, OCL_MEM_READ_WRITE, bytes, NULL, &err);
  return mem && err == OCL_SUCCESS ? mem : NULL;
}

/* Whether `host` was discarded before it had a buffer (and forget it). */
static int forget_discarded(const void *host)
{
  size_t i;
  for (i = 0; i < rt.n_discarded; i++)
    if (rt.discarded[i] == host) {
      rt.discarded[i] = rt.discarded[--rt.n_discarded];
      return 1;
    }
  return 0;
}

/* The device memory of a SCRATCH argument (at least its size; grown when a launch needs
   more), or NULL. */
static ocl_mem bind_scratch(const pencilcc_cl_arg *arg, uint32_t n_args, const pencilcc_cl_arg *args)
{
  size_t i;
  for (i = 0; i < rt.n_scratch; i++)
    if (rt.scratch[i].name == arg->data)
      break;
  if (i < rt.n_scratch && rt.scratch[i].mem && rt.scratch[i].size >= arg->size)
    return rt.scratch[i].mem;
  if (i == rt.n_scratch) {
    if (rt.n_scratch == rt.cap_scratch) {
      size_t cap = rt.cap_scratch ? 2 * rt.cap_scratch : 8;
      struct scratch *grown = (struct scratch *)realloc(rt.scratch, cap * sizeof *grown);
      if (!grown)
        return NULL;
      rt.scratch = grown;
      rt.cap_scratch = cap;
    }
    rt.scratch[rt.n_scratch].name = arg->data;
    rt.scratch[rt.n_scratch].size = 0;
    rt.scratch[rt.n_scratch].mem = NULL;
    rt.n_scratch++;
  } else if (rt.scratch[i].mem) {
    ocl.ReleaseMemObject(rt.scratch[i].mem); /* deferred until the commands using it complete */
    rt.scratch[i].mem = NULL;
    rt.scratch[i].size = 0;
  }
  rt.scratch[i].mem = create_mem(arg->size, n_args, args);
  if (rt.scratch[i].mem)
    rt.scratch[i].size = arg->size;
  return rt.scratch[i].mem;
}

/* The device buffer of a BUFFER argument, current for the launch, or NULL. */
static struct buffer *bind_buffer(const pencilcc_cl_arg *arg, uint32_t n_args,
                                  const pencilcc_cl_arg *args)
{
  struct buffer *b = find_buffer(arg->data);
  ocl_int err;
  if (b && b->size != arg->size) {
    /* The same address with another size: most likely a new array where a
       freed one was. What the device has newer is still given to the bytes
       both views share before the allocation is replaced. */
    size_t i;
    if (b->copy == COPY_DEVICE_NEWER)
      read_back(b, arg->size);
    for (i = 0; rt.buffers[i] != b; i++)
      ;
    remove_buffer(i);
    b = NULL;
  }
  if (b) {
    rt.buffers_reused++;
  } else {
    /* One device copy per host byte: a buffer over part of the same host memory (an array
       passed again at another address, `y` and `y + k`) gives what it has newer back to the
       host and goes (this launch does not use it: overlapping_arguments). */
    size_t j;
    for (j = rt.n_buffers; j-- > 0;) {
      struct buffer *o = rt.buffers[j];
      if (overlaps(o->host, o->size, arg->data, arg->size) && !used_by(o->host, n_args, args)) {
        if (o->copy == COPY_DEVICE_NEWER)
          read_back(o, o->size);
        remove_buffer(j);
      }
    }
    if (rt.n_buffers == rt.cap_buffers) {
      size_t cap = rt.cap_buffers ? 2 * rt.cap_buffers : 16;
      struct buffer **grown = (struct buffer **)realloc(rt.buffers, cap * sizeof *grown);
      if (!grown)
        return NULL;
      rt.buffers = grown;
      rt.cap_buffers = cap;
    }
    b = (struct buffer *)calloc(1, sizeof *b);
    if (!b)
      return NULL;
    b->mem = create_mem(arg->size, n_args, args);
    if (!b->mem) {
      free(b);
      return NULL;
    }
    b->host = arg->data;
    b->size = arg->size;
    b->copy = forget_discarded(arg->data) ? COPY_SYNC : COPY_HOST_NEWER;
    rt.buffers[rt.n_buffers++] = b;
    rt.buffers_allocated++;
  }
  /* Also for write-only access: the whole buffer is read back later, so the
     device copy must be complete. */
  if (b->copy == COPY_HOST_NEWER) {
    if (b->size > 0) {
      err = ocl.EnqueueWriteBuffer(rt.queue, b->mem, OCL_FALSE, 0, (size_t)b->size, b->host, 0,
                                   NULL, event_slot());
      if (err != OCL_SUCCESS)
        return NULL;
      event_keep(EVENT_H2D);
      rt.busy = 1;
      b->upload_epoch = rt.epoch;
      rt.h2d.count++;
      rt.h2d.bytes += b->size;
    }
    b->copy = COPY_SYNC;
  }
  return b;
}

/* A launch failed and the caller runs the loop on the CPU: give it current
   host copies of the call's arrays, and wait for uploads still reading them.
   Arrays the loop writes are newer on the host afterwards. */
static void settle_for_cpu(uint32_t n_args, const pencilcc_cl_arg *args)
{
  uint32_t i;
  if (rt.state != RT_READY || !args)
    return;
  for (i = 0; i < n_args; i++) {
    struct buffer *b;
    if (args[i].kind != PENCILCC_CL_BUFFER || !(b = find_buffer(args[i].data)))
      continue;
    if (b->copy == COPY_DEVICE_NEWER)
      read_back(b, b->size);
    if (args[i].access & PENCILCC_CL_WRITE)
      b->copy = COPY_HOST_NEWER;
  }
  finish_queue();
}

/* ------------------------------------------------------------------------ */
/* Launch                                                                   */
/* ------------------------------------------------------------------------ */

static int run_locked(const char *source, const char *kernel_name, uint32_t n_args,
                      const pencilcc_cl_arg *args, uint32_t dims, const uint64_t *global)
{
  struct program *prog;
  struct kernel *k;
  size_t g[3], l[3];
  uint32_t i;
  ocl_int err;

  if (!ensure_ready())
    return -1;
  if (!source || !kernel_name || dims < 1 || dims > 3 || !global || (n_args && !args))
    return -1;
  for (i = 0; i < dims; i++) {
    if (global[i] == 0)
      return 0; /* no work-items: the loop has no iterations */
    if (global[i] > (uint64_t)(SIZE_MAX / 2))
      return -1;
    g[i] = (size_t)global[i];
  }
  for (i = 0; i < n_args; i++)
    if (!fits_size_t(args[i].size) || (!args[i].data && args[i].size > 0) ||
        (args[i].kind != PENCILCC_CL_VALUE && args[i].kind != PENCILCC_CL_BUFFER &&
         args[i].kind != PENCILCC_CL_SCRATCH))
      return -1;

  if (!(prog = get_program(source)) || !prog->program)
    return -1;
  if (!(k = get_kernel(prog, kernel_name)) || !k->kernel)
    return -1;
  if (overlapping_arguments(n_args, args)) {
    if (!k->launch_reported)
      fprintf(stderr, "pencilcc: OpenCL kernel %s was given overlapping arrays; it runs on the "
                      "CPU\n", kernel_name);
    k->launch_reported = 1;
    return -1;
  }

  for (i = 0; i < n_args; i++) {
    const pencilcc_cl_arg *a = &args[i];
    if (a->kind == PENCILCC_CL_VALUE) {
      err = ocl.SetKernelArg(k->kernel, i, (size_t)a->size, a->data);
    } else if (a->kind == PENCILCC_CL_SCRATCH) {
      ocl_mem mem = bind_scratch(a, n_args, args);
      if (!mem)
        return -1;
      err = ocl.SetKernelArg(k->kernel, i, sizeof mem, &mem);
    } else {
      struct buffer *b = bind_buffer(a, n_args, args);
      if (!b)
        return -1;
      err = ocl.SetKernelArg(k->kernel, i, sizeof b->mem, &b->mem);
    }
    if (err != OCL_SUCCESS) {
      if (!k->launch_reported)
        fprintf(stderr, "pencilcc: setting argument %u of OpenCL kernel %s failed (error %d); "
                        "it runs on the CPU\n", (unsigned)i, kernel_name, (int)err);
      k->launch_reported = 1;
      return -1;
    }
  }

  choose_local(k, dims, g, l);
  for (i = 0; i < dims; i++)
    g[i] = (g[i] + l[i] - 1) / l[i] * l[i];
  err = ocl.EnqueueNDRangeKernel(rt.queue, k->kernel, dims, NULL, g, l, 0, NULL, event_slot());
  if (err == OCL_INVALID_WORK_GROUP_SIZE && !k->wg_required[0]) {
    /* A limit not visible through the queries: let the implementation pick. */
    for (i = 0; i < dims; i++)
      g[i] = (size_t)global[i];
    err = ocl.EnqueueNDRangeKernel(rt.queue, k->kernel, dims, NULL, g, NULL, 0, NULL,
                                   event_slot());
  }
  if (err != OCL_SUCCESS) {
    if (!k->launch_reported)
      fprintf(stderr, "pencilcc: launching OpenCL kernel %s failed (error %d); it runs on the "
                      "CPU\n", kernel_name, (int)err);
    k->launch_reported = 1;
    return -1;
  }
  event_keep((int)k->stat);
  rt.busy = 1;
  rt.kstats[k->stat].launches++;
  for (i = 0; i < n_args; i++)
    if (args[i].kind == PENCILCC_CL_BUFFER && (args[i].access & PENCILCC_CL_WRITE)) {
      struct buffer *b = find_buffer(args[i].data);
      if (b)
        b->copy = COPY_DEVICE_NEWER;
    }
  return 0;
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                             */
/* ------------------------------------------------------------------------ */

int pencilcc_cl_available(void)
{
  int ready;
  pthread_mutex_lock(&rt_lock);
  ready = ensure_ready();
  pthread_mutex_unlock(&rt_lock);
  return ready;
}

int pencilcc_cl_run(const char *source, const char *kernel_name, uint32_t n_args,
                    const pencilcc_cl_arg *args, uint32_t dims, const uint64_t *global)
{
  int rc;
  pthread_mutex_lock(&rt_lock);
  rc = run_locked(source, kernel_name, n_args, args, dims, global);
  if (rc != 0)
    settle_for_cpu(n_args, args);
  pthread_mutex_unlock(&rt_lock);
  return rc;
}

void pencilcc_cl_to_host(const void *host)
{
  struct buffer *b;
  pthread_mutex_lock(&rt_lock);
  if (rt.state == RT_READY && (b = find_buffer(host)) != NULL) {
    if (b->copy == COPY_DEVICE_NEWER)
      read_back(b, b->size);
    else if (rt.busy && b->upload_epoch == rt.epoch)
      finish_queue(); /* the host may write what an upload still reads */
  }
  pthread_mutex_unlock(&rt_lock);
}

void pencilcc_cl_discard(const void *host)
{
  struct buffer *b;
  pthread_mutex_lock(&rt_lock);
  if (rt.state == RT_READY && (b = find_buffer(host)) != NULL) {
    b->copy = COPY_SYNC; /* neither copy matters: no upload, no read back */
  } else {
    forget_discarded(host); /* listed once */
    if (rt.n_discarded == rt.cap_discarded) {
      size_t cap = rt.cap_discarded ? 2 * rt.cap_discarded : 8;
      const void **grown = (const void **)realloc((void *)rt.discarded, cap * sizeof *grown);
      if (grown) {
        rt.discarded = grown;
        rt.cap_discarded = cap;
      }
    }
    if (rt.n_discarded < rt.cap_discarded)
      rt.discarded[rt.n_discarded++] = host; /* a full list only costs an upload */
  }
  pthread_mutex_unlock(&rt_lock);
}

void pencilcc_cl_host_wrote(const void *host)
{
  struct buffer *b;
  pthread_mutex_lock(&rt_lock);
  forget_discarded(host);
  if (rt.state == RT_READY && (b = find_buffer(host)) != NULL)
    b->copy = COPY_HOST_NEWER;
  pthread_mutex_unlock(&rt_lock);
}

void pencilcc_cl_region_begin(void)
{
  size_t i;
  pthread_mutex_lock(&rt_lock);
  rt.n_discarded = 0;
  /* Buffers newer on the device belong to a region still running in another
     thread (a finished region read them back): they stay as they are. */
  if (rt.state == RT_READY)
    for (i = 0; i < rt.n_buffers; i++)
      if (rt.buffers[i]->copy == COPY_SYNC)
        rt.buffers[i]->copy = COPY_HOST_NEWER;
  pthread_mutex_unlock(&rt_lock);
}

void pencilcc_cl_region_end(void)
{
  size_t i;
  pthread_mutex_lock(&rt_lock);
  rt.n_discarded = 0;
  if (rt.state == RT_READY) {
    /* Reads are enqueued without blocking and waited for together. */
    for (i = 0; i < rt.n_buffers; i++) {
      struct buffer *b = rt.buffers[i];
      ocl_int err;
      if (b->copy != COPY_DEVICE_NEWER)
        continue;
      if (b->size > 0) {
        err = ocl.EnqueueReadBuffer(rt.queue, b->mem, OCL_FALSE, 0, (size_t)b->size,
                                    writable(b->host), 0, NULL, event_slot());
        if (err != OCL_SUCCESS) {
          fprintf(stderr, "pencilcc: reading an OpenCL buffer back failed (error %d)\n",
                  (int)err);
          continue;
        }
        event_keep(EVENT_D2H);
        rt.busy = 1;
        rt.d2h.count++;
        rt.d2h.bytes += b->size;
      }
      b->copy = COPY_SYNC;
    }
    finish_queue();
  }
  pthread_mutex_unlock(&rt_lock);
}

/* ------------------------------------------------------------------------ */
/* Exit: profile, then release everything                                   */
/* ------------------------------------------------------------------------ */

static double ms(unsigned long long ns)
{
  return (double)ns / 1e6;
}

static void print_profile(void)
{
  size_t i;
  fprintf(stderr, "pencilcc profile: device %s / %s\n", rt.platform_name, rt.device_name);
  for (i = 0; i < rt.n_kstats; i++)
    fprintf(stderr, "pencilcc profile: kernel %s: %llu launches, %.3f ms\n", rt.kstats[i].name,
            rt.kstats[i].launches, ms(rt.kstats[i].ns));
  fprintf(stderr, "pencilcc profile: host-to-device: %llu transfers, %llu bytes, %.3f ms\n",
          rt.h2d.count, rt.h2d.bytes, ms(rt.h2d.ns));
  fprintf(stderr, "pencilcc profile: device-to-host: %llu transfers, %llu bytes, %.3f ms\n",
          rt.d2h.count, rt.d2h.bytes, ms(rt.d2h.ns));
  fprintf(stderr, "pencilcc profile: programs: %llu built, %llu loaded from disk cache\n",
          rt.programs_built, rt.programs_loaded);
  fprintf(stderr, "pencilcc profile: buffers: %llu allocated, %llu reused\n",
          rt.buffers_allocated, rt.buffers_reused);
  fflush(stderr);
}

static void rt_at_exit(void)
{
  size_t i;
  struct program *prog;
  pthread_mutex_lock(&rt_lock);
  if (rt.state == RT_READY) {
    /* Buffers still newer on the device are not read back: the program is
       done with them. */
    if (rt.busy)
      ocl.Finish(rt.queue);
    rt.busy = 0;
    drain_events();
    if (rt.profiling)
      print_profile();
    while (rt.n_buffers > 0)
      remove_buffer(rt.n_buffers - 1);
    for (i = 0; i < rt.n_scratch; i++)
      if (rt.scratch[i].mem)
        ocl.ReleaseMemObject(rt.scratch[i].mem);
    free(rt.scratch);
    rt.scratch = NULL;
    free((void *)rt.discarded);
    rt.discarded = NULL;
    rt.n_discarded = rt.cap_discarded = 0;
    rt.n_scratch = rt.cap_scratch = 0;
    while ((prog = rt.programs) != NULL) {
      struct kernel *k;
      while ((k = prog->kernels) != NULL) {
        prog->kernels = k->next;
        if (k->kernel)
          ocl.ReleaseKernel(k->kernel);
        free(k->name);
        free(k);
      }
      if (prog->program)
        ocl.ReleaseProgram(prog->program);
      rt.programs = prog->next;
      free(prog->source);
      free(prog);
    }
    ocl.ReleaseCommandQueue(rt.queue);
    ocl.ReleaseContext(rt.context);
    rt.queue = NULL;
    rt.context = NULL;
    for (i = 0; i < rt.n_kstats; i++)
      free(rt.kstats[i].name);
    free(rt.kstats);
    free(rt.buffers);
    free(rt.pending);
    free(rt.cache_dir);
    rt.kstats = NULL;
    rt.buffers = NULL;
    rt.pending = NULL;
    rt.cache_dir = NULL;
    rt.n_kstats = rt.cap_buffers = 0;
    /* The library stays loaded: its own exit handlers run after this one. */
  }
  /* Calls from exit handlers that run later find no device. */
  rt.state = RT_FINISHED;
  pthread_mutex_unlock(&rt_lock);
}
