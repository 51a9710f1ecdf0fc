/* SPDX-License-Identifier: MIT */
/*
 * pencilcc_runtime_internal.h: what the files of the OpenCL runtime share, private to them.
 *
 * Generated code and programs include pencilcc_runtime.h, the runtime's contract; nothing
 * here is part of it. Each file of the runtime includes this header first and no other: it
 * defines _POSIX_C_SOURCE before any system header is read, includes the system headers the
 * runtime uses, and then maps the shared names (below).
 *
 *   pencilcc_runtime.c           the shared state, small helpers, queue synchronisation, exit
 *   pencilcc_runtime_device.c    dlopen of libOpenCL, device choice (PENCILCC_DEVICE), context,
 *                                queue, device limits; pencilcc_cl_available
 *   pencilcc_runtime_program.c   programs (built once per process) and their kernels
 *   pencilcc_runtime_cache.c     the disk cache of program binaries and its safety checks
 *   pencilcc_runtime_buffers.c   device buffers by host address: staleness, transfers, discarded
 *                                dead data, scratch memory, allocations kept across region
 *                                calls; pencilcc_cl_to_host, _discard, _host_wrote,
 *                                _region_begin, _region_end, _keep_device_data, _residency_push,
 *                                _residency_pop
 *   pencilcc_runtime_launch.c    work-group sizes (reqd_work_group_size), a launch;
 *                                pencilcc_cl_run
 *   pencilcc_runtime_fallback.c  a refused launch: the host gets current data for the CPU loop
 *   pencilcc_runtime_profile.c   PENCILCC_PROFILE: profiling events, per-kernel counters,
 *                                the report at exit
 *
 * Names. What one file defines for another has external linkage, and the runtime is compiled
 * into the user's program: each such symbol is spelled pencilcc_rt_<name> so that it cannot
 * collide with the program's own (the entry points are pencilcc_cl_<name>), and is declared
 * PENCILCC_RT_INTERNAL (hidden: not exported from a shared object). The runtime's code calls
 * them by their short names, which the #defines below map onto the symbols; a name shared by
 * a new file gets its line there and its declaration at the end. Everything else is static to
 * its file.
 */
#ifndef PENCILCC_RUNTIME_INTERNAL_H
#define PENCILCC_RUNTIME_INTERNAL_H

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

/* The shared names below are not exported from a shared object the runtime is linked into
   (as when they were static in one file): only the API is. */
#if defined(__GNUC__) && !defined(_WIN32) && !defined(__CYGWIN__)
#define PENCILCC_RT_INTERNAL __attribute__((visibility("hidden")))
#else
#define PENCILCC_RT_INTERNAL
#endif

#define ocl pencilcc_rt_ocl
#define rt pencilcc_rt_state
#define rt_lock pencilcc_rt_lock
#define dup_string pencilcc_rt_dup_string
#define fnv1a pencilcc_rt_fnv1a
#define queue_drained pencilcc_rt_queue_drained
#define finish_queue pencilcc_rt_finish_queue
#define rt_at_exit pencilcc_rt_at_exit
#define ensure_ready pencilcc_rt_ensure_ready
#define cache_path pencilcc_rt_cache_path
#define cache_load pencilcc_rt_cache_load
#define cache_store pencilcc_rt_cache_store
#define get_program pencilcc_rt_get_program
#define get_kernel pencilcc_rt_get_kernel
#define find_buffer pencilcc_rt_find_buffer
#define remove_buffer pencilcc_rt_remove_buffer
#define read_back pencilcc_rt_read_back
#define overlapping_arguments pencilcc_rt_overlapping_arguments
#define bind_scratch pencilcc_rt_bind_scratch
#define bind_buffer pencilcc_rt_bind_buffer
#define settle_for_cpu pencilcc_rt_settle_for_cpu
#define drain_events pencilcc_rt_drain_events
#define event_slot pencilcc_rt_event_slot
#define event_keep pencilcc_rt_event_keep
#define kernel_stat_index pencilcc_rt_kernel_stat_index
#define print_profile pencilcc_rt_print_profile

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
#define OCL_DEVICE_LOCAL_MEM_TYPE 0x1022u
#define OCL_GLOBAL 0x2u
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

