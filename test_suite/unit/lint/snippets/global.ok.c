/* pencil-global: constants are fine; a C global used only by C code is not PENCIL's business. */
#include <pencil.h>

const int N = 10;
static const double coef[3] = {1.0, 2.0, 3.0};
int counter;

PENCIL void scale(int n, double A[pencil_array n])
{
    for (int i = 0; i < n; i++)
        A[i] = A[i] * coef[i % 3] + N;
}

void bump(void)
{
    counter++;
}
