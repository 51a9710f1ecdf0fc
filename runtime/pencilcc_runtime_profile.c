/* SPDX-License-Identifier: MIT */
/*
 * pencilcc_runtime_profile.c: PENCILCC_PROFILE: counters and profiling events.
 *
 * With PENCILCC_PROFILE=1 the queue profiles its commands; every enqueue keeps
 * its event (event_slot, event_keep), events are read at the next
 * synchronisation point (drain_events) or when too many are pending, and the
 * totals per kernel and per direction of transfer are printed at exit
 * (print_profile, called by rt_at_exit).
 */
#include "pencilcc_runtime_internal.h"

/* ------------------------------------------------------------------------ */
/* Profiling events                                                         */
/* ------------------------------------------------------------------------ */

/* Read and release every pending profiling event (waiting for them). */
void drain_events(void)
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
ocl_event *event_slot(void)
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
void event_keep(int what)
{
  if (rt.profiling && rt.pending && rt.pending[rt.n_pending].event) {
    rt.pending[rt.n_pending].what = what;
    rt.n_pending++;
  }
}

/* ------------------------------------------------------------------------ */
/* Per-kernel counters                                                      */
/* ------------------------------------------------------------------------ */

/* The index of kernel `name`'s counters in rt.kstats (added on first use), or (size_t)-1
   when out of memory. */
size_t kernel_stat_index(const char *name)
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

/* ------------------------------------------------------------------------ */
/* The report at exit                                                       */
/* ------------------------------------------------------------------------ */

static double ms(unsigned long long ns)
{
  return (double)ns / 1e6;
}

void print_profile(void)
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
