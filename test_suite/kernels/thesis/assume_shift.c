/* SPDX-License-Identifier: MIT */
/*
 * Thesis section 4.3.5.iii, __pencil_assume, Example 2: the loop carries a
 * dependence unless m > n; __pencil_assume(m > n) tells the compiler so and
 * makes the loop parallel.  The thesis then shows the alternative of
 * marking the loop independent.  (Both functions are named foo in the
 * thesis; the second is renamed here.)
 */
#include "pencil.h"

void foo(int n, int m, int S, int D[pencil_array S])
{
    __pencil_assume(m > n);
    for (int i = 0; i < n; i++) {
        D[i] = D[i+m];
    }
}

void foo_independent(int n, int m, int S, int D[pencil_array S])
{
#pragma pencil independent
    for (int i = 0; i < n; i++) {
        D[i] = D[i+m];
    }
}
