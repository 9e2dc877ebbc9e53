"""Python import statements -> `ImportSpec`s as written (indexer.lang.import_specs).

- python: `spec` is the dotted module without leading dots, `level` the number of dots,
  `names` what a from-import imports (`("*",)` for a wildcard); `from a import b as c` ->
  names ("b",), aliases ("c",).
"""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.import_specs import Handler, aliases_of, compact_text, line_of, node_text
from indexer.model import ImportSpec


def _python(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    out = []
    for name in node.children_by_field_name("name"):
        if name.type == "aliased_import":  # `import a.b as c` binds the module a.b as c
            out.append(ImportSpec("python", compact_text(name.child_by_field_name("name"), data), line_of(node),
                                  aliases=(node_text(name.child_by_field_name("alias"), data),)))
        else:
            out.append(ImportSpec("python", compact_text(name, data), line_of(node)))
    return out


def _python_from(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    module = node.child_by_field_name("module_name")
    level = 0
    spec = ""
    if module is not None and module.type == "relative_import":
        for child in module.children:
            if child.type == "import_prefix":
                level = node_text(child, data).count(".")
            elif child.type == "dotted_name":
                spec = compact_text(child, data)
    else:
        spec = compact_text(module, data)
    names: list[str] = []
    aliases: list[str] = []
    for child in node.children:
        if child.type == "wildcard_import":
            names.append("*")
            aliases.append("")
    for name in node.children_by_field_name("name"):
        if name.type == "aliased_import":
            names.append(compact_text(name.child_by_field_name("name"), data))
            aliases.append(node_text(name.child_by_field_name("alias"), data))
        else:
            names.append(compact_text(name, data))
            aliases.append("")
    return [ImportSpec("python", spec, line_of(node), level, tuple(names), aliases_of(names, aliases))]


HANDLERS: dict[str, Handler] = {
    "import.python": _python,
    "import.python_from": _python_from,
}
