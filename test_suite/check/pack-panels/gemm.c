// RUN: %pencilcc -O3 --tile-size=32 -fpencil-dump=ast -c %s -o %t.o 2>&1 | filecheck %s
// RUN: %pencilcc -O3 --tile-size=32 --disable-pass=pack-panels -fpencil-dump=ast -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s --check-prefix=OFF
// Inside each 32 x 32 x 32 tile, before the register tiles: the copy of alpha * A (the
// tile's rows i and reduction steps k) and the copy of B (its steps k and columns j), each
// called with the tile corner, the element and its offset in the buffer. The micro-kernel's
// calls end with the buffer indices: row and step of the packed A, step and column of the
// packed B, the point loops' offsets (no division). C[i][j] *= beta runs before, in a nest of
// its own (docs/passes/register-tile.md).
// CHECK: ;; pencilcc ast 'gemm' after codegen
// CHECK: S_0(c0 + c3, c1 + c5);
// CHECK: // point
// CHECK-NEXT: {
// CHECK-NEXT: for (int c3 = c0; c3 <= min(ni - 1, c0 + 31); c3 += 1)
// CHECK-NEXT: for (int c4 = c2; c4 <= min(nk - 1, c2 + 31); c4 += 1)
// CHECK-NEXT: P___pencil_pack0_A(c0, c1, c2, c3, c4, -c0 + c3, -c2 + c4);
// CHECK-NEXT: for (int c3 = c2; c3 <= min(nk - 1, c2 + 31); c3 += 1)
// CHECK-NEXT: for (int c4 = c1; c4 <= min(nj - 1, c1 + 31); c4 += 1)
// CHECK-NEXT: P___pencil_pack1_B(c0, c1, c2, c3, c4, -c2 + c3, -c1 + c4);
// CHECK-NEXT: // register-tile
// CHECK: for (int c5 = 0; c5 <= min(31, nk - c2 - 1); c5 += 1)
// CHECK-NEXT: for (int c6 = 0; c6 <= 3; c6 += 1) {
// CHECK-NEXT: // vector
// CHECK-NEXT: for (int c7 = 0; c7 <= 3; c7 += 1)
// CHECK-NEXT: S_1(c0 + c4 + c6, c2 + c5, c1 + c3 + c7, c4 + c6, c5, c5, c3 + c7);
// OFF: ;; pencilcc ast 'gemm' after codegen
// OFF-NOT: P___pencil_pack
// OFF: S_1(c0 + c4 + c6, c2 + c5, c1 + c3 + c7);
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
