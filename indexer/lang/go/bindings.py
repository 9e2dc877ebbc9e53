"""What Go's packages bind, as the references and symbol queries ask it (indexer/lang/bindings.py).

A Go package is a folder, not a file, and its name is its package clause's: its files see
each other's top-level names without an import (an external `x_test` package is another
one), and code names it by that name (`cobra.Command` for the root's `package cobra`,
`doc.GenMarkdown` for doc/md_docs.go).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable, Sequence

from indexer.lang.bindings_base import Bindings, SiteSyntax
from indexer.lang.site_lines import c_like

if TYPE_CHECKING:
    from indexer.model import ImportSpec
    from indexer.store.snapshot import Snapshot


class GoBindings(Bindings):
    language = "go"

    def site_syntax(self, line: bytes, col: int, name: str) -> SiteSyntax | None:
        """`pkg.Name` and `x.Name` a selector of what is before the dot, `T{Name: v}` a
        composite literal's key, anything else bare."""
        return c_like(line, col, name, paths=False)

    def typings(self, name: str) -> list[re.Pattern[bytes]]:
        """`x := T{...}`, `x := &pkg.T{...}`, `var x T`, a receiver or parameter `(x *T)`,
        `(a int, x T)`, and a type assertion ending the line, `x := New().(*T)`, `x, ok :=
        v.(pkg.T)` (not a type switch's `.(type)`)."""
        n = re.escape(name.encode())
        t = rb"\*?(?:[A-Za-z_]\w*\.)?([A-Za-z_]\w*)"
        return [re.compile(rb"(?<![\w.])" + n + rb"\s*:?=\s*&?(?:[A-Za-z_]\w*\.)?([A-Za-z_]\w*)\s*\{"),
                re.compile(rb"\bvar\s+" + n + rb"\s+" + t),
                re.compile(rb"[(,]\s*" + n + rb"\s+" + t + rb"\s*[,)]"),
                re.compile(rb"(?<![\w.])" + n + rb"(?:\s*,\s*[A-Za-z_]\w*)?\s*:?=[^=].*\.\(\s*" + t
                           + rb"\s*\)\s*(?://.*)?$")]

    def call_typings(self, name: str) -> list[re.Pattern[bytes]]:
        """`x := New()`, `x, err := pkg.NewRouter(...)`, `x = New()`, `var x = pkg.New()`: the
        first name assigned, the call's package (None for a bare call) and function."""
        n = re.escape(name.encode())
        return [re.compile(rb"(?<![\w.])" + n + rb"(?:\s*,\s*[A-Za-z_]\w*)*\s*:?=\s*(?:([A-Za-z_]\w*)\.)?"
                           rb"([A-Za-z_]\w*)\s*\(")]

    def result_type(self, signature: str) -> str | None:
        """`func New() *Logger {`: Logger; `func Dial(a string) (*Conn, error) {`: Conn;
        `func Make[T any]() pkg.Box[T] {`: Box; a method's too, `func (r *Router) Get(n string)
        *Route {`: Route. A line cut inside its parameters says none."""
        at = 0
        if signature.startswith("func") and signature[4:].lstrip().startswith("("):  # a method's receiver
            at = _closing(signature, signature.index("("), "(", ")")
            if at < 0:
                return None
        head = _NAME.match(signature, at) if at else re.match(r"func\s+[A-Za-z_]\w*\s*", signature)
        if head is None:
            return None
        at = head.end()
        if signature[at:at + 1] == "[":
            at = _closing(signature, at, "[", "]")
        if at < 0 or signature[at:at + 1] != "(":
            return None
        at = _closing(signature, at, "(", ")")
        if at < 0:
            return None
        rest = signature[at:].strip()
        if rest.startswith("("):
            rest = rest[1:].lstrip()
            named = re.match(r"[A-Za-z_]\w*\s+(?=[*\[\w])", rest)  # a named result: `(c *Conn, err error)`
            if named is not None:
                rest = rest[named.end():]
        found = re.match(r"\*?\s*(?:[A-Za-z_]\w*\.)?([A-Za-z_]\w*)", rest)
        return found.group(1) if found is not None and found.group(1) not in ("func", "chan", "map") else None

    def field_type(self, signature: str) -> str | None:
        """`base baseConn`, `a, b *pkg.Conn`, an embedded `*Base` (the field Base):
        the type; `xs []T`, `m map[K]V`, `f func()` none."""
        found = _FIELD.match(signature) or _EMBEDDED.match(signature)
        return found.group(1) if found is not None and found.group(1) not in _NO_FIELD_TYPE else None

    def embedded_type(self, signature: str) -> str | None:
        if _FIELD.match(signature):
            return None
        found = _EMBEDDED.match(signature)
        return found.group(1) if found is not None else None

    def element_type(self, written: str) -> str | None:
        """`[]*Route`, `[4]Route`, `[]pkg.Route`, `map[string]*Route`: Route; a slice of slices,
        a map's key, a channel none."""
        found = _ELEMENTS.fullmatch(written.strip())
        return found.group(1) if found is not None and found.group(1) not in _NO_FIELD_TYPE else None

    def field_elements(self, signature: str) -> str | None:
        found = _FIELD_WRITTEN.match(signature)
        return self.element_type(found.group(1)) if found is not None else None

    def container_typings(self, name: str) -> list[re.Pattern[bytes]]:
        n = re.escape(name.encode())
        t = rb"((?:\[\w*\]|map\[[^\]\[]*\])\s*\*?(?:[A-Za-z_]\w*\.)?[A-Za-z_]\w*)"
        return [re.compile(rb"[(,]\s*" + n + rb"\s+" + t + rb"\s*[,)]"),
                re.compile(rb"\bvar\s+" + n + rb"\s+" + t),
                re.compile(rb"(?<![\w.])" + n + rb"\s*:?=\s*(?:make\(\s*)?" + t + rb"\s*[{,)]")]

    def range_typings(self, name: str) -> list[re.Pattern[bytes]]:
        n = re.escape(name.encode())
        return [re.compile(rb"\bfor\s+[A-Za-z_]\w*\s*,\s*" + n + rb"\s*:?=\s*range\s+"
                           rb"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*\{")]

    def binds_local(self, spec: ImportSpec, local: str) -> bool:
        """An import not known to reach the tree binds its package under its written name, else
        the name its path ends with (`gopkg.in/yaml.v3`, `github.com/go-chi/chi/v5` and
        `github.com/segmentio/kafka-go` are yaml, chi and kafka: bases.bound_name)."""
        from indexer.lang.go.bases import bound_name

        return bound_name(spec, "") == local

    def binds_local_in(self, spec: ImportSpec, local: str, clause: Callable[[], str]) -> bool:
        """An unaliased import binds its package under the package clause of the files it
        reaches, where they agree on one (`package gutils` in internal/go-utils binds
        `gutils`, not the `utils` its path implies), else as `binds_local`; an alias, `.` or
        `_` binds as written, the clause unread."""
        from indexer.lang.go.bases import bound_name

        return bound_name(spec, "" if spec.aliases else clause()) == local

    def package_clause(self, snap: Snapshot, targets: Sequence[str]) -> str:
        """The clause the package's files agree on (bases.import_clause, as bases resolve)."""
        from indexer.lang.go.bases import import_clause

        return import_clause(facts.package_name if facts else "" for facts in map(snap.core_facts, targets))

    def public_basis(self, parts: list[str], kind: str, signature: str) -> str | None:
        return "go:capitalized" if parts[-1][:1].isupper() else None

    def package_of(self, snap: Snapshot, path: str) -> tuple[str, ...] | None:
        facts = snap.core_facts(path)
        if not facts or not facts.package_name:
            return None
        return (self.language, path.rpartition("/")[0], facts.package_name)

    def package_names(self, snap: Snapshot, path: str) -> list[str] | None:
        """The import path's tail, named as imported: the folders, the last one as the package
        clause names it."""
        facts = snap.core_facts(path)
        package = facts.package_name if facts else ""
        folders = [p for p in path.rpartition("/")[0].split("/") if p]
        return folders[:-1] + [package] if package else folders


