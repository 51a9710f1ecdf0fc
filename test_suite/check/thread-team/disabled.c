// RUN: %pencilcc -O3 --tile-size=0 -fpencil-fusion=min --disable-pass=thread-team -fpencil-dump=ast -c %s -o %t.o 2>&1 | filecheck %s
// Without the pass each parallel loop starts its own threads: no team mark.
// CHECK: ;; pencilcc ast 'update' after codegen
// CHECK-NOT: thread-team
// CHECK: for (int c0 = 1; c0 < n; c0 += 1) {
// CHECK-NEXT: // parallel
void update(int n, double y[static const restrict n], double z[static const restrict n])
{
  for (int k = 1; k < n; k++) {
    for (int i = 0; i < k; i++)
      z[i] = y[i] + y[k - i - 1];
    for (int i = 0; i < k; i++)
      y[i] = z[i] * 0.5;
  }
}
