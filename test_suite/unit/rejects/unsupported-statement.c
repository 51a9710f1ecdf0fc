// REJECT: pencil-unsupported-statement
void pick(int n, int k, double A[16])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    switch (k) {
    case 0: A[i] = 0.0; break;
    default: A[i] = 1.0;
    }
  }
#pragma endscop
}
