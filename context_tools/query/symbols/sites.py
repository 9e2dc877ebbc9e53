"""Reference sites of a name in one snapshot, each tagged with how it was tied to the
definitions asked about: `same_file`, `same_package`, `import`, `name_match` or, in a file of
prose, markup or data, `text` (see the package's docstring). What each language binds is asked of its bindings
(indexer/lang/bindings.py): by an import's kind, a file's language, or the language a package
key starts with."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol

from context_tools.query.symbols.answers import RESOLUTIONS, Site
from context_tools.query.symbols.imports import alias_sites, imports_any, relays, specs_of, target_binds
from context_tools.query.symbols.members import LANGUAGES as MEMBER_LANGUAGES
from context_tools.query.symbols.members import MemberSites
from context_tools.query.symbols.names import anchor, name_parts
from indexer.lang.bindings import Bindings, Scopes, of_import, of_language, of_path, same_import
from indexer.lang.registry import PROSE_AND_DATA

if TYPE_CHECKING:
    from context_tools.query.symbols.lookup import Hit
    from indexer.model import Occurrence
    from indexer.store.snapshot import Snapshot

ORDER = {"same_file": 0, "same_package": 1, "import": 2, "name_match": 3, "text": 4}
MODULE_KINDS = frozenset({"module", "namespace", "package"})


class SiteQuery(Protocol):
    """What the references input asks of the sites."""

    @property
    def name(self) -> str: ...

    @property
    def include_definitions(self) -> bool: ...

    @property
    def resolution(self) -> str | None: ...


def sites_of(snap: Snapshot, input: SiteQuery, defs: list[Hit], imported_from_members: set[str] | frozenset[str] = frozenset(),
             via: list[tuple[str, str]] | None = None) -> tuple[list[Site], dict[str, int]]:
    """Reference sites of the name in one snapshot, resolved against `defs` (its own definitions);
    `imported_from_members`: files importing the name's package from another workspace member;
    `via`: (file, name) of the classes a method is reached through besides its own (the class
    asked that inherits it, the known subclasses of its class): `App.handle` is Base's."""
    via = via or []
    parts = name_parts(input.name)
    simple = parts[-1]
    starts = sorted({(p, s.name) for p, s, _ in defs})
    exported = _exported_as(snap, defs)  # a JS/TS file's own export of it as `default`, or renamed
    # the files defining it as the name, or exporting their definition as it (`lib.Implement`
    # over tool.js's `export { Tool as Implement }`); not a definition re-exported under the
    # name, nor a variable an import binds (`const Engine = require("./engine")`: its sites are
    # the import's, as `import Engine from`'s are)
    import_bound = _import_bound(snap, defs)
    def_files = {p for p, s, _ in defs if s.name == simple and (p, s.line) not in import_bound} | {
        p for p, n in exported if n == simple}
    def_sites = {(p, s.line) for p, s, _ in defs}
    reaches: dict[str, bool] = {}

    # the files re-exporting a definition under the name: their own sites and their importers'
    scopes = Scopes(snap)  # a Rust tree's crates, a C# tree's projects: read once, on first need
    gate = scopes.gate()
    offered = relays(snap, starts + exported, gate)
    relaying = {r for r, names in offered.items() if simple in names}
    # The definition under other names, its sites all reached through imports: a file's own
    # name for it (`from .m import Real as Alias`, `use App\Models\User as U;`), and, asked by
    # its own name, the names files re-export it under (`references MARK_GEN`: pytest's `mark`,
    # and `pytest.mark` where pytest is imported). Asked by such a name (`pytest.mark`,
    # `lib.Gadget2` over `export { default as Gadget2 } from "./gadget"`), the other names stay
    # out, those a file offering this one offers it under too (lib's `default`): that name's
    # sites are the answer.
    own_name = any(n == simple for _, n in starts)
    offers = [(p, n) for p, n in starts if n == simple] + (exported if own_name else []) + [
        (r, n) for r in sorted(offered) if own_name or r in relaying for n in sorted(offered[r])
        if own_name or n == simple]
    aliased = alias_sites(snap, offers, simple, gate, scopes, lambda path, name: _default_export(snap, path, name))
    # A module site (a segment of an import's path) names a package or module: it refers to
    # the name's definitions only when one of them is a module or namespace (a Rust `mod`), or
    # when there is none to refer to. `import os.path` is not a use of a function `path`.
    skip_modules = bool(defs) and not any(s.kind in MODULE_KINDS for _, s, _ in defs)

    # What a file must import to reach a definition: the name it is bound by at the top (a
    # method's class, `Headers` for Headers.get), from a defining file or a file re-exporting it
    # (`httpx/__init__.py` for Client.get over `from ._client import Client`)
    anchors = sorted({(p, anchor(s)) for p, s, _ in defs} | set(exported) | set(via))
    bound: dict[str, set[str]] = {}
    for p, n in anchors:
        bound.setdefault(p, set()).add(n)
    for p, names in relays(snap, anchors, gate).items():
        bound.setdefault(p, set()).update(names)
    # an import of a module as a whole reaches what it offers under the name asked (`api.get`), or
    # a class of a method that the file names (`pkg.Headers(...).get`): not `attr.asdict` where
    # attr offers `_asdict`, nor every `run` of a file importing pytest, which offers Pytester
    classes = {anchor(s) for _, s, _ in defs if s.container} | {n for _, n in via}
    offered_whole = {p: names & classes for p, names in bound.items() if simple in names or names & classes}

    def whole(importer: str, target: str) -> bool:
        names = offered_whole.get(target)
        return names is not None and (simple in bound[target] or any(
            o.role != "local" for n in sorted(names) for o in snap.occurrences_in(importer, n)))
    reached = def_files | relaying
    package_files: dict[tuple[str, ...], list[str]] = {}  # a definition's package -> its files there
    for p, _, _ in defs:
        key = _package_of(snap, p)
        if key is not None:
            package_files.setdefault(key, []).append(p)
    packages = set(package_files)
    # the C# projects a `global using` of a defining file's namespace or type (not an alias,
    # which binds only its own name: `alias_sites`) is in: each of their files sees the
    # definition as its own `using` would make it seen
    global_projects = {scopes.projects.of(e.source) for p in sorted(def_files) if of_path(p).has_projects
                       for e in snap.importers(p) if of_import(e.kind).project_wide(e.kind)
                       and any(not spec.aliases for spec in specs_of(snap, e))}

    def sees_package(path: str) -> bool:
        """Is the file of a definition's package, and, a C# one, of a project seeing its file
        there (a C# namespace may span projects, each seeing those its .csproj references)?"""
        package = _package_of(snap, path)
        if package not in packages:
            return False
        return of_language(package[0]).sees_in_package(scopes.projects, path, package_files[package])

    def resolution(path: str) -> str:
        if _is_text(snap, path):
            return "text"
        if path in def_files:
            return "same_file"
        hit = reaches.get(path)
        if hit is None:
            hit = reaches[path] = path in imported_from_members or path in relaying or imports_any(
                snap, path, bound, whole, reached, gate) or (
                bool(global_projects) and of_path(path).has_projects and scopes.projects.of(path) in global_projects)
        if hit:
            return "import"
        return "same_package" if packages and sees_package(path) else "name_match"

    spelled = _any_case_spellings(snap, defs, simple, packages, aliased)
    by_syntax = _BySyntax(snap, defs, simple, def_files | relaying | set(bound), classes, imported_from_members)
    sites: list[Site] = []
    counts = dict.fromkeys(RESOLUTIONS, 0)
    for path, occ, through, binding in [(p, o, False, (p, o.line) in import_bound) for p, o in snap.occurrences(simple)
                                        ] + aliased + spelled:
        if occ.role == "local":  # a parameter or local variable (or a use of one): no site of a definition
            continue
        # Trust the extractor's role; a plain-tokenizer site has none, so fall back to the def line.
        # An import's own binding of an alias is an import site, whatever the role: `const W =
        # require("./engine")` declares a variable W, `import W from "./engine"` does not, and
        # each is the same binding of engine's export.
        is_def = not binding and (occ.role == "definition"
                                  or (occ.role == "identifier" and (path, occ.line) in def_sites))
        if (is_def and not input.include_definitions) or (skip_modules and occ.role == "module"):
            continue
        how = "import" if through else resolution(path)
        rule = "import alias" if through else _RULES[how]
        if not through and not is_def and (how in _BOUND or by_syntax.through_classes(path)):
            decided = by_syntax.decide(path, occ, how, path in imported_from_members)
            if decided is None:
                continue  # a keyword argument's name: no site of a definition
            if decided:
                how, rule = decided
        if len(parts) > 1 and how in ("name_match", "text"):
            continue  # a qualified query asks for this definition, not any same-named thing
        counts[how] += 1
        if input.resolution and how != input.resolution:
            continue
        sites.append(Site(path, occ.line, occ.col, occ.role, how, rule=rule))
    sites.sort(key=lambda s: (ORDER[s.resolution], s.path, s.line, s.col))
    return sites, counts


