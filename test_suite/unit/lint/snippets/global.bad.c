/* pencil-global: uses of non-const globals and a static local in a PENCIL function. */
#include <pencil.h>

int counter;
double scale_factor = 2.0;

PENCIL void scale(int n, double A[pencil_array n])
{
    static int calls = 0; // EXPECT: pencil-global@16
    for (int i = 0; i < n; i++)
        A[i] = A[i] * scale_factor; // EXPECT: pencil-global@23
    counter = counter + 1; // EXPECT: pencil-global@5
}
