"""The TypeScript view of a source whose parse has errors (indexer.lang.retry_views).

tree-sitter-typescript reads a generic call signature that starts its own line (`<T>(value: T): Box<T>`
after another member of an interface or an object type, with no `;` or `,` between them, as
the compiler allows) as a comparison continuing the member above; the ERROR it makes can swallow
the rest of the file, with every definition after it.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from indexer.lang.retry_views import in_error

# An indented line opening with type parameters and a parameter list (`<T>(`, `<K = any, V>(`,
# `<T extends Base<X>>(`): the last character of its indentation is where a `;` goes. The type
# parameters hold no line break and brackets at most one deep, so a line is read in linear time.
_SIGNATURE = re.compile(rb"^[ \t]*([ \t])<[A-Za-z_$](?:[^<>\r\n]|<[^<>\r\n]*>)*>\(", re.MULTILINE)


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
