/* pencil-for-iterator-write: an inner loop that declares its own i does not write the outer one. */
#include <pencil.h>

PENCIL void fill(int n, int A[pencil_array n][n])
{
    for (int i = 0; i < n; i++) {
        int t = i;
        t++;
        for (int j = 0; j < n; j++)
            A[i][j] = t + j;
    }
}
