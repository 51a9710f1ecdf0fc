/* pencil-pointer: every form of pointer manipulation in a PENCIL function. */
#include <pencil.h>

struct node { int value; struct node *next; };
void take(int n, int A[pencil_array n]);

PENCIL int *f(int n, int *p, struct node *list, int A[pencil_array n]) // EXPECT: pencil-pointer@13 pencil-pointer@27 pencil-pointer@43
{
    int s = *p; // EXPECT: pencil-pointer@13
    s += list->value; // EXPECT: pencil-pointer@16
    int *q = &s; // EXPECT: pencil-pointer@10 pencil-pointer@14
    int *r; // declaring a pointer is allowed
    r = A; // EXPECT: pencil-pointer@5
    take(n - 1, A + 1); // EXPECT: pencil-pointer@17
    if (A == 0) // EXPECT: pencil-pointer@9
        s = 0;
    r = (int *)0; // EXPECT: pencil-pointer@5 pencil-pointer@9
    s += r[0]; // EXPECT: pencil-pointer@10
    s += take == 0; // EXPECT: pencil-pointer@10
    A[0] = s;
    return p; // EXPECT: pencil-pointer@12
}
