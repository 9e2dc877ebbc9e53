"""What a language's imports and declarations bind, as the references and symbol queries ask it.

The query layer (context_tools/query/symbols) walks imports, re-exports and packages the
same way for every language; what differs (which import binds which name, what a `*` passes
on, which files see each other's names without an import, whether a name is matched in any
case) is asked of the `Bindings` of a language, found here by language name (`of_language`),
by an import's kind (`of_import`) or by a file's suffix (`of_path`). The defaults are those
of a language whose import binds each name it lists under its alias and offers it on to its
own importers. Per-snapshot state some languages need (a Rust tree's crates, a C# tree's
projects) is held by `Scopes`, read on first need.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from indexer.lang.bindings_base import Bindings, PathView, Projects
from indexer.lang.python.resolve import is_python
from indexer.lang.rust.visibility import CrateView, Gate

if TYPE_CHECKING:
    from indexer.lang.rust.bindings import RustCrates
    from indexer.lang.rust.paths import RustModulePaths
    from indexer.store.snapshot import Snapshot

__all__ = ["Bindings", "Gate", "PathView", "Projects", "Scopes", "of_import", "of_language", "of_path"]


class Scopes:
    """What a snapshot's languages scope beyond a file, read on first need: the Rust crates
    (module paths from a crate's name, which `use` a path sees) and the C# projects (which
    files a file sees, which a project-wide import binds in)."""

    def __init__(self, snap: Snapshot, crates: bool = True) -> None:
        self.snap = snap
        self._crates_wanted = crates
        self._crates: RustCrates | None = None
        self._projects: Projects | None = None
        self._module_paths: RustModulePaths | None = None

    @property
    def crates(self) -> RustCrates:
        if self._crates is None:
            from indexer.lang.rust.bindings import RustCrates

            self._crates = RustCrates(self.snap, self._crates_wanted)
        return self._crates

    def module_files(self, module: list[str]) -> list[str]:
        """The files a module path names from a crate's name (`demo::net`), sorted."""
        return self.crates.crate_files(module) if self._crates_wanted else []

    def path_view(self) -> CrateView:
        return self.crates.crate_view()

    def gate(self) -> Gate:
        """Which importers of a file re-exporting a definition see it through the file."""
        return Gate(self.path_view())

    def crate_module(self, path: str) -> str | None:
        """A Rust file's path in its crate (`demo::net`); its manifests are read on first need."""
        return self._paths().of(path)

    def crate_root(self, path: str) -> str | None:
        """The root file of a Rust file's crate (src/lib.rs for src/net.rs)."""
        return self._paths().root_of(path)

    def _paths(self) -> RustModulePaths:
        if self._module_paths is None:
            from indexer.lang.rust.paths import RustModulePaths

            self._module_paths = RustModulePaths(self.snap)
        return self._module_paths

    @property
    def projects(self) -> Projects:
        if self._projects is None:
            from indexer.lang.csharp.bindings import ProjectView

            self._projects = ProjectView(self.snap)
        return self._projects


# Each language's rules are imported when the language is first asked: a query meeting only
# Python files (or files of no language with rules of its own) loads no other language's.
# (module, class) by language; the languages naming one pair share its object.
_RULES: dict[str, tuple[str, str]] = {
    "python": ("indexer.lang.python.bindings", "PythonBindings"),
    "javascript": ("indexer.lang.javascript.bindings", "JavaScriptBindings"),
    "typescript": ("indexer.lang.javascript.bindings", "JavaScriptBindings"),
    "tsx": ("indexer.lang.javascript.bindings", "JavaScriptBindings"),
    "go": ("indexer.lang.go.bindings", "GoBindings"),
    "rust": ("indexer.lang.rust.bindings", "RustBindings"),
    "php": ("indexer.lang.php.bindings", "PhpBindings"),
    "csharp": ("indexer.lang.csharp.bindings", "CSharpBindings"),
    "ruby": ("indexer.lang.ruby.bindings", "RubyBindings"),
    "java": ("indexer.lang.java.bindings", "JavaBindings"),
    "c": ("indexer.lang.c.bindings", "CBindings"),
    "cpp": ("indexer.lang.c.bindings", "CppBindings"),
}
_MADE: dict[tuple[str, str], Bindings] = {}
_DEFAULT = Bindings()
# an import's kind names its language by its first word (`rust_use`, `php_use_function`);
# these are the ones that do not
_KIND_LANGUAGES = {"js": "javascript"}
# the suffixes of the files whose package and module rules the queries apply, by language
# (Python's files are those `is_python` names, stubs included)
_SUFFIX_LANGUAGES = {"go": "go", "rs": "rust", "java": "java", "php": "php", "cs": "csharp", "rb": "ruby"}
_BY_KIND: dict[str, Bindings] = {}  # an import kind's, once asked


def of_language(language: str) -> Bindings:
    """The binding rules of `language` (the defaults for a language without its own)."""
    where = _RULES.get(language)
    if where is None:
        return _DEFAULT
    found = _MADE.get(where)
    if found is None:  # two threads may both make one (they hold no state): one is kept
        made: Bindings = getattr(import_module(where[0]), where[1])()
        found = _MADE.setdefault(where, made)
    return found


def of_import(kind: str) -> Bindings:
    """The binding rules of the language an import of kind `kind` is written in."""
    found = _BY_KIND.get(kind)
    if found is None:
        head = kind.partition("_")[0]
        found = _BY_KIND[kind] = of_language(_KIND_LANGUAGES.get(head, head))
    return found


def of_path(path: str) -> Bindings:
    """The binding rules of a file's package and module paths, by its name."""
    if is_python(path):
        return of_language("python")
    return of_language(_SUFFIX_LANGUAGES.get(path.rpartition(".")[2], ""))

