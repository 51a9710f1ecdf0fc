/* pencil-for-init: one iterator declared and initialised in the header; C code may do otherwise. */
#include <pencil.h>

PENCIL void fill(int n, int A[pencil_array n])
{
    for (int i = 0; i < n; i++)
        A[i] = i;
    for (long k = n - 1; k >= 0; k -= 2)
        A[k] = 0;
}

void c_code(int n, int A[n])
{
    int i;
    for (i = 0; i < n; i++)
        A[i] = i;
}
