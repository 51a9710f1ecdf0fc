// Basic-block clustering (thesis Fig. 3.5): the guard starts a block of its own.
// RUN: %pencilcc -O3 -fpencil-cluster=bb -fpencil-dump=deps -c %s -o %t.o 2>&1 | filecheck %s
// CHECK: ;; pencilcc deps 'f' after cluster-stmts
// CHECK: Clustering (bb): 5 statements -> 3 scheduled
// CHECK-NEXT: M_0 := { S_0, S_1 };
// CHECK-NEXT: M_1 := { S_2, S_3 };
// CHECK-NOT: M_2
void f(int n, int l, double A[static const restrict n], double B[static const restrict n][n])
{
  for (int i = 0; i < n; i++) {
    A[i] = A[i] + 1.0;
    A[i] = A[i] * 2.0;
    for (int j = 0; j < n; j++) {
      B[i][j] = B[i][j] + A[i];
      B[i][j] = B[i][j] * 0.5;
      if (l > 0)
        B[i][j] = B[i][j] - 1.0;
    }
  }
}
