"""What a JavaScript or TypeScript import binds, as the references and symbol queries ask it
(indexer/lang/bindings.py).

`import { b as c } from` binds b as c; a module bound whole (`const m = require("./a")`,
`import m = require("./a")`) binds what it exports as a whole, its `default` (`module.exports
= X`, `export = X`), unless the module exports by ES syntax: then it binds its module object,
as `import * as m` does (`m.default()` uses its default export, `m()` does not). An import
offers its importers only what it exports (`export { b as c } from`, an imported binding named
by `export { x }`), never what a plain `import` binds.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Iterable

from indexer.lang.bindings_base import SCRIPT_NAMES, Bindings, SiteSyntax, attribute_syntax

if TYPE_CHECKING:
    from indexer.model import ImportSpec
    from indexer.store.snapshot import Snapshot

JS_DEFAULT = "default"  # what a JS or TS module exports its default export as, and imports it by
# what may stand before a key of an object literal or pattern on its line (`{ name: v }`, `a,
# name: v`, a key alone on its line), or a TypeScript member's or parameter's name (`name?: T`)
_KEY_BEFORE = (b"{", b",", b"(")
_EXPORTS = (("exports",), ("module", "exports"))
# TypeScript's non-null assertion before a dot (`this.lid!.open()`): no JavaScript writes `!`
# after a name, `)` or `]` before a dot, so the receiver reads as without it
_NON_NULL = re.compile(rb"(?<=[\w$)\]])[ \t]*!(?=[ \t]*\.)")
_THIS = re.compile(rb"\s*this\s*(?:;|,|$)")  # the whole value of a declaration: `this`, no `this.x`


class JavaScriptBindings(Bindings):
    language = "javascript"
    lists_names = True
    default_export = JS_DEFAULT
    renames_exports = True
    imports_declare_variables = True
    instance_names = frozenset({"this"})

    def site_syntax(self, line: bytes, col: int, name: str) -> SiteSyntax | None:
        """`x.name` (and `x?.name`, `x!.name`) an attribute of the dotted names before it (of nothing known
        after a call or subscript: `f().name`, `a[0].name`); a key of an object literal or
        pattern (`{ name: v }`, `const { name: alias } = o`), a label, or a TypeScript member's
        or parameter's name with its type (`name: T`, `name?: T`) a property's name, no use of a
        binding (`keyword`); anything else bare."""
        before = line[:col].rstrip()
        if b"!" in before:
            before = _NON_NULL.sub(b"", before)
        if before.endswith(b"?."):
            before = before[:-2].rstrip() + b"."
        if before.endswith(b"."):
            return attribute_syntax(before, SCRIPT_NAMES)
        after = line[col + len(name.encode()):].lstrip()
        if after.startswith(b"?"):
            after = after[1:].lstrip()
        if after.startswith(b":") and (not before or before.endswith(_KEY_BEFORE)):
            return SiteSyntax("keyword")
        return SiteSyntax("bare")

    def instance_alias(self, line: bytes, name: str) -> bool | None:
        """`const self = this` (`let`, `var`, `var that = this`, `const self: C = this`)
        declares an alias of `this`; another declaration of the name on the line (`const self =
        other`, `let self;`, a parameter `function (self)`, `self =>`) declares something else."""
        declaring, alone, arrow = _alias_patterns(name)
        declared = declaring.search(line)
        if declared is not None:
            return bool(declared.group(1)) and _THIS.match(line, declared.end()) is not None
        if _parameter(line, alone) or arrow.search(line):
            return False  # a parameter of a function or an arrow
        return None

    def binds_namespace(self, spec: ImportSpec, local: str) -> bool:
        """`import * as ns`, `import m from` and `const m = require(...)` bind an object whose
        attributes are the module's names (a module's default may be one: `module.exports =
        { get }`); `import { Request }` binds a name the module defines."""
        return any(name in ("*", JS_DEFAULT) for name, bound in self.binds(spec) if bound == local)

    def imports_by_call(self, callee: tuple[str, ...]) -> bool:
        return callee == ("require",)

    def own_module(self, receiver: tuple[str, ...]) -> bool:
        return receiver in _EXPORTS

    def binds(self, spec: ImportSpec) -> Iterable[tuple[str, str]]:
        if not spec.names:  # the module itself (`const m = require(...)`): what it exports as a whole
            return ((JS_DEFAULT, spec.aliases[0]),) if spec.aliases else ()
        # `export { default } from` binds no name of the file
        return ((name, local) for i, name in enumerate(spec.names) if (local := spec.local(i)) != JS_DEFAULT)

    def target_binds(self, snap: Snapshot, spec: ImportSpec, target: str) -> Iterable[tuple[str, str]]:
        if not spec.names and spec.aliases and _es_module(snap, target):
            return (("*", spec.aliases[0]),)
        return self.binds(spec)

    def default_binds_whole(self, snap: Snapshot, spec: ImportSpec, target: str) -> bool:
        """`import m from "./m"` of a CommonJS module binds its `module.exports`, what `const m =
        require("./m")` binds: `m.get` is an attribute of it as it is of the `require`'s. So
        does one of an ES module whose default export is no name of its own nor another's
        (`export default { get, set }`, a module of helpers), read as the object of its names."""
        if JS_DEFAULT not in spec.names:
            return False
        facts = snap.import_facts(target)
        if facts is None or not facts.es_module:
            return True
        return not any(name == JS_DEFAULT for _, name in facts.exported_as) and not any(
            JS_DEFAULT in imp.exports for imp in facts.imports)

    def offered(self, spec: ImportSpec) -> Iterable[tuple[str, str]]:
        return zip(spec.names, spec.exports)

    def public_basis(self, parts: list[str], kind: str, signature: str) -> str | None:
        """A top-level name is public when exported; a class member unless `_` or `#` private."""
        if len(parts) == 1:
            return "js:export" if signature.lstrip().startswith("export") else None
        return None if parts[-1].startswith(("_", "#")) else "js:class_member"

    def binds_variable(self, spec: ImportSpec, line: int) -> bool:
        """Does the import declare a variable on `line` (`const W = require(...)`)?"""
        return spec.kind == "js" and spec.line == line


@functools.lru_cache(maxsize=1024)  # once a name: a query of many names outgrows re's own cache
def _alias_patterns(name: str) -> tuple[re.Pattern[bytes], re.Pattern[bytes], re.Pattern[bytes]]:
    """A declaration of `name` (group 1 its `=`), the name standing alone, and it before `=>`."""
    word = re.escape(name.encode())
    alone = rb"(?<![\w$.])" + word + rb"(?![\w$.])"
    return (re.compile(rb"\b(?:const|let|var)\s+" + word + rb"(?![\w$])\s*(?::[^=]*)?(=?)"),
            re.compile(alone), re.compile(alone + rb"\s*=>"))


def _es_module(snap: Snapshot, path: str) -> bool:
    facts = snap.import_facts(path)
    return facts is not None and facts.es_module


def _parameter(line: bytes, alone: re.Pattern[bytes]) -> bool:
    """Does a parenthesis of the line open a function's parameters holding the name `alone`
    finds (`function f(a, self)`: `\\bfunction\\b[^(]*\\([^()]*NAME`) or an arrow's (`(a, self) =>`,
    `(self): T =>`: `\\([^()]*NAME[^()]*\\)\\s*(?::[^=]*)?=>`)? Read from each parenthesis once,
    in the line's order: searched for those patterns, a line of many parentheses was read
    again from each."""
    opened = -1  # the parenthesis before the one read
    equals = -1  # the first `=` at or after `after` below, kept while it is ahead
    for m in _PARENTHESES.finditer(line):
        at = m.start()
        if line[at] != 0x28:  # `)`
            continue
        shut = _PARENTHESES.search(line, at + 1)
        close = shut.start() if shut is not None else len(line)
        held = alone.search(line, at + 1, close) is not None
        if held and _FUNCTION.search(line, opened + 1, at) is not None:
            return True
        opened = at
        if held and shut is not None and line[close] == 0x29:
            blanks = _BLANKS.match(line, close + 1)
            after = blanks.end() if blanks is not None else close + 1
            if line.startswith(b"=>", after):
                return True
            if line[after:after + 1] == b":":
                if equals < after:
                    found = line.find(b"=", after)
                    equals = found if found >= 0 else len(line)
                if line.startswith(b"=>", equals):
                    return True
    return False


_PARENTHESES = re.compile(rb"[()]")
_FUNCTION = re.compile(rb"\bfunction\b")
_BLANKS = re.compile(rb"\s*")
