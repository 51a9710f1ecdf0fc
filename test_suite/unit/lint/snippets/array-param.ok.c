/* pencil-array-param: pencil_array parameters, written out or with the macro, in a function and a region. */
#include <pencil.h>

PENCIL void add(int n, int m, double C[static const restrict n][m],
                const double A[pencil_array n][m], const double B[pencil_array n][m])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            C[i][j] = A[i][j] + B[i][j];
}

void legacy(int n, double a[pencil_array n], double b[n])
{
    b[0] = 1.0;
#pragma pencil region
    {
        for (int i = 0; i < n; i++)
            a[i] = a[i] * 2.0;
    }
}
