// REJECT: pencil-non-affine-bound
void rows(int n, int len[16], double A[16][16])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int k = 0; k < len[i]; k++) {
      double t[2];
      t[0] = A[i][k];
      A[i][k] = t[0] + 1.0;
    }
#pragma endscop
}
