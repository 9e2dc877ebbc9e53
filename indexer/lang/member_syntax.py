"""How a site is written in the languages whose members are reached through `this` and the
class's own scope (Java, C#, PHP, Ruby, C++), read from its source line as Python's sites are
(`Bindings.site_syntax`). The receivers that name the enclosing class are given as `THIS`
(`this.`, `$this->`, `self::`, `static::`, Ruby's `self.`, `this->`) and its bases as `SUPER`
(`super.`, C#'s `base.`, `parent::`): spellings no identifier has, so no variable of the same
name is taken for them."""

from __future__ import annotations

import re
from functools import cache
from typing import NamedTuple

from indexer.lang.bindings_base import SiteSyntax

THIS = "<this>"
SUPER = "<super>"


class _Patterns(NamedTuple):
    dotted: re.Pattern[bytes]
    new: re.Pattern[bytes]
    php_variable: re.Pattern[bytes]
    php_scope: re.Pattern[bytes]
    ruby_receiver: re.Pattern[bytes]
    ruby_scope: re.Pattern[bytes]
    cpp_scope: re.Pattern[bytes]
    cpp_member: re.Pattern[bytes]


# Compiled when a site is first read: a lookup that shows a definition of these languages
# loads their binding rules (and this module) without reading any site.
@cache
def _patterns() -> _Patterns:
    return _Patterns(
        dotted=re.compile(rb"([A-Za-z_$][\w$]*(?:[ \t]*\.[ \t]*[A-Za-z_$][\w$]*)*)[ \t]*(?:\?)?\.$"),
        # `new a.b.Type<T>(...).`, its arguments on the line with no parenthesis inside
        new=re.compile(rb"(?<![\w.])new[ \t]+([A-Za-z_][\w]*(?:[ \t]*\.[ \t]*[A-Za-z_]\w*)*)[ \t]*(?:<[^()]*>)?[ \t]*"
                       rb"\([^()]*\)[ \t]*\??\.$"),
        php_variable=re.compile(rb"\$([A-Za-z_]\w*)[ \t]*\??->$"),
        php_scope=re.compile(rb"(\\?[A-Za-z_][\w\\]*)[ \t]*::$"),
        ruby_receiver=re.compile(rb"((?:::)?[A-Za-z_]\w*(?:::[A-Z]\w*)*)[ \t]*&?\.$"),
        ruby_scope=re.compile(rb"((?:::)?[A-Z]\w*(?:::[A-Z]\w*)*)[ \t]*::$"),
        cpp_scope=re.compile(rb"([A-Za-z_]\w*)[ \t]*(?:<[^<>;]*>)?[ \t]*::$"),
        cpp_member=re.compile(rb"([A-Za-z_]\w*)[ \t]*(?:->|\.)$"),
    )


_SPECIAL = {b"this": THIS, b"super": SUPER}


def _named_argument(line: bytes, col: int, name: str, before: bytes) -> bool:
    """`f(name: value)` (C#, PHP 8): a named argument, no use of a definition."""
    after = line[col + len(name.encode()):].lstrip()
    return after.startswith(b":") and not after.startswith(b"::") and before.endswith((b"(", b","))


def _untyped_call(before: bytes) -> bool:
    """A receiver that is what a call or a subscript returns (`f().name`, `a[0].name`)."""
    return before.rstrip(b".?->:& \t").endswith((b")", b"]"))


