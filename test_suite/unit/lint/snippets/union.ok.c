/* pencil-union: structs are PENCIL types; a union used only by C code is fine. */
#include <pencil.h>

union number { int i; float f; };
struct pixel { unsigned char r, g, b; };

PENCIL void gray(int n, struct pixel P[pencil_array n], unsigned char G[pencil_array n])
{
    for (int i = 0; i < n; i++)
        G[i] = (P[i].r + P[i].g + P[i].b) / 3;
}

float as_float(int bits)
{
    union number u;
    u.i = bits;
    return u.f;
}
