# SPDX-License-Identifier: MIT
"""Recovering pragmas from the token stream (libclang exposes no pragma cursors).

Input: the tokens of the main file. Output: `Pragma` values with the byte offset
of their `#`, which the lowering attaches to the statement that follows. Syntax:

    #pragma pencil independent [reduction(op: v, ...)]*   op in + - * min max & | ^ && ||
                                                          v a variable or an element a[c]..[c]
    #pragma pencil ivdep
    #pragma pencil region
    #pragma scop / #pragma endscop

The thesis (section 4.3.4 i, appendix A) lists the operators `+ - * min max`
and says the clause has OpenMP's syntax; pencilcc also takes OpenMP's other
operators `& | ^ && ||` (`EXTENSION_OPERATORS`, integer and logical reductions).
A clause item may name an array element, `a[0]` or `S[0][0]` (`Reduction.subscripts`,
the subscripts as written): the compiler reduces the array `a`, the linter checks
the element. This is the one parser of reduction clauses, for both.
Malformed `pencil` pragmas keep their errors for the linter (rule pencil-pragma).
"""
from __future__ import annotations

from dataclasses import dataclass

import clang.cindex as ci

from clangpass.ir.nodes import Pragma, Reduction, SourceLoc

# The definition's operators, then OpenMP's others, which pencilcc accepts as an extension.
PENCIL_OPERATORS = ("+", "-", "*", "min", "max")
EXTENSION_OPERATORS = ("&", "|", "^", "&&", "||")
REDUCTION_OPERATORS = PENCIL_OPERATORS + EXTENSION_OPERATORS
_EXPECTED = " ".join(REDUCTION_OPERATORS)


@dataclass(frozen=True)
class PlacedPragma:
    offset: int          # byte offset of '#'
    end_offset: int      # byte offset just past the last token
    pragma: Pragma


def _loc(tok: ci.Token) -> SourceLoc:
    loc = tok.location
    return SourceLoc(loc.file.name if loc.file else "<unknown>", loc.line, loc.column)


def _in_file(token: ci.Token, path: str) -> bool:
    where = token.location.file
    return where is not None and where.name == path


def _file_tokens(tokens: list[ci.Token], path: str) -> list[ci.Token]:
    """The tokens of `path` in `tokens` (the raw tokens of a range of it), less comments
    (libclang returns them: a trailing `// ...` is not part of a pragma). A range is lexed
    within one file, so when its first and last tokens are in `path` all are, and the file of
    each is not asked (four calls into libclang per token, a tenth of a PolyBench kernel's
    parse); otherwise each token is checked."""
    if tokens and _in_file(tokens[0], path) and _in_file(tokens[-1], path):
        return [t for t in tokens if t.kind != ci.TokenKind.COMMENT]
    return [t for t in tokens if t.kind != ci.TokenKind.COMMENT and _in_file(t, path)]


def collect_pragmas(tu: ci.TranslationUnit, main_file: str) -> list[PlacedPragma]:
    """Every `#pragma` line in `main_file`, in source order: the main file of `tu`, or a header
    it includes whose code pencilcc compiles (offsets are that file's)."""
    with open(main_file, "rb") as f:
        source = f.read()
    extent = tu.cursor.extent
    if main_file != tu.spelling:
        # The translation unit's extent is its main file's: a header's tokens need its own.
        header = ci.File.from_name(tu, main_file)
        extent = ci.SourceRange.from_locations(ci.SourceLocation.from_offset(tu, header, 0),
                                               ci.SourceLocation.from_offset(tu, header, len(source)))
    tokens = _file_tokens(list(tu.get_tokens(extent=extent)), main_file)
    found: list[PlacedPragma] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.spelling == "#" and i + 1 < len(tokens) and tokens[i + 1].spelling == "pragma" \
                and tokens[i + 1].location.line == tok.location.line:
            line = tok.location.line
            j = i + 2
            words: list[ci.Token] = []
            while j < len(tokens) and tokens[j].location.line == line:
                words.append(tokens[j])
                j += 1
            end = words[-1].extent.end.offset if words else tokens[i + 1].extent.end.offset
            text = source[tokens[i + 1].extent.start.offset:end].decode("utf-8", "replace")
            found.append(PlacedPragma(tok.location.offset, end, parse_pragma(words, _loc(tok), text)))
            i = j
        else:
            i += 1
    return found


def parse_pragma(words: list[ci.Token], loc: SourceLoc, text: str) -> Pragma:
    """`text` is the pragma as written, from `pragma` to the end of the line."""
    spelled = [w.spelling for w in words]
    if spelled[:1] == ["scop"] and len(spelled) == 1:
        return Pragma("scop", text, loc)
    if spelled[:1] == ["endscop"] and len(spelled) == 1:
        return Pragma("endscop", text, loc)
    if spelled[:1] != ["pencil"]:
        return Pragma("other", text, loc)
    if len(spelled) == 1:
        return Pragma("pencil", text, loc, errors=((loc, "expected 'independent', 'ivdep' or 'region' after 'pencil'"),))
    what = spelled[1]
    if what in ("ivdep", "region"):
        errors = tuple((_loc(w), f"unexpected '{w.spelling}' after 'pencil {what}'") for w in words[2:3])
        return Pragma(what, text, loc, errors=errors)
    if what != "independent":
        return Pragma("pencil", text, loc, errors=((_loc(words[1]), f"unknown pencil pragma '{what}'"),))
    reductions, errors = _parse_reductions(words[2:], loc)
    return Pragma("independent", text, loc, reductions=tuple(reductions), errors=tuple(errors))


