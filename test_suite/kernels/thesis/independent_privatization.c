/* SPDX-License-Identifier: MIT */
/*
 * Thesis section 4.3.4.i, independent directive, Example 3: privatisation.
 * In independent_wrong the scalar t is shared by all iterations, so marking
 * the loop independent is incorrect (two iterations may write different
 * values to t).  In independent_right t is declared in the loop body, so
 * each iteration has its own copy; the annotation is then correct provided
 * the elements of B are all different.
 *
 * The thesis prints only the loops; they are wrapped in functions, and foo
 * is given a small PENCIL definition (marked with the PENCIL attribute).
 */
#include "pencil.h"

PENCIL int foo(int i)
{
    return 3 * i + 1;
}

void independent_wrong(int N, int A[pencil_array N], int B[pencil_array N])
{
    int t;
#pragma pencil independent
    for (int i = 0; i < N; i++) {
        t = foo(i);
        A[B[i]] = t;
    }
}

void independent_right(int N, int A[pencil_array N], int B[pencil_array N])
{
#pragma pencil independent
    for (int i = 0; i < N; i++) {
        int t = foo(i);
        A[B[i]] = t;
    }
}
