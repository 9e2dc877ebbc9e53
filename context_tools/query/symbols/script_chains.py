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

from context_tools.query.symbols.script_annotations import IDENT, type_end
from context_tools.query.symbols.script_annotations import _split as split_outside  # commas outside brackets
from indexer.lang.bindings_base import opening_bracket

# the array methods that return an array of the same elements (`filter` only with a callback
# written in place, which is no type predicate: `filter(isSub)` may narrow the element)
SAME_ELEMENTS = frozenset({"splice", "slice", "filter", "concat", "reverse", "sort"})
# what a line starting the next statement may not start with: the value would run on
_CONTINUES = re.compile(rb"\s*(?:[.?\[(+\-*/%&|^<>=,`]|(?:as|satisfies|instanceof|in)\b)")
_MODIFIERS = rb"(?:(?:public|private|protected|readonly|declare|override|abstract|get|set|async)\s+)*"
# the words before a parenthesis that make it no call (`if (`, `while (`)
_NOT_CALLEES = frozenset({b"if", b"for", b"while", b"switch", b"catch", b"with", b"return", b"typeof", b"void",
                          b"await", b"yield", b"new", b"function", b"in", b"of", b"case", b"delete", b"throw"})


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
    while text:
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
        word = re.search(rb"(?<![\w$])" + IDENT + rb"$", text)
        if word is None:
            return None
        lead = text[:word.start()].rstrip()
        if lead.endswith(b"."):
            steps.append(Step(word.group().decode(), False))
            text = lead[:-2] if lead.endswith(b"?.") else lead[:-1]
            continue
        if lead.endswith((b")", b"]", b"}", b"'", b'"', b"`")) or re.search(rb"\bnew$", lead):
            return None
        ahead = list(reversed(steps))
        plain = next((i for i, s in enumerate(ahead) if s.keyed), len(ahead))
        if plain == len(ahead):
            return None  # dotted names alone: `ScriptTypes.receiver` reads them
        return Chain((word.group().decode(), *(s.name for s in ahead[:plain])), b"", tuple(ahead[plain:]))
    return None


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


def value_alone(lines: list[bytes], n: int, value: bytes) -> bytes | None:
    """A declaration's value written whole on its line (`value`: the text after its `=`),
    without its `;` or a comment after it, when its brackets close there and the next line
    does not carry it on (`.filter(...)` on a line of its own); None otherwise."""
    text = re.sub(rb"\s*//.*$", b"", value).strip().removesuffix(b";").rstrip()
    if not text or any(text.count(a) != text.count(b) for a, b in (b"()", b"[]", b"{}")):
        return None
    following = next((t for t in lines[n:] if t.strip() and not t.strip().startswith((b"//", b"/*", b"*"))), b"")
    return None if _CONTINUES.match(following) else text


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
    return tuple(p.strip().decode() for p in m.group(1).split(b"."))


def assignments(text: bytes, name: str) -> list[bytes | None]:
    """The values the code assigns to the name (`name = new T(...)`: the text after `=`),
    None for each assignment whose value is not written after a plain `=` (`name += 1`,
    `name++`, `[a, name] = pair`)."""
    word = re.escape(name.encode())
    found: list[bytes | None] = []
    for m in re.finditer(rb"(?<![\w$.])" + word + rb"\s*(\*\*|<<|>>>?|&&|\|\||\?\?|[-+*/%&|^])?=(?![=>])", text):
        declared = re.search(rb"\b(?:const|let|var)\s*$", text[:m.start()])
        if declared is None:
            found.append(None if m.group(1) else text[m.end():])
    found += [None] * len(re.findall(rb"(?:\+\+|--)\s*" + word + rb"(?![\w$])|(?<![\w$.])" + word + rb"\s*(?:\+\+|--)",
                                     text))
    # a destructuring assignment: the name inside brackets closed before a plain `=`
    found += [None] * len(re.findall(rb"[\[{,]\s*(?:\.\.\.)?" + word + rb"\s*(?=[,\]}])[^=;]*?[\]}]\s*=(?![=>])", text))
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
        parts = [p.strip() for p in split_outside(params, b",")]
        binding = [i for i, p in enumerate(parts) if re.match(re.escape(name.encode()) + rb"(?![\w$])", p)]
        if not binding:
            continue
        if len(binding) != 1 or parts[binding[0]] != name.encode():
            return None  # annotated, with a default, or in a pattern
        opened, argument = _argument_of(text, m.start())
        if opened is None:
            return None
        callee = re.search(rb"(?<![\w$.])(" + IDENT + rb")\s*(?:<[^()]*>)?\s*$", text[:opened])
        if callee is None or callee.group(1) in _NOT_CALLEES or re.search(rb"\bnew\s*$", text[:callee.start()]):
            return None
        return Passed(callee.group(1).decode(), argument, binding[0])
    return None


def _argument_of(text: bytes, at: int) -> tuple[int | None, int]:
    """(the parenthesis opening the argument list `at` is written in, the argument's place)."""
    depth, commas = 0, 0
    for i in range(at - 1, -1, -1):
        c = text[i:i + 1]
        if c in (b")", b"]", b"}"):
            depth += 1
        elif c in (b"(", b"[", b"{"):
            if depth == 0:
                return (i, commas) if c == b"(" else (None, 0)
            depth -= 1
        elif c == b"," and depth == 0:
            commas += 1
    return None, 0


def callback_parameter(params: bytes, argument: int, parameter: int) -> bytes | None:
    """The type a function's parameter list (`params`, the text between its parentheses)
    declares for a parameter of the callback it takes at the argument's place: `view: (r:
    IReactionPublic) => any` gives `IReactionPublic` for the argument 0, parameter 0; None
    where the parameter is no function type, its parameter has no annotation, or a rest
    parameter comes first."""
    parts = [p.strip() for p in split_outside(params, b",") if p.strip()]
    if parts and re.match(rb"this\s*:", parts[0]):
        parts = parts[1:]  # TypeScript's `this` parameter takes no argument
    if argument >= len(parts) or any(p.startswith(b"...") for p in parts[:argument + 1]):
        return None
    m = re.match(IDENT + rb"\s*\??\s*:\s*", parts[argument])
    if m is None:
        return None
    written = parts[argument][m.end():].strip()
    closed = _closing(written) if written.startswith(b"(") else None
    if closed is None or not re.match(rb"\s*=>", written[closed + 1:]):
        return None
    inner = [p.strip() for p in split_outside(written[1:closed], b",") if p.strip()]
    if inner and re.match(rb"this\s*:", inner[0]):
        inner = inner[1:]
    if parameter >= len(inner) or any(p.startswith(b"...") for p in inner[:parameter + 1]):
        return None
    annotated = re.match(IDENT + rb"\s*:\s*", inner[parameter])
    if annotated is None:
        return None
    written = inner[parameter][annotated.end():]
    return written if type_end(written) == len(written) else None


def _closing(text: bytes) -> int | None:
    """Where the parenthesis opening `text` closes."""
    depth = 0
    for i, ch in enumerate(text):
        if ch == 0x28:
            depth += 1
        elif ch == 0x29:
            depth -= 1
            if depth == 0:
                return i
    return None
