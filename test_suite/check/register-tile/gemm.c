// RUN: %pencilcc -O3 --tile-size=32 --disable-pass=pack-panels -fpencil-dump=ast -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s
// RUN: %pencilcc -O3 --tile-size=32 --disable-pass=register-tile -fpencil-dump=ast -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s --check-prefix=OFF
// (Packed panels, which add the copies and the buffer indices, are pack-panels/gemm.c.)
// Without -march the register tile is SSE2's 4 x 4 doubles: the column and row loops of a
// 32 x 32 point tile step by 4 around the reduction loop c5, and the 4 x 4 point loops
// inside it have constant trip counts (LLVM unrolls them and keeps C in registers).
// C[i][j] *= beta (S_0) runs in a nest of its own before them, row by row over the point
// tile (isl generates it once per (c0, c1), at the first reduction tile), not at the first
// reduction step inside each register tile: c5 starts at 0 and only S_1 is in the tiles.
// The full column blocks come first (`nj >= c1 + c3 + 4`); the columns left after the last one
// get register tiles half a vector wide after them (register-tile.md, remainder columns).
// CHECK: ;; pencilcc ast 'gemm' after codegen
// CHECK: // point
// CHECK: S_0(c0 + c3, c1 + c5);
// CHECK: // point
// CHECK-NEXT: // register-tile
// CHECK-NOT: S_0(
// CHECK: for (int c3 = 0; c3 <= 31; c3 += 4)
// CHECK-NEXT: if (nj >= c1 + c3 + 4) {
// CHECK-NEXT: for (int c4 = 0; c4 <= min(31, ni - c0 - 4); c4 += 4)
// CHECK-NEXT: for (int c5 = 0; c5 <= min(31, nk - c2 - 1); c5 += 1)
// CHECK-NEXT: for (int c6 = 0; c6 <= 3; c6 += 1) {
// CHECK-NEXT: // vector
// CHECK-NEXT: for (int c7 = 0; c7 <= 3; c7 += 1)
// CHECK-NEXT: S_1(c0 + c4 + c6, c2 + c5, c1 + c3 + c7);
// OFF: ;; pencilcc ast 'gemm' after codegen
// OFF-NOT: // register-tile
// OFF: S_1(
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
