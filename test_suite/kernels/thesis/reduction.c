/* SPDX-License-Identifier: MIT */
/*
 * Thesis section 4.3.4.i, reduction clause: the compiler ignores every
 * loop-carried dependence of the loop except those of the reduction
 * variable `result` (the writes B[T[i]] are declared independent).
 *
 * The thesis prints only the loop; it is wrapped in a function, and foo is
 * given a small PENCIL definition (marked with the PENCIL attribute).
 */
#include "pencil.h"

PENCIL int foo(int i)
{
    return i * i;
}

int sum_and_scatter(int n, int A[pencil_array n], int B[pencil_array n],
                    int T[pencil_array n])
{
    int result = 0;
#pragma pencil independent reduction(+: result)
    for (int i = 0; i < n; i++) {
        B[T[i]] = foo(i);
        result += A[i];
    }
    return result;
}
