// RUN: %pencilcc -O3 --tile-size=0 -fpencil-dump=schedule,ast -foptimization-record-file=%t.json -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s
// RUN: filecheck %s --check-prefix=RECORD < %t.json
// jacobi_1d: isl's skewed (t, 2t + i) band is untiled and has no parallel member: it gained
// nothing, and its one loop interleaves S_0 and S_1. The pass puts the source order back,
// with coincidence flags computed for it: two vector loops per t.
// CHECK: ;; pencilcc schedule 'jacobi_1d' after mark-parallel
// CHECK: S_1[t, i] -> [(1 + 2t + i)]; S_0[t, i] -> [(2t + i)] }]"
// CHECK: ;; pencilcc schedule 'jacobi_1d' after source-order
// CHECK-NEXT: domain:
// CHECK-NEXT: child:
// CHECK-NEXT: schedule: "[tsteps, n] -> [{ S_1[t, i] -> [(t)]; S_0[t, i] -> [(t)] }]"
// CHECK-NEXT: child:
// CHECK-NEXT: sequence:
// CHECK-NEXT: - filter: "[tsteps, n] -> { S_0[t, i] }"
// CHECK-NEXT: child:
// CHECK-NEXT: schedule: "[tsteps, n] -> [{ S_0[t, i] -> [(i)] }]"
// CHECK-NEXT: coincident: [ 1 ]
// CHECK-NEXT: - filter: "[tsteps, n] -> { S_1[t, i] }"
// CHECK: ;; pencilcc ast 'jacobi_1d' after codegen
// CHECK-NEXT: for (int c0 = 0; c0 < tsteps; c0 += 1) {
// CHECK-NEXT: // vector
// CHECK-NEXT: for (int c1 = 1; c1 < n - 1; c1 += 1)
// CHECK-NEXT: S_0(c0, c1);
// CHECK-NEXT: // vector
// CHECK-NEXT: for (int c1 = 1; c1 < n - 1; c1 += 1)
// CHECK-NEXT: S_1(c0, c1);
// prefix: the interchanged schedule has a parallel loop (j outside): it is kept. (Tiling is
// off so that no band of the test is tiled: a tiled band too would be kept.)
// CHECK: ;; pencilcc schedule 'prefix' after source-order
// CHECK-NEXT: domain:
// CHECK-NEXT: child:
// CHECK-NEXT: mark: "parallel"
// CHECK-NEXT: child:
// CHECK-NEXT: schedule: "[n, m] -> [{ S_0[i, j] -> [(j)] }]"
// RECORD: "source_order": true,
// RECORD-NEXT: "source_order_reason": "the schedule has no tiled band, parallel loop or wavefront",
// RECORD: "source_order": false,
// RECORD-NEXT: "source_order_reason": "",
void jacobi_1d(int tsteps, int n, double A[static const restrict n], double B[static const restrict n])
{
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (int i = 1; i < n - 1; i++)
      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
}

void prefix(int n, int m, double A[static const restrict n][m])
{
  for (int i = 1; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i][j] += A[i - 1][j];
}
