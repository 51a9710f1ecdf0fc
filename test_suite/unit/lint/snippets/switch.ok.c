/* pencil-switch: an if/else chain in PENCIL; switch in C code. */
#include <pencil.h>

PENCIL void classify(int n, int A[pencil_array n])
{
    for (int i = 0; i < n; i++) {
        if (A[i] == 0)
            A[i] = 10;
        else if (A[i] == 1)
            A[i] = 20;
        else
            A[i] = 30;
    }
}

int c_code(int x)
{
    switch (x) {
    case 0: return 1;
    default: return 2;
    }
}
