// RUN: %pencilcc -O3 -fpencil-dump=ast -c %s -o %t.o 2>&1 | filecheck %s
// The skewed (t, 2t + i, 2t + j) band has no parallel member; after tiling, the outer tile
// loop becomes the wavefront loop (sequential) and the tile loop inside it is marked parallel.
// The innermost point loop is split by statement (mark-vector): S_0's loop, then S_1's,
// each a vector loop; fused, S_1 read at j what S_0 wrote one iteration before.
// CHECK: ;; pencilcc ast 'jacobi_2d' after codegen
// CHECK: // tile
// CHECK-NEXT: // wavefront
// CHECK: for (int c0 = {{.*}}; c0 += 32) {
// CHECK-NEXT: // parallel
// CHECK-NEXT: for (int c1 = {{.*}}; c1 += 32)
// CHECK-NEXT: for (int c2 = {{.*}}; c2 += 32) {
// CHECK-NEXT: // point
// CHECK-NOT: // parallel
// CHECK: // vector
// CHECK-NEXT: for (int c5 = {{.*}}; c5 += 1)
// CHECK-NEXT: S_0(c0 - c1 + c3, -2 * c0 + 3 * c1 - 2 * c3 + c4, -2 * c0 + 2 * c1 + c2 - 2 * c3 + c5);
// CHECK: // vector
// CHECK-NEXT: for (int c5 = {{.*}}; c5 += 1)
// CHECK-NEXT: S_1(c0 - c1 + c3, -2 * c0 + 3 * c1 - 2 * c3 + c4 - 1, -2 * c0 + 2 * c1 + c2 - 2 * c3 + c5 - 1);
void jacobi_2d(int tsteps, int n, double A[static const restrict n][n], double B[static const restrict n][n])
{
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j] + A[i - 1][j]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][j + 1] + B[i + 1][j] + B[i - 1][j]);
  }
}
