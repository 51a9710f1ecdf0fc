/* pencil-summary-builtin: summary builtins in executed PENCIL code. */
#include <pencil.h>

PENCIL void run(int n, int A[pencil_array n])
{
    for (int i = 0; i < n; i++) {
        __pencil_use(A[i]); // EXPECT: pencil-summary-builtin@9
        if (__pencil_maybe()) // EXPECT: pencil-summary-builtin@13
            __pencil_def(A[i]); // EXPECT: pencil-summary-builtin@13
    }
}
