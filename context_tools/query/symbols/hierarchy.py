"""Members through the class hierarchy: a class's bases as the map resolves them
(indexer/resolve/hierarchy.py, read per class from its file's facts), its method resolution
order, the member a class inherits, what a member overrides, and the known subclasses of a
class (the files naming it, whose classes' bases resolve to it).

The order is each language's own (`ORDERS`): Python's C3 linearization (JS and TS, whose
classes have one base, the same), declaration order depth first where C3 has no answer and
for C++; Ruby's ancestors (prepended modules, the class, included and extended modules, the
last first, then the superclass's); PHP's class, its traits, then its parent's; Java's and
C#'s class, its superclass chain, then the interfaces (default methods), depth first."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from context_tools.query.symbols.answers import ClassRef, Relative
from context_tools.query.symbols.walks import reexport_walk
from indexer.lang.bindings import PathView, Scopes
from indexer.lang.class_kinds import CLASS_KINDS, HOOKED, METHOD_HOSTS

if TYPE_CHECKING:
    from indexer.model import BlobFacts, Edge, Symbol
    from indexer.resolve.hierarchy import Inherits
    from indexer.store.records import ImportFacts
    from indexer.store.snapshot import Snapshot

MRO_CAP = 64  # classes in one linearization: a bound on what a hierarchy walk reads


SCRIPT_LANGUAGES = frozenset({"javascript", "typescript"})
RENAMED_HOPS = 3  # the files of re-exports between a class and a subclass naming it otherwise, at most


class Cls(NamedTuple):
    path: str
    sym: Symbol

    @property
    def key(self) -> tuple[str, str]:
        return self.path, self.sym.qualified


# What one order's walk has made of each class met, by its key: met again, it is not walked again.
Walked = dict[tuple[str, str], list["Cls"]]

# languages whose classes may be reopened in other files (Ruby's open classes, C#'s partial
# ones): a member is the class's wherever a definition of the class holds it
OPEN_CLASSES = frozenset({"ruby", "csharp"})


def is_class(sym: Symbol) -> bool:
    """A class-like definition: what holds methods, and a Ruby module (a mixin)."""
    return (sym.kind in METHOD_HOSTS and sym.kind != "impl") or (
        sym.kind == "module" and sym.signature.startswith("module "))


def object_type(sym: Symbol) -> bool:
    """A TypeScript type alias of an object type (`type Annotation = { make_(...): R }`): its
    members are a class's, and an interface extending it inherits them."""
    return sym.kind == "type" and re.search(r"=\s*\{\s*$", sym.signature) is not None


class _Classes:
    """The snapshot's classes as base resolution asks them (indexer.resolve.scoped_bases.ClassIndex)."""

    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap
        self._named: dict[str, list[tuple[str, str]]] = {}

    def named(self, name: str) -> list[tuple[str, str]]:
        found = self._named.get(name)
        if found is None:
            found = self._named[name] = sorted((p, s.qualified) for p, s in self.snap.definitions(name)
                                               if s.kind in CLASS_KINDS)
        return found

    def package(self, path: str) -> str:
        facts = self.snap.core_facts(path)
        return facts.package_name if facts is not None else ""

    def edges(self, path: str) -> list[Edge]:
        return self.snap.imports(path)


