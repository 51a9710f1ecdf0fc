/* pencil-global: a PENCIL file declares only global constants. */
#include <pencil.h>

int counter; // EXPECT: pencil-global@5
const int limit = 4;
extern const double table[4];

void fill(int n, double A[pencil_array n])
{
    for (int i = 0; i < n; i++)
        A[i] = table[i % 4] * limit;
}
