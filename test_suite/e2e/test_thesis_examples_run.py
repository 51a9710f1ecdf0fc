# SPDX-License-Identifier: MIT
"""The thesis's PENCIL examples run, optimized and correct on 1 and 2 threads (issue 8).

test_suite/kernels/thesis/*.c have no `main` (they are the printed fragments,
wrapped in functions). Each program here is an example's text followed by a
driver of ours: a `main` that fills the arrays with small deterministic values,
calls the example's functions with sizes that make its loops run many
iterations, and prints every output array (harness.compare_outputs format).
Where the example only declares a function (summary_bar's foo, summary_fft32's
fft32, independent_inc's inc), a second C file gives a plain-C implementation.

Each program is built by pencilcc -O3 (every region of the example's functions
must be "optimized" in the record) and by gcc -O0, and both must print the same
(rtol=0) with PENCILCC_NUM_THREADS=1 and 2.

What a driver must respect is the example's contract, as the definition states it:
- independent_privatization.c's independent_wrong is not called: it misuses
  `independent` on purpose (the shared `t` carries a dependence), so any result of
  it is legitimate. Its region is still required to be optimized.
- kill.c: after `__pencil_kill(A)` the elements copy_positive does not write are
  dead (undefined), so only A[i] with B[i] > 0 are printed.
- resize.c: the columns r_cols..r_step-1 of `resampled` are killed and never
  written, so only the r_rows x r_cols image is printed; `original` is killed at
  the end and is not printed.
- ivdep.c: `ivdep` allows vector loops, valid for k >= 0 (the thesis): k = 3 and
  k = 0 are called, not k < 0.
- assume_shift.c: both functions are called with m > n (the assumption, and what
  makes the `independent` loop right).
- BFS (bfs.c, independent_bfs_frontier.c): the frontier nodes are visited and have
  the same cost, so the races the `independent` pragma allows are benign.
- independent_inc.c: inc is an atomic increment of a float by 1.0 (a compare and
  exchange loop); the values stay integers, so every order gives the same sums.
"""
from __future__ import annotations

import json
import sys

import pytest

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
INCLUDE = ["-I", str(harness.REPO_ROOT / "include")]
THESIS = harness.KERNELS_DIR / "thesis"

PRINT_HELPERS = r"""
#include <stdio.h>

static void print_ints(const char *name, const int *v, int n)
{
    printf("== %s\n", name);
    for (int i = 0; i < n; i++)
        printf("%d\n", v[i]);
}

static void print_chars(const char *name, const char *v, int n)
{
    printf("== %s\n", name);
    for (int i = 0; i < n; i++)
        printf("%d\n", v[i]);
}

static void print_floats(const char *name, const float *v, int n)
{
    printf("== %s\n", name);
    for (int i = 0; i < n; i++)
        printf("%.17g\n", v[i]);
}
"""

DRIVERS: dict[str, str] = {}
EXTERNAL: dict[str, str] = {}

DRIVERS["assume_convolution"] = r"""
int main(void)
{
    enum { R = 70, C = 90, KR = 5, KC = 7 };
    static float src[R][C], kern[KR][KC], conv[R][C];
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            src[i][j] = (float)((i * 7 + j * 3) % 17 - 8);
    for (int e = 0; e < KR; e++)
        for (int r = 0; r < KC; r++)
            kern[e][r] = (float)((e * 5 + r) % 5 - 2) * 0.5f;
    convolution(R, C, src, KR, KC, kern, conv);
    print_floats("conv", &conv[0][0], R * C);
    /* A 15 x 15 kernel, the largest the assumptions allow, over a smaller image. */
    static float kern15[15][15], conv15[R][C];
    for (int e = 0; e < 15; e++)
        for (int r = 0; r < 15; r++)
            kern15[e][r] = (float)((e * 3 + r * 2) % 7 - 3) * 0.25f;
    convolution(40, 50, (float (*)[50])&src[0][0], 15, 15, kern15, (float (*)[50])&conv15[0][0]);
    print_floats("conv15", &conv15[0][0], 40 * 50);
    return 0;
}
"""

