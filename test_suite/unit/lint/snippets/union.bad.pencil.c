/* pencil-union: a PENCIL file declares no union, even one that no PENCIL code uses. */
#include <pencil.h>

union number { int i; float f; }; // EXPECT: pencil-union@1
typedef union { int i; float f; } bits_t; // EXPECT: pencil-union@9
struct tagged { int kind; union { int i; float f; } value; }; // EXPECT: pencil-union@27
union later; // EXPECT: pencil-union@1
struct plain { int x; float y; };

void scale(int n, float A[static const restrict n])
{
    for (int i = 0; i < n; i++)
        A[i] = 2.0f * A[i];
}
