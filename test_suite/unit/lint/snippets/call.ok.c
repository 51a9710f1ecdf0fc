/* pencil-call: PENCIL functions (defined, or declared with pencil_array parameters), builtins,
   const functions and summarised functions may be called. */
#include <pencil.h>

int weight(int x) __attribute__((const));
void lib_sort(int n, int A[n]) ACCESS(lib_sort_summary);
void lib_sort_summary(int n, int A[pencil_array n])
{
    for (int i = 0; i < n; i++) {
        USE(A[i]);
        DEF(A[i]);
    }
}
void external_kernel(int n, double X[pencil_array n]);

PENCIL double norm(int n, double X[pencil_array n])
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += X[i] * X[i];
    return sqrt(s);
}

PENCIL void work(int n, int A[pencil_array n], double X[pencil_array n])
{
    lib_sort(n, A);
    external_kernel(n, X);
    for (int i = 0; i < n; i++)
        A[i] = clamp(weight(A[i]), 0, 255) + (int)fmax(norm(n, X), 1.0);
}

void c_code(int n)
{
    printf("%d\n", n);
}
