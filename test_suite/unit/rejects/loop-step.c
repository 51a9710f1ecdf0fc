// REJECT: pencil-loop-step
void strided(int n, int s, double A[64])
{
#pragma scop
  for (int i = 0; i < n; i += s)
    A[i] = 0.0;
#pragma endscop
}
