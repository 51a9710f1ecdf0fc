/* pencil-reduction: an array, a variable declared in the loop, the iterator, an undeclared name,
   and a reduction variable read outside its reduction statement. */
#include <pencil.h>

PENCIL void stats(int n, double A[pencil_array n], double R[pencil_array 2])
{
    double sum = 0.0;
#pragma pencil independent reduction(+: R) // EXPECT: pencil-reduction@28
    for (int i = 0; i < n; i++)
        R[0] += A[i];
#pragma pencil independent reduction(+: t) // EXPECT: pencil-reduction@28
    for (int i = 0; i < n; i++) {
        double t = A[i];
        A[i] = t + 1.0;
    }
#pragma pencil independent reduction(+: i) // EXPECT: pencil-reduction@28
    for (int i = 0; i < n; i++)
        A[i] = 0.0;
#pragma pencil independent reduction(+: sum)
    for (int i = 0; i < n; i++) {
        sum += A[i];
        A[i] = sum; // EXPECT: pencil-reduction@16
        sum *= 2.0; // EXPECT: pencil-reduction@9
    }
    R[1] = sum;
}