class Hierarchy:
    """One snapshot's hierarchy, each class's bases resolved once, on first need."""

    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap
        self._edges: dict[str, list[Inherits]] = {}
        self._by_class: dict[str, dict[str, list[Inherits]]] = {}
        self._bases: dict[tuple[str, str], list[tuple[Cls, str]]] = {}
        self._top: dict[tuple[str, str], Symbol | None] = {}
        self._classes = _Classes(snap)
        self._package: dict[str, tuple[str, ...]] = {}
        self._go_folders: dict[str, list[str]] | None = None
        self._impl_files: dict[tuple[str, str], tuple[str, ...]] = {}
        self._landing: dict[tuple[str, str], Cls | None] = {}
        self._view: PathView | None = None
        # a name's definitions by file and by container, read once a name: asked once a class,
        # a list of every definition would cost the square of a name defined in many files
        self._by_file: dict[str, dict[str, list[Symbol]]] = {}
        self._by_container: dict[str, dict[str | None, dict[str, Symbol]]] = {}
        # the resolved `inherits` edges of the files naming a class's name, by the class each
        # may land on, read once a name: asked once a class, the square of a name's files
        self._inheriting: dict[str, tuple[frozenset[str], dict[tuple[str, str], list[tuple[str, Inherits]]]]] = {}
        self._subclasses: dict[tuple[str, str], list[Cls]] = {}

    def defined_in(self, name: str, path: str) -> list[Symbol]:
        """The file's definitions of `name`, in its order."""
        found = self._by_file.get(name)
        if found is None:
            found = self._by_file[name] = {}
            for p, s in self.snap.definitions(name):
                found.setdefault(p, []).append(s)
        return found.get(path, [])

    def members_named(self, name: str, container: str) -> dict[str, Symbol]:
        """file -> its first definition of `name` under `container`, the files in path order."""
        found = self._by_container.get(name)
        if found is None:
            found = self._by_container[name] = {}
            for p, s in self.snap.definitions(name):
                found.setdefault(s.container, {}).setdefault(p, s)
        return found.get(container, {})

    def edges_of(self, path: str) -> list[Inherits]:
        """The `inherits` edges of the file's classes."""
        found = self._edges.get(path)
        if found is None:
            facts = self.snap.import_facts(path)
            found = self._edges[path] = self._resolved(path, facts) if facts is not None and facts.bases else []
        return found

    def _resolved(self, path: str, facts: ImportFacts | BlobFacts) -> list[Inherits]:
        # Base resolution (and the facts table it reads) is imported only once a file that
        # declares bases is asked: a lookup that never meets one does not load it.
        from indexer.resolve.hierarchy import resolve_bases

        entry = self.snap.file(path)
        return resolve_bases(
            path, entry.language if entry is not None else "", facts.bases, facts.imports, self.snap.imports(path),
            self.snap.unresolved_of(path), lambda p, n: self.top_class(p, n) is not None,
            self._classes, self.package, self.package_name, self._symbols)

    def _symbols(self, path: str) -> list[Symbol]:
        facts = self.snap.core_facts(path)
        return facts.symbols if facts is not None else []

    def package_name(self, path: str) -> str:
        facts = self.snap.core_facts(path)
        return facts.package_name if facts is not None else ""

    def package(self, path: str) -> tuple[str, ...]:
        """The other files of a Go file's package: its folder's .go files of the same clause."""
        found = self._package.get(path)
        if found is None:
            if self._go_folders is None:  # one pass over the paths, on the first Go file asked
                self._go_folders = {}
                for p in self.snap.paths:
                    if p.endswith(".go"):
                        self._go_folders.setdefault(p.rpartition("/")[0], []).append(p)
            name = self.package_name(path)
            found = self._package[path] = tuple(
                p for p in self._go_folders.get(path.rpartition("/")[0], ()) if name and p != path
                and self.package_name(p) == name)
        return found

    def language(self, path: str) -> str:
        entry = self.snap.file(path)
        return entry.language if entry is not None else ""

    def declared(self, c: Cls) -> list[Inherits]:
        """The bases the class declares: in its file; a class its language lets other files
        reopen (`OPEN_CLASSES`), in those files too, by path; a top-level Rust type's, the trait
        impls of the files that import its file (`impl Greet for Square` beside `use
        crate::shapes::Square;`, or `use super::*` in a child module), in path order."""
        own = list(self._edges_by_class(c.path).get(c.sym.qualified, ()))
        if self.language(c.path) in OPEN_CLASSES:
            others = sorted({p for p, s in self.snap.definitions(c.sym.name) if p != c.path
                             and s.qualified == c.sym.qualified and is_class(s)
                             and self.language(p) == self.language(c.path)})
            own += [e for p in others for e in self._edges_by_class(p).get(c.sym.qualified, ())]
        return own + [e for p in self.impl_files(c) for e in self._edges_by_class(p).get(c.sym.name, ())]

    def _edges_by_class(self, path: str) -> dict[str, list[Inherits]]:
        """The file's `inherits` edges by the class declaring them, in the file's order: grouped
        once, not read whole again for each class of the file asked."""
        found = self._by_class.get(path)
        if found is None:
            found = self._by_class[path] = {}
            for e in self.edges_of(path):
                found.setdefault(e.cls, []).append(e)
        return found

    def impl_files(self, c: Cls) -> tuple[str, ...]:
        """The other files that may hold a top-level Rust type's impls: those naming it that
        import its file."""
        if c.sym.container or not c.path.endswith(".rs"):
            return ()
        found = self._impl_files.get(c.key)
        if found is None:
            naming = sorted({p for p, _ in self.snap.occurrences(c.sym.name) if p != c.path and p.endswith(".rs")})
            found = self._impl_files[c.key] = tuple(
                p for p in naming if any(e.target == c.path for e in self.snap.imports(p)))
        return found

    def bases(self, c: Cls) -> list[Cls]:
        """The class's resolved bases, in declaration order."""
        return [x for x, _ in self.related(c)]

    def related(self, c: Cls) -> list[tuple[Cls, str]]:
        """The class's resolved bases, in declaration order, each with how it is declared
        (`Base.relation`)."""
        found = self._bases.get(c.key)
        if found is None:
            found = []
            for e in self.declared(c):
                base = self.landing(e)
                if base is not None:
                    found.append((base, e.relation))
            self._bases[c.key] = found
        return found

    def landing(self, e: Inherits) -> Cls | None:
        """The class a resolved base names: the class of its file, or, where that file only
        re-exports it (`class MyFlask(flask.Flask)` lands on flask/__init__.py, whose `from
        .app import Flask` passes it on), the class the re-exports lead to."""
        if e.status != "resolved":
            return None
        key = (e.target, e.base)
        if key not in self._landing:
            sym = self.top_class(e.target, e.base)
            found = Cls(e.target, sym) if sym is not None else None
            if found is None and "." not in e.base:
                if self._view is None:
                    self._view = Scopes(self.snap).path_view()
                reached = reexport_walk(self.snap, [e.target], e.base, [e.base], self._view)
                found = next((Cls(p, s) for (p, name), _ in sorted(reached.items())
                              if (s := self.top_class(p, name)) is not None), None)
            self._landing[key] = found
        return self._landing[key]

    def top_class(self, path: str, qualified: str) -> Symbol | None:
        """The class of that qualified name in the file (a top-level one for Python and JS)."""
        key = (path, qualified)
        if key not in self._top:
            self._top[key] = next((s for s in self.defined_in(qualified.rsplit(".", 1)[-1], path)
                                   if s.qualified == qualified and (is_class(s) or object_type(s))), None)
        return self._top[key]

    def mro(self, c: Cls) -> list[Cls]:
        """The class, then its ancestors in its language's order (`ORDERS`): C3 as Python has
        it by default, or, where C3 fails (an inconsistent order, a cycle, the cap), depth
        first in declaration order, each class once. A Rust type's is depth first in
        declaration order (its own impls, then the traits it implements as its impls come, each
        trait's supertraits after it); a Go type's is by depth of embedding, as Go promotes
        (the shallowest wins), in declaration order at each depth."""
        language = self.language(c.path)
        if language == "rust":
            return self._depth_first(c)
        if language == "go":
            return self._breadth_first(c)
        order = ORDERS.get(language)
        if order is not None:  # the class asked first, whatever its language puts before it
            return _once([c] + order(self, c, set(), {}))
        found = self._c3(c, set(), {})
        return found if found is not None else self._depth_first(c)

    def lineage(self, c: Cls, ancestor: Cls) -> list[Cls]:
        """The shortest line of declared bases from the class to an ancestor of it (the
        first in declaration order among the shortest), both ends included."""
        came: dict[tuple[str, str], Cls | None] = {c.key: None}
        level = [c]
        while level and ancestor.key not in came and len(came) < MRO_CAP:
            following = []
            for x in level:
                for b in self.bases(x):
                    if b.key not in came:
                        came[b.key] = x
                        following.append(b)
            level = following
        if ancestor.key not in came:
            return [c, ancestor]
        line: list[Cls] = [ancestor]
        while (back := came[line[-1].key]) is not None:
            line.append(back)
        return line[::-1]

    def _breadth_first(self, c: Cls) -> list[Cls]:
        out: list[Cls] = []
        seen = {c.key}
        level = [c]
        while level and len(out) < MRO_CAP:
            out += level
            following = []
            for x in level:
                for b in self.bases(x):
                    if b.key not in seen:
                        seen.add(b.key)
                        following.append(b)
            level = following
        return out[:MRO_CAP]

    def _c3(self, c: Cls, seen: set[tuple[str, str]], done: Walked) -> list[Cls] | None:
        # `done` holds each linearization made: a class met on many ways (diamonds stacked
        # one on another) is linearized once, not once a way, which grew as 2 to the depth.
        # A failure (a cycle, the cap, no consistent order) needs no keeping: it fails the
        # whole linearization.
        if c.key in done:
            return done[c.key]
        if c.key in seen or len(seen) > MRO_CAP:
            return None
        seen = seen | {c.key}
        bases = self.bases(c)
        if len(bases) >= MRO_CAP:  # the class and each base would pass the cap
            return None
        lists = []
        for b in bases:
            found = self._c3(b, seen, done)
            if found is None:
                return None
            lists.append(found)
        lists.append(list(bases))
        out = self._merge(c, lists)
        if out is not None:
            done[c.key] = out
        return out

    @staticmethod
    def _merge(c: Cls, lists: list[list[Cls]]) -> list[Cls] | None:
        """C3's merge: the first head of the lists that is in no list's tail, again and again.
        Where each list starts and how often each class is in the tails are kept as heads
        are taken, so no tail is read again for each head tried."""
        tails: dict[tuple[str, str], int] = {}
        for lst in lists:
            for x in lst[1:]:
                tails[x.key] = tails.get(x.key, 0) + 1
        starts = [0] * len(lists)
        out = [c]
        while True:
            head = next((lst[i] for lst, i in zip(lists, starts) if i < len(lst) and not tails.get(lst[i].key)), None)
            if head is None:
                # no consistent order, unless every list is spent
                return out if all(i == len(lst) for lst, i in zip(lists, starts)) else None
            out.append(head)
            if len(out) > MRO_CAP:
                return None
            for n, lst in enumerate(lists):
                i = starts[n]
                if i < len(lst) and lst[i].key == head.key:
                    starts[n] = i + 1
                    if i + 1 < len(lst):
                        tails[lst[i + 1].key] -= 1

    def _depth_first(self, c: Cls) -> list[Cls]:
        out: list[Cls] = []
        seen: set[tuple[str, str]] = set()
        stack = [c]
        while stack and len(out) < MRO_CAP:
            x = stack.pop()
            if x.key in seen:
                continue
            seen.add(x.key)
            out.append(x)
            stack.extend(reversed(self.bases(x)))
        return out

    def member(self, c: Cls, name: str) -> tuple[Cls, Symbol] | None:
        """The first class of the MRO defining `name` as a member, and that member."""
        for x in self.mro(c):
            sym = self.member_of(x, name)
            if sym is not None:
                return x, sym
        return None

    def after(self, c: Cls) -> list[Cls]:
        """The classes whose members the class's own override: those after it in its order
        (not a Ruby module it prepends, whose members override the class's)."""
        order = ORDERS.get(self.language(c.path))
        if order is None:
            return self.mro(c)[1:]
        found = _once(order(self, c, set(), {}))
        return found[next((i for i, x in enumerate(found) if x.key == c.key), 0) + 1:]

    def member_of(self, c: Cls, name: str) -> Symbol | None:
        found = self.member_at(c, name)
        return found[1] if found is not None else None

    def member_at(self, c: Cls, name: str) -> tuple[str, Symbol] | None:
        """The class's own member `name` and its file: in the class's file; a Go type's method,
        in any file of its package; a Rust type's, in a file with its impls (`impl_files`); for
        a class its language lets other files reopen (`OPEN_CLASSES`), in the first file by
        path defining it under the class."""
        if c.path.endswith((".go", ".rs")):
            files = (c.path, *(self.package(c.path) if c.path.endswith(".go") else self.impl_files(c)))
            return next(((f, s) for f in files for s in self.defined_in(name, f)
                         if s.container == (c.sym.qualified if f == c.path else c.sym.name)), None)
        found = self.members_named(name, c.sym.qualified)
        own = found.get(c.path)
        if own is not None or not found or self.language(c.path) not in OPEN_CLASSES:
            return (c.path, own) if own is not None else None
        return next(((p, s) for p, s in found.items() if self.language(p) == self.language(c.path)
                     and self.top_class(p, c.sym.qualified) is not None), None)

    def subclasses(self, c: Cls) -> list[Cls]:
        """The classes whose declared bases resolve to this one: looked for only in the files
        naming it (a base, or the import binding it, spells its name), in path order. A module
        a Ruby hook hands on (`base.extend ClassMethods`) has not the hook's module for one."""
        found = self._subclasses.get(c.key)
        if found is not None:
            return found
        scanned, by_class = self._inheriting_of(c.sym.name)
        edges = list(by_class.get(c.key, ()))
        if c.path not in scanned:  # its own file, should the index list it under no site of the name
            edges += [(c.path, e) for e in self.edges_of(c.path) if e.status == "resolved"]
        # a JS/TS file importing the class under a name its own never spells (`import { Renamed }`
        # of an index's `export { Base as Renamed }`, `import Shown from` a default export)
        renamed = self._renamed_bases(c, scanned) if self.language(c.path) in SCRIPT_LANGUAGES else []
        edges += renamed
        edges.sort(key=lambda t: t[0])  # stable: each file's edges keep their order
        out = []
        for path, e in edges:
            if e.relation.startswith(HOOKED):  # handed on to the module's includers, no base of the module
                continue
            if e.target == c.path and e.base == c.sym.qualified or (
                    (e.target != c.path and e.base == c.sym.name or e.base == "default"
                     or (path, e) in renamed) and self.landing(e) == c):
                sub = next((s for s in self.defined_in(e.cls.rsplit(".", 1)[-1], path)
                            if s.qualified == e.cls and is_class(s)), None)
                if sub is not None:
                    out.append(Cls(path, sub))
        self._subclasses[c.key] = out
        return out

    def _renamed_bases(self, c: Cls, scanned: frozenset[str]) -> list[tuple[str, Inherits]]:
        """The resolved `inherits` edges of the files importing the class's file, or a file
        re-exporting from it (RENAMED_HOPS files of re-exports away), that do not name the class
        (`scanned` holds those that do): each base there that lands on a class is weighed by
        where it lands (`landing`)."""
        found: list[tuple[str, Inherits]] = []
        seen = {c.path}
        front = [c.path]
        for _ in range(RENAMED_HOPS):
            after: list[str] = []
            for target in front:
                for edge in self.snap.importers(target):
                    path = edge.source
                    if path in seen or self.language(path) not in SCRIPT_LANGUAGES:
                        continue
                    seen.add(path)
                    if path not in scanned:
                        found += [(path, e) for e in self.edges_of(path) if e.status == "resolved"]
                    facts = self.snap.import_facts(path)
                    if any(spec.exports or spec.names == ("*",) for spec in (facts.imports if facts else ())):
                        after.append(path)  # it re-exports: its importers may name the class otherwise
            front = after
        return found

    def _inheriting_of(self, name: str) -> tuple[frozenset[str], dict[tuple[str, str], list[tuple[str, Inherits]]]]:
        """The files naming `name`, and their resolved `inherits` edges (file, edge) by the key
        of each class the edge may name: the class at its target, and the one it lands on."""
        found = self._inheriting.get(name)
        if found is None:
            files = self.snap.paths_naming(name)
            by_class: dict[tuple[str, str], list[tuple[str, Inherits]]] = {}
            for path in files:
                for e in self.edges_of(path):
                    if e.status != "resolved":
                        continue
                    keys = {(e.target, e.base)}
                    # a base reached as a module's default (`import Base from`, `require`) lands too
                    if e.base in (name, "default") and (landed := self.landing(e)) is not None:
                        keys.add(landed.key)
                    for key in sorted(keys):
                        by_class.setdefault(key, []).append((path, e))
            found = self._inheriting[name] = (frozenset(files), by_class)
        return found


