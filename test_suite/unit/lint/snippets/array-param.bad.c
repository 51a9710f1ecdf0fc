/* pencil-array-param: missing qualifiers in a PENCIL function, and a region using a plain array parameter. */
#include <pencil.h>

PENCIL void add(int n, double C[n], // EXPECT: pencil-array-param@31
                double A[static n], // EXPECT: pencil-array-param@24
                double B[const restrict n]) // EXPECT: pencil-array-param@24
{
    for (int i = 0; i < n; i++)
        C[i] = A[i] + B[i];
}

void legacy(int n, double a[n]) // EXPECT: pencil-array-param@27
{
#pragma pencil region
    {
        for (int i = 0; i < n; i++)
            a[i] = a[i] * 2.0;
    }
}
