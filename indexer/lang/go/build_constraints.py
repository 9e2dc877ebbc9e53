"""Go build constraints: whether a Go file is excluded from every build, as go/build reads
its header (go/build's parseFileHeader and shouldBuild, go/build/constraint's parsers)."""

from __future__ import annotations

import re
from itertools import product
from typing import Callable, Iterator

# A constraint is a function of the set tags; `ignore` is the tag no build sets.
_Expr = Callable[[dict[str, bool]], bool]
_TAG = re.compile(rb"[\w.]+")  # letters, digits, `_` and `.` (constraint.isValidTag, ASCII here)
_TOKEN = re.compile(rb"\s*(&&|\|\||!|\(|\)|[\w.]+)")
_MOST_TOKENS = 200
# Every setting of a constraint's tags is tried, each evaluating up to all of its tokens: one
# costing more (2 ** tags * tokens) is taken as buildable, unchecked, so a header of many
# `+build` lines or one of many tags costs a file a bounded time.
_WORK = 1 << 12


def _go_header(data: bytes) -> tuple[list[bytes], int]:
    """The `//` comment lines before a Go file's first code (the package clause), and how many
    of them precede the last blank line of the leading run of `//` comments and blank lines
    (only those can hold `// +build` lines: a block comment ends that run), as go/build reads
    them. Lines inside or after a block comment are not line comments."""
    lines: list[bytes] = []
    before_blank = 0
    in_block = ended = False
    for raw in data.split(b"\n"):
        line = raw.strip()
        if not line:
            if not ended:
                before_blank = len(lines)
            continue
        if not line.startswith(b"//"):
            ended = True
        if in_block:
            if b"*/" not in line:
                continue
            in_block, line = False, line.split(b"*/", 1)[1].strip()
            if not line:
                continue
        if line.startswith(b"//"):
            lines.append(line)
        elif line.startswith(b"/*"):
            in_block = b"*/" not in line[2:]
            if not in_block and line.split(b"*/", 1)[1].strip():
                break
        else:
            break
    return lines, before_blank


def _go_build(expr: bytes) -> tuple[_Expr | None, int]:
    """A `//go:build` expression (`||`, `&&`, `!`, parentheses, tags), None when it is not
    one; and how many tokens it holds."""
    tokens: list[bytes] = []
    at = 0
    while at < len(expr.rstrip()):
        m = _TOKEN.match(expr, at)
        if m is None:
            return None, len(tokens)
        tokens.append(m.group(1))
        at = m.end()
        if len(tokens) > _MOST_TOKENS:  # go/build refuses one so long; nesting stays shallow
            return None, len(tokens)
    pos = 0

    def take(token: bytes) -> bool:
        nonlocal pos
        if pos < len(tokens) and tokens[pos] == token:
            pos += 1
            return True
        return False

    def joined(op: bytes, part: Callable[[], _Expr | None], holds: Callable[[Iterator[bool]], bool]) -> _Expr | None:
        """`part` (op `part`)*: None when any part is not an expression."""
        terms = [part()]
        while take(op):
            terms.append(part())
        found = [t for t in terms if t is not None]
        if len(found) < len(terms):
            return None
        return lambda tags: holds(t(tags) for t in found)

    def either() -> _Expr | None:
        return joined(b"||", both, any)

    def both() -> _Expr | None:
        return joined(b"&&", single, all)

    def single() -> _Expr | None:
        nonlocal pos
        if take(b"!"):
            if pos < len(tokens) and tokens[pos] == b"!":
                return None  # "double negation not allowed"
            negated = single()
            if negated is None:
                return None
            return lambda tags: not negated(tags)
        if take(b"("):
            inner = either()
            return inner if inner is not None and take(b")") else None
        if pos < len(tokens) and _TAG.fullmatch(tokens[pos]):
            name = tokens[pos].decode()
            pos += 1
            return lambda tags: tags[name]
        return None

    found = either()
    return (found if found is not None and pos == len(tokens) else None), len(tokens)


def _plus_build(fields: list[bytes]) -> _Expr:
    """A `// +build` line: OR of its space-separated options, each an AND of comma-separated
    tags, `!x` negated; no option, or a malformed term (`!!x`, `!`, `a-b`), is `ignore`, as
    constraint.parsePlusBuildExpr has it."""
    def term(word: bytes) -> _Expr:
        negated = word[:1] == b"!"
        name = word[1:] if negated else word
        if not _TAG.fullmatch(name):  # `!!x` and `!` too
            return lambda tags: tags["ignore"]
        tag = name.decode()
        return (lambda tags: not tags[tag]) if negated else (lambda tags: tags[tag])

    options = [[term(w) for w in option.split(b",")] for option in fields]
    if not options:
        return lambda tags: tags["ignore"]
    return lambda tags: any(all(t(tags) for t in option) for option in options)


def _tags_of(expr: bytes) -> set[str]:
    return {m.decode() for m in _TAG.findall(expr)} | {"ignore"}


def _never_built(constraint: _Expr, tags: set[str], tokens: int) -> bool:
    """No build sets `ignore`: does every setting of the other tags leave the file out?
    Tags are taken as independent (`linux && windows` is buildable here). A constraint of
    `tokens` costing more than `_WORK` to try is taken as buildable."""
    others = sorted(tags - {"ignore"})
    if len(others) >= _WORK.bit_length() or (1 << len(others)) * tokens > _WORK:
        return False
    for values in product((False, True), repeat=len(others)):
        if constraint({**dict(zip(others, values)), "ignore": False}):
            return False
    return True


def go_build_ignored(data: bytes) -> bool:
    """The Go file is excluded from every build by its build constraint without the
    `ignore` tag, which no build sets (`//go:build ignore`, or before Go 1.17 `// +build
    ignore`, as generators run with `go run gen.go` declare; as well `!linux && ignore`): it
    is no member of its directory's package. A `//go:build` line, when present, alone
    decides; `// +build` lines all must hold. A malformed `//go:build` line is taken as
    buildable (the go tool refuses the file)."""
    lines, before_blank = _go_header(data)
    for line in lines:
        if line.startswith(b"//go:build") and line[10:11] in (b" ", b"\t"):
            found, tokens = _go_build(line[10:])
            return found is not None and _never_built(found, _tags_of(line[10:]), tokens)
    constraints = []
    tags: set[str] = {"ignore"}
    terms = 0
    for line in lines[:before_blank]:
        fields = line[2:].split()
        if fields and fields[0] == b"+build":
            terms += sum(1 + option.count(b",") for option in fields[1:]) or 1
            if terms > _WORK:  # past what any setting may cost: buildable, as `_never_built` takes it
                return False
            constraints.append(_plus_build(fields[1:]))
            tags |= _tags_of(b" ".join(fields[1:]))
    return bool(constraints) and _never_built(lambda t: all(c(t) for c in constraints), tags, terms)
