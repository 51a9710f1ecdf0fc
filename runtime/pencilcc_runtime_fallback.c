/* SPDX-License-Identifier: MIT */
/*
 * pencilcc_runtime_fallback.c: the CPU fallback.
 *
 * Whenever a launch cannot happen (no device: pencilcc_runtime_device.c, a build
 * error: pencilcc_runtime_program.c, a refused argument or launch:
 * pencilcc_runtime_launch.c), pencilcc_cl_run returns non-zero and the generated
 * code runs the same loop on the CPU. Before it returns, the host must have
 * current copies of the call's arrays, and the device must learn that the loop
 * wrote some: that is this file.
 */
#include "pencilcc_runtime_internal.h"

/* A launch failed and the caller runs the loop on the CPU: give it current
   host copies of the call's arrays, and wait for uploads still reading them.
   Arrays the loop writes are newer on the host afterwards. */
void settle_for_cpu(uint32_t n_args, const pencilcc_cl_arg *args)
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
