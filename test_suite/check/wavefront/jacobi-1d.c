// RUN: %pencilcc -O3 --tile-size=128 -fpencil-dump=ast -c %s -o %t.o 2>&1 | filecheck %s
// The skewed (t, 2t + i) band has no parallel member; after tiling, the outer tile loop
// becomes the wavefront loop (sequential) and the tile loop inside it is marked parallel
// (128 x 128 tiles: 32 x 32 ones are too small to run by wavefronts).
// The innermost point loop is separated: both statements run in it without guards.
// CHECK: ;; pencilcc ast 'jacobi_1d' after codegen
// CHECK: // tile
// CHECK-NEXT: // wavefront
// CHECK: for (int c0 = {{.*}}; c0 += 128) {
// CHECK-NEXT: // parallel
// CHECK-NEXT: for (int c1 = {{.*}}; c1 += 128) {
// CHECK-NEXT: // point
// CHECK-NOT: // parallel
// CHECK: for (int c3 = {{.*}}; c3 += 1) {
// CHECK-NEXT: S_0(c0 - c1 + c2, -2 * c0 + 3 * c1 - 2 * c2 + c3);
// CHECK-NEXT: S_1(c0 - c1 + c2, -2 * c0 + 3 * c1 - 2 * c2 + c3 - 1);
// CHECK-NEXT: }
void jacobi_1d(int tsteps, int n, double A[static const restrict n], double B[static const restrict n])
{
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (int i = 1; i < n - 1; i++)
      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
}
