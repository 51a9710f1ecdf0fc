// RUN: %pencilcc -O3 -fpencil-dump=schedule -c %s -o %t.o 2>&1 | filecheck %s
// The isl scheduler finds a permutable band with two coincident (parallel) members.
// CHECK: ;; pencilcc schedule 'gemm' after schedule
// CHECK: permutable: 1
// CHECK-NEXT: coincident: [ 1, 1, 0 ]
void gemm(int ni, int nj, int nk, double alpha, double beta,
          double C[static const restrict ni][nj], double A[static const restrict ni][nk],
          double B[static const restrict nk][nj])
{
  for (int i = 0; i < ni; i++) {
    for (int j = 0; j < nj; j++)
      C[i][j] *= beta;
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
}
