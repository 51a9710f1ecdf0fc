// REJECT: pencil-unsupported-expression
void addresses(int n, double A[16], long B[16])
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = (long)&A[i];
#pragma endscop
}
