"""Which module-level variables and constants a file exports, by its language's own rule: what
the Repo Map lists beside a file's types and functions.

- Python: the names its `__all__` lists, when it has one (read from the assignment's text);
  else every public name (no leading underscore). `__all__` itself is never listed.
- Go: package-level names that start with an upper-case letter.
- Rust: items declared `pub` (`pub`, `pub(crate)`, ...): `pub static`, `pub const`.
- JavaScript and TypeScript: declarations written with `export` (`export const api = ...`).
- Other languages: module-level constants, as before; their variables are not listed.

Only top-level symbols are judged here; a class's constants are members, listed under it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from indexer.model import Symbol

DATA_KINDS = frozenset({"variable", "constant"})
_ALL_BYTES = 64 << 10  # the most of an `__all__` assignment read: a list of names, not a program
_QUOTED_NAME = re.compile(rb"""["']([A-Za-z_][A-Za-z0-9_]*)["']""")
_EXPORT = re.compile(r"export\s")
_SCRIPT = frozenset({"javascript", "typescript"})


def listed_in_all(symbols: list[Symbol], text: Callable[[], bytes]) -> frozenset[str] | None:
    """The names the `__all__` assignments among `symbols` list (string literals in their text,
    each read up to _ALL_BYTES), or None when the module has no `__all__`."""
    spans = [s for s in symbols if s.name == "__all__" and not s.container]
    if not spans:
        return None
    data = text()
    names: set[str] = set()
    for s in spans:
        piece = data[s.start_byte:min(s.end_byte, s.start_byte + _ALL_BYTES)]
        names.update(m.decode() for m in _QUOTED_NAME.findall(piece))
    return frozenset(names)


def exported(s: Symbol, language: str, all_names: frozenset[str] | None) -> bool:
    """Whether the module-level variable or constant `s` is one its module exports (the
    module's rules above); `all_names` is `listed_in_all` of a Python module."""
    if s.container or s.kind not in DATA_KINDS:
        return False
    name = s.name
    if language == "python":
        if name == "__all__":
            return False
        return name in all_names if all_names is not None else not name.startswith("_")
    if language == "go":
        return name[:1].isupper()
    if language == "rust":
        return s.signature.startswith(("pub ", "pub("))
    if language in _SCRIPT:
        return _EXPORT.match(s.signature) is not None
    return s.kind == "constant"
