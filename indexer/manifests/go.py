"""go.mod and go.work: their directives, read once (`parse_go_mod`) for two uses. The
manifest reader takes the module path, the `go` and `toolchain` lines, and `require` lines
and blocks (a `// indirect` comment makes the scope "indirect"); import resolution takes the
module path and the `replace` directives that point at a directory.

A line is read as the go command's modfile lexer reads it (golang.org/x/mod/modfile): tokens
apart by blank space, `( ) [ ] { } ,` tokens of their own, a `//` comment to the end of the
line; a token that starts with `"` is an interpreted string up to its closing quote, its Go
escapes undone (`"../my dir"`, `"a\\x20b"`), one that starts with a backquote a raw string up
to the next, taken as written; neither ends at a space or a `//` inside it. A line whose
string is left open, or holds an escape Go has not, or a parenthesis other than the `(` that
ends a block's first line, is malformed and skipped, as a directive of too few words is (the
go command refuses the file)."""

from __future__ import annotations

import re

import msgspec

from indexer.manifests.base import Collector, ManifestError


class Replacement(msgspec.Struct, frozen=True):
    """`replace <module> [version] => <target> [version]`."""

    module: str
    target: str

    @property
    def local(self) -> bool:
        """The target is a directory relative to the file (Go reads `./` and `../` so)."""
        return self.target.startswith(("./", "../")) or self.target in (".", "..")


class Directive(msgspec.Struct, frozen=True):
    """One directive: a line, or a line of a ( ... ) block, which takes the block's verb."""

    verb: str
    words: tuple[str, ...]  # its tokens after the verb, strings as their value
    comment: str = ""  # the text after `//`, where one ends the line


class GoMod(msgspec.Struct):
    """The directives of a go.mod or go.work file, in file order."""

    directives: list[Directive] = msgspec.field(default_factory=list)
    unclosed: str = ""  # the verb of a ( ... ) block never closed

    def words(self, verb: str) -> list[list[str]]:
        """Each `verb` directive's words."""
        return [list(d.words) for d in self.directives if d.verb == verb]

    @property
    def module(self) -> str:
        return next((w[0] for w in self.words("module") if w), "")

    def replacements(self) -> list[Replacement]:
        out = []
        for words in self.words("replace"):
            if "=>" in words:
                at = words.index("=>")
                if at in (1, 2) and len(words) > at + 1:
                    out.append(Replacement(words[0], words[at + 1]))
        return out


# One token a match, each alternative starting with what the others cannot (linear in the
# line): blank space, a comment, a punctuation token, a closed interpreted string, a closed
# raw string, a quote left open, any other token (up to blank space, punctuation or `//`).
_TOKEN = re.compile(r"""\s+|//(?P<comment>.*)|(?P<punct>[()\[\]{},])|"(?P<quoted>(?:[^"\\]|\\.)*)"
                        |`(?P<raw>[^`]*)`|(?P<open>["`])|(?P<word>(?:[^\s()\[\]{},/]|/(?!/))+)""",
                    re.DOTALL | re.VERBOSE)
_ESCAPE = re.compile(r"""\\(?:(?P<char>[abfnrtv\\"])|x(?P<hex>[0-9a-fA-F]{2})|(?P<octal>[0-7]{3})
                         |u(?P<u4>[0-9a-fA-F]{4})|U(?P<u8>[0-9a-fA-F]{8}))""", re.VERBOSE)
_CHARS = {"a": b"\a", "b": b"\b", "f": b"\f", "n": b"\n", "r": b"\r", "t": b"\t", "v": b"\v", "\\": b"\\", '"': b'"'}


class _Malformed(ValueError):
    """A line the go command would refuse: a string left open or a bad escape."""


def tokens(line: str) -> tuple[list[str], str] | None:
    """The tokens of one line, strings as their value, and its comment (without `//`); None
    when the line is malformed. Neither is ever longer than the line."""
    out: list[str] = []
    try:
        for m in _TOKEN.finditer(line):
            kind = m.lastgroup
            if kind == "comment":
                return out, m["comment"]
            if kind == "open":
                return None
            if kind == "quoted":
                out.append(_unquote(m["quoted"]))
            elif kind is not None:
                out.append(m[kind])
    except _Malformed:
        return None
    return out, ""


def _unquote(body: str) -> str:
    """The value of an interpreted string's body, as Go's strconv.Unquote gives it: `\\x` and
    octal escapes are bytes, `\\u` and `\\U` characters; bytes that are not UTF-8 read as U+FFFD."""
    if "\\" not in body:
        return body
    out = bytearray()
    at = 0
    for m in _ESCAPE.finditer(body):
        if "\\" in body[at:m.start()]:
            raise _Malformed("unknown escape")  # a backslash no escape starts
        out += body[at:m.start()].encode("utf-8", "surrogatepass")
        at = m.end()
        if m["char"]:
            out += _CHARS[m["char"]]
        elif m["hex"]:
            out.append(int(m["hex"], 16))
        elif m["octal"]:
            value = int(m["octal"], 8)
            if value > 255:
                raise _Malformed("octal escape value over 255")
            out.append(value)
        else:
            code = int(m["u4"] or m["u8"], 16)
            if code > 0x10FFFF or 0xD800 <= code < 0xE000:
                raise _Malformed("escape of no character")
            out += chr(code).encode("utf-8")
    if "\\" in body[at:]:
        raise _Malformed("unknown escape")
    out += body[at:].encode("utf-8", "surrogatepass")
    return out.decode("utf-8", "replace")


def parse_go_mod(text: str) -> GoMod:
    parsed = GoMod()
    block = ""  # the directive whose ( ... ) block we are inside
    for raw in text.split("\n"):  # Go's lines: a form feed or U+2028 ends none
        line = raw.strip()
        if block and line.startswith(")"):
            block = ""
            continue
        read = tokens(line)
        if read is None or not read[0]:
            continue  # malformed, blank or a comment
        words, comment = read
        if not block and words[1:] == ["("]:  # `require (` (a `(` ending the line) opens a block
            block = words[0]
        elif "(" in words or ")" in words:
            continue  # a parenthesis opens or closes a block, nothing else: malformed
        elif block:
            parsed.directives.append(Directive(block, tuple(words), comment))
        else:
            parsed.directives.append(Directive(words[0], tuple(words[1:]), comment))
    parsed.unclosed = block
    return parsed


def read_go_mod(c: Collector, data: bytes) -> None:
    parsed = parse_go_mod(data.decode("utf-8"))
    if parsed.unclosed:
        raise ManifestError(f"unclosed {parsed.unclosed} block")
    if not parsed.module:
        raise ManifestError("no module directive")
    c.package(parsed.module, "")
    for d in parsed.directives:
        if d.verb in ("go", "toolchain") and d.words:
            c.dependency(d.verb, d.words[0], "toolchain")
    for d in parsed.directives:
        if d.verb == "require" and len(d.words) >= 2:
            c.dependency(d.words[0], d.words[1], "indirect" if d.comment.strip().startswith("indirect") else "runtime")
