/* pencil-for-init */
#include <pencil.h>

PENCIL void fill(int n, int A[pencil_array n])
{
    int i;
    for (i = 0; i < n; i++) // EXPECT: pencil-for-init@10
        A[i] = i;
    for (int j = 0, k = 0; j < n; j++) // EXPECT: pencil-for-init@21
        A[j] = k;
    for (int j; j < n; j++) // EXPECT: pencil-for-init@14
        A[j] = 1;
    for (; i < n; i++) // EXPECT: pencil-for-init@5
        A[i] = 2;
}
