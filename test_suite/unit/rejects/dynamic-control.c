// REJECT: pencil-dynamic-control
void relax(int n, double A[16])
{
#pragma scop
  while (A[0] > 1.0) {
    double t[4];
    for (int i = 0; i < 4; i++)
      t[i] = A[i];
    A[0] = t[0] / 2.0;
  }
#pragma endscop
}
