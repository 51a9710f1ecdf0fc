/* SPDX-License-Identifier: MIT */
/*
 * Thesis section 4.3.4.ii, ivdep directive, Example 1: vectorisation would
 * be invalid for k < 0; `#pragma pencil ivdep` lets the compiler ignore the
 * assumed loop-carried dependences (out-of-bound accesses are ignored in
 * the thesis example).
 *
 * The thesis prints only the loop; it is wrapped in a function.
 */
#include "pencil.h"

void shift_scale(int n, int m, int k, float c, float a[pencil_array n])
{
#pragma pencil ivdep
    for (int i = 0; i < m; i++)
    {
        float t = a[i + k] * c;
        a[i] = t;
    }
}
