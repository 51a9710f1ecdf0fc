// REJECT: pencil-region-size
// FLAGS: -fpencil-max-statements=1
void two(int n, double A[16], double B[16])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    A[i] = 1.0;
    B[i] = 2.0;
  }
#pragma endscop
}
