/* pencil-expression: comma operator, nested assignments and increments. */
#include <pencil.h>

PENCIL void f(int n, int A[pencil_array n])
{
    int a;
    int b;
    a = b = 0; // EXPECT: pencil-expression@9
    for (int i = 0; i < n; i++)
        A[i] = (a, b); // EXPECT: pencil-expression@17
    int k = 0;
    A[k++] = 1; // EXPECT: pencil-expression@7 pencil-nonaffine-subscript@7
    int c = (b += 1); // EXPECT: pencil-expression@14
    A[0] = c;
}
