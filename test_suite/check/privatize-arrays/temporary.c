// RUN: %pencilcc -O3 --dump-after=privatize-arrays -foptimization-record-file=%t.json -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s
// RUN: filecheck %s --check-prefix=RECORD < %t.json
// mirror: the caller's tmp is rewritten by every i before it is read: a temporary of one
// iteration, whose false dependences carry the i loop. Every statement gets the private copy;
// the last i's writes are split off (S_2) and also store to tmp, the value the caller sees.
// The copy's size depends on m: a guard joins the region's alias check.
// CHECK: ;; pencilcc scop 'mirror' after privatize-arrays
// CHECK: Arrays {
// CHECK: double __pencil_private_tmp[m];  // local
// CHECK: double tmp[m];  // live-out
// CHECK: S_0
// CHECK-NEXT: Domain :=
// CHECK-NEXT: [n, m] -> { S_0[i, j] : 0 <= i <= -2 + n and 0 <= j < m };
// CHECK: Body: __pencil_private_tmp[j] = ((A[i][j] * 2.0) + (double)<i>);
// CHECK: S_1
// CHECK: Body: B[i][j] = (__pencil_private_tmp[j] - (0.5 * __pencil_private_tmp[((m - 1) - j)]));
// CHECK: S_2
// CHECK-NEXT: Domain :=
// CHECK-NEXT: [n, m] -> { S_2[i = -1 + n, j] : n > 0 and 0 <= j < m };
// CHECK: Body: tmp[j] = __pencil_private_tmp[j] = ((A[i][j] * 2.0) + (double)<i>);
// CHECK: AliasCheck {
// CHECK-NEXT: Condition := ((long long)(m) <= 131072LL)
// keep: tmp[i][j] is never reused by another iteration: no false dependence to remove, and
// the array stays the caller's.
// CHECK: ;; pencilcc scop 'keep' after privatize-arrays
// CHECK-NOT: __pencil_private
// CHECK: Body: tmp[i][j] = (C[i][j] * 2.0);
// CHECK-NOT: __pencil_private
// CHECK: Body: C[i][j] = (tmp[i][j] + 1.0);
// CHECK-NOT: __pencil_private
// RECORD: "privatized_arrays": [
// RECORD-NEXT: "tmp"
// RECORD-NEXT: ],
// RECORD: "privatized_arrays": [],
void mirror(int n, int m, const double A[static const restrict n][m],
            double B[static const restrict n][m], double tmp[static const restrict m])
{
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < m; j++)
      tmp[j] = A[i][j] * 2.0 + i;
    for (int j = 0; j < m; j++)
      B[i][j] = tmp[j] - 0.5 * tmp[m - 1 - j];
  }
}

void keep(int n, int m, double tmp[static const restrict n][m], double C[static const restrict n][m])
{
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < m; j++)
      tmp[i][j] = C[i][j] * 2.0;
    for (int j = 0; j < m; j++)
      C[i][j] = tmp[i][j] + 1.0;
  }
}
