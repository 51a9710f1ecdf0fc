// REJECT: pencil-call-argument
#include <pencil.h>

static void bump(int n, double x[static const restrict 1])
{
  x[0] = x[0] + n;
}

double total(int n, double s)
{
#pragma scop
  for (int i = 0; i < n; i++)
    bump(i, &s);
#pragma endscop
  return s;
}
