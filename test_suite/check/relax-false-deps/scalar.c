// RUN: %pencilcc -O3 -fpencil-dump=deps -c %s -o %t.o 2>&1 | filecheck %s
// RUN: %pencilcc -O3 -fpencil-dump=ast -c %s -o %t.o 2>&1 | filecheck %s --check-prefix=AST
// The region-local t is rewritten by every i: its anti (S_1 -> S_0) and output (S_0 -> S_0)
// dependences carry the first loop, but no live range of t (S_0 -> S_1, within one
// iteration) crosses an iteration: they become conditional (RelaxedFalse). The anti
// dependence through the caller's A (S_2 on itself, and S_0 before S_2) stays enforced.
// CHECK: ;; pencilcc deps 'f' after relax-false-deps
// CHECK: Relaxed storage: t
// CHECK-NEXT: LiveRanges :=
// CHECK-NEXT: [n] -> { S_0[i] -> S_1[i' = i] : {{.*}}0 <= i < n };
// CHECK-NEXT: RelaxedFalse :=
// CHECK-NEXT: [n] -> { S_0[i] -> S_0[i'] : {{.*}}0 <= i < n and i' > i and 0 <= i' < n };
// CHECK-NEXT: [n] -> { S_1[i] -> S_0[i'] : {{.*}}0 <= i < n and i' > i and 0 <= i' < n };
// CHECK-NEXT: Enforced :=
// CHECK-NEXT: [n] -> { S_0[i] -> S_1[i' = i] : {{.*}}0 <= i < n };
// CHECK-NEXT: [n] -> { S_0[i] -> S_2[i' = i] : {{.*}}0 <= i <= -2 + n };
// CHECK-NEXT: [n] -> { S_1[i] -> S_2[i' = i] : {{.*}}0 <= i <= -2 + n };
// CHECK-NEXT: [n] -> { S_2[i] -> S_2[i' = 1 + i] : {{.*}}0 <= i <= -3 + n };
// CHECK-NEXT: ;; pencilcc deps 'f' after cluster-stmts
// So the first loop (S_0 and S_1, clustered) is parallel, each thread with its own t; the
// second, which carries A's anti dependence, is not.
// AST: ;; pencilcc ast 'f' after codegen
// AST: // parallel
// AST-NEXT: for (int c0 = 0; c0 < n; c0 += 1)
// AST-NEXT: S_0(c0);
// AST-NEXT: for (int c0 = 0; c0 < n - 1; c0 += 1)
// AST-NEXT: S_2(c0);
void f(int n, double A[static const restrict n], double B[static const restrict n])
{
  for (int i = 0; i < n; i++) {
    double t = A[i] * 2.0;
    B[i] = t + t;
  }
  for (int i = 0; i < n - 1; i++)
    A[i] = A[i + 1] + B[i];
}
