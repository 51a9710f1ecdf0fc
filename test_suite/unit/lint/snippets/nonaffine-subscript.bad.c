/* pencil-nonaffine-subscript: indirection, products of iterators, non-constant division, bit operations, calls. */
#include <pencil.h>

PENCIL void f(int n, int k, double A[pencil_array n], int idx[pencil_array n])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[idx[i]] = A[i * j] + A[i / k] + A[i & 1] + A[abs(i - j)]; // EXPECT: pencil-nonaffine-subscript@15 pencil-nonaffine-subscript@27 pencil-nonaffine-subscript@38 pencil-nonaffine-subscript@49 pencil-nonaffine-subscript@60
}
