/* pencil-switch */
#include <pencil.h>

PENCIL void classify(int n, int A[pencil_array n])
{
    for (int i = 0; i < n; i++) {
        switch (A[i]) { // EXPECT: pencil-switch@9
        case 0:
            A[i] = 10;
            break;
        default:
            A[i] = 30;
        }
    }
}
