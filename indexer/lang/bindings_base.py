"""The defaults of a language's binding rules (`Bindings`), which each language's bindings.py
overrides where its imports differ; the table of them is indexer/lang/bindings.py.
"""

from __future__ import annotations

import re
import string
from functools import cache, cached_property
from typing import TYPE_CHECKING, Callable, Container, Iterable, Iterator, NamedTuple, Protocol, Sequence

if TYPE_CHECKING:
    from indexer.model import ImportSpec, Occurrence
    from indexer.store.snapshot import Snapshot


def every_name(name: str) -> bool:
    return True


class Projects(Protocol):
    """The projects of a tree whose files see only some others' namespaces (C#)."""

    def of(self, path: str) -> str | None: ...

    def sees(self, viewer: str, target: str) -> bool: ...

    def sharing(self, path: str, name: str) -> list[str]: ...


class PathView(Protocol):
    """Whether a `use` path of a file reaching another sees what a `use` there brings in (Rust)."""

    def sees(self, visibility: str, module_file: str, viewer: str, head: str) -> bool: ...


class Bindings:
    """A language's binding rules; the defaults bind each listed name under its alias."""

    language = ""
    # imports that list the names they bind: one naming none of a file's definitions of a name
    # (nor `*`, nor the module itself) reaches none of them
    lists_names = False
    # a JS or TS module's name for what it exports as a whole (`module.exports`, `export default`)
    default_export: str | None = None
    # the file may export a top-level name under another (`BlobFacts.exported_as`)
    renames_exports = False
    # an import may declare a variable of the file (`const W = require(...)`)
    imports_declare_variables = False
    # a module path may start at a crate's name (`demo::net::Conn`), and a file's module is
    # shown as its crate's path names it (Rust)
    modules_from_crates = False
    # the tree's files are grouped in projects that scope imports and visibility (C#)
    has_projects = False
    # kinds of definitions whose names are matched in any case (PHP classes and functions)
    any_case_kinds: frozenset[str] = frozenset()
    # the names a method's body calls its own instance or class by (`self`, `cls`, `this`)
    instance_names: frozenset[str] = frozenset()
    # a bare name in a method is a member of its class when the class has one, as `this.name`
    # is (Java, C#, C++, Ruby; a PHP bare name is a function's, a Python one a variable's)
    implicit_self = False
    # a bare name in an importing file is a definition's only where an import binds that very
    # name (`binds_bare`; a `*` only as it passes the name on, `star_passes`), not wherever an
    # import reaches its file (Rust: a `use` naming it, under its alias, or a glob; not a C
    # `#include`, which brings in the whole header)
    bare_needs_import = False

    def file_own(self, spec: ImportSpec) -> bool:
        """Are the import's names the importing file's own, re-exported to no importer of it?"""
        return False

    def any_case(self, spec: ImportSpec) -> bool:
        """Does the import bind a name that the importing file may spell in any case?"""
        return False

    def includes(self, edge_kind: str) -> bool:
        """Is the import an include, which names nothing but passes on what it includes?"""
        return False

    def relays_includes(self, path: str) -> bool:
        """Does the file pass on to its includers what it includes (a header does)?"""
        return False

    def project_wide(self, kind: str) -> bool:
        """Does an import of this kind bind for every file of its project (C# `global using`)?"""
        return False

    def binds(self, spec: ImportSpec) -> Iterable[tuple[str, str]]:
        """(name in the imported file, the importing file's own name for it) for each name the
        import binds; an unrenamed name binds as itself."""
        return ((name, spec.local(i)) for i, name in enumerate(spec.names))

    def target_binds(self, snap: Snapshot, spec: ImportSpec, target: str) -> Iterable[tuple[str, str]]:
        """`binds` of the import resolved to the file at `target`."""
        return self.binds(spec)

    def default_binds_whole(self, snap: Snapshot, spec: ImportSpec, target: str) -> bool:
        """Does the import, resolved to the file at `target`, bind a name of the file to what
        that module exports as a whole, as a module bound whole is (a JS default import of a
        CommonJS module)? Never by default."""
        return False

    def reexports(self, spec: ImportSpec) -> Iterator[tuple[str, str]]:
        """(name in the imported file, name the importing file offers its own importers) for
        each name the import passes on. A `*` offers every name as is; a namespace (`import *
        as ns`) offers none of them."""
        if self.file_own(spec):
            return
        for name, out in self.offered(spec):
            if out and (name != "*" or out == "*"):
                yield name, out

    def offered(self, spec: ImportSpec) -> Iterable[tuple[str, str]]:
        return self.binds(spec)

    def star_passes(self, snap: Snapshot, spec: ImportSpec, target: str) -> Callable[[str], bool]:
        """Which names a `*` import of the file at `target` passes on: every one."""
        return every_name

    def local_names(self, snap: Snapshot, spec: ImportSpec, target: str, name: str) -> Iterator[str]:
        """What a file calls `name` of the file at `target` through the import `spec`: the local
        name it binds it to; the name itself through a `*` that passes it on or a namespace
        (`ns.name`)."""
        for inner, local in self.target_binds(snap, spec, target):
            if inner == name and local not in ("", "*"):
                yield local
            elif inner == "*" and (local != "*" or self.star_passes(snap, spec, target)(name)):
                yield name

    def binds_variable(self, spec: ImportSpec, line: int) -> bool:
        """Does the import declare a variable on `line`? Only where imports declare them."""
        return False

    def binds_whole(self, spec: ImportSpec) -> bool:
        """Does an import listing no names bind the module itself to a name of the file?"""
        return bool(spec.aliases)

    def binds_namespace(self, spec: ImportSpec, local: str) -> bool:
        """Does the import bind to `local` an object whose attributes are the module's names
        (a JS namespace import, or a default import or `require` of a module as a whole)?"""
        return False

    def imports_by_call(self, callee: tuple[str, ...]) -> bool:
        """Is a call of `callee` an import, whose value is the module (JS `require(...)`)?"""
        return False

    def own_module(self, receiver: tuple[str, ...]) -> bool:
        """Is an attribute of `receiver` the file's own module's name (JS `exports.name`)?"""
        return False

    def binds_module(self, spec: ImportSpec, target: str) -> bool:
        """Does the import, resolved to the file at `target`, bind that module itself to a name
        of the importing file, rather than names it defines?"""
        return False

    def package_binds_module(self, source: str, spec: ImportSpec, target: str) -> bool:
        """Does the file at `source`, a package's own, bind the module at `target` to a name
        (one attribute deeper: `import pkg` then `pkg.tools.helper()`)?"""
        return False

    def modules_bound(self, spec: ImportSpec, local: str) -> Iterator[list[str]]:
        """The dotted modules the import may bind to `local`: none by default."""
        return iter(())

    def bound_modules(self, snap: Snapshot, path: str, local: str,
                      modules_named: Callable[[list[str]], frozenset[str]]) -> set[str]:
        """The module files the file at `path` binds to the name `local` by an import."""
        return set()

    def modules_named(self, paths: Iterable[str], dotted: list[str]) -> frozenset[str]:
        """The files that are module `dotted` under some root: none by default."""
        return frozenset()

    def submodule(self, snap: Snapshot, package: str, name: str) -> tuple[str, ...]:
        """The file of the submodule `name` of the package whose file is `package`."""
        return ()

    def passes_on(self, spec: ImportSpec, view: PathView, path: str, viewer: str, head: str) -> bool:
        """Does the import in the file at `path` pass a name on to a path from `viewer` starting
        at `head`? Every import does, but a Rust `use` of narrow visibility."""
        return True

    def inline_items(self, snap: Snapshot, path: str, spec: ImportSpec, wanted: str) -> list[str]:
        """The qualified names of items of the file's own inline modules the import brings in
        as `wanted`: none by default."""
        return []

    def star_items(self, snap: Snapshot, spec: ImportSpec, target: str, wanted: str) -> list[str]:
        """The qualified names of definitions below the top of the file at `target` that a `*`
        import of it brings in as `wanted` (a Rust glob of an enum: its variants): none by
        default, a `*` passing on the file's top-level names."""
        return []

    def path_head(self, spec: ImportSpec) -> str:
        """The first segment of the import's path, as a path's visibility is judged by."""
        return ""

    def package_of(self, snap: Snapshot, path: str) -> tuple[str, ...] | None:
        """The package whose files see each other's top-level names without an import; None for
        a language without one, or a file that declares none."""
        return None

    def package_names(self, snap: Snapshot, path: str) -> list[str] | None:
        """The module path a qualified name may reach the file's definitions by, as code names
        it, when it differs from the path's; None when it does not."""
        return None

    def sees_in_package(self, projects: Projects, viewer: str, targets: list[str]) -> bool:
        """Does a file of a definition's package see a file defining it there? Every one does."""
        return True

    def private_module(self, path: str) -> bool:
        """Is the file at `path` private by its language's convention, so nothing it defines is
        public API whatever its own name (novelty's public API)? By default no file is."""
        return False

    def public_basis(self, parts: list[str], kind: str, signature: str) -> str | None:
        """The rule that makes a symbol of qualified name `parts` public (novelty's public API),
        or None when it is not: by default, being at the top of its file."""
        return "top_level" if len(parts) == 1 else None

    def case_free_sites(self, snap: Snapshot, path: str, sites: list[Occurrence]) -> list[Occurrence]:
        """The sites spelled in another case that may name a definition matched in any case."""
        return sites

    def instance_alias(self, line: bytes, name: str) -> bool | None:
        """Does the source line declare the variable `name` as an alias of the instance
        (`const self = this`): True; as anything else (another value, a parameter): False;
        not at all: None. No language has such aliases by default."""
        return None

    def site_syntax(self, line: bytes, col: int, name: str) -> SiteSyntax | None:
        """What a site of `name` at byte `col` of its source line is written as, for the
        references query to resolve it by: None where the language has no such rules yet (the
        site is then resolved by its file alone)."""
        return None

    def typings(self, name: str) -> list[re.Pattern[bytes]]:
        """Patterns of a line that gives the variable `name` a type, the type's name their one
        group that matched (JS/TS: `const app = new App()`, `app: App = make()`). Python's
        receivers are typed by the scope a site sees instead
        (context_tools/query/symbols/receivers.py)."""
        return [re.compile(rb"^\s*(?:(?:const|let|var)\s+)?" + re.escape(name.encode())
                           + rb"\s*(?::[^=]*)?=\s*(?:new\s+)?(?:[A-Za-z_$][\w.$]*\.)?([A-Za-z_]\w*)\s*\(")]

    def bound_typings(self, generic: str) -> list[re.Pattern[bytes]]:
        """Patterns of a line that bounds the type parameter `generic`, their one group the
        bounds as written (Rust: `<S: Serializer>`, `where S: Serializer + Clone`): a value of
        the parameter's type is of each bound's (`bounds_of` reads them). None by default."""
        return []

    def bounds_of(self, written: bytes) -> list[str]:
        """The names of the bounds a `bound_typings` group holds."""
        return []

    def field_type(self, signature: str) -> str | None:
        """The name of the type a field's signature line declares it of (Go: `base baseCollector`,
        Rust: `pub cmd: &'a Command,`), None where it names none the index can follow (a slice,
        a map, a function). None by default."""
        return None

    def embedded_type(self, signature: str) -> str | None:
        """The type a field's signature line embeds, its fields and methods promoted to the
        type holding it (Go: `*Base`, `pkg.Base`: Base), None for a named field. None by default."""
        return None

    def element_type(self, written: str) -> str | None:
        """The name of the type of an element of the container type `written` (Go: `[]*Route`,
        `[4]Route`, `map[string]*Route`: Route), None where it is no container the index can
        follow. None by default."""
        return None

    def field_elements(self, signature: str) -> str | None:
        """`element_type` of the type a field's signature line declares it of (Go: `routes
        []*Route`: Route). None by default."""
        return None

    def container_typings(self, name: str) -> list[re.Pattern[bytes]]:
        """Patterns of a line that declares the variable `name` a container, their one group its
        type as written (Go: a parameter `routes []*Route`, `var m map[string]T`, `xs :=
        []T{...}`, `xs := make([]T, n)`). None by default."""
        return []

    def range_typings(self, name: str) -> list[re.Pattern[bytes]]:
        """Patterns of a line that binds `name` to each element of a container, their one group
        the container as written, a dotted name (Go: `for _, r := range routes {`, `for k, r :=
        range s.byName {`). None by default."""
        return []

    def call_typings(self, name: str) -> list[re.Pattern[bytes]]:
        """Patterns of a line that gives the variable `name` the first result of a function it
        calls, groups the call's qualifier (None for a bare call) and the function's name (Go:
        `r := web.NewRouter()`, `l, err := New()`): its type is what the function's signature
        says it returns (`result_type`). None by default."""
        return []

    def result_type(self, signature: str) -> str | None:
        """The name of the type a function's signature line says its first result is, None
        when it says none or the line does not hold it all."""
        return None

    def binds_bare(self, spec: ImportSpec, name: str) -> bool:
        """Does the import bind `name` as a bare name of its file sees it: by default, as it
        binds it locally (`binds_local`)."""
        return self.binds_local(spec, name)

    def binds_module_of(self, spec: ImportSpec, target: str, name: str) -> bool:
        """Does the import bind, under `name`, the module at `target` rather than a name that
        module defines? By default never (Python's `from . import cli`)."""
        return False

    def binds_local(self, spec: ImportSpec, local: str) -> bool:
        """Does the import bind `local` in its file: a name it lists (`binds`), or a module bound
        whole (`import a.b as c` binds c, `import a.b` binds a)?"""
        if not spec.names:
            return spec.aliases[0] == local if spec.aliases else spec.spec.split(".")[0] == local
        return any(bound == local for _, bound in self.binds(spec))

    def binds_local_in(self, spec: ImportSpec, local: str, clause: Callable[[], str]) -> bool:
        """`binds_local` of an import resolved in the tree, `clause()` the package clause of
        the files it reaches (`package_clause`), read only where the language names an import
        by it (Go); by default the clause says nothing."""
        return self.binds_local(spec, local)

    def package_clause(self, snap: Snapshot, targets: Sequence[str]) -> str:
        """The name the files an import reaches (`targets`, one package's) declare their package
        by, which an unaliased import binds; "" where the language names no import so."""
        return ""