USE_LINES = 200  # the lines one import declaration is read over, at most

# the binding that decides a site resolved by its file alone
_RULES = {"same_file": "defining file", "same_package": "package", "import": "import", "name_match": "name",
          "text": "text file"}
_BOUND = frozenset({"same_file", "same_package", "import"})


class _BySyntax:
    """A site resolved by its own syntax where its language says how it is written
    (`Bindings.site_syntax`): an attribute `x.name` by what `x` is (a module an import binds
    that reaches a defining or re-exporting file, a method's class, `self`/`cls`/`this` for a
    method, a JS file's own `exports` where it defines or re-exports the name), anything the
    index cannot type a `name_match`; a keyword argument's name (a JS object key) no site; a
    bare name no site of a method (a method is reached through its class or an instance)."""

    def __init__(self, snap: Snapshot, defs: list[Hit], simple: str, reaching: set[str], classes: set[str],
                 crossing: set[str] | frozenset[str] = frozenset()) -> None:
        self.snap = snap
        self.crossing = crossing  # files importing the definition's package from another workspace member
        self.simple = simple
        self.reaching = reaching  # files whose import makes a module's `name` this definition
        # an enum's variant is named bare once a glob brings it in (Rust's `use Mode::*;`)
        self.methods_only = bool(defs) and all(s.container and s.kind != "enumerator" for _, s, _ in defs)
        self.fields = any(s.kind == "field" for _, s, _ in defs)
        self.defining = {p for p, _, _ in defs}
        self.declared: dict[str, frozenset[int]] = {}
        self.classes = classes  # the methods' classes, and those they are reached through
        self.lines: dict[str, list[bytes]] = {}
        self.modules: dict[tuple[str, str], bool | None] = {}
        # Java, C#, PHP, Ruby and C++: `this.name`, `Type::name` and the like through the class hierarchy
        self.members = MemberSites(snap, defs, simple, classes)

    def through_classes(self, path: str) -> bool:
        """Does the class hierarchy decide the file's sites of the members asked, also where
        the file neither defines nor imports them (`this.handle()` in a subclass of a
        subclass)? In Java, C#, PHP, Ruby and C++."""
        return self.members.methods_only and _rules_of(self.snap, path).language in MEMBER_LANGUAGES

    def decide(self, path: str, occ: Occurrence, how: str, across: bool = False) -> tuple[str, str] | None | Literal[False]:
        """(resolution, rule) when the site's syntax decides it, False when it leaves it to the
        file (which resolved it `how`; `across`: by an import from another workspace member),
        None when it is no site."""
        rules = _rules_of(self.snap, path)
        lines = self.lines.get(path)
        if lines is None:
            lines = self.lines[path] = self.snap.blob_bytes(path).splitlines() if rules.site_syntax(
                b"", 0, "") is not None else []
        if not 0 < occ.line <= len(lines):
            return False
        syntax = rules.site_syntax(lines[occ.line - 1], occ.col, self.simple)
        if syntax is None:
            return False
        if rules.language in MEMBER_LANGUAGES:
            return self.members.decide(path, occ, syntax, how, rules.implicit_self)
        if syntax.form == "keyword":  # the name an import binds is no key (`const { get: g } = require(...)`)
            return False if self._imported_on(path, occ.line) else None
        if syntax.form == "key":  # `P { name: v }`: a field's name, no use of anything else
            return False if self.fields else None
        if syntax.form == "path":
            # a `use` declaration's own path is the import's binding: its file decides
            return False if occ.line in self._declared_lines(path, lines) else self._path(path, syntax.receiver)
        if syntax.form == "bare":
            if self.methods_only:
                return "name_match", "bare name, not a method's"
            # the binding visible there: an import of the name from a module that does not reach
            # the definition (`import { get } from "axios"`, `import json`) makes it another's
            if how == "same_file" or across:  # its own definition, or one of another member's
                return False
            return False if self._import_reaches(path) is not False else (
                "name_match", "bare name an import of another module binds")
        receiver = syntax.receiver
        if not receiver:
            return "name_match", "attribute of an untyped receiver"
        if syntax.called and rules.imports_by_call(receiver):  # `require("./a").get`: a's `get`
            return False if self._line_reaches(path, occ.line) else (
                "name_match", f"attribute of a module `{'.'.join(receiver)}(...)` binds, which does not reach it")
        if syntax.called:  # `Headers(...).get`: an instance of the method's class, else untyped
            return False if receiver[-1] in self.classes else (
                "name_match", f"attribute of what `{'.'.join(receiver)}(...)` returns")
        head = receiver[0]
        if len(receiver) == 1 and head in rules.instance_names:
            return False if self.classes else ("name_match", f"attribute of {head}, not a function")
        if rules.own_module(receiver):  # `exports.name`: the file's own export of the name
            return False if path in self.reaching else ("name_match", "a name of the file's own exports")
        if len(receiver) == 1 and head in self.classes:
            return False
        if len(receiver) == 1 and self._instance(path, head, lines):
            return False
        reached = self._module_reaches(path, head)
        if reached is None:
            return "name_match", f"attribute of an untyped receiver `{'.'.join(receiver)}`"
        if reached:
            return False
        return "name_match", f"attribute of module `{head}`, which does not reach it"

    def _import_reaches(self, path: str) -> bool | None:
        """Does an import of the file binding the name itself reach a defining or re-exporting
        file? None when no import binds it."""
        key = (path, ":" + self.simple)
        if key not in self.modules:
            facts = self.snap.import_facts(path)
            specs = [spec for spec in (facts.imports if facts else ()) if of_import(spec.kind).binds_local(spec, self.simple)]
            self.modules[key] = any(same_import(spec, e) and e.target in self.reaching
                                    for spec in specs for e in self.snap.imports(path)) if specs else None
        return self.modules[key]

    def _line_reaches(self, path: str, line: int) -> bool:
        """Does an import of the file on `line` reach a defining or re-exporting file?"""
        return any(e.line == line and e.target in self.reaching for e in self.snap.imports(path))

    def _imported_on(self, path: str, line: int) -> bool:
        """Does an import of the file on `line` name the definition's name?"""
        facts = self.snap.import_facts(path)
        return any(spec.line == line and self.simple in spec.names for spec in (facts.imports if facts else ()))

    def _instance(self, path: str, name: str, lines: list[bytes]) -> bool:
        """Is `name` given an instance of a method's class somewhere in the file, as its
        language writes that (`Bindings.typings`: `app = Flask(...)`, `const app = new App()`, Go's `s := &Server{}` or
        receiver `(s *Server)`, Rust's `let s = Server::new()`)? The one typing of a variable
        the index makes: the file's own lines, read as written, whatever scope they are in."""
        key = (path, "=" + name)
        if key not in self.modules:
            patterns = _rules_of(self.snap, path).typings(name) if self.classes else []
            self.modules[key] = any(
                m is not None and any(t is not None and t.decode() in self.classes for t in m.groups())
                for line in lines if name.encode() in line for pattern in patterns for m in [pattern.search(line)])
        return bool(self.modules[key])

    def _declared_lines(self, path: str, lines: list[bytes]) -> frozenset[int]:
        """The lines of the file's import declarations (a `use` from its first line to the one
        ending it with `;`, as far as `USE_LINES` on): paths there are no uses in code."""
        found = self.declared.get(path)
        if found is None:
            facts = self.snap.import_facts(path)
            covered: set[int] = set()
            for spec in facts.imports if facts else ():
                if spec.kind == "rust_path" or spec.line in covered:
                    continue
                for n in range(spec.line, min(spec.line + USE_LINES, len(lines) + 1)):
                    covered.add(n)
                    if b";" in lines[n - 1]:
                        break
            found = self.declared[path] = frozenset(covered)
        return found

    def _path(self, path: str, receiver: tuple[str, ...]) -> tuple[str, str] | Literal[False]:
        """A Rust path `a::b::name`: through the method's type (or `Self`), the file decides;
        through another type (`Vec::new` for Builder.new), no site of it; through modules, by
        where they reach: the path's own edge (`crate::net::f`, `other::f`), else the import
        binding its first segment (`use crate::net;`, `mod net;`)."""
        if not receiver:
            return "name_match", "path through what is no plain path (`<T as Tr>::`, `V::<T>::`)"
        last = receiver[-1]
        if last == "Self" or last in self.classes:
            return False
        if last[:1].isupper():
            return "name_match", f"path through `{last}`, not its type"
        spelled = "::".join(receiver)
        facts = self.snap.import_facts(path)
        own = [spec for spec in (facts.imports if facts else ()) if spec.kind == "rust_path" and spec.spec == spelled]
        targets = {e.target for spec in own for e in self.snap.imports(path) if same_import(spec, e)}
        if targets:
            return False if targets & self.reaching else ("name_match", f"path `{spelled}`, which does not reach it")
        reached = self._module_reaches(path, receiver[0])
        if reached is None:  # no edge, no import: an inline module of a defining file, else outside the tree
            return False if path in self.defining else ("name_match", f"path `{spelled}`, which reaches no file of the tree")
        return False if reached else ("name_match", f"path `{spelled}`, which does not reach it")

    def _module_reaches(self, path: str, head: str) -> bool | None:
        """Does an import of the file binding `head` reach a defining or re-exporting file?
        None when no import binds it."""
        key = (path, head)
        if key not in self.modules:
            facts = self.snap.import_facts(path)
            specs = [spec for spec in (facts.imports if facts else ()) if of_import(spec.kind).binds_local(spec, head)]
            if not specs:
                self.modules[key] = None
            elif path in self.crossing:  # its import of another member's package: outside this snapshot's edges
                self.modules[key] = True
            else:
                # a from-import must bind the module itself (`from pkg import api`), not a name
                # it defines (`from ._models import Request` makes `Request.get` no module's)
                # ... or a method's class (`from .api import Client as C`: `C.fetch`)
                self.modules[key] = any(
                    same_import(spec, e) and e.target in self.reaching
                    and (not spec.names or of_import(spec.kind).binds_module(spec, e.target)
                         or of_import(spec.kind).binds_namespace(spec, head) or any(
                        name in self.classes for name, local in of_import(spec.kind).binds(spec) if local == head))
                    for spec in specs for e in self.snap.imports(path))
        return self.modules[key]


