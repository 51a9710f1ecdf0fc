// RUN: %pencilcc -O3 -fpencil-dump=schedule -foptimization-record-file=%t.json -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s
// RUN: filecheck %s --check-prefix=RECORD < %t.json
// gesummv: the (i, j) band is parallel in i, and its inner j streams A and B by rows. The pass
// splits it into two one-member bands, which `tile` then leaves alone.
// CHECK: ;; pencilcc schedule 'gesummv' after keep-streams
// CHECK-NEXT: domain:
// CHECK-NEXT: child:
// CHECK-NEXT: schedule: "[n] -> [{ S_1[i] -> [(i)]; S_3[i, j] -> [(i)]; S_4[i] -> [(i)]; S_2[i, j] -> [(i)]; S_0[i] -> [(i)] }]"
// CHECK-NEXT: permutable: 1
// CHECK-NEXT: coincident: [ 1 ]
// CHECK-NEXT: child:
// CHECK-NEXT: schedule: "[n] -> [{ S_1[i] -> [(0)]; S_3[i, j] -> [(j)]; S_4[i] -> [(n)]; S_2[i, j] -> [(j)]; S_0[i] -> [(0)] }]"
// CHECK: ;; pencilcc schedule 'gesummv' after tile
// CHECK-NOT: mark: "tile"
// CHECK: ;; pencilcc schedule 'gesummv' after wavefront
// add: the inner j walks B by columns; tiling is what mends it (point-loop-order), so the
// two-member band stays whole and is tiled.
// CHECK: ;; pencilcc schedule 'add' after keep-streams
// CHECK-NEXT: domain:
// CHECK-NEXT: child:
// CHECK-NEXT: schedule: "[n] -> [{ S_0[i, j] -> [(i)] }, { S_0[i, j] -> [(j)] }]"
// CHECK-NEXT: permutable: 1
// CHECK-NEXT: coincident: [ 1, 1 ]
// CHECK: ;; pencilcc schedule 'add' after tile
// CHECK: mark: "tile"
// RECORD: "streaming_bands": 1,
// RECORD: "streaming_bands": 0,
void gesummv(int n, double alpha, double beta, double A[static const restrict n][n],
             double B[static const restrict n][n], double tmp[static const restrict n],
             double x[static const restrict n], double y[static const restrict n])
{
  for (int i = 0; i < n; i++) {
    tmp[i] = 0.0;
    y[i] = 0.0;
    for (int j = 0; j < n; j++) {
      tmp[i] = A[i][j] * x[j] + tmp[i];
      y[i] = B[i][j] * x[j] + y[i];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
}

void add(int n, double A[static const restrict n][n], double B[static const restrict n][n])
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A[i][j] += B[j][i];
}
