// RUN: %pencilcc -O3 --disable-pass=demote-scalars --dump-after=live-ranges -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s
// RUN: %pencilcc -O3 --disable-pass=demote-scalars --dump-after=dependences -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s --check-prefix=BEFORE
// (demote-scalars computes the live ranges of the model it works on and hands them on: off,
// so that this pass computes them.)
// The live ranges are the value-based flow through region-local storage only: t, written by
// S_0, is read by S_1 and S_2 of the same iteration. The flow through the caller's B (S_1 to
// S_2) is a dependence, not a live range.
// CHECK: ;; pencilcc scop 'f' after live-ranges
// CHECK: double t;  // local
// CHECK: Flow :=
// CHECK: [n] -> { S_1[i] -> S_2[i' = i] : 0 <= i < n };
// CHECK: LiveRanges :=
// CHECK-NEXT: [n] -> { S_0[i] -> S_1[i' = i] : {{(n >= 0 and )?}}0 <= i < n };
// CHECK-NEXT: [n] -> { S_0[i] -> S_2[i' = i] : {{(n >= 0 and )?}}0 <= i < n };
// CHECK-NOT: S_1[i] ->
// Before the pass the unit has none.
// BEFORE: ;; pencilcc scop 'f' after dependences
// BEFORE-NOT: LiveRanges
void f(int n, double A[static const restrict n], double B[static const restrict n],
       double C[static const restrict n])
{
  for (int i = 0; i < n; i++) {
    double t = A[i] * 2.0;
    B[i] = t + 1.0;
    C[i] = B[i] * t;
  }
}
