/* pencil-do-while: the while form is PENCIL; do-while in C code is fine. */
#include <pencil.h>

PENCIL void halve(int n, int A[pencil_array n])
{
    int k = n;
    while (k > 1)
        k = k / 2;
    A[0] = k;
}

int c_code(int x)
{
    do
        x = x / 2;
    while (x > 1);
    return x;
}
