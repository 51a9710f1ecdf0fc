// RUN: %pencilcc -O3 --tile-size=0 -fpencil-dump=schedule,ast -foptimization-record-file=%t.json \
// RUN:   -c %s -o %t.o 2>&1 | filecheck %s
// RUN: filecheck %s --check-prefix=RECORD < %t.json
// scale: the innermost j carries no dependence once i is fixed: its band goes under a
// `vector` mark, which the back end turns into LLVM's parallel-access loop metadata.
// CHECK: ;; pencilcc schedule 'scale' after register-tile
// CHECK-NOT: mark: "vector"
// CHECK: ;; pencilcc schedule 'scale' after mark-vector
// CHECK: mark: "parallel"
// CHECK: schedule: "[n, m] -> [{ S_0[i, j] -> [(i)] }]"
// CHECK: mark: "vector"
// CHECK-NEXT: child:
// CHECK-NEXT: schedule: "[n, m] -> [{ S_0[i, j] -> [(j)] }]"
// CHECK: ;; pencilcc ast 'scale' after codegen
// CHECK: // parallel
// CHECK-NEXT: for (int c0 = 0; c0 < n; c0 += 1) {
// CHECK-NEXT: // vector
// CHECK-NEXT: for (int c1 = 0; c1 < m; c1 += 1)
// CHECK-NEXT: S_0(c0, c1);
// rows: j carries A[i][j - 1] -> A[i][j]: no vector mark.
// CHECK: ;; pencilcc schedule 'rows' after mark-vector
// CHECK-NOT: mark: "vector"
// CHECK: ;; pencilcc ast 'rows' after codegen
// CHECK-NOT: // vector
// CHECK: S_0(c0, c1);
// RECORD: "vector_loops": 1,
// RECORD: "vector_loops": 0,
void scale(int n, int m, double A[static const restrict n][m], double B[static const restrict n][m])
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i][j] = B[i][j] * 2.0;
}

void rows(int n, int m, double A[static const restrict n][m], double B[static const restrict n][m])
{
  for (int i = 0; i < n; i++)
    for (int j = 1; j < m; j++)
      A[i][j] = A[i][j - 1] + B[i][j];
}
