// REJECT: pencil-pointer
void clear(int n, double A[16][16])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    double *row = A[i];
    row[0] = 0.0;
  }
#pragma endscop
}