def ref(c: Cls) -> ClassRef:
    return ClassRef(c.sym.qualified, c.path, c.sym.line)


def container_class(h: Hierarchy, path: str, sym: Symbol) -> Cls | None:
    """The class a member is defined in, as a class of the map: in the member's file, or, a
    Go method's receiver type, in any file of its package."""
    if not sym.container:
        return None
    files = (path, *h.package(path)) if path.endswith(".go") else (path,)
    name = sym.container.rsplit(".", 1)[-1]
    return next((Cls(f, s) for f in files for s in h.defined_in(name, f) if s.qualified == sym.container
                 and is_class(s)), None)


def overridden(h: Hierarchy, path: str, sym: Symbol) -> ClassRef | None:
    """The member of a base class (the first in method resolution order after its own class)
    that a member overrides; None for a member overriding nothing the map knows."""
    owner = container_class(h, path, sym)
    if owner is None or not h.declared(owner):
        return None
    for c in h.after(owner):
        found = h.member_at(c, sym.name)
        if found is not None:
            return ClassRef(found[1].qualified, found[0], found[1].line)
    return None


def any_member_named(snap: Snapshot, name: str) -> bool:
    """Whether some class has a member `name` (off the name index): else no class inherits
    one, and the class part of a qualified name need not be found through the snapshot's
    edges, whose first lookup decodes all of them."""
    return any(s.container for _, s in snap.definitions(name))


