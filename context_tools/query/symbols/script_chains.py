"""The JavaScript and TypeScript syntax the receiver typing of `script_types` reads beyond a
dotted name and a container's element: a receiver reached from a cast or a typed name through
fields and computed keys (`(x as T)[$mobx].f.`, `d[$mobx].`), the member a class declares
under a computed key (`[$mobx]: Reaction`), a declaration's value that copies an element or an
array out of a declared container (`let e = this.map_.get(k)`, `let rs = all.splice(0)`), the
assignments that could change what such a name holds, and a callback passed to a function
whose parameter declares the callback's type (`autorun(r => r.dispose())`). Text alone: what
each names is typed by `ScriptTypes`."""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

from context_tools.query.symbols.script_annotations import IDENT, argument_of, parameters, type_end
from indexer.lang.bindings_base import (
    SCRIPT_FIRST,
    SCRIPT_REST,
    closing_bracket,
    dotted_names,
    name_before,
    opening_bracket,
)

# the array methods that return an array of the same elements (`filter` only with a callback
# written in place, which is no type predicate: `filter(isSub)` may narrow the element)
SAME_ELEMENTS = frozenset({"splice", "slice", "filter", "concat", "reverse", "sort"})
# what the line after a statement starts with where the statement runs on to it
_CONTINUES = re.compile(rb"\s*(?:[.?:\[(+\-*/%&|^<>=,`]|(?:as|satisfies|instanceof|in)\b)")
# an assignment's operator after a name: `=`, `+=`, `??=`, ... (not `==`, `=>`)
ASSIGNED = rb"\s*(?:[-+*/%&|^]|\*\*|<<|>>>?|\?\?|&&|\|\|)?=(?![=>])"
LOOKAHEAD = 30  # the lines read past a statement for what carries it on, at most
CHAIN_STEPS = 16  # the fields and keys a receiver's chain is read back over, at most
_MODIFIERS = rb"(?:(?:public|private|protected|readonly|declare|override|abstract|get|set|async)\s+)*"


class Step(NamedTuple):
    """One part after a chain's head: a field `.name`, or a computed key `[name]`."""

    name: str
    keyed: bool


class Chain(NamedTuple):
    """A receiver read from its head, then its steps (each a field or a computed key): the
    head is dotted names (`this` first, or a name) or, when `names` is empty, a parenthesis
    the text before it, `cast`, ends with (`return (x as T)`: a cast where `cast_type` reads
    one)."""

    names: tuple[str, ...]
    cast: bytes
    steps: tuple[Step, ...]


def chain_before(before: bytes) -> Chain | None:
    """The chain a site's receiver is, from the text before the site (its dot included), when
    it holds a computed key of one name (`x[$mobx].`, `this.a[$mobx]!.b?.`) or a parenthesized
    head followed by fields (`(x as T).atom_.`); None for any other receiver (dotted names
    alone, a call's result, a subscript of an expression or by anything but a name)."""
    text = before.rstrip()
    text = text[:-2] if text.endswith(b"?.") else text[:-1] if text.endswith(b".") else b""
    steps: list[Step] = []  # from the site back
    while text and len(steps) <= CHAIN_STEPS:
        text = text.rstrip().removesuffix(b"!").rstrip()
        if text.endswith(b"]"):
            opened = opening_bracket(text, len(text) - 1, b"()[]{}")
            key = re.fullmatch(rb"\s*(" + IDENT + rb")\s*", text[opened + 1:-1]) if opened is not None else None
            if opened is None or key is None:
                return None
            steps.append(Step(key.group(1).decode(), True))
            text = text[:opened]
            continue
        if text.endswith(b")"):
            opened = opening_bracket(text, len(text) - 1)
            if opened is None or not steps:
                return None
            return Chain((), text, tuple(reversed(steps)))  # a call's result (`f(x)[k].`) is no cast
        start = name_before(text, len(text), SCRIPT_FIRST, SCRIPT_REST)  # `(?<![\w$])IDENT$`, read back
        if start is None or start > 0 and text[start - 1] in SCRIPT_REST:
            return None
        word = text[start:]
        lead = text[:start].rstrip()
        if lead.endswith(b"."):
            steps.append(Step(word.decode(), False))
            text = lead[:-2] if lead.endswith(b"?.") else lead[:-1]
            continue
        if lead.endswith((b")", b"]", b"}", b"'", b'"', b"`")) or re.search(rb"\bnew$", lead):
            return None
        ahead = list(reversed(steps))
        plain = next((i for i, s in enumerate(ahead) if s.keyed), len(ahead))
        if plain == len(ahead):
            return None  # dotted names alone: `ScriptTypes.receiver` reads them
        return Chain((word.decode(), *(s.name for s in ahead[:plain])), b"", tuple(ahead[plain:]))
    return None  # nothing before the site, or more steps than `CHAIN_STEPS`


