/* SPDX-License-Identifier: MIT */
/*
 * Thesis section 4.3.5.ii, __pencil_kill builtin: A is only partly written
 * by the loop; __pencil_kill(A) says its old contents are dead, so a GPU
 * compiler need not copy A to the device before the loop.
 *
 * The thesis prints only the statements; they are wrapped in a function.
 */
#include "pencil.h"

void copy_positive(int n, int A[pencil_array n], int B[pencil_array n])
{
    __pencil_kill(A);
    for (int i = 0; i < n; i++) {
        if (B[i] > 0)
            A[i] = B[i];
    }
}
