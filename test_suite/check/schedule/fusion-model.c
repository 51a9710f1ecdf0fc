// RUN: %pencilcc -O3 -fpencil-dump=ast -foptimization-record-file=%t.json -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s --check-prefix=AUTO
// RUN: filecheck %s --check-prefix=RECORD < %t.json
// RUN: %pencilcc -O3 -fpencil-fusion=max -fpencil-dump=ast -foptimization-record-file=%t.max.json \
// RUN:   -c %s -o %t.o 2>&1 | filecheck %s --check-prefix=MAX
// RUN: filecheck %s --check-prefix=MAXRECORD < %t.max.json
// Two chained matrix products (2mm). Maximal fusion puts the second product inside the first's
// outer loop, in bands that cannot be tiled and with a reduction walking B down a column; the
// fusion model keeps minimal fusion, where each product is a tiled band of its own.
// AUTO: ;; pencilcc ast 'mm2' after codegen
// AUTO: // tile
// AUTO: S_1(
// AUTO: // tile
// AUTO: S_3(
// RECORD: "fusion": "min",
// RECORD-NEXT: "fusion_reason": "fusion model: max: {{[1-9][0-9]*}} strided accesses
// MAX: ;; pencilcc ast 'mm2' after codegen
// MAX-NOT: // tile
// MAXRECORD: "fusion": "max",
// MAXRECORD-NEXT: "fusion_reason": "-fpencil-fusion=max"
void mm2(int ni, int nj, int nk, int nl, double alpha, double beta,
         double tmp[static const restrict ni][nj], double A[static const restrict ni][nk],
         double B[static const restrict nk][nj], double C[static const restrict nj][nl],
         double D[static const restrict ni][nl])
{
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      tmp[i][j] = 0.0;
      for (int k = 0; k < nk; ++k)
        tmp[i][j] += alpha * A[i][k] * B[k][j];
    }
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nl; j++) {
      D[i][j] *= beta;
      for (int k = 0; k < nj; ++k)
        D[i][j] += tmp[i][k] * C[k][j];
    }
}
