"""What Java's packages bind, as the references and symbol queries ask it (indexer/lang/bindings.py):
the files of a package declaration see each other's top-level names without an import."""

from __future__ import annotations

from typing import TYPE_CHECKING

from indexer.lang import member_syntax
from indexer.lang.bindings_base import Bindings, SiteSyntax, public_modifier

if TYPE_CHECKING:
    from indexer.store.snapshot import Snapshot


class JavaBindings(Bindings):
    language = "java"
    implicit_self = True

    def site_syntax(self, line: bytes, col: int, name: str) -> SiteSyntax | None:
        return member_syntax.dotted(line, col, name, member_syntax.JAVA_SPECIALS, named_arguments=False)

    def public_basis(self, parts: list[str], kind: str, signature: str) -> str | None:
        return public_modifier(self.language, kind, signature, interface_members=True)

    def package_of(self, snap: Snapshot, path: str) -> tuple[str, ...] | None:
        facts = snap.core_facts(path)
        if not facts or not facts.package_name:
            return None
        return (self.language, facts.package_name)
