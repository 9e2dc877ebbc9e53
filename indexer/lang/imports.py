"""Import statements found by the queries (`@import.<handler>`) -> `ImportSpec`s as written.

Each handler reads one matched node; resolution to files of the tree happens at snapshot
assembly. Kinds: python js go rust_mod rust_use rust_extern java c_include c_system_include
ruby_require php_require php_use php_use_function php_use_const csharp_using
csharp_global_using bash_source.

Encodings worth knowing:
Every `names` holds names as the imported module has them; `aliases` (when any is renamed)
the `as` names beside them, "" for a name kept as is, or the one alias of a module imported
under another name (`import a.b as c`: no names, aliases ("c",)).

- python: `spec` is the dotted module without leading dots, `level` the number of dots,
  `names` what a from-import imports (`("*",)` for a wildcard); `from a import b as c` ->
  names ("b",), aliases ("c",).
- js: `names` are the imported names (`"default"`, `"*"` for a namespace or re-export-all),
  `aliases` the local names (`import d from` -> ("default",) as ("d",); `import * as ns`,
  `import { a as b }`, `export * as ns from`). `exports` says what the file exports them
  as: every name of an `export ... from` (`export { a as b } from` -> ("b",); `export *
  from` -> ("*",)), and of an import only the bindings a top-level `export { x }` or `export
  default x` without a source names (`js_exports`); a plain import exports nothing. A file's
  own names exported under another name are not imports: `BlobFacts.exported_as`. The
  module itself under a name, TypeScript's `import m = require("./a")` and CommonJS `const m =
  require("./a")`, has no names and aliases ("m",); `const { a, b: c } = require("./a")` ->
  names ("a", "b"), aliases ("", "c"). A CommonJS re-export of a module's default is read as
  `export { default as X } from "./a"`: `exports.X = require("./a").default` (and `const m =
  require("./a"); exports.X = m.default;`, an import on the `require`'s line) -> names
  ("default",), aliases ("X",), exports ("X",). Whether a file exports by ES syntax, so that
  a `require` of it binds its module object, not its default, is `BlobFacts.es_module`.
- rust_use: `use crate::a::{b, c}` -> spec "crate::a", names ("b", "c"); `use a::b::*` ->
  spec "a::b", names ("*",); `use a::b as c` -> spec "a::b", no names, aliases ("c",). A
  group's items are compact use trees without aliases or comments (`{d::{self as e, F}}` ->
  "d::{self,F}"), each a name of `names` (resolve_rust.use_paths expands them into paths).
  An item's alias is the aliases of the paths it names, in the order use_paths expands them,
  joined by "," ("" for a path kept as is; an identifier holds no comma): `use a::{b::{c as
  d, x}, e as f, g}` -> spec "a", names ("b::{c,x}", "e", "g"), aliases ("d,", "f", "");
  `use a::{b as c, d, e::f as g}` -> names ("b", "d", "e::f"), aliases ("c", "", "g"). A use
  tree whose braces come first is one import per item, each as a `use` of its own: `use
  {crate::a::X, std::fmt}` -> "crate::a::X" and "std::fmt"; `use ::{a::b}` -> "::a::b". A
  path's alias is the name the file gives its last segment (`self as k` names the module
  before it k); `x as x` is no alias. `level` is the number of inline `mod m { ... }` blocks
  around the `use` (what `self::` and `super::` start from). `visibility` is the `use`'s
  modifier, compact (`pub`, `pub(crate)`, `pub(in crate::a)`), "" when private.
- rust_extern: `extern crate serde_json as json;` -> spec "serde_json", aliases ("json",).
- rust_mod: `mod b;` -> spec "b"; inside inline `mod a { ... }` -> spec "a::b", level 1;
  `#[path = "x/y.rs"] mod b;` -> names ("x/y.rs",).
- ruby_require: `require "x"` and `autoload :X, "x"` as spec "x" (a load-path name);
  `require_relative "x"` and paths built from `__dir__` / `__FILE__` as "./x" (beside the file).
- php_require: a literal path; `__DIR__ . "/x.php"` is recorded as "./x.php".
- php_use, php_use_function, php_use_const: one spec per name, a group `use A\\{B, C}` as
  "A\\B" and "A\\C", the kind saying what it imports (a class or namespace; `use function`;
  `use const`); no `names` (the spec is the whole name); `aliases` the one name the file
  gives it: `use A\\B as C` and `use A\\{B as C}` -> spec "A\\B", aliases ("C",).
- csharp_using, csharp_global_using (`global using`, for every file of its project): the
  namespace or type named; `using static A.B;` -> spec "A.B", names ("*",) (every static member
  of the type A.B, usable unqualified); an alias directive `using C = A.B;` -> spec "A.B",
  aliases ("C",).
"""

