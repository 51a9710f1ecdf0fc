// Thesis Fig. 3.1: SCC clustering makes Fig. 3.3's two macro-statements and three dependences.
// RUN: %pencilcc -O3 -fpencil-cluster=scc -fpencil-dump=deps -c %s -o %t.o 2>&1 | filecheck %s
// CHECK: ;; pencilcc deps 'f' after cluster-stmts
// CHECK: Clustering (scc): 4 statements -> 2 scheduled, 7 -> 3 dependence relations
// CHECK-NEXT: M_0 := { S_0, S_1 };
// CHECK-NEXT: M_1 := { S_2, S_3 };
void f(int n, double A[static const restrict n][n], double B[static const restrict n][n],
       double C[static const restrict n][n], double D[static const restrict n][n])
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double temp1 = A[i][j] * B[i][j];
      C[i][j] = temp1;
      double temp2 = A[i][j] * C[i][j];
      D[i][j] = temp2;
    }
}
