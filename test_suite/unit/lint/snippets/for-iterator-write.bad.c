/* pencil-for-iterator-write */
#include <pencil.h>

PENCIL void fill(int n, int A[pencil_array n])
{
    for (int i = 0; i < n; i++) {
        A[i] = 0;
        i += 1; // EXPECT: pencil-for-iterator-write@9
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            i = j; // EXPECT: pencil-for-iterator-write@13
}
