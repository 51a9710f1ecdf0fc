/* Plain C next to PENCIL: nothing outside PENCIL functions and pencil regions is reported,
   #pragma scop regions of C functions included (they follow pet's conventions). */
#include <pencil.h>
#include <stdlib.h>

int calls;
union bits { int i; float f; };

static int walk(int *p, int n)
{
    int s = 0;
    for (int *q = p; q < p + n; q++)
        s += *q;
    calls++;
    if (s < 0)
        goto negative;
    return walk(p, n - 1);
negative:
    return -s;
}

void c_kernel(int n, double *A, double *B)
{
    int i, j;
    double *tmp = malloc(sizeof(double) * n);
#pragma scop
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            A[i * n + j] = B[j * n + i] + tmp[i];
#pragma endscop
    free(tmp);
}

PENCIL void pencil_kernel(int n, double A[pencil_array n][n], double B[pencil_array n][n])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i][j] = B[j][i];
}