def inherited(h: Hierarchy, classes: list[tuple[str, Symbol]], name: str
              ) -> list[tuple[str, Symbol, ClassRef, list[ClassRef]]]:
    """For each class asked, the member `name` it inherits: (file, member, the class defining
    it, the classes from the one asked to that one in method resolution order; for a Rust or
    Go type, the bases leading from it to that one: `Dog`, `Walker`, `Base` for a method
    promoted through two embeddings)."""
    out = []
    for path, sym in classes:
        if not is_class(sym):
            continue
        order = h.mro(Cls(path, sym))
        for i, c in enumerate(order[1:], 1):
            found = h.member_at(c, name)
            if found is not None:
                chain = h.lineage(order[0], c) if h.language(path) in ("rust", "go") else order[:i + 1]
                out.append((found[0], found[1], ref(c), [ref(x) for x in chain]))
                break
    return out


def relatives(h: Hierarchy, c: Cls) -> list[Relative]:
    """The class's bases (every ancestor, in method resolution order, then the declared bases
    the map does not resolve, as declared), then its known subclasses."""
    out = []
    for x in h.mro(c)[1:]:
        out.append(Relative("base", x.sym.qualified, "resolved", x.sym.qualified, x.path, x.sym.line))
    for e in h.declared(c):  # what the walk above could not reach: a base outside the map's classes
        if e.status != "resolved":
            out.append(Relative("base", e.spec, e.status))
        elif h.landing(e) is None:  # the file it lands on does not define it, nor lead to it
            out.append(Relative("base", e.spec, e.status, path=e.target))
    for x in h.subclasses(c):
        out.append(Relative("subclass", x.sym.qualified, "resolved", x.sym.qualified, x.path, x.sym.line))
    for x in implementations(h, c):
        out.append(Relative("implementation", x.sym.qualified, "resolved", x.sym.qualified, x.path, x.sym.line))
    return out