def keyed_member(body: list[bytes], key: str) -> bytes | Literal[False] | None:
    """What the class or interface whose lines are `body` (from its header's line to its
    closing brace) declares under the computed key `[key]`, an instance member of its own
    body: the text after the colon of a field's annotation (`[$mobx]: Reaction`, `[$mobx]!:
    Reaction`); False for a member it declares otherwise (a method, an accessor, a field
    without a type); None when it declares none."""
    member = re.compile(rb"(?:^|[;{])\s*(static\s+)?" + _MODIFIERS + rb"(\[)\s*" + re.escape(key.encode())
                        + rb"\s*\]\s*[!?]?\s*(:?)\s*")
    depth = 0
    said: list[bytes | Literal[False]] = []
    for written in body:
        text = blanked(written)
        if key.encode() in text:
            for m in member.finditer(text):
                if _depth(text, m.start(2), depth) == 1 and not m.group(1):
                    typed = m.group(3) and text[m.end():m.end() + 1] != b"("
                    said.append(text[m.end():].rstrip() if typed else False)
        depth = _depth(text, len(text), depth)
    if not said:
        return None
    return said[0] if len(said) == 1 else False


def _depth(text: bytes, at: int, depth: int) -> int:
    """The braces' depth at byte `at` of a line begun at `depth` (its strings and comment blanked)."""
    return depth + text.count(b"{", 0, at) - text.count(b"}", 0, at)


_QUOTED = re.compile(rb"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|//.*")


def blanked(text: bytes) -> bytes:
    """The line with its quoted strings' and its line comment's text blanked, each byte where
    it was: braces there open no block."""
    return _QUOTED.sub(lambda m: b" " * len(m.group()) if m.group().startswith(b"/") else
                       m.group()[:1] + b" " * (len(m.group()) - 1), text)


def continued(lines: list[bytes], n: int) -> bool:
    """Does the statement on line `n` (from 1) run on to the next line that is not blank or a
    comment's: one an operator, a dot, a bracket, a comma or `as` begins?"""
    for text in lines[n:n + LOOKAHEAD]:
        if text.strip() and not text.lstrip().startswith((b"//", b"/*")):
            return _CONTINUES.match(text) is not None
    return False


def value_alone(lines: list[bytes], n: int, value: bytes) -> bytes | None:
    """A declaration's value written whole on its line (`value`: the text after its `=`),
    without its `;` or a comment after it, when its brackets close there and the next line
    does not carry it on (`.filter(...)` on a line of its own: `continued`); None otherwise."""
    text = re.sub(rb"\s*//.*$", b"", value).strip().removesuffix(b";").rstrip()
    if not text or any(text.count(a) != text.count(b) for a, b in (b"()", b"[]", b"{}")):
        return None
    return None if continued(lines, n) else text


def copied_array(value: bytes) -> tuple[str, ...] | None:
    """The dotted names a value copies an array of the same elements from: `xs`, `xs.splice(0)`,
    `this.xs_.slice()`, `xs.filter((x) => ...)`; None for any other value."""
    m = re.fullmatch(rb"(" + IDENT + rb"(?:\s*\.\s*" + IDENT + rb")*)(?:\s*\.\s*(" + IDENT
                     + rb")\s*\((.*)\))?", value, re.S)
    if m is None:
        return None
    if m.group(2) is not None:
        method, arguments = m.group(2).decode(), m.group(3)
        if method not in SAME_ELEMENTS or opening_bracket(value, len(value) - 1) != m.start(3) - 1:
            return None
        if method == "filter" and not (re.match(rb"\s*(?:\([^()]*\)|" + IDENT + rb")\s*=>", arguments)
                                       and not re.search(rb"\)\s*:", arguments)):
            return None  # a type predicate may narrow the elements
    return dotted_names(m.group(1))


