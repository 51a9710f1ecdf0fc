/* pencil-do-while */
#include <pencil.h>

PENCIL void halve(int n, int A[pencil_array n])
{
    int k = n;
    do // EXPECT: pencil-do-while@5
        k = k / 2;
    while (k > 1);
    A[0] = k;
}
