/* SPDX-License-Identifier: MIT */
/*
 * PENCIL kernels in three-address style: scalar and array temporaries declared
 * inside loop bodies, the case of thesis chapter 2 (false dependences of
 * temporaries). Each kernel is correct C; pencilcc may tile and parallelise
 * them only by relaxing the temporaries' false dependences, and its results
 * must equal gcc -O0's.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 67
#endif
#ifndef M
#define M 45
#endif

/* C = A * B with the dot product accumulated in a body-local scalar. */
void matmul_local_sum(int n, int m, double C[static const restrict n][n],
                      double A[static const restrict n][m], double B[static const restrict m][n])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int k = 0; k < m; k++) {
                double p = A[i][k] * B[k][j];
                s += p;
            }
            C[i][j] = s;
        }
}

/* Blend of two images through three temporaries per pixel. */
void blend(int n, int m, double out[static const restrict n][m],
           double x[static const restrict n][m], double y[static const restrict n][m])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            double a = x[i][j] * 0.75;
            double b = y[i][j] * 0.25;
            double c = a + b;
            out[i][j] = c * c - a;
        }
}

/* A 3-point stencil through a body-local array of the neighbourhood. */
void smooth(int n, double out[static const restrict n], double in[static const restrict n])
{
    for (int i = 1; i < n - 1; i++) {
        double w[3];
        w[0] = in[i - 1];
        w[1] = in[i];
        w[2] = in[i + 1];
        out[i] = (w[0] + 2.0 * w[1] + w[2]) / 4.0;
    }
}

/* A temporary reused by two inner loops of the same iteration. */
void two_passes(int n, int m, double R[static const restrict n][m], double A[static const restrict n][m])
{
    for (int i = 0; i < n; i++) {
        double t = 0.0;
        for (int j = 0; j < m; j++)
            t += A[i][j];
        for (int j = 0; j < m; j++)
            R[i][j] = A[i][j] - t / m;
    }
}

/* A region-level temporary whose last value is used after the loop: must stay sequential. */
void last_value(int n, double A[static const restrict n], double out[static const restrict 1])
{
    double t = 0.0;
    for (int i = 0; i < n; i++) {
        t = A[i] * 0.5;
        A[i] = t + 1.0;
    }
    out[0] = t;
}

/* A local array filled by one loop and read by the next: the first loop may not run
 * on threads' private copies of it (its values are read after the loop). */
void stage_through_local(int n, double out[static const restrict n], double in[static const restrict n])
{
    double staged[n];
    for (int i = 0; i < n; i++)
        staged[i] = in[i] * 2.0;
    for (int i = 0; i < n; i++)
        out[i] = staged[i] + staged[n - 1 - i];
}

static void print_matrix(const char *name, int n, int m, double (*X)[m])
{
    printf("== %s\n", name);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            printf("%.17g\n", X[i][j]);
}

int main(void)
{
    double (*A)[M] = malloc(sizeof(double[N][M]));
    double (*B)[N] = malloc(sizeof(double[M][N]));
    double (*C)[N] = malloc(sizeof(double[N][N]));
    double (*X)[M] = malloc(sizeof(double[N][M]));
    double (*Y)[M] = malloc(sizeof(double[N][M]));
    double (*O)[M] = malloc(sizeof(double[N][M]));
    double *v = malloc(sizeof(double[N]));
    double *w = malloc(sizeof(double[N]));
    double last[1];
    if (!A || !B || !C || !X || !Y || !O || !v || !w)
        return 1;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) {
            A[i][j] = (double)((i * 7 + j * 3) % 17) / 8.0;
            B[j][i] = (double)((i + 2 * j) % 13) / 4.0;
            X[i][j] = (double)((i * j + 1) % 11);
            Y[i][j] = (double)((i + j) % 5) - 2.0;
        }
    for (int i = 0; i < N; i++) {
        v[i] = (double)((i * 5) % 9) - 4.0;
        w[i] = 0.0;
    }
    matmul_local_sum(N, M, C, A, B);
    print_matrix("C", N, N, C);
    blend(N, M, O, X, Y);
    print_matrix("blend", N, M, O);
    smooth(N, w, v);
    print_matrix("smooth", 1, N, (double (*)[N])w);
    two_passes(N, M, O, X);
    print_matrix("two_passes", N, M, O);
    stage_through_local(N, w, v);
    print_matrix("stage_through_local", 1, N, (double (*)[N])w);
    last_value(N, v, last);
    print_matrix("last_value", 1, N, (double (*)[N])v);
    printf("== last\n%.17g\n", last[0]);
    free(A); free(B); free(C); free(X); free(Y); free(O); free(v); free(w);
    return 0;
}
