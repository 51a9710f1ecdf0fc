/* SPDX-License-Identifier: MIT */
/*
 * pencil.h -- language support header for PENCIL (Platform-Neutral Compute
 * Intermediate Language), a C99 subset for polyhedral / accelerator
 * compilation.  Include it from every PENCIL source file.
 *
 * The same header serves two kinds of consumers:
 *
 *  1. A plain C99 compiler (gcc/clang -std=c99 -Wall -Wextra -pedantic).
 *     PENCIL is required to compile with any C99 compiler that understands
 *     GNU attributes, so every extension below degrades to ordinary C:
 *       - __pencil_assume(e), __pencil_kill(x), __pencil_use(x),
 *         __pencil_def(x)  are macros that expand to `(void)sizeof(...)`:
 *         no code is generated and the argument is never evaluated, but the
 *         variables it names count as used (no -Wunused warnings);
 *       - __pencil_assert(e) is a real run-time check that prints a message
 *         and calls abort() (it does not depend on NDEBUG);
 *       - __pencil_maybe() expands to the constant 0 (summary functions are
 *         never executed; the value only has to compile);
 *       - the attributes `pencil` and `pencil_access(f)` expand to nothing,
 *         because gcc warns about unknown attributes (-Wattributes); a
 *         literal `__attribute__((pencil_access(f)))` also works, since
 *         `pencil_access` is a function-like macro that expands to nothing;
 *       - `#pragma pencil ...` lines would trigger -Wunknown-pragmas under
 *         -Wall, so this header switches that single warning off (define
 *         PENCIL_KEEP_PRAGMA_WARNINGS before including it to keep it).
 *
 *  2. pencilcc, which parses with libclang and defines __PENCILCC__.
 *     Under that macro the builtins are *declared as functions* so that the
 *     front end sees genuine CALL_EXPR nodes whose callee is the builtin's
 *     name (it recognises them by name and never calls them):
 *         void __pencil_assume(int);       void __pencil_assert(int);
 *         int  __pencil_maybe(void);
 *         void __pencil_kill();  void __pencil_use();  void __pencil_def();
 *     The last three are polymorphic (they take a variable, an array
 *     element or a whole array), which C99 can only express with a
 *     declaration without prototype `()`; the clang warnings about such
 *     declarations are silenced here.  The attributes become clang
 *     `annotate` attributes, which libclang exposes as ANNOTATE_ATTR
 *     children of the function declaration:
 *         PENCIL            -> __attribute__((annotate("pencil")))
 *         pencil_access(f)  -> annotate("pencil_access(f)")
 *     The math/common/integer builtins keep the same static inline
 *     definitions in both modes.
 *
 * Abbreviations (Section 4.3 of the PENCIL definition):
 *     pencil_array = static const restrict    (float A[pencil_array n][m])
 *     ACCESS(f)    = __attribute__((pencil_access(f)))
 *     CONST        = __attribute__((const))
 *     USE(x) = __pencil_use(x)   DEF(x) = __pencil_def(x)
 *     MAYBE  = __pencil_maybe()
 * GCC rejects attributes placed between the parameter list and the body of
 * a function *definition*; put ACCESS(...) / PENCIL on a prototype.
 *
 * Builtin naming.  PENCIL has no overloading, so each OpenCL builtin gets one
 * C function per argument type, distinguished by a prefix:
 *     b = signed char   s = short   (none) = int   l = long
 *     ub, us, u, ul     = the unsigned versions of the above
 * e.g. bmax, smax, max, lmax, ubmax, usmax, umax, ulmax.  For functions that
 * also exist for floating point the C99 <math.h> convention applies: an `f`
 * prefix for double and an additional `f` suffix for float (fmax / fmaxf,
 * fmin / fminf, fabs / fabsf, fclamp / fclampf).  Functions that OpenCL only
 * defines for floating point (mix, sign, step, rsqrt, ...) follow the
 * sin / sinf convention: plain name for double, `f` suffix for float.
 * Every function of C99 <math.h> (sqrt, exp, log, pow, sin, cos, tan, floor,
 * ceil, fmin, fmax, hypot, atan2, ... and their `f` variants) is a PENCIL
 * builtin and is taken from <math.h> unchanged; int `abs` and long `labs`
 * come from <stdlib.h>.  Link with -lm.
 */
#ifndef PENCIL_H
#define PENCIL_H

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ------------------------------------------------------------------------ */
/* Diagnostics: `#pragma pencil` is unknown to C compilers.                 */
/* ------------------------------------------------------------------------ */
#if defined(__GNUC__) && !defined(PENCIL_KEEP_PRAGMA_WARNINGS)
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#endif

