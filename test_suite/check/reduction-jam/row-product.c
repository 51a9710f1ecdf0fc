// RUN: %pencilcc -O3 -fpencil-dump=schedule,ast -foptimization-record-file=%t.json -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s
// RUN: filecheck %s --check-prefix=RECORD < %t.json
// mv: the j loop is one chain of adds into tmp[i], which may not be reassociated. The i loop
// is strip-mined by 3 and its point loop unrolled at every leaf: three rows' chains run
// side by side in one j loop (full strips isolated from the last one).
// CHECK: ;; pencilcc schedule 'mv' after reduction-jam
// CHECK: mark: "parallel"
// CHECK-NEXT: child:
// CHECK-NEXT: schedule: "[m, n] -> [{ S_1[i, j] -> [(i - (i) mod 3)]; S_0[i] -> [(i - (i) mod 3)] }]"
// CHECK: options: "[m, n] -> { isolate{{\[\[}}i0] -> [i1]] : (i0) mod 3 = 0 and 0 <= i0 <= -3 + m; [isolate[] -> atomic[0]]; atomic[0] }"
// CHECK: schedule: "[m, n] -> [{ S_1[i, j] -> [((i) mod 3)] : 0 <= i < m and 0 <= j < n }]"
// CHECK-NEXT: coincident: [ 1 ]
// CHECK-NEXT: options: "{ unroll[0] }"
// CHECK: ;; pencilcc ast 'mv' after codegen
// CHECK-NEXT: // parallel
// CHECK-NEXT: for (int c0 = 0; c0 < m; c0 += 3) {
// CHECK-NEXT: if (m >= c0 + 3) {
// CHECK-NEXT: S_0(c0);
// CHECK-NEXT: S_0(c0 + 1);
// CHECK-NEXT: S_0(c0 + 2);
// CHECK-NEXT: for (int c2 = 0; c2 < n; c2 += 1) {
// CHECK-NEXT: S_1(c0, c2);
// CHECK-NEXT: S_1(c0 + 1, c2);
// CHECK-NEXT: S_1(c0 + 2, c2);
// tri: the j loop's range depends on i (j <= i), and isl put the row's start (s[i] = 0) in
// the j band at date 0: jammed rows would need guards inside the chain, and the split into
// rectangle and triangle (triangle.c) wants the j band alone under the row. Left alone.
// CHECK: ;; pencilcc schedule 'tri' after reduction-jam
// CHECK-NOT: mod 3
// CHECK: ;; pencilcc ast 'tri' after codegen
// CHECK-NEXT: // parallel
// CHECK-NEXT: for (int c0 = 0; c0 < n; c0 += 1) {
// CHECK-NEXT: S_0(c0);
// CHECK-NEXT: for (int c1 = 0; c1 <= c0; c1 += 1)
// CHECK-NEXT: S_1(c0, c1);
// RECORD: "jammed_loops": 1,
// RECORD: "jammed_loops": 0,
void mv(int m, int n, double A[static const restrict m][n], double x[static const restrict n],
        double tmp[static const restrict m])
{
  for (int i = 0; i < m; i++) {
    tmp[i] = 0.0;
    for (int j = 0; j < n; j++)
      tmp[i] = tmp[i] + A[i][j] * x[j];
  }
}

void tri(int n, double A[static const restrict n][n], double x[static const restrict n],
         double s[static const restrict n])
{
  for (int i = 0; i < n; i++) {
    s[i] = 0.0;
    for (int j = 0; j <= i; j++)
      s[i] = s[i] + A[i][j] * x[j];
  }
}
