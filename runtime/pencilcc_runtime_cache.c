/* SPDX-License-Identifier: MIT */
/*
 * pencilcc_runtime_cache.c: the disk cache of program binaries.
 *
 * A program built from source is stored as the device's binary, and later
 * runs load it instead of running the OpenCL C compiler. Binaries are native
 * code the program loads, so only a directory of the user's own that nobody
 * else may write holds them, and an entry is used only when it matches the
 * program, the device and the options byte for byte (below).
 */
#include "pencilcc_runtime_internal.h"

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
char *cache_path(const struct program *prog)
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
ocl_program cache_load(const struct program *prog, const char *path)
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
void cache_store(const struct program *prog, ocl_program program, const char *path)
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
