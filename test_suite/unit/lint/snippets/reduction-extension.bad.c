/* pencil-reduction-extension: & | ^ && || are not PENCIL reduction operators. */
#include <pencil.h>

/* OpenMP's bitwise and logical operators, accepted beyond the definition's + - * min max:
   valid reductions otherwise, each clause warned about. */
PENCIL void flags(int n, int A[pencil_array n], int R[pencil_array 5])
{
    int all = -1;
    unsigned any = 0u;
    int parity = 0;
    int positive = 1;
    long odd = 0;
#pragma pencil independent reduction(&: all) reduction(|: any) reduction(^: parity) reduction(&&: positive) reduction(||: odd) // EXPECT: pencil-reduction-extension@28 pencil-reduction-extension@46 pencil-reduction-extension@64 pencil-reduction-extension@85 pencil-reduction-extension@109
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
