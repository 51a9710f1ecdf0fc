// RUN: %pencilcc -O3 --disable-pass=keep-streams -fpencil-dump=ast -c %s -o %t.o 2>&1 | filecheck %s
// (keep-streams would leave this two-deep sequential band untiled.) The skewed (t, 2t + i) band is tiled 32 x 32: 1,024 points a tile are too few to pay for
// a barrier per wavefront (wavefront.MIN_TILE_INSTANCES), so the tiles keep their order.
// CHECK: ;; pencilcc ast 'jacobi_1d' after codegen
// CHECK: // tile
// CHECK-NOT: // wavefront
// CHECK-NOT: // parallel
// CHECK: S_0(
void jacobi_1d(int tsteps, int n, double A[static const restrict n], double B[static const restrict n])
{
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (int i = 1; i < n - 1; i++)
      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
}
