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

/* OpenMP's bitwise and logical operators, accepted beyond the definition's + - * min max. */
PENCIL void flags(int n, int A[pencil_array n], int R[pencil_array 5])
{
    int all = -1;
    unsigned any = 0u;
    int parity = 0;
    int positive = 1;
    long odd = 0;
#pragma pencil independent reduction(&: all) reduction(|: any) reduction(^: parity) reduction(&&: positive) reduction(||: odd)
    for (int i = 0; i < n; i++) {
        all &= A[i];
        all = all & (A[i] | 1);
        any = (unsigned)A[i] | any;
        any |= 2u;
        parity = parity ^ A[i];
        parity ^= i;
        positive = positive && A[i] > 0;
        positive = A[i] != 3 && positive;
        odd = odd || A[i] % 2 != 0;
        odd = A[i] == 7 || odd;
    }
    R[0] = all;
    R[1] = (int)any;
    R[2] = parity;
    R[3] = positive;
    R[4] = (int)odd;
}