class SiteSyntax(NamedTuple):
    """How a site is written: `bare` (a name alone), `attribute` (`x.name`: `receiver` the
    dotted names before it, () when it is no dotted name: a call's result, a subscript),
    `path` (Rust `a::b::name`: `receiver` the segments before it, () when they are no plain
    path), `key` (a field's name in a struct literal or pattern: `P { name: 1 }`, Go's `T{Name:
    v}`, a site of a field only), or `keyword` (no use of a definition: a keyword or named
    argument's name, `f(name=...)`, `f(name: ...)`; a PHP `$name` variable); `called` when the
    receiver is what a call of `receiver` returns (`pkg.Headers(...).get`)."""

    form: str
    receiver: tuple[str, ...] = ()
    called: bool = False  # the receiver is a call of the dotted names (`Headers().get`)



DOTTED_NAMES = 64  # the names of a dotted receiver read back from a site, at most
SITE_TEXT = 1024  # the bytes of a site's line its readings see on each side of it
CUT = b")"  # what stands for the text cut off before a site's window: a closed expression
# The bytes of the names the readings read back: C-like identifiers (ASCII `\w`, not starting
# with a digit), and script identifiers, which may also hold `$`.
NAME_FIRST = frozenset(string.ascii_letters.encode() + b"_")
NAME_REST = NAME_FIRST | frozenset(string.digits.encode())
SCRIPT_FIRST = NAME_FIRST | {ord("$")}
SCRIPT_REST = NAME_REST | {ord("$")}
UPPER = frozenset(string.ascii_uppercase.encode())
_NAME_RUN = re.compile(rb"[\w$\x80-\xff]*")