def implementations(h: Hierarchy, c: Cls) -> list[Cls]:
    """A Go interface's implementations in the tree, which Go never declares: the types whose
    method sets hold every method of the interface (its own and those of the interfaces it
    embeds), each a method of the type in any file of its package or promoted from what it
    embeds, pointer and value receivers alike. Looked for among the types defining the method
    the fewest files define and the types embedding them, at any depth; in path and line
    order, at most MRO_CAP. None for an interface of no methods, which every type satisfies."""
    if c.sym.kind != "interface" or not c.path.endswith(".go"):
        return []
    names = sorted({s.name for x in h.mro(c) for s in h._symbols(x.path)
                    if s.kind == "method" and s.container == x.sym.qualified})
    if not names:
        return []
    fewest = min(names, key=lambda n: (len(h.snap.defining_paths([n]).get(n, ())), n))
    todo: list[Cls] = []
    for path, sym in h.snap.definitions(fewest):
        if sym.kind == "method" and sym.container and path.endswith(".go"):
            t = next((Cls(f, x) for f in (path, *h.package(path)) for x in h.defined_in(sym.container, f)
                      if is_class(x) and not x.container), None)
            if t is not None:
                todo.append(t)
    seen: set[tuple[str, str]] = set()
    out: list[Cls] = []
    while todo and len(seen) < 4 * MRO_CAP:
        t = todo.pop()
        if t.key in seen or t.sym.kind == "interface":
            continue
        seen.add(t.key)
        if all(h.member(t, n) is not None for n in names):
            out.append(t)
        todo.extend(h.subclasses(t))  # a type embedding it has its methods promoted
    return sorted(out, key=lambda x: (x.path, x.sym.line))[:MRO_CAP]