def _package_of(snap: Snapshot, path: str) -> tuple[str, ...] | None:
    """The package whose files see each other's top-level names without an import
    (`Bindings.package_of`): a Go file's folder and package clause (an external `x_test`
    package is another one), a Java file's package declaration, a PHP or C# file's (first)
    namespace, in which an unqualified class name is the namespace's own (`new Stream(...)` in
    GuzzleHttp\\Psr7\\Utils.php), a Ruby file's outermost module. Its first part is its
    language's name. None for other files and for a file that declares no package."""
    return of_path(path).package_of(snap, path)


def _is_text(snap: Snapshot, path: str) -> bool:
    """Is the file prose, markup or data (Markdown, plain text, configuration, ignore files:
    `PROSE_AND_DATA`)? Its words name no binding: its sites are `text`, listed after the code's."""
    entry = snap.file(path)
    return entry is not None and entry.language in PROSE_AND_DATA


def _rules_of(snap: Snapshot, path: str) -> Bindings:
    """The binding rules of the file's language, as the snapshot's file table names it."""
    entry = snap.file(path)
    return of_language(entry.language if entry is not None else "")


def _import_bound(snap: Snapshot, defs: list[Hit]) -> set[tuple[str, int]]:
    """(file, line) of each of `defs` that is a variable an import binds on its line to another
    of them (`const Engine = require("./engine")` where engine.js defines Engine, `const { Part
    } = require("./parts")`): the name of what the import reaches, not a definition of its own
    for references. A variable bound to a package's or to what no definition of the name is
    (`var Router = require("./router")` over an anonymous `module.exports = function`) stays
    its file's definition. Only the import facts of the defining files whose imports declare
    variables (JS, TS) are read, and the edges of those with such a variable."""
    candidates = []
    for path, sym, _ in defs:
        entry = snap.file(path) if not sym.container else None
        rules = of_language(entry.language) if entry is not None else None
        facts = snap.import_facts(path) if rules is not None and rules.imports_declare_variables else None
        specs = [spec for spec in (facts.imports if facts else ()) if of_import(spec.kind).binds_variable(spec, sym.line)
                 and any(local == sym.name for _, local in of_import(spec.kind).binds(spec))]
        if specs:
            candidates.append((path, sym.line, sym.name, specs))
    if not candidates:
        return set()
    bound = {(path, line) for path, line, _, _ in candidates}
    defining = {p for p, s, _ in defs if (p, s.line) not in bound}
    # a `require` of an ES module binds its module object (`Bindings.target_binds`), no definition
    return {(path, line) for path, line, name, specs in candidates
            if any(same_import(spec, e) and e.target in defining
                   and any(local == name for inner, local in target_binds(snap, spec, e.target) if inner != "*")
                   for spec in specs for e in snap.imports(path))}


