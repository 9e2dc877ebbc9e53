"""The preprocessor conditions a C or C++ definition is written under (`Symbol.condition`).

tree-sitter has no preprocessor: it reads every branch of an `#if` group, so a definition in
`#ifdef _WIN32` and its `#else` twin are both symbols. Each is marked with the branch it is in,
read from the directive lines themselves (not the tree, which error recovery can reshape):

- `#ifdef X` -> `defined(X)`, `#ifndef X` -> `!defined(X)`, `#if EXPR` -> EXPR as written
  (comments dropped, blanks collapsed, `defined X` spelled `defined(X)`);
- `#elif B` after `#if A` -> `!A && B`; `#else` -> every earlier branch negated (`!defined(X)`,
  `!A`, or `!(A || B)` for a compound one);
- nested groups joined by ` && `, outermost first; a compound part in parentheses.

A header's include guard (`#ifndef X` then `#define X` as its first directives) marks nothing.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from indexer.lang.c.comments import blanked, comment_spans

_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(ifdef|ifndef|if|elifdef|elifndef|elif|else|endif|define)\b", re.M)
_CONTINUED = re.compile(rb"\\\r?\n")
_DEFINED_BARE = re.compile(r"\bdefined\s+([A-Za-z_]\w*)")
_DEFINED_PAREN = re.compile(r"\bdefined\s*\(\s*([A-Za-z_]\w*)\s*\)")
_ATOM = re.compile(r"!?(?:defined\([A-Za-z_]\w*\)|[A-Za-z_]\w*(?:\([^()]*\))?|\d+)")
_NAME = re.compile(r"[A-Za-z_]\w*")
_GUARD = re.compile(r"!defined\(([A-Za-z_]\w*)\)")
CHARS = 400  # a condition longer than this is cut (a generated header's long `#if`)


def _expression(text: str) -> str:
    text = " ".join(text.split())
    text = _DEFINED_BARE.sub(r"defined(\1)", text)
    return _DEFINED_PAREN.sub(r"defined(\1)", text)


def _negated(condition: str) -> str:
    if condition.startswith("!") and _ATOM.fullmatch(condition):
        return condition[1:]
    if _ATOM.fullmatch(condition):
        return "!" + condition
    return f"!({condition})"


def _part(condition: str) -> str:
    """A condition as one part of a conjunction: parenthesized where an `||` or a `?:` stands
    outside any parentheses of its own."""
    depth = 0
    for i, c in enumerate(condition):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif depth == 0 and (c == "?" or condition.startswith("||", i)):
            return f"({condition})"
    return condition


def _joined(outer: str, condition: str) -> str:
    """`outer && condition`, cut at CHARS (`outer` alone when `condition` is empty): conditions
    joined one at a time, each cut as it is made, so that nested groups and a group's branches,
    as many as a file likes, are each joined once, not again for every directive after them.
    What is cut is only ever read up to CHARS."""
    if not condition or len(outer) >= CHARS:
        return outer
    return (f"{outer} && {condition[:CHARS]}" if outer else condition)[:CHARS]


def _directive(word: bytes, text: str) -> str:
    """The condition an `#if`-like directive (or an `#elif`-like one's branch) states."""
    name = _NAME.match(text)
    if word in (b"ifdef", b"elifdef"):
        return f"defined({name.group()})" if name else _expression(text)
    if word in (b"ifndef", b"elifndef"):
        return f"!defined({name.group()})" if name else _negated(_expression(text))
    return _expression(text)


def _directive_text(data: bytes, start: int) -> tuple[int, str]:
    """The end of the directive line from `start` (past `\\` continuations) and its text."""
    end = start
    while True:
        end = data.find(b"\n", end)
        if end < 0:
            end = len(data)
            break
        if data[end - 1:end] != b"\\" and data[end - 2:end] != b"\\\r":
            break
        end += 1
    text = blanked(_CONTINUED.sub(b" ", data[start:end])).decode("utf-8", "replace").strip()
    return end, text


def continued(data: bytes, line_start: int) -> bool:
    """Whether the line starting at `line_start` is joined to the one before by a backslash."""
    return data[line_start - 2:line_start] == b"\\\n" or data[line_start - 3:line_start] == b"\\\r\n"


def condition_lines(data: bytes) -> tuple[list[int], list[str]]:
    """(first lines, conditions): from each first line (1-based) on, up to the next, the
    condition definitions are written under ("" for none)."""
    starts: list[int] = [1]
    conditions: list[str] = [""]
    if b"#" not in data:
        return starts, conditions
    comments = comment_spans(data) if b"/*" in data else []
    comment_starts = [s for s, _ in comments]
    # per open group: its branches so far negated and joined, and the conditions of every open
    # group up to this one joined (both cut at CHARS: `_joined`)
    stack: list[tuple[str, str]] = []
    line, at = 1, 0
    directives = 0
    guard = ""  # the name an opening `#ifndef X` tests, until the next directive says whether it is a guard
    for m in _DIRECTIVE.finditer(data):
        i = bisect_right(comment_starts, m.start()) - 1
        if i >= 0 and comments[i][0] < m.start() < comments[i][1]:
            continue  # inside a comment
        if continued(data, m.start()):
            continue  # the line a backslash joins to the one before (C's phase 2): no directive
        line += data.count(b"\n", at, m.start())
        at = m.start()
        word = m.group(1)
        end, text = _directive_text(data, m.end())
        directives += 1
        if word == b"define":
            name = _NAME.match(text)
            if guard and directives == 2 and name is not None and name.group() == guard and len(stack) == 1:
                stack[-1] = ("", "")  # the include guard: it marks nothing, its own `#define` neither
                conditions[-1] = ""
            else:
                guard = ""
                continue
            guard = ""
        elif word in (b"ifdef", b"ifndef", b"if"):
            current = _directive(word, text)
            if directives == 1:
                found = _GUARD.fullmatch(current)
                guard = found.group(1) if found else ""
            negated = _part(_negated(current)) if current else ""
            stack.append((negated, _joined(stack[-1][1] if stack else "", _part(current))))
        elif not stack:
            continue  # an `#else` or `#endif` of a group opened before what we read
        elif word == b"endif":
            stack.pop()
        else:
            negated, _ = stack.pop()
            outer = stack[-1][1] if stack else ""
            if word == b"else":
                stack.append((negated, _joined(outer, negated)))
            else:
                branch = _directive(word, text)
                # as `" && ".join([*negations, _part(branch)])`: a separator even before an empty part
                part = f"{negated[:CHARS]} && {_part(branch)}" if negated else _part(branch)
                stack.append((_joined(negated, _part(_negated(branch)) if branch else ""), _joined(outer, part)))
        starts.append(line + data.count(b"\n", m.start(), end) + 1)
        conditions.append(stack[-1][1] if stack else "")
    return starts, conditions


def condition_at(starts: list[int], conditions: list[str], line: int) -> str:
    return conditions[bisect_right(starts, line) - 1]
