// REJECT: pencil-recursion
#include <pencil.h>

static void zero(int n, double A[static const restrict 16])
{
  if (n > 0) {
    A[n - 1] = 0.0;
    zero(n - 1, A);
  }
}

void fill(int n, double A[16])
{
#pragma scop
  for (int i = 0; i < n; i++)
    zero(i, A);
#pragma endscop
}