def reached_through(h: Hierarchy, hits: list[tuple[str, Symbol]]) -> list[tuple[str, str]]:
    """(file, name) of the known subclasses, at any depth, of the classes the members `hits`
    are defined in, that resolve the member's name to it (not to an override, nor to another
    base earlier in their order): the classes its sites may be qualified through. At most
    MRO_CAP are visited."""
    out: set[tuple[str, str]] = set()
    for path, sym in hits:
        owner = container_class(h, path, sym)
        if owner is None:
            continue
        seen = {owner.key}
        todo = [owner]
        while todo and len(seen) < MRO_CAP:
            c = todo.pop()
            for sub in h.subclasses(c):
                if sub.key in seen:
                    continue
                seen.add(sub.key)
                todo.append(sub)
                found = h.member(sub, sym.name)
                if found is not None and found[0].key == owner.key:
                    out.add((sub.path, sub.sym.name))
    return sorted(out)


def _once(found: list[Cls]) -> list[Cls]:
    """Each class once, where it first comes, the class asked first, at most MRO_CAP."""
    out: list[Cls] = []
    seen: set[tuple[str, str]] = set()
    for x in found:
        if x.key not in seen and len(out) < MRO_CAP:
            seen.add(x.key)
            out.append(x)
    return out


def _ruby(h: Hierarchy, c: Cls, seen: set[tuple[str, str]], done: Walked) -> list[Cls]:
    """Ruby's ancestors: the modules prepended (the last first), the class, the modules included
    or extended (the last first), each after what its `included` hook mixes into the class
    (`base.send :include, Shell`, `base.extend ClassMethods`: `Base.relation` `hook:...`), then
    the superclass's ancestors. The class asked still comes
    first (`mro`), its own prepended modules right after it: the map answers `A.m` with A's own
    `m`, as it is written."""
    if c.key in done:
        return done[c.key]
    if c.key in seen or len(seen) > MRO_CAP:
        return []
    seen = seen | {c.key}
    related = h.related(c)
    out = [x for y, r in reversed(related) if r == "prepend" for x in _ruby(h, y, seen, done)] + [c]
    for x, r in reversed(related):
        if r in ("include", "extend"):
            out += _mixed(h, x, seen, done)
    superclass = next((x for x, r in related if r == ""), None)
    return _walked(c, out + (_ruby(h, superclass, seen, done) if superclass is not None else []), done)


