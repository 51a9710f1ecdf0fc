// REJECT: pencil-return
void clear(int n, double A[16])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    if (n > 8)
      return;
    A[i] = 0.0;
  }
#pragma endscop
}
