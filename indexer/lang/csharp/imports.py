"""C# import statements -> `ImportSpec`s as written (indexer.lang.import_specs).

- csharp_using, csharp_global_using (`global using`, for every file of its project): the
  namespace or type named; `using static A.B;` -> spec "A.B", names ("*",) (every static member
  of the type A.B, usable unqualified); an alias directive `using C = A.B;` -> spec "A.B",
  aliases ("C",).
"""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.import_specs import Handler, aliases_of, compact_text, line_of, node_text
from indexer.model import ImportSpec


def _without_type_arguments(spec: str) -> str:
    """`spec` without each `<...>` and what it holds, nested or not (a `<` or `>` closing none
    kept), in one reading: one rewrite per level nested was the square of a deep one."""
    kept: list[str] = []
    opened: list[int] = []  # where in `kept` each `<` not closed yet stands
    for char in spec:
        if char == ">" and opened:
            del kept[opened.pop():]
            continue
        if char == "<":
            opened.append(len(kept))
        kept.append(char)
    return "".join(kept)


def _csharp_using(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    # `using A.B;`, `using static A.B;`, `global using A;`, `using X = A.B;`: the last name.
    spec = ""
    for child in node.named_children:
        if child.type in ("identifier", "qualified_name", "generic_name", "alias_qualified_name"):
            spec = compact_text(child, data)
    # `using M = A.Maybe<B.Info>;` names the type A.Maybe: its arguments are no part of the
    # path the resolver looks up
    spec = _without_type_arguments(spec) if "<" in spec else spec
    alias = node_text(node.child_by_field_name("name"), data)  # `using U = A.B;`: U
    aliases = aliases_of([spec.rsplit(".", 1)[-1]], [alias]) if alias else ()
    keywords = {c.type for c in node.children if not c.is_named}
    kind = "csharp_global_using" if "global" in keywords else "csharp_using"
    names = ("*",) if "static" in keywords else ()  # the type's static members
    return [ImportSpec(kind, spec, line_of(node), names=names, aliases=aliases)] if spec else []


HANDLERS: dict[str, Handler] = {
    "import.csharp_using": _csharp_using,
}
