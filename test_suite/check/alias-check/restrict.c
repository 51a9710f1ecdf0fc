// RUN: %pencilcc -O1 -fpencil-dump=scop -c %s -o %t.o 2>&1 | filecheck %s
// A restrict array overlaps nothing it is not based on, and arrays only read may overlap
// freely: the pass plans no check (an empty block), and the region is optimised unversioned.
// CHECK: ;; pencilcc scop 'k' after alias-check
// CHECK: AliasCheck {
// CHECK-NEXT: }
// CHECK-NOT: Pair :=
void k(int n, double *x, const double *y, double z[static const restrict n])
{
  for (int i = 0; i < n; i++)
    z[i] = x[i] + y[i];
}
