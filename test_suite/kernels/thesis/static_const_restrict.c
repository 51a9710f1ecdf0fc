/* SPDX-License-Identifier: MIT */
/*
 * Thesis section 4.3.1, "static, const and restrict", Examples: a correct
 * PENCIL declaration and call.  a and b are restricted arrays (analogous to
 * restricted pointers in C99); pencil_array abbreviates
 * `static const restrict`.
 *
 * Changes from the printed text: the missing comma between the two
 * parameters of foo is added, and bar is declared `bar(void)`.
 */
#include "pencil.h"

/* PENCIL code.
 * a and b are restricted arrays (analogous to restricted pointers in C99).
 */
void foo(int n, float a[static const restrict n],
         float b[static const restrict n]);

void bar(void)
{
    int n = 42;
    float pa[n], dc[n];

    foo(n, pa, dc);
}
