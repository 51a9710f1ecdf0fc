/* pencil-bitfield: a bit-field in a parameter's struct and in a nested struct of a local. */
#include <pencil.h>

struct flags { int value; unsigned int dirty : 1; };
struct cell { int id; struct flags state; };

PENCIL void clear(int n, struct flags F[pencil_array n]) // EXPECT: pencil-bitfield@39
{
    struct cell c; // EXPECT: pencil-bitfield@17
    c.id = 0;
    for (int i = 0; i < n; i++)
        F[i].value = c.id;
}
