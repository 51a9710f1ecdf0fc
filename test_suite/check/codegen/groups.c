// RUN: %pencilcc -O3 --tile-size=0 -fpencil-dump=ast -foptimization-record-file=%t.json -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s
// RUN: filecheck %s --check-prefix=RECORD < %t.json
// RUN: %pencilcc -O3 --disable-pass=codegen -fpencil-dump=ast -Rpass-missed=pencil -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s --check-prefix=OFF
// The final schedule becomes an isl AST, marks as comments above their loops. S_0 and S_1 run
// in the same loop, over the same domain, at the same dates: one call of S_0 runs both. S_2
// has a domain of its own (even i only): it keeps its call, under the guard.
// CHECK: ;; pencilcc ast 'f' after codegen
// CHECK-NEXT: // S_0 runs S_0; S_1
// CHECK-NEXT: // parallel
// CHECK-NEXT: for (int c0 = 0; c0 < n; c0 += 1) {
// CHECK-NEXT: S_0(c0);
// CHECK-NEXT: if (c0 % 2 == 0)
// CHECK-NEXT: S_2(c0);
// CHECK-NEXT: }
// Its record counts the marked loops of the AST.
// RECORD: "parallel_loops": 1,
// RECORD-NEXT: "wavefronts": 0,
// RECORD: "vector_loops": 0,
// Without an AST there is nothing to lower: the host compiler takes the region.
// OFF-NOT: ;; pencilcc ast
// OFF: remark: region in 'f' missed: pass 'codegen' is disabled
void f(int n, double A[static const restrict n], double B[static const restrict n],
       double C[static const restrict n])
{
  for (int i = 0; i < n; i++) {
    B[i] = A[i] + 1.0;
    C[i] = B[i] * 2.0;
    if (i % 2 == 0)
      A[i] = C[i];
  }
}
