"""The TypeScript view of a source whose parse has errors (indexer.lang.retry_views).

tree-sitter-typescript reads a generic call signature that starts its own line (`<T>(value: T): Box<T>`,
or a `<` alone and its type parameters on the lines below) after another member of an interface
or an object type, with no `;` or `,` between them, as the compiler allows, as a comparison
continuing the member above; the ERROR it makes can swallow the rest of the file, with every
definition after it.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from indexer.lang.retry_views import in_error

# An indented line opening with type parameters and a parameter list (`<T>(`, `<K = any, V>(`,
# `<T extends Base<X>>(`), the type parameters on that line or over the lines after it (a
# formatter's `<` alone, then one parameter a line, then `>(`): the last character of its
# indentation is where a `;` goes. The brackets nest at most one deep, so a match attempt stops
# at its first `>` outside them, or at a second `<` inside one, and each byte is read by a
# bounded number of attempts: linear time.
_SIGNATURE = re.compile(rb"^[ \t]*([ \t])<\s*[A-Za-z_$](?:[^<>]|<[^<>]*>)*>\(", re.MULTILINE)


def signature_view(data: bytes, root: Node) -> bytes | None:
    """`data` with a `;` in the indentation before each generic call signature that starts its
    own line inside an ERROR of `root`: the member above ends there, as the compiler reads it.
    None when no such line stands in an error."""
    view: bytearray | None = None
    for match in _SIGNATURE.finditer(data):
        at = match.start(1)
        if not in_error(root, at + 1):
            continue
        if view is None:
            view = bytearray(data)
        view[at] = 0x3B  # ;
    return None if view is None else bytes(view)


retry_view = signature_view
