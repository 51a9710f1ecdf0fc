// REJECT: pencil-outline
struct pair { double a, b; };

static double first(struct pair p) { return p.a; }

void fill(int n, double A[16], struct pair p)
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = first(p);
#pragma endscop
}
