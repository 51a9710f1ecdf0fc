// RUN: %pencilcc -O3 --tile-size=16 -fpencil-dump=ast -c %s -o %t.o 2>&1 | filecheck %s
// RUN: %pencilcc -O3 --tile-size=0 -fpencil-dump=ast -c %s -o %t.o 2>&1 | filecheck %s --check-prefix=NOTILE
// CHECK: // tile
// CHECK: for (int c0 = 0; c0 < n; c0 += 16)
// CHECK: // point
// NOTILE-NOT: // tile
// NOTILE: for (int c0 = 0; c0 < n; c0 += 1)
void transpose(int n, double A[static const restrict n][n], double B[static const restrict n][n])
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      B[j][i] = A[i][j];
}
