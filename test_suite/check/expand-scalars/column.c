// RUN: %pencilcc -O3 --dump-after=expand-scalars -foptimization-record-file=%t.json -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s
// RUN: filecheck %s --check-prefix=RECORD < %t.json
// The state s of the chain down each column (set at the column's top, read one row later) gets
// one element per column j, the loop along the arrays' contiguous dimension. The chain along each
// row (r) walks the contiguous dimension already: it stays a scalar.
// CHECK: ;; pencilcc scop 'filters' after expand-scalars
// CHECK: double __pencil_expanded_s[m];
// CHECK: Body: __pencil_expanded_s[j] = 0.0;
// CHECK: Body: B[i][j] = ((0.5 * __pencil_expanded_s[j]) + A[i][j]);
// CHECK: Body: __pencil_expanded_s[j] = B[i][j];
// CHECK: Body: r = 0.0;
// CHECK: Body: A[i][j] = ((0.25 * r) + B[i][j]);
// RECORD: "expanded_scalars": [
// RECORD-NEXT: "s -> __pencil_expanded_s[j]"
// RECORD-NEXT: ],
void filters(int n, int m, double A[static const restrict n][m], double B[static const restrict n][m])
{
  for (int j = 0; j < m; j++) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
      B[i][j] = 0.5 * s + A[i][j];
      s = B[i][j];
    }
  }
  for (int i = 0; i < n; i++) {
    double r = 0.0;
    for (int j = 0; j < m; j++) {
      A[i][j] = 0.25 * r + B[i][j];
      r = A[i][j];
    }
  }
}