def site_window(line: bytes, col: int, length: int) -> tuple[bytes, int]:
    """The part of a site's line its readings see, and where the site starts in it: at most
    `SITE_TEXT` bytes before the site and after it. Each reading of a site looks at the text
    around it; read whole, every site of a long line read the line, the square of its sites.
    Text cut off before the window reads as a closed expression (`CUT`), and the window starts
    at a name's first byte, never inside one: a receiver or a declaration reaching past the cut
    is unknown to the readings, not taken for a shorter one."""
    start, end = col - SITE_TEXT, col + length + SITE_TEXT
    if start <= 0:
        return line[:end], col
    if _name_end(line, start - 1, start) == start:  # the byte before is a name's
        start = _name_end(line, start, col)
    return CUT + line[start:end], col - start + len(CUT)


def _name_end(text: bytes, start: int, end: int) -> int:
    """Where the run of a name's bytes from `start` stops, at `end` at most."""
    run = _NAME_RUN.match(text, start, end)
    return run.end() if run is not None else start


class DottedTail:
    """The dotted names that end a text before its dot (`a.b .` -> `a.b`): identifiers of a
    first character in `first` and the others in `rest`, joined by `dot` (`.`, `::`) between
    `blanks`, the longest such run of them, as the pattern `pattern` finds it searched in the
    text. It is read back from the text's end, so that finding it costs its own length, not the
    text's: searching the text for the pattern anchored at its end tries every byte of it, and
    backtracks through a long name at each (each site of a long line reading the line before it)."""

    def __init__(self, first: Iterable[int], rest: Iterable[int], blanks: bytes = b" \t", dot: bytes = b".") -> None:
        self.first = frozenset(first)
        self.rest = frozenset(rest)
        self.blanks = frozenset(blanks)
        self.dot = dot
        self._spelled = (bytes(sorted(self.first)), bytes(sorted(self.rest)), blanks)

    @cached_property
    def pattern(self) -> re.Pattern[bytes]:
        """The pattern whose search anchored at the text's end `search` answers as (what its
        tests compare it with)."""
        first, rest, blanks = self._spelled
        ident = b"[" + re.escape(first) + b"][" + re.escape(rest) + b"]*"
        gap = b"[" + re.escape(blanks) + b"]*"
        sep = gap + re.escape(self.dot) + gap
        return re.compile(rb"(" + ident + rb"(?:" + sep + ident + rb")*)" + sep + rb"\Z")

    def search(self, text: bytes) -> tuple[int, bytes] | None:
        """(where they start, the dotted names as written) of those ending `text` before its
        final dot, the longest run; None when it ends with none."""
        i = self._dot(text, len(text))
        if i is None:
            return None
        start = self.start(text, i)
        return (start, text[start:i]) if start is not None else None

    def start(self, text: bytes, end: int) -> int | None:
        """Where the dotted names ending at byte `end` of `text` start, the longest run; None
        when none ends there, or more than `DOTTED_NAMES` do (read back, each name costs its
        reading for every site after it on the line)."""
        i: int | None = end
        start = None
        for _ in range(DOTTED_NAMES + 1):
            if i is None:
                return start
            j = i
            while j > 0 and text[j - 1] in self.rest:
                j -= 1
            k = next((k for k in range(j, i) if text[k] in self.first), None)  # the identifier's start
            if k is None:
                break
            start = k
            if k > j:
                break  # a character of an identifier before it: no dot between
            i = self._dot(text, k)
        else:
            return None
        return start

    def _dot(self, text: bytes, i: int) -> int | None:
        """Where the text before byte `i` ends with a dot between blanks begins; None when it
        does not end so."""
        i = blank_end(text, i, self.blanks)
        if not text.endswith(self.dot, 0, i):
            return None
        return blank_end(text, i - len(self.dot), self.blanks)


