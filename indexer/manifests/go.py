"""go.mod and go.work: their directives, read once (`parse_go_mod`) for two uses. The
manifest reader takes the module path, the `go` and `toolchain` lines, and `require` lines
and blocks (a `// indirect` comment makes the scope "indirect"); import resolution takes the
module path and the `replace` directives that point at a directory."""

from __future__ import annotations

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


class GoMod(msgspec.Struct):
    """The directives of a go.mod or go.work file, in file order, each as (verb, the rest of
    its line) with comments kept (`// indirect` is read from them); a block's lines each
    count as one directive of the block's verb."""

    directives: list[tuple[str, str]] = msgspec.field(default_factory=list)
    unclosed: str = ""  # the verb of a ( ... ) block never closed

    def words(self, verb: str) -> list[list[str]]:
        """Each `verb` directive's words, without comment and quotes."""
        return [[w.strip('"') for w in rest.split("//", 1)[0].split()]
                for v, rest in self.directives if v == verb]

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


def parse_go_mod(text: str) -> GoMod:
    parsed = GoMod()
    block = ""  # the directive whose ( ... ) block we are inside
    for raw in text.splitlines():
        line = raw.strip()
        if block:
            if line.startswith(")"):
                block = ""
            elif line and not line.startswith("//"):
                parsed.directives.append((block, line))
            continue
        words = line.split("//", 1)[0].split()
        if not words:
            continue
        if len(words) >= 2 and words[1] == "(":
            block = words[0]
        else:
            parsed.directives.append((words[0], line[len(words[0]):].strip()))
    parsed.unclosed = block
    return parsed


def _require(c: Collector, line: str) -> None:
    body, _, comment = line.partition("//")
    parts = body.split()
    if len(parts) >= 2:
        c.dependency(parts[0].strip('"'), parts[1], "indirect" if comment.strip().startswith("indirect") else "runtime")


def read_go_mod(c: Collector, data: bytes) -> None:
    parsed = parse_go_mod(data.decode("utf-8"))
    if parsed.unclosed:
        raise ManifestError(f"unclosed {parsed.unclosed} block")
    if not parsed.module:
        raise ManifestError("no module directive")
    c.package(parsed.module, "")
    for verb, rest in parsed.directives:
        version = rest.split("//", 1)[0].split()
        if verb in ("go", "toolchain") and version:
            c.dependency(verb, version[0], "toolchain")
    for verb, rest in parsed.directives:
        if verb == "require":
            _require(c, rest)
