/* pencil-for-cond: <, <=, > and >= with the iterator on the left. */
#include <pencil.h>

PENCIL void fill(int n, int A[pencil_array n])
{
    for (int i = 0; i < n; i++)
        A[i] = 0;
    for (int i = 0; i <= n - 1; i++)
        A[i] = 1;
    for (int i = n - 1; i > 0; i--)
        A[i] = 2;
    for (int i = n - 1; i >= 0; i--)
        A[i] = 3;
}
