"""go.mod: the module path, the `go` and `toolchain` lines, and `require` lines and
blocks (a `// indirect` comment makes the scope "indirect")."""

from __future__ import annotations

from indexer.manifests import Collector, ManifestError


def _require(c: Collector, line: str) -> None:
    body, _, comment = line.partition("//")
    parts = body.split()
    if len(parts) >= 2:
        c.dependency(parts[0].strip('"'), parts[1], "indirect" if comment.strip().startswith("indirect") else "runtime")


def read_go_mod(c: Collector, data: bytes) -> None:
    text = data.decode("utf-8")
    module = ""
    block = ""  # the directive whose ( ... ) block we are inside
    requires: list[str] = []
    toolchain: list[tuple[str, str]] = []
    for raw in text.splitlines():
        line = raw.strip()
        if block:
            if line.startswith(")"):
                block = ""
            elif block == "require" and line and not line.startswith("//"):
                requires.append(line)
            continue
        words = line.split("//", 1)[0].split()
        if not words:
            continue
        if len(words) >= 2 and words[1] == "(":
            block = words[0]
        elif words[0] == "module" and len(words) >= 2:
            module = words[1].strip('"')
        elif words[0] in ("go", "toolchain") and len(words) >= 2:
            toolchain.append((words[0], words[1]))
        elif words[0] == "require" and len(words) >= 3:
            requires.append(line[len("require"):].strip())
    if block:
        raise ManifestError(f"unclosed {block} block")
    if not module:
        raise ManifestError("no module directive")
    c.package(module, "")
    for name, spec in toolchain:
        c.dependency(name, spec, "toolchain")
    for line in requires:
        _require(c, line)
