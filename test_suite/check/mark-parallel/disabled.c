// RUN: %pencilcc -O3 -fno-pencil-parallel -fpencil-dump=ast -c %s -o %t.o 2>&1 | filecheck %s
// RUN: %pencilcc -O3 --disable-pass=mark-parallel -fpencil-dump=ast -c %s -o %t.o 2>&1 | filecheck %s
// CHECK: ;; pencilcc ast 'scale' after codegen
// CHECK-NOT: // parallel
void scale(int n, double A[static const restrict n], double alpha)
{
  for (int i = 0; i < n; i++)
    A[i] *= alpha;
}