/* ------------------------------------------------------------------------ */
/* Array parameter qualifiers.                                               */
/* ------------------------------------------------------------------------ */
/* pencil_array: mandatory qualifiers of every array parameter. */
#define pencil_array static const restrict

/* ------------------------------------------------------------------------ */
/* Function attributes and their abbreviations.                              */
/* ------------------------------------------------------------------------ */
#ifdef __PENCILCC__
/* pencil_access(f): names the summary function f (kept for libclang). */
#define pencil_access(f) annotate("pencil_access(" #f ")")
/* PENCIL: marks a function as PENCIL code (kept for libclang). */
#define PENCIL __attribute__((annotate("pencil")))
#else
/* pencil_access(f): ignored by plain C compilers. */
#define pencil_access(f)
/* PENCIL: ignored by plain C compilers. */
#define PENCIL
#endif
/* ACCESS(f): the function's memory accesses are described by summary f. */
#define ACCESS(f) __attribute__((pencil_access(f)))
/* CONST: the GCC `const` attribute (no side effects, reads only its args). */
#define CONST __attribute__((const))

/* ------------------------------------------------------------------------ */
/* __pencil_* builtins.                                                      */
/* ------------------------------------------------------------------------ */
#ifdef __PENCILCC__

#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wstrict-prototypes"
#endif
/* __pencil_assume(e): the optimiser may assume e holds; no code. */
void __pencil_assume(int expression);
/* __pencil_assert(e): run-time check of e. */
void __pencil_assert(int expression);
/* __pencil_maybe(): unknown boolean, guards may-writes in summaries. */
int __pencil_maybe(void);
/* __pencil_kill(x): the value of x (scalar, element or array) is dead. */
void __pencil_kill();
/* __pencil_use(x): x is read (summary functions). */
void __pencil_use();
/* __pencil_def(x): x is written (summary functions). */
void __pencil_def();
#if defined(__clang__)
#pragma clang diagnostic pop
#if defined(__has_warning)
#if __has_warning("-Wdeprecated-non-prototype")
#pragma clang diagnostic ignored "-Wdeprecated-non-prototype"
#endif
#endif
#endif

#else /* plain C compiler */

