/* SPDX-License-Identifier: MIT */
/*
 * Thesis section 4.3.2, Example 2: a summary with may-writes.  foo_summary
 * says that foo reads A[0..n-1], may write d[i].real for 10 <= i < n
 * (guarded by __pencil_maybe) and writes A[15].  foo itself is not PENCIL
 * (it calls printf); the summary is what the compiler analyses.
 *
 * Changes from the printed text: the attribute is written
 * ACCESS(foo_summary) on a prototype (the thesis writes
 * ACCESS(foo_summary(n,A,Cplx)) between the parameters and the body, which
 * GCC rejects); `t` is initialised to 0 (it is read before being set in the
 * printed code); the printf formats end with a newline.
 */
#include "pencil.h"

#include <stdio.h>

struct complex {
    int image;
    int real;
};

typedef struct complex Cplx;

void foo_summary(int n, int A[pencil_array n],
                 Cplx d[pencil_array n])
{
    for (int i = 0; i < n; i++)
        USE(A[i]);

    /* Note that i starts from 10. */
    for (int i = 10; i < n; i++)
        if (__pencil_maybe())
            DEF(d[i].real);

    DEF(A[15]);
}

void foo(int n, int A[pencil_array n],
         Cplx d[pencil_array n]) ACCESS(foo_summary);

void foo(int n, int A[pencil_array n],
         Cplx d[pencil_array n])
{
    int t = 0;

    for (int i = 0; i < n; i++)
        printf("Value=%d\n", A[i]);

    for (int i = 0; i < n; i++)
    {
        if (A[i])
            printf("%d\n", i);

        t += A[i];
    }

    for (int i = 0; i < n; i++)
        if (A[i] && i>10)
            d[i].real = t;

    A[15] = 0;
}