/* The entry points, loaded by dlsym (pencilcc_runtime_device.c). */
struct ocl_api {
#define OCL_MEMBER(name, ret, params) ocl_##name##_fn name;
  OCL_FUNCTIONS(OCL_MEMBER)
#undef OCL_MEMBER
};
extern PENCILCC_RT_INTERNAL struct ocl_api ocl;

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
  /* Discarded in this region call and not written by a kernel since: neither copy holds the
     array's values, so a later call that keeps device data uploads it (the host's copy). */
  int dead;
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

/* Guards `rt`: every entry point holds it while it runs. */
extern PENCILCC_RT_INTERNAL pthread_mutex_t rt_lock;

struct rt_state {
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
  /* 1: the kernels' direct variants run (a device whose local memory is global memory, or
     PENCILCC_OPENCL_MAPPING=cpu); 0: their staged, work-group-tiled ones (pencilcc_cl_mapping). */
  int direct;
  int profiling;

  /* Incremented whenever the queue has drained (clFinish or a blocking
     read); `busy` says whether anything was enqueued since. */
  unsigned long long epoch;
  int busy;

  struct buffer **buffers;
  size_t n_buffers, cap_buffers;
  /* pencilcc_cl_keep_device_data: the program declares its host writes between region calls
     (pencilcc_cl_host_wrote), so a region call does not make every device copy stale. */
  int keep_device_data;
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
};
extern PENCILCC_RT_INTERNAL struct rt_state rt;

#define FNV_OFFSET 0xcbf29ce484222325ULL

/* pencilcc_runtime.c */
PENCILCC_RT_INTERNAL char *dup_string(const char *s, size_t n);
PENCILCC_RT_INTERNAL uint64_t fnv1a(uint64_t h, const void *data, size_t n);
PENCILCC_RT_INTERNAL void queue_drained(void);
PENCILCC_RT_INTERNAL void finish_queue(void);
PENCILCC_RT_INTERNAL void rt_at_exit(void);

/* pencilcc_runtime_device.c */
PENCILCC_RT_INTERNAL int ensure_ready(void);

/* pencilcc_runtime_cache.c */
PENCILCC_RT_INTERNAL char *cache_path(const struct program *prog);
PENCILCC_RT_INTERNAL ocl_program cache_load(const struct program *prog, const char *path);
PENCILCC_RT_INTERNAL void cache_store(const struct program *prog, ocl_program program,
                                      const char *path);

/* pencilcc_runtime_program.c */
PENCILCC_RT_INTERNAL struct program *get_program(const char *source);
PENCILCC_RT_INTERNAL struct kernel *get_kernel(struct program *prog, const char *name);

/* pencilcc_runtime_buffers.c */
PENCILCC_RT_INTERNAL struct buffer *find_buffer(const void *host);
PENCILCC_RT_INTERNAL void remove_buffer(size_t i);
PENCILCC_RT_INTERNAL int read_back(struct buffer *b, uint64_t bytes);
PENCILCC_RT_INTERNAL int overlapping_arguments(uint32_t n_args, const pencilcc_cl_arg *args);
PENCILCC_RT_INTERNAL ocl_mem bind_scratch(const pencilcc_cl_arg *arg, uint32_t n_args,
                                          const pencilcc_cl_arg *args);
PENCILCC_RT_INTERNAL struct buffer *bind_buffer(const pencilcc_cl_arg *arg, uint32_t n_args,
                                                const pencilcc_cl_arg *args);

/* pencilcc_runtime_fallback.c */
PENCILCC_RT_INTERNAL void settle_for_cpu(uint32_t n_args, const pencilcc_cl_arg *args);

/* pencilcc_runtime_profile.c */
PENCILCC_RT_INTERNAL void drain_events(void);
PENCILCC_RT_INTERNAL ocl_event *event_slot(void);
PENCILCC_RT_INTERNAL void event_keep(int what);
PENCILCC_RT_INTERNAL size_t kernel_stat_index(const char *name);
PENCILCC_RT_INTERNAL void print_profile(void);

#endif /* PENCILCC_RUNTIME_INTERNAL_H */
