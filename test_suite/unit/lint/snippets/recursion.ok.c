/* pencil-recursion: PENCIL functions that call each other without a cycle; a recursive C function is not reported. */
#include <pencil.h>

PENCIL int square(int x)
{
    return x * x;
}

PENCIL void squares(int n, int A[pencil_array n])
{
    for (int i = 0; i < n; i++)
        A[i] = square(i);
}

int factorial(int n)
{
    return n <= 1 ? 1 : n * factorial(n - 1);
}
