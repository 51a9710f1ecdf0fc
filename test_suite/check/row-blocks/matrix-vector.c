// RUN: %pencilcc -O3 -fpencil-dump=schedule,ast -foptimization-record-file=%t.json -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s
// RUN: filecheck %s --check-prefix=RECORD < %t.json
// atax: the row sums tmp[i] (along a row of A) and the column sums y[j] (across the rows) of one
// read-only matrix. In blocks of 24 rows: the block's rows on threads (six row sums side by side), then the columns in tiles
// of 64 on threads with the block's rows ascending inside (jammed by 6: y[c] gets six rows' terms
// per load and store); y[i] = 0 keeps its own nest.
// CHECK: ;; pencilcc schedule 'atax' after row-blocks
// CHECK: filter: "[m, n] -> { S_0[i] }"
// CHECK: schedule: "[m, n] -> [{ S_3[i, j] -> [(floor((i)/24))] : 0 <= i < m and 0 <= j < n; S_1[i] -> [(floor((i)/24))] : 0 <= i < m; S_2[i, j] -> [(floor((i)/24))] : 0 <= i < m and 0 <= j < n }]"
// CHECK-NEXT: child:
// CHECK-NEXT: sequence:
// CHECK-NEXT: - filter: "[m, n] -> { S_1[i] : 0 <= i < m; S_2[i, j] : 0 <= i < m and 0 <= j < n }"
// CHECK-NEXT: child:
// CHECK-NEXT: mark: "parallel"
// CHECK: - filter: "[m, n] -> { S_3[i, j] : 0 <= i < m and 0 <= j < n }"
// CHECK-NEXT: child:
// CHECK-NEXT: mark: "parallel"
// CHECK-NEXT: child:
// CHECK-NEXT: schedule: "[m, n] -> [{ S_3[i, j] -> [(floor((j)/64))] : 0 <= i < m and 0 <= j < n }]"
// CHECK: ;; pencilcc ast 'atax' after codegen
// CHECK: // thread-team
// CHECK-NEXT: for (int c0 = 0; c0 <= floord(m - 1, 24); c0 += 1) {
// CHECK-NEXT: // parallel
// CHECK-NEXT: for (int c1 = 24 * c0; c1 <= min(m - 1, 24 * c0 + 23); c1 += 6) {
// CHECK: S_2(c1 + 5, c3);
// CHECK: // parallel
// CHECK-NEXT: for (int c1 = 0; c1 <= floord(n - 1, 64); c1 += 1)
// CHECK-NEXT: for (int c2 = 24 * c0; c2 <= min(m - 1, 24 * c0 + 23); c2 += 6) {
// CHECK-NEXT: if (m >= c2 + 6) {
// CHECK-NEXT: // vector
// CHECK-NEXT: for (int c4 = 64 * c1; c4 <= min(n - 1, 64 * c1 + 63); c4 += 1) {
// CHECK-NEXT: S_3(c2, c4);
// CHECK-NEXT: S_3(c2 + 1, c4);
// CHECK-NEXT: S_3(c2 + 2, c4);
// CHECK-NEXT: S_3(c2 + 3, c4);
// CHECK-NEXT: S_3(c2 + 4, c4);
// CHECK-NEXT: S_3(c2 + 5, c4);
// feedback: the row sums read y, which the column sums of the rows before write: a block's rows
// would read y before its own column phase. Left in the source order.
// CHECK: ;; pencilcc schedule 'feedback' after row-blocks
// CHECK-NOT: /24
// CHECK: ;; pencilcc ast 'feedback' after codegen
// RECORD: "row_blocks": 1,
// RECORD: "row_blocks": 0,
void atax(int m, int n, double A[static const restrict m][n], double x[static const restrict n],
          double y[static const restrict n], double tmp[static const restrict m])
{
  for (int i = 0; i < n; i++)
    y[i] = 0.0;
  for (int i = 0; i < m; i++) {
    tmp[i] = 0.0;
    for (int j = 0; j < n; j++)
      tmp[i] = tmp[i] + A[i][j] * x[j];
    for (int j = 0; j < n; j++)
      y[j] = y[j] + A[i][j] * tmp[i];
  }
}

void feedback(int m, int n, double A[static const restrict m][n], double y[static const restrict n],
              double t[static const restrict m])
{
  for (int i = 0; i < m; i++) {
    t[i] = 0.0;
    for (int j = 0; j < n; j++)
      t[i] = t[i] + A[i][j] * y[j];
    for (int j = 0; j < n; j++)
      y[j] = y[j] + A[i][j] * t[i];
  }
}
