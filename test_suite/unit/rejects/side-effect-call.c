// REJECT: pencil-side-effect-call
#include <stdio.h>

void show(int n, double A[16])
{
#pragma scop
  for (int i = 0; i < n; i++)
    printf("%f\n", A[i]);
#pragma endscop
}
