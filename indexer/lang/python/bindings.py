"""What a Python import binds, as the references and symbol queries ask it (indexer/lang/bindings.py).

`from a import b as c` binds b as c; `import a.b as c` binds the module a.b to c, and `import
a.b` binds `a`, a package no edge of it names. A `*` import binds what the module's `__all__`
lists, when its top-level statements spell it out, else every name not starting with `_`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from indexer.lang.bindings_base import NAMES, Bindings, SiteSyntax, attribute_syntax
from indexer.lang.python.resolve import is_python, module_candidates, module_stem, relative_base
from indexer.resolve.tree import parent

if TYPE_CHECKING:
    from indexer.model import ImportSpec
    from indexer.store.snapshot import Snapshot

_PACKAGE_FILES = ("/__init__.py", "/__init__.pyi")


class PythonBindings(Bindings):
    language = "python"
    lists_names = True
    instance_names = frozenset({"self", "cls"})

    def site_syntax(self, line: bytes, col: int, name: str) -> SiteSyntax | None:
        """`x.name` an attribute of the dotted names before it (of nothing known after a call
        or subscript: `f().name`, `a[0].name`); `f(name=...)`, or `name=...` alone on a line of
        a call spread over lines, a keyword argument; anything else bare."""
        before = line[:col].rstrip()
        if before.endswith(b"."):
            return attribute_syntax(before, NAMES)
        after = line[col + len(name.encode()):].lstrip()
        if after.startswith(b"=") and not after.startswith(b"==") and (not before or before.endswith((b"(", b","))):
            return SiteSyntax("keyword")
        return SiteSyntax("bare")

    def local_names(self, snap: Snapshot, spec: ImportSpec, target: str, name: str) -> Iterator[str]:
        """A Python import of the module itself reaches its names as attributes (`pytest.mark`)."""
        if not spec.names:
            yield name
        yield from super().local_names(snap, spec, target, name)

    def private_module(self, path: str) -> bool:
        """A module or package whose name starts with an underscore (`pkg/_paths.py`,
        `_pytest/main.py`; dunders such as `__init__.py` aside) is internal, as PEP 8 names it:
        what it defines is no public API, the package reaching it by a re-export if at all."""
        return any(_private(part) for part in module_stem(path).split("/"))

    def public_basis(self, parts: list[str], kind: str, signature: str) -> str | None:
        """Public when no part of its name starts with an underscore (dunders aside)."""
        return None if any(_private(p) for p in parts) else "python:no_leading_underscore"

    def star_passes(self, snap: Snapshot, spec: ImportSpec, target: str) -> Callable[[str], bool]:
        """`from m import *` binds exactly the names m's `__all__` lists, underscored ones
        included, when m's top-level statements spell it out in literals (`BlobFacts.dunder_all`,
        see indexer/lang/python/dunder_all.py); otherwise, `__all__` absent or not read, every
        name not starting with an underscore."""
        facts = snap.import_facts(target)
        listed = facts.dunder_all if facts is not None else None
        return _public_name if listed is None else frozenset(listed).__contains__

    def binds_whole(self, spec: ImportSpec) -> bool:
        return True

    def binds_bare(self, spec: ImportSpec, name: str) -> bool:
        """A bare name is bound by a from-import listing it (`from .api import get`) or a `*`;
        `import api` binds a module, and `from .api import get as fetch` the name `fetch`."""
        return bool(spec.names) and any(local == name or inner == "*" for inner, local in self.binds(spec))

    def binds_module_of(self, spec: ImportSpec, target: str, name: str) -> bool:
        """`from . import cli` resolves to cli.py and binds that module as `cli`; `from .cli
        import cli` binds the name cli.py defines."""
        of_module = [p for p in spec.spec.split(".") if p][-1:] == [name]
        return name in spec.names and not of_module and module_stem(target).rpartition("/")[2] == name

    def binds_module(self, spec: ImportSpec, target: str) -> bool:
        """`from . import tools`, `from lib import tools as t`, `import lib.tools as t` bind the
        module at `target`; `from .tools import helper` binds a name it defines."""
        if not spec.names:
            return bool(spec.aliases)  # `import a.b` alone binds `a`, not the module the edge reaches
        return module_stem(target).rpartition("/")[2] in spec.names

    def package_binds_module(self, source: str, spec: ImportSpec, target: str) -> bool:
        return is_package_file(source) and self.binds_module(spec, target)

    def modules_bound(self, spec: ImportSpec, local: str) -> Iterator[list[str]]:
        """The dotted module (after the import's leading dots) the import binds to `local`, if it
        may be one: `import a.b as local` -> a.b; `from .a import b as local` -> a.b, which is a
        module if a/b.py (or a/b/) is there, else a name a defines."""
        dotted = [p for p in spec.spec.split(".") if p]
        if not spec.names:
            if spec.aliases == (local,) or (not spec.aliases and not spec.level and dotted == [local]):
                yield dotted
            return
        for i, name in enumerate(spec.names):
            if name != "*" and spec.local(i) == local:
                yield dotted + [name]

    def bound_modules(self, snap: Snapshot, path: str, local: str,
                      modules_named: Callable[[list[str]], frozenset[str]]) -> set[str]:
        """The module files a Python file binds to the name `local` by an import: `import a.b
        as local`, `import local`, `from a import b as local` and `from a import local` where
        a.b is a module (a/b.py, not a name a/__init__.py defines). `import a.b` binds `a`, a
        package no edge of it names: not followed. A relative import's module is found beside
        the importer as the resolver finds it; an absolute one's is the edge of the import, asked
        only when some Python file of the tree is that module (`modules_named`; the first edges
        a snapshot is asked decode all of them)."""
        if not is_python(path):
            return set()
        facts = snap.import_facts(path)
        found: set[str] = set()
        asked = []
        for spec in facts.imports if facts else ():
            for dotted in self.modules_bound(spec, local):
                if not spec.level:
                    files = modules_named(dotted)
                    if files:
                        asked.append((spec, files))
                    continue
                base = relative_base(path, spec.level)
                found.update(first_file(snap, module_candidates(base, dotted)) if base is not None else ())
        found.update(e.target for spec, files in asked for e in snap.edges_of_import(path, spec) if e.target in files)
        return found

    def modules_named(self, paths: Iterable[str], dotted: list[str]) -> frozenset[str]:
        """The Python files that are module `dotted` under some root: their module path, as a
        path (`module_stem`), ends with it."""
        joined = "/".join(dotted)  # its parts stand in the path joined by slashes: a cheap first sieve
        return frozenset(p for p in paths
                         if joined in p and is_python(p) and _ends_with(module_stem(p).split("/"), dotted))

    def submodule(self, snap: Snapshot, package: str, name: str) -> tuple[str, ...]:
        """The file of the submodule `name` of a Python package (given its __init__), () when it
        has none or `package` is no package's __init__."""
        if not package.endswith(_PACKAGE_FILES):
            return ()
        return first_file(snap, module_candidates(parent(package), [name]))


def is_package_file(path: str) -> bool:
    return path.endswith(_PACKAGE_FILES)


def first_file(snap: Snapshot, candidates: Iterable[str]) -> tuple[str, ...]:
    """The first of `candidates` the snapshot has, as the Python resolver takes it; () when none."""
    found = next((p for p in candidates if snap.file(p) is not None), None)
    return (found,) if found else ()


def _public_name(name: str) -> bool:
    return not name.startswith("_")


def _ends_with(parts: list[str], tail: list[str]) -> bool:
    return len(tail) <= len(parts) and parts[len(parts) - len(tail):] == tail


__all__ = ["PythonBindings", "first_file", "is_package_file"]


def _private(part: str) -> bool:
    """A name an underscore makes private: `_x`, not a dunder such as `__init__`."""
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))
