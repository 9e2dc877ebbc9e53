"""How a site is written in the languages whose members are reached through `this` and the
class's own scope (Java, C#, PHP, Ruby, C++), read from its source line as Python's sites are
(`Bindings.site_syntax`). The receivers that name the enclosing class are given as `THIS`
(`this.`, `$this->`, `self::`, `static::`, Ruby's `self.`, `this->`) and its bases as `SUPER`
(`super.`, C#'s `base.`, `parent::`): spellings no identifier has, so no variable of the same
name is taken for them."""

from __future__ import annotations

import re

from indexer.lang.bindings_base import (
    NAME_FIRST,
    NAME_REST,
    NAMES,
    SCRIPT_NAMES,
    UPPER,
    SiteSyntax,
    blank_end,
    name_before,
)

THIS = "<this>"
SUPER = "<super>"
SELF_CLASS = "<self.class>"  # Ruby's `self.class`: the class's own, as `self` is, but no instance's attribute

# Each reading below finds what a search of the site's line before it for a pattern anchored
# at its end would (the pattern in its comment), read back from the end: such a search tries
# every byte of the line and backtracks through a long name at each.


def _name_start(text: bytes, end: int) -> int | None:
    """An identifier's start (`[A-Za-z_]\\w*`) ending at `end`: the first letter or underscore
    of the word before `end` (`name_before`)."""
    return name_before(text, end, NAME_FIRST, NAME_REST)


def _made_type(before: bytes) -> bytes | None:
    """`(?<![\\w.])new[ \\t]+(NAMES)[ \\t]*(?:<[^()]*>)?[ \\t]*\\([^()]*\\)[ \\t]*\\??\\.$`: the
    dotted type of a `new Type(...)` (its arguments without parentheses) the text ends with."""
    end = len(before) - 1  # the final `.`
    end = blank_end(before, end - 1 if before[end - 1:end] == b"?" else end)
    if before[end - 1:end] != b")":
        return None
    opened = before.rfind(b"(", 0, end - 1)
    if opened < 0 or before.rfind(b")", 0, end - 1) > opened:
        return None
    end = blank_end(before, opened)
    ends = [end]
    if before[end - 1:end] == b">":  # type arguments: the leftmost `<` after a `new` that makes a type
        since = max(before.rfind(b"(", 0, end), before.rfind(b")", 0, end)) + 1
        ends = [blank_end(before, i) for i in range(since, end - 1) if before[i] == 0x3C]
    for e in ends:
        start = NAMES.start(before, e)  # the type a `new` makes (`new a.b.T<X>(...).`)
        if start is None:
            continue
        keyword = blank_end(before, start)
        if keyword < start and before.endswith(b"new", 0, keyword) and (
                keyword == 3 or not (before[keyword - 4] in NAME_REST or before[keyword - 4] == 0x2E)):
            return before[start:e]
    return None


def _php_scope(before: bytes) -> tuple[int, bytes] | None:
    """`(\\\\?[A-Za-z_][\\w\\\\]*)[ \\t]*::$`: (where it starts, the class a `Type::` names)."""
    end = blank_end(before, len(before) - 2)
    j = end
    while j > 0 and (before[j - 1] in NAME_REST or before[j - 1] == 0x5C):
        j -= 1
    for k in range(j, end):
        if before[k] in NAME_FIRST or (before[k] == 0x5C and k + 1 < end and before[k + 1] in NAME_FIRST):
            return k, before[k:end]
    return None


def _word_start(text: bytes, end: int) -> int:
    """Where the run of word bytes (`\\w`) ending at `end` starts."""
    while end > 0 and text[end - 1] in NAME_REST:
        end -= 1
    return end


def _ruby_names(before: bytes, end: int) -> int | None:
    """`(?:::)?[A-Za-z_]\\w*(?:::[A-Z]\\w*)*` ending at `end`: where the leftmost such run starts
    (a constant path's parts after its first capitalized)."""
    j = _word_start(before, end)
    k = name_before(before, end, NAME_FIRST, NAME_REST)
    if k is None:
        return None
    while k == j and before.endswith(b"::", 0, j):
        if before[j] not in UPPER:
            return j - 2  # `::name`, the path's first part
        e = j - 2
        j = _word_start(before, e)
        earlier = name_before(before, e, NAME_FIRST, NAME_REST)
        if earlier is None:
            return e
        k = earlier
    return k


def _ruby_receiver(before: bytes) -> tuple[int, bytes] | None:
    """`((?:::)?[A-Za-z_]\\w*(?:::[A-Z]\\w*)*)[ \\t]*&?\\.$`: (where it starts, the receiver)."""
    end = len(before) - 1
    end = blank_end(before, end - 1 if before[end - 1:end] == b"&" else end)
    start = _ruby_names(before, end)
    return (start, before[start:end]) if start is not None else None


def _ruby_scope(before: bytes) -> bytes | None:
    """`((?:::)?[A-Z]\\w*(?:::[A-Z]\\w*)*)[ \\t]*::$`'s last part: the constant a `A::B::`
    ends with."""
    end = blank_end(before, len(before) - 2)
    k = next((k for k in range(_word_start(before, end), end) if before[k] in UPPER), None)
    return before[k:end] if k is not None else None