_NAME = re.compile(r"\s*[A-Za-z_]\w*\s*")  # a method's name after its receiver
_FIELD = re.compile(r"[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*\s+\*?(?:[A-Za-z_]\w*\.)?([A-Za-z_]\w*)(?![\w.\[])")
_EMBEDDED = re.compile(r"\*?(?:[A-Za-z_]\w*\.)?([A-Za-z_]\w*)\s*(?:$|//|`)")
# a field's type as written, after its names (`routes []*Route // the routes`: `[]*Route`)
_FIELD_WRITTEN = re.compile(r"[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*\s+([^\s/`]+)")
# a slice's, an array's or a map's element, a named type (`[]*Route`, `map[string]*pkg.Route`)
_ELEMENTS = re.compile(r"(?:\[\w*\]|map\[[^\]\[]*\])\s*\*?(?:[A-Za-z_]\w*\.)?([A-Za-z_]\w*)")
_NO_FIELD_TYPE = frozenset({"map", "chan", "func", "struct", "interface"})


def _closing(text: str, at: int, opening: str, closing: str) -> int:
    """The index past the bracket closing the one at `at`, -1 when the text does not close it."""
    depth = 0
    for i in range(at, len(text)):
        if text[i] == opening:
            depth += 1
        elif text[i] == closing:
            depth -= 1
            if depth == 0:
                return i + 1
    return -1
