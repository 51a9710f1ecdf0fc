/* SPDX-License-Identifier: MIT */
/*
 * pencilcc_runtime_device.c: the OpenCL library, the device and its context and queue.
 *
 * On first use the runtime opens libOpenCL with dlopen (no OpenCL header is
 * included and -lOpenCL is never linked), lists every device of every platform,
 * chooses one (PENCILCC_DEVICE, else the first GPU, else the first device),
 * and creates one context and one in-order queue for the whole process
 * (profiling enabled with PENCILCC_PROFILE=1). When that fails at any step it
 * says why in one line and every region runs on the CPU.
 */
#include "pencilcc_runtime_internal.h"

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */
/* ------------------------------------------------------------------------ */

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
/* Initialisation: library, device, context, queue                          */
/* ------------------------------------------------------------------------ */

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

/* Which variant of a tiled kernel runs (rt.direct): PENCILCC_OPENCL_MAPPING=gpu (the staged
   one: tiles in __local memory, barriers), cpu (the direct one: one work-item per iteration,
   no local copies), or auto / unset: direct when the device's local memory is global memory
   (CL_DEVICE_LOCAL_MEM_TYPE is CL_GLOBAL: a CPU device such as PoCL, where the copies and
   barriers only cost), staged otherwise (GPUs, oclgrind). */
static int choose_direct(void)
{
  const char *want = getenv("PENCILCC_OPENCL_MAPPING");
  ocl_uint type = 0;
  if (want && *want && !equals_nocase(want, "auto")) {
    if (equals_nocase(want, "gpu"))
      return 0;
    if (equals_nocase(want, "cpu"))
      return 1;
    fprintf(stderr, "pencilcc: PENCILCC_OPENCL_MAPPING=%s is not gpu, cpu or auto; using auto\n",
            want);
  }
  if (ocl.GetDeviceInfo(rt.device, OCL_DEVICE_LOCAL_MEM_TYPE, sizeof type, &type, NULL) !=
      OCL_SUCCESS)
    return 0;
  return type == OCL_GLOBAL;
}

/* ------------------------------------------------------------------------ */
/* The exit work before the library's thread-local state is gone            */
/* ------------------------------------------------------------------------ */

/* glibc's exit() runs the calling thread's thread-local destructors first and the atexit
   handlers after them, and an OpenCL library may keep thread-local state that its entry
   points use: oclgrind 21.10's ICD keeps a std::stack per thread, so every OpenCL call from
   rt_at_exit as an atexit handler wrote to freed memory (valgrind: invalid writes in
   clFinish and clRelease*), which corrupted the heap and aborted some runs at the last free
   (3mm built from source under oclgrind's instruction counts, every run). So, where glibc
   offers __cxa_thread_atexit_impl (what C++ thread_local destructors are registered with)
   and the device is initialised on the thread that loaded the runtime (the main thread of a
   program), rt_at_exit is also registered as a thread-local destructor of that thread,
   after the library's first calls have created its state: such destructors run in reverse
   order, so it runs before the library's own. atexit stays for every other case;
   rt_at_exit does its work once. */
#if defined(__GLIBC__) && defined(__GNUC__)
extern int __cxa_thread_atexit_impl(void (*func)(void *), void *obj, void *dso_symbol)
  __attribute__((weak));
#define PENCILCC_THREAD_EXIT_HOOK 1
#endif

#ifdef PENCILCC_THREAD_EXIT_HOOK
static pthread_t loading_thread;
static int loading_thread_known;

__attribute__((constructor)) static void note_loading_thread(void)
{
  loading_thread = pthread_self();
  loading_thread_known = 1;
}

static void at_thread_exit(void *unused)
{
  (void)unused;
  rt_at_exit();
}
#endif

static void register_exit_work(void)
{
#ifdef PENCILCC_THREAD_EXIT_HOOK
  static char anchor; /* an address inside this program or shared object */
  if (__cxa_thread_atexit_impl && loading_thread_known &&
      pthread_equal(pthread_self(), loading_thread))
    __cxa_thread_atexit_impl(at_thread_exit, NULL, &anchor);
#endif
  atexit(rt_at_exit);
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
  rt.direct = choose_direct();
  rt.build_options = choose_build_options();
  rt.state = RT_READY;
  register_exit_work();
}

/* Under rt_lock: 1 when the device is ready (initialising on first use). */
int ensure_ready(void)
{
  if (rt.state == RT_UNINIT)
    initialise();
  return rt.state == RT_READY;
}

/* ------------------------------------------------------------------------ */
/* Entry point                                                              */
/* ------------------------------------------------------------------------ */

int pencilcc_cl_available(void)
{
  int ready;
  pthread_mutex_lock(&rt_lock);
  ready = ensure_ready();
  pthread_mutex_unlock(&rt_lock);
  return ready;
}

int pencilcc_cl_mapping(void)
{
  int direct;
  pthread_mutex_lock(&rt_lock);
  direct = ensure_ready() && rt.direct;
  pthread_mutex_unlock(&rt_lock);
  return direct;
}
