/* pencil-goto: break, continue and while loops are PENCIL (thesis 4.2.2 v, "the same as in C99"). */
#include <pencil.h>

PENCIL void first_negative(int n, int A[pencil_array n], int R[pencil_array 1])
{
    int found = -1;
    int k = 0;
    while (k < n && found < 0) {
        if (A[k] < 0)
            found = k;
        k = k + 1;
    }
    for (int i = 0; i < n; i++) {
        if (A[i] == 0)
            continue;
        if (A[i] < 0)
            break;
    }
    R[0] = found;
}

void c_code(int n)
{
    if (n > 0)
        goto done;
done:
    return;
}
