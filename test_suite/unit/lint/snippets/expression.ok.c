/* pencil-expression: assignments and increments as statements and loop steps. */
#include <pencil.h>

PENCIL void f(int n, int A[pencil_array n])
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        A[i] = i > 2 ? i : (int)sizeof(int);
        k++;
        --k;
        k += A[i];
    }
    A[0] = k;
}
