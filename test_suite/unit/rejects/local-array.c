// REJECT: pencil-local-array
void smooth(int n, double A[64], double B[64])
{
#pragma scop
  for (int i = 1; i < n - 1; i++) {
    double w[3] = {0.25, 0.5, 0.25};
    B[i] = w[0] * A[i - 1] + w[1] * A[i] + w[2] * A[i + 1];
  }
#pragma endscop
}