from __future__ import annotations

import re
from typing import Callable

import msgspec
from tree_sitter import Node

from indexer.model import ImportSpec


def _text(node: Node | None, data: bytes) -> str:
    if node is None:
        return ""
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _compact(node: Node | None, data: bytes) -> str:
    return "".join(_text(node, data).split())


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] in "\"'`<" and text[-1] in "\"'`>":
        return text[1:-1]
    return text


def _line(node: Node) -> int:
    return node.start_point[0] + 1


def _aliases(names: list[str], aliases: list[str]) -> tuple[str, ...]:
    """The `aliases` of an ImportSpec: "" where a name is not renamed, () when none is."""
    out = tuple("" if a == n else a for n, a in zip(names, aliases))
    return out if any(out) else ()


def _python(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    out = []
    for name in node.children_by_field_name("name"):
        if name.type == "aliased_import":  # `import a.b as c` binds the module a.b as c
            out.append(ImportSpec("python", _compact(name.child_by_field_name("name"), data), _line(node),
                                  aliases=(_text(name.child_by_field_name("alias"), data),)))
        else:
            out.append(ImportSpec("python", _compact(name, data), _line(node)))
    return out


def _python_from(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    module = node.child_by_field_name("module_name")
    level = 0
    spec = ""
    if module is not None and module.type == "relative_import":
        for child in module.children:
            if child.type == "import_prefix":
                level = _text(child, data).count(".")
            elif child.type == "dotted_name":
                spec = _compact(child, data)
    else:
        spec = _compact(module, data)
    names: list[str] = []
    aliases: list[str] = []
    for child in node.children:
        if child.type == "wildcard_import":
            names.append("*")
            aliases.append("")
    for name in node.children_by_field_name("name"):
        if name.type == "aliased_import":
            names.append(_compact(name.child_by_field_name("name"), data))
            aliases.append(_text(name.child_by_field_name("alias"), data))
        else:
            names.append(_compact(name, data))
            aliases.append("")
    return [ImportSpec("python", spec, _line(node), level, tuple(names), _aliases(names, aliases))]


def _js_name(node: Node | None, data: bytes) -> str:
    """A specifier's name: an identifier, a string (`export { "a b" as c }`), or `default`,
    which the JavaScript grammar leaves without a node (`import { default as d }`)."""
    return "default" if node is None else _unquote(_text(node, data))


def _js_bindings(node: Node, data: bytes) -> tuple[list[str], list[str], list[str]]:
    """(names, aliases, exports) of an import or `export ... from` statement, one entry each per
    name imported ("" for no alias, for not exported)."""
    names: list[str] = []
    aliases: list[str] = []
    exports: list[str] = []
    exporting = node.type == "export_statement"

    def add(name: str, alias: str) -> None:
        names.append(name)
        aliases.append(alias)
        exports.append((alias or name) if exporting else "")

    for child in node.named_children:
        if child.type == "import_clause":
            for part in child.named_children:
                if part.type == "identifier":
                    add("default", _text(part, data))
                elif part.type == "namespace_import":
                    local = next((c for c in part.named_children if c.type == "identifier"), None)
                    add("*", _text(local, data))
                elif part.type == "named_imports":
                    for spec in part.named_children:
                        if spec.type == "import_specifier":
                            alias = spec.child_by_field_name("alias")
                            add(_js_name(spec.child_by_field_name("name"), data),
                                _js_name(alias, data) if alias is not None else "")
        elif child.type == "export_clause":
            for spec in child.named_children:
                if spec.type == "export_specifier":
                    alias = spec.child_by_field_name("alias")
                    add(_js_name(spec.child_by_field_name("name"), data),
                        _js_name(alias, data) if alias is not None else "")
        elif child.type == "namespace_export":  # `export * as ns from "x"`
            add("*", _js_name(child.named_children[0] if child.named_child_count else None, data))
    if exporting and not names:
        add("*", "")  # `export * from "x"`
    return names, aliases, exports


def _js(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    spec = _unquote(_text(caps["spec"][0], data))
    if node.type in ("import_statement", "export_statement"):
        names, aliases, exports = _js_bindings(node, data)
        return [ImportSpec("js", spec, _line(node), 0, tuple(names), _aliases(names, aliases),
                           tuple(exports) if any(exports) else ())]
    if node.type == "import_require_clause":  # TypeScript `import x = require("./a")`: the module as x
        local = next((c for c in node.named_children if c.type == "identifier"), None)
        return [ImportSpec("js", spec, _line(node), aliases=(_text(local, data),) if local is not None else ())]
    if "fn" in caps:  # `require("./a")`
        reexport = _required_default_exported(node, data)
        if reexport is not None:  # `exports.X = require("./a").default`
            return [ImportSpec("js", spec, _line(node), 0, (JS_DEFAULT,), *reexport)]
        return [ImportSpec("js", spec, _line(node), 0, *_require_bindings(node, data))]
    return [ImportSpec("js", spec, _line(node))]


JS_DEFAULT = "default"  # what a JS module exports its default export as


def _required_default_exported(call: Node, data: bytes) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """(aliases, exports) of the default of the module a `require` names when the file exports
    it at once: `exports.X = require("./a").default` (or `module.exports.X = ...`) re-exports it
    as X, an alias X, as `export { default as X } from "./a"` does; `module.exports =
    require("./a").default` as the file's own default, as `export { default } from "./a"`. None
    for any other use of the `require`."""
    member = call.parent
    if member is None or member.type != "member_expression" or _text(member.child_by_field_name("property"), data) != JS_DEFAULT:
        return None
    assignment = member.parent
    if assignment is None or assignment.type != "assignment_expression" or assignment.child_by_field_name("right") != member:
        return None
    exported = _exports_member(assignment.child_by_field_name("left"), data)
    if exported is None:
        return None
    return ((exported,) if exported != JS_DEFAULT else ()), (exported,)


def _exports_member(left: Node | None, data: bytes) -> str | None:
    """The name a CommonJS assignment's target exports: X of `exports.X` and `module.exports.X`,
    `default` of `module.exports` (the module as a whole); None for any other target."""
    target = _compact(left, data)
    if target == "module.exports":
        return JS_DEFAULT
    for prefix in ("exports.", "module.exports."):
        name = target[len(prefix):] if target.startswith(prefix) else ""
        if name.replace("$", "_").isidentifier() and name != JS_DEFAULT:
            return name
    return None


def _require_bindings(call: Node, data: bytes) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(names, aliases) a CommonJS `require` binds when it is a declaration's whole value: `const
    m = require("./a")` binds the module itself to m -> no names, aliases ("m",), as TypeScript's
    `import m = require("./a")`; `const { a, b: c } = require("./a")` binds a and b, b as c.
    Nothing otherwise (`require("./a").b`, a nested or rest pattern's names)."""
    declarator = call.parent
    if declarator is None or declarator.type != "variable_declarator":
        return (), ()
    target = declarator.child_by_field_name("name")
    if target is None:
        return (), ()
    if target.type == "identifier":
        return (), (_text(target, data),)
    names: list[str] = []
    aliases: list[str] = []
    for part in target.named_children if target.type == "object_pattern" else ():
        if part.type == "shorthand_property_identifier_pattern":
            names.append(_text(part, data))
            aliases.append("")
        elif part.type == "pair_pattern":
            key, value = part.child_by_field_name("key"), part.child_by_field_name("value")
            plain = key is not None and key.type == "property_identifier"  # not `[computed]: v`
            if plain and value is not None and value.type == "identifier":
                names.append(_text(key, data))
                aliases.append(_text(value, data))
    return tuple(names), _aliases(names, aliases)


def _local_exports(root: Node, data: bytes) -> list[tuple[str, str]]:
    """(local name, the name it is exported under) for each name a top-level export without a
    source exports, in document order: `export { x }`, `export { x as y }`, `export default x`,
    and the named declaration of `export default class X` / `function x()` (exported as
    `default`); the module as a whole, TypeScript's `export = X` and CommonJS `module.exports =
    X`, is its `default` too. An anonymous default (`export default function () {}`, `export
    default {}`) exports no local name; `export class X` exports X as itself, which is nothing
    to record. The form is read from the statement's tokens, wherever comments put
    them (`export /* main */ default X`); an `export default` the grammar splits at a line break
    after `export` is read from the pieces it leaves (`_split_default`)."""
    out: list[tuple[str, str]] = []
    commonjs = b"module.exports" in data  # else its statements are not looked into
    nodes = root.named_children
    for i, node in enumerate(nodes):
        if node.type == "expression_statement":
            split = _split_default(nodes, i, data) if data.startswith(b"export", node.start_byte) else None
            out += [(_text(split, data), "default")] if split is not None else ()
            out += _module_exports(node.named_child(0), data) if commonjs else ()
            continue
        if node.type != "export_statement":
            continue
        form = _export_form(node)
        if form == "default":
            name = _default_name(node.child_by_field_name("value") or node.child_by_field_name("declaration"))
            out += [(_text(name, data), "default")] if name is not None else ()
        elif form == "=":  # TypeScript `export = X;` (`export as namespace X;` is a global's name)
            value = next((c for c in node.named_children if c.type != "comment"), None)
            out += [(_text(value, data), "default")] if value is not None and value.type == "identifier" else ()
        elif form in ("export_clause", "type") and node.child_by_field_name("source") is None:
            for clause in node.named_children:
                for spec in clause.named_children if clause.type == "export_clause" else ():
                    if spec.type == "export_specifier":
                        name = _js_name(spec.child_by_field_name("name"), data)
                        alias = spec.child_by_field_name("alias")
                        out.append((name, _js_name(alias, data) if alias is not None else name))
    return out


_BEFORE_FORM = frozenset({"comment", "export", "decorator"})  # what may stand before an export's form


def _export_form(node: Node) -> str:
    """The token after an export statement's `export` that says its form (`default`, `=`, an
    `export_clause`, `type`, a declaration), comments skipped (`export /* main */ default X`);
    "" when there is none."""
    second = node.child(1)  # the usual case, `export` first and no comment after it: one node asked
    if second is None or second.type not in _BEFORE_FORM:
        return second.type if second is not None else ""
    k = 0
    while (child := node.child(k)) is not None and child.type != "export":
        k += 1  # decorators of `@dec export class X` come before
    while (child := node.child(k + 1)) is not None and child.type == "comment":
        k += 1
    return child.type if child is not None else ""


def _default_name(value: Node | None) -> Node | None:
    """The local name an `export default` exports: the identifier exported, or the name of the
    declaration (`class X`, `function x()`, a TypeScript `interface X`); None for an anonymous
    or computed value."""
    if value is not None and value.type == "expression_statement" and value.named_child_count == 1:
        value = value.named_child(0)  # `X` as the grammar's recovery leaves it: a statement of its own
    if value is None:
        return None
    if value.type == "identifier":
        return value
    return value.child_by_field_name("name") if value.type.endswith("declaration") else None


def _split_default(nodes: list[Node], i: int, data: bytes) -> Node | None:
    """The name `nodes[i]` exports when it is the `export` of an `export default` split at a
    line break (`export`, then `default class X {}` on the next line: the grammars read a
    statement `export`, an error holding `default`, then the declaration or `X;`; TypeScript
    reads `export`, then `default X;` as a statement `default` with X in an error). None
    otherwise, and for an anonymous default."""
    first = nodes[i].named_child(0)
    if first is None or first.type != "identifier" or data[first.start_byte:first.end_byte] != b"export":
        return None
    if i + 1 >= len(nodes) or any(c.type != "comment" for c in nodes[i].named_children[1:]):
        return None
    after = nodes[i + 1]
    if after.type == "ERROR" and _text(after, data) == "default":
        return _default_name(nodes[i + 2]) if i + 2 < len(nodes) else None
    head = after.named_child(0) if after.type == "expression_statement" else None
    if head is not None and head.type == "identifier" and _text(head, data) == "default":
        error = after.named_child(1)
        value = error.named_child(0) if error is not None and error.type == "ERROR" else None
        return value if value is not None and value.type == "identifier" else None
    return None


def _module_exports(node: Node | None, data: bytes) -> list[tuple[str, str]]:
    """CommonJS `module.exports = X` (or a named class or function): X is the module as a
    whole, exported as `default`, what an ESM default import of it binds, and `const m =
    require` (`_require_bindings`)."""
    if node is None or node.type != "assignment_expression":
        return []
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None or _compact(left, data) != "module.exports":
        return []
    name = right if right.type == "identifier" else right.child_by_field_name("name") if right.type in (
        "class", "function_expression") else None
    return [(_text(name, data), "default")] if name is not None else []


def js_exports(root: Node, data: bytes, found: list[ImportSpec]) -> tuple[list[ImportSpec], list[tuple[str, str]]]:
    """JS/TS: `found` with the `exports` of each import whose bindings the file exports
    without a source (`import { x } from "./a"; export { x }` re-exports x), the rest as is;
    and the file's own names it exports under another name (`BlobFacts.exported_as`:
    `export default class Bar` -> ("Bar", "default"), `export { a as b }` -> ("a", "b")). Only
    the top-level statements of a file that says `export` are read."""
    if b"export" not in data:
        return found, []
    if b"exports." in data:
        found = found + _reexported_defaults(root, data, found)
    exported = _local_exports(root, data)
    if not exported:
        return found, []
    first: dict[str, str] = {}
    for local, name in exported:
        first.setdefault(local, name)
    out = []
    for imp in found:
        if imp.kind == "js" and imp.names and not imp.exports:
            exports = tuple(first.get(imp.local(i), "") for i in range(len(imp.names)))
            if any(exports):
                imp = ImportSpec(imp.kind, imp.spec, imp.line, imp.level, imp.names, imp.aliases, exports)
        out.append(imp)
    renamed = [(local, name) for local, name in exported if local != name]
    if renamed:  # an imported binding exported is its import's `exports`, not a name of the file's own
        imported = {imp.local(i) for imp in found if imp.kind == "js" for i in range(len(imp.names))}
        renamed = [pair for pair in dict.fromkeys(renamed) if pair[0] not in imported]
    return out, renamed


def _reexported_defaults(root: Node, data: bytes, found: list[ImportSpec]) -> list[ImportSpec]:
    """The default of a module bound whole that the file exports under a name: `const m =
    require("./a"); exports.X = m.default;` (or `module.exports.X = m.default`) -> an import of
    "./a" on the `require`'s line (the edge it resolves to) binding its default as X and
    exporting it as X, as `exports.X = require("./a").default` does. Top-level statements only,
    in document order, each once."""
    modules = {imp.aliases[0]: imp for imp in found if imp.kind == "js" and not imp.names and len(imp.aliases) == 1}
    out: dict[ImportSpec, None] = {}
    for node in root.named_children if modules else ():
        assignment = node.named_child(0) if node.type == "expression_statement" else None
        if assignment is None or assignment.type != "assignment_expression":
            continue
        right = assignment.child_by_field_name("right")
        if right is None or right.type != "member_expression" or _text(right.child_by_field_name("property"), data) != JS_DEFAULT:
            continue
        module = modules.get(_text(right.child_by_field_name("object"), data))
        exported = _exports_member(assignment.child_by_field_name("left"), data) if module is not None else None
        if module is not None and exported is not None:
            aliases = (exported,) if exported != JS_DEFAULT else ()
            out[ImportSpec("js", module.spec, module.line, 0, (JS_DEFAULT,), aliases, (exported,))] = None
    return list(out)


def es_module(root: Node, data: bytes) -> bool:
    """Does the JS/TS file export by ES syntax (an `export` statement at the top, other than
    TypeScript's `export = X`)? A `require` of it then returns its module object, whose
    `default` is its default export; of any other file, what it assigns `module.exports`."""
    if b"export" not in data:
        return False
    return any(node.type == "export_statement" and _export_form(node) != "=" for node in root.named_children)


def _go(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    return [ImportSpec("go", _unquote(_text(caps["spec"][0], data)), _line(node))]


def _rust_inline_modules(node: Node, data: bytes) -> list[str]:
    """The inline `mod m { ... }` blocks around `node`, outermost first."""
    names = []
    parent = node.parent
    while parent is not None:
        if parent.type == "mod_item":
            names.append(_text(parent.child_by_field_name("name"), data))
        parent = parent.parent
    return names[::-1]


def _rust_path_attribute(node: Node, data: bytes) -> str | None:
    """The `#[path = "..."]` among the attributes right above a `mod` declaration."""
    sibling = node.prev_named_sibling
    while sibling is not None and sibling.type in ("attribute_item", "line_comment", "block_comment"):
        attribute = sibling.named_children[0] if sibling.type == "attribute_item" and sibling.named_child_count else None
        if attribute is not None and attribute.named_child_count and _text(attribute.named_children[0], data) == "path":
            value = attribute.child_by_field_name("value")
            if value is not None and value.type == "string_literal":
                return _unquote(_text(value, data))
        sibling = sibling.prev_named_sibling
    return None


def _rust_mod(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    inline = _rust_inline_modules(node, data)
    spec = "::".join([*inline, _text(caps["spec"][0], data)])
    path = _rust_path_attribute(node, data)
    return [ImportSpec("rust_mod", spec, _line(node), len(inline), (path,) if path is not None else ())]


_RUST_COMMENTS = ("line_comment", "block_comment")


def _rust_use_tree(node: Node, data: bytes) -> tuple[str, list[str]]:
    """A use tree as compact text without its aliases and comments (compacting would glue both
    into its names), and the alias of each path it names, in the order use_paths expands them
    ("" for a path kept as is): `conn::{self as k, A, B as C}` -> ("conn::{self,A,B}", ["k",
    "", "C"]). `load as load_config` imports `load`; the alias is the local name."""
    if node.type == "use_as_clause":
        text = _rust_use_tree(node.child_by_field_name("path"), data)[0]  # a plain path: no group
        alias = _text(node.child_by_field_name("alias"), data)
        return text, ["" if alias == text.rsplit("::", 1)[-1] else alias]
    if node.type == "use_list":
        items = _rust_use_items(node, data)
        # an empty group names its own path (use_paths): one path, not renamed
        return "{" + ",".join(t for t, _ in items) + "}", [a for _, al in items for a in al] or [""]
    if node.type == "scoped_use_list":
        path, items = node.child_by_field_name("path"), node.child_by_field_name("list")
        group, aliases = _rust_use_tree(items, data) if items is not None else ("{}", [""])
        return (f"{_compact(path, data)}::{group}" if path is not None else group), aliases
    return _compact(node, data), [""]


def _rust_use_items(group: Node | None, data: bytes) -> list[tuple[str, list[str]]]:
    if group is None:
        return []
    return [_rust_use_tree(i, data) for i in group.named_children if i.type not in _RUST_COMMENTS]


def _rust_group(line: int, depth: int, spec: str, group: Node | None, data: bytes) -> ImportSpec:
    """A `use` with a group: its items as names, each item's path aliases joined by "," as its alias."""
    items = _rust_use_items(group, data)
    aliases = tuple(",".join(al) if any(al) else "" for _, al in items)
    return ImportSpec("rust_use", spec, line, depth, tuple(t for t, _ in items), aliases if any(aliases) else ())


def _rust_use(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    specs = _rust_use_specs(caps["spec"][0], _line(node), len(_rust_inline_modules(node, data)), data, "")
    visibility = _rust_visibility(node, data)
    return [msgspec.structs.replace(spec, visibility=visibility) for spec in specs] if visibility else specs


def _rust_use_specs(arg: Node, line: int, depth: int, data: bytes, prefix: str) -> list[ImportSpec]:
    """The imports of a use tree: one, unless its braces come first (`use {crate::a::X,
    std::fmt};`, `use ::{serde::Serialize, log};`), where each item is read as a `use` of its own
    (`use crate::a::X;`, `use std::fmt;`, `use ::serde::Serialize;`): the paths of a group share
    no head to start from. `prefix` is the `::` before such braces."""
    if arg.type == "scoped_use_list" and arg.child_by_field_name("path") is None:
        arg, prefix = arg.child_by_field_name("list"), prefix or "::"
        if arg is None:
            return []
    if arg.type == "use_list":
        return [spec for item in arg.named_children if item.type not in _RUST_COMMENTS
                for spec in _rust_use_specs(item, line, depth, data, prefix)]
    spec = _rust_use_spec(arg, line, depth, data)
    return [msgspec.structs.replace(spec, spec=prefix + spec.spec) if prefix else spec]


def _rust_visibility(node: Node, data: bytes) -> str:
    """A `use`'s visibility modifier, compact; "" for none and for `pub(self)` (private)."""
    modifier = next((c for c in node.named_children if c.type == "visibility_modifier"), None)
    text = " ".join(_text(modifier, data).split()).replace("( ", "(").replace(" )", ")")
    return "" if text == "pub(self)" else text


def _rust_use_spec(arg: Node, line: int, depth: int, data: bytes) -> ImportSpec:
    if arg.type == "scoped_use_list":
        return _rust_group(line, depth, _compact(arg.child_by_field_name("path"), data),
                           arg.child_by_field_name("list"), data)
    if arg.type == "use_wildcard":
        path = arg.named_children[0] if arg.named_child_count else None
        return ImportSpec("rust_use", _compact(path, data), line, depth, ("*",))
    if arg.type == "use_as_clause":
        path, aliases = _rust_use_tree(arg, data)
        return ImportSpec("rust_use", path, line, depth, aliases=tuple(a for a in aliases if a))
    return ImportSpec("rust_use", _compact(arg, data), line, depth)


def _rust_extern(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    alias = node.child_by_field_name("alias")
    aliases = (_text(alias, data),) if alias is not None else ()
    return [ImportSpec("rust_extern", _text(caps["spec"][0], data), _line(node), aliases=aliases)]


def _java(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    spec = ""
    wildcard = False
    for child in node.named_children:
        if child.type in ("scoped_identifier", "identifier"):
            spec = _compact(child, data)
        elif child.type == "asterisk":
            wildcard = True
    if not spec:
        return []
    return [ImportSpec("java", spec + ".*" if wildcard else spec, _line(node))]


def _c_include(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    return [ImportSpec("c_include", _unquote(_text(caps["spec"][0], data)), _line(node))]


def _c_system_include(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    return [ImportSpec("c_system_include", _unquote(_text(caps["spec"][0], data)), _line(node))]


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
        out.append(ImportSpec(kind, _unquote(spec), line))
    return out


def _is_directive(root: Node, hash_at: int) -> bool:
    node: Node | None = root.descendant_for_byte_range(hash_at, hash_at + 1)
    while node is not None:
        if node.type in NOT_DIRECTIVE:
            return False
        node = node.parent
    return True


_TYPE_ARGUMENTS = re.compile(r"<[^<>]*>")


def _csharp_using(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    # `using A.B;`, `using static A.B;`, `global using A;`, `using X = A.B;`: the last name.
    spec = ""
    for child in node.named_children:
        if child.type in ("identifier", "qualified_name", "generic_name", "alias_qualified_name"):
            spec = _compact(child, data)
    # `using M = A.Maybe<B.Info>;` names the type A.Maybe: its arguments are no part of the
    # path the resolver looks up (innermost first, for nested ones)
    while "<" in spec:
        spec, count = _TYPE_ARGUMENTS.subn("", spec)
        if not count:
            break
    alias = _text(node.child_by_field_name("name"), data)  # `using U = A.B;`: U
    aliases = _aliases([spec.rsplit(".", 1)[-1]], [alias]) if alias else ()
    keywords = {c.type for c in node.children if not c.is_named}
    kind = "csharp_global_using" if "global" in keywords else "csharp_using"
    names = ("*",) if "static" in keywords else ()  # the type's static members
    return [ImportSpec(kind, spec, _line(node), names=names, aliases=aliases)] if spec else []


# The file's own directory, as Ruby code spells it when it builds a path to require.
_RUBY_HERE = frozenset({"__dir__", "File.dirname(__FILE__)", "File.dirname__FILE__",
                        "File.expand_path(File.dirname(__FILE__))", "File.expand_path(__dir__)"})


def _beside(rel: str) -> str:
    return rel if rel.startswith(("./", "../")) else "./" + rel


def _ruby_literal(node: Node, data: bytes) -> str | None:
    if node.type == "string" and all(c.type == "string_content" for c in node.named_children):
        return "".join(_text(c, data) for c in node.named_children)
    return None


def _ruby_path(node: Node, data: bytes) -> str | None:
    """What a `require` or `autoload` argument names: a literal as written (a load-path
    name), or a path built from the file's own location (`File.expand_path("x", __dir__)`,
    `File.join(__dir__, "x")`, `"#{__dir__}/x"`, `File.dirname(__FILE__) + "/x"`) as "./x"
    beside the file. An interpolated string comes back as written; None for any other
    expression."""
    literal = _ruby_literal(node, data)
    if literal is not None:
        return literal
    parts = node.named_children
    if node.type == "string" and len(parts) == 2 and parts[0].type == "interpolation" \
            and _compact(parts[0], data)[2:-1] in _RUBY_HERE and parts[1].type == "string_content":
        if _text(parts[1], data).startswith("/"):
            return "." + _text(parts[1], data)
    if node.type == "string":
        return _compact(node, data)[1:-1]  # interpolated otherwise: kept as written, resolves nowhere
    if node.type == "binary" and _text(node.child_by_field_name("operator"), data) == "+" \
            and _compact(node.child_by_field_name("left"), data) in _RUBY_HERE:
        rest = _ruby_literal(node.child_by_field_name("right"), data)
        return "." + rest if rest is not None and rest.startswith("/") else None
    if node.type != "call" or _text(node.child_by_field_name("receiver"), data) != "File":
        return None
    method = _text(node.child_by_field_name("method"), data)
    args = node.child_by_field_name("arguments")
    args = args.named_children if args is not None else []
    if method == "join" and len(args) >= 2 and _compact(args[0], data) in _RUBY_HERE:
        rest = [_ruby_literal(a, data) for a in args[1:]]
        return _beside("/".join(rest)) if None not in rest else None
    if method == "expand_path" and len(args) == 2:
        rel, base = _ruby_literal(args[0], data), _compact(args[1], data)
        if rel is None:
            return None
        if base in _RUBY_HERE:
            return _beside(rel)
        if base == "__FILE__" and rel.startswith("../"):
            return _beside(rel[3:])  # relative to the file as if it were a directory: `..` is its own
    return None


def _ruby(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    spec = _ruby_path(caps["spec"][0], data)
    if spec is None:
        return []
    if _text(caps["fn"][0], data) == "require_relative":
        spec = _beside(spec)
    return [ImportSpec("ruby_require", spec, _line(node))]


def _php_string(node: Node, data: bytes) -> str | None:
    if node.type in ("string", "encapsed_string"):
        return "".join(_text(c, data) for c in node.named_children if c.type == "string_content") \
            if node.named_child_count else _unquote(_text(node, data))
    return None


def _php_require(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    if not node.named_child_count:
        return []
    arg = node.named_children[0]
    if arg.type == "parenthesized_expression" and arg.named_child_count:
        arg = arg.named_children[0]
    spec = _php_string(arg, data)
    if spec is None and arg.type == "binary_expression":
        left, right = arg.child_by_field_name("left"), arg.child_by_field_name("right")
        tail = _php_string(right, data) if right is not None else None
        base = _php_dir(left, data) if left is not None else None
        if base is not None and tail:
            spec = base + "/" + tail.lstrip("/")
    return [ImportSpec("php_require", spec, _line(node))] if spec else []


_PHP_DIRNAME = re.compile(r"dirname\((__DIR__|__FILE__|dirname\(__FILE__\))(?:,(\d))?\)")


def _php_dir(node: Node, data: bytes) -> str | None:
    """The directory an include path is built from, relative to the file: `__DIR__` ->
    ".", `dirname(__DIR__)` -> "..", `dirname(__DIR__, 2)` -> "../..", and the same
    followed by `. DIRECTORY_SEPARATOR`. None for anything else."""
    while node.type == "binary_expression":  # a loop, not recursion: the chain may be long
        right = node.child_by_field_name("right")
        left = node.child_by_field_name("left")
        if right is None or left is None or _text(right, data) != "DIRECTORY_SEPARATOR":
            return None
        node = left
    text = _compact(node, data)
    if text in ("__DIR__", "dirname(__FILE__)"):
        return "."
    m = _PHP_DIRNAME.fullmatch(text)
    if m is None:
        return None
    # each dirname climbs one level from the file's own directory (`dirname(__FILE__)` is it)
    levels = int(m.group(2) or 1) - (m.group(1) == "__FILE__")
    return "/".join([".."] * levels) or "."


def _php_use_kind(node: Node, default: str = "php_use") -> str:
    """The kind of import the node's own keyword says (`use function a\\b;`, `use
    A\\{function b}`: "php_use_function"; `const`: "php_use_const"), else `default`."""
    kind = next((c.type for c in node.children if c.type in ("function", "const")), None)
    return f"php_use_{kind}" if kind else default


def _php_use(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    out = []
    prefix = ""
    clauses: list[Node] = []
    group_kind = _php_use_kind(node)
    for child in node.named_children:
        if child.type == "namespace_name":
            prefix = _compact(child, data)
        elif child.type == "namespace_use_clause":
            clauses.append(child)
        elif child.type == "namespace_use_group":
            clauses.extend(c for c in child.named_children if c.type == "namespace_use_clause")
    if clauses and not prefix:
        # the grammar hangs `use function a\f, a\g;`'s keyword on the first clause: it says
        # the kind of every clause, as only a group's own clauses say their own
        group_kind = _php_use_kind(clauses[0], group_kind)
    for clause in clauses:
        target = next((c for c in clause.named_children if c.type in ("qualified_name", "name")), None)
        if target is None:
            continue
        name = _compact(target, data).lstrip("\\")
        alias = _text(clause.child_by_field_name("alias"), data)
        out.append(ImportSpec(_php_use_kind(clause, group_kind), f"{prefix}\\{name}" if prefix else name,
                              _line(clause),
                              aliases=_aliases([name.rsplit("\\", 1)[-1]], [alias]) if alias else ()))
    return out


def _bash_source(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    return [ImportSpec("bash_source", _unquote(_text(caps["spec"][0], data)), _line(node))]


HANDLERS: dict[str, Callable[[Node, dict[str, list[Node]], bytes], list[ImportSpec]]] = {
    "import.python": _python,
    "import.python_from": _python_from,
    "import.js": _js,
    "import.go": _go,
    "import.rust_mod": _rust_mod,
    "import.rust_use": _rust_use,
    "import.rust_extern": _rust_extern,
    "import.java": _java,
    "import.c_include": _c_include,
    "import.c_system_include": _c_system_include,
    "import.csharp_using": _csharp_using,
    "import.ruby": _ruby,
    "import.php_require": _php_require,
    "import.php_use": _php_use,
    "import.bash_source": _bash_source,
}
