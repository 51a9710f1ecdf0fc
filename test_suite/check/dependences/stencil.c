// RUN: %pencilcc -O3 -fpencil-dump=deps -c %s -o %t.o 2>&1 | filecheck %s
// CHECK: ;; pencilcc deps 'stencil' after dependences
// CHECK-NEXT: Flow :=
// CHECK-NEXT: [T, n] -> { S_0[t, i] -> S_1[t' = t, i' = i] : 0 <= t < T and 0 < i <= -2 + n };
// CHECK: Anti :=
// CHECK: Output :=
// CHECK-NEXT: [T, n] -> { S_0[t, i] -> S_0[t', i' = i] : t >= 0 and 0 < i <= -2 + n and t < t' < T };
void stencil(int T, int n, double A[static const restrict n], double B[static const restrict n])
{
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < n - 1; i++)
      B[i] = A[i - 1] + A[i + 1];
    for (int i = 1; i < n - 1; i++)
      A[i] = B[i];
  }
}
