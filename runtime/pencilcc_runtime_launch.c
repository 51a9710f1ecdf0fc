/* SPDX-License-Identifier: MIT */
/*
 * pencilcc_runtime_launch.c: a kernel launch and its work-group size.
 *
 * pencilcc_cl_run binds the arguments (buffers: pencilcc_runtime_buffers.c),
 * picks a work-group size from the device's and the kernel's limits (exactly
 * reqd_work_group_size when the kernel declares one), rounds the global size up
 * to it and enqueues; a launch that cannot happen returns non-zero after
 * pencilcc_runtime_fallback.c has readied the host for the CPU loop.
 */
#include "pencilcc_runtime_internal.h"

/* ------------------------------------------------------------------------ */
/* Work-group sizes                                                         */
/* ------------------------------------------------------------------------ */

static int fits_size_t(uint64_t n)
{
#if SIZE_MAX < UINT64_MAX
  return n <= (uint64_t)SIZE_MAX;
#else
  (void)n;
  return 1;
#endif
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
      if (b) {
        b->copy = COPY_DEVICE_NEWER;
        b->dead = 0;
      }
    }
  return 0;
}

/* ------------------------------------------------------------------------ */
/* Entry point                                                              */
/* ------------------------------------------------------------------------ */

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
