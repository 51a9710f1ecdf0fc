// REJECT: pencil-struct-access
struct point { double x, y; };

void shift(int n, struct point *p, double A[16])
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = A[i] + p->x;
#pragma endscop
}
