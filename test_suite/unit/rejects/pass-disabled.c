// REJECT: pencil-pass-disabled
// FLAGS: --disable-pass=alias-check
void shift(int n, double *a, double *b)
{
#pragma scop
  for (int i = 0; i < n; i++)
    a[i] = b[i] + 1.0;
#pragma endscop
}