NAMES = DottedTail(NAME_FIRST, NAME_REST)  # `a . b.`, of C-like identifiers
SCRIPT_NAMES = DottedTail(SCRIPT_FIRST, SCRIPT_REST)  # the same of script identifiers (`$el.`)


def blank_end(text: bytes, end: int, blanks: Container[int] = b" \t") -> int:
    """`end`, moved back over the `blanks` before it (spaces and tabs unless told)."""
    while end > 0 and text[end - 1] in blanks:
        end -= 1
    return end


def name_before(text: bytes, end: int, first: Container[int], rest: Container[int]) -> int | None:
    """Where the identifier ending at byte `end` of `text` starts, read back (a first byte in
    `first`, the others in `rest`): the leftmost start a search for it anchored there finds,
    inside the run of `rest` bytes before `end`; None when that run holds no first byte."""
    j = end
    while j > 0 and text[j - 1] in rest:
        j -= 1
    return next((k for k in range(j, end) if text[k] in first), None)


def attribute_syntax(before: bytes, receiver: DottedTail) -> SiteSyntax:
    """The attribute a site is when the text `before` it on its line ends with a dot: of the
    dotted names before the dot (`receiver` finds them, the dot included, at the end of the
    text), of what a call of a dotted name returns (`Headers(...).get`), or of nothing known
    (another call's result, a subscript, a literal)."""
    if before.endswith(b")."):
        opened = opening_bracket(before, len(before) - 2)
        callee = receiver.search(before[:opened] + b".") if opened is not None else None
        if callee is not None and not before[:callee[0]].rstrip().endswith((b")", b"]", b".", b"}")):
            return SiteSyntax("attribute", dotted_names(callee[1]), True)
        return SiteSyntax("attribute")
    found = receiver.search(before)
    start = found[0] if found else len(before)
    if found is None or before[:start].rstrip().endswith((b")", b"]", b".", b"}")) or (
            start and before[start - 1:start] in (b'"', b"'", b"`")):
        return SiteSyntax("attribute")
    return SiteSyntax("attribute", dotted_names(found[1]))


