/* pencil-linearized-subscript: an iterator multiplied by a parameter. */
#include <pencil.h>

PENCIL void copy(int n, int m, double A[pencil_array n * m], double B[pencil_array n * m])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            A[i * m + j] = B[j + m * i]; // EXPECT: pencil-linearized-subscript@15 pencil-linearized-subscript@34
}
