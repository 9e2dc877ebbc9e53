"""What a JavaScript or TypeScript type annotation names: the one class it is (`named_type`),
the named types of an intersection (`intersected`), or the element of a standard container
it declares (`Map<K, V>`, `T[]`, `Array<T>`, `ReadonlyArray<T>`, `Set<T>`, `ReadonlySet<T>`),
and the syntax that takes an element out of a container: `map.get(k)!.`, `arr[i].`, a
callback passed directly to `arr.forEach(...)`. The element is read only where the
container's type is written: the type arguments say what `get`, a subscript or a callback's
parameter is, and nothing else is inferred. Also the syntax of the values whose types those
annotations decide: a conditional of dotted names (`branches`), the call an object literal is
an argument of (`argument_of`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from indexer.lang.bindings_base import (
    NAME_REST,
    SCRIPT_FIRST,
    SCRIPT_REST,
    DottedTail,
    blank_end,
    dotted_names,
    opening_bracket,
)

IDENT = rb"[A-Za-z_$][\w$]*"
# types with no member of their own a class's method could be (a boolean's are Object's: `OBJECT`):
# a union of a class with them is the class where it has a member of the name
_NO_MEMBERS = frozenset({b"undefined", b"null", b"void", b"never", b"boolean", b"true", b"false"})
_KEYWORD_TYPES = frozenset({b"any", b"unknown", b"object", b"string", b"number", b"bigint", b"symbol", b"this",
                            b"typeof", b"keyof"})
_OPEN = b"([{<"
_CLOSE = b")]}>"
# the standard containers and the number of their type arguments: the element is the last
_ARITY = {"Array": 1, "ReadonlyArray": 1, "Set": 1, "ReadonlySet": 1, "Map": 2}
_ARRAYS = frozenset({"Array", "ReadonlyArray"})
_SETS = frozenset({"Set", "ReadonlySet"})
# the array methods whose callback's first parameter (`reduce`'s second) is an element
_ARRAY_CALLBACKS = ("forEach", "map", "filter", "some", "every", "find", "findIndex", "flatMap", "reduce")


def named_type(text: bytes) -> str | None:
    """The one class a type annotation names (`Foo`, `ns.Foo<K, V>`, `Foo | undefined`,
    `Foo | boolean`), the text starting at the type and running on past it; None for any other
    type (`any`, `Foo[]`, `A | B`, an object or function type)."""
    end = type_end(text)
    names = []
    for part in _split(text[:end], b"|"):
        part = part.strip()
        if not part or part in _NO_MEMBERS or part[:1] in (b"'", b'"', b"`") or part[:1].isdigit():
            continue
        m = re.fullmatch(rb"(?:" + IDENT + rb"\s*\.\s*)*(" + IDENT + rb")\s*(?:<.*>)?", part, re.S)
        if m is None or m.group(1) in _KEYWORD_TYPES:
            return None
        names.append(m.group(1).decode())
    return names[0] if len(names) == 1 else None


def type_end(text: bytes) -> int:
    """Where a type written at the start of `text` ends: the first `,`, `)`, `;`, `=` (not
    `=>`) or `{` outside brackets, or a closing bracket it did not open."""
    depth = 0
    for i, ch in enumerate(text):
        c = bytes([ch])
        if c in (b"(", b"[", b"<") or (c == b"{" and depth):
            depth += 1
        elif c in (b")", b"]", b">", b"}") and not (c == b">" and text[i - 1:i] == b"="):
            if depth == 0:
                return i
            depth -= 1
        elif depth == 0 and (c in (b",", b";", b"{") or (c == b"=" and text[i + 1:i + 2] != b">")):
            return i
    return len(text)


def _split(text: bytes, sep: bytes) -> list[bytes]:
    """`text` split at each `sep` outside brackets (a union's `|`, a list's `,`)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        c = bytes([ch])
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE and not (c == b">" and text[i - 1:i] == b"="):
            depth -= 1
        elif c == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def intersected(text: bytes) -> tuple[str, ...] | None:
    """The named types of an intersection (`A & B<T> & ns.C`), the text starting at the type
    and running on past it; None for any other type, or one with a part no name (`{ m(): void }
    & A`, `A[] & B`), whose members a class's could be."""
    end = type_end(text)
    parts = _split(text[:end], b"&")
    if len(parts) < 2:
        return None
    names = []
    for part in parts:
        m = re.fullmatch(rb"\s*(?:" + IDENT + rb"\s*\.\s*)*(" + IDENT + rb")\s*(?:<.*>)?\s*", part, re.S)
        if m is None or m.group(1) in _KEYWORD_TYPES or m.group(1) in _NO_MEMBERS:
            return None
        names.append(m.group(1).decode())
    return tuple(names)


