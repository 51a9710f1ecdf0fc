// REJECT: pencil-storage-class
void count(int n, double A[16])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    static int calls;
    A[i] = calls;
  }
#pragma endscop
}
