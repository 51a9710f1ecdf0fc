/* pencil-return: early returns in a PENCIL function and a return in a pencil region. */
#include <pencil.h>

PENCIL int find(int n, int A[pencil_array n], int v)
{
    for (int i = 0; i < n; i++)
        if (A[i] == v)
            return i; // EXPECT: pencil-return@13
    if (n > 0)
        return -1; // EXPECT: pencil-return@9
    else
        return -2; // EXPECT: pencil-return@9
}

int legacy(int n, int a[pencil_array n])
{
#pragma pencil region
    {
        for (int i = 0; i < n; i++)
            a[i] = 0;
        return 1; // EXPECT: pencil-return@9
    }
}
