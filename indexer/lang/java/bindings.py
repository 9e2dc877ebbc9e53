"""What Java's packages bind, as the references and symbol queries ask it (indexer/lang/bindings.py):
the files of a package declaration see each other's top-level names without an import."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from indexer.lang import member_syntax
from indexer.lang.bindings_base import Bindings, SiteSyntax, public_modifier

if TYPE_CHECKING:
    from indexer.store.snapshot import Snapshot


# A declared type as written before a variable's name: qualified or not, type arguments aside
# (`Map.Entry<K, V> e`); an array's (`Foo[] xs`) is no instance of the class, so not read.
_DECLARED = rb"(?<![\w$.])((?:[A-Za-z_$][\w$]*\.)*[A-Z][\w$]*)(?:\s*<[^;=(){}]*>)?\s+"


_FIELD = re.compile(_DECLARED + rb"[A-Za-z_$][\w$]*\s*(?:[=;,]|$)")
_RESULT = re.compile(_DECLARED + rb"[A-Za-z_$][\w$]*\s*\(")


@lru_cache(maxsize=4096)
def _typings(name: str) -> list[re.Pattern[bytes]]:
    """`JavaBindings.typings`, compiled once for each name: a query asks them of every file."""
    n = re.escape(name.encode())
    return [re.compile(_DECLARED + n + rb"\s*(?:[=;,):]|$)"),
            re.compile(rb"\bvar\s+" + n + rb"\s*=\s*new\s+((?:[A-Za-z_$][\w$]*\.)*[A-Z][\w$]*)\s*[<(]")]


class JavaBindings(Bindings):
    language = "java"
    implicit_self = True

    def site_syntax(self, line: bytes, col: int, name: str) -> SiteSyntax | None:
        return member_syntax.dotted(line, col, name, member_syntax.JAVA_SPECIALS, named_arguments=False)

    def typings(self, name: str) -> list[re.Pattern[bytes]]:
        """A declaration of `name`, its type before it: a local or a field (`CordovaPlugin plugin =
        ...;`, `private PluginManager pluginManager;`), a parameter (`(String a, CallbackContext
        cb)`), an enhanced-for or catch variable (`for (Entry e : xs)`), a pattern (`o instanceof
        Foo f`); and `var x = new Foo(...)`, the type it makes. The type as written, qualified or
        not (`SSLStreams.InputStream`, `java.io.InputStream`)."""
        return _typings(name)

    def field_type(self, signature: str) -> str | None:
        """`private final PluginManager pluginManager;`, `protected CordovaInterface cordova = null;`:
        the type a field's declaration line names before the field (the first declared there)."""
        found = _FIELD.search(signature.encode())
        return found.group(1).decode() if found is not None else None

    def result_type(self, signature: str) -> str | None:
        """`public PluginManager getPluginManager() {`, `Demand demand();`: the type a method's
        declaration line names before its name, as written; none for `void`, a primitive, an
        array, or a line that does not hold it (`public <T> HttpResponse<T>` over a line break)."""
        found = _RESULT.search(signature.encode())
        return found.group(1).decode() if found is not None else None

    def public_basis(self, parts: list[str], kind: str, signature: str) -> str | None:
        return public_modifier(self.language, kind, signature, interface_members=True)

    def package_of(self, snap: Snapshot, path: str) -> tuple[str, ...] | None:
        facts = snap.core_facts(path)
        if not facts or not facts.package_name:
            return None
        return (self.language, facts.package_name)
