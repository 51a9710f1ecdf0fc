// RUN: %pencilcc -O3 -fpencil-dump=schedule,ast -foptimization-record-file=%t.json -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s
// RUN: filecheck %s --check-prefix=RECORD < %t.json
// trisolv: row i's chain of subtractions (j < i) reads the rows solved before it. Left of the
// strip of 8 rows a row belongs to (j < i - i mod 8), every row of a full strip runs the same
// j, reading rows of earlier strips only: eight chains side by side. The strip's triangle and
// the row's end (x[i] /= L[i][i]) run row after row, as in the source.
// CHECK: ;; pencilcc schedule 'trisolv' after reduction-jam
// CHECK: schedule: "[n] -> [{ S_1[i, j] -> [(i - (i) mod 8)]; S_2[i] -> [(i - (i) mod 8)] }]"
// CHECK: sequence:
// CHECK-NEXT: - filter: "[n] -> { S_1[i, j] : i < n and j >= 0 and 8*floor((i)/8) > j }"
// CHECK: options: "{ unroll[0] }"
// CHECK: ;; pencilcc ast 'trisolv' after codegen
// CHECK: for (int c0 = 0; c0 < n; c0 += 8) {
// CHECK-NEXT: if (n >= c0 + 8) {
// CHECK-NEXT: for (int c2 = 0; c2 < c0; c2 += 1) {
// CHECK-NEXT: S_1(c0, c2);
// CHECK-NEXT: S_1(c0 + 1, c2);
// CHECK: S_1(c0 + 7, c2);
// CHECK-NEXT: }
// CHECK-NEXT: for (int c2 = 0; c2 <= 7; c2 += 1) {
// CHECK-NEXT: for (int c3 = c0; c3 < c0 + c2; c3 += 1)
// CHECK-NEXT: S_1(c0 + c2, c3);
// CHECK: S_2(c0 + c2);
// RECORD: "jammed_loops": 1,
void trisolv(int n, double L[static const restrict n][n], double x[static const restrict n],
             double b[static const restrict n])
{
  for (int i = 0; i < n; i++) {
    x[i] = b[i];
    for (int j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
  }
}