DRIVERS["assume_shift"] = r"""
int main(void)
{
    enum { S = 1200 };
    static int D1[S], D2[S], D3[S];
    for (int i = 0; i < S; i++)
        D1[i] = D2[i] = D3[i] = (i * 37) % 101 - 50;
    foo(500, 501, S, D1);
    foo_independent(500, 700, S, D2);
    foo(300, 900, S, D3);
    print_ints("D1", D1, S);
    print_ints("D2", D2, S);
    print_ints("D3", D3, S);
    return 0;
}
"""

# A graph of N nodes with 1..4 edges each: node i's edges go to i+1, and to spread-out
# nodes; many levels (the chain) and wide frontiers.
GRAPH = r"""
enum { N = 3000, MAXE = 4 * N };
static int edge_start[N], edge_count[N], dst_index[MAXE];

static int make_graph(void)
{
    int e = 0;
    for (int i = 0; i < N; i++) {
        edge_start[i] = e;
        edge_count[i] = 1 + (i * 7) % 4;
        dst_index[e++] = (i + 1) % N;
        for (int k = 1; k < edge_count[i]; k++)
            dst_index[e++] = (i % 97 == 0) ? (i * 31 + k * 1013) % N : (i + k * 3) % N;
    }
    return e;
}
"""

DRIVERS["bfs"] = GRAPH + r"""
int main(void)
{
    int n_edges = make_graph();
    static int cost[MAXE];
    static char front[N], updating[N], visited[N];
    parallel_version(N, edge_start, edge_count, n_edges, dst_index, cost, front, updating, visited, 5, 0);
    print_ints("cost", cost, N);
    print_chars("front", front, N);
    print_chars("updating_front", updating, N);
    print_chars("visited", visited, N);
    parallel_version(N, edge_start, edge_count, n_edges, dst_index, cost, front, updating, visited, 2999, 1);
    print_ints("cost2", cost, N);
    print_chars("visited2", visited, N);
    return 0;
}
"""

DRIVERS["independent_bfs_frontier"] = GRAPH + r"""
int main(void)
{
    int n_edges = make_graph();
    static int frontier[N], visited[N], cost[N], next[N], sizes[N];
    for (int i = 0; i < N; i++) {
        frontier[i] = next[i] = visited[i] = 0;
        cost[i] = -1;
    }
    frontier[11] = visited[11] = 1;
    cost[11] = 0;
    int levels = 0;
    for (;;) {
        expand_frontier(N, n_edges, frontier, edge_start, edge_count, dst_index, visited, cost, next);
        int size = 0;
        for (int i = 0; i < N; i++) {
            if (frontier[i] != 0)
                return 1;  /* expand_frontier clears the frontier */
            if (next[i] == 1) {
                frontier[i] = visited[i] = 1;
                next[i] = 0;
                size++;
            }
        }
        if (size == 0)
            break;
        sizes[levels++] = size;
    }
    print_ints("cost", cost, N);
    print_ints("visited", visited, N);
    print_ints("level_sizes", sizes, levels);
    return 0;
}
"""

DRIVERS["independent_inc"] = r"""
int main(void)
{
    enum { NT = 20000 };
    static float A[256];
    static int t[NT];
    for (int i = 0; i < NT; i++)
        t[i] = (int)(((long)i * i * 7 + i * 3 + 1) % 256);
    for (int k = 0; k < 256; k++)
        A[k] = (float)(k % 5);
    foo(NT, A, t);
    print_floats("A", A, 256);
    return 0;
}
"""
EXTERNAL["independent_inc"] = r"""/* inc (thesis: "provided in a different file"): an atomic A[c] += 1. */
void inc(float *A, int c)
{
    float old, new;
    __atomic_load(&A[c], &old, __ATOMIC_RELAXED);
    do
        new = old + 1.0f;
    while (!__atomic_compare_exchange(&A[c], &old, &new, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}
"""

