/* pencil-pragma: odd reduction clauses on loops that use the variable; each is one error, never a crash. */
#include <pencil.h>

PENCIL void f(int n, double A[pencil_array n], double out[pencil_array 7])
{
    double s = 1.0;
#pragma pencil independent reduction(/: s) // EXPECT: pencil-pragma@38
    for (int i = 0; i < n; i++)
        s /= A[i];
    out[0] = s;
#pragma pencil independent reduction(avg: s) // EXPECT: pencil-pragma@38
    for (int i = 0; i < n; i++)
        s = s + A[i];
    out[1] = s;
#pragma pencil independent reduction(: s) // EXPECT: pencil-pragma@38
    for (int i = 0; i < n; i++)
        s += A[i];
    out[2] = s;
#pragma pencil independent reduction() // EXPECT: pencil-pragma@38
    for (int i = 0; i < n; i++)
        s += A[i];
    out[3] = s;
#pragma pencil independent reduction(+ s) // EXPECT: pencil-pragma@40
    for (int i = 0; i < n; i++)
        s += A[i];
    out[4] = s;
#pragma pencil independent reduction(+:) // EXPECT: pencil-pragma@28
    for (int i = 0; i < n; i++)
        s += A[i];
    out[5] = s;
#pragma pencil independent reduction(max: s) reduction(/: s) // EXPECT: pencil-pragma@56
    for (int i = 0; i < n; i++)
        s = max(s, A[i]);
    out[6] = s;
}
