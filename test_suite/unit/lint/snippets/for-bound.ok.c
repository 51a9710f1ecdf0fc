/* pencil-for-bound: bounds that the body does not write; the body's own variables shadow. */
#include <pencil.h>

PENCIL void neighbours(int n, int m, int start[pencil_array n], int count[pencil_array n],
                       int E[pencil_array m], int V[pencil_array n])
{
    for (int i = 0; i < n; i++) {
        for (int j = start[i]; j < start[i] + count[i]; j++) {
            int n = E[j];
            n = n + 1;
            V[i] = n;
        }
    }
}
