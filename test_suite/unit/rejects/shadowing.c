// REJECT: pencil-shadowing
void clear(int n, double A[64])
{
#pragma scop
  {
    double s = 0.0;
    for (int i = 0; i < n; i++)
      s = s + A[i];
    for (int s = 0; s < n; s++)
      A[s] = 0.0;
  }
#pragma endscop
}
