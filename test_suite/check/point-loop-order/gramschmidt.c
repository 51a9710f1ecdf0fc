// RUN: %pencilcc -O3 -fpencil-dump=ast -c %s -o %t.o 2>&1 | filecheck %s
// RUN: %pencilcc -O3 --disable-pass=point-loop-order -fpencil-dump=ast -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s --check-prefix=KEEP
// Modified Gram-Schmidt: the (k, j) tiles run the projection and the update of column j
// in loops over i of their own, down columns of A. The point band's last member (j) is
// sunk below those loops: i outside, j inside and marked vector (rows of A, R and Q).
// CHECK: ;; pencilcc ast 'gs' after codegen
// CHECK: // wavefront
// CHECK: // point
// CHECK: S_3(
// CHECK: // vector
// CHECK-NEXT: for (int [[J:c[0-9]+]] = {{.*}})
// CHECK-NEXT: S_5({{.*}} + [[J]], {{c[0-9]+}});
// CHECK: // vector
// CHECK-NEXT: for (int [[J2:c[0-9]+]] = {{.*}})
// CHECK-NEXT: S_6({{.*}} + [[J2]], {{c[0-9]+}});
// Without the pass the loops over i stay innermost.
// KEEP: ;; pencilcc ast 'gs' after codegen
// KEEP: // point
// KEEP: S_3(
// KEEP: for (int [[K:c[0-9]+]] = 0; [[K]] < m; [[K]] += 1)
// KEEP-NEXT: S_5({{.*}}, [[K]]);
#include <math.h>

void gs(int m, int n, double A[static const restrict m][n], double R[static const restrict n][n],
        double Q[static const restrict m][n])
{
  for (int k = 0; k < n; k++) {
    double nrm = 0.0;
    for (int i = 0; i < m; i++)
      nrm += A[i][k] * A[i][k];
    R[k][k] = sqrt(nrm);
    for (int i = 0; i < m; i++)
      Q[i][k] = A[i][k] / R[k][k];
    for (int j = k + 1; j < n; j++) {
      R[k][j] = 0.0;
      for (int i = 0; i < m; i++)
        R[k][j] += Q[i][k] * A[i][j];
      for (int i = 0; i < m; i++)
        A[i][j] = A[i][j] - Q[i][k] * R[k][j];
    }
  }
}
