"""How a site is written on its source line, read as C-like languages write it (Go, Rust): the
receiver before a `.`, the path before a `::`, a struct literal's key (`bindings_base.SiteSyntax`)."""

from __future__ import annotations

import re

from indexer.lang.bindings_base import NAME_FIRST, NAME_REST, NAMES, DottedTail, SiteSyntax

# the names before a site's `::`, read back from it (`DottedTail`; its `.`: `NAMES`)
_PATH = DottedTail(NAME_FIRST, NAME_REST, dot=b"::")
_KEY = re.compile(rb"[ \t]*:(?![:=])")


def c_like(line: bytes, col: int, name: str, paths: bool) -> SiteSyntax:
    """`x.name` an attribute of the dotted names before it (of nothing known after a call, an
    index or a literal); with `paths`, `a::b::name` a path of the segments before it (of
    nothing known after `>`: `<T as Tr>::name`, `V::<u8>::name`); `name: v` after `{` or `,`
    (or alone on its line) a struct literal's key; anything else bare."""
    before = line[:col].rstrip()
    if paths and before.endswith(b"::"):
        path = _PATH.search(before)
        if path is None or before[:path[0]].rstrip().endswith((b">", b")")):
            return SiteSyntax("path")
        return SiteSyntax("path", tuple(p.strip().decode() for p in path[1].split(b"::") if p.strip()))
    if before.endswith(b"."):
        found = NAMES.search(before)
        if found is None or before[:found[0]].rstrip().endswith((b")", b"]", b".", b"}", b'"', b"'")):
            return SiteSyntax("attribute")
        return SiteSyntax("attribute", tuple(p.strip().decode() for p in found[1].split(b".")))
    if _KEY.match(line, col + len(name.encode())) and (not before or before.endswith((b"{", b","))):
        return SiteSyntax("key")
    return SiteSyntax("bare")
