// RUN: %pencilcc -O3 --dump-after=index-set-split -c %s -o %t.o 2>&1 | filecheck %s
// Floyd-Warshall: row k is written at i = k and read by every row of the same k, column k at
// j = k. The statement is cut at both planes into 3 x 3 pieces (i < k, i = k, i > k times
// the same for j), in the source order: j's loop is cut inside i's pieces.
// CHECK: ;; pencilcc scop 'fw' after index-set-split
// CHECK: S_0
// CHECK-NEXT: Domain :=
// CHECK-NEXT: [n] -> { S_0[k, i, j] : 0 <= k < n and 0 <= i < k and i < n and 0 <= j < k and j < n };
// CHECK: S_1
// CHECK-NEXT: Domain :=
// CHECK-NEXT: [n] -> { S_1[k, i = k, j] : 0 <= k < n and 0 <= j < k and j < n };
// CHECK: S_4
// CHECK-NEXT: Domain :=
// CHECK-NEXT: [n] -> { S_4[k, i = k, j = k] : 0 <= k < n };
// CHECK: S_8
// CHECK-NEXT: Domain :=
// CHECK-NEXT: [n] -> { S_8[k, i, j] : 0 <= k < n and i > k and 0 <= i < n and j > k and 0 <= j < n };
// CHECK-NOT: S_9
// CHECK: Body: path[i][j] =
// Matrix product: its self-dependences (over k) pivot on no plane; the statement stays whole.
// CHECK: ;; pencilcc scop 'mm' after index-set-split
// CHECK: S_0
// CHECK-NEXT: Domain :=
// CHECK-NEXT: [n] -> { S_0[i, j, k] : 0 <= i < n and 0 <= j < n and 0 <= k < n };
// CHECK-NOT: S_1
// CHECK: Schedule tree:
void fw(int n, int path[static const restrict n][n])
{
  for (int k = 0; k < n; k++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        path[i][j] = path[i][j] < path[i][k] + path[k][j] ? path[i][j] : path[i][k] + path[k][j];
}

void mm(int n, double C[static const restrict n][n], double A[static const restrict n][n],
        double B[static const restrict n][n])
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
}