def _parse_reductions(words: list[ci.Token], loc: SourceLoc):
    """`reduction(op: v, w) reduction(...)`: returns the clauses and the syntax errors."""
    reductions: list[Reduction] = []
    errors: list[tuple[SourceLoc, str]] = []
    i = 0
    while i < len(words):
        w = words[i]
        if w.spelling != "reduction":
            errors.append((_loc(w), f"expected 'reduction' clause, found '{w.spelling}'"))
            break
        if i + 1 >= len(words) or words[i + 1].spelling != "(":
            errors.append((_loc(w), "expected '(' after 'reduction'"))
            break
        j = i + 2
        if j >= len(words):
            errors.append((_loc(w), "expected a reduction operator"))
            break
        op = words[j].spelling
        if op in (":", ")"):  # no operator: one error, at the token where it is missing
            errors.append((_loc(words[j]), f"expected a reduction operator (one of {_EXPECTED}) before '{op}'"))
            break
        if op not in REDUCTION_OPERATORS:
            errors.append((_loc(words[j]), f"invalid reduction operator '{op}' (expected one of {_EXPECTED})"))
        j += 1
        if j >= len(words) or words[j].spelling != ":":
            errors.append((_loc(words[min(j, len(words) - 1)]), "expected ':' after the reduction operator"))
            break
        items, j, item_errors, complete = _parse_items(words, j + 1, w)
        errors.extend(item_errors)
        if not items and not item_errors:
            errors.append((_loc(w), "reduction clause names no variable"))
        # Even a malformed clause keeps the names it gives, so that the compiler does not drop
        # the dependences through them (it reduces them or keeps them in order).
        if items:
            reductions.append(Reduction(op, tuple(n for n, _ in items), _loc(w), tuple(s for _, s in items)))
        if not complete:  # no ')' or an unclosed '[': the rest of the line cannot be read
            break
        i = j + 1
    return reductions, errors


def _parse_items(words: list[ci.Token], j: int, clause: ci.Token):
    """The items `v, a[c]..[c], ...` of a clause, from words[j] to its ')': the items as
    (name, subscripts as written; those read, for a malformed item), the index of the ')',
    the errors, and whether the clause ends with its ')' (False after an unclosed '[' or at
    the end of the line)."""
    items: list[tuple[str, tuple[str, ...]]] = []
    errors: list[tuple[SourceLoc, str]] = []
    after_comma = False
    while True:
        if j >= len(words):
            errors.append((_loc(clause), "expected ')' to close the reduction clause"))
            return items, j, errors, False
        w = words[j]
        if w.spelling == ")":
            if after_comma:
                errors.append((_loc(w), "expected a variable name after ','"))
            return items, j, errors, True
        if w.kind != ci.TokenKind.IDENTIFIER:
            errors.append((_loc(w), f"expected a variable name, found '{w.spelling}'"))
        else:
            j, subscripts, error = _parse_subscripts(words, j + 1, w.spelling)
            items.append((w.spelling, subscripts))
            if error is not None:
                errors.append(error)
                if j < 0:  # unclosed '['
                    return items, len(words), errors, False
            elif j < len(words) and words[j].spelling in (",", ")"):
                after_comma = words[j].spelling == ","
                j += 1 if after_comma else 0
                continue
            elif j < len(words):
                written = w.spelling + "".join(f"[{x}]" for x in subscripts)
                errors.append((_loc(words[j]),
                               f"expected ',' or ')' after '{written}', found '{words[j].spelling}'"))
        # skip the rest of a bad item, to the next ',' or ')' outside brackets
        depth = 0
        while j < len(words) and not (depth == 0 and words[j].spelling in (",", ")")):
            depth = max(0, depth + (words[j].spelling in ("(", "[")) - (words[j].spelling in (")", "]")))
            j += 1
        after_comma = j < len(words) and words[j].spelling == ","
        j += 1 if after_comma else 0


def _parse_subscripts(words: list[ci.Token], j: int, name: str):
    """`[c]..[c]` after `name` from words[j]: (the index after them, the subscripts as written,
    None), or (index, the subscripts before the bad one, error); the index is -1 after an
    unclosed '['."""
    subscripts: list[str] = []
    while j < len(words) and words[j].spelling == "[":
        stack, k = ["["], j + 1
        while k < len(words) and stack:
            s = words[k].spelling
            if s in ("(", "["):
                stack.append(s)
            elif s in (")", "]"):
                if (s == ")") != (stack[-1] == "("):
                    break  # `a[)`: the clause's ')' inside the subscript
                stack.pop()
            k += 1
        if stack:
            return -1, tuple(subscripts), (_loc(words[j]), f"expected ']' to close the subscript of '{name}'")
        if k == j + 2:
            return k, tuple(subscripts), (_loc(words[j]), f"expected a subscript in '{name}[]'")
        subscripts.append(_spelled(words[j + 1:k - 1]))
        j = k
    return j, tuple(subscripts), None


def _spelled(tokens: list[ci.Token]) -> str:
    """Tokens as C text: `n - 1`, `f(x)`, `b[0]`."""
    out = ""
    for previous, t in zip([None] + tokens[:-1], tokens):
        s = t.spelling
        tight = previous is None or previous.spelling in ("(", "[") or s in (")", "]", ",") \
            or (s in ("(", "[") and previous.kind == ci.TokenKind.IDENTIFIER)
        out += s if tight else " " + s
    return out
