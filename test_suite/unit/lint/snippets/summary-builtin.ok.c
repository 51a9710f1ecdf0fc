/* pencil-summary-builtin: USE, DEF and MAYBE in a summary function. */
#include <pencil.h>

void update_summary(int n, int A[pencil_array n]);
void update(int n, int A[pencil_array n]) ACCESS(update_summary);

void update_summary(int n, int A[pencil_array n])
{
    for (int i = 0; i < n; i++) {
        USE(A[i]);
        if (MAYBE)
            DEF(A[i]);
    }
}

PENCIL void run(int n, int A[pencil_array n])
{
    __pencil_kill(A);
    update(n, A);
}
