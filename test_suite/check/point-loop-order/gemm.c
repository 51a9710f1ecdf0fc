// RUN: %pencilcc -O3 --tile-size=32 --disable-pass=register-tile -fpencil-dump=ast -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s
// RUN: %pencilcc -O3 --tile-size=32 --disable-pass=point-loop-order --disable-pass=register-tile \
// RUN:   -fpencil-dump=ast -c %s -o %t.o 2>&1 | filecheck %s --check-prefix=KEEP
// The point loops i, j, k become i, k, j: the reduction over k leaves the innermost
// position, and the j loop (unit stride in C and B, A[i][k] invariant) is marked vector.
// (register-tile, which then unrolls and jams this band, is checked in register-tile/.)
// CHECK: ;; pencilcc ast 'gemm' after codegen
// CHECK: // point
// CHECK-NEXT: for (int c3 = {{.*}})
// CHECK-NEXT: for (int c4 = {{.*}}) {
// CHECK-NEXT: // vector
// CHECK-NEXT: for (int c5 = {{.*}}) {
// CHECK: S_1(c0 + c3, c2 + c4, c1 + c5);
// Without the pass, k stays innermost and carries the reduction: no vector mark there.
// KEEP: ;; pencilcc ast 'gemm' after codegen
// KEEP: // point
// KEEP-NOT: // vector
// KEEP: S_1(c0 + c3, c2 + c5, c1 + c4);
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
