/* SPDX-License-Identifier: MIT */
/*
 * Thesis section 4.3.2, "Description of the Memory Accesses of Functions":
 * a summary function may call other functions, meaning that the summarised
 * function makes the same calls.  bar_summary describes bar: it calls
 * foo(N, A) and reads then writes every A[i].
 *
 * Change from the printed text: GCC does not accept an attribute between
 * the parameter list and the body of a function definition, so the
 * pencil_access attribute is put on a prototype of bar.
 */
#include "pencil.h"

void foo(int N, int A[pencil_array N]);

void bar_summary(int N, int A[pencil_array N])
{
    foo(N, A);

    for (int i = 0; i < N; i ++)
    {
        USE(A[i]);
        DEF(A[i]);
    }
}

void bar(int N, int A[pencil_array N])
    __attribute__((pencil_access(bar_summary)));

void bar(int N, int A[pencil_array N])
{
    foo(N, A);

    for (int i = 0; i < N; i ++)
    {
        int t = A[i];
        t = t + 1;
        A[i] = t;
    }
}
