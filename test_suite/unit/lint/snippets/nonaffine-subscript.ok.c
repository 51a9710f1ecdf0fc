/* pencil-nonaffine-subscript: affine and quasi-affine subscripts, min/max and a parameter. */
#include <pencil.h>

PENCIL void f(int n, int k, double A[pencil_array n][n], double B[pencil_array n])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i][j] = B[(i + j) / 2] + B[(i * 3) % 4] + B[min(i + k, n - 1)] + B[k] + B[-i + n - 1]
                    + B[i > j ? i : j];
}
