/* pencil-recursion: direct recursion, and mutual recursion between two PENCIL functions. */
#include <pencil.h>

PENCIL int pong(int x);

PENCIL int count_down(int x)
{
    int r = 0;
    if (x > 0)
        r = count_down(x - 1); // EXPECT: pencil-recursion@13
    return r;
}

PENCIL int ping(int x)
{
    int r = 0;
    if (x > 0)
        r = pong(x - 1); // EXPECT: pencil-recursion@13
    return r;
}

PENCIL int pong(int x)
{
    return ping(x); // EXPECT: pencil-recursion@12
}
