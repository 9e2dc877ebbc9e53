"""Reference sites of a name in one snapshot, each tagged with how it was tied to the
definitions asked about: `same_file`, `same_package`, `import`, `name_match` or, in a file of
prose, markup or data, `text` (see the package's docstring). What each language binds is asked of its bindings
(indexer/lang/bindings.py): by an import's kind, a file's language, or the language a package
key starts with."""

from __future__ import annotations

import re
from functools import partial
from typing import TYPE_CHECKING, Callable, Literal, NamedTuple, Protocol

import msgspec

from context_tools.query.symbols.answers import RESOLUTIONS, Site
from context_tools.query.symbols.call_close import GO, PYTHON, after_call, opened_above
from context_tools.query.symbols.imports import RELAY_HOPS, alias_sites, imports_any, relays, target_binds
from context_tools.query.symbols.literal_keys import literal_type
from context_tools.query.symbols.members import LANGUAGES as MEMBER_LANGUAGES
from context_tools.query.symbols.members import ClassReading, MemberSites
from context_tools.query.symbols.names import anchor, module_parts, name_parts
from context_tools.query.symbols.receivers import HEADER_LINES, PythonReceivers, Typing, functions_in
from context_tools.query.symbols.rightmost import Holding
from context_tools.query.symbols.rust_macros import exported_at
from context_tools.query.symbols.script_blocks import Braces
from context_tools.query.symbols.script_casts import cast_before
from context_tools.query.symbols.script_declared import Typed
from context_tools.query.symbols.script_types import ScriptTypes
from context_tools.query.symbols.this_aliases import ThisAliases
from indexer.lang.bindings import Bindings, Scopes, of_import, of_language, of_path
from indexer.lang.bindings_base import SITE_TEXT, SiteSyntax, call_opened, closing_bracket, opening_bracket, site_window
from indexer.lang.class_kinds import CLASS_KINDS
from indexer.lang.registry import PROSE_AND_DATA

if TYPE_CHECKING:
    from context_tools.query.symbols.lookup import Hit
    from indexer.model import ImportSpec, Occurrence, Symbol
    from indexer.store.snapshot import Snapshot

ORDER = {"same_file": 0, "same_package": 1, "import": 2, "name_match": 3, "text": 4}
MODULE_KINDS = frozenset({"module", "namespace", "package"})
# The most sites one answer reads, whole files at a time. Git stores a file once however many
# paths hold it, so a commit of kilobytes can put a name's thousand uses at a hundred thousand
# paths, and each site read costs its resolution and its place in the answer. The defining
# files and their importers are read first; the files left unread are counted in the answer.
REFERENCE_SITES = 1 << 18
# The most site resolutions one answer makes over all its passes: each definition told apart
# from the others is a pass over every site, so the sites read bound how many are.
SITE_RESOLUTIONS = 1 << 20


# a word of a line, as `_Reading.lines_naming` indexes them
_WORD = re.compile(rb"[A-Za-z0-9_]+")


class SitesFound(NamedTuple):
    sites: list[Site]
    counts: dict[str, int]  # by resolution, over every site read
    unread: int  # files holding the name left unread past REFERENCE_SITES
    attributed: int  # the definitions resolved each on its own, first in order
    # a qualified query's sites of its last name that only the name (or a text file) ties to
    # anything: left out of `sites` and `counts`, and counted here so an answer of none says so
    left_out: int = 0


class SiteQuery(Protocol):
    """What the references input asks of the sites."""

    @property
    def name(self) -> str: ...

    @property
    def include_definitions(self) -> bool: ...

    @property
    def resolution(self) -> str | None: ...


