/* pencil-pragma: well-formed directives on the statements they annotate. */
#include <pencil.h>

PENCIL double dot(int n, double A[pencil_array n], double B[pencil_array n])
{
    double s = 0.0;
    double lo = 1e30;
#pragma pencil independent reduction(+: s) reduction(min: lo)
    for (int i = 0; i < n; i++) {
        s += A[i] * B[i];
        lo = fmin(lo, A[i]);
    }
#pragma pencil ivdep
    for (int i = 0; i < n; i++)
        A[i] = B[i] + lo;
    return s;
}

void legacy(int n, double a[pencil_array n])
{
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        a[i] = 0.0;
#pragma pencil region
    {
#pragma pencil independent
        for (int i = 0; i < n; i++)
            a[i] = a[i] + 1.0;
    }
}
