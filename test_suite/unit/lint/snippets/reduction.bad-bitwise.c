/* pencil-reduction: bitwise reductions need an integer variable; logical reductions have no
   compound form, and every operator keeps to its own updates. */
#include <pencil.h>

PENCIL void f(int n, double A[pencil_array n], int B[pencil_array n], double R[pencil_array 4])
{
    double x = 0.0;
    int bits = 0;
    int all = 1;
#pragma pencil independent reduction(|: x) // EXPECT: pencil-reduction@28 pencil-reduction-extension@28
    for (int i = 0; i < n; i++)
        x = x + A[i];
    R[0] = x;
#pragma pencil independent reduction(^: x) reduction(&: bits) // EXPECT: pencil-reduction@28 pencil-reduction-extension@28 pencil-reduction-extension@44
    for (int i = 0; i < n; i++) {
        x = x - A[i];
        bits = bits & B[i];
    }
    R[1] = x;
#pragma pencil independent reduction(&: bits) // EXPECT: pencil-reduction-extension@28
    for (int i = 0; i < n; i++) {
        bits |= B[i]; // EXPECT: pencil-reduction@9
        bits = B[i] - bits; // EXPECT: pencil-reduction@9 pencil-reduction@23
    }
    R[2] = bits;
#pragma pencil independent reduction(&&: all) // EXPECT: pencil-reduction-extension@28
    for (int i = 0; i < n; i++) {
        all &= B[i] > 0; // EXPECT: pencil-reduction@9
        all = all || B[i] > 0; // EXPECT: pencil-reduction@9 pencil-reduction@15
    }
    R[3] = all;
}
