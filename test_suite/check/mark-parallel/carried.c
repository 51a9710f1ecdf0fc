// RUN: %pencilcc -O3 --tile-size=0 -fpencil-dump=ast -c %s -o %t.o 2>&1 | filecheck %s
// The i loop carries a dependence, the j loop does not: the scheduler moves j
// outside, and it is the loop marked parallel.
// CHECK: ;; pencilcc ast 'prefix' after codegen
// CHECK-NEXT: // parallel
// CHECK-NEXT: for (int c0 = 0; c0 < m; c0 += 1)
// CHECK-NEXT: for (int c1 = 1; c1 < n; c1 += 1)
// CHECK-NEXT: S_0(c1, c0);
void prefix(int n, int m, double A[static const restrict n][m])
{
  for (int i = 1; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i][j] += A[i - 1][j];
}
