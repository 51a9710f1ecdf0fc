// REJECT: pencil-loop-iterator
void clear(unsigned n, double A[64])
{
#pragma scop
  for (unsigned u = 0; u < n; u++)
    A[u] = 0.0;
#pragma endscop
}
