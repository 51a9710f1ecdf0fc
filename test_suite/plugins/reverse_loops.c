#include <stdio.h>
#define N 40

static void kernel(int n, double A[N][N], double b[N], double s[N])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A[i][j] = A[i][j] * 0.5 + b[j] * i;
  for (int i = 1; i < n; i++)
    s[i] = s[i - 1] + A[i][i];
#pragma endscop
}

int main(void)
{
  static double A[N][N], b[N], s[N];
  for (int i = 0; i < N; i++) {
    b[i] = 1.0 / (i + 1);
    s[i] = i;
    for (int j = 0; j < N; j++)
      A[i][j] = (double)(i * j % 7) / 3.0;
  }
  kernel(N, A, b, s);
  printf("== A\n");
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      printf("%.17g\n", A[i][j]);
  printf("== s\n");
  for (int i = 0; i < N; i++)
    printf("%.17g\n", s[i]);
  return 0;
}
