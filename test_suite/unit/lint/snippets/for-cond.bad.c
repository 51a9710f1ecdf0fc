/* pencil-for-cond */
#include <pencil.h>

PENCIL void fill(int n, int A[pencil_array n])
{
    for (int i = 0; i != n; i++) // EXPECT: pencil-for-cond@21
        A[i] = 0;
    for (int i = 0; n > i; i++) // EXPECT: pencil-for-cond@21
        A[i] = 1;
    for (int i = 0; i < n && A[i] > 0; i++) // EXPECT: pencil-for-cond@21
        A[i] = 2;
    for (int i = 0; ; i++) { // EXPECT: pencil-for-cond@5
        if (i >= n)
            break;
        A[i] = 3;
    }
}
