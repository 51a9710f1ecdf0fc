/* pencil-variadic */
#include <pencil.h>

PENCIL int first(int count, ...) // EXPECT: pencil-variadic@12
{
    return count;
}
