/* pencil-summary-signature: a missing summary, a different arity, a different parameter type. */
#include <pencil.h>

void two_summary(int n, double X[pencil_array n]);
void three_summary(int n, float X[pencil_array n][n]);

void one(int n, double *X) __attribute__((pencil_access(missing_summary))); // EXPECT: pencil-summary-signature@43
void two(int n, double *X, double f) __attribute__((pencil_access(two_summary))); // EXPECT: pencil-summary-signature@53
void three(int n, double X[n][n]) __attribute__((pencil_access(three_summary))); // EXPECT: pencil-summary-signature@50