def sites_of(snap: Snapshot, input: SiteQuery, defs: list[Hit], imported_from_members: set[str] | frozenset[str] = frozenset(),
             via: list[list[tuple[str, str]]] | None = None, *, one_by_one: int,
             across: Callable[[str], str] | None = None) -> SitesFound:
    """Reference sites of the name in one snapshot, each resolved site attributed to the one of
    `defs` (its own definitions) its binding reaches (`Site.definition`, an index into `defs`),
    grouped by definition in `defs`' order, then the sites no definition reaches (`name_match`,
    `text`); `imported_from_members`: files importing the name's package from another workspace
    member, and `across` the package clause an import of another member's package binds there
    (`GoClauses`); `via`, one list for each of `defs`: (file, name) of the classes a method is reached
    through besides its own (the class asked that inherits it, the known subclasses of its
    class): `App.handle` is Base's.

    With several definitions, each is resolved on its own and a site goes to the one that
    reaches it: `get()` after `from .api import get` is api.py's, `s.get()` after `s =
    Session()` is Session's, `self.get()` in class A is A's. A site two of them reach (a file
    importing both modules' `get` by `*`) goes to the first by resolution, then in `defs`'
    order; a definition's own site is always its own. Only the first `one_by_one` definitions
    (those an answer shows) are resolved each on its own: each costs a pass over every site,
    so a name defined thousands of times would cost thousands of passes. The others are
    resolved together in one more pass, and a site that goes to them carries no definition;
    fewer than `one_by_one` where the sites are so many that the passes would make over
    SITE_RESOLUTIONS resolutions."""
    vias = via if via is not None else [[] for _ in defs]
    defining = frozenset(p for p, _, _ in defs)
    importing = frozenset(e.source for p in sorted(defining) for e in snap.importers(p))
    reading = _Reading(snap, name_parts(input.name)[-1], (defining, importing), across)
    if len(defs) <= 1:
        found = [(s, 0 if defs and s.resolution in _BOUND else None)
                 for s in _sites_one(snap, input, defs, imported_from_members, vias[0] if vias else [], reading)]
    else:
        one_by_one = max(1, min(one_by_one, SITE_RESOLUTIONS // max(1, len(reading.occurrences())) - 1))
        found = _attributed(snap, input, defs, imported_from_members, vias, reading, one_by_one)
    counts = dict.fromkeys(RESOLUTIONS, 0)
    sites = []
    qualified = len(name_parts(input.name)) > 1
    left_out = 0
    for site, owner in found:
        if qualified and site.resolution in _NAME_ONLY:
            left_out += 1  # a qualified query asks for this definition, not any same-named thing
            continue
        counts[site.resolution] += 1
        if input.resolution and site.resolution != input.resolution:
            continue
        sites.append(msgspec.structs.replace(site, definition=owner) if owner is not None else site)
    sites.sort(key=site_order)
    return SitesFound(sites, counts, len(reading.unread), min(one_by_one, len(defs)), left_out)


def site_order(s: Site) -> tuple[bool, bool, int, int, str, int, int]:
    """Resolved sites by definition, then by resolution and place; then name matches and text."""
    return (ORDER[s.resolution] >= ORDER["name_match"], *group_order(s), ORDER[s.resolution], s.path, s.line, s.col)


def group_order(s: Site) -> tuple[bool, int]:
    """A resolved site's group: its definition's, in the definitions' order; one of those
    resolved together (past the ones told apart) after every definition's, all together."""
    return s.definition is None, s.definition or 0


def _attributed(snap: Snapshot, input: SiteQuery, defs: list[Hit], imported_from_members: set[str] | frozenset[str],
                vias: list[list[tuple[str, str]]], reading: _Reading, one_by_one: int) -> list[tuple[Site, int | None]]:
    """Each of the first `one_by_one` definitions' sites resolved on its own, the other
    definitions' together, each site kept once: under the definition (or the others) whose own
    site it is, else the first that resolves it (by resolution, then `defs`' order, the others
    last), else unattributed. A site that goes to the others is unattributed too."""
    # a variable an import binds to another of them (`const W = require("./engine")`) is that
    # one's name, resolved with each of the others, never on its own
    tied = _import_bound(snap, defs)
    alone = [i for i, (p, s, _) in enumerate(defs) if (p, s.line) not in tied] or [0]
    with_them = [d for d in defs if (d[0], d[1].line) in tied]
    own = {(defs[i][0], defs[i][1].line): i for i in alone}
    rest = alone[max(1, one_by_one):]
    alone = alone[:max(1, one_by_one)]
    others = len(defs)  # the owner standing for the definitions resolved together
    owner_of = {i: i for i in alone} | dict.fromkeys(rest, others)
    groups = [(i, [defs[i]] + [d for d in with_them if d is not defs[i] and _import_bound(snap, [defs[i], d])],
               vias[i] if i < len(vias) else []) for i in alone]
    if rest:
        together = [defs[i] for i in rest]
        groups.append((others, together + [d for d in with_them if (d[0], d[1].line) in _import_bound(snap, [*together, d])],
                       sorted({v for i in rest if i < len(vias) for v in vias[i]})))
    best: dict[tuple[str, int, int], tuple[Site, int | None]] = {}
    for i, group, via in groups:
        for site in _sites_one(snap, input, group, imported_from_members, via, reading):
            key = (site.path, site.line, site.col)
            owner = i if site.resolution in _BOUND else None
            if site.role == "definition" and (site.path, site.line) in own:
                owner = owner_of[own[(site.path, site.line)]]
                if owner != i:
                    continue
            held = best.get(key)
            # an unattributed site keeps the rule its syntax gave it over the bare file rule
            plainer = held is not None and held[1] is None and owner is None and held[0].rule == _RULES.get(
                held[0].resolution) and site.rule != held[0].rule
            if held is None or plainer or (owner is not None and (held[1] is None or ORDER[site.resolution] < ORDER[
                    held[0].resolution])):
                best[key] = (site, owner)
    return [(site, None if owner == others else owner) for site, owner in best.values()]


def _sites_one(snap: Snapshot, input: SiteQuery, defs: list[Hit], imported_from_members: set[str] | frozenset[str],
               via: list[tuple[str, str]], reading: _Reading) -> list[Site]:
    """The sites of the name resolved against `defs` taken together, every resolution kept."""
    parts = name_parts(input.name)
    simple = parts[-1]
    # a definition a function holds (`get: function () {}` in the object a function returns, a
    # nested function) is that function's own: no import, `*` or re-export reaches it; one an
    # object holds (`const table = { size() {} }`, `obj.run = function () {}`) is reached
    # through its object only, never imported by its own name
    holders = [(p, s, reading.holder_kind(p, s)) for p, s, _ in defs]
    offered_defs = [(p, s) for p, s, kind in holders if kind not in ("function", "method")]
    starts = sorted({(p, s.name) for p, s, kind in holders if kind not in ("function", "method", "variable", "constant")})
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
    aliased = alias_sites(snap, offers, simple, gate, scopes, lambda path, name: _default_export(snap, path, name),
                          reading.sites_in, reading.any_case_in)
    # A module site (a segment of an import's path) names a package or module: it refers to
    # the name's definitions only when one of them is a module or namespace (a Rust `mod`), or
    # when there is none to refer to. `import os.path` is not a use of a function `path`.
    skip_modules = bool(defs) and not any(s.kind in MODULE_KINDS for _, s, _ in defs)

    # What a file must import to reach a definition: the name it is bound by at the top (a
    # method's class, `Headers` for Headers.get), from a defining file or a file re-exporting it
    # (`httpx/__init__.py` for Client.get over `from ._client import Client`)
    anchors = sorted({(p, anchor(s)) for p, s in offered_defs} | set(exported) | set(via)
                     | set(_exported_as(snap, [(p, s, h) for p, s, h in defs if s.container], holders=True))
                     | _type_homes(snap, offered_defs))
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
                       and any(not spec.aliases for spec in snap.specs_of_edge(e))}

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

    spelled = _any_case_spellings(snap, defs, simple, packages, aliased, reading)
    by_syntax = _BySyntax(snap, defs, simple, def_files | relaying | set(bound), classes, imported_from_members,
                          reading, bound)
    sites: list[Site] = []
    for path, occ, through, binding in [(p, o, False, (p, o.line) in import_bound) for p, o in reading.occurrences()
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
        elif not through and not is_def and how == "name_match":
            if by_syntax.decide(path, occ, how) is None:
                continue  # a keyword argument's or an object key's name: no site of anything
            promoted = by_syntax.imported_instance(path, occ) or by_syntax.package_attribute(path, occ) or \
                by_syntax.constructed_receiver(path, occ) or \
                by_syntax.declared_receiver(path, occ) or by_syntax.required_attribute(path, occ) or \
                by_syntax.namespace_attribute(path, occ)
            if promoted:
                how, rule = "import", promoted
        sites.append(Site(path, occ.line, occ.col, occ.role, how, rule=rule))
    return sites


# a site's line starting with the parenthesis closing a call, then the dot before the site: `    ).prepare()`
_CLOSED_ABOVE = re.compile(rb"\s*(\))\s*\.\s*")
# a lambda or a comprehension, whose own scope does not see the class body around it
_OWN_SCOPE = re.compile(rb"\blambda\b|\bfor\b")
USE_LINES = 200  # the lines one import declaration is read over, at most


CHAIN_CALLS = 4  # the calls of a Go chain read back from a site, at most
CHAIN_LINES = 40  # the lines above a Rust chain's `.name(...)` line its receiver is read from, at most
EMBEDDING_DEPTH = 3  # the types embedded in embedded types a field is looked for in, at most
FIELD_DEPTH = 4  # the fields of a receiver read one through another (`s.cfg.Client.Do()`: 2), at most
CALL_LINES = 200  # the lines above a Go `}).Name(` its call's `(` is looked for over, at most
CALL_BYTES = 16384  # ... and the bytes
SIGNATURE_BYTES = 2048  # the bytes of a definition read for a signature over lines, at most
# the calls chained after a call's `)` to the end of its line (`.Sub("b").Get()`), each closing there
_CHAIN_AFTER = re.compile(rb"\)(?:\s*\.\s*[A-Za-z_]\w*\s*\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\))*")
_CALLEE = re.compile(rb"([A-Za-z_]\w*(?:(?:\.|::)[A-Za-z_]\w*)*)$")


_GO_DOTTED = re.compile(rb"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def _continued_go_chain(lines: list[bytes], occ: Occurrence) -> SiteSyntax | None:
    """The Go site as an attribute when it starts its line after a line ending in `.`, a
    selector gofmt breaks after its dot (`WithField("a", 1).` above `WithField("b", 2)`: of a
    call's result; `log.` alone above it: of `log`); None otherwise. A comment's line, which may
    end a sentence so, continues nothing."""
    if occ.line < 2 or lines[occ.line - 1][:occ.col].strip():
        return None
    above = lines[occ.line - 2].strip()
    if not above.endswith(b".") or above.startswith((b"//", b"*", b"/*")) or b"//" in above:
        return None
    if _GO_DOTTED.fullmatch(above[:-1]):
        return SiteSyntax("attribute", tuple(part.decode() for part in above[:-1].split(b".")))
    return SiteSyntax("attribute")

CONTINUED_LINES = 4  # the lines above a Java site's a chain continued at a line's start is read back over


def continued_chain(lines: list[bytes], occ: Occurrence) -> tuple[bytes, int]:
    """The Java site's line and column, its chain read as one line where the text before the
    site starts with a `.` continuing the line above (`headerWriter.fin(fin)` above
    `.opcode(opcode)`): that line joined before it, and the one above that where it continues
    in turn. A line above ending a statement or a block, or holding a comment, continues
    nothing."""
    line, at = lines[occ.line - 1], occ.col
    i = occ.line - 1
    for _ in range(CONTINUED_LINES):
        stripped = line.lstrip()
        if i == 0 or not stripped.startswith(b".") or len(line) - len(stripped) > at:
            break
        above = lines[i - 1].strip()
        if not above or above.endswith((b";", b"{", b"}")) or b"//" in above or above.startswith((b"*", b"/*")):
            break
        at = len(above) + at - (len(line) - len(stripped))
        line, i = above + stripped, i - 1
    return line, at


# the binding that decides a site resolved by its file alone
_RULES = {"same_file": "defining file", "same_package": "package", "import": "import", "name_match": "name",
          "text": "text file"}
_BOUND = frozenset({"same_file", "same_package", "import"})
_NAME_ONLY = frozenset({"name_match", "text"})


class _BySyntax:
    """A site resolved by its own syntax where its language says how it is written
    (`Bindings.site_syntax`): an attribute `x.name` by what `x` is (a module an import binds
    that reaches a defining or re-exporting file, a method's class, `self`/`cls`/`this` for a
    method, a JS file's own `exports` where it defines or re-exports the name), anything the
    index cannot type a `name_match`; a keyword argument's name (a JS object key) no site; a
    bare name no site of a method (a method is reached through its class or an instance)."""

    def __init__(self, snap: Snapshot, defs: list[Hit], simple: str, reaching: set[str], classes: set[str],
                 crossing: set[str] | frozenset[str], reading: _Reading, offers: dict[str, set[str]] | None = None) -> None:
        self.snap = snap
        self.reading = reading
        # the files defining or re-exporting the name, a method's class or a class it is reached
        # through, each with the names it offers them under
        self.offers = offers or {}
        self.crossing = crossing  # files importing the definition's package from another workspace member
        self.simple = simple
        self.reaching = reaching  # files whose import makes a module's `name` this definition
        # a member of a class or an object (a function nested in a function is no member: its
        # kind says so, and an object's function its holder's); an enum's variant is named bare
        # once a glob brings it in (Rust's `use Mode::*;`)
        self.methods_only = bool(defs) and all(
            s.container and (s.kind not in ("enumerator", "function")
                             or s.kind == "function" and reading.holder_kind(p, s) in ("variable", "constant"))
            for p, s, _ in defs)
        self.fields = any(s.kind == "field" for _, s, _ in defs)
        # the types whose literals' keys the fields asked are (a Go or Rust literal names its type)
        self.field_types = {s.container.rsplit(".", 1)[-1] for _, s, _ in defs if s.kind == "field" and s.container}
        self.defining = {p for p, _, _ in defs}
        self.declared: dict[str, dict[int, list[ImportSpec]]] = {}
        self.classes = classes  # the methods' classes, and those they are reached through
        # the classes whose bodies' `self` and `cls` are theirs: the innermost containers too
        self.owners = classes | {s.container.rsplit(".", 1)[-1] for _, s, _ in defs if s.container}
        self.defs = defs
        self.def_sites = {(p, s.line) for p, s, _ in defs}
        self.modules: dict[tuple[str, str], bool | None] = {}
        self._named: dict[str, dict[str, Symbol]] = {}
        self.instance_memo: dict[tuple[str, str], str] = {}
        self._assigned: dict[tuple[str, str, int], str | None] = {}
        self._aliases: dict[str, frozenset[str]] = {}  # a file's own names for a method's class (`_class_aliases`)
        self._namespaces: dict[tuple[str, str], str | None] = {}  # `_namespace_reexported`, read once a file and name
        self._declarations: dict[tuple[str, str], list[tuple[int, str]]] = {}  # `_declared_types`, by file and name
        self._reaching_lines: dict[str, frozenset[int]] = {}  # `_line_reaches`: a file's import lines reaching one
        self.enclosing = reading.classes
        # Java, C#, PHP, Ruby and C++: `this.name`, `Type::name` and the like through the class hierarchy
        self.members = MemberSites(snap, defs, simple, classes, reading.classes_read)
        # JS, TS: receivers by their declared types
        self.scripts = ScriptTypes(snap, self.members, reading.source_lines, reading.functions, reading.lines_naming,
                                   reading.braces, reading.typed)
        # what a declared type says of each JS/TS site (`_script_declared`)
        self.script_sites: dict[tuple[str, int, int], tuple[bool, str] | None] = {}
        # handed the reading's methods, never this object's: a method of what keeps the receivers
        # would close a cycle through them, freed only by a full collection
        self.receivers = PythonReceivers(snap, self.classes.__contains__, reading.source_lines, reading.source,
                                         reading.functions, reading.lines_naming, reading.rules)

    def through_classes(self, path: str) -> bool:
        """Does the class hierarchy decide the file's sites of the members asked, also where
        the file neither defines nor imports them (`this.handle()` in a subclass of a
        subclass)? In Java, C#, PHP, Ruby and C++."""
        return self.members.methods_only and self.reading.rules(path).language in MEMBER_LANGUAGES

    def decide(self, path: str, occ: Occurrence, how: str, across: bool = False) -> tuple[str, str] | None | Literal[False]:
        """(resolution, rule) when the site's syntax decides it, False when it leaves it to the
        file (which resolved it `how`; `across`: by an import from another workspace member),
        None when it is no site."""
        rules = self.reading.rules(path)
        # a language with no site syntax leaves every site to its file: its lines are not read
        lines = self.reading.source_lines(path) if rules.site_syntax(b"", 0, "") is not None else []
        if not 0 < occ.line <= len(lines):
            return False
        syntax = self.reading.syntax(rules, path, occ, lines)
        if syntax is None:
            return False
        if rules.language in MEMBER_LANGUAGES:
            java = rules.language == "java"
            return self.members.decide(path, occ, syntax, how, rules.implicit_self,
                                       self._declared_types if java else None,
                                       self.reading.before_site(path, occ, lines) if java else b"")
        if rules.language == "javascript" and self.classes:
            # a declared type decides: an object literal's key is the member it implements where
            # it is one, and an attribute of a typed receiver is the member's or another's
            declared = self._script_declared(path, occ, syntax, lines)
            if declared is not None and (declared[0] or syntax.form == "attribute"):
                return (how if declared[0] else "name_match"), declared[1]
        if syntax.form == "keyword":  # the name an import binds is no key (`const { get: g } = require(...)`)
            return False if self._imported_on(path, occ.line) else None
        if syntax.form == "key":  # `P { name: v }`: a field's name, no use of anything else
            if not self.fields:
                return None
            literal = literal_type(lines, occ.line, occ.col) if rules.language in ("go", "rust") else None
            if literal is None or literal == "Self" or literal in self.field_types:
                return False
            return "name_match", f"key of a `{literal}` literal"
        if rules.bare_needs_import and syntax.form in ("path", "bare") and not (path in self.crossing or across):
            # a name a `use` brings in: that `use`'s own path decides it, not the file's imports
            ruled = self._use_line(path, occ.line, lines)
            if ruled is not None:
                return ruled
        if syntax.form == "path":
            # a `use` declaration's own path is the import's binding: its file decides
            return False if occ.line in self._declared_lines(path, lines) else self._path(path, syntax.receiver)
        if syntax.form == "bare":
            return self._bare(path, occ, how, lines, across)
        receiver = syntax.receiver
        if not receiver:
            if rules.language in ("go", "rust") and self.classes and self._chain_typed(path, occ, lines):
                return False  # `r.HandleFunc(p, h).Methods("GET")`: what HandleFunc returns is a Route
            return "name_match", "attribute of an untyped receiver"
        if syntax.called and rules.imports_by_call(receiver):  # `require("./a").get`: a's `get`
            return False if self._line_reaches(path, occ.line) else (
                "name_match", f"attribute of a module `{'.'.join(receiver)}(...)` binds, which does not reach it")
        if syntax.called and receiver == ("super",) and rules.language == "python":
            return self._super_member(path, occ, how)
        if syntax.called:  # `Headers(...).get`: an instance of the method's class, else untyped
            made = self.receivers.makes(receiver[-1]) or len(receiver) == 1 and receiver[0] in self._class_aliases(path)
            return False if made else (
                "name_match", f"attribute of what `{'.'.join(receiver)}(...)` returns")
        head = receiver[0]
        if receiver == ("super",) and rules.language == "javascript":  # `super.get()`: the bases' member
            if not self.classes:
                return "name_match", "attribute of super, not a function"
            return self._this_member(path, occ.line, head, bases_only=True) or False
        if len(receiver) == 1 and (head in rules.instance_names or self._instance_alias(path, occ, head, lines)):
            if not self.classes:
                return "name_match", f"attribute of {head}, not a function"
            if rules.language == "python":  # a class body holds its methods: `self` is that class's
                owner = self._class_at(path, occ.line)
                if owner is None or owner not in self.owners:
                    return "name_match", f"attribute of {head} in another class" if owner else (
                        f"attribute of {head} outside a class")
            else:  # `this.get()` in a class is the `get` that class has, its own or a base's
                ruled = self._this_member(path, occ.line, head)
                if ruled is not None:
                    return ruled
            return False
        if rules.own_module(receiver):  # `exports.name`: the file's own export of the name
            # (a file defining or re-exporting it; one offering only a method's class offers no name of it)
            return False if path in self.reaching and (path in self.defining or self.simple in self.offers.get(
                path, ())) else ("name_match", "a name of the file's own exports")
        if len(receiver) == 1 and (head in self.classes or head in self._class_aliases(path)):
            return False  # the class, or the object holding the method, by its own or an import's name
        if rules.language != "python":  # typed by a line of the file, as the language writes it
            if len(receiver) == 1 and self._typed_by_line(path, head, lines, occ.line):
                return False
            if 1 < len(receiver) <= FIELD_DEPTH + 1 and self.classes and self._field_typed(path, occ, receiver, lines):
                return False  # `c.base.Describe()`, `self.cmd.get_name()`, `s.cfg.Client.Do()`: the fields' declared types
        else:
            typed = self._instance(path, head, occ.line) if len(receiver) == 1 else (
                self._self_attribute(path, occ.line, receiver[1]) if len(receiver) == 2 and head == "self" else None)
            if typed:
                return False if typed.rule is None else (how, typed.rule)
            if typed is None and self._instance_of(path, receiver):
                return False
        reached = self._module_reaches(path, head)
        if reached is None:
            return "name_match", f"attribute of an untyped receiver `{'.'.join(receiver)}`"
        if not reached and len(receiver) == 1 and self._namespace_reexported(path, head):
            return False
        if reached and self.methods_only and not (
                self._class_bound(path, head) if len(receiver) == 1 else receiver[-1] in self.classes):
            return "name_match", f"attribute of module `{'.'.join(receiver)}`, not a method's"
        if reached and len(receiver) > 1 and not self._names_owner(receiver[-1]):
            return "name_match", f"attribute of `{'.'.join(receiver)}`, no module or class of it"
        if reached:
            return False
        return "name_match", f"attribute of module `{head}`, which does not reach it"

    def _import_reaches(self, path: str) -> bool | None:
        """Does an import of the file binding the name itself as a bare name (`Bindings.binds_bare`:
        `from .api import get`, a Python `*`; `import { get } from`) reach a defining or
        re-exporting file, binding a name there rather than a module of the name (Python's
        `from . import cli`)? None when no import binds it."""
        key = (path, ":" + self.simple)
        if key not in self.modules:
            facts = self.snap.import_facts(path)
            specs = [spec for spec in (facts.imports if facts else ()) if of_import(spec.kind).binds_bare(spec, self.simple)]
            self.modules[key] = any(self._spec_reaches(path, spec) for spec in specs) if specs else None
        return self.modules[key]

    def _line_reaches(self, path: str, line: int) -> bool:
        """Does an import of the file on `line` reach a defining or re-exporting file? The lines
        are found once a file: every site of a file of many imports asks."""
        lines = self._reaching_lines.get(path)
        if lines is None:
            lines = self._reaching_lines[path] = frozenset(
                e.line for e in self.snap.imports(path) if e.target in self.reaching)
        return line in lines

    def _imported_on(self, path: str, line: int) -> bool:
        """Does an import of the file on `line` name the definition's name?"""
        facts = self.snap.import_facts(path)
        return any(spec.line == line and self.simple in spec.names for spec in (facts.imports if facts else ()))

    def _field_typed(self, path: str, occ: Occurrence, receiver: tuple[str, ...], lines: list[bytes]) -> bool:
        """Is `x.f` of a method's class, as the field `f` of a type the file gives `x` is
        declared (Go's `c.base` for `func (c *Client)` and Client's `base
        baseConn`; Rust's `self.cmd` in an impl of a type whose `cmd: &'a Command`)?
        Rust's `self` is the type of the impl the site is in."""
        head, fields = receiver[0], receiver[1:]
        rules = self.reading.rules(path)
        if head in rules.instance_names:
            holder = next((f for f in reversed(self.reading.functions(path))
                           if f.container and f.line <= occ.line <= f.end_line), None)
            owners = frozenset({holder.container.rsplit(".", 1)[-1]}) if holder is not None else frozenset()
        else:
            owners = self.reading.line_types(path, head, lines, occ.line)
        for field in fields:  # `s.cfg.Client`: each field of the type the one before it is declared
            owners = self.reading.field_types(path, owners, field)
        return not self.classes.isdisjoint(owners)

    def _chain_typed(self, path: str, occ: Occurrence, lines: list[bytes]) -> bool:
        """Is the Go or Rust site an attribute of a call whose result is of a method's class, as
        the signatures of what it calls say (`vec.WithLabelValues("a").Inc()`,
        `web.NewRouter().HandleFunc(p, h)`, `Command::new("git").about(..)`), the call on its
        line, or ending the line above (gofmt's break of a chain after its dot), or, a Rust
        line starting with the site's `.`, on the lines above (a builder's chain)?"""
        line = lines[occ.line - 1]
        before = line[max(0, occ.col - SITE_TEXT):occ.col].rstrip()
        row, dot = occ.line - 1, len(line[:occ.col].rstrip()) - 1  # where the `.` before the site is
        if not before and occ.line > 1:  # gofmt's break: `...(a).` ending the line above
            before = lines[occ.line - 2].strip()
            row, dot = occ.line - 2, len(lines[occ.line - 2].rstrip()) - 1
        elif before.strip() == b"." and occ.line > 1:  # `Command::new("git")` over lines above `.about(...)`
            start = max(0, occ.line - 1 - CHAIN_LINES)
            before = b" ".join(x.strip() for x in lines[start:occ.line - 1]) + b"."
        if not before.endswith(b"."):
            return False
        call = before[:-1].rstrip()
        if self.reading.rules(path).language == "go" and call.endswith(b")") and opening_bracket(call, len(call) - 1) is None:
            # `}).Methods("GET")`: a call whose `(` is on a line above, a function literal its argument
            close = len(lines[row][:dot].rstrip()) - 1
            opened = opened_above(lines, row, close, GO, CALL_LINES, CALL_BYTES) if lines[row][close:close + 1] == b")" else None
            if opened is None:
                return False
            call = lines[opened[0]][:opened[1]] + b"()"
        made = self.reading.call_types(path, call, lines, site=occ.line)
        return not self.classes.isdisjoint(made)

    def _declared_types(self, path: str, name: str, first: int, last: int) -> frozenset[str]:
        """The types the lines `first` to `last` of the file declare the variable `name` of
        (Java's `Bindings.typings`): the file's declarations of a name are read once, each site
        then keeping those of its lines."""
        key = (path, name)
        found = self._declarations.get(key)
        if found is None:  # the file's declarations of the name, read once
            lines = self.reading.source_lines(path)
            patterns = self.reading.rules(path).typings(name)
            found = self._declarations[key] = [
                (i, t.decode()) for i in self.reading.lines_naming(path, name) for pattern in patterns
                if (m := pattern.search(lines[i])) is not None for t in m.groups() if t is not None]
        return frozenset(t for i, t in found if first - 1 <= i < last)

    def _typed_by_line(self, path: str, name: str, lines: list[bytes], at: int) -> bool:
        """Is `name` given an instance of a method's class somewhere in the file, as its
        language writes that (`Bindings.typings`: `app = Flask(...)`, `const app = new App()`, Go's `s := &Server{}` or
        receiver `(s *Server)`, Rust's `let s = Server::new()`)? The one typing of a variable
        the index makes: the file's own lines, read as written, whatever scope they are in
        (Go's: in the function holding the site, `at`, or outside every function)."""
        if not self.classes:
            return False
        written = self.reading.line_types(path, name, lines, at)
        return not self.classes.isdisjoint(written) or not self._class_aliases(path).isdisjoint(written)

    def _class_aliases(self, path: str) -> frozenset[str]:
        """The file's own names for a method's class that its imports bind under another name
        (`import { Client as C }`, `import C from` a file exporting Client as default, `const C
        = require` of one whose `module.exports` it is, `import { client }` of an index's
        `export { default as client } from "./api"`), so that `new C()` makes an instance of
        it and `client.get()` is the object's member: each import's local name for a name a
        file it reaches offers the class or object under.
        JavaScript and TypeScript, whose imports rename; read once for each file."""
        if path not in self._aliases:
            self._aliases[path] = frozenset(self._class_aliases_anew(path)) if self.classes else frozenset()
        return self._aliases[path]

    def _class_aliases_anew(self, path: str) -> set[str]:
        facts = self.snap.import_facts(path) if self.reading.rules(path).language == "javascript" else None
        found: set[str] = set()
        for spec in facts.imports if facts else ():
            for e in self.snap.edges_of_import(path, spec):
                offered = self.offers.get(e.target, set()) if e.target else set()
                found.update(local for inner, local in target_binds(self.snap, spec, e.target) if offered
                             and local and local not in self.classes and inner in offered and inner != self.simple)
        return found

    def _super_member(self, path: str, occ: Occurrence, how: str) -> tuple[str, str]:
        """`super().name` in the body of class X: the member of the first class after X in X's
        order that has one, as Python finds it (the zero-argument form, in a method of X)."""
        from context_tools.query.symbols.hierarchy import Cls

        owner = self._class_symbol_at(path, occ.line)
        if owner is None:
            return "name_match", "attribute of super() outside a class"
        h = self.reading.classes_read.h
        for x in h.after(Cls(path, owner)):
            found = h.member_at(x, self.simple)
            if found is None:
                continue
            if any(p == found[0] and s.qualified == found[1].qualified for p, s, _ in self.defs):
                return (how if how in _BOUND else "import"), f"super() in {owner.name}"
            return "name_match", f"super() in {owner.name} reaches {found[1].qualified}"
        return "name_match", f"super() in {owner.name}, whose bases the index knows define no {self.simple}"

    def namespace_attribute(self, path: str, occ: Occurrence) -> str | None:
        """For a site its file does not tie: the rule making it the definition's when it is an
        attribute of a namespace a file the import reaches re-exports under the name the
        import binds (`import { repo } from "./models"` over models' `export * as repo from
        "./user"`: `repo.makeUser()` is user.ts's), that namespace's module reaching the
        definition; None otherwise, and for a method, which no module offers as its own name."""
        if self.methods_only or self.reading.rules(path).language != "javascript":
            return None
        syntax = self._uncalled_attribute(path, occ)
        if syntax is None or len(syntax.receiver) != 1:
            return None
        found = self._namespace_reexported(path, syntax.receiver[0])
        return f"attribute of namespace `{syntax.receiver[0]}` {found} re-exports" if found else None

    def _namespace_reexported(self, path: str, head: str) -> str | None:
        """The file an import of the file binding `head` reaches that re-exports, as the name
        imported, a module whole (`export * as repo from "./user"`) reaching a defining or
        re-exporting file; None when there is none. One hop: a namespace of a namespace is not
        followed. Read once a file and name: a file's every site of a receiver asks the same."""
        key = (path, head)
        if key not in self._namespaces:
            self._namespaces[key] = self._namespace_reexported_anew(path, head)
        return self._namespaces[key]

    def _namespace_reexported_anew(self, path: str, head: str) -> str | None:
        facts = self.snap.import_facts(path)
        for spec in facts.imports if facts else ():
            rules = of_import(spec.kind)
            names = [inner for inner, local in rules.binds(spec) if local == head and inner not in ("*", "default")]
            for e in self.snap.edges_of_import(path, spec) if names else ():
                held = self.snap.import_facts(e.target) if e.target else None
                if any(relay.names == ("*",) and relay.exports and relay.exports[0] in names
                       and any(r.target in self.reaching for r in self.snap.edges_of_import(e.target, relay))
                       for relay in (held.imports if held else ())):
                    return e.target
        return None

    def required_attribute(self, path: str, occ: Occurrence) -> str | None:
        """For a site its file does not tie: the rule making it the definition's when it is a
        name of a module `require(...)` returns, called in place, whose own edge reaches a
        defining or re-exporting file (`require("./cj").helper()`, in a file binding nothing
        of cj.js's: the `require` binds no name, so no import of the file reaches it); None
        otherwise, and for a method, which no module offers as its own name."""
        rules = self.reading.rules(path)
        if self.methods_only or rules.site_syntax(b"", 0, "") is None:
            return None
        lines = self.reading.source_lines(path)
        if not 0 < occ.line <= len(lines):
            return None
        syntax = self.reading.syntax(rules, path, occ, lines)
        if syntax is None or syntax.form != "attribute" or not syntax.called or not rules.imports_by_call(syntax.receiver):
            return None
        return "attribute of a module `require(...)` binds, which reaches it" if self._line_reaches(path, occ.line) else None

    def constructed_receiver(self, path: str, occ: Occurrence) -> str | None:
        """For a Python site its file does not tie: the rule making it a method's when its
        receiver is a call of the method's class written through a module path the file's
        imports bind (`pkg.Request(...).prepare()` after `import pkg.adapters`, which binds
        `pkg`, whose __init__ re-exports Request; was: a `name_match`, as the assigned `r =
        pkg.Request(...)` was not); None otherwise."""
        if not self.classes or self.reading.rules(path).language != "python":
            return None
        syntax = self._attribute(path, occ)
        if syntax is None or not syntax.called or len(syntax.receiver) < 2:
            return None
        module = list(syntax.receiver[:-1])
        found = self._module_chain(path, module)
        offered = found is not None and syntax.receiver[-1] in self.offers.get(found, ())
        return f"instance `{'.'.join(syntax.receiver)}(...)`, module `{'.'.join(module)}`" if offered else None

    def _uncalled_attribute(self, path: str, occ: Occurrence) -> SiteSyntax | None:
        """The site's syntax when it is an attribute of a receiver, not called (`app.name`,
        `flask.Flask`); None otherwise or where the language has no site syntax."""
        syntax = self._attribute(path, occ)
        return None if syntax is None or syntax.called else syntax

    def _attribute(self, path: str, occ: Occurrence) -> SiteSyntax | None:
        """The site's syntax when it is an attribute of a named receiver (`app.name`,
        `pkg.Client(...).get`); None otherwise or where the language has no site syntax."""
        rules = self.reading.rules(path)
        if rules.site_syntax(b"", 0, "") is None:
            return None
        lines = self.reading.source_lines(path)
        if not 0 < occ.line <= len(lines):
            return None
        syntax = self.reading.syntax(rules, path, occ, lines)
        if syntax is None or syntax.form != "attribute" or not syntax.receiver:
            return None
        return syntax

    def declared_receiver(self, path: str, occ: Occurrence) -> str | None:
        """For a JavaScript or TypeScript site its file does not tie (it imports no name of the
        method's class, only what is declared with it: `isObservableSet`): the rule that makes
        it the method's when a declaration types its receiver as the class (`ScriptTypes`);
        None otherwise."""
        rules = self.reading.rules(path)
        if rules.language != "javascript" or not self.classes:
            return None
        lines = self.reading.source_lines(path)
        if not 0 < occ.line <= len(lines):
            return None
        syntax = self.reading.syntax(rules, path, occ, lines)
        declared = self._script_declared(path, occ, syntax, lines) if syntax is not None else None
        return declared[1] if declared is not None and declared[0] else None

    def _script_declared(self, path: str, occ: Occurrence, syntax: SiteSyntax, lines: list[bytes]
                         ) -> tuple[bool, str] | None:
        """What a declared type says of a JavaScript or TypeScript site (`ScriptTypes`): of a
        bare name or key, whether it is an object literal's key implementing the member; of an
        attribute (but `this.` in a class, which the hierarchy decides), whether its typed
        receiver's member is one asked; with the rule. None where no declaration decides. Read
        once a site (`decide` asks, then `declared_receiver`)."""
        key = (path, occ.line, occ.col)
        if key not in self.script_sites:
            self.script_sites[key] = self._script_said(path, occ, syntax, lines)
        return self.script_sites[key]

    def _script_said(self, path: str, occ: Occurrence, syntax: SiteSyntax, lines: list[bytes]
                     ) -> tuple[bool, str] | None:
        """`_script_declared`, read."""
        if syntax.form in ("keyword", "bare"):
            return self.scripts.object_key(path, occ.line, occ.col, self.simple)
        if syntax.form == "attribute" and (syntax.receiver != ("this",) or self.members.enclosing(
                path, occ.line) is None):
            return self.scripts.decide(path, occ.line, occ.col, () if syntax.called else syntax.receiver,
                                       cast_before(lines, occ.line, occ.col), self.simple)
        return None

    def imported_instance(self, path: str, occ: Occurrence) -> str | None:
        """For a site its file does not tie: the rule that makes it a method's, when its
        receiver is a module-level instance of the method's class that an import reaches
        (`from js_example import app` where js_example/__init__.py has `app = Flask(...)`;
        `requests.codes.get` where requests/__init__.py imports `codes = LookupDict(...)`);
        None otherwise."""
        if not self.classes:
            return None
        syntax = self._uncalled_attribute(path, occ)
        if syntax is None:
            return None
        receiver = syntax.receiver
        python = self.reading.rules(path).language == "python"  # its receivers are read as Python's
        typed = (self._instance(path, receiver[0], occ.line) if len(receiver) == 1 else (
            self._self_attribute(path, occ.line, receiver[1]) if len(receiver) == 2 and receiver[0] == "self" else None)
                 ) if python else None
        if typed:
            # a fixture, an annotation, an attribute of self: the binding that typed it decides;
            # a plain assignment, only through a module chain reaching the class
            if typed.rule is not None:
                return typed.rule
            return self._constructed_through(path, typed.callee, receiver[0])
        if receiver[0] in ("self", "cls") or typed is not None:
            return None  # typed where it stands: not by what an import reaches
        found = self._instance_of(path, receiver)
        return f"instance `{'.'.join(receiver)}` of {found}" if found else None

    def _constructed_through(self, path: str, callee: str, name: str) -> str | None:
        """The rule typing `name` when the call assigned to it is written through modules a
        file's import reaches, the class's own file at the end (`requests.cookies.RequestsCookieJar()`
        after `import requests`: a package's submodule, once anything imports it, is its
        attribute); None otherwise."""
        parts = callee.split(".")
        if len(parts) < 2 or "" in parts:
            return None
        found = self._module_chain(path, parts[:-1])
        offered = found is not None and parts[-1] in self.offers.get(found, ())
        return f"instance `{name}` of `{callee}(...)`, module `{'.'.join(parts[:-1])}`" if offered else None

    def _module_chain(self, path: str, parts: list[str]) -> str | None:
        """The file a dotted module path in code names: its head a module an import of the file
        binds (`import requests`, or the package `import flask.views` binds to `flask`, whose
        __init__ it runs), each further part a submodule of the package before it."""
        facts = self.snap.import_facts(path)
        heads: set[str] = set()
        for spec in facts.imports if facts else ():
            dotted = spec.spec.split(".")
            if spec.names or spec.aliases or dotted[0] != parts[0]:
                continue
            for e in self.snap.edges_of_import(path, spec):
                if e.target:
                    if len(dotted) == 1:
                        heads.update([e.target] if module_parts(e.target)[-1:] == [parts[0]] else [])
                    else:
                        heads.update(_package_above(self.snap, e.target, len(dotted) - 1, parts[0]))
        python = of_language("python")
        for current in sorted(heads):
            for part in parts[1:]:
                nxt = python.submodule(self.snap, current, part)
                if not nxt:
                    current = ""
                    break
                current = nxt[0]
            if current:
                return current
        return None

    def package_attribute(self, path: str, occ: Occurrence) -> str | None:
        """For a Python site its file does not tie, not a method's: the rule that makes it the
        definition's when it is an attribute of a module path the file's imports bind that
        ends in a file reaching the definition (`flask.Flask` after `import flask.views`, which
        binds `flask`, the package whose __init__ re-exports Flask); None otherwise."""
        if self.methods_only or self.reading.rules(path).language != "python":
            return None
        syntax = self._uncalled_attribute(path, occ)
        if syntax is None:
            return None
        found = self._module_chain(path, list(syntax.receiver))
        offered = found is not None and self.simple in self.offers.get(found, ())
        return f"attribute of module `{'.'.join(syntax.receiver)}`, which an import binds" if offered else None

    def _instance_of(self, path: str, receiver: tuple[str, ...]) -> str | None:
        """The method's class whose module-level instance the receiver is, reached through the
        file's imports: `app` bound by `from m import app`, or `m.codes` with `m` a module an
        import binds; None when it is no such instance."""
        if not self.classes or len(receiver) > 2:
            return None
        key = (path, "instance:" + ".".join(receiver))
        if key in self.modules:
            return self.instance_memo.get(key)
        found = None
        facts = self.snap.import_facts(path)
        head = receiver[0]
        lines = self.reading.source_lines(path)
        for spec in facts.imports if facts else ():
            if not 0 < spec.line <= len(lines) or lines[spec.line - 1][:1] in (b" ", b"\t"):
                continue  # a function's own import binds the name in that function alone
            rules = of_import(spec.kind)
            edges = [e for e in self.snap.edges_of_import(path, spec) if e.target]
            if len(receiver) == 1 and spec.names:
                for inner, local in rules.binds(spec):
                    if local == head and inner != "*":
                        found = found or next(filter(None, (self._assigned_class(e.target, inner, 0) for e in edges)), None)
            elif len(receiver) == 2 and of_import(spec.kind).binds_local(spec, head):
                modules = [e.target for e in edges if not spec.names or rules.binds_module(spec, e.target)]
                found = found or next(filter(None, (self._assigned_class(t, receiver[1], 0) for t in modules)), None)
        self.modules[key] = found is not None
        if found:
            self.instance_memo[key] = found
        return found

    def _assigned_class(self, path: str, name: str, depth: int) -> str | None:
        """The method's class a module-level line of the file assigns `name` an instance of
        (`codes = LookupDict(...)`), or that one of its imports binding `name` reaches, up to
        `RELAY_HOPS` files away; None otherwise. Made once for each file, name and depth:
        files importing the name from one another make as many ways as the imports to the
        power of the hops."""
        key = (path, name, depth)
        if key not in self._assigned:
            self._assigned[key] = self._assigned_anew(path, name, depth)
        return self._assigned[key]

    def _assigned_anew(self, path: str, name: str, depth: int) -> str | None:
        if depth > RELAY_HOPS or self.snap.file(path) is None:
            return None
        assigned = self.receivers.assigned_class(path, name)
        if assigned is not None:  # a module-level assignment decides, an instance of a class asked or not
            return assigned or None
        facts = self.snap.import_facts(path)
        for spec in facts.imports if facts else ():
            for inner, local in of_import(spec.kind).binds(spec) if spec.names else ():
                if local == name and inner != "*":
                    for e in self.snap.edges_of_import(path, spec):
                        if e.target:
                            found = self._assigned_class(e.target, inner, depth + 1)
                            if found:
                                return found
        return None

    def _bare(self, path: str, occ: Occurrence, how: str, lines: list[bytes],
              across: bool = False) -> tuple[str, str] | Literal[False]:
        """A bare name is the binding visible where it stands: no method's (a method is reached
        through its class or an instance); in an importing file, what an import binds to the
        name, the import's own line naming what it imports from a file reaching the definition;
        in a defining file, the definition when its scope holds the site (a function nested in
        another is seen only there), and no module-level use above a module-level variable's
        own line, which reads an earlier binding."""
        if self.methods_only:
            owner = self._class_body_member(path, occ, lines)
            if owner is not None:
                return how, f"bare name in the body of class {owner}, below its definition"
            return "name_match", "bare name, not a method's"
        if path in self.crossing or across:  # what another member's package binds: the workspace's resolution
            return False
        rules = self.reading.rules(path)
        if rules.language != "python":
            # the binding visible there: an import of the name from a module that does not reach
            # the definition (`import { get } from "axios"`) makes it another's; where only an
            # import of the name binds it (Rust), one of its file alone does not (`use
            # crate::kind::Kind;` brings in no `helper` of kind.rs), bar the import's own line
            if how == "same_file":
                return False
            reached = self._import_reaches(path)
            if reached is None and how == "import" and (rules.bare_needs_import or rules.language == "javascript") and (
                    occ.line not in self._declared_lines(path, lines)):
                return "name_match", "bare name no import binds"
            return False if reached is not False else ("name_match", "bare name an import of another module binds")
        spec = self._import_at(path, occ.line, lines)
        if spec is not None:
            if not self._spec_reaches(path, spec):
                return "name_match", "import of another module's name"
            return False
        if how == "import":
            if not self._import_reaches(path):
                return "name_match", "bare name no import binds"
            if self._own_definition_around(path, occ.line):
                return "name_match", "bare name of the file's own definition"
            return False
        if how == "same_file":
            mine = [s for p, s, _ in self.defs if p == path]
            if mine and not any(self._in_scope(path, s, occ.line) for s in mine):
                return "name_match", "bare name outside its definition's scope"
        return False

    def _in_scope(self, path: str, sym: Symbol, line: int) -> bool:
        """Is the line where the definition's name is seen: anywhere in the file for a top-level
        definition (a module-level variable not above its own line, at module level), in the
        body of the function holding it for a nested one, and for a class's member only in that
        class's own body below it, outside its methods: a method's body does not see its class's names
        (was: everywhere, so `dumps(...)` in a method `dumps` was no site of the module's
        `dumps` its file imports)."""
        if not sym.container:
            if sym.kind in ("variable", "constant") and line < sym.line and self._at_module_level(path, line):
                return False
            return True
        holder = self._symbol(path, sym.container)
        if holder is None:
            return True
        if holder.kind == "class":  # bound once its statement ran: `dumps = staticmethod(dumps)` reads another
            scope = self._scope_at(path, line)
            return sym.line < line and scope is not None and scope.start_byte == holder.start_byte
        if holder.kind not in ("function", "method"):
            return True
        return holder.line <= line <= holder.end_line

    def _scope_at(self, path: str, line: int) -> Symbol | None:
        """The innermost class or function of the file holding the line, None at module level
        (of two holding it, the one starting later is inside the other)."""
        cls = self._class_symbol_at(path, line)
        function = next(self.receivers.holders(path, line), None)
        if cls is None or function is None:
            return cls or function
        return function if function.line > cls.line else cls

    def _class_body_member(self, path: str, occ: Occurrence, lines: list[bytes]) -> str | None:
        """The class whose own body holds a bare Python name that is a member asked of that
        class, defined above it there (`tag = to_json`, `@name.setter`, `x = property(get_x)`:
        a class body's statements see the names its earlier ones bind, its methods do not);
        None elsewhere, and in a lambda or comprehension on the line, whose scope skips the
        class's."""
        if self.reading.rules(path).language != "python":
            return None
        scope = self._scope_at(path, occ.line)
        if scope is None or scope.kind != "class":
            return None
        if not any(p == path and s.container == scope.qualified and s.line < occ.line for p, s, _ in self.defs):
            return None
        if _OWN_SCOPE.search(lines[occ.line - 1]):
            return None
        return scope.name

    def _symbol(self, path: str, qualified: str) -> Symbol | None:
        facts = self.snap.core_facts(path)
        return next((s for s in (facts.symbols if facts else ()) if s.qualified == qualified), None)

    def _at_module_level(self, path: str, line: int) -> bool:
        facts = self.snap.core_facts(path)
        return not any(s.kind in ("function", "method", "class") and s.line <= line <= s.end_line
                       for s in (facts.symbols if facts else ()))

    def _own_definition_around(self, path: str, line: int) -> bool:
        """Does the importing file define the name itself where the site stands (a function
        nested in the site's function, a top-level definition of its own)?"""
        facts = self.snap.core_facts(path)
        return any(s.name == self.simple and (path, s.line) not in self.def_sites and self._in_scope(path, s, line)
                   for s in (facts.symbols if facts else ()))

    def _spec_reaches(self, path: str, spec: ImportSpec) -> bool:
        """Does the import resolve to a file reaching the definition, binding a name there
        rather than a module of the name (`Bindings.binds_module_of`)?"""
        rules = of_import(spec.kind)
        # a Rust glob binds the name only as it passes it on (a glob of an enum its variants)
        starred = rules.bare_needs_import and not rules.binds_local(spec, self.simple)
        return any(e.target in self.reaching and not rules.binds_module_of(spec, e.target, self.simple)
                   and (not starred or rules.star_passes(self.snap, spec, e.target)(self.simple))
                   for e in self.snap.edges_of_import(path, spec))

    def _names_owner(self, last: str) -> bool:
        """Can the last part of a dotted receiver own the definition: the method's class, or a
        module among the files reaching the definition (`lib.api` of `lib.api.get`), or a name
        one of them binds a module to (`lib.x.spare` over lib/__init__.py's `from . import
        extra as x`)?"""
        if last in self.classes or any(module_parts(f)[-1:] == [last] for f in self.reaching):
            return True
        for f in sorted(self.reaching):
            facts = self.snap.import_facts(f)
            for spec in facts.imports if facts else ():
                if not spec.names:
                    if spec.aliases == (last,):
                        return True
                elif any(local == last for _, local in of_import(spec.kind).binds(spec)) and any(
                        of_import(spec.kind).binds_module(spec, e.target) for e in self.snap.edges_of_import(f, spec)):
                    return True
        return False

    def _class_bound(self, path: str, head: str) -> bool:
        """Does an import of the file bind `head` to a method's class (`from .api import Client
        as C`)?"""
        facts = self.snap.import_facts(path)
        return any(inner in self.classes for spec in (facts.imports if facts else ()) if spec.names
                   for inner, local in of_import(spec.kind).binds(spec) if local == head)

    def _import_at(self, path: str, line: int, lines: list[bytes]) -> ImportSpec | None:
        """The import naming the name on the line (`from pkg import Thing as tm`, or a line of
        its parenthesized list), whose own site of what it imports the site is; None if none."""
        facts = self.snap.import_facts(path)
        for spec in facts.imports if facts else ():
            if self.simple in spec.names and spec.line <= line <= spec.line + len(spec.names) + 1:
                if line == spec.line or _NAME_LIST.match(lines[line - 1]):
                    return spec
        return None

    def _class_at(self, path: str, line: int) -> str | None:
        """The name of the innermost class of the file whose body holds the line, None outside any."""
        found = self._class_symbol_at(path, line)
        return found.name if found is not None else None

    def _class_symbol_at(self, path: str, line: int) -> Symbol | None:
        found = self.enclosing.get(path)
        if found is None:
            facts = self.snap.core_facts(path)
            # the class holding a line is the one of the latest first line holding it, the first
            # of them as the file lists them
            found = self.enclosing[path] = Holding.by([s for s in (facts.symbols if facts else ()) if s.kind == "class"],
                                                      lambda s: s.line)
        return next(found.holding(line), None)

    def _this_member(self, path: str, line: int, head: str, bases_only: bool = False) -> tuple[str, str] | None:
        """`this.name` in a class's body (JavaScript, TypeScript): a `name_match` unless the
        member the class has of the name, its own or one it inherits as the hierarchy knows
        it, is a definition asked (an interface's `get` is not the `get` of a class declaring
        its own; a base class's `this.set` is no subclass's `set`); `super.name` (`bases_only`)
        likewise, of the member its bases have, never the class's own. In a function assigned to
        an object's property (`app.init = function () { this.set(...) }`), the member that
        object has in the file: None (the file decides) when it is a definition asked, else a
        `name_match`. None elsewhere outside a class."""
        cls = self.members.enclosing(path, line)
        if cls is None and bases_only:  # no class, no bases: an object literal's `super` is its prototype's
            return "name_match", f"attribute of {head} outside a class"
        if cls is None:
            holder = self._property_function_at(path, line)
            if holder is None:
                return None
            member = self._named_in(path).get(holder.container)
            if member is None:
                return "name_match", f"attribute of {head} in a function of {holder.container}, which has no member {self.simple}"
            if (path, member.line) not in self.def_sites:
                return "name_match", f"attribute of {head} in a function of {holder.container} is {member.qualified}"
            return None
        found = self.members.member(cls, self.simple, bases_only)
        if found is None:
            return "name_match", f"attribute of {head} in {cls.sym.qualified}, which has no member {self.simple}" + (
                " in its bases" if bases_only else "")
        if (found[0], found[1].line, found[1].start_byte) not in self.members.keys:
            return "name_match", f"attribute of {head} in {cls.sym.qualified} is {found[1].qualified}"
        return None

    def _instance_alias(self, path: str, occ: Occurrence, name: str, lines: list[bytes]) -> bool:
        """Is `name` at the site an alias of the instance (`const self = this`, JavaScript,
        TypeScript) in a class: the nearest declaration of the name the site sees, back to the
        class's first line, declares it so? A declaration the site sees is one outside every
        block closed between them (another method's `self` is not), read by braces line by line;
        a callback's parameter `self` or `const self = other` says otherwise. Then `self.name` is
        `this.name` of that class."""
        if not self.classes:
            return False
        rules = self.reading.rules(path)
        aliased = self.reading.aliases_this(path, name, lines)  # most files alias no `this` by the name
        cls = self._class_symbol_at(path, occ.line) if aliased else None
        if cls is None or self.members.enclosing(path, occ.line) is None:
            # outside a class, in a function assigned to an object's property (`proto.handle =
            # function () { var self = this; ... }`), whose `this` its file decides
            cls = self._property_function_at(path, occ.line) if aliased else None
            if cls is None:
                return False
        # the nearest line up to the class's first declaring the name, outside every block
        # closed between it and the site (`ThisAliases`: the file's braces read once)
        aliases = self.reading.this_aliases(path, name, lines)
        last = len(lines)
        at = aliases.starts[-1]
        if occ.line <= len(lines):
            window, col = site_window(lines[occ.line - 1], occ.col, 0)
            text = window[:col]
            at = aliases.starts[occ.line - 1] + occ.col
            said = rules.instance_alias(text, name) if name.encode() in text and aliases.visible(occ.line, at) else None
            if said is not None:
                return said
            last = occ.line - 1
        found = aliases.nearest(cls.line, last, at)
        return found if found is not None else False

    def _named_in(self, path: str) -> dict[str, Symbol]:
        """The file's first definition of the name asked in each container: found once a file,
        not by reading all its definitions for each site."""
        found = self._named.get(path)
        if found is None:
            facts = self.snap.core_facts(path)
            found = self._named[path] = {}
            for s in facts.symbols if facts else ():
                if s.name == self.simple:
                    found.setdefault(s.container, s)
        return found

    def _property_function_at(self, path: str, line: int) -> Symbol | None:
        """The method of an object of the file's top holding the line, outermost: a function
        assigned to an object's property (`proto.handle = function handle() {}`) or a method of
        an object literal (`const arrayExtensions = { clear() {} }`), whose `this` is that object."""
        around = list(self.members.holding(path, line))[::-1]  # by first byte
        if around and around[0].kind in ("variable", "constant") and not around[0].container:
            around = around[1:]  # the object literal itself, its methods within
        outer = around[0] if around else None
        if outer is None or outer.kind != "method" or not outer.container or "." in outer.container:
            return None
        return outer if self.reading.holder_kind(path, outer) in ("variable", "constant") else None

    def _instance(self, path: str, name: str, line: int) -> Typing:
        """What `name` is where the site on `line` sees it (`PythonReceivers.variable`)."""
        return self.receivers.variable(path, name, line) if self.classes else False

    def _self_attribute(self, path: str, line: int, attribute: str) -> Typing:
        """What `self.attribute` is in the class whose body holds the line, when that class
        is no method's class itself (`PythonReceivers.self_attribute`): the first class of its
        order binding the attribute decides, itself or a base as Python looks attributes up
        (`self.json` in a subclass's methods, which its base's `__init__` annotates; was: the
        class's own body alone, a `name_match` through an attribute a base binds)."""
        from context_tools.query.symbols.hierarchy import Cls

        if not self.classes:
            return False
        owner = self._class_symbol_at(path, line)
        if owner is None:
            return None
        found = self.receivers.self_attribute(path, owner, attribute)
        if found is None:
            for base in self.reading.classes_read.h.after(Cls(path, owner)):
                found = self.receivers.self_attribute(base.path, base.sym, attribute)
                if found is not None:
                    break
        return found

    def _declared_lines(self, path: str, lines: list[bytes]) -> dict[int, list[ImportSpec]]:
        """The lines of the file's import declarations (a `use` from its first line to the one
        ending it with `;`, as far as `USE_LINES` on), each with the imports declared over it:
        paths there are no uses in code."""
        found = self.declared.get(path)
        if found is None:
            facts = self.snap.import_facts(path)
            found = self.declared[path] = {}
            for spec in facts.imports if facts else ():
                if spec.kind == "rust_path":
                    continue
                for n in range(spec.line, min(spec.line + USE_LINES, len(lines) + 1)):
                    found.setdefault(n, []).append(spec)
                    if b";" in lines[n - 1]:
                        break
        return found

    def _use_line(self, path: str, line: int, lines: list[bytes]) -> tuple[str, str] | Literal[False] | None:
        """A name a `use` on the line brings in (`use a::b::Thing;`, `use b::Thing as Other;`,
        an item of its group) is the definition's when that `use`'s own path reaches a defining
        or re-exporting file, as the resolver recorded its edges: the file's other imports of
        the name do not decide it. False when it does, or (no edge) the file defines it in an
        inline module; None when no `use` there brings in the name (a segment of its path:
        the file decides)."""
        bringing = [spec for spec in self._declared_lines(path, lines).get(line, ())
                    if spec.kind == "rust_use" and any(inner == self.simple for inner, _ in of_import(spec.kind).binds(spec))]
        if not bringing:
            return None
        targets = {e.target for spec in bringing for e in self.snap.edges_of_import(path, spec)}
        spelled = bringing[0].spec
        if not targets:
            return False if path in self.defining else ("name_match", f"`use` of `{spelled}`, which reaches no file of the tree")
        return False if targets & self.reaching else ("name_match", f"`use` of `{spelled}`, which does not reach it")

    def _path(self, path: str, receiver: tuple[str, ...]) -> tuple[str, str] | Literal[False]:
        """A Rust path `a::b::name`: through the method's type (or `Self`), the file decides;
        through another type (`Vec::new` for Builder.new), no site of it; through modules, to
        the method's type or not, by where they reach: the path's own edge (`crate::net::f`,
        `other::f`, `demo::Builder::new`), else the import binding its first segment (`use
        crate::net;`, `mod net;`; `use std::io;` makes `io::Error::new` no site of a tree's
        `Error.new`)."""
        if not receiver:
            return "name_match", "path through what is no plain path (`<T as Tr>::`, `V::<T>::`)"
        last = receiver[-1]
        if last == "Self" or last in self.classes and len(receiver) == 1:
            return False
        if last[:1].isupper() and last not in self.classes:
            return "name_match", f"path through `{last}`, not its type"
        # through modules, to the method's type among them or not (`io::Error::new` is std's
        # Error's, `crate::builder::Arg::new` the tree's): where the modules reach decides
        spelled = "::".join(receiver)
        facts = self.snap.import_facts(path)
        own = [spec for spec in (facts.imports if facts else ()) if spec.kind == "rust_path" and spec.spec == spelled]
        targets = {e.target for spec in own for e in self.snap.edges_of_import(path, spec)}
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
            specs = [spec for spec in (facts.imports if facts else ()) if of_import(spec.kind).binds_local_in(
                spec, head, partial(self.reading.clause, path, spec))]
            if not specs:
                self.modules[key] = None
            elif path in self.crossing:  # its import of another member's package: outside this snapshot's edges
                self.modules[key] = True
            else:
                # a from-import must bind the module itself (`from pkg import api`), not a name
                # it defines (`from ._models import Request` makes `Request.get` no module's)
                # ... or a method's class (`from .api import Client as C`: `C.fetch`)
                self.modules[key] = any(
                    e.target in self.reaching
                    and (not spec.names or of_import(spec.kind).binds_module(spec, e.target)
                         or of_import(spec.kind).binds_namespace(spec, head) or any(
                        name in self.classes for name, local in of_import(spec.kind).binds(spec) if local == head))
                    for spec in specs for e in self.snap.edges_of_import(path, spec))
        return self.modules[key]


class _Reading:
    """What the files hold that every definition's pass over the sites reads alike, read once
    for all of them (a name with many definitions is resolved against each on its own): the
    name's occurrences, each file's bytes, lines, functions, classes, binding rules and site syntax."""

    def __init__(self, snap: Snapshot, simple: str, first: tuple[frozenset[str], ...] = (),
                 across: Callable[[str], str] | None = None) -> None:
        self.snap = snap
        self.simple = simple
        self.across = across  # the clause of a Go import of another workspace member's package
        self._first = first  # files read before the others, in turn: the defining files, their importers
        self._left = REFERENCE_SITES
        self.unread: set[str] = set()  # files whose sites would have passed REFERENCE_SITES
        self._granted: dict[tuple[str, str, bool], list[Occurrence]] = {}
        self._occurrences: list[tuple[str, Occurrence]] | None = None
        # each file's classes by first line, to ask which hold a line (`_class_symbol_at`)
        self.classes: dict[str, Holding] = {}
        self._rules: dict[str, Bindings] = {}
        self._clauses: dict[str, str] = {}  # a package's first file -> its clause (`clause`)
        self._source: dict[tuple[str, str], bytes] = {}
        self._source_lines: dict[tuple[str, str], list[bytes]] = {}
        self._syntax: dict[tuple[str, int, int], SiteSyntax | None] = {}
        self._kinds: dict[str, dict[str, str]] = {}
        self._functions: dict[tuple[str, str], list[Symbol]] = {}
        self.typed: Typed = {}  # the JS/TS receivers' declared types (`ScriptTypes`)
        self.classes_read = ClassReading(snap)  # the hierarchy and classes' members (`MemberSites`)
        self._line_types: dict[tuple[str, str, tuple[int, int] | None], frozenset[str]] = {}
        self._written: dict[tuple[str, str], frozenset[str]] = {}  # `_written_types`
        self._embeds: dict[str, frozenset[str]] = {}  # `_embedded`: the types a type embeds
        self._pending: set[tuple[str, str]] = set()  # the names whose types are being read (`line_types`)
        self._functions_named: dict[str, list[tuple[str, Symbol]]] = {}  # `_results`: a called function's definitions
        self._methods_named: dict[str, list[tuple[str, Symbol]]] = {}  # `_method_results`: a called method's
        self._signatures: dict[tuple[str, int], str] = {}  # `_whole_signature`, read once a definition
        self._fields_named: dict[str, list[Symbol]] = {}  # `field_types`: a field's definitions
        self._this_aliases: dict[tuple[str, str], bool] = {}
        self._words: dict[tuple[str, str], dict[bytes, list[int]]] = {}
        self._braces: dict[tuple[str, str], Braces] = {}
        self._alias_lines: dict[tuple[str, str], ThisAliases] = {}

    def source(self, path: str) -> bytes:
        blob = self._blob(path)  # one blob at many paths is read and split once
        found = self._source.get(blob)
        if found is None:
            found = self._source[blob] = self.snap.blob_bytes(path)
        return found

    def source_lines(self, path: str) -> list[bytes]:
        blob = self._blob(path)
        found = self._source_lines.get(blob)
        if found is None:
            found = self._source_lines[blob] = self.source(path).splitlines()
        return found

    def _blob(self, path: str) -> tuple[str, str]:
        """What a file's reading is kept by: its blob and language (the facts read of a blob
        depend on the language its path gives it), the path itself for a file not in the table."""
        f = self.snap.file(path)
        return (f.blob, f.language) if f is not None else (path, "")

    def functions(self, path: str) -> list[Symbol]:
        """The file's functions and methods (`receivers.functions_in`), found once a blob."""
        blob = self._blob(path)
        found = self._functions.get(blob)
        if found is None:
            found = self._functions[blob] = functions_in(self.snap, path)
        return found

    def clause(self, path: str, spec: ImportSpec) -> str:
        """The package clause of the files the file's import reaches (`Bindings.package_clause`),
        "" where it reaches none: read once a package for every file importing it, keyed by its
        first file (an import reaches one package's files, the same whoever imports it)."""
        targets = [e.target for e in self.snap.edges_of_import(path, spec) if e.target]
        if not targets:  # outside the snapshot: another workspace member's package, if any
            return self.across(spec.spec.strip()) if self.across is not None and spec.kind == "go" else ""
        found = self._clauses.get(targets[0])
        if found is None:
            found = self._clauses[targets[0]] = of_import(spec.kind).package_clause(self.snap, targets)
        return found

    def rules(self, path: str) -> Bindings:
        """The binding rules of the file's language (`_rules_of`)."""
        found = self._rules.get(path)
        if found is None:
            found = self._rules[path] = _rules_of(self.snap, path)
        return found

    def syntax(self, rules: Bindings, path: str, occ: Occurrence, lines: list[bytes]) -> SiteSyntax | None:
        """How the site at `occ` of the file is written (`Bindings.site_syntax` of its line)."""
        key = (path, occ.line, occ.col)
        if key in self._syntax:
            return self._syntax[key]
        line, at = continued_chain(lines, occ) if rules.language == "java" else (lines[occ.line - 1], occ.col)
        closed = _CLOSED_ABOVE.fullmatch(line, 0, at) if rules.language == "python" else None
        shut = closed.start(1) if closed is not None else -1
        opened = opened_above(lines, occ.line - 1, shut, PYTHON, HEADER_LINES, SITE_TEXT) if shut >= 0 else None
        if opened is not None:  # `).prepare()` closing a call opened above: read as if written on one line
            head = lines[opened[0]][:opened[1]] + b"()"
            line, at = head + line[shut + 1:], len(head) + at - shut - 1
        window, col = site_window(line, at, len(self.simple.encode()))
        found = rules.site_syntax(window, col, self.simple)
        if found is not None and found.form == "bare" and rules.language == "go":
            found = _continued_go_chain(lines, occ) or found
        self._syntax[key] = found
        return found

    def before_site(self, path: str, occ: Occurrence, lines: list[bytes]) -> bytes:
        """A Java site's line before it, its chain continued from the lines above read as one
        (`continued_chain`)."""
        line, at = continued_chain(lines, occ)
        return line[:at]

    def holder_kind(self, path: str, sym: Symbol) -> str | None:
        """The kind of the definition's container in its file (`function` for a nested function,
        `variable` for an object's member, `class`), None at the top of the file."""
        if not sym.container:
            return None
        kinds = self._kinds.get(path)
        if kinds is None:  # each qualified name's first kind in the file, found once a file
            facts = self.snap.core_facts(path)
            kinds = self._kinds[path] = {}
            for s in facts.symbols if facts else ():
                kinds.setdefault(s.qualified, s.kind)
        return kinds.get(sym.container)

    def lines_naming(self, path: str, name: str) -> list[int]:
        """The indexes of the file's lines that may declare `name` (an assignment, a typing, an
        alias of `this`: each writes the name as a word), in order: of a name of ASCII letters,
        digits and underscores, the lines holding it as such a word, found from the words of
        every line, indexed once a blob; of another, the lines holding it at all. What looks
        for a declaration of a name reads those lines alone, not every line for each name."""
        spelled = name.encode()
        if not _WORD.fullmatch(spelled):
            return [i for i, line in enumerate(self.source_lines(path)) if spelled in line]
        blob = self._blob(path)
        words = self._words.get(blob)
        if words is None:
            words = self._words[blob] = {}
            for i, line in enumerate(self.source_lines(path)):
                for word in set(_WORD.findall(line)):
                    words.setdefault(word, []).append(i)
        return words.get(spelled, [])

    def line_types(self, path: str, name: str, lines: list[bytes], at: int | None = None) -> frozenset[str]:
        """The types a line of the file gives `name` an instance of, as its language writes
        that (`Bindings.typings`: `const app = new App()`), whatever scope the line is in, and
        the bounds a line gives such a type where it is a type parameter (a Rust `serializer:
        S` and `<S: Serializer>`: Serializer): each pass weighs them against its own classes
        (`_BySyntax._typed_by_line`). A loop's binding of an element (`range_typings`) types it
        for a site at line `at` only in the function holding that line (`_scope`): a test's
        every loop may bind its own `v` of another type."""
        key = (path, name, self._scope(path, at))
        found = self._line_types.get(key)
        if found is None:
            if (path, name) in self._pending:  # `x = x.Next()`: met again while its types are read, none
                return frozenset()
            self._pending.add((path, name))
            try:
                found = self._written_types(path, name, lines) | self._range_types(path, name, lines, key[2])
            finally:
                self._pending.discard((path, name))
            rules = self.rules(path)
            bounded = [(t, rules.bound_typings(t)) for t in sorted(found)]
            found = self._line_types[key] = found | frozenset(
                bound for t, bounds in bounded if bounds for i in self.lines_naming(path, t) for pattern in bounds
                for m in pattern.finditer(lines[i]) for bound in rules.bounds_of(m.group(1)))
        return found

    def _range_types(self, path: str, name: str, lines: list[bytes], scope: tuple[int, int] | None) -> frozenset[str]:
        """The types of the elements a loop of `scope` binds `name` to (`range_typings`)."""
        rules = self.rules(path)
        return frozenset(
            t for i in self.lines_naming(path, name) if self._in_scope(path, i + 1, scope)
            for pattern in rules.range_typings(name) if (m := pattern.search(lines[i])) is not None
            for t in self.element_types(path, m.group(1).decode(), lines, i + 1))

    def _written_types(self, path: str, name: str, lines: list[bytes]) -> frozenset[str]:
        """The types the file's lines give `name` by a literal, a declaration or a parameter
        (`typings`) or a call's value (`call_typings`), wherever they are; read once a name."""
        key = (path, name)
        found = self._written.get(key)
        if found is None:
            rules = self.rules(path)
            naming = self.lines_naming(path, name)
            found = self._written[key] = frozenset(
                t.decode() for i in naming for pattern in rules.typings(name)
                if (m := pattern.search(lines[i])) is not None for t in m.groups() if t is not None) | frozenset(
                t for i in naming for pattern in rules.call_typings(name)
                if (m := pattern.search(lines[i])) is not None
                and (call := self._assigned_call(lines, i, m)) is not None
                for t in self.call_types(path, call, lines, site=i + 1))
        return found

    def _scope(self, path: str, at: int | None) -> tuple[int, int] | None:
        """The lines of the Go function holding line `at` ((0, 0) outside every function), None
        (the whole file) elsewhere and where no line is given."""
        if at is None or self.rules(path).language != "go":
            return None
        holder = next((f for f in self.functions(path) if f.line <= at <= f.end_line), None)
        return (holder.line, holder.end_line) if holder is not None else (0, 0)

    def _in_scope(self, path: str, line: int, scope: tuple[int, int] | None) -> bool:
        """Is `line` in `scope` (`_scope`), or outside every function, a package's own?"""
        if scope is None or scope[0] <= line <= scope[1]:
            return True
        return not any(f.line <= line <= f.end_line for f in self.functions(path))

    def _assigned_call(self, lines: list[bytes], i: int, m: re.Match[bytes]) -> bytes | None:
        """The call a `call_typings` match on line `i` assigns, as `call_types` reads it, when it
        is the whole value (`w := o.Wrap()`, its arguments over lines too, `if c, err :=
        pkg.Open(p); err != nil`), or a chain of calls closing on that line (`s :=
        store.New("a").Sub("b")`: what Sub returns); None for anything else after the call
        (`x := pkg.New().Field`, `n := len(a) + 1`), which types nothing, and for a comment's
        line (a doc comment's example is no code of the file)."""
        if lines[i][:m.start()].lstrip().startswith((b"//", b"/*", b"*")) or b"//" in lines[i][:m.start()]:
            return None
        opened = m.end() - 1
        rest = after_call(lines, i, opened, GO, CALL_LINES)
        if rest is None:
            return None
        callee = m.group(2) if m.group(1) is None else m.group(1) + b"." + m.group(2)
        if not rest or rest.startswith(b";"):
            return callee + b"()"
        line = lines[i]
        chain = _CHAIN_AFTER.match(line, closing_bracket(line, opened) or len(line))
        after = line[chain.end():].strip() if chain is not None else b"-"
        return callee + b"()" + chain.group(0)[1:] if chain is not None and (
            not after or after.startswith((b";", b"//"))) else None

    def call_types(self, path: str, text: bytes, lines: list[bytes], depth: int = 0, site: int | None = None) -> frozenset[str]:
        """The types the Go or Rust call `text` ends with returns, as the signatures of what it
        calls say (`result_type`): Go's `F(...)` and `pkg.F(...)` a function's (`_results`),
        `x.M(...)` the method M of a type the file gives `x` (`line_types`), `<call>.M(...)` the
        method M of what that call returns, CHAIN_CALLS deep; Rust's `Type::f(...)` Type's
        function f (`-> Self` is Type); none where a part is not read so."""
        text = text.rstrip()
        at = call_opened(text) if depth < CHAIN_CALLS else None
        if at is None:
            return frozenset()
        head = text[:at].rstrip()
        if head.endswith(b">") and b"::<" in head:  # `parse::<T>(...)`: the turbofish aside
            head = head[:head.rindex(b"::<")]
        callee = _CALLEE.search(head)
        if callee is None:
            return frozenset()
        spelled = callee.group(1)
        if b"::" in spelled:  # a Rust path: a type's associated function
            segments = spelled.split(b"::")
            owner = segments[-2].decode()
            return self._method_results(path, frozenset({owner}), segments[-1].decode()) \
                if owner[:1].isupper() and owner != "Self" else frozenset()
        parts = [p.decode() for p in spelled.split(b".")]
        outer = head[:callee.start()].rstrip()
        if outer.endswith(b"."):  # `<call>.M(...)`
            return self._method_results(path, self.call_types(path, outer[:-1], lines, depth + 1, site), parts[0]) \
                if len(parts) == 1 else frozenset()
        if len(parts) == 1:
            return self._results(path, None, parts[0])
        if len(parts) != 2:
            return frozenset()
        return self._results(path, parts[0].encode(), parts[1]) or self._method_results(
            path, self.line_types(path, parts[0], lines, site), parts[1])

    def element_types(self, path: str, container: str, lines: list[bytes], at: int) -> frozenset[str]:
        """The types of the elements of `container`, a dotted name (`routes`, `r.namedRoutes`),
        as its declaration says (`element_type`): a variable's, by a line of the file declaring
        it a container (`container_typings`: a parameter `routes []*Route`, `var m
        map[string]*Route`), a field's, by the field's declaration in the type the names before
        it are of (`field_types`), FIELD_DEPTH fields deep."""
        parts = container.split(".")
        rules = self.rules(path)
        if len(parts) == 1:
            scope = self._scope(path, at)
            return frozenset(
                t for i in self.lines_naming(path, container) if self._in_scope(path, i + 1, scope)
                for pattern in rules.container_typings(container)
                if (m := pattern.search(lines[i])) is not None and (t := rules.element_type(m.group(1).decode())) is not None)
        if len(parts) > FIELD_DEPTH + 1:
            return frozenset()
        owners = self.line_types(path, parts[0], lines, at)
        for field in parts[1:-1]:
            owners = self.field_types(path, owners, field)
        owners = self._with_embedded(path, owners) if owners else owners
        return frozenset(t for s in self._fields(parts[-1]) if s.container.rsplit(".", 1)[-1] in owners
                         and (t := rules.field_elements(s.signature)) is not None) if owners else frozenset()

    def _fields(self, field: str) -> list[Symbol]:
        """The definitions of fields named `field`, found once a query."""
        defs = self._fields_named.get(field)
        if defs is None:
            defs = self._fields_named[field] = [
                s for _, s in self.snap.definitions(field) if s.kind == "field" and s.container]
        return defs

    def field_types(self, path: str, owners: frozenset[str], field: str) -> frozenset[str]:
        """The types the fields `field` of the types `owners` are declared of (`field_type`)."""
        if not owners:
            return frozenset()
        rules = self.rules(path)
        owners = self._with_embedded(path, owners)
        return frozenset(t for s in self._fields(field) if s.container.rsplit(".", 1)[-1] in owners
                         and (t := rules.field_type(s.signature)) is not None)

    def _with_embedded(self, path: str, owners: frozenset[str]) -> frozenset[str]:
        """The types and those they embed, EMBEDDING_DEPTH deep, whose fields Go promotes to them
        (`r.matchers` of a Route, which embeds the routeConf declaring `matchers`)."""
        rules = self.rules(path)
        found = set(owners)
        front = owners
        for _ in range(EMBEDDING_DEPTH):
            front = frozenset(t for owner in front for t in self._embedded(rules, owner)) - found
            if not front:
                break
            found |= front
        return frozenset(found)

    def _embedded(self, rules: Bindings, owner: str) -> frozenset[str]:
        """The types the type `owner` embeds, as its definitions' files declare them; once a name."""
        found = self._embeds.get(owner)
        if found is None:
            embedded: set[str] = set()
            for p, sym in self.snap.definitions(owner):
                facts = self.snap.core_facts(p) if sym.kind in CLASS_KINDS else None
                embedded.update(t for s in (facts.symbols if facts else ()) if s.kind == "field"
                                and s.container == sym.qualified and (t := rules.embedded_type(s.signature)) is not None)
            found = self._embeds[owner] = frozenset(embedded)
        return found

    def _method_results(self, path: str, types: frozenset[str], method: str) -> frozenset[str]:
        """The types the methods `method` of `types` say they return."""
        if not types:
            return frozenset()
        defs = self._methods_named.get(method)
        if defs is None:
            defs = self._methods_named[method] = [
                (p, s) for p, s in self.snap.definitions(method) if s.kind == "method" and s.container]
        rules = self.rules(path)
        return frozenset(owner if t == "Self" else t for p, s in defs
                         if (owner := s.container.rsplit(".", 1)[-1]) in types
                         and (t := rules.result_type(self._whole_signature(p, s))) is not None)

    def _whole_signature(self, path: str, sym: Symbol) -> str:
        """The definition's signature on one line: its first line where that holds it whole (up
        to its body's `{`), else its text up to there, over SIGNATURE_BYTES at most, its lines
        joined (`func (r *Router) HandleFunc(path string, f func(http.ResponseWriter,` goes on
        to `*http.Request)) *Route {`)."""
        if "{" in sym.signature:
            return sym.signature
        key = (path, sym.start_byte)
        found = self._signatures.get(key)
        if found is None:
            text = self.source(path)[sym.start_byte:sym.start_byte + SIGNATURE_BYTES]
            found = self._signatures[key] = " ".join(text.decode("utf-8", "replace").split())
        return found

    def _results(self, path: str, package: bytes | None, function: str) -> frozenset[str]:
        """The types the functions a call in the file names say they return (`call_typings`):
        of a bare call, the function of the file's own folder; of `pkg.Name(...)`, that of a
        file the import binding `pkg` reaches (`x := v.Make()`, a method, types nothing)."""
        defs = self._functions_named.get(function)
        if defs is None:
            defs = self._functions_named[function] = [
                (p, s) for p, s in self.snap.definitions(function) if s.kind == "function" and not s.container]
        if not defs:
            return frozenset()
        if package is None:
            folder = path.rpartition("/")[0]
            near = {p for p, _ in defs if p.rpartition("/")[0] == folder}
        else:
            head = package.decode()
            facts = self.snap.import_facts(path)
            near = {e.target for spec in (facts.imports if facts else ())
                    if of_import(spec.kind).binds_local_in(spec, head, partial(self.clause, path, spec))
                    for e in self.snap.edges_of_import(path, spec) if e.target}
        rules = self.rules(path)
        return frozenset(t for p, s in defs if p in near and (t := rules.result_type(self._whole_signature(p, s))) is not None)

    def this_aliases(self, path: str, name: str, lines: list[bytes]) -> ThisAliases:
        """The file's lines saying whether `name` aliases `this`, and where each is visible
        (`ThisAliases`), read once a query."""
        key = (path, name)
        found = self._alias_lines.get(key)
        if found is None:
            found = self._alias_lines[key] = ThisAliases(self.braces(path), lines, name, self.rules(path).instance_alias,
                                                         self.lines_naming(path, name))
        return found

    def braces(self, path: str) -> Braces:
        """The file's braces, read once a blob (`script_blocks.Braces`)."""
        blob = self._blob(path)
        found = self._braces.get(blob)
        if found is None:
            found = self._braces[blob] = Braces(self.source_lines(path))
        return found

    def aliases_this(self, path: str, name: str, lines: list[bytes]) -> bool:
        """Does a line of the file declare `name` an alias of `this` (`Bindings.instance_alias`:
        `const self = this`), anywhere in it? Where none does, no site of the name is read as one
        (`_BySyntax._instance_alias`)."""
        key = (path, name)
        found = self._this_aliases.get(key)
        if found is None:
            rules = self.rules(path)
            found = self._this_aliases[key] = any(rules.instance_alias(lines[i], name) for i in self.lines_naming(path, name))
        return found

    def occurrences(self) -> list[tuple[str, Occurrence]]:
        """The name's sites in every file holding it, the `first` files read first, within
        REFERENCE_SITES."""
        if self._occurrences is None:
            tiers = self._first

            def tier(path: str) -> int:
                return next((n for n, files in enumerate(tiers) if path in files), len(tiers))

            ordered = sorted(self.snap.paths_naming(self.simple), key=lambda p: (tier(p), p))
            self._occurrences = [(p, o) for p in ordered for o in self.sites_in(p, self.simple)]
        return self._occurrences

    def sites_in(self, path: str, name: str) -> list[Occurrence]:
        """The file's sites of `name` (`Snapshot.occurrences_in`), none once they would pass
        what is left of REFERENCE_SITES (the file is then `unread`); each file's once."""
        return self._grant(path, name, False)

    def any_case_in(self, path: str, name: str) -> list[Occurrence]:
        """`sites_in`, of `name` spelled in any case (`Snapshot.occurrences_in_any_case`)."""
        return self._grant(path, name, True)

    def _grant(self, path: str, name: str, any_case: bool) -> list[Occurrence]:
        key = (path, name, any_case)
        found = self._granted.get(key)
        if found is None:
            found = (self.snap.occurrences_in_any_case if any_case else self.snap.occurrences_in)(path, name)
            if len(found) > self._left:
                self.unread.add(path)
                found = []
            self._left -= len(found)
            self._granted[key] = found
        return found


_NAME_LIST = re.compile(rb"\s*\(?\s*[A-Za-z_]\w*(?:\s+as\s+[A-Za-z_]\w*)?\s*(?:,\s*[A-Za-z_]\w*(?:\s+as\s+[A-Za-z_]\w*)?\s*)*,?\s*\)?\s*(?:#.*)?$")


def _package_of(snap: Snapshot, path: str) -> tuple[str, ...] | None:
    """The package whose files see each other's top-level names without an import
    (`Bindings.package_of`): a Go file's folder and package clause (an external `x_test`
    package is another one), a Java file's package declaration, a PHP or C# file's (first)
    namespace, in which an unqualified class name is the namespace's own (`new Stream(...)` in
    GuzzleHttp\\Psr7\\Utils.php), a Ruby file's outermost module. Its first part is its
    language's name. None for other files and for a file that declares no package."""
    return of_path(path).package_of(snap, path)


def _package_above(snap: Snapshot, target: str, levels: int, head: str) -> tuple[str, ...]:
    """The __init__ of the package `levels` folders above a module file (a package's own
    __init__ counting as its folder), when that folder is named `head`: `import flask.views`
    reaches src/flask/views.py and binds `flask`, src/flask/__init__.py."""
    folder = target.rsplit("/", 1)[0] if "/" in target else ""
    if target.endswith(("/__init__.py", "/__init__.pyi")):
        folder = folder.rsplit("/", 1)[0] if "/" in folder else ""
    for _ in range(levels - 1):
        folder = folder.rsplit("/", 1)[0] if "/" in folder else ""
    if folder.rsplit("/", 1)[-1] != head:
        return ()
    return tuple(p for p in (f"{folder}/__init__.py", f"{folder}/__init__.pyi") if snap.file(p) is not None)[:1]


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
            if any(e.target in defining
                   and any(local == name for inner, local in target_binds(snap, spec, e.target) if inner != "*")
                   for spec in specs for e in snap.edges_of_import(path, spec))}


def _type_homes(snap: Snapshot, defs: list[tuple[str, Symbol]]) -> set[tuple[str, str]]:
    """(file, type) of the type a Rust member's impl in another file is of (src/error.rs holding
    `impl Error { pub fn new }` for lib.rs's `pub struct Error`): an import of the type's
    own file reaches its members as one of the impl's file does. The type is looked for among
    the files the impl's file imports."""
    found: set[tuple[str, str]] = set()
    for path, sym in defs:
        if not sym.container or not path.endswith(".rs"):
            continue
        top = anchor(sym)
        homes = {q for q, t in snap.definitions(top) if q.endswith(".rs") and not t.container and t.kind in CLASS_KINDS}
        if path in homes:
            continue  # the type's own file
        imported = {e.target for e in snap.imports(path)}
        found.update((q, top) for q in homes & imported)
    return found


def _exported_as(snap: Snapshot, defs: list[Hit], holders: bool = False) -> list[tuple[str, str]]:
    """(file, name) for each name a file exports one of its top-level definitions `defs` under,
    other than its own (`BlobFacts.exported_as`): `export default class Bar`, `class Bar {};
    export default Bar;` and `export { Bar as default }` offer Bar as `default`, which `import
    Foo from "./bar"` binds to Foo; `export { Bar as Baz }` offers Baz. With `holders`, the
    names each member's outermost container is exported under (`module.exports = Route` offers
    `Route.prototype.dispatch` through `default`). Only the import facts of the defining files
    of a language that exports so (JS, TS) are read. A Rust `#[macro_export]` macro is offered
    by its crate's root, under its own name (`use demo::bail;` reaches src/macros.rs's)."""
    found: set[tuple[str, str]] = set()
    scopes: Scopes | None = None
    for path, sym, _ in defs:
        if not holders and sym.kind == "macro" and path.endswith(".rs"):
            scopes = scopes or Scopes(snap)
            root = exported_at(snap, scopes, path, sym)  # a `#[macro_export]` macro: its crate root's
            if root is not None and root != path:
                found.add((root, sym.name))
            continue
        entry = snap.file(path) if holders or not sym.container else None
        facts = snap.import_facts(path) if entry is not None and of_language(entry.language).renames_exports else None
        top = anchor(sym) if holders else sym.name
        found.update((path, name) for local, name in (facts.exported_as if facts else ()) if local == top)
    return sorted(found)


def _default_export(snap: Snapshot, path: str, name: str) -> bool:
    """Is `name` the file's default export's own name: a keyword there, the name of no binding
    (a `default` in a JS `export { Bar as default }` is no use of Bar)?"""
    return _rules_of(snap, path).default_export == name


def _any_case_spellings(snap: Snapshot, defs: list[Hit], simple: str, packages: set[tuple[str, ...]],
                        aliased: list[tuple[str, Occurrence, bool, bool]], reading: _Reading
                        ) -> list[tuple[str, Occurrence, bool, bool]]:
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
        for path, occ in ((p, o) for p in snap.paths_naming(spelling) for o in reading.sites_in(p, spelling)):
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
