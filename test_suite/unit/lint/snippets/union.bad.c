/* pencil-union: a union directly and inside a struct. */
#include <pencil.h>

union number { int i; float f; };
struct tagged { int kind; union number value; };

PENCIL void f(int n, struct tagged T[pencil_array n]) // EXPECT: pencil-union@36
{
    union number u; // EXPECT: pencil-union@18
    for (int i = 0; i < n; i++) {
        u.i = T[i].kind;
        T[i].kind = u.i + 1;
    }
}
