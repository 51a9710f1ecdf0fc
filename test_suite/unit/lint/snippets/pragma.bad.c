/* pencil-pragma: unknown directive, bad reduction operator, misplaced directives. */
#include <pencil.h>

PENCIL void f(int n, double A[pencil_array n])
{
    double s = 0.0;
#pragma pencil parallel // EXPECT: pencil-pragma@16
    for (int i = 0; i < n; i++)
        A[i] = 0.0;
#pragma pencil independent reduction(/: s) // EXPECT: pencil-pragma@38
    for (int i = 0; i < n; i++)
        A[i] = 1.0;
#pragma pencil independent // EXPECT: pencil-pragma@1
    s = 2.0;
#pragma pencil ivdep // EXPECT: pencil-pragma@1
    while (s > 1.0)
        s = s / 2.0;
    A[0] = s;
}

void legacy(int n, double a[pencil_array n])
{
#pragma pencil region // EXPECT: pencil-pragma@1
    for (int i = 0; i < n; i++)
        a[i] = 0.0;
}
