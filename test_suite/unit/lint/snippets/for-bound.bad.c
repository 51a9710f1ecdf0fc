/* pencil-for-bound */
#include <pencil.h>

void reset(int n, int A[pencil_array n]);

PENCIL void shrink(int n, int start[pencil_array n], int count[pencil_array n], int V[pencil_array n])
{
    int m = n;
    for (int i = 0; i < m; i++) // EXPECT: pencil-for-bound@25
        m = m - 1;
    for (int i = 0; i < n; i++)
        for (int j = start[i]; j < start[i] + count[i]; j++) // EXPECT: pencil-for-bound@47
            count[i] = 0;
    for (int i = 0; i < n - i; i++) // EXPECT: pencil-for-bound@29
        V[i] = 0;
    for (int i = 0; i < count[0]; i++) // EXPECT: pencil-for-bound@25
        reset(n, count);
}
