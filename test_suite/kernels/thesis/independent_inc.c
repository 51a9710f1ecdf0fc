/* SPDX-License-Identifier: MIT */
/*
 * Thesis section 4.3.4.i, independent directive, Example 2: the loop body
 * calls inc, a non-PENCIL function (an atomic increment) described by the
 * summary inc_summary, which may read and write all of A.  The loop is
 * independent because the increments commute.
 *
 * Change from the printed text: the summary's parameter is declared
 * `float A[pencil_array 256]` like inc's (the thesis writes `float A[256]`;
 * a summary has the same signature as the function it describes).
 */
#include "pencil.h"

void inc_summary(float A[pencil_array 256], int c)
{
    if (MAYBE)
    {
        USE(A);
        DEF(A);
    }
}

void inc(float A[pencil_array 256], int c) ACCESS(inc_summary);

void foo(int N, float A[pencil_array 256], int t[pencil_array N])
{
#pragma pencil independent
    for (int i = 0; i < N; i++)
        inc(A, t[i]);
}

/*
 * The non-PENCIL implementation of inc is "provided in a different file and
 * compiled separately" (the thesis):
 *
 *     void inc(float A[256], int c)
 *     {
 *         atomic_inc(&A[c]);
 *     }
 */