/* __pencil_assume(e): no code; the argument is not evaluated. */
#define __pencil_assume(e) ((void)sizeof((e) ? 1 : 0))
/* __pencil_kill(x): no code; the argument is not evaluated. */
#define __pencil_kill(x) ((void)sizeof(&(x)))
/* __pencil_use(x): no code; the argument is not evaluated. */
#define __pencil_use(x) ((void)sizeof(&(x)))
/* __pencil_def(x): no code; the argument is not evaluated. */
#define __pencil_def(x) ((void)sizeof(&(x)))
/* __pencil_maybe(): summary functions never run; any value will do. */
#define __pencil_maybe() 0
/* __pencil_assert(e): checks e at run time, aborts with a message. */
#define __pencil_assert(e) \
    ((e) ? (void)0 : pencil_h_assert_fail_(#e, __FILE__, __LINE__))
static inline void pencil_h_assert_fail_(const char *expr, const char *file,
                                         int line)
{
    fprintf(stderr, "%s:%d: __pencil_assert(%s) failed\n", file, line, expr);
    abort();
}

#endif /* __PENCILCC__ */

/* USE / DEF / MAYBE: abbreviations used in summary functions. */
#define USE(x) __pencil_use(x)
#define DEF(x) __pencil_def(x)
#define MAYBE __pencil_maybe()

/* ======================================================================== */
/* The builtin functions below (OpenCL's integer, common and math functions  */
/* that C99 lacks: max, clamp, mix, step, sign, rsqrt, ...) have plain names */
/* that a program may use for functions of its own.  Such a program defines  */
/* PENCIL_NO_BUILTINS before including this header (or passes               */
/* -DPENCIL_NO_BUILTINS): the language part above stays, these go, and its  */
/* own functions of those names are ordinary functions to pencilcc.         */
/* ======================================================================== */
#ifndef PENCIL_NO_BUILTINS

/* ======================================================================== */
/* Integer builtins (OpenCL integer functions + integer min/max/clamp).      */
/* Each generator below defines one function per type prefix P; the list of */
/* generated names is spelled out in the comment of every family.           */
/* ======================================================================== */

/* Number of value bits of T (all types here have no padding bits). */
#define PENCIL_H_BITS_(T) ((int)(sizeof(T) * CHAR_BIT))

/* Families common to signed and unsigned types.  T is the type, UT its
 * unsigned counterpart, TMIN/TMAX its limits. */
#define PENCIL_H_INT_COMMON_(P, T, UT, TMIN, TMAX)                           \
    /* min, max: smaller / larger argument. */                                \
    static inline T P##min(T x, T y) { return y < x ? y : x; }                \
    static inline T P##max(T x, T y) { return x < y ? y : x; }                \
    /* clamp(x, lo, hi) = min(max(x, lo), hi). */                             \
    static inline T P##clamp(T x, T lo, T hi)                                 \
    {                                                                         \
        return P##min(P##max(x, lo), hi);                                     \
    }                                                                         \
    /* abs_diff: |x - y| without overflow, as the unsigned type. */           \
    static inline UT P##abs_diff(T x, T y)                                    \
    {                                                                         \
        return x > y ? (UT)((UT)x - (UT)y) : (UT)((UT)y - (UT)x);            \
    }                                                                         \
    /* hadd: (x + y) >> 1 without overflow (rounds down). */                  \
    static inline T P##hadd(T x, T y)                                         \
    {                                                                         \
        return (T)((x >> 1) + (y >> 1) + (x & y & 1));                        \
    }                                                                         \
    /* rhadd: (x + y + 1) >> 1 without overflow (rounds up). */               \
    static inline T P##rhadd(T x, T y)                                        \
    {                                                                         \
        return (T)((x >> 1) + (y >> 1) + ((x | y) & 1));                      \
    }                                                                         \
    /* rotate: rotate the bits of x left by n (modulo the width). */          \
    static inline T P##rotate(T x, T n)                                       \
    {                                                                         \
        const int w = PENCIL_H_BITS_(T);                                      \
        UT v = (UT)x;                                                         \
        int s = (int)((UT)n % (UT)w);                                         \
        UT r = s == 0 ? v : (UT)((UT)(v << s) | (UT)(v >> (w - s)));          \
        return (T)r;                                                          \
    }                                                                         \
    /* popcount: number of set bits. */                                       \
    static inline T P##popcount(T x)                                          \
    {                                                                         \
        UT v = (UT)x;                                                         \
        int n = 0;                                                            \
        for (int k = 0; k < PENCIL_H_BITS_(T); k++)                           \
            n += (int)((v >> k) & 1u);                                        \
        return (T)n;                                                          \
    }                                                                         \
    /* clz: number of leading zero bits (the width for 0). */                 \
    static inline T P##clz(T x)                                               \
    {                                                                         \
        UT v = (UT)x;                                                         \
        int n = 0;                                                            \
        for (int k = PENCIL_H_BITS_(T) - 1; k >= 0; k--) {                    \
            if ((v >> k) & 1u)                                                \
                break;                                                        \
            n++;                                                              \
        }                                                                     \
        return (T)n;                                                          \
    }                                                                         \
    /* ctz: number of trailing zero bits (the width for 0). */                \
    static inline T P##ctz(T x)                                               \
    {                                                                         \
        UT v = (UT)x;                                                         \
        int n = 0;                                                            \
        for (int k = 0; k < PENCIL_H_BITS_(T); k++) {                         \
            if ((v >> k) & 1u)                                                \
                break;                                                        \
            n++;                                                              \
        }                                                                     \
        return (T)n;                                                          \
    }

/* Saturating add/sub for signed types. */
#define PENCIL_H_INT_SAT_SIGNED_(P, T, TMIN, TMAX)                           \
    /* add_sat: x + y saturated to [TMIN, TMAX]. */                           \
    static inline T P##add_sat(T x, T y)                                      \
    {                                                                         \
        T r;                                                                  \
        if (y > 0 && x > TMAX - y)                                            \
            r = TMAX;                                                         \
        else if (y < 0 && x < TMIN - y)                                       \
            r = TMIN;                                                         \
        else                                                                  \
            r = (T)(x + y);                                                   \
        return r;                                                             \
    }                                                                         \
    /* sub_sat: x - y saturated to [TMIN, TMAX]. */                           \
    static inline T P##sub_sat(T x, T y)                                      \
    {                                                                         \
        T r;                                                                  \
        if (y < 0 && x > TMAX + y)                                            \
            r = TMAX;                                                         \
        else if (y > 0 && x < TMIN + y)                                       \
            r = TMIN;                                                         \
        else                                                                  \
            r = (T)(x - y);                                                   \
        return r;                                                             \
    }

/* Saturating add/sub for unsigned types. */
#define PENCIL_H_INT_SAT_UNSIGNED_(P, T, TMAX)                               \
    /* add_sat: x + y saturated to TMAX. */                                   \
    static inline T P##add_sat(T x, T y)                                      \
    {                                                                         \
        T r = (T)(x + y);                                                     \
        return r < x ? (T)TMAX : r;                                           \
    }                                                                         \
    /* sub_sat: x - y saturated to 0. */                                      \
    static inline T P##sub_sat(T x, T y)                                      \
    {                                                                         \
        return x > y ? (T)(x - y) : (T)0;                                     \
    }

/* mul_hi / mad_hi through a type WT at least twice as wide as T. */
#define PENCIL_H_INT_MULHI_WIDE_(P, T, UT, WT)                               \
    /* mul_hi: high half of the double-width product x * y. */                \
    static inline T P##mul_hi(T x, T y)                                       \
    {                                                                         \
        return (T)(((WT)x * (WT)y) >> PENCIL_H_BITS_(T));                     \
    }                                                                         \
    /* mad_hi: mul_hi(x, y) + z (wrapping). */                                \
    static inline T P##mad_hi(T x, T y, T z)                                  \
    {                                                                         \
        return (T)((UT)P##mul_hi(x, y) + (UT)z);                              \
    }

/* mad_sat through a wider type WT, signed T. */
#define PENCIL_H_INT_MADSAT_SIGNED_(P, T, WT, TMIN, TMAX)                    \
    /* mad_sat: x * y + z saturated to [TMIN, TMAX]. */                       \
    static inline T P##mad_sat(T x, T y, T z)                                 \
    {                                                                         \
        WT r = (WT)x * (WT)y + (WT)z;                                         \
        return r > (WT)TMAX ? (T)TMAX : r < (WT)TMIN ? (T)TMIN : (T)r;        \
    }

/* mad_sat through a wider type WT, unsigned T. */
#define PENCIL_H_INT_MADSAT_UNSIGNED_(P, T, WT, TMAX)                        \
    /* mad_sat: x * y + z saturated to TMAX. */                               \
    static inline T P##mad_sat(T x, T y, T z)                                 \
    {                                                                         \
        WT r = (WT)x * (WT)y + (WT)z;                                         \
        return r > (WT)TMAX ? (T)TMAX : (T)r;                                 \
    }

/* Instantiate every family for signed type T (prefix P). */
#define PENCIL_H_INT_SIGNED_(P, T, UT, TMIN, TMAX)                           \
    PENCIL_H_INT_COMMON_(P, T, UT, TMIN, TMAX)                                \
    PENCIL_H_INT_SAT_SIGNED_(P, T, TMIN, TMAX)

/* Instantiate every family for unsigned type T (prefix P). */
#define PENCIL_H_INT_UNSIGNED_(P, T, TMAX)                                   \
    PENCIL_H_INT_COMMON_(P, T, T, 0, TMAX)                                    \
    PENCIL_H_INT_SAT_UNSIGNED_(P, T, TMAX)

/*
 * Generated integer builtins, for each prefix P in {b, s, (none), l, ub, us,
 * u, ul}:  P min, P max, P clamp, P abs_diff, P hadd, P rhadd, P rotate,
 * P popcount, P clz, P ctz, P add_sat, P sub_sat, P mul_hi, P mad_hi,
 * P mad_sat (e.g. bmin smin min lmin ubmin usmin umin ulmin).
 */
PENCIL_H_INT_SIGNED_(b, signed char, unsigned char, SCHAR_MIN, SCHAR_MAX)
PENCIL_H_INT_SIGNED_(s, short, unsigned short, SHRT_MIN, SHRT_MAX)
PENCIL_H_INT_SIGNED_(, int, unsigned int, INT_MIN, INT_MAX)
PENCIL_H_INT_SIGNED_(l, long, unsigned long, LONG_MIN, LONG_MAX)
PENCIL_H_INT_UNSIGNED_(ub, unsigned char, UCHAR_MAX)
PENCIL_H_INT_UNSIGNED_(us, unsigned short, USHRT_MAX)
PENCIL_H_INT_UNSIGNED_(u, unsigned int, UINT_MAX)
PENCIL_H_INT_UNSIGNED_(ul, unsigned long, ULONG_MAX)

/* mul_hi / mad_hi for the types narrower than long long. */
PENCIL_H_INT_MULHI_WIDE_(b, signed char, unsigned char, long long)
PENCIL_H_INT_MULHI_WIDE_(s, short, unsigned short, long long)
PENCIL_H_INT_MULHI_WIDE_(, int, unsigned int, long long)
PENCIL_H_INT_MULHI_WIDE_(ub, unsigned char, unsigned char, unsigned long long)
PENCIL_H_INT_MULHI_WIDE_(us, unsigned short, unsigned short,
                         unsigned long long)
PENCIL_H_INT_MULHI_WIDE_(u, unsigned int, unsigned int, unsigned long long)

/* mad_sat for the types narrower than long long. */
PENCIL_H_INT_MADSAT_SIGNED_(b, signed char, long long, SCHAR_MIN, SCHAR_MAX)
PENCIL_H_INT_MADSAT_SIGNED_(s, short, long long, SHRT_MIN, SHRT_MAX)
PENCIL_H_INT_MADSAT_SIGNED_(, int, long long, INT_MIN, INT_MAX)
PENCIL_H_INT_MADSAT_UNSIGNED_(ub, unsigned char, unsigned long long, UCHAR_MAX)
PENCIL_H_INT_MADSAT_UNSIGNED_(us, unsigned short, unsigned long long,
                              USHRT_MAX)
PENCIL_H_INT_MADSAT_UNSIGNED_(u, unsigned int, unsigned long long, UINT_MAX)

/* ulmul_hi: high half of a full unsigned long product, by half-words. */
static inline unsigned long ulmul_hi(unsigned long x, unsigned long y)
{
    const int h = PENCIL_H_BITS_(unsigned long) / 2;
    const unsigned long mask = (1UL << h) - 1UL;
    unsigned long x0 = x & mask, x1 = x >> h;
    unsigned long y0 = y & mask, y1 = y >> h;
    unsigned long p00 = x0 * y0, p01 = x0 * y1;
    unsigned long p10 = x1 * y0, p11 = x1 * y1;
    unsigned long mid = (p00 >> h) + (p01 & mask) + (p10 & mask);
    return p11 + (p01 >> h) + (p10 >> h) + (mid >> h);
}

/* lmul_hi: high half of a full signed long product (two's complement). */
static inline long lmul_hi(long x, long y)
{
    unsigned long ux = x < 0 ? 0UL - (unsigned long)x : (unsigned long)x;
    unsigned long uy = y < 0 ? 0UL - (unsigned long)y : (unsigned long)y;
    unsigned long hi = ulmul_hi(ux, uy);
    unsigned long lo = ux * uy;
    if ((x < 0) != (y < 0))
        hi = ~hi + (lo == 0UL ? 1UL : 0UL);
    return (long)hi;
}

/* lmad_hi, ulmad_hi: mul_hi(x, y) + z (wrapping). */
static inline long lmad_hi(long x, long y, long z)
{
    return (long)((unsigned long)lmul_hi(x, y) + (unsigned long)z);
}
static inline unsigned long ulmad_hi(unsigned long x, unsigned long y,
                                     unsigned long z)
{
    return ulmul_hi(x, y) + z;
}

/* ulmad_sat: x * y + z saturated to ULONG_MAX. */
static inline unsigned long ulmad_sat(unsigned long x, unsigned long y,
                                      unsigned long z)
{
    unsigned long lo = x * y;
    unsigned long r = lo + z;
    return (ulmul_hi(x, y) != 0UL || r < lo) ? ULONG_MAX : r;
}

/* lmad_sat: x * y + z saturated to [LONG_MIN, LONG_MAX]. */
static inline long lmad_sat(long x, long y, long z)
{
    const int w = PENCIL_H_BITS_(long);
    /* Exact sum as a two-word two's complement number (hi:lo). */
    unsigned long lo = (unsigned long)x * (unsigned long)y;
    unsigned long hi = (unsigned long)lmul_hi(x, y);
    unsigned long rlo = lo + (unsigned long)z;
    unsigned long rhi = hi + (z < 0 ? ULONG_MAX : 0UL) + (rlo < lo);
    unsigned long ext = (rlo >> (w - 1)) ? ULONG_MAX : 0UL;
    long r;
    if (rhi == ext)
        r = rlo > (unsigned long)LONG_MAX ? -(long)(~rlo) - 1L : (long)rlo;
    else
        r = (rhi >> (w - 1)) ? LONG_MIN : LONG_MAX;
    return r;
}

/* abs for char/short: babs, sabs (unsigned result, as in OpenCL); int `abs`
 * and long `labs` are the C99 <stdlib.h> functions. */
static inline unsigned char babs(signed char x)
{
    return x < 0 ? (unsigned char)(0u - (unsigned)x) : (unsigned char)x;
}
static inline unsigned short sabs(short x)
{
    return x < 0 ? (unsigned short)(0u - (unsigned)x) : (unsigned short)x;
}
/* abs for unsigned types: ubabs, usabs, uabs, ulabs (identity). */
static inline unsigned char ubabs(unsigned char x) { return x; }
static inline unsigned short usabs(unsigned short x) { return x; }
static inline unsigned int uabs(unsigned int x) { return x; }
static inline unsigned long ulabs(unsigned long x) { return x; }

/* mul24, umul24: x * y for operands that fit in 24 bits. */
static inline int mul24(int x, int y) { return x * y; }
static inline unsigned int umul24(unsigned int x, unsigned int y)
{
    return x * y;
}
/* mad24, umad24: x * y + z for operands that fit in 24 bits. */
static inline int mad24(int x, int y, int z) { return x * y + z; }
static inline unsigned int umad24(unsigned int x, unsigned int y,
                                  unsigned int z)
{
    return x * y + z;
}

/* ======================================================================== */
/* Common builtins (OpenCL common functions) for double and float.         */
/* fmin/fminf, fmax/fmaxf and fabs/fabsf are the <math.h> functions.        */
/* ======================================================================== */

/* fclamp, fclampf: fmin(fmax(x, lo), hi). */
static inline double fclamp(double x, double lo, double hi)
{
    return fmin(fmax(x, lo), hi);
}
static inline float fclampf(float x, float lo, float hi)
{
    return fminf(fmaxf(x, lo), hi);
}

/* degrees, degreesf: radians to degrees. */
static inline double degrees(double r)
{
    return r * (180.0 / 3.14159265358979323846);
}
static inline float degreesf(float r)
{
    return r * (float)(180.0 / 3.14159265358979323846);
}

/* radians, radiansf: degrees to radians. */
static inline double radians(double d)
{
    return d * (3.14159265358979323846 / 180.0);
}
static inline float radiansf(float d)
{
    return d * (float)(3.14159265358979323846 / 180.0);
}

/* mix, mixf: linear blend x + (y - x) * a. */
static inline double mix(double x, double y, double a)
{
    return x + (y - x) * a;
}
static inline float mixf(float x, float y, float a) { return x + (y - x) * a; }

/* step, stepf: 0 if x < edge, else 1. */
static inline double step(double edge, double x)
{
    return x < edge ? 0.0 : 1.0;
}
static inline float stepf(float edge, float x)
{
    return x < edge ? 0.0f : 1.0f;
}

/* smoothstep, smoothstepf: Hermite interpolation between two edges. */
static inline double smoothstep(double edge0, double edge1, double x)
{
    double t = fclamp((x - edge0) / (edge1 - edge0), 0.0, 1.0);
    return t * t * (3.0 - 2.0 * t);
}
static inline float smoothstepf(float edge0, float edge1, float x)
{
    float t = fclampf((x - edge0) / (edge1 - edge0), 0.0f, 1.0f);
    return t * t * (3.0f - 2.0f * t);
}

/* sign, signf: 1 if x > 0, -1 if x < 0, x itself for +-0, 0 for NaN. */
static inline double sign(double x)
{
    return x > 0.0 ? 1.0 : x < 0.0 ? -1.0 : x == x ? x : 0.0;
}
static inline float signf(float x)
{
    return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : x == x ? x : 0.0f;
}

/* ======================================================================== */
/* Math builtins (OpenCL math functions) not provided by C99 <math.h>.      */
/* ======================================================================== */

/* mad, madf: a * b + c (may be contracted; not required to be fused). */
static inline double mad(double a, double b, double c) { return a * b + c; }
static inline float madf(float a, float b, float c) { return a * b + c; }

/* maxmag, maxmagf: argument of larger magnitude (fmax on ties). */
static inline double maxmag(double x, double y)
{
    double ax = fabs(x), ay = fabs(y);
    return ax > ay ? x : ay > ax ? y : fmax(x, y);
}
static inline float maxmagf(float x, float y)
{
    float ax = fabsf(x), ay = fabsf(y);
    return ax > ay ? x : ay > ax ? y : fmaxf(x, y);
}

/* minmag, minmagf: argument of smaller magnitude (fmin on ties). */
static inline double minmag(double x, double y)
{
    double ax = fabs(x), ay = fabs(y);
    return ax < ay ? x : ay < ax ? y : fmin(x, y);
}
static inline float minmagf(float x, float y)
{
    float ax = fabsf(x), ay = fabsf(y);
    return ax < ay ? x : ay < ax ? y : fminf(x, y);
}

/*
 * The following OpenCL math names were later adopted by C23 (and some by GNU
 * <math.h>), so a C library may or may not declare them, depending on its
 * version and on the feature macros in force (-std=c2x, _GNU_SOURCE,
 * __STDC_WANT_IEC_60559_FUNCS_EXT__).  To work in every case:
 *  - for a plain C compiler the functions are defined under private names
 *    (pencil_h_rsqrt_, ...) and the public name is a function-like macro
 *    that forwards to them, so they never clash with a libc declaration;
 *  - under __PENCILCC__ they are defined under their public names (so that
 *    libclang shows calls to `rsqrt` etc.) unless the C23/GNU feature macros
 *    are set, in which case <math.h> is expected to declare them.
 * Names: rsqrt exp10 pown powr rootn sinpi cospi tanpi asinpi acospi atanpi
 * atan2pi, each with an `f`-suffixed float version.
 */
#if !defined(__PENCILCC__)
#define PENCIL_H_C23_(name) pencil_h_##name##_
#define PENCIL_H_C23_DEFINE_ 1
#elif !(defined(__STDC_VERSION__) && __STDC_VERSION__ > 201710L) &&         \
    !defined(_GNU_SOURCE) && !defined(__STDC_WANT_IEC_60559_FUNCS_EXT__)
#define PENCIL_H_C23_(name) name
#define PENCIL_H_C23_DEFINE_ 1
#endif

#ifdef PENCIL_H_C23_DEFINE_

#define PENCIL_H_PI_ 3.14159265358979323846

/* rsqrt, rsqrtf: 1 / sqrt(x). */
static inline double PENCIL_H_C23_(rsqrt)(double x) { return 1.0 / sqrt(x); }
static inline float PENCIL_H_C23_(rsqrtf)(float x) { return 1.0f / sqrtf(x); }

/* exp10, exp10f: 10 to the power x. */
static inline double PENCIL_H_C23_(exp10)(double x) { return pow(10.0, x); }
static inline float PENCIL_H_C23_(exp10f)(float x) { return powf(10.0f, x); }

/* pown, pownf: x to the integer power n. */
static inline double PENCIL_H_C23_(pown)(double x, int n)
{
    return pow(x, (double)n);
}
static inline float PENCIL_H_C23_(pownf)(float x, int n)
{
    return powf(x, (float)n);
}

/* powr, powrf: x to the power y for x >= 0 (NaN for x < 0). */
static inline double PENCIL_H_C23_(powr)(double x, double y)
{
    return x < 0.0 ? (double)NAN : pow(x, y);
}
static inline float PENCIL_H_C23_(powrf)(float x, float y)
{
    return x < 0.0f ? NAN : powf(x, y);
}

/* rootn, rootnf: the n-th root of x (odd roots of negative x allowed). */
static inline double PENCIL_H_C23_(rootn)(double x, int n)
{
    double r;
    if (x < 0.0 && (n & 1))
        r = -pow(-x, 1.0 / (double)n);
    else
        r = pow(x, 1.0 / (double)n);
    return r;
}
static inline float PENCIL_H_C23_(rootnf)(float x, int n)
{
    float r;
    if (x < 0.0f && (n & 1))
        r = -powf(-x, 1.0f / (float)n);
    else
        r = powf(x, 1.0f / (float)n);
    return r;
}

/* sinpi, sinpif: sin(pi * x). */
static inline double PENCIL_H_C23_(sinpi)(double x)
{
    return sin(PENCIL_H_PI_ * x);
}
static inline float PENCIL_H_C23_(sinpif)(float x)
{
    return sinf((float)PENCIL_H_PI_ * x);
}

/* cospi, cospif: cos(pi * x). */
static inline double PENCIL_H_C23_(cospi)(double x)
{
    return cos(PENCIL_H_PI_ * x);
}
static inline float PENCIL_H_C23_(cospif)(float x)
{
    return cosf((float)PENCIL_H_PI_ * x);
}

/* tanpi, tanpif: tan(pi * x). */
static inline double PENCIL_H_C23_(tanpi)(double x)
{
    return tan(PENCIL_H_PI_ * x);
}
static inline float PENCIL_H_C23_(tanpif)(float x)
{
    return tanf((float)PENCIL_H_PI_ * x);
}

/* asinpi, asinpif: asin(x) / pi. */
static inline double PENCIL_H_C23_(asinpi)(double x)
{
    return asin(x) / PENCIL_H_PI_;
}
static inline float PENCIL_H_C23_(asinpif)(float x)
{
    return asinf(x) / (float)PENCIL_H_PI_;
}

/* acospi, acospif: acos(x) / pi. */
static inline double PENCIL_H_C23_(acospi)(double x)
{
    return acos(x) / PENCIL_H_PI_;
}
static inline float PENCIL_H_C23_(acospif)(float x)
{
    return acosf(x) / (float)PENCIL_H_PI_;
}

/* atanpi, atanpif: atan(x) / pi. */
static inline double PENCIL_H_C23_(atanpi)(double x)
{
    return atan(x) / PENCIL_H_PI_;
}
static inline float PENCIL_H_C23_(atanpif)(float x)
{
    return atanf(x) / (float)PENCIL_H_PI_;
}

/* atan2pi, atan2pif: atan2(y, x) / pi. */
static inline double PENCIL_H_C23_(atan2pi)(double y, double x)
{
    return atan2(y, x) / PENCIL_H_PI_;
}
static inline float PENCIL_H_C23_(atan2pif)(float y, float x)
{
    return atan2f(y, x) / (float)PENCIL_H_PI_;
}

#undef PENCIL_H_PI_

#if !defined(__PENCILCC__)
#undef rsqrt
#define rsqrt(x) pencil_h_rsqrt_(x)
#undef rsqrtf
#define rsqrtf(x) pencil_h_rsqrtf_(x)
#undef exp10
#define exp10(x) pencil_h_exp10_(x)
#undef exp10f
#define exp10f(x) pencil_h_exp10f_(x)
#undef pown
#define pown(x, n) pencil_h_pown_(x, n)
#undef pownf
#define pownf(x, n) pencil_h_pownf_(x, n)
#undef powr
#define powr(x, y) pencil_h_powr_(x, y)
#undef powrf
#define powrf(x, y) pencil_h_powrf_(x, y)
#undef rootn
#define rootn(x, n) pencil_h_rootn_(x, n)
#undef rootnf
#define rootnf(x, n) pencil_h_rootnf_(x, n)
#undef sinpi
#define sinpi(x) pencil_h_sinpi_(x)
#undef sinpif
#define sinpif(x) pencil_h_sinpif_(x)
#undef cospi
#define cospi(x) pencil_h_cospi_(x)
#undef cospif
#define cospif(x) pencil_h_cospif_(x)
#undef tanpi
#define tanpi(x) pencil_h_tanpi_(x)
#undef tanpif
#define tanpif(x) pencil_h_tanpif_(x)
#undef asinpi
#define asinpi(x) pencil_h_asinpi_(x)
#undef asinpif
#define asinpif(x) pencil_h_asinpif_(x)
#undef acospi
#define acospi(x) pencil_h_acospi_(x)
#undef acospif
#define acospif(x) pencil_h_acospif_(x)
#undef atanpi
#define atanpi(x) pencil_h_atanpi_(x)
#undef atanpif
#define atanpif(x) pencil_h_atanpif_(x)
#undef atan2pi
#define atan2pi(y, x) pencil_h_atan2pi_(y, x)
#undef atan2pif
#define atan2pif(y, x) pencil_h_atan2pif_(y, x)
#endif /* !__PENCILCC__ */

#undef PENCIL_H_C23_
#undef PENCIL_H_C23_DEFINE_
#endif /* PENCIL_H_C23_DEFINE_ */

#endif /* !PENCIL_NO_BUILTINS */

/* ------------------------------------------------------------------------ */
/* Device data across region calls (-fpencil-target=opencl).                */
/* ------------------------------------------------------------------------ */
/* Host code, not PENCIL: by default every region call uploads again each array
 * its kernels read (the host may have written it since the last call).
 * pencil_keep_device_data(1) declares that from now on the program reports
 * every write the host makes, between region calls, to an array a region uses,
 * with pencil_host_touch(array) after the write; arrays the host did not touch
 * then stay on the device across calls. pencil_keep_device_data(0) goes back to
 * the default. Without the OpenCL runtime (a CPU build, gcc) both do nothing:
 * they call the runtime through weak references, defined only when a program
 * is linked with it. */
#if defined(__PENCILCC__)
void pencil_keep_device_data(int on);
void pencil_host_touch(const void *array);
#else
extern void pencilcc_cl_keep_device_data(int) __attribute__((weak));
extern void pencilcc_cl_host_wrote(const void *) __attribute__((weak));
static inline void pencil_keep_device_data(int on)
{
  if (pencilcc_cl_keep_device_data != 0)
    pencilcc_cl_keep_device_data(on);
}
static inline void pencil_host_touch(const void *array)
{
  if (pencilcc_cl_host_wrote != 0)
    pencilcc_cl_host_wrote(array);
}
#endif

/* Internal generator macros are not part of the interface. */
#undef PENCIL_H_INT_COMMON_
#undef PENCIL_H_INT_SAT_SIGNED_
#undef PENCIL_H_INT_SAT_UNSIGNED_
#undef PENCIL_H_INT_MULHI_WIDE_
#undef PENCIL_H_INT_MADSAT_SIGNED_
#undef PENCIL_H_INT_MADSAT_UNSIGNED_
#undef PENCIL_H_INT_SIGNED_
#undef PENCIL_H_INT_UNSIGNED_
#undef PENCIL_H_BITS_

#endif /* PENCIL_H */
