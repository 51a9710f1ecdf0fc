/* pencil-return: a single return, last in the function; C code may return early. */
#include <pencil.h>

PENCIL int sum(int n, int A[pencil_array n])
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += A[i];
    return s;
}

PENCIL void nothing(int n, int A[pencil_array n])
{
    A[0] = n;
    return;
}

int c_code(int x)
{
    if (x < 0)
        return -1;
    return x;
}
