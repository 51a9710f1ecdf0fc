/* SPDX-License-Identifier: MIT */
/*
 * pencilcc_runtime.c: the OpenCL runtime of pencilcc's generated host code.
 *
 * The back end adds the runtime's files (this one and the pencilcc_runtime_*.c
 * beside it: llvm_backend.opencl.runtime lists them) and -ldl -lpthread to the
 * user's link line, so they are compiled by the user's compiler with the user's
 * flags: they are strict C99 plus POSIX, and warning-free under -Wall -Wextra
 * -pedantic.
 *
 * It does not include the OpenCL headers nor link libOpenCL: the library is
 * opened with dlopen on first use, and the few types, constants and entry
 * points used are declared in pencilcc_runtime_internal.h (values from the
 * OpenCL 1.2 specification).
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
 *
 * This file defines that state and what every part of the runtime uses; each
 * concern has a file of its own (pencilcc_runtime_internal.h lists them and
 * declares what they share).
 */
#include "pencilcc_runtime_internal.h"

/* ------------------------------------------------------------------------ */
/* Runtime state                                                            */
/* ------------------------------------------------------------------------ */

struct ocl_api ocl;
pthread_mutex_t rt_lock = PTHREAD_MUTEX_INITIALIZER;
struct rt_state rt;

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */
/* ------------------------------------------------------------------------ */

char *dup_string(const char *s, size_t n)
{
  char *copy = (char *)malloc(n + 1);
  if (copy) {
    memcpy(copy, s, n);
    copy[n] = '\0';
  }
  return copy;
}

uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
  const unsigned char *p = (const unsigned char *)data;
  while (n--) {
    h ^= *p++;
    h *= 0x100000001b3ULL;
  }
  return h;
}

/* ------------------------------------------------------------------------ */
/* Synchronisation                                                          */
/* ------------------------------------------------------------------------ */

/* Everything enqueued so far has completed (clFinish, or a blocking read on
   the in-order queue). */
void queue_drained(void)
{
  rt.epoch++;
  rt.busy = 0;
  drain_events();
}

void finish_queue(void)
{
  if (rt.busy) {
    ocl.Finish(rt.queue);
    queue_drained();
  }
}

/* ------------------------------------------------------------------------ */
/* Exit: profile, then release everything                                   */
/* ------------------------------------------------------------------------ */

void rt_at_exit(void)
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
