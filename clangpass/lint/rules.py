# SPDX-License-Identifier: MIT
"""The PENCIL compliance rules: one `Rule` per concept of the PENCIL definition.

Input: nothing (a static registry). Output: `RULES`, read by the checks (which
report under these ids), by the CLI (`--lint-explain RULE`, `-Wno-RULE`) and by
the user guide's rule table. Every rule cites the part of the PENCIL definition
it enforces (thesis chapter 4, sections 4.2.2 "PENCIL Definition as a Subset of
C99", 4.2.3 "PENCIL Extensions to C99", 4.3 "Detailed Description", and the
EBNF grammar of appendix A). Where the thesis is ambiguous the explanation says
which reading pencilcc chose.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Rule:
    """A PENCIL rule: stable id, one-line title, one-paragraph explanation, severity."""

    id: str
    title: str
    explanation: str
    severity: str = "error"  # 'error' or 'warning' (warnings are promoted by -Werror)
    section: str = ""         # where the thesis states the rule


_RULES = (
    Rule("pencil-global", "no non-const global variables",
         "PENCIL allows global type definitions, function declarations and constants, but no "
         "non-const global variables, so that a PENCIL compiler may assume that PENCIL code has "
         "no side effect on global state. pencilcc reports every non-const global variable "
         "declared in a PENCIL source file and every use of a non-const global variable from "
         "PENCIL code. A non-const `static` local variable keeps its value between calls exactly "
         "like a global (and the PENCIL grammar has no storage class for block variables), so it "
         "is reported under this rule too.", section="4.2.2 i"),
    Rule("pencil-union", "no unions",
         "Unlike C99, PENCIL supports no unions: the type of every parameter, result, local "
         "variable, cast and global used by PENCIL code must not be or contain a union (through "
         "struct fields, array elements or pointed-to types). A PENCIL file (`*.pencil.c`, or any file "
         "under `-x pencil`) may not declare a union at all, even one that no PENCIL code uses.",
         section="4.2.2 iii"),
    Rule("pencil-bitfield", "no bit-fields",
         "Unlike C99, PENCIL supports no bit-fields: no struct type used by PENCIL code (parameters, "
         "results, local variables, casts, globals, and the structs they contain) may declare a "
         "field with a bit width.", section="4.2.2 iii"),
    Rule("pencil-array-param", "array parameters are `static const restrict` (pencil_array)",
         "Array function arguments must be declared with the C99 variable-length array syntax "
         "and with the `static` keyword and the `const` and `restrict` qualifiers in the "
         "outermost brackets, `T A[static const restrict n]` (abbreviated `T A[pencil_array n]`). "
         "`static` lets the compiler rely on the extent, `const` forbids reassigning the array "
         "reference and `restrict` guarantees that distinct arrays do not alias for writes. The "
         "rule applies to the definitions of PENCIL functions and summary functions, and to the "
         "array parameters of an enclosing function that a `#pragma pencil region` uses.",
         section="4.2.2 iii, 4.3.1, 4.3.4 iii"),
    Rule("pencil-pointer", "no pointer manipulation",
         "Pointer declarations are allowed (so that headers of C libraries can be used), but "
         "pointer manipulation is not: no pointer parameters or pointer results in PENCIL "
         "function definitions (arrays are declared with the VLA syntax, `int A[n]` rather than "
         "`int *A`), no dereference (`*p`, `p->f`), no address-of (`&x`), no pointer arithmetic, "
         "no assignment, initialisation or conversion of pointers, no reading of a pointer value "
         "and no function pointers. The one exception is passing an array (or a pointer) as a "
         "whole to a function call, as in `mat_add(C, A, B)`. Summary functions mirror the "
         "signature of the (possibly non-PENCIL) function they describe, so they may have pointer "
         "parameters and may name a dereferenced pointer argument in `__pencil_use` and "
         "`__pencil_def` (section 4.3.2).", section="4.2.2 iii"),
    Rule("pencil-recursion", "no recursion",
         "Function recursion is not allowed in PENCIL, since OpenCL does not support it. pencilcc "
         "builds the call graph of the whole translation unit (PENCIL and C functions alike) and "
         "reports every call made from PENCIL code to a function that can call back, directly or "
         "through other functions, the function that makes the call; a note names the cycle.",
         section="4.2.2 iv, 4.4.3"),
    Rule("pencil-goto", "no goto (and no labels)",
         "`goto` is not allowed in PENCIL: it makes code analyses complicated without any benefit "
         "in expressiveness. Labels, whose only use in C is to be the target of a `goto`, are not "
         "statements of the PENCIL grammar either and are reported under this rule.",
         section="4.2.2 v, appendix A"),
    Rule("pencil-switch", "no switch",
         "`switch` statements are not allowed in PENCIL, for the same reason as `goto`: use "
         "`if`/`else` chains instead.", section="4.2.2 v"),
    Rule("pencil-do-while", "no do-while loops",
         "PENCIL lists the C99 statements it keeps (assignments, `for`, `while`, `if`, `break`, "
         "`continue`, `return`, calls and block declarations); `do ... while` is not among them and "
         "is not in the PENCIL grammar. Rewrite it as a `while` loop.", section="4.2.2 v, appendix A"),
    Rule("pencil-for-init", "a for loop declares exactly one iterator in its header",
         "A PENCIL for loop has the form `for (type iter = init; iter op bound; iter += step)`: "
         "exactly one iterator, declared and initialised in the loop header, so that it is not "
         "visible outside the loop. The grammar of appendix A makes the type optional, but the text "
         "of section 4.2.2 says the iteration variable must not be defined outside the loop; "
         "pencilcc follows the text and requires the declaration.", section="4.2.2 v"),
    Rule("pencil-for-cond", "a for loop tests its iterator against a bound with <, <=, > or >=",
         "The condition of a PENCIL for loop is `iter < bound`, `iter <= bound`, `iter > bound` or "
         "`iter >= bound`, with the iterator on the left as in the grammar of appendix A. Other "
         "conditions (`!=`, conjunctions, a bound on the left, no condition) need an induction "
         "variable analysis that PENCIL is designed to avoid.", section="4.2.2 v, appendix A"),
    Rule("pencil-for-step", "a for loop has a literal constant step",
         "The step of a PENCIL for loop is `iter++`, `++iter`, `iter--`, `--iter`, `iter += c` or "
         "`iter -= c`, where `c` is a literal integer constant (after macro expansion). A variable "
         "step or any other increment expression is not allowed.", section="4.2.2 v, appendix A"),
    Rule("pencil-for-bound", "a for loop has a loop-invariant bound",
         "The stop value of a PENCIL for loop must not change within the loop body: no variable "
         "that occurs in the bound may be written in the body (an array occurring in the bound, "
         "as in `j < start[i] + count[i]`, may not be written either, nor passed to a call that "
         "could write it), and the bound may not depend on the iterator itself. The start value "
         "is evaluated once, before the first iteration, so it is invariant by construction.",
         section="4.2.2 v"),
    Rule("pencil-for-iterator-write", "a for loop does not modify its iterator in the body",
         "The iteration variable of a PENCIL for loop cannot be modified inside the loop body; "
         "only the step of the loop header changes it.", section="4.2.2 v"),
    Rule("pencil-return", "return only as the last statement of a function",
         "`return` may be used only at the end of a PENCIL function, as the last statement of its "
         "body, so that PENCIL compilers work on single-entry single-exit regions. A `return` in "
         "a `#pragma pencil region` is always reported, since the region must be single-exit.",
         section="4.2.2 v"),
    Rule("pencil-call", "calls only to PENCIL, builtin, const or summarised functions",
         "PENCIL code may call PENCIL functions (functions a PENCIL file defines, marked "
         "`__attribute__((pencil))`, or whose array parameters are all `pencil_array`), PENCIL "
         "builtins (section 4.3.5), functions declared `__attribute__((const))`, and non-PENCIL "
         "functions that have a summary function (`__attribute__((pencil_access(summary)))`). "
         "Calls to any other function, and calls through function pointers, are reported: a "
         "prototype without a body (`extern void log(double);`) in a PENCIL file declares a function "
         "written elsewhere and is not PENCIL by the file alone.",
         section="4.2.2 ii and v, 4.3.2, 4.3.3"),
    Rule("pencil-summary-signature", "a summary function exists and has the summarised function's arguments",
         "The function named by `pencil_access(summary)` must be declared in the translation unit "
         "and must have the same arguments as the function it describes: the same number of "
         "parameters, and for each one the same scalar type, or an array with the same number of "
         "dimensions and element type (qualifiers aside), or the same pointer type. Return types "
         "are not compared: the summary describes accesses, not results.", section="4.3.2"),
    Rule("pencil-summary-builtin", "__pencil_use, __pencil_def and __pencil_maybe only in summary functions",
         "The builtins `__pencil_use`, `__pencil_def` and `__pencil_maybe` describe memory accesses "
         "and exist only for summary functions (functions named by a `pencil_access` attribute); "
         "they have no meaning in code that is executed.", section="4.3.2, 4.3.5 i"),
    Rule("pencil-pragma", "well-formed pencil pragmas on the right statements",
         "The PENCIL directives are `#pragma pencil independent [reduction(op: v, ...)]*`, "
         "`#pragma pencil ivdep` and `#pragma pencil region`. pencilcc reports malformed "
         "directives, unknown `#pragma pencil` directives, reduction operators other than "
         "`+ - * min max` (the definition's) and `& | ^ && ||` (OpenMP's others, whose reduction "
         "syntax the definition adopts; accepted as an extension), `independent` and `ivdep` that "
         "do not annotate a for loop, and a `region` directive not followed by a compound "
         "statement `{ ... }`.",
         section="4.2.3, 4.3.4, appendix A"),
    Rule("pencil-reduction", "reduction variables are scalars used only in reduction statements",
         "Only scalar variables can be reduction variables, and, as in OpenMP, a reduction "
         "variable may not be used in the loop anywhere but in its reduction statements. pencilcc "
         "requires each variable of a `reduction(op: ...)` clause to be a scalar declared before "
         "(outside) the loop, not the loop iterator, and every use of it in the loop body to be "
         "a statement `v op= e` or `v = v op e` (for `+ - * & | ^`; `+=`, `-=`, `++` and `--` for `+` "
         "and `-`), `v = v op e` for `&&` and `||`, `v = e op v` for the commutative operators, "
         "or `v = min(v, e)` / `v = max(v, e)` with any PENCIL min/max builtin, with `v` not "
         "occurring in `e`. As in OpenMP, a `& | ^` reduction variable must have an integer type. "
         "pencilcc reads the definition's scalar variable as one scalar location: an item may also name "
         "one array element with constant subscripts, `s[0]` or `S[1][0]` (an array declared before the loop, "
         "with arithmetic elements and one subscript per dimension), which the compiler reduces; the loop may "
         "then use the array only in reduction statements of that element. An element whose subscript reads a "
         "variable (`hist[i]`) is not one the compiler can reduce (it keeps the updates in order): one error "
         "says so.",
         section="4.3.4 i"),
    Rule("pencil-variadic", "no variadic functions",
         "The PENCIL grammar (appendix A) has no `...` in function arguments, and OpenCL has no "
         "variadic functions: PENCIL function definitions must have a fixed argument list.",
         section="appendix A"),
    Rule("pencil-expression", "only PENCIL expressions",
         "PENCIL keeps a strict subset of C99 expressions (arithmetic, logical, bit and comparison "
         "operations, `[]`, `.`, `?:`, `sizeof`, scalar casts and calls). In the grammar an "
         "assignment, `++` or `--` is a statement, not a value, so pencilcc reports the comma "
         "operator, assignments and increments used inside another expression (`a = b = 0`, "
         "`A[i++]`), compound literals, generic selections and label addresses.",
         section="4.2.2 ii, appendix A"),
    Rule("pencil-reduction-extension", "reduction operators are those of the definition",
         "PENCIL's reduction clause takes the operators `+`, `-`, `*`, `min` and `max` (thesis "
         "4.3.4 i, appendix A). pencilcc also accepts OpenMP's `&`, `|`, `^`, `&&` and `||`, whose "
         "clause syntax the definition adopts, and runs them as parallel reductions; a program using "
         "them is not PENCIL, and other PENCIL compilers may reject it, so the linter warns.",
         severity="warning", section="4.3.4 i, appendix A"),
    Rule("pencil-linearized-subscript", "array subscripts are not linearised",
         "Array accesses should not be linearised (`A[i * n + j]` on a one-dimensional array) "
         "since this obfuscates the affine subscripts and reduces the quality of the dependence "
         "analysis: declare a multi-dimensional VLA (`A[m][n]`) and write `A[i][j]`. pencilcc warns "
         "about a subscript that multiplies a loop iterator by a non-constant expression.",
         severity="warning", section="4.2.2 iii"),
    Rule("pencil-nonaffine-subscript", "array subscripts are (quasi-)affine",
         "For a precise dependence analysis PENCIL recommends quasi-affine subscripts: sums of loop "
         "iterators and parameters multiplied by constants, integer division and modulo by "
         "constants. pencilcc warns about subscripts that contain an array element (`A[B[i]]`), a "
         "product of two non-constant terms (`A[i * j]`), a division or modulo by a non-constant, "
         "a bitwise operation, a function call or a struct field: the compiler then has to assume "
         "that any element of the array may be accessed.", severity="warning", section="4.2.2 iii"),
)

RULES: dict[str, Rule] = {r.id: r for r in _RULES}


def find_rule(name: str) -> Optional[Rule]:
    """The rule called `name`, with or without its `pencil-` prefix."""
    return RULES.get(name) or RULES.get("pencil-" + name)
