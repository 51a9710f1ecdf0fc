// RUN: %pencilcc -O1 -fpencil-dump=scop -c %s -o %t.o 2>&1 | filecheck %s
// RUN: %pencilcc -O1 --disable-pass=alias-check -Rpass-missed=pencil -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s --check-prefix=OFF
// a and b are plain pointers, a is written: they may overlap, so the region runs only when
// their accessed ranges (a[1..n-1], b[0..n-2]) are disjoint. c is restrict and r is only read:
// no pair with either is checked.
// CHECK: ;; pencilcc scop 'k' after alias-check
// CHECK: AliasCheck {
// CHECK-NEXT: Pair := a, b
// CHECK-NEXT: Condition := (!((long long)n >= 2) || (__UINTPTR_TYPE__)((a) + ((long long)n - 1) + 1) <= (__UINTPTR_TYPE__)((b) + (0)) || (__UINTPTR_TYPE__)((b) + ((long long)n - 2) + 1) <= (__UINTPTR_TYPE__)((a) + (1)))
// CHECK-NEXT: }
// Without the check the region may not assume that a and b are apart: it falls back.
// OFF-NOT: AliasCheck
// OFF: remark: region in 'k' missed: arrays 'a' and 'b' may overlap and pass 'alias-check' (their run-time check) is disabled
void k(int n, double *a, double *b, double c[static const restrict n])
{
  for (int i = 1; i < n; i++) {
    a[i] = b[i - 1] + 1.0;
    c[i] = c[i] * 2.0;
  }
}
