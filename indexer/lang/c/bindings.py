"""What a C or C++ `#include` binds, as the references and symbol queries ask it
(indexer/lang/bindings.py): it names nothing, but a header passes on to its includers all it
includes (a .c file including python-zstandard.h, which includes zstd.h, sees ZSTD_isError)."""

from __future__ import annotations

from indexer.lang import member_syntax
from indexer.lang.bindings_base import Bindings, SiteSyntax

INCLUDES = frozenset({"c_include", "c_system_include"})
# C and C++ files compiled on their own: including one is rare, and nothing includes what they
# include through them
SOURCES = (".c", ".cc", ".cpp", ".cxx", ".c++", ".m", ".mm")


class CBindings(Bindings):
    language = "c"

    def public_basis(self, parts: list[str], kind: str, signature: str) -> str | None:
        """A `static` definition has internal linkage; otherwise the default rule."""
        if signature.lstrip().startswith("static"):
            return None
        return super().public_basis(parts, kind, signature)

    def includes(self, edge_kind: str) -> bool:
        return edge_kind in INCLUDES

    def relays_includes(self, path: str) -> bool:
        return not path.endswith(SOURCES)


class CppBindings(CBindings):
    """C++: C's includes, and members reached through `this->` and a class's scope."""

    language = "cpp"
    implicit_self = True

    def site_syntax(self, line: bytes, col: int, name: str) -> SiteSyntax | None:
        return member_syntax.cpp(line, col, name)
