// RUN: %pencilcc -O3 --disable-pass=wavefront -fpencil-dump=ast -c %s -o %t.o 2>&1 | filecheck %s
// RUN: %pencilcc -O3 -fno-pencil-parallel -fpencil-dump=ast -c %s -o %t.o 2>&1 | filecheck %s
// Without the pass (or without threads) the skewed tiles run in tile order on one thread.
// CHECK: ;; pencilcc ast 'seidel' after codegen
// CHECK: // tile
// CHECK-NOT: // wavefront
// CHECK-NOT: // parallel
void seidel(int tsteps, int n, double A[static const restrict n][n])
{
  for (int t = 0; t < tsteps; t++)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        A[i][j] = (A[i - 1][j] + A[i][j - 1] + A[i][j] + A[i][j + 1] + A[i + 1][j]) / 5.0;
}
