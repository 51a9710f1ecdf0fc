/* SPDX-License-Identifier: MIT */
/*
 * pencilcc_runtime_program.c: programs and their kernels.
 *
 * A program (a string constant of the generated code) is built once per
 * process, or loaded from the disk cache (pencilcc_runtime_cache.c), and
 * looked up by address, then by content; each kernel is created once per
 * program, with the work-group limits its launches need. A build or a kernel
 * that fails is kept as failed and reported once.
 */
#include "pencilcc_runtime_internal.h"

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
struct program *get_program(const char *source)
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

/* The kernel `name` of a built program; NULL only when out of memory. */
struct kernel *get_kernel(struct program *prog, const char *name)
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
