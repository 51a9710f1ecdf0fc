// RUN: %pencilcc -O3 --tile-size=0 -fpencil-dump=schedule -Rpass-missed=pencil -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s
// The scheduler interchanges the loops (j outside, parallel; i, which carries the dependence,
// inside): a legal schedule, which the pass keeps as it is, with no note.
// CHECK: ;; pencilcc schedule 'prefix' after verify-schedule
// CHECK-NEXT: domain: "[n, m] -> { S_0[i, j] : 0 < i < n and 0 <= j < m }"
// CHECK-NEXT: child:
// CHECK-NEXT: mark: "parallel"
// CHECK-NEXT: child:
// CHECK-NEXT: schedule: "[n, m] -> [{ S_0[i, j] -> [(j)] }]"
// CHECK-NEXT: permutable: 1
// CHECK-NEXT: coincident: [ 1 ]
// CHECK-NEXT: child:
// CHECK-NEXT: schedule: "[n, m] -> [{ S_0[i, j] -> [(i)] }]"
// CHECK-NOT: invalid schedule
void prefix(int n, int m, double A[static const restrict n][m])
{
  for (int i = 1; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i][j] += A[i - 1][j];
}
