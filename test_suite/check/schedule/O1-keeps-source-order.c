// RUN: %pencilcc -O1 -fpencil-dump=ast -c %s -o %t.o 2>&1 | filecheck %s
// At -O1 the source order is kept: no tiling, no parallel marks.
// CHECK: ;; pencilcc ast 'scale' after codegen
// CHECK-NOT: // parallel
// CHECK-NOT: // tile
// CHECK: for (int c0 = 0; c0 < n; c0 += 1)
// CHECK-NEXT: for (int c1 = 0; c1 < m; c1 += 1)
// CHECK-NEXT: S_0(c0, c1);
void scale(int n, int m, double A[static const restrict n][m], double alpha)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i][j] *= alpha;
}
