/* pencil-for-step */
#include <pencil.h>

PENCIL void fill(int n, int k, int A[pencil_array n])
{
    for (int i = 0; i < n; i += k) // EXPECT: pencil-for-step@28
        A[i] = 0;
    for (int i = 0; i < n; i = i + 1) // EXPECT: pencil-for-step@28
        A[i] = 1;
    for (int i = 1; i < n; i *= 2) // EXPECT: pencil-for-step@28
        A[i] = 2;
    for (int i = 0; i < n; ) { // EXPECT: pencil-for-step@5
        A[i] = 3;
        i++; // EXPECT: pencil-for-iterator-write@9
    }
}
