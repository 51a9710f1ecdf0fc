/* pencil-summary-signature: the summary has the same arguments (pointer and array forms agree). */
#include <pencil.h>

void scale_summary(int n, double X[pencil_array n], double f);
void scale(int n, double *X, double f) ACCESS(scale_summary);

void scale_summary(int n, double X[pencil_array n], double f)
{
    for (int i = 0; i < n; i++) {
        USE(X[i]);
        DEF(X[i]);
    }
}

PENCIL void run(int n, double X[pencil_array n])
{
    scale(n, X, 2.0);
}
