// REJECT: pencil-loop-bound
void every_other(int n, double A[64])
{
#pragma scop
  for (int i = 0; i != n; i += 2)
    A[i] = 0.0;
#pragma endscop
}
