// REJECT: pencil-builtin-use
#include <pencil.h>

void clear(int n, double A[16])
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = 0.0;
  __pencil_kill(n);
#pragma endscop
}
