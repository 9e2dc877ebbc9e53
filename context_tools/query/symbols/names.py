"""Module paths and qualified names: the dotted module a file is shown as and matched by
(`src/webapp/app.py` -> `webapp.app`), the parts of a query (`a.B.c`, `a::B::c`), and the
path filter of a query (a prefix or a glob)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from context_tools.query.pinned import tree_path

if TYPE_CHECKING:
    from indexer.model import Symbol

# the file that stands for its folder's module, by the file's language: a Python package's
# `__init__`, a JS/TS folder's `index`, a Rust `mod.rs`, `lib.rs` or `main.rs`; a Python
# `main.py` or `lib.py` is a module of its own (`from app.main import run`)
_SCRIPT_FILES = frozenset({"index"})
_MODULE_FILES_OF = {".py": frozenset({"__init__"}), ".pyi": frozenset({"__init__"}),
                    ".rs": frozenset({"mod", "lib", "main"}),
                    **dict.fromkeys((".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"), _SCRIPT_FILES)}
_MODULE_FILES = frozenset({"__init__", "index", "mod", "lib", "main"})  # a file of any other language


def module_name(path: str) -> str:
    """Dotted module path for display (`src/webapp/app.py` -> `webapp.app`)."""
    parts = module_parts(path)
    if len(parts) > 1 and parts[0] in ("src", "lib"):
        parts = parts[1:]
    return ".".join(parts)


_DECLARATION_SUFFIXES = (".d.ts", ".d.mts", ".d.cts")  # a TypeScript declaration file: `types.d.ts` is module `types`


def module_parts(path: str) -> list[str]:
    if path.endswith(_DECLARATION_SUFFIXES):
        stem = path[: path.rindex(".d.")]
    else:
        stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    parts = [p for p in stem.split("/") if p]
    suffix = path[len(stem):] if not path.endswith(_DECLARATION_SUFFIXES) else ".ts"
    if len(parts) > 1 and parts[-1] in _MODULE_FILES_OF.get(suffix, _MODULE_FILES):
        parts = parts[:-1]
    return parts


def path_ok(path: str, wanted: str | None) -> bool:
    if not wanted:
        return True
    if any(c in wanted for c in "*?["):
        from fnmatch import fnmatchcase

        return fnmatchcase(path, wanted[2:] if wanted.startswith("./") else wanted)
    wanted = tree_path(wanted)
    return path == wanted or path.startswith(wanted + "/")


def ends_with(parts: list[str], tail: list[str]) -> bool:
    return len(tail) <= len(parts) and parts[len(parts) - len(tail):] == tail


# `#` between a class and its member, as Ruby's and JSDoc's documentation write a method
# (`Rack::Request#params`, `Router#route`); a `#` that starts a part is a JavaScript private name's
_MEMBER_HASH = re.compile(r"(?<=[^.:#])#")
# a file's path as the first part of a pytest node id (`tests/test_app.py::TestApp::test_run[a-1]`)
_PATH_HEAD = re.compile(r"[^:]*/[^:]*|[\w.-]+\.(?:py|pyi|rb|rs|js|jsx|mjs|cjs|ts|tsx|mts|cts|go|java|kt|php|cs"
                        r"|c|h|cc|cpp|hpp|swift|scala)")
_PARAMETERS = re.compile(r"\[[^\]]*\]$")  # a parametrized test's id after its name


def name_parts(query: str) -> list[str]:
    """The parts of a qualified name, `.` or `::` between them (`a.B.c`, `a::B::c`), or `#`
    before a member (`Request#params`); a node id's file path (`tests/test_app.py::test_run`)
    is its module's parts (`tests.test_app.test_run`), its test's parameters dropped. A query
    that is all separators is its own one part."""
    head, sep, rest = query.partition("::")
    if sep and rest and _PATH_HEAD.fullmatch(head):
        return module_parts(head.removeprefix("./")) + name_parts(_PARAMETERS.sub("", rest))
    written = _MEMBER_HASH.sub(".", query)
    return [p for p in written.replace("::", ".").split(".") if p] or [query]


def anchor(sym: Symbol) -> str:
    """The name a definition is imported by: its own at the top of its file, else its
    outermost container's (`Headers` for the method Headers.get)."""
    return sym.container.partition(".")[0] if sym.container else sym.name
