// REJECT: pencil-array-access
void pick(int n, double A[16], double B[16], double C[16])
{
#pragma scop
  for (int i = 0; i < n; i++)
    C[i] = (i < 8 ? A : B)[i];
#pragma endscop
}
