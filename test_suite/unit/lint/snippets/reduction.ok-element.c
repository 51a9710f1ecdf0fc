/* pencil-reduction: one array element with constant subscripts, of a 1-D and a 2-D array,
   alone or with a scalar, used only in reduction statements (the compiler reduces it). */
#include <pencil.h>

#define LAST 3

PENCIL void stats(int n, int m, double A[pencil_array n][m], double s[pencil_array 1],
                  double hi[pencil_array 4], double S[pencil_array 2][2], int C[pencil_array 4])
{
    double t = 0.0;
#pragma pencil independent reduction(+: s[0])
    for (int i = 0; i < n; i++)
        s[0] += A[i][0];
#pragma pencil independent reduction(max: hi[2])
    for (int i = 0; i < n; i++)
        hi[2] = fmax(hi[2], A[i][0]);
#pragma pencil independent reduction(+: t, S[1][0])
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            S[1][0] = S[1][0] + A[i][j];
            t -= A[i][j];
        }
#pragma pencil independent reduction(+: C[LAST]) reduction(*: hi[0x1])
    for (int i = 0; i < n; i++) {
        C[LAST]++;
        hi[1] *= A[i][0];
    }
    C[0] = (int)t;
}
