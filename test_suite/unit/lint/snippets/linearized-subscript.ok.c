/* pencil-linearized-subscript: multi-dimensional arrays, and constant strides. */
#include <pencil.h>
#define W 16

PENCIL void copy(int n, int m, double A[pencil_array n][m], double B[pencil_array n * W])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            A[i][j] = B[i * W + j % W] + B[2 * i + 1];
}
