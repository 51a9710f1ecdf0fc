// RUN: %pencilcc -O3 --tile-size=0 -fpencil-dump=ast -c %s -o %t.o 2>&1 | filecheck %s
// A parallel loop with no sequential loop around it forks once per call already:
// no team mark.
// CHECK: ;; pencilcc ast 'scale' after codegen
// CHECK-NOT: thread-team
// CHECK: // parallel
void scale(int n, int m, double A[static const restrict n][m])
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i][j] *= 2.0;
}
