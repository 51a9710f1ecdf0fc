/* pencil-call: a libc function, a C function without summary, a function pointer. */
#include <pencil.h>

int c_helper(int x)
{
    return x + 1;
}

PENCIL void work(int n, int A[pencil_array n])
{
    int (*fp)(int);
    for (int i = 0; i < n; i++) {
        A[i] = c_helper(A[i]); // EXPECT: pencil-call@16
        A[i] = fp(A[i]); // EXPECT: pencil-call@16
    }
    printf("%d\n", A[0]); // EXPECT: pencil-call@5
}