INTERSECTION = " & "  # how a `Declared` type names an intersection's parts


# What a binding's annotation gives a receiver: (the class, the type as written), or None.
Reader = Callable[[bytes], tuple[str, str] | None]


def named(text: bytes) -> tuple[str, str] | None:
    """The receiver is the one class the annotation names (`named_type`), or the intersection
    of named types it is (`A & B`: `intersected`)."""
    typed = named_type(text)
    if typed:
        return typed, typed
    parts = intersected(text)
    return (INTERSECTION.join(parts), INTERSECTION.join(parts)) if parts else None


def _container(written: bytes) -> tuple[str, list[bytes]] | None:
    """(the standard container, its type arguments) a type is: `T[]` an Array of T,
    `readonly T[]` a ReadonlyArray, `Map<K, V>` a Map of K and V."""
    readonly = re.match(rb"readonly\s+", written)
    text = written[readonly.end():] if readonly else written
    if text.endswith(b"]"):
        m = re.fullmatch(rb"(.+)\[\s*\]", text, re.S)
        return ("ReadonlyArray" if readonly else "Array", [m.group(1)]) if m else None
    m = re.fullmatch(rb"(" + IDENT + rb")\s*<(.*)>", text, re.S)
    if readonly or m is None:
        return None
    return m.group(1).decode(), _split(m.group(2), b",")


@dataclass(frozen=True)
class Elements:
    """The receiver is an element of the container the annotation declares, when the
    container is one of `kinds` (or it with `undefined`, `null`: `undefined | Map<K, V>`) and
    its element (its last type argument) names one class."""

    kinds: frozenset[str]

    def __call__(self, text: bytes) -> tuple[str, str] | None:
        text = re.sub(rb"//[^\n]*", b"", text)  # a field's comment after its type
        written = text[:type_end(text)].strip()
        parts = [p.strip() for p in _split(written, b"|") if p.strip() not in (b"undefined", b"null")]
        found = _container(parts[0]) if len(parts) == 1 else None
        if found is None or found[0] not in self.kinds or len(found[1]) != _ARITY[found[0]]:
            return None
        typed = named_type(found[1][-1])
        return (typed, written.decode()) if typed else None


MAP_VALUE = Elements(frozenset({"Map"}))
INDEXED = Elements(_ARRAYS)
ITERATED = Elements(_ARRAYS | _SETS)  # `for (const x of c)`: a Map's would be its [K, V] pairs
CALLBACKS: dict[str, Elements] = {m: INDEXED for m in _ARRAY_CALLBACKS} | {
    "forEach": Elements(_ARRAYS | _SETS | {"Map"})}  # a Set's and a Map's callbacks: forEach's only


_BLANKS = frozenset(b" \t\n\r\f\v")
# dotted names of identifiers (`IDENT`) between any blanks, read back from a text's end
DOTTED = DottedTail(SCRIPT_FIRST, SCRIPT_REST, blanks=b" \t\n\r\f\v")


