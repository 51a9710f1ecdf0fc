/* pencil-reduction: scalar reduction variables declared before the loop, used only in reduction statements. */
#include <pencil.h>

PENCIL void stats(int n, double A[pencil_array n], double R[pencil_array 4])
{
    double sum = 0.0;
    double prod = 1.0;
    double hi = -1e30;
    int count = 0;
#pragma pencil independent reduction(+: sum, count) reduction(*: prod) reduction(max: hi)
    for (int i = 0; i < n; i++) {
        double x = A[i];
        sum += x;
        sum = sum - 1.0;
        count++;
        prod *= x;
        hi = fmax(hi, x);
    }
    R[0] = sum;
    R[1] = prod;
    R[2] = hi;
    R[3] = count;
}
