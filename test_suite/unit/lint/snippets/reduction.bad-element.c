/* pencil-reduction: array elements the compiler cannot reduce: a subscript that is a variable
   (one error for the clause, none about the subscript's variable), an element of a scalar, too
   few subscripts, a bitwise operator on a double element, and the array used outside the
   reduction statements of the element. */
#include <pencil.h>

PENCIL void f(int n, int m, int k, int A[pencil_array n], int hist[pencil_array m],
              double S[pencil_array n][m], double out[pencil_array 2])
{
    double x = 0.0;
    double s = 0.0;
#pragma pencil independent reduction(+: hist[i]) // EXPECT: pencil-reduction@28
    for (int i = 0; i < n; i++)
        hist[A[i]] += 1; // EXPECT: pencil-nonaffine-subscript@14
#pragma pencil independent reduction(max: hist[k]) // EXPECT: pencil-reduction@28
    for (int i = 0; i < n; i++)
        hist[k] = max(hist[k], A[i]);
#pragma pencil independent reduction(+: s, S[i][j]) // EXPECT: pencil-reduction@28
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            s += S[i][j];
#pragma pencil independent reduction(+: x[0]) // EXPECT: pencil-reduction@28
    for (int i = 0; i < n; i++)
        x += A[i];
#pragma pencil independent reduction(+: S[0]) // EXPECT: pencil-reduction@28
    for (int i = 0; i < n; i++)
        S[0][0] += A[i];
#pragma pencil independent reduction(|: out[1]) // EXPECT: pencil-reduction@28 pencil-reduction-extension@28
    for (int i = 0; i < n; i++)
        out[1] = out[1] + A[i];
#pragma pencil independent reduction(+: out[0])
    for (int i = 0; i < n; i++) {
        out[0] += A[i];
        out[1] = out[0]; // EXPECT: pencil-reduction@18 pencil-reduction@9
    }
#pragma pencil independent reduction(+: hist[0])
    for (int i = 0; i < n; i++)
        hist[1] += A[i]; // EXPECT: pencil-reduction@9
    out[0] = s + x;
}
