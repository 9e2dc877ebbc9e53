"""Go build constraints: whether a Go file is excluded from every build, as go/build reads
its header."""

from __future__ import annotations


def _go_header(data: bytes) -> tuple[list[bytes], int]:
    """The `//` comment lines before a Go file's first code (the package clause), and how many
    of them precede its last blank line (only those can hold `// +build` lines), as go/build
    reads them. Lines inside or after a block comment are not line comments."""
    lines: list[bytes] = []
    before_blank = 0
    in_block = False
    for raw in data.split(b"\n"):
        line = raw.strip()
        if in_block:
            if b"*/" not in line:
                continue
            in_block, line = False, line.split(b"*/", 1)[1].strip()
            if not line:
                continue
        if not line:
            before_blank = len(lines)
        elif line.startswith(b"//"):
            lines.append(line)
        elif line.startswith(b"/*"):
            in_block = b"*/" not in line[2:]
            if not in_block and line.split(b"*/", 1)[1].strip():
                break
        else:
            break
    return lines, before_blank


def _ignore_term(expr: bytes) -> bool:
    """A `//go:build` expression that needs the `ignore` tag: `ignore` alone or as a term of a
    plain `&&` chain (an expression with `||`, `!` or parentheses is taken as buildable)."""
    if any(op in expr for op in (b"||", b"!", b"(")):
        return False
    return b"ignore" in (term.strip() for term in expr.split(b"&&"))


def go_build_ignored(data: bytes) -> bool:
    """The Go file is excluded from every build by a build constraint requiring the `ignore`
    tag (`//go:build ignore`, or before Go 1.17 `// +build ignore`), as generators run with
    `go run gen.go` declare: it is no member of its directory's package."""
    lines, before_blank = _go_header(data)
    for line in lines:
        if line.startswith(b"//go:build") and line[10:11] in (b" ", b"\t"):
            return _ignore_term(line[10:])  # when present, it alone decides (Go 1.17+)
    for line in lines[:before_blank]:
        fields = line[2:].split()
        # a +build line is OR of space-separated options, each an AND of comma-separated tags
        if fields and fields[0] == b"+build" and len(fields) > 1 and all(
                b"ignore" in option.split(b",") for option in fields[1:]):
            return True
    return False