def _exported_as(snap: Snapshot, defs: list[Hit]) -> list[tuple[str, str]]:
    """(file, name) for each name a file exports one of its top-level definitions `defs` under,
    other than its own (`BlobFacts.exported_as`): `export default class Bar`, `class Bar {};
    export default Bar;` and `export { Bar as default }` offer Bar as `default`, which `import
    Foo from "./bar"` binds to Foo; `export { Bar as Baz }` offers Baz. Only the import facts of
    the defining files of a language that exports so (JS, TS) are read."""
    found: set[tuple[str, str]] = set()
    for path, sym, _ in defs:
        entry = snap.file(path) if not sym.container else None
        facts = snap.import_facts(path) if entry is not None and of_language(entry.language).renames_exports else None
        found.update((path, name) for local, name in (facts.exported_as if facts else ()) if local == sym.name)
    return sorted(found)


def _default_export(snap: Snapshot, path: str, name: str) -> bool:
    """Is `name` the file's default export's own name: a keyword there, the name of no binding
    (a `default` in a JS `export { Bar as default }` is no use of Bar)?"""
    return _rules_of(snap, path).default_export == name


def _any_case_spellings(snap: Snapshot, defs: list[Hit], simple: str, packages: set[tuple[str, ...]],
                        aliased: list[tuple[str, Occurrence, bool, bool]]) -> list[tuple[str, Occurrence, bool, bool]]:
    """(file, site, False, False) of each use of a definition whose name its language matches in
    any case (`Bindings.any_case_kinds`: a PHP class or function, `user::find()`, `new USER` for
    class User) spelled in another case, in a file defining it or in a file of its namespace,
    which sees it without an import; a file's import of it finds its own (`alias_sites`), not
    again here. Only the files holding such a spelling are read (`Snapshot.spellings`: the name
    index walked by case)."""
    languages = {rules.language for p, s, _ in defs if s.kind in (rules := _rules_of(snap, p)).any_case_kinds}
    if not languages:
        return []
    defining = {p for p, _, _ in defs}
    seen = {(p, o.line, o.col) for p, o, _, _ in aliased}
    by_file: dict[str, tuple[Bindings, list[Occurrence]]] = {}
    for spelling in snap.spellings(simple):
        if spelling == simple:
            continue
        for path, occ in snap.occurrences(spelling):
            if (path, occ.line, occ.col) not in seen:
                rules = _rules_of(snap, path)
                if rules.language in languages:
                    by_file.setdefault(path, (rules, []))[1].append(occ)
    out = []
    for path in sorted(by_file):
        if path in defining or _package_of(snap, path) in packages:
            rules, spelled = by_file[path]
            out += [(path, o, False, False) for o in rules.case_free_sites(snap, path, spelled)]
    return out