DRIVERS["independent_privatization"] = r"""
int main(void)
{
    enum { N = 6000 };
    static int A[N], B[N];
    for (int i = 0; i < N; i++) {
        A[i] = -1;
        B[i] = (int)((i * 7919L + 13) % N);  /* a permutation: gcd(7919, N) = 1 */
    }
    /* independent_wrong is not called: its `independent` is wrong on purpose. */
    independent_right(N, A, B);
    print_ints("A", A, N);
    return 0;
}
"""

DRIVERS["ivdep"] = r"""
int main(void)
{
    enum { NA = 5000 };
    static float a[NA], b[NA];
    for (int i = 0; i < NA; i++)
        a[i] = b[i] = (float)(i % 13 - 6);
    shift_scale(NA, NA - 3, 3, 0.5f, a);
    shift_scale(NA, NA, 0, -2.0f, b);
    print_floats("a", a, NA);
    print_floats("b", b, NA);
    return 0;
}
"""

DRIVERS["kill"] = r"""
int main(void)
{
    enum { N = 7000 };
    static int A[N], B[N], written[N];
    int w = 0;
    for (int i = 0; i < N; i++) {
        A[i] = 1000 + i;
        B[i] = (i * 37) % 11 - 5;
    }
    copy_positive(N, A, B);
    /* The elements not written are dead after __pencil_kill(A). */
    for (int i = 0; i < N; i++)
        if (B[i] > 0)
            written[w++] = A[i];
    print_ints("A_written", written, w);
    print_ints("B", B, N);
    return 0;
}
"""

DRIVERS["reduction"] = r"""
int main(void)
{
    enum { N = 8000 };
    static int A[N], B[N], T[N];
    for (int i = 0; i < N; i++) {
        A[i] = (i * 13) % 29 - 14;
        B[i] = -7;
        T[i] = (int)((i * 4001L + 5) % N);  /* a permutation: gcd(4001, N) = 1 */
    }
    int result[1];
    result[0] = sum_and_scatter(N, A, B, T);
    print_ints("result", result, 1);
    print_ints("B", B, N);
    return 0;
}
"""

DRIVERS["resize"] = r"""
int main(void)
{
    enum { ROWS = 60, COLS = 70, STEP = 72, RR = 97, RC = 45, RSTEP = 48 };
    static unsigned char original[ROWS][STEP], resampled[RR][RSTEP], small[23][31];
    static int out[RR * RC];
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < STEP; j++)
            original[i][j] = (unsigned char)((i * 31 + j * 17 + (i * j) % 7) % 256);
    resize_entry(ROWS, COLS, STEP, original, RR, RC, RSTEP, resampled);
    for (int i = 0; i < RR; i++)
        for (int j = 0; j < RC; j++)
            out[i * RC + j] = resampled[i][j];
    print_ints("resampled", out, RR * RC);
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < STEP; j++)
            original[i][j] = (unsigned char)((i * 5 + j * 9) % 256);
    resize_entry(ROWS, COLS, STEP, original, 23, 31, 31, small);
    for (int i = 0; i < 23; i++)
        for (int j = 0; j < 31; j++)
            out[i * 31 + j] = small[i][j];
    print_ints("small", out, 23 * 31);
    return 0;
}
"""

DRIVERS["summary_bar"] = r"""
int main(void)
{
    enum { N = 9000 };
    static int A[N];
    for (int i = 0; i < N; i++)
        A[i] = i % 10;
    bar(N, A);
    bar(N, A);
    print_ints("A", A, N);
    return 0;
}
"""
EXTERNAL["summary_bar"] = r"""/* foo: a running update, each element depends on the one before. */
void foo(int N, int *A)
{
    for (int i = 1; i < N; i++)
        A[i] = (A[i] + A[i - 1] * 3) % 1009;
}
"""