def _dotted_at_end(text: bytes, end: int | None = None) -> tuple[str, ...] | None:
    """The dotted names `text` ends with (`this.data_`, `observers`), or its first `end`
    bytes, when they are the whole expression there, not a part of a call's result or a
    subscript's (`f().data_`)."""
    end = blank_end(text, len(text) if end is None else end, _BLANKS)
    start = DOTTED.start(text, end)
    if start is None:
        return None
    before = blank_end(text, start, _BLANKS)
    if text.endswith((b".", b")", b"]", b"}", b"!", b"'", b'"', b"`"), 0, before) or (
            text.endswith(b"new", 0, before) and not (before > 3 and text[before - 4] in NAME_REST)):  # `\bnew$`
        return None
    return dotted_names(text[start:end])


class Taken(NamedTuple):
    """An element taken out of a container the dotted names hold: how (`get(...)`, `[...]`,
    a callback's parameter) and the reader of the container's declared type."""

    container: tuple[str, ...]
    how: str
    read: Elements


def element_before(before: bytes) -> Taken | None:
    """The element a site's receiver is, from the text before the site on its line: a Map's
    value `map.get(k).`, `map.get(k)!.`, `map.get(k)?.`, or an array's `arr[i].`, of dotted
    names; None for any other receiver."""
    text = before.rstrip()
    text = text[:-2] if text.endswith(b"?.") else text[:-1] if text.endswith(b".") else b""
    text = text.rstrip().removesuffix(b"!").rstrip()
    if not text.endswith((b")", b"]")):
        return None
    opened = opening_bracket(text, len(text) - 1, b"()[]{}")
    if opened is None:
        return None
    if text.endswith(b")"):
        get = re.search(rb"\??\.\s*get\s*$", text[:opened])
        if get is None:
            return None
        held, how, read = text[:get.start()], ".get(...)", MAP_VALUE
    else:
        held, how, read = text[:opened], "[...]", INDEXED
    names = _dotted_at_end(held.rstrip().removesuffix(b"!"))  # `this.map_!.get(k)`: the container all the same
    return Taken(names, how, read) if names else None


# `c.forEach(` (`map`, ...), then the callback written in place: its parameters, of a function,
# an arrow's in parentheses or an arrow's one
_CALLED = re.compile(rb"\??\.\s*(" + "|".join(_ARRAY_CALLBACKS).encode() + rb")\s*(?=\()")
_CALLBACK = re.compile(rb"\(\s*(?:async\s+)?(?:function\b\s*[\w$]*\s*\(([^()]*)\)|\(([^()]*)\)\s*(?::[^=]*)?=>|("
                       + IDENT + rb")\s*=>)")


def _callbacks(text: bytes) -> Iterator[tuple[int, int, str, bytes]]:
    """(where the container's dotted names start, and end, the method, the callback's
    parameters) of each `names.forEach(callback)` of the text in turn, as a search for the
    whole pattern (`(IDENT(?:\\s*\\.\\s*IDENT)*)\\s*\\??\\.` before `_CALLED` and `_CALLBACK`) finds
    them, the names read back from each method's dot: searched whole, the pattern read a long
    chain of names again from each of its names."""
    done = 0
    for called in _CALLED.finditer(text):
        end = blank_end(text, called.start(), _BLANKS)
        start = DOTTED.start(text, end)
        written = _CALLBACK.match(text, called.end()) if start is not None and start >= done else None
        if start is None or written is None:
            continue
        params = next(g for g in written.groups() if g is not None)
        yield start, end, called.group(1).decode(), params
        done = written.end()