def dotted_names(dotted: bytes) -> tuple[str, ...]:
    """The names of a dotted name as written (`this . map_` -> `this`, `map_`)."""
    return tuple(p.strip().decode() for p in dotted.split(b"."))


def opening_bracket(text: bytes, close: int, kinds: bytes = b"()") -> int | None:
    """Where the bracket closing at `close` opens in `text`, counting the pairs `kinds` names
    (each opener then its closer: `b"()[]{}"`); None if it does not."""
    return _matching(text, range(close, -1, -1), kinds[1::2], kinds[0::2])


def call_opened(text: bytes) -> int | None:
    """Where the `(` of the call (or parenthesized text) `text` ends with opens; None where
    `text` ends with no `)`, or with one it does not open."""
    return opening_bracket(text, len(text) - 1) if text.endswith(b")") else None


def closing_bracket(text: bytes, opened: int, kinds: bytes = b"()") -> int | None:
    """Where the bracket opening at `opened` closes in `text`, counting the pairs `kinds` names
    (as `opening_bracket`); None if it does not."""
    return _matching(text, range(opened, len(text)), kinds[0::2], kinds[1::2])


def _matching(text: bytes, walk: range, deeper: bytes, shallower: bytes) -> int | None:
    """The first place along `walk` (of places in `text`) where the brackets met come back to
    the depth before the first: `deeper` ones are those the walk starts on, `shallower` their
    partners. Only the brackets are visited, found by a regular expression: a walk over every
    byte of a site's line, for each site of it, was most of what a long line cost."""
    pattern = _brackets(deeper + shallower)
    places: Iterator[int]
    if walk.step > 0:
        places = (m.start() for m in pattern.finditer(text, max(walk.start, 0), max(walk.stop, 0)))
    else:
        places = _backward(pattern, text, max(walk.stop + 1, 0), max(walk.start + 1, 0))
    depth = 0
    for i in places:
        if text[i] in deeper:
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return i
    return None


def _backward(pattern: re.Pattern[bytes], text: bytes, lo: int, hi: int) -> Iterator[int]:
    """The places of `pattern`'s one-byte matches in `text[lo:hi]`, last first: read in spans
    doubling back from `hi`, as a bracket's partner is most often near it."""
    span = 64
    while hi > lo:
        start = max(lo, hi - span)
        yield from reversed([m.start() for m in pattern.finditer(text, start, hi)])
        hi, span = start, span * 2


@cache
def _brackets(kinds: bytes) -> re.Pattern[bytes]:
    """A pattern of any one of the bracket bytes `kinds`."""
    return re.compile(b"[" + re.escape(kinds) + b"]")


def public_modifier(language: str, kind: str, signature: str, interface_members: bool) -> str | None:
    """Public by its `public` modifier; with `interface_members`, a method declared without a
    body or an access modifier (an interface's) too."""
    sig = signature.lstrip()
    if "public " in f" {sig} " or sig.startswith("public"):
        return f"{language}:public"
    if (interface_members and kind == "method" and "private" not in sig and "protected" not in sig
            and "(" in sig and "{" not in sig):
        return f"{language}:interface_member"
    return None