DRIVERS["summary_fft32"] = r"""
int main(void)
{
    enum { NN = 36 };
    static float in[NN][NN][NN];
    for (int i = 0; i < NN; i++)
        for (int j = 0; j < NN; j++)
            for (int k = 0; k < NN; k++)
                in[i][j][k] = (float)((i * 3 + j * 5 + k * 7) % 9 - 4);
    int r[1];
    r[0] = ABF(NN, in);
    print_ints("ABF", r, 1);
    print_floats("in", &in[0][0][0], NN * NN * NN);
    return 0;
}
"""
EXTERNAL["summary_fft32"] = r"""/* fft32: an in-place Walsh-Hadamard transform of in[i][j][0..31] (exact on integers). */
void fft32(int i, int j, int n, float *in)
{
    float *x = in + ((long)i * n + j) * n;
    for (int h = 1; h < 32; h *= 2)
        for (int s = 0; s < 32; s += 2 * h)
            for (int k = s; k < s + h; k++) {
                float a = x[k], b = x[k + h];
                x[k] = a + b;
                x[k + h] = a - b;
            }
}
"""

#: The functions of each program with a region (the example's; not main, nor the
#: external C files): each must be in the record, optimized.
FUNCTIONS = {
    "assume_convolution": {"convolution"},
    "assume_shift": {"foo", "foo_independent"},
    "bfs": {"parallel_version"},
    "independent_bfs_frontier": {"expand_frontier"},
    "independent_inc": {"foo"},
    "independent_privatization": {"foo", "independent_wrong", "independent_right"},
    "ivdep": {"shift_scale"},
    "kill": {"copy_positive"},
    "reduction": {"foo", "sum_and_scatter"},
    "resize": {"resize", "resize_entry"},
    "summary_bar": {"bar"},
    "summary_fft32": {"ABF"},
}


@pytest.mark.parametrize("name", sorted(DRIVERS))
def test_thesis_example_is_optimized_and_correct_on_1_and_2_threads(tmp_path, name):
    main = tmp_path / f"{name}.c"
    main.write_text((THESIS / f"{name}.c").read_text() + PRINT_HELPERS + DRIVERS[name])
    sources = [main]
    if name in EXTERNAL:
        ext = tmp_path / f"{name}_ext.c"
        ext.write_text(EXTERNAL[name])
        sources.append(ext)
    exe, record = tmp_path / "prog", tmp_path / "prog.json"
    harness.build(PENCILCC, sources, exe, [*harness.KERNEL_CFLAGS, *INCLUDE, "-O3",
                                           "-fpencil-thread-min-work=0",
                                           f"-foptimization-record-file={record}"])
    reference = tmp_path / "prog.gcc-O0"
    harness.build(["gcc"], sources, reference, [*harness.KERNEL_CFLAGS, *INCLUDE, "-O0"])
    regions = json.loads(record.read_text())["regions"]
    status = {r["function"]: (r["status"], r["reason"]) for r in regions}
    assert set(status) == FUNCTIONS[name], status
    assert {f: s for f, s in status.items() if s[0] != "optimized"} == {}
    expected = harness.run(reference)
    for threads in (1, 2):
        out = harness.run(exe, env={"PENCILCC_NUM_THREADS": str(threads)})
        assert harness.compare_outputs(expected, out, rtol=0) == [], threads


def test_every_thesis_example_with_a_pencil_region_has_a_driver():
    """The examples without a driver: nonpencil_tree_search (not PENCIL), static_const_restrict
    (a declaration example: bar has no loop and calls foo, only declared), summary_maybe (its foo
    is the non-PENCIL function the summary stands for: it calls printf)."""
    assert {p.stem for p in THESIS.glob("*.c")} - set(DRIVERS) == {
        "nonpencil_tree_search", "static_const_restrict", "summary_maybe"}