def callback_of(text: bytes, name: str) -> Taken | None:
    """The container whose element the name is on this line: the parameter `name`, the
    element's place (`reduce`'s second, any other method's first) and unannotated, of an arrow
    or function passed directly to `c.forEach(...)` (`map`, `filter`, ...) of dotted names
    `c`; None when the line's callback binds it otherwise or no callback binds it."""
    for _, end, method, params in _callbacks(text):
        parts = [p.strip() for p in _split(params, b",")]
        binding = [i for i, p in enumerate(parts) if re.match(re.escape(name.encode()) + rb"(?![\w$])", p)]
        if not binding:
            continue
        at = 1 if method == "reduce" else 0
        names = _dotted_at_end(text, end)
        if binding != [at] or parts[at] != name.encode() or not names:
            return None  # another parameter, one annotated or with a default, or of no dotted names
        return Taken(names, f"`{name}` of `{'.'.join(names)}.{method}(...)`", CALLBACKS[method])
    return None


def iterated_by(after: bytes) -> tuple[str, ...] | None:
    """The dotted names a `for (const x of c)` iterates, from the text after `x`."""
    m = re.match(rb"\s*of\s+(" + IDENT + rb"(?:\s*\.\s*" + IDENT + rb")*)\s*\)", after)
    return dotted_names(m.group(1)) if m else None


_DOTTED = re.compile(rb"\s*(" + IDENT + rb"(?:\s*\.\s*" + IDENT + rb")*)\s*")


def branches(text: bytes) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The dotted names of the two values of the conditional expression that is the whole of
    `text` (`c ? flow.bound : flow`); None for any other expression (a nested conditional, a
    string in it), or a value that is no dotted names."""
    depth = 0
    asked = colon = None
    i = 0
    while i < len(text):
        c = text[i:i + 1]
        if c in (b"'", b'"', b"`"):
            return None  # a string's `?` or `:` would be read as the operator's
        if c in (b"(", b"[", b"{"):
            depth += 1
        elif c in (b")", b"]", b"}"):
            depth -= 1
        elif depth == 0 and c == b"?":
            if text[i + 1:i + 2] in (b".", b"?"):  # `a?.b`, `a ?? b`
                i += 2
                continue
            if asked is not None:
                return None
            asked = i
        elif depth == 0 and c == b":":
            if asked is None or colon is not None:
                return None  # no conditional's, or a nested one's
            colon = i
        i += 1
    if asked is None or colon is None or depth != 0:
        return None
    values = []
    for value in (text[asked + 1:colon], text[colon + 1:]):
        m = _DOTTED.fullmatch(value)
        if m is None:
            return None
        values.append(dotted_names(m.group(1)))
    return values[0], values[1]


def parameters(text: bytes) -> list[bytes]:
    """A parameter list's parameters (or an argument list's arguments), split at the commas
    outside brackets; none for an empty list."""
    return [] if not text.strip() else _split(text, b",")


# the words before a parenthesis that opens no call's arguments
_NO_CALL = frozenset({b"if", b"for", b"while", b"switch", b"catch", b"with", b"function", b"return", b"typeof", b"await",
                      b"void", b"yield", b"case", b"in", b"of", b"new", b"delete", b"throw", b"else", b"do"})


def argument_of(before: bytes) -> tuple[str, int] | None:
    """(the function, the argument's place from 0) where an object literal opening after the
    text `before` on its line is an argument of a call of a bare name (`wrap({`, `wrap(a, {`,
    `wrap<T>({`); None otherwise (a method's call, `new`, an argument list begun on a line
    above)."""
    text = before.rstrip()
    if not text.endswith((b"(", b",")):
        return None
    opened = opening_bracket(text + b")", len(text), b"()[]{}")
    if opened is None:
        return None
    head = text[:opened].rstrip()
    if head.endswith(b">"):  # type arguments: `wrap<T>(`
        lt = opening_bracket(head, len(head) - 1, b"<>")
        head = head[:lt].rstrip() if lt is not None else b""
    m = re.search(rb"(?<![\w$.])(" + IDENT + rb")$", head)
    if m is None or m.group(1) in _NO_CALL or re.search(rb"\b(?:new|function)\s*\*?\s*$", head[:m.start()]):
        return None
    return m.group(1).decode(), len(parameters(text[opened + 1:] + b"x")) - 1
