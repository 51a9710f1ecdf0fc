/* SPDX-License-Identifier: MIT */
/*
 * A guarded, strided (step -2) loop nest whose body goes through block-scoped
 * temporaries (reduced from random program seed 900227). With the temporaries'
 * false dependences relaxed (thesis ch. 2), isl's scheduler fuses the three
 * bodies with offsets i, i + 1 and n - i; isl's AST generator then turned the
 * parity of the fused loop into a loop condition that stopped the loop after
 * its first iteration, dropping most of the instances. Its results must equal
 * gcc -O0's.
 */
#include <stdio.h>

static void strided_temporaries(int n, int m, int p, double s, double A[n], double B[m + 2], int C[n + 1][p])
{
    int i, j, k;
#pragma scop
    for (i = n - 1; i > 0; i -= 2)
        if (i > 3)
            for (j = 0; j <= m - 3; j++) {
                for (k = 1; k < n; k++)
                    if (i + k < n - 1)
                        B[j] += 0.001 * A[i - 1];
                for (k = j + 1; k <= p - 2; k++) {
                    { int t = k + 2 * i; C[i][k] = t; }
                    { double d = s; A[i] *= d; }
                    { double d = 0.001 * (0.75 + A[n - i] * C[n - i - 1][k]); B[j] = d; }
                }
            }
#pragma endscop
}

int main(void)
{
    enum { N = 24, M = 14, P = 36 };
    static double A[N], B[M + 2];
    static int C[N + 1][P];
    for (int i = 0; i < N; i++)
        A[i] = (double)((13 * i + 2) % 29) / 29.0 - 0.5;
    for (int i = 0; i < M + 2; i++)
        B[i] = (double)(7 * i % 19) / 19.0 - 0.5;
    for (int i = 0; i < N + 1; i++)
        for (int j = 0; j < P; j++)
            C[i][j] = (8 * i + 11 * j + 6) % 19 - 9;
    strided_temporaries(N, M, P, 0.999, A, B, C);
    printf("== A\n");
    for (int i = 0; i < N; i++)
        printf("%.17g\n", A[i]);
    printf("== B\n");
    for (int i = 0; i < M + 2; i++)
        printf("%.17g\n", B[i]);
    printf("== C\n");
    for (int i = 0; i < N + 1; i++)
        for (int j = 0; j < P; j++)
            printf("%d\n", C[i][j]);
    return 0;
}
