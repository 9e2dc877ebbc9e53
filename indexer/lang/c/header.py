"""Which of C and C++ a `.h` header is written in, from its first bytes (language detection's
rule 3, indexer/lang/registry.py).

The header is C++ when its code shows a construct C has not: a class or
namespace body, `template <`, an access label, `std::`, a C++ standard header included
without `.h`, `extern "C++"`, `enum class`, `constexpr`, `noexcept`, `using namespace`, or an
`extern "C"` no `#if` on `__cplusplus` guards (C headers write it inside `#ifdef
__cplusplus`; a C compiler rejects it). The code read is `CODE_BYTES` after the leading
comments and blank lines, which are skipped first: a licence of many kilobytes says nothing.
All of it within the first `HEAD_BYTES` of the blob, whatever its size. A mode line is not
read: C headers often say `-*- Mode: C++ -*-` (NSPR's, LLVM's C API), and words in the
leading comments (`std::` in a licence or an overview) decide nothing."""

from __future__ import annotations

import re
from functools import cache
from typing import NamedTuple

from indexer.lang.c.comments import blanked

HEAD_BYTES = 64 << 10  # the most of a blob read to decide: leading comments, then its code
CODE_BYTES = 8 << 10  # the code read for a C++ construct, after the leading comments


class _Patterns(NamedTuple):
    cpp_code: re.Pattern[bytes]
    leading: re.Pattern[bytes]
    extern_c: re.Pattern[bytes]
    condition: re.Pattern[bytes]


# Compiled when a header is first read: the language registry imports this module wherever
# a store is read, and only indexing decides a header's language.
@cache
def _patterns() -> _Patterns:
    return _Patterns(
        cpp_code=re.compile(
            rb"^\s*(?:class\s+\w+[^;\n]*\{|namespace\s*\w*\s*\{|template\s*<|(?:public|private|protected)\s*:)"
            rb"|std::|^\s*#\s*include\s*<(?:iostream|string|vector|memory|map|algorithm|utility|cstdint|cstddef)>"
            rb"|\bextern\s+\"C\+\+\"|^\s*enum\s+(?:class|struct)\b|\b(?:constexpr|noexcept)\b"
            rb"|^\s*using\s+namespace\b",
            re.MULTILINE,
        ),
        # blank space and comments, as many as lead the file (an unclosed `/*` ends them)
        leading=re.compile(rb"(?:[ \t\r\n\f\v]+|//[^\n]*|/\*.*?\*/)*", re.DOTALL),
        extern_c=re.compile(rb'\bextern[ \t]+"C"'),
        condition=re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b([^\n]*)", re.MULTILINE),
    )


def header_language(head: bytes) -> str:
    """"cpp" or "c" for a `.h` whose first bytes are `head`."""
    head = head[:HEAD_BYTES]
    patterns = _patterns()
    leading = patterns.leading.match(head)
    start = leading.end() if leading is not None else 0
    code = head[start:start + CODE_BYTES]
    return "cpp" if patterns.cpp_code.search(code) or _unguarded_extern_c(code, patterns) else "c"


def _unguarded_extern_c(code: bytes, patterns: _Patterns) -> bool:
    """Does an `extern "C"` stand outside every `#if` group whose conditions name
    `__cplusplus` (comments aside, a `#define`'s body not code)?"""
    text = blanked(code, keep_length=True) if b"/" in code else code
    externs = [m.start() for m in patterns.extern_c.finditer(text) if _in_code(text, m.start())]
    if not externs:
        return False
    guarded: list[bool] = []  # each open #if group: whether a condition of it names __cplusplus
    directives = patterns.condition.finditer(text)
    directive = next(directives, None)
    for at in externs:
        while directive is not None and directive.start() < at:
            word, rest = directive.group(1), directive.group(2)
            if word.startswith(b"if"):
                guarded.append(b"__cplusplus" in rest)
            elif word == b"elif" and guarded:
                guarded[-1] = guarded[-1] or b"__cplusplus" in rest
            elif word == b"endif" and guarded:
                guarded.pop()
            directive = next(directives, None)
        if not any(guarded):
            return True
    return False


def _in_code(text: bytes, at: int) -> bool:
    """Is the byte at `at` code, not a directive's (`#define EXTERN_C extern "C"`, or a line a
    backslash continues one)?"""
    line = text.rfind(b"\n", 0, at) + 1
    while not text[line:at].lstrip().startswith(b"#"):
        end = line - 1  # the newline ending the line before
        if end <= 0 or not text[max(0, end - 2):end].rstrip(b"\r").endswith(b"\\"):
            return True
        at, line = end, text.rfind(b"\n", 0, end) + 1
    return False
