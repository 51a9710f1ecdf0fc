/* pencil-reduction-extension: the definition's operators. */
#include <pencil.h>

PENCIL void f(int n, double A[pencil_array n], double R[pencil_array 3])
{
    double sum = 0.0;
    double lo = 1e30;
    double prod = 1.0;
#pragma pencil independent reduction(+: sum) reduction(min: lo) reduction(*: prod)
    for (int i = 0; i < n; i++) {
        sum -= A[i];
        lo = fmin(lo, A[i]);
        prod *= A[i];
    }
    R[0] = sum;
    R[1] = lo;
    R[2] = prod;
}
