/* pencil-pointer: declaring a pointer is allowed; arrays are passed whole to calls;
   a summary function mirrors a pointer signature and names *p in USE/DEF. */
#include <pencil.h>

void axpy_summary(int n, double *y, const double *x);
void axpy(int n, double *y, const double *x) ACCESS(axpy_summary);

void axpy_summary(int n, double *y, const double *x)
{
    USE(*x);
    DEF(*y);
}

PENCIL void twice(int n, double A[pencil_array n], double B[pencil_array n])
{
    double *unused;
    axpy(n, A, B);
    axpy(n, B, A);
}
