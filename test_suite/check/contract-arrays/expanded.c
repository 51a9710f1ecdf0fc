// RUN: %pencilcc -O3 -I include --dump-after=contract-arrays -foptimization-record-file=%t.json -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s
// RUN: filecheck %s --check-prefix=RECORD < %t.json
// expanded: a time-expanded 1-D stencil over a scratch array killed after the region. An
// element A[t][i] lives from its write at step t - 1 to its last read at step t, so only rows
// t and t + 1 conflict: the time dimension folds mod 2, every access and the isl relations
// with it, the caller's row stride kept.
// CHECK: ;; pencilcc scop 'expanded' after contract-arrays
// CHECK: double A[tsteps + 1][n];  // killed, contracted [mod 2][]
// CHECK: MustWriteAccess :=
// CHECK-NEXT: [tsteps, n] -> { S_0[i] -> A[0, i] : 0 <= i < n };
// CHECK: Body: A[0][i] = in[i];
// CHECK: MustWriteAccess :=
// CHECK-NEXT: [tsteps, n] -> { S_1[t, i] -> A[o0, i] : (1 + t + o0) mod 2 = 0 and 0 <= t < tsteps and 0 <= i < n and 0 <= o0 <= 1 };
// CHECK: Body: A[((t + 1) % 2)][i] = (((A[(t % 2)][max((i - 1), 0)] + A[(t % 2)][i]) + A[(t % 2)][min((i + 1), (n - 1))]) / 3.0);
// CHECK: Body: out[i] = A[(tsteps % 2)][i];
// CHECK: KillAccess :=
// CHECK-NEXT: [tsteps, n] -> { K_0[] -> A[o0, o1] : 0 <= o0 <= 1 };
// local: a region-local array used the same way is declared with the reduced extent.
// CHECK: ;; pencilcc scop 'local' after contract-arrays
// CHECK: double T[2][16];  // local, killed, contracted [mod 2][]
// CHECK: Body: T[((t + 1) % 2)][i] = (T[(t % 2)][i] * 0.5);
// live_out: without the kill the caller may read every row after the region: not contracted.
// CHECK: ;; pencilcc scop 'live_out' after contract-arrays
// CHECK: double A[tsteps + 1][n];  // live-out
// CHECK-NOT: contracted
// CHECK: Body: A[(t + 1)][i] = (((A[t][(i - 1)] + A[t][i]) + A[t][(i + 1)]) / 3.0);
// RECORD: "storage": [
// RECORD-NEXT: {
// RECORD-NEXT: "array": "A",
// RECORD-NEXT: "bytes_before": "8 * (tsteps + 1) * n",
// RECORD-NEXT: "bytes_after": "16 * n",
// RECORD-NEXT: "technique": "contract",
// RECORD-NEXT: "why_not": "",
// RECORD-NEXT: "into": "",
// RECORD-NEXT: "mapping": "A[a0 mod 2][a1]"
// RECORD: "storage": [
// RECORD-NEXT: {
// RECORD-NEXT: "array": "T",
// RECORD-NEXT: "bytes_before": 1024,
// RECORD-NEXT: "bytes_after": 256,
// RECORD: "storage": [
// RECORD-NEXT: {
// RECORD-NEXT: "array": "A",
// RECORD-NEXT: "bytes_before": "",
// RECORD-NEXT: "bytes_after": "",
// RECORD-NEXT: "technique": "",
// RECORD-NEXT: "why_not": "live-out: its values leave the region"
#include <pencil.h>

void expanded(int tsteps, int n, const double in[static const restrict n], double out[static const restrict n],
              double A[static const restrict tsteps + 1][n])
{
  __pencil_assume(tsteps >= 0);
  for (int i = 0; i < n; i++)
    A[0][i] = in[i];
  for (int t = 0; t < tsteps; t++)
    for (int i = 0; i < n; i++)
      A[t + 1][i] = (A[t][max(i - 1, 0)] + A[t][i] + A[t][min(i + 1, n - 1)]) / 3.0;
  for (int i = 0; i < n; i++)
    out[i] = A[tsteps][i];
  __pencil_kill(A);
}

void local(const double in[static const restrict 16], double out[static const restrict 16])
{
  double T[8][16];
  for (int i = 0; i < 16; i++)
    T[0][i] = in[i];
  for (int t = 0; t < 7; t++)
    for (int i = 0; i < 16; i++)
      T[t + 1][i] = T[t][i] * 0.5;
  for (int i = 0; i < 16; i++)
    out[i] = T[7][i];
}

void live_out(int tsteps, int n, const double in[static const restrict n], double out[static const restrict n],
              double A[static const restrict tsteps + 1][n])
{
  __pencil_assume(tsteps >= 0);
  for (int i = 0; i < n; i++)
    A[0][i] = in[i];
  for (int t = 0; t < tsteps; t++)
    for (int i = 1; i < n - 1; i++)
      A[t + 1][i] = (A[t][i - 1] + A[t][i] + A[t][i + 1]) / 3.0;
  for (int i = 0; i < n; i++)
    out[i] = A[tsteps][i];
}
