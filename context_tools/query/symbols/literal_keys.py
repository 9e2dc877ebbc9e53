"""The type a Go or Rust composite literal's key is a field of: the name written before the
brace that opens the literal (`routeRegexpOptions{strictSlash: v}`, `&pkg.Options{Level: 1}`,
`Config { size: 1 }`, the brace on a line above the key's too). A key is a field of that
type alone (Go's composite literal and Rust's struct expression name no promoted field),
so where two types have a field of the name, the literal tells which.
"""

from __future__ import annotations

import re

# the name written just before the literal's opening brace, with what may qualify it
_BEFORE = re.compile(rb"(?:[A-Za-z_]\w*(?:\.|::))*([A-Za-z_]\w*)\s*(?:<[^<>{}]*>\s*|\[[^\[\]{}]*\]\s*)?$")
# what, before such a name, makes the brace a block's rather than a literal's (`if x {`, `for v := range xs {`)
_BLOCK = re.compile(rb"\b(?:if|for|switch|select|match|while|else|loop|unsafe|async|move|return|in|struct|enum|"
                    rb"union|impl|trait|mod|fn|func|interface|where|const|static|let|type|range|go|defer|case)\s*$")
# how far up a literal's opening brace is looked for
_LINES = 400


def literal_type(lines: list[bytes], line: int, col: int) -> str | None:
    """The type named before the brace opening the literal that holds the key at `line`
    (1-based) and byte column `col`, None when that brace is not found within _LINES lines or
    no type name stands before it (an elided `{k: v}` of a slice's element, a block)."""
    depth = 0
    for i in range(line - 1, max(-1, line - 1 - _LINES), -1):
        text = lines[i] if i < len(lines) else b""
        end = col if i == line - 1 else len(text)
        for j in range(min(end, len(text)) - 1, -1, -1):
            c = text[j]
            if c == 0x7D:  # }
                depth += 1
            elif c == 0x7B:  # {
                if depth == 0:
                    return _named_before(text[:j])
                depth -= 1
    return None


def _named_before(text: bytes) -> str | None:
    found = _BEFORE.search(text)
    if found is None or _BLOCK.search(text[: found.start()]) or found.group(1) in (b"struct", b"interface"):
        return None
    return found.group(1).decode()