def dotted(line: bytes, col: int, name: str, specials: dict[bytes, str], named_arguments: bool) -> SiteSyntax:
    """Java and C#: `x.name` an attribute of the dotted names before it (`this` and `super`, or
    C#'s `base`, the class's own), of an instance of a class after `new Type(...)`, of nothing
    known after another call; a named argument no site."""
    before = line[:col].rstrip()
    if before.endswith(b"."):
        made = _patterns().new.search(before)
        if made is not None:  # `new Till().open()`: an instance of the class
            return SiteSyntax("attribute", tuple(p.strip().decode() for p in made.group(1).split(b".")), True)
        if _untyped_call(before):
            return SiteSyntax("attribute")
        found = _patterns().dotted.search(before)
        if found is None or before[:found.start()].rstrip().endswith((b".", b")", b"]")):
            return SiteSyntax("attribute")
        parts = [p.strip() for p in found.group(1).split(b".")]
        if len(parts) == 1 and parts[0] in specials:
            return SiteSyntax("attribute", (specials[parts[0]],))
        return SiteSyntax("attribute", tuple(p.decode() for p in parts))
    if named_arguments and _named_argument(line, col, name, before):
        return SiteSyntax("keyword")
    return SiteSyntax("bare")


def php(line: bytes, col: int, name: str) -> SiteSyntax:
    """`$this->name`, `self::name`, `static::name` the class's own, `parent::name` its bases',
    `Type::name` (or `\\A\\Type::name`) the class `Type`'s; `$x->name` of an untyped receiver;
    a named argument and a `$variable` no site (no use of a definition)."""
    before = line[:col].rstrip()
    if line[:col].endswith(b"$"):
        return SiteSyntax("keyword")
    if before.endswith(b"->"):
        found = _patterns().php_variable.search(before)
        if found is not None and found.group(1) == b"this" and not before[:found.start()].rstrip().endswith(b"->"):
            return SiteSyntax("attribute", (THIS,))
        return SiteSyntax("attribute")
    if before.endswith(b"::"):
        found = _patterns().php_scope.search(before)
        if found is None or before[:found.start()].endswith(b"$"):
            return SiteSyntax("attribute")
        scope = found.group(1).lower()
        if scope in (b"self", b"static"):
            return SiteSyntax("attribute", (THIS,))
        if scope == b"parent":
            return SiteSyntax("attribute", (SUPER,))
        return SiteSyntax("attribute", (found.group(1).rsplit(b"\\", 1)[-1].decode(),))
    if _named_argument(line, col, name, before):
        return SiteSyntax("keyword")
    return SiteSyntax("bare")


def ruby(line: bytes, col: int, name: str) -> SiteSyntax:
    """`self.name` the class's own; `Type.name` and `Type::name` the class or module `Type`'s (a
    constant path's last part); `x.name` on a variable of an untyped receiver."""
    before = line[:col].rstrip()
    if before.endswith(b"::"):
        found = _patterns().ruby_scope.search(before)
        return SiteSyntax("attribute", (found.group(1).rsplit(b"::", 1)[-1].decode(),)) if found else SiteSyntax(
            "attribute")
    if before.endswith(b"."):
        if _untyped_call(before):
            return SiteSyntax("attribute")
        found = _patterns().ruby_receiver.search(before)
        if found is None or before[:found.start()].rstrip().endswith((b".", b")", b"]")):
            return SiteSyntax("attribute")
        receiver = found.group(1)
        if receiver == b"self":
            return SiteSyntax("attribute", (THIS,))
        return SiteSyntax("attribute", (receiver.rsplit(b"::", 1)[-1].decode(),))
    return SiteSyntax("bare")


def cpp(line: bytes, col: int, name: str) -> SiteSyntax:
    """`this->name` the class's own; `Type::name` (template arguments aside) the class or
    namespace `Type`'s; `x.name` and `x->name` of an untyped receiver."""
    before = line[:col].rstrip()
    if before.endswith(b"::"):
        found = _patterns().cpp_scope.search(before)
        return SiteSyntax("attribute", (found.group(1).decode(),)) if found else SiteSyntax("bare")
    if before.endswith((b"->", b".")) and not before.endswith(b"..."):
        found = _patterns().cpp_member.search(before)
        if found is not None and found.group(1) == b"this" and before.endswith(b"->"):
            return SiteSyntax("attribute", (THIS,))
        return SiteSyntax("attribute")
    return SiteSyntax("bare")


JAVA_SPECIALS = _SPECIAL
CSHARP_SPECIALS = {b"this": THIS, b"base": SUPER}
