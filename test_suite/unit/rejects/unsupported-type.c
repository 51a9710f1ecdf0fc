// REJECT: pencil-unsupported-type
void scale(int n, double A[16])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    _Complex double z = A[i];
    A[i] = __real__ z;
  }
#pragma endscop
}
