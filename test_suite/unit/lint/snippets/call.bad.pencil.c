/* pencil-call: in a PENCIL file, a prototype without a body is not a PENCIL function by itself. */
#include <pencil.h>
#include <math.h>

extern void log_value(double v);
double offset(double v);
double cube(double v) __attribute__((const));
PENCIL double twice(double v);
void fill(int n, double A[pencil_array n]);
void noisy_summary(double v);
void noisy(double v) ACCESS(noisy_summary);
double later(double v);

void scale(int n, double A[pencil_array n])
{
    for (int i = 0; i < n; i++) {
        log_value(A[i]); // EXPECT: pencil-call@9
        A[i] = offset(A[i]) + sqrt(A[i]) + fmax(A[i], 0.0) + cube(A[i]); // EXPECT: pencil-call@16
        A[i] = twice(A[i]) + later(A[i]) + clamp(i, 0, n);
        noisy(A[i]);
    }
    fill(n, A);
}

double later(double v)
{
    return v + 1.0;
}