def _cpp_scope(before: bytes) -> bytes | None:
    """`([A-Za-z_]\\w*)[ \\t]*(?:<[^<>;]*>)?[ \\t]*::$`: the class or namespace a `Type::` (or
    `Type<T>::`) names."""
    end = blank_end(before, len(before) - 2)
    if before[end - 1:end] == b">":
        opened = max(before.rfind(b"<", 0, end - 1), before.rfind(b">", 0, end - 1), before.rfind(b";", 0, end - 1))
        if opened < 0 or before[opened] != 0x3C:
            return None
        end = blank_end(before, opened)
    start = _name_start(before, end)
    return before[start:end] if start is not None else None


def _cpp_member(before: bytes) -> bytes | None:
    """`([A-Za-z_]\\w*)[ \\t]*(?:->|\\.)$`: the name before a `.` or `->`."""
    end = blank_end(before, len(before) - (2 if before.endswith(b"->") else 1))
    start = _name_start(before, end)
    return before[start:end] if start is not None else None


_PHP_VARIABLE = re.compile(rb"\$([A-Za-z_]\w*)[ \t]*\??->$")  # tried at each `$` alone: no read back needed
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
        made = _made_type(before)
        if made is not None:  # `new Till().open()`: an instance of the class
            return SiteSyntax("attribute", tuple(p.strip().decode() for p in made.split(b".")), True)
        if _untyped_call(before):
            return SiteSyntax("attribute")
        found = SCRIPT_NAMES.search(before[:-2] + b"." if before.endswith(b"?.") else before)
        # a `)` right before the names closes a cast or a statement's header (`(Foo) x.name`,
        # `if (ok) x.name`), never a call the names continue: they are the receiver still
        if found is None or before[:found[0]].rstrip().endswith((b".", b"]")):
            return SiteSyntax("attribute")
        parts = [p.strip() for p in found[1].split(b".")]
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
        found = _PHP_VARIABLE.search(before)
        if found is not None and found.group(1) == b"this" and not before[:found.start()].rstrip().endswith(b"->"):
            return SiteSyntax("attribute", (THIS,))
        return SiteSyntax("attribute")
    if before.endswith(b"::"):
        named = _php_scope(before)
        if named is None or before[:named[0]].endswith(b"$"):
            return SiteSyntax("attribute")
        scope = named[1].lower()
        if scope in (b"self", b"static"):
            return SiteSyntax("attribute", (THIS,))
        if scope == b"parent":
            return SiteSyntax("attribute", (SUPER,))
        return SiteSyntax("attribute", (named[1].rsplit(b"\\", 1)[-1].decode(),))
    if _named_argument(line, col, name, before):
        return SiteSyntax("keyword")
    return SiteSyntax("bare")


def _ruby_self_class(before: bytes) -> bool:
    """`(?<![\\w.:@$])self[ \\t]*\\.[ \\t]*class[ \\t]*(?:\\.|::)$`: the class of `self`."""
    end = blank_end(before, len(before) - (2 if before.endswith(b"::") else 1))
    if not before.endswith(b"class", 0, end):
        return False
    dot = blank_end(before, end - 5)
    if before[dot - 1:dot] != b".":
        return False
    start = blank_end(before, dot - 1)
    return before.endswith(b"self", 0, start) and (
        start == 4 or not (before[start - 5] in NAME_REST or before[start - 5] in b".:@$"))


def ruby(line: bytes, col: int, name: str) -> SiteSyntax:
    """`self.name` and `self.class.name` the class's own (Ruby's singleton methods are its
    members too); `Type.name` and `Type::name` the class or module `Type`'s (a constant path's
    last part); `x.name` on a variable of an untyped receiver."""
    before = line[:col].rstrip()
    if before.endswith((b".", b"::")) and _ruby_self_class(before):
        return SiteSyntax("attribute", (SELF_CLASS,))
    if before.endswith(b"::"):
        constant = _ruby_scope(before)
        return SiteSyntax("attribute", (constant.decode(),)) if constant is not None else SiteSyntax("attribute")
    if before.endswith(b"."):
        if _untyped_call(before):
            return SiteSyntax("attribute")
        read = _ruby_receiver(before)
        if read is None or before[:read[0]].rstrip().endswith((b".", b")", b"]")):
            return SiteSyntax("attribute")
        receiver = read[1]
        if receiver == b"self":
            return SiteSyntax("attribute", (THIS,))
        return SiteSyntax("attribute", (receiver.rsplit(b"::", 1)[-1].decode(),))
    return SiteSyntax("bare")


def cpp(line: bytes, col: int, name: str) -> SiteSyntax:
    """`this->name` the class's own; `Type::name` (template arguments aside) the class or
    namespace `Type`'s; `x.name` and `x->name` of an untyped receiver."""
    before = line[:col].rstrip()
    if before.endswith(b"::"):
        scope = _cpp_scope(before)
        return SiteSyntax("attribute", (scope.decode(),)) if scope is not None else SiteSyntax("bare")
    if before.endswith((b"->", b".")) and not before.endswith(b"..."):
        if _cpp_member(before) == b"this" and before.endswith(b"->"):
            return SiteSyntax("attribute", (THIS,))
        return SiteSyntax("attribute")
    return SiteSyntax("bare")


JAVA_SPECIALS = _SPECIAL
CSHARP_SPECIALS = {b"this": THIS, b"base": SUPER}
