"""JavaScript and TypeScript import statements -> `ImportSpec`s as written (indexer.lang.import_specs).

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
"""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang import ancestry
from indexer.lang.import_specs import Handler, aliases_of, compact_text, line_of, node_text, unquote
from indexer.model import ImportSpec


def _js_name(node: Node | None, data: bytes) -> str:
    """A specifier's name: an identifier, a string (`export { "a b" as c }`), or `default`,
    which the JavaScript grammar leaves without a node (`import { default as d }`)."""
    return "default" if node is None else unquote(node_text(node, data))


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
                    add("default", node_text(part, data))
                elif part.type == "namespace_import":
                    local = next((c for c in part.named_children if c.type == "identifier"), None)
                    add("*", node_text(local, data))
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
            # its name, not a comment the grammar keeps beside it (`export * as /* c */ ns`)
            name = next((c for c in child.named_children if c.type != "comment"), None)
            add("*", _js_name(name, data))
    if exporting and not names:
        add("*", "")  # `export * from "x"`
    return names, aliases, exports


def _js(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    spec = unquote(node_text(caps["spec"][0], data))
    if node.type in ("import_statement", "export_statement"):
        names, aliases, exports = _js_bindings(node, data)
        return [ImportSpec("js", spec, line_of(node), 0, tuple(names), aliases_of(names, aliases),
                           tuple(exports) if any(exports) else ())]
    if node.type == "import_require_clause":  # TypeScript `import x = require("./a")`: the module as x
        local = next((c for c in node.named_children if c.type == "identifier"), None)
        return [ImportSpec("js", spec, line_of(node), aliases=(node_text(local, data),) if local is not None else ())]
    if "fn" in caps:  # `require("./a")`
        reexport = _required_exported(node, data)
        if reexport is not None:  # `exports.X = require("./a").Y`, `module.exports = require("./a")`
            return [ImportSpec("js", spec, line_of(node), 0, *reexport)]
        return [ImportSpec("js", spec, line_of(node), 0, *_require_bindings(node, data))]
    return [ImportSpec("js", spec, line_of(node))]


JS_DEFAULT = "default"  # what a JS module exports its default export as


def _required_exported(call: Node, data: bytes) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]] | None:
    """(names, aliases, exports) of a `require` whose value the file exports at once, as the
    `export ... from` it stands for: `exports.X = require("./a").Y` (or `module.exports.X =
    ...`) re-exports a's Y as X, an alias X (`export { Y as X } from "./a"`); `module.exports =
    require("./a").Y` as the file's own default (`export { Y as default } from "./a"`).
    `module.exports = require("./a")` makes the module a's: its default and every name a offers
    (`export { default } from "./a"; export * from "./a"`); `exports.X = require("./a")` offers
    a's default, what a `require` of a CommonJS module binds, as X. None for any other use of
    the `require`."""
    member = ancestry.parent(call)
    picked = ""
    if member is not None and member.type == "member_expression" and member.child_by_field_name("object") == call:
        prop = member.child_by_field_name("property")
        if prop is None or prop.type != "property_identifier":
            return None
        picked = node_text(prop, data)
        assignment = ancestry.parent(member)
        value = member
    else:
        assignment, value = member, call
    if assignment is None or assignment.type != "assignment_expression" or assignment.child_by_field_name("right") != value:
        return None
    exported = _exports_member(assignment.child_by_field_name("left"), data)
    if exported is None:
        return None
    if not picked:
        if exported == JS_DEFAULT:
            return (JS_DEFAULT, "*"), (), (JS_DEFAULT, "*")
        picked = JS_DEFAULT
    return (picked,), aliases_of([picked], [exported]), (exported,)


