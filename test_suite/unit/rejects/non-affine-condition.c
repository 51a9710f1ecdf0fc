// REJECT: pencil-non-affine-condition
void update(int n, int k, double A[16])
{
#pragma scop
  if (A[0] > 0.0)
    for (int i = 0; i < n; i++)
      switch (k) {
      case 0: A[i] = 0.0; break;
      default: A[i] = 1.0;
      }
#pragma endscop
}