def _mixed(h: Hierarchy, x: Cls, seen: set[tuple[str, str]], done: Walked) -> list[Cls]:
    """What a class gets from a module it includes or extends: what the module's `included` hook
    mixes into it (the last first, each with what its own hook mixes in), then the module's
    ancestors."""
    key = (x.path, x.sym.qualified + _MIXED)
    if key in done:  # walked once an order, as `_ruby` walks a class, whatever the ways to it
        return done[key]
    if x.key in seen:
        return []
    handed = [y for y, r in reversed(h.related(x)) if r.startswith(HOOKED)]
    inner = seen | {x.key}
    done[key] = out = [z for y in handed for z in _mixed(h, y, inner, done)] + _ruby(h, x, seen, done)
    return out


_MIXED = "\0mixed"  # `_mixed`'s key in a walk's `done`, beside the class's own


def _php(h: Hierarchy, c: Cls, seen: set[tuple[str, str]], done: Walked) -> list[Cls]:
    """PHP: the class, its traits (each with the traits it uses), then its parent's order, then
    its interfaces (for their constants)."""
    if c.key in done:
        return done[c.key]
    if c.key in seen or len(seen) > MRO_CAP:
        return []
    seen = seen | {c.key}
    related = h.related(c)
    out = [c]
    for group in ("trait", "class", "interface"):
        for x, r in related:
            if (group == "trait") == (r == "use") and (group != "interface") == (x.sym.kind != "interface"):
                out += _php(h, x, seen, done)
    return _walked(c, out, done)


