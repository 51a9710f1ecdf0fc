/* SPDX-License-Identifier: MIT */
/*
 * pencilcc_runtime_buffers.c: device buffers and the transfers between host and device.
 *
 * A device buffer mirrors one host array, identified by its address, and
 * records which copy is current (host, both, device): an upload happens before
 * a launch only when the device copy is stale, a read back only when the host
 * needs what the device wrote, and neither for data the region discarded as
 * dead. Allocations are kept across region calls; scratch memory is device
 * memory only kernels use, kept by name.
 */
#include "pencilcc_runtime_internal.h"

/* ------------------------------------------------------------------------ */
/* Buffers                                                                  */
/* ------------------------------------------------------------------------ */

/* The API passes arrays as const pointers (a launch only reads the host copy);
   a read-back writes the same array, which is the program's own writable
   storage. The detour through uintptr_t states that without -Wcast-qual noise. */
static void *writable(const void *p)
{
  return (void *)(uintptr_t)p;
}

struct buffer *find_buffer(const void *host)
{
  size_t i;
  for (i = 0; i < rt.n_buffers; i++)
    if (rt.buffers[i]->host == host)
      return rt.buffers[i];
  return NULL;
}

void remove_buffer(size_t i)
{
  struct buffer *b = rt.buffers[i];
  if (b->mem)
    ocl.ReleaseMemObject(b->mem); /* deferred by OpenCL until its commands complete */
  free(b);
  rt.buffers[i] = rt.buffers[--rt.n_buffers];
}

/* Copy a device-newer buffer back to the host (blocking), at most `bytes`. */
int read_back(struct buffer *b, uint64_t bytes)
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
int overlapping_arguments(uint32_t n_args, const pencilcc_cl_arg *args)
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
ocl_mem bind_scratch(const pencilcc_cl_arg *arg, uint32_t n_args, const pencilcc_cl_arg *args)
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
struct buffer *bind_buffer(const pencilcc_cl_arg *arg, uint32_t n_args,
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

/* ------------------------------------------------------------------------ */
/* Entry points                                                             */
/* ------------------------------------------------------------------------ */

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
    b->dead = 1;
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
  if (rt.state == RT_READY && (b = find_buffer(host)) != NULL) {
    b->copy = COPY_HOST_NEWER;
    b->dead = 0;
  }
  pthread_mutex_unlock(&rt_lock);
}

/* Device copies a region call leaves current on both sides (SYNC) stay so only while no host
   write goes undeclared: entering the mode, every such copy is made stale once. */
static void stale_synced(void)
{
  size_t i;
  if (rt.state == RT_READY)
    for (i = 0; i < rt.n_buffers; i++)
      if (rt.buffers[i]->copy == COPY_SYNC)
        rt.buffers[i]->copy = COPY_HOST_NEWER;
}

void pencilcc_cl_keep_device_data(int on)
{
  pthread_mutex_lock(&rt_lock);
  if (on && !rt.keep_device_data)
    stale_synced(); /* the host may have written them since the last region call, undeclared */
  rt.keep_device_data = on != 0;
  pthread_mutex_unlock(&rt_lock);
}

/* pencilcc_cl_residency_push/_pop: how many loops the calling thread is in whose host code
   writes no array between region calls (pencilcc proved it from the caller's source). Kept
   per thread: the region calls of another thread keep their own mode. When the key cannot
   be made the depth is always 0, the default. */
static pthread_key_t residency_key;
static pthread_once_t residency_once = PTHREAD_ONCE_INIT;
static int residency_key_made;

static void make_residency_key(void)
{
  residency_key_made = pthread_key_create(&residency_key, NULL) == 0;
}

static uintptr_t residency_depth(void)
{
  void *value;
  pthread_once(&residency_once, make_residency_key);
  if (!residency_key_made)
    return 0;
  value = pthread_getspecific(residency_key);
  return (uintptr_t)value;
}

void pencilcc_cl_residency_push(void)
{
  uintptr_t depth = residency_depth();
  if (!residency_key_made)
    return;
  pthread_mutex_lock(&rt_lock);
  if (depth == 0 && !rt.keep_device_data)
    stale_synced(); /* the host may have written them before the loop */
  pthread_mutex_unlock(&rt_lock);
  pthread_setspecific(residency_key, (void *)(depth + 1));
}

void pencilcc_cl_residency_pop(void)
{
  uintptr_t depth = residency_depth();
  if (depth > 0) /* a pop without its push (a jump into the loop) changes nothing */
    pthread_setspecific(residency_key, (void *)(depth - 1));
}

void pencilcc_cl_region_begin(void)
{
  uintptr_t depth = residency_depth();
  pthread_mutex_lock(&rt_lock);
  rt.n_discarded = 0;
  /* Buffers newer on the device belong to a region still running in another
     thread (a finished region read them back): they stay as they are. With
     keep_device_data the program has declared what it wrote since the last
     call (host_wrote), and the copies current on both sides stay so; so they do inside a
     loop pencilcc proved writes nothing on the host between calls (residency_push). */
  if (!rt.keep_device_data && depth == 0)
    stale_synced();
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
    /* Dead data was neither uploaded nor read back: the device copy is no copy of the host's. */
    for (i = 0; i < rt.n_buffers; i++) {
      if (rt.buffers[i]->dead && rt.buffers[i]->copy == COPY_SYNC)
        rt.buffers[i]->copy = COPY_HOST_NEWER;
      rt.buffers[i]->dead = 0;
    }
    finish_queue();
  }
  pthread_mutex_unlock(&rt_lock);
}
