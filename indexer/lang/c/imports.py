"""C and C++ import statements -> `ImportSpec`s as written (indexer.lang.import_specs).
"""

from __future__ import annotations

import re

from tree_sitter import Node

from indexer.lang import ancestry
from indexer.lang.import_specs import Handler, line_of, node_text, unquote
from indexer.model import ImportSpec


def _c_include(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    return [ImportSpec("c_include", unquote(node_text(caps["spec"][0], data)), line_of(node))]


def _c_system_include(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    return [ImportSpec("c_system_include", unquote(node_text(caps["spec"][0], data)), line_of(node))]


# An `#include` line as the preprocessor sees it (leading blanks, `#  include`).
INCLUDE_LINE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"][^<>"\n]+[>"])', re.M)


# Where an `#include`-looking line is text, not a directive.
NOT_DIRECTIVE = frozenset({"comment", "string_literal", "raw_string_literal", "char_literal",
                           "preproc_def", "preproc_function_def"})


def missed_includes(root: Node, data: bytes, found: list[ImportSpec]) -> list[ImportSpec]:
    """`#include` lines the query did not see: tree-sitter leaves one inside a class body
    as an opaque preproc_call (boost scoped_ptr.hpp) and one after a line it cannot parse
    (`__has_include(<version>)`, a `/* c */\\` continuation in a #define) inside an ERROR.
    A line-based scan, skipping lines the query found and lines inside comments and strings."""
    seen = {i.line for i in found if i.kind in ("c_include", "c_system_include")}
    out: list[ImportSpec] = []
    line, at = 1, 0
    for m in INCLUDE_LINE.finditer(data):
        line += data.count(b"\n", at, m.start())
        at = m.start()
        if line in seen or not _is_directive(root, data.index(b"#", m.start())):
            continue
        spec = m.group(1).decode("utf-8", "replace")
        kind = "c_system_include" if spec[0] == "<" else "c_include"
        out.append(ImportSpec(kind, unquote(spec), line))
    return out


def _is_directive(root: Node, hash_at: int) -> bool:
    """Whether the `#` at `hash_at` stands in no comment, string or macro definition (lines
    asked in order: `ancestry.held_at`)."""
    return not ancestry.held_at(root, hash_at, hash_at + 1, "c.not_directive", _not_directive)


def _not_directive(node: Node) -> bool:
    return node.type in NOT_DIRECTIVE


HANDLERS: dict[str, Handler] = {
    "import.c_include": _c_include,
    "import.c_system_include": _c_system_include,
}
