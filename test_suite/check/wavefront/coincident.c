// RUN: %pencilcc -O3 -fpencil-dump=ast -c %s -o %t.o 2>&1 | filecheck %s
// A tiled band with a coincident member needs no wavefront: mark-parallel marks the
// outermost tile loop directly.
// CHECK: ;; pencilcc ast 'matmul' after codegen
// CHECK-NOT: // wavefront
// CHECK: // tile
// CHECK-NEXT: // parallel
// CHECK-NEXT: for (int c0 = 0;
// CHECK-NOT: // wavefront
void matmul(int n, double C[static const restrict n][n], double A[static const restrict n][n],
            double B[static const restrict n][n])
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
}