def _walked(c: Cls, found: list[Cls], done: Walked) -> list[Cls]:
    """A class's order as `_once` keeps it, kept for the walk: `_once` of the orders joined is
    `_once` of each joined, so a class met on many ways (modules or traits included in
    diamonds stacked one on another) is walked once, not once a way (2 to the depth)."""
    done[c.key] = found = _once(found)
    return found


def _jvm(h: Hierarchy, c: Cls, seen: set[tuple[str, str]], done: Walked) -> list[Cls]:
    """Java and C#: the class and its superclass chain (the base that is no interface), then the
    interfaces of each class of the chain in order, each with its own, depth first: a class's
    method before an interface's default method."""
    chain = [c]
    while len(chain) < MRO_CAP:
        nxt = next((x for x in h.bases(chain[-1]) if x.sym.kind != "interface"), None)
        if nxt is None or nxt.key in {x.key for x in chain}:
            break
        chain.append(nxt)
    out = list(chain)
    for x in chain:
        stack = [b for b in reversed(h.bases(x)) if b.sym.kind == "interface"]
        while stack and len(out) < MRO_CAP:
            i = stack.pop()
            out.append(i)
            stack.extend(reversed([b for b in h.bases(i) if b.key not in seen]))
    return out


def _cpp(h: Hierarchy, c: Cls, seen: set[tuple[str, str]], done: Walked) -> list[Cls]:
    """C++: the bases in declaration order, depth first."""
    return h._depth_first(c)


ORDERS = {"ruby": _ruby, "php": _php, "java": _jvm, "csharp": _jvm, "cpp": _cpp}
