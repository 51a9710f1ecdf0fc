/* pencil-goto: goto and its label. */
#include <pencil.h>

PENCIL void clear(int n, int A[pencil_array n])
{
    for (int i = 0; i < n; i++) {
        if (A[i] < 0)
            goto out; // EXPECT: pencil-goto@13
        A[i] = 0;
    }
out: // EXPECT: pencil-goto@1
    A[0] = 1;
}
