/* pencil-for-step: ++, --, += c and -= c with a literal (or macro) constant. */
#include <pencil.h>
#define STRIDE 4

PENCIL void fill(int n, int A[pencil_array n])
{
    for (int i = 0; i < n; ++i)
        A[i] = 0;
    for (int i = n - 1; i >= 0; --i)
        A[i] = 1;
    for (int i = 0; i < n; i += STRIDE)
        A[i] = 2;
    for (int i = n - 1; i >= 0; i -= 3)
        A[i] = 3;
    for (int i = n - 1; i >= 0; i += -1)
        A[i] = 4;
}
