/* pencil-bitfield: plain fields are fine; C code may use bit-fields. */
#include <pencil.h>

struct flags { unsigned int dirty : 1; unsigned int locked : 1; };
struct point { int x; int y; };

PENCIL void shift(int n, struct point P[pencil_array n], int dx)
{
    for (int i = 0; i < n; i++)
        P[i].x = P[i].x + dx;
}

int is_dirty(struct flags f)
{
    return f.dirty;
}
