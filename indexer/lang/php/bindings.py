"""What a PHP `use` and namespace bind, as the references and symbol queries ask it
(indexer/lang/bindings.py).

A `use` names the importing file's own names: nothing importing that file sees them, so it
re-exports nothing. Its names of classes, functions and namespaces are case-insensitive (`new
user()` is User, `use App\\Models\\User as U;` then `new u()`), its constants' and variables'
not. The files of a namespace see its names without a `use`, in any case too; its name is
case-insensitive as well (`namespace app\\models;` is App\\Models).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterable, Iterator

from indexer.lang import member_syntax
from indexer.lang.bindings_base import Bindings, SiteSyntax

if TYPE_CHECKING:
    from indexer.model import ImportSpec, Occurrence
    from indexer.store.snapshot import Snapshot

FILE_OWN_IMPORTS = frozenset({"php_use", "php_use_function", "php_use_const"})
ANY_CASE_IMPORTS = frozenset({"php_use", "php_use_function"})
# a statement's or a parameter's start on a line: the modifiers of what is declared in it follow
_STATEMENT_START = re.compile(r"[;{}(),]")


def last_part(spec: str) -> str:
    """The name an import path ends with: `User` of App\\Models\\User and of App.Models.User."""
    return spec.replace("\\", ".").rpartition(".")[2]


class PhpBindings(Bindings):
    language = "php"
    any_case_kinds = frozenset({"class", "interface", "trait", "enum", "function"})

    def site_syntax(self, line: bytes, col: int, name: str) -> SiteSyntax | None:
        return member_syntax.php(line, col, name)

    def file_own(self, spec: ImportSpec) -> bool:
        return spec.kind in FILE_OWN_IMPORTS

    def any_case(self, spec: ImportSpec) -> bool:
        return spec.kind in ANY_CASE_IMPORTS

    def binds(self, spec: ImportSpec) -> Iterable[tuple[str, str]]:
        """`use A\\B as C;` binds B as C; an unrenamed `use` binds nothing the references ask."""
        if self.file_own(spec):
            return ((last_part(spec.spec), spec.aliases[0]),) if spec.aliases else ()
        return super().binds(spec)

    def local_names(self, snap: Snapshot, spec: ImportSpec, target: str, name: str) -> Iterator[str]:
        """A class or function imports under its alias or its own name, matched in any case."""
        if not self.any_case(spec):
            yield from super().local_names(snap, spec, target, name)
            return
        last = last_part(spec.spec)
        if last.lower() == name.lower():
            yield spec.aliases[0] if spec.aliases else last

    def public_basis(self, parts: list[str], kind: str, signature: str) -> str | None:
        """Public unless declared `private` or `protected`: `public` is a PHP member's default
        (`function run()`, `var $x`, a class's `const`), and a class, interface, trait, enum,
        function or constant of a namespace has no visibility of its own."""
        # the words before the name's first place on the line, back to its statement's or
        # parameter's start (`final public function run(`, `__construct(private int $x`)
        named = re.search(r"(?<![\w$])\$?" + re.escape(parts[-1]) + r"\b", signature) if parts else None
        words = _STATEMENT_START.split(signature[:named.start()] if named else signature)[-1].lower().split()
        if "private" in words or "protected" in words:
            return None
        return "php:public" if "public" in words else "php:public_by_default"

    def package_of(self, snap: Snapshot, path: str) -> tuple[str, ...] | None:
        """The file's (first) namespace, in which an unqualified class name is the namespace's
        own (`new Stream(...)` in GuzzleHttp\\Psr7\\Utils.php)."""
        facts = snap.core_facts(path)
        if not facts or not facts.package_name:
            return None
        return (self.language, facts.package_name.lower())

    def case_free_sites(self, snap: Snapshot, path: str, sites: list[Occurrence]) -> list[Occurrence]:
        """The `sites` that may name a class or function: not a definition (a method `user` is
        no use of a class User), a variable (`$u`, `self::$u`), a property (`$this->u`) or a
        class's constant or method (`Events::COMMAND`), which PHP matches case-sensitively or
        which are another thing of the name. An occurrence does not say which it is: the line's
        text before it does (the file read only when there are sites)."""
        sites = [o for o in sites if o.role != "definition"]
        if not sites:
            return sites
        rows = snap.blob_bytes(path).split(b"\n")
        return [o for o in sites if 0 < o.line <= len(rows)
                and not rows[o.line - 1][:o.col].rstrip().endswith((b"$", b"->", b"::"))]
