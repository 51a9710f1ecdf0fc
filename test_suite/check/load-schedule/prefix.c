// RUN: rm -rf %t.d && %pencilcc -O3 --tile-size=0 -fpencil-save-schedule=%t.d -c %s -o %t.o
// RUN: %pencilcc -O3 -fpencil-load-schedule=%t.d -fpencil-dump=schedule,ast -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s --check-prefix=LOADED
// The saved tree (j outside, parallel; i inside) is the final one: no schedule pass that
// rewrites the tree runs after load-schedule (pack-panels, which only reads it, dumps it as it
// is), and the AST is generated from the file's tree.
// LOADED: ;; pencilcc schedule 'prefix' after load-schedule
// LOADED-NEXT: domain: "[n, m] -> { S_0[i, j] : 0 < i < n and 0 <= j < m }"
// LOADED-NEXT: child:
// LOADED-NEXT: mark: "parallel"
// LOADED-NEXT: child:
// LOADED-NEXT: schedule: "[n, m] -> [{ S_0[i, j] -> [(j)] }]"
// LOADED: ;; pencilcc schedule 'prefix' after pack-panels
// LOADED-NEXT: domain: "[n, m] -> { S_0[i, j] : 0 < i < n and 0 <= j < m }"
// LOADED-NEXT: child:
// LOADED-NEXT: mark: "parallel"
// LOADED-NOT: ;; pencilcc schedule
// LOADED: ;; pencilcc ast 'prefix' after codegen
// LOADED-NEXT: // parallel
// LOADED-NEXT: for (int c0 = 0; c0 < m; c0 += 1)
// RUN: sed -i 's/S_0\[i, j\] -> \[(i)\]/S_0[i, j] -> [(-i)]/' %t.d/prefix.prefix.schedule.yaml
// RUN: { %pencilcc -O3 -fpencil-load-schedule=%t.d -c %s -o %t.o 2>&1 || echo "exit $?"; } \
// RUN:   | filecheck %s --check-prefix=REVERSED
// The i loop carries the dependence A[i - 1][j] -> A[i][j]: reversed, the file is refused.
// REVERSED: error: loaded schedule for region 'prefix' ({{.*}}prefix.prefix.schedule.yaml) violates the flow dependence [n, m] -> { S_0[i, j] -> S_0[i' = 1 + i, j' = j] : {{.*}} } (array 'A': S_0 at prefix.c:[[#LINE:]] then S_0 at prefix.c:[[#LINE]]) [pencil-schedule]
// REVERSED: exit 1
void prefix(int n, int m, double A[static const restrict n][m])
{
  for (int i = 1; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i][j] += A[i - 1][j];
}
