// RUN: %pencilcc -O3 --tile-size=0 -fpencil-fusion=min -fpencil-dump=ast -c %s -o %t.o 2>&1 | filecheck %s
// Each k reads the y of the previous k: the k loop is sequential, the two i loops
// inside are parallel. The team mark goes above the k loop, so that its threads
// start once per call rather than twice per k.
// CHECK: ;; pencilcc ast 'update' after codegen
// CHECK-NEXT: // thread-team
// CHECK-NEXT: for (int c0 = 1; c0 < n; c0 += 1) {
// CHECK-NEXT: // parallel
// CHECK-NEXT: for (int c1 = 0; c1 < c0; c1 += 1)
// CHECK-NEXT: S_0(c0, c1);
// CHECK-NEXT: // parallel
// CHECK-NEXT: for (int c1 = 0; c1 < c0; c1 += 1)
// CHECK-NEXT: S_1(c0, c1);
void update(int n, double y[static const restrict n], double z[static const restrict n])
{
  for (int k = 1; k < n; k++) {
    for (int i = 0; i < k; i++)
      z[i] = y[i] + y[k - i - 1];
    for (int i = 0; i < k; i++)
      y[i] = z[i] * 0.5;
  }
}
