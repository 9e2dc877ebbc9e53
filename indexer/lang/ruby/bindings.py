"""What Ruby's nesting binds, as the references and symbol queries ask it (indexer/lang/bindings.py):
constants of `module Rack` are `Request` in every file that opens `module Rack`, as Ruby looks
them up through the nesting."""

from __future__ import annotations

from typing import TYPE_CHECKING

from indexer.lang import member_syntax
from indexer.lang.bindings_base import Bindings, SiteSyntax

if TYPE_CHECKING:
    from indexer.store.snapshot import Snapshot


class RubyBindings(Bindings):
    language = "ruby"
    implicit_self = True

    def site_syntax(self, line: bytes, col: int, name: str) -> SiteSyntax | None:
        return member_syntax.ruby(line, col, name)

    def package_of(self, snap: Snapshot, path: str) -> tuple[str, ...] | None:
        """A Ruby file's outermost module or class (its first): of `class Rack::Lint`, Rack."""
        facts = snap.core_facts(path)
        top = next((s.container.partition(".")[0] or s.name for s in facts.symbols
                    if s.kind in ("module", "class")), None) if facts else None
        return (self.language, top) if top else None
