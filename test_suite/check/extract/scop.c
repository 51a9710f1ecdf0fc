// RUN: %pencilcc -O1 -fpencil-dump=scop -c %s -o %t.o 2>&1 | filecheck %s
// CHECK: ;; pencilcc scop 'f' after extract
// CHECK: Context:
// CHECK-NEXT: [n] -> {  : n >= 0 }
// CHECK: Arrays {
// CHECK-NEXT: double A[n];  // live-out
// CHECK-NEXT: double acc;  // local
// CHECK: S_0
// CHECK-NEXT: Domain :=
// CHECK-NEXT: [n] -> { S_0[i] : 0 <= i < n };
// CHECK: MustWriteAccess :=
// CHECK-NEXT: [n] -> { S_0[i] -> acc[] : 0 <= i < n };
// CHECK: Body: acc = A[i];
// CHECK: S_1
// CHECK: Domain :=
// CHECK-NEXT: [n] -> { S_1[i] : (i) mod 2 = 0 and 0 <= i < n };
void f(int n, double A[static const restrict n])
{
  for (int i = 0; i < n; i++) {
    double acc = A[i];
    if (i % 2 == 0)
      A[i] = acc * acc;
  }
}
