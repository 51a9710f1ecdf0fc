/* pencil-variadic: a fixed argument list; variadic C functions are not PENCIL's business. */
#include <pencil.h>
#include <stdarg.h>

PENCIL int add3(int a, int b, int c)
{
    return a + b + c;
}

int sum_c(int count, ...)
{
    va_list ap;
    int s = 0;
    va_start(ap, count);
    for (int i = 0; i < count; i++)
        s += va_arg(ap, int);
    va_end(ap);
    return s;
}
