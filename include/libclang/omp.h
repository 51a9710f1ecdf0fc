/* SPDX-License-Identifier: MIT */
/* pencilcc's front end only (libclang): the host compiler's own <omp.h>, read as the host reads it.

   libclang parses with the host compiler's builtin header directory (clangpass/toolchain.py), and
   gcc's omp.h (gcc >= 11) declares its allocators with `__attribute__((__malloc__(omp_free)))`,
   the deallocator form of the attribute that clang does not know ("'__malloc__' attribute takes
   no arguments"): a file that includes <omp.h> could not be parsed at all. This directory comes
   before the host's in libclang's search path; the host compiler never searches it. The header
   below is the host's, unchanged but for that deallocator argument, which says nothing that
   pencilcc's analysis reads. */
#pragma push_macro("__malloc__")
#undef __malloc__
#define __malloc__(deallocator) __malloc__
#include_next <omp.h>
#pragma pop_macro("__malloc__")