def _exports_member(left: Node | None, data: bytes) -> str | None:
    """The name a CommonJS assignment's target exports: X of `exports.X` and `module.exports.X`,
    `default` of `module.exports` (the module as a whole); None for any other target."""
    target = compact_text(left, data)
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
    `import m = require("./a")`; `const { a, b: c } = require("./a")` binds a and b, b as c;
    `var c = require("./a").b` binds b as c. Nothing otherwise (`require("./a").b` unbound, a
    nested or rest pattern's names)."""
    declarator = ancestry.parent(call)
    picked = ""
    if declarator is not None and declarator.type == "member_expression" and declarator.child_by_field_name("object") == call:
        prop = declarator.child_by_field_name("property")
        if prop is None or prop.type != "property_identifier":
            return (), ()
        picked, declarator = node_text(prop, data), ancestry.parent(declarator)
    if declarator is None or declarator.type != "variable_declarator":
        return (), ()
    target = declarator.child_by_field_name("name")
    if target is None:
        return (), ()
    if target.type == "identifier":
        if picked:  # `var x = require("./a").y`: a's y as x, as `const { y: x } = require("./a")`
            return (picked,), aliases_of([picked], [node_text(target, data)])
        return (), (node_text(target, data),)
    if picked:
        return (), ()
    names: list[str] = []
    aliases: list[str] = []
    for part in target.named_children if target.type == "object_pattern" else ():
        if part.type == "shorthand_property_identifier_pattern":
            names.append(node_text(part, data))
            aliases.append("")
        elif part.type == "pair_pattern":
            key, value = part.child_by_field_name("key"), part.child_by_field_name("value")
            plain = key is not None and key.type == "property_identifier"  # not `[computed]: v`
            if plain and value is not None and value.type == "identifier":
                names.append(node_text(key, data))
                aliases.append(node_text(value, data))
    return tuple(names), aliases_of(names, aliases)


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
    commonjs = b"exports" in data  # else its statements are not looked into
    nodes = root.named_children
    for i, node in enumerate(nodes):
        if node.type == "expression_statement":
            split = _split_default(nodes, i, data) if data.startswith(b"export", node.start_byte) else None
            out += [(node_text(split, data), "default")] if split is not None else ()
            out += _module_exports(node.named_child(0), data) if commonjs else ()
            continue
        if node.type != "export_statement":
            continue
        form = _export_form(node)
        if form == "default":
            named = _default_name(node.child_by_field_name("value") or node.child_by_field_name("declaration"))
            out += [(node_text(named, data), "default")] if named is not None else ()
        elif form == "=":  # TypeScript `export = X;` (`export as namespace X;` is a global's name)
            value = next((c for c in node.named_children if c.type != "comment"), None)
            named = _ungrouped(value) if value is not None else None
            out += [(node_text(named, data), "default")] if named is not None else ()
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
    # The children listed once, as tree-sitter reaches a child by its index walking the ones
    # before it: a statement of thousands of comments (or decorators) was walked once each.
    parts = ancestry.children(node)
    k = 0
    while k < len(parts) and parts[k].type != "export":
        k += 1  # decorators of `@dec export class X` come before
    k += 1
    while k < len(parts) and parts[k].type == "comment":
        k += 1
    return parts[k].type if k < len(parts) else ""


def _default_name(value: Node | None) -> Node | None:
    """The local name an `export default` exports: the identifier exported, or the name of the
    declaration (`class X`, `function x()`, a TypeScript `interface X`); None for an anonymous
    or computed value."""
    if value is not None and value.type == "expression_statement" and value.named_child_count == 1:
        value = value.named_child(0)  # `X` as the grammar's recovery leaves it: a statement of its own
    if value is None:
        return None
    if value.type == "identifier" or value.type == "parenthesized_expression":
        return _ungrouped(value)
    return value.child_by_field_name("name") if value.type.endswith("declaration") else None


def _ungrouped(value: Node) -> Node | None:
    """The identifier `value` is, through any parentheses around it (`(Foo)`, `((Foo))`, a
    comment inside them): a grouping evaluates to what it holds, so `export default (Foo)`
    exports what `export default Foo` does. None for anything else (`(a, b)`, `(f())`, a
    parenthesised function or class, which is an expression binding no local name)."""
    for _ in range(64):  # a grouping is a few parentheses deep; past that, no name is read
        if value.type == "identifier":
            return value
        if value.type != "parenthesized_expression":
            return None
        held = [c for c in value.named_children if c.type != "comment"]
        if len(held) != 1:
            return None
        value = held[0]
    return None


def _split_default(nodes: list[Node], i: int, data: bytes) -> Node | None:
    """The name `nodes[i]` exports when it is the `export` of an `export default` split at a
    line break (`export`, then `default class X {}` on the next line: the grammars read a
    statement `export`, an error holding `default`, then the declaration or `X;`; TypeScript
    reads `export`, then `default X;` as a statement `default` with X in an error, and a
    `default` alone on its line as a statement `default`). None otherwise, and for an
    anonymous default."""
    if not _split_export(nodes, i, data):
        return None
    after = nodes[i + 1]
    # `default` alone on its line: an error of JavaScript's, a statement of TypeScript's; what
    # comes on the next is exported, no semicolon being inserted after `default`
    if after.type in ("ERROR", "expression_statement") and node_text(after, data) == "default":
        return _default_name(nodes[i + 2]) if i + 2 < len(nodes) else None
    # `named_child` raises past the last child: `default` may end the file with nothing after it
    head = after.named_child(0) if after.type == "expression_statement" and after.named_child_count else None
    if head is not None and head.type == "identifier" and node_text(head, data) == "default":
        error = after.named_child(1) if after.named_child_count > 1 else None
        value = error.named_child(0) if error is not None and error.type == "ERROR" and error.named_child_count else None
        return value if value is not None and value.type == "identifier" else None
    # TypeScript reads `default (X);` as a call of a function `default`: its one argument is
    # the value exported, through any parentheses (`export default (X)`, `_ungrouped`)
    if head is not None and head.type == "call_expression":
        callee, arguments = head.child_by_field_name("function"), head.child_by_field_name("arguments")
        if callee is not None and node_text(callee, data) == "default" and arguments is not None:
            held = [c for c in arguments.named_children if c.type != "comment"]
            return _ungrouped(held[0]) if len(held) == 1 else None
    return None


def _split_export(nodes: list[Node], i: int, data: bytes) -> bool:
    """Is `nodes[i]` the `export` of an `export default` split at a line break: a statement of
    the word `export` alone (comments aside), the next one starting with `default`? `export`
    is a reserved word, so such a statement is no expression of a script's."""
    first = nodes[i].named_child(0)
    if first is None or first.type != "identifier" or data[first.start_byte:first.end_byte] != b"export":
        return False
    if i + 1 >= len(nodes) or any(c.type != "comment" for c in nodes[i].named_children[1:]):
        return False
    return data.startswith(b"default", nodes[i + 1].start_byte)


def _module_exports(node: Node | None, data: bytes) -> list[tuple[str, str]]:
    """CommonJS `module.exports = X` (or a named class or function), through a chain of
    assignments (`exports = module.exports = X`): X is the module as a whole, exported as
    `default`, what an ESM default import of it binds, and `const m = require`
    (`_require_bindings`). `exports.Y = X` and `module.exports.Y = X` export the name X as Y."""
    if node is None or node.type != "assignment_expression":
        return []
    targets = []
    right: Node | None = node
    for _ in range(8):  # a chain is a few assignments long
        if right is None or right.type != "assignment_expression":
            break
        targets.append(_exports_member(right.child_by_field_name("left"), data))
        right = right.child_by_field_name("right")
    if right is None or not any(targets):
        return []
    right = _ungrouped(right) or right if right.type == "parenthesized_expression" else right
    name = right if right.type == "identifier" else right.child_by_field_name("name") if right.type in (
        "class", "function_expression") else None
    if name is None:
        return []
    local = node_text(name, data)
    return [(local, exported) for exported in dict.fromkeys(targets) if exported is not None
            and (exported == JS_DEFAULT or right.type == "identifier")]


def js_exports(root: Node, data: bytes, found: list[ImportSpec]) -> tuple[list[ImportSpec], list[tuple[str, str]]]:
    """JS/TS: `found` with the `exports` of each import whose bindings the file exports
    without a source (`import { x } from "./a"; export { x }` re-exports x), the rest as is;
    and the file's own names it exports under another name (`BlobFacts.exported_as`:
    `export default class Bar` -> ("Bar", "default"), `export { a as b }` -> ("a", "b")). Only
    the top-level statements of a file that says `export` are read."""
    if b"export" not in data:
        return found, []
    if b"exports" in data:
        found = found + _reexported_modules(root, data, found)
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


def _reexported_modules(root: Node, data: bytes, found: list[ImportSpec]) -> list[ImportSpec]:
    """A module bound whole that the file exports, or its default: `const m = require("./a");
    exports.X = m.default;` (or `module.exports.X = m.default`) -> an import of "./a" on the
    `require`'s line (the edge it resolves to) binding its default as X and exporting it as X,
    as `exports.X = require("./a").default` does; `exports.X = m` the same (what `require` of a
    CommonJS module binds is its default), and `module.exports = m` makes the module a's, as
    `module.exports = require("./a")` does (`_required_exported`). Top-level statements only, in
    document order, each once."""
    modules = {imp.aliases[0]: imp for imp in found if imp.kind == "js" and not imp.names and len(imp.aliases) == 1}
    out: dict[ImportSpec, None] = {}
    for node in root.named_children if modules else ():
        assignment = node.named_child(0) if node.type == "expression_statement" else None
        if assignment is None or assignment.type != "assignment_expression":
            continue
        right = assignment.child_by_field_name("right")
        if right is not None and right.type == "member_expression" and node_text(right.child_by_field_name("property"), data) == JS_DEFAULT:
            bound, whole = right.child_by_field_name("object"), False
        elif right is not None and right.type == "identifier":
            bound, whole = right, True
        else:
            continue
        module = modules.get(node_text(bound, data))
        exported = _exports_member(assignment.child_by_field_name("left"), data) if module is not None else None
        if module is None or exported is None:
            continue
        if whole and exported == JS_DEFAULT:
            names: tuple[str, ...] = (JS_DEFAULT, "*")
            out[ImportSpec("js", module.spec, module.line, 0, names, (), names)] = None
        else:
            aliases = (exported,) if exported != JS_DEFAULT else ()
            out[ImportSpec("js", module.spec, module.line, 0, (JS_DEFAULT,), aliases, (exported,))] = None
    return list(out)


def es_module(root: Node, data: bytes) -> bool:
    """Does the JS/TS file export by ES syntax (an `export` statement at the top, other than
    TypeScript's `export = X`)? A `require` of it then returns its module object, whose
    `default` is its default export; of any other file, what it assigns `module.exports`. An
    `export default` the grammar splits at a line break after `export` is one too."""
    if b"export" not in data:
        return False
    nodes = root.named_children
    return any(node.type == "export_statement" and _export_form(node) != "="
               or node.type == "expression_statement" and _split_export(nodes, i, data) for i, node in enumerate(nodes))


HANDLERS: dict[str, Handler] = {
    "import.js": _js,
}
