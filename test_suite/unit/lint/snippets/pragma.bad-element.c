/* pencil-pragma: malformed array elements in reduction clauses; each is one error, never a crash. */
#include <pencil.h>

PENCIL void f(int n, double A[pencil_array n], double a[pencil_array 2][2])
{
    double s = 0.0;
#pragma pencil independent reduction(+: a[) // EXPECT: pencil-pragma@42
    for (int i = 0; i < n; i++)
        a[0][0] += A[i];
#pragma pencil independent reduction(+: a[]) // EXPECT: pencil-pragma@42
    for (int i = 0; i < n; i++)
        a[0][0] += A[i];
#pragma pencil independent reduction(+: s, a[0][) // EXPECT: pencil-pragma@48
    for (int i = 0; i < n; i++)
        s += A[i];
#pragma pencil independent reduction(+: a[0][0] s) // EXPECT: pencil-pragma@49
    for (int i = 0; i < n; i++)
        s += A[i];
#pragma pencil independent reduction(+: a]) // EXPECT: pencil-pragma@42
    for (int i = 0; i < n; i++)
        a[1][1] += A[i];
    a[1][0] = s;
}
