// RUN: %pencilcc -O3 -I include --dump-after=contract-scheduled -foptimization-record-file=%t.json -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s
// RUN: filecheck %s --check-prefix=RECORD < %t.json
// RUN: %pencilcc -O3 -I include -fno-pencil-parallel --dump-after=contract-scheduled -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s --check-prefix=SERIAL
// RUN: %pencilcc -O3 -I include -fpencil-target=opencl --dump-after=contract-scheduled -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s --check-prefix=OPENCL
#include <pencil.h>

// blur2: two stages over a scratch array the caller kills. contract-arrays leaves t (in the
// source order every element is live while all of it is written); the scheduler fuses the
// stages, the second shifted by one row, and against that schedule (columns parallel, rows
// in order) an element t[y][x] lives until row y + 1 of the second stage: three rows.
// CHECK: ;; pencilcc scop 'blur2' after contract-scheduled
// CHECK: double t[h][w];  // killed, contracted [mod 3][]
// CHECK: MustWriteAccess :=
// CHECK-NEXT: [h, w] -> { S_0[y, x] -> t[o0, x] : (-y + o0) mod 3 = 0 and 0 <= y < h and 0 <= x < w and 0 <= o0 <= 2 };
// CHECK: Body: t[(y % 3)][x] = (in[y][x] * 2.0);
// CHECK: Body: out[y][x] = ((t[(max((y - 1), 0) % 3)][x] + t[(y % 3)][x]) + t[(min((y + 1), (h - 1)) % 3)][x]);
// CHECK: KillAccess :=
// CHECK-NEXT: [h, w] -> { K_0[] -> t[o0, o1] : 0 <= o0 <= 2 };
// Without threads (SERIAL) the column tiles run in order too: an element of t dies within its
// tile, and t folds onto three rows of a tile's width (contraction inside tiles).
// SERIAL: ;; pencilcc scop 'blur2' after contract-scheduled
// SERIAL: double t[h][w];  // killed, contracted [mod 3][mod 256]
// SERIAL: Body: t[(y % 3)][(x % 256)] = (in[y][x] * 2.0);
void blur2(int h, int w, const double in[static const restrict h][w], double out[static const restrict h][w],
           double t[static const restrict h][w])
{
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      t[y][x] = in[y][x] * 2.0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      out[y][x] = t[max(y - 1, 0)][x] + t[y][x] + t[min(y + 1, h - 1)][x];
  __pencil_kill(t);
}

// pointwise: the second stage reads only what the same iteration of the first wrote, so the
// stages fuse in one band whose outer tile loop is parallel. Run in order, one element of t
// stages fuse in one band (the row loop parallel, the column loop a vector loop). Were the
// rows run in order, one row of t would do (t[0][x]); on threads every row is live at once,
// and with the vector loop every element: not contracted (the record says why).
// CHECK: ;; pencilcc scop 'pointwise' after contract-scheduled
// CHECK: double t[h][w];  // killed
// CHECK-NOT: contracted
// CHECK: Body: t[y][x] = (in[y][x] * 2.0);
// OPENCL: ;; pencilcc scop 'pointwise' after contract-scheduled
// OPENCL: double t[h][w];  // killed
// OPENCL-NOT: contracted
// OPENCL: Body: t[y][x] = (in[y][x] * 2.0);
void pointwise(int h, int w, const double in[static const restrict h][w], double out[static const restrict h][w],
            double t[static const restrict h][w])
{
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      t[y][x] = in[y][x] * 2.0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      out[y][x] = t[y][x] + in[y][x];
  __pencil_kill(t);
}
// RECORD: "function": "blur2"
// RECORD: "array": "t",
// RECORD-NEXT: "bytes_before": "",
// RECORD: "why_not": "its conflict set spans every dimension: no dimension folds",
// RECORD: "array": "t",
// RECORD-NEXT: "bytes_before": "8 * h * w",
// RECORD-NEXT: "bytes_after": "24 * w",
// RECORD-NEXT: "technique": "contract-scheduled",
// RECORD: "mapping": "t[a0 mod 3][a1]"
// RECORD: "function": "pointwise"
// RECORD: "array": "t",
// RECORD: "why_not": "its conflict set spans every dimension: no dimension folds",
// RECORD: "array": "t",
// RECORD-NEXT: "bytes_before": "",
// RECORD-NEXT: "bytes_after": "",
// RECORD-NEXT: "technique": "",
// RECORD-NEXT: "why_not": "
