// REJECT: pencil-goto
int first_negative(int n, int v[16])
{
  int k = -1;
#pragma scop
  for (int i = 0; i < n; i++)
    if (v[i] < 0) { k = i; goto done; }
#pragma endscop
done:
  return k;
}
