// RUN: %python test_suite/check/replace_schedule.py --after=reduction-jam '[n] -> [{ S_0[i] -> [(-i)] }]' \
// RUN:   -O3 -fpencil-dump=schedule,ast -Rpass-missed=pencil -c %s -o %t.o 2>&1 | filecheck %s
// RUN: %python test_suite/check/replace_schedule.py --after=reduction-jam '[n] -> [{ S_0[i] -> [(-i)] }]' \
// RUN:   -O3 --disable-pass=verify-schedule -fpencil-dump=ast -c %s -o %t.o 2>&1 \
// RUN:   | filecheck %s --check-prefix=OFF
// Fault injection (replace_schedule.py stands in for a broken schedule pass): the loop is
// reversed, which breaks the flow dependence A[i - 1] -> A[i]. The pass finds it, puts the
// source order back and says why.
// CHECK: ;; pencilcc schedule 'rec' after reduction-jam
// CHECK: schedule: "[n] -> [{ S_0[i] -> [(-i)] }]"
// CHECK: ;; pencilcc schedule 'rec' after verify-schedule
// CHECK-NEXT: domain: "[n] -> { S_0[i] : 0 < i < n }"
// CHECK-NEXT: child:
// CHECK-NEXT: schedule: "[n] -> [{ S_0[i] -> [(i)] }]"
// CHECK: ;; pencilcc ast 'rec' after codegen
// CHECK-NEXT: for (int c0 = 1; c0 < n; c0 += 1)
// CHECK-NEXT: S_0(c0);
// CHECK: remark: region in 'rec' partly missed: invalid schedule replaced by the original one: dependence broken: [n] -> { S_0[i] -> S_0[i' = 1 + i] : {{.*}}0 < i <= -2 + n }
// Without the pass the reversed loop would be compiled.
// OFF: ;; pencilcc ast 'rec' after codegen
// OFF-NEXT: for (int c0 = -n + 1; c0 < 0; c0 += 1)
// OFF-NEXT: S_0(-c0);
void rec(int n, double A[static const restrict n])
{
  for (int i = 1; i < n; i++)
    A[i] = A[i - 1] * 0.5;
}
