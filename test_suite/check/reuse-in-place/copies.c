// RUN: %pencilcc -O3 -I include --dump-after=reuse-in-place -foptimization-record-file=%t.json -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s
// RUN: filecheck %s --check-prefix=RECORD < %t.json
// RUN: %pencilcc -O3 -I include -Rpass=pencil -c %s -o %t.o 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: %pencilcc -O3 -I include -Rpass-missed=pencil -c %s -o %t.o 2>&1 | filecheck %s --check-prefix=MISSED
// fold: the new accumulator is dead after the region (killed): it is stored in acc, the copy
// back (S_1) is an identity and goes, one accumulator is left.
// CHECK: ;; pencilcc scop 'fold' after reuse-in-place
// CHECK: Arrays {
// CHECK-NEXT: double X[p][n];
// CHECK-NEXT: double acc[n];  // live-out
// CHECK-NEXT: }
// CHECK: S_0
// CHECK: MustWriteAccess :=
// CHECK-NEXT: [p, n] -> { S_0[k, j] -> acc[j] : 0 <= k < p and 0 <= j < n };
// CHECK-NEXT: Body: acc[j] = (acc[j] + X[k][j]);
// CHECK-NOT: S_1
// CHECK: Schedule tree:
// shift: B is a new row built from A (A[n-1] copied, the rest averaged with the right
// neighbour), then A dies and B is copied back. In the source order the values would
// survive (A[j + 1] is read before it is overwritten), but B[j] reads A[j + 1], which
// instance j + 1 of the same nest would overwrite once B lived in A: the reuse would order
// the parallel loop (PRA's criterion), so B keeps its memory and the copies stay.
// CHECK: ;; pencilcc scop 'shift' after reuse-in-place
// CHECK: double B[n];  // killed
// CHECK: Body: B[j] = ((A[j] + A[(j + 1)]) * 0.5);
// CHECK: Body: A[j] = B[j];
// live: next is the caller's and read after the region: it keeps its memory.
// CHECK: ;; pencilcc scop 'live' after reuse-in-place
// CHECK: Body: next[j] = (acc[j] * 2.0);
// CHECK: Body: acc[j] = next[j];
// RECORD: "storage": [
// RECORD-NEXT: {
// RECORD-NEXT: "array": "next",
// RECORD-NEXT: "bytes_before": "(n) * 8",
// RECORD-NEXT: "bytes_after": 0,
// RECORD-NEXT: "technique": "in-place-fold",
// RECORD-NEXT: "why_not": "",
// RECORD-NEXT: "into": "acc"
// RECORD: "storage": [
// RECORD-NEXT: {
// RECORD-NEXT: "array": "B",
// RECORD: "technique": "",
// RECORD-NEXT: "why_not": "an instance reads an element of 'A' or 'B' that another instance of the same nest overwrites
// RECORD: "storage": [
// RECORD-NEXT: {
// RECORD-NEXT: "array": "next",
// RECORD: "why_not": "'next' is live after the region (its memory must hold its values)",
// REMARK: remark: region in 'fold': array 'next' stored in the memory of 'acc' (in-place-fold): (n) * 8 bytes before, 0 after
// MISSED: remark: region in 'live': array 'next' keeps its memory: 'next' is live after the region
#include <pencil.h>

void fold(int p, int n, const double X[static const restrict p][n], double acc[static const restrict n],
          double next[static const restrict n])
{
#pragma scop
  for (int k = 0; k < p; k++) {
    for (int j = 0; j < n; j++)
      next[j] = acc[j] + X[k][j];
    for (int j = 0; j < n; j++)
      acc[j] = next[j];
  }
  __pencil_kill(next);
#pragma endscop
}

void shift(int n, double A[static const restrict n], double B[static const restrict n])
{
#pragma scop
  for (int j = 0; j < n; j++)
    if (j == n - 1)
      B[j] = A[j];
    else
      B[j] = (A[j] + A[j + 1]) * 0.5;
  __pencil_kill(A);
  for (int j = 0; j < n; j++)
    A[j] = B[j];
  __pencil_kill(B);
#pragma endscop
}

void live(int n, double acc[static const restrict n], double next[static const restrict n])
{
#pragma scop
  for (int j = 0; j < n; j++)
    next[j] = acc[j] * 2.0;
  for (int j = 0; j < n; j++)
    acc[j] = next[j];
#pragma endscop
}