def assignments(text: bytes, name: str) -> list[bytes | None]:
    """The values the code assigns to the name (`name = new T(...)`: the text after `=`),
    None for each assignment whose value is not written after a plain `=` (`name += 1`,
    `name++`, `[a, name] = pair`)."""
    word = re.escape(name.encode())
    found: list[bytes | None] = []
    for m in re.finditer(rb"(?<![\w$.])" + word + ASSIGNED, text):
        declared = re.search(rb"\b(?:const|let|var)\s*$", text[:m.start()])
        if declared is None:
            operator = m.group()[len(name.encode()):].strip()
            found.append(text[m.end():] if operator == b"=" else None)
    found += [None] * len(re.findall(rb"(?:\+\+|--)\s*" + word + rb"(?![\w$])|(?<![\w$.])" + word + rb"\s*(?:\+\+|--)",
                                     text))
    # a destructuring assignment: the name inside brackets closed before a plain `=`
    found += [None] * len(re.findall(rb"[\[{,]\s*(?:\.\.\.)?" + word + rb"\s*(?=[,\]}])[^=;]*?[\]}]\s*=(?![=>])", text))
    return found


def field_assignments(text: bytes, name: str) -> list[bytes | None]:
    """The values the code assigns to `this.name` (the text after `=`), None for each other
    assignment of it (`this.name += 1`, `this.name++`, `[this.name] = pair`), as `assignments`
    reads a plain name's."""
    field = rb"\bthis\s*\.\s*" + re.escape(name.encode())
    found: list[bytes | None] = []
    for m in re.finditer(field + rb"(?![\w$])" + ASSIGNED, text):
        operator = m.group()[m.group().rindex(name.encode()) + len(name.encode()):].strip()
        found.append(text[m.end():] if operator == b"=" else None)
    found += [None] * len(re.findall(rb"(?:\+\+|--)\s*" + field + rb"(?![\w$])|" + field + rb"\s*(?:\+\+|--)", text))
    found += [None] * len(re.findall(rb"[\[{,]\s*(?:\.\.\.)?" + field + rb"\s*(?=[,\]}])[^=;]*?[\]}]\s*=(?![=>])", text))
    return found


class Passed(NamedTuple):
    """A callback written as an argument of a call of a plain name: the callee, the argument's
    place and the place of the callback's parameter asked."""

    callee: str
    argument: int
    parameter: int


_ARROW = re.compile(rb"(?:\basync\s+)?(?:function\b\s*[\w$]*\s*\(([^()]*)\)|\(([^()]*)\)\s*=>|(" + IDENT
                    + rb")\s*=>)")


def passed_to(text: bytes, name: str) -> Passed | None:
    """The call the line passes a callback binding the name to, unannotated and with no
    default, when the callback is written directly as an argument of a plain name's call
    (`autorun(r => ...)`, `reaction(() => x, (v, r) => ...)`); None otherwise."""
    for m in _ARROW.finditer(text):
        params = next(g for g in m.groups() if g is not None)
        parts = [p.strip() for p in parameters(params)]
        binding = [i for i, p in enumerate(parts) if re.match(re.escape(name.encode()) + rb"(?![\w$])", p)]
        if not binding:
            continue
        if len(binding) != 1 or parts[binding[0]] != name.encode():
            return None  # annotated, with a default, or in a pattern
        called = argument_of(text[:m.start()])
        return Passed(called[0], called[1], binding[0]) if called else None
    return None


def callback_parameter(written: bytes, parameter: int) -> bytes | None:
    """The type a parameter's annotation (`written`) declares for the parameter at that
    place of the callback it takes: `(r: IReactionPublic) => any` gives `IReactionPublic` for
    0 (a `this` parameter aside); None where it is no function type, that parameter has no
    annotation, or a rest parameter comes first."""
    written = written.strip()
    closed = closing_bracket(written, 0) if written.startswith(b"(") else None
    if closed is None or not re.match(rb"\s*=>", written[closed + 1:]):
        return None
    inner = [p.strip() for p in parameters(written[1:closed]) if p.strip()]
    if inner and re.match(rb"this\s*:", inner[0]):
        inner = inner[1:]
    if parameter >= len(inner) or any(p.startswith(b"...") for p in inner[:parameter + 1]):
        return None
    annotated = re.match(IDENT + rb"\s*:\s*", inner[parameter])
    if annotated is None:
        return None
    typed = inner[parameter][annotated.end():]
    return typed if type_end(typed) == len(typed) else None
