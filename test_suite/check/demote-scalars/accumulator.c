// RUN: %pencilcc -O3 --dump-after=demote-scalars -foptimization-record-file=%t.json -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s
// RUN: filecheck %s --check-prefix=RECORD < %t.json
// The accumulator t lives across the k loop and ends in C[i][j]: it becomes that element in
// every statement of its live ranges, and the store C[i][j] = t (S_2) goes. The scalar s lives
// within one iteration of its loop: it stays (that is relax-false-deps' case).
// CHECK: ;; pencilcc scop 'mm' after demote-scalars
// CHECK: S_0
// CHECK: Body: C[i][j] = 0.0;
// CHECK-NEXT: S_1
// CHECK: Body: C[i][j] += (A[i][k] * B[k][j]);
// CHECK-NEXT: S_3
// CHECK: Body: s = (x[i] * 2.0);
// CHECK-NEXT: S_4
// CHECK: Body: x[i] = (s + 1.0);
// RECORD: "demoted_scalars": [
// RECORD-NEXT: "t -> C[i][j]"
// RECORD-NEXT: ],
void mm(int n, double C[static const restrict n][n], double A[static const restrict n][n],
        double B[static const restrict n][n], double x[static const restrict n])
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double t = 0.0;
      for (int k = 0; k < n; k++)
        t += A[i][k] * B[k][j];
      C[i][j] = t;
    }
  for (int i = 0; i < n; i++) {
    double s = x[i] * 2.0;
    x[i] = s + 1.0;
  }
}
