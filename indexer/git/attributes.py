"""Generated / vendored marks for the files of a snapshot, each with the rule that set it.

Precedence, first decisive answer wins for each of the two attributes:
1. `.gitattributes` `linguist-generated` / `linguist-vendored` (an explicit false also
   decides: `vendor/** -linguist-vendored` keeps vendor/ unmarked);
2. path rules (vendored directories, minified files; lockfiles and generated-code names);
3. the blob facts' content rule (a "do not edit" header found at extraction).
A file both vendored and generated is marked by the stronger evidence: gitattributes
over path rules over headers, and vendored over generated at the same level.

`GitAttributes` implements git's attribute lookup (wildmatch patterns, `**`, patterns
without a slash matching the basename at any depth, later lines and deeper files
winning) so that the Delta packet's noise classifier can use the same reading.
"""

from __future__ import annotations

import posixpath
import re
from itertools import repeat
from typing import Callable, Iterable, Mapping

from indexer.model import BlobFacts, FileEntry, earlier_rows
from indexer.store.facts_table import Summary, summaries_of

GENERATED = "generated"
VENDORED = "vendored"

VENDORED_DIRS = (
    "vendor", "vendors", "third_party", "third-party", "thirdparty", "3rdparty", "node_modules",
    "bower_components", "jspm_packages", "Pods", "Carthage", "site-packages", ".yarn",
)
VENDORED_SUFFIXES = (".min.js", ".min.css", "-min.js", ".min.mjs")
LOCKFILES = frozenset({
    "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lockb", "poetry.lock",
    "Pipfile.lock", "pdm.lock", "uv.lock", "Cargo.lock", "go.sum", "composer.lock", "Gemfile.lock",
    "flake.lock", "packages.lock.json", "Package.resolved", "pubspec.lock", "mix.lock", "gradle.lockfile",
})
GENERATED_DIRS = ("dist", "__generated__", "generated")
GENERATED_SUFFIXES = (
    "_pb2.py", "_pb2.pyi", "_pb2_grpc.py", ".pb.go", ".pb.gw.go", ".pb.cc", ".pb.h", "_pb.js", "_pb.d.ts",
    "_grpc_pb.js", ".pb.swift", ".designer.cs", ".g.cs", ".g.dart", ".freezed.dart", ".generated.ts",
    ".generated.js", ".js.map", ".css.map",
)


# --- gitattributes ---------------------------------------------------------------------

# A translated pattern is a list of units: a regex piece matching a fixed number of characters
# ("/" for a slash), or one of these three wildcards.
_STAR = "*"  # `*`, or `**` not between slashes: any characters but a slash
_DIRS = "**/"  # `**/` at the start or after a slash: zero or more whole folders
_REST = "**"  # a trailing `/**` (or the whole pattern `**`): everything inside


def wildmatch_regex(pattern: str) -> str:
    """Translate one git wildmatch pattern (already anchored) into a regex body. The regex
    never backtracks over a choice that cannot change the answer (see `_join`), so matching
    costs time polynomial in the path whatever the pattern: a name is untrusted input."""
    return _join(_units(pattern))


def _units(pattern: str) -> list[str]:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            after = i + 1
            while after < n and pattern[after] == "*":  # a run of stars: git reads three as two
                after += 1
            if after - i >= 2:
                before_ok = i == 0 or pattern[i - 1] == "/"
                if before_ok and after == n:
                    out.append(_REST)
                    i = after
                    continue
                if before_ok and pattern.startswith("/", after):
                    out.append(_DIRS)
                    i = after + 1
                    continue
            i = after  # one star, or a run not between slashes: a plain *
            if not out or out[-1] != _STAR:  # stars in a row are one
                out.append(_STAR)
            continue
        if c == "?":
            out.append("[^/]")
        elif c == "[":
            j = i + 1
            if j < n and pattern[j] in "!^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 1
            if j >= n:
                out.append(re.escape(c))
            else:
                out.append(_char_class(pattern[i + 1 : j]))
                i = j + 1
                continue
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        else:
            out.append(re.escape(c))
        i += 1
    return out


def _char_class(body: str) -> str:
    """A bracket expression, as git reads one: a backslash escapes the next character, a
    reversed range (`z-a`) matches its first character only, and no class matches a slash.
    Every character is escaped, so none is read as regex syntax (`&&`, a nested `[`)."""
    negated = body[:1] in ("!", "^")
    if negated:
        body = body[1:]
    chars: list[tuple[str, bool]] = []  # (character, escaped)
    k = 0
    while k < len(body):
        escaped = body[k] == "\\" and k + 1 < len(body)
        if escaped:
            k += 1
        chars.append((body[k], escaped))
        k += 1
    items: list[str] = []
    slash = False
    k = 0
    while k < len(chars):
        lo = chars[k][0]
        if k + 2 < len(chars) and chars[k + 1] == ("-", False):
            hi = chars[k + 2][0]
            # git tries the first character alone before the range: a reversed one adds no other
            items.append(f"{re.escape(lo)}-{re.escape(hi)}" if lo <= hi else re.escape(lo))
            slash = slash or lo <= "/" <= hi or lo == "/"
            k += 3
        else:
            items.append(re.escape(lo))
            slash = slash or lo == "/"
            k += 1
    if negated:
        return "[^/" + "".join(items) + "]"
    if not items:
        return "(?!)"
    return ("(?!/)[" if slash else "[") + "".join(items) + "]"


def _join(units: list[str]) -> str:
    """The regex of a unit list. Where several wildcards could share the same characters, a
    backtracking matcher tries every split between them, exponential in their number; here
    each wildcard followed by another takes the earliest place the fixed run between them
    matches, inside an atomic group. That is as good as any later place: the next wildcard
    can take the characters in between (a `*` in the same name, whose run holds no slash and
    whose classes match none; `**/` whole folders, the run between two `**/` spanning whole
    folders). A `*` whose run holds a slash ends at that slash, the only place it can."""
    out: list[str] = []
    i, n = 0, len(units)
    while i < n:
        unit = units[i]
        i += 1
        if unit == _REST:
            out.append(".*")
        elif unit == _STAR:
            j = i
            while j < n and units[j] not in (_STAR, _DIRS, _REST):
                j += 1
            fixed = units[i:j]
            if j < n and units[j] == _STAR and "/" not in fixed:
                out.append("(?>[^/]*?" + "".join(fixed) + ")")
            else:
                out.append("[^/]*" + "".join(fixed))
            i = j
        elif unit == _DIRS:
            j = i
            while j < n and units[j] not in (_DIRS, _REST):
                j += 1
            run = _join(units[i:j])
            if j == n:
                out.append("(?:.*/)?" + run)
            elif run:  # between `**/` and another wildcard of folders: the earliest folder it fits
                out.append("(?>(?:.*?/)??" + run + ")")
            i = j
        else:
            out.append(unit)
    return "".join(out)


class _Rule:
    __slots__ = ("regex", "basename", "attrs")

    def __init__(self, pattern: str, attrs: dict[str, bool | str | None]) -> None:
        # A pattern with no slash (a trailing one aside) matches the basename at any depth.
        self.basename = "/" not in pattern.rstrip("/")
        dir_only = pattern.endswith("/")
        pattern = pattern.rstrip("/")
        if not self.basename:
            pattern = pattern.removeprefix("/")  # one slash anchors; git reads a second as a name's
        if self.basename:
            body = wildmatch_regex(pattern)
        else:
            # git compares a path pattern's part before its first wildcard as text, and matches
            # the rest as a pattern of its own: `a**` there starts with `**`, which is `/a**`
            # matching `a/b` (attr.c match_pathname)
            plain = next((k for k, ch in enumerate(pattern) if ch in "*?[\\"), len(pattern))
            body = re.escape(pattern[:plain]) + wildmatch_regex(pattern[plain:])
        # Attributes of a directory do not flow to the files inside it (gitattributes(5)),
        # so a directory-only pattern never matches a file path.
        self.regex = re.compile(r"(?!)" if dir_only else body + r"\Z", re.DOTALL)
        self.attrs = attrs

    def matches(self, rel: str) -> bool:
        target = rel.rsplit("/", 1)[-1] if self.basename else rel
        return self.regex.match(target) is not None


def _parse_attrs(words: list[str]) -> dict[str, bool | str | None]:
    attrs: dict[str, bool | str | None] = {}
    for w in words:
        if w.startswith("-"):
            attrs[w[1:]] = False
        elif w.startswith("!"):
            attrs[w[1:]] = None  # unspecified: forget what earlier lines said
        elif "=" in w:
            name, value = w.split("=", 1)
            attrs[name] = True if value == "true" else False if value == "false" else value
        else:
            attrs[w] = True
    return attrs


def _split_line(line: str) -> tuple[str, list[str]] | None:
    line = line.strip()
    if not line or line.startswith("#") or line.startswith("[attr]"):
        return None
    if line.startswith('"'):
        end = line.find('"', 1)
        while end > 0 and line[end - 1] == "\\":
            end = line.find('"', end + 1)
        if end < 0:
            return None
        pattern = line[1:end].replace('\\"', '"')
        rest = line[end + 1 :].split()
    else:
        pattern, *rest = line.split()
    if pattern.startswith("!"):
        return None  # negative patterns are forbidden in gitattributes; git ignores them
    return pattern, rest


def is_attributes_file(f: FileEntry) -> bool:
    """A regular `.gitattributes` file: the ones whose rules mark files (links are not read)."""
    path = f.path  # asked of every file of a snapshot, more than once: no basename() call
    return (path == ".gitattributes" or path.endswith("/.gitattributes")) and f.mode in (0o100644, 0o100755)


class GitAttributes:
    """Attribute lookup over all .gitattributes files of a tree.

    `value(path, attr)` is True (set, or `=true`), False (unset `-attr`, or `=false`),
    the string of any other `attr=value`, or None when no line specifies it."""

    def __init__(self, sources: Iterable[tuple[str, bytes]]) -> None:
        self.by_dir: dict[str, list[_Rule]] = {}
        for path, data in sources:
            rules = []
            for line in data.decode("utf-8", "replace").splitlines():
                parsed = _split_line(line)
                if parsed:
                    rules.append(_Rule(parsed[0], _parse_attrs(parsed[1])))
            if rules:
                self.by_dir[posixpath.dirname(path)] = rules

    @classmethod
    def from_files(cls, files: Iterable[FileEntry], read: Callable[[str], bytes]) -> "GitAttributes":
        """Every regular `.gitattributes` file of a snapshot's file table (unreadable ones are skipped)."""
        sources = []
        for f in files:
            if is_attributes_file(f):
                try:
                    sources.append((f.path, read(f.path)))
                except (OSError, KeyError, ValueError):
                    continue
        return cls(sources)

    def __bool__(self) -> bool:
        return bool(self.by_dir)

    def value(self, path: str, attr: str) -> bool | str | None:
        # Deeper files override shallower ones, later lines override earlier: scan the
        # deepest file first, its lines last-to-first, and stop at the first line that speaks.
        parts = path.split("/")
        for depth in range(len(parts) - 1, -1, -1):
            directory = "/".join(parts[:depth])
            rules = self.by_dir.get(directory)
            if not rules:
                continue
            rel = "/".join(parts[depth:])
            for rule in reversed(rules):
                if attr in rule.attrs and rule.matches(rel):
                    value = rule.attrs[attr]
                    if value is None:
                        return None
                    return value
        return None


# --- path rules ------------------------------------------------------------------------

def vendored_rule(path: str) -> tuple[str, str] | None:
    parts = path.split("/")
    for d in parts[:-1]:
        if d in VENDORED_DIRS:
            return VENDORED, f"path:{d}/"
    for suffix in VENDORED_SUFFIXES:
        if parts[-1].endswith(suffix):
            return VENDORED, f"path:*{suffix}"
    return None


def generated_rule(path: str) -> tuple[str, str] | None:
    parts = path.split("/")
    if parts[-1] in LOCKFILES:
        return GENERATED, "lockfile"
    for d in parts[:-1]:
        if d in GENERATED_DIRS:
            return GENERATED, f"path:{d}/"
    for suffix in GENERATED_SUFFIXES:
        if parts[-1].endswith(suffix):
            return GENERATED, f"path:*{suffix}"
    return None


def header_rule(rule: str) -> str:
    return rule if rule.startswith("header:") else f"header:{rule}"


def mark_files(
    files: list[FileEntry],
    facts: Mapping[str, BlobFacts],
    read: Callable[[str], bytes],
    earlier: list[FileEntry] | None = None,
) -> dict[str, tuple[str, str]]:
    """path -> (mark, rule) for every file marked generated or vendored; unmarked files are absent.
    `earlier` (an earlier snapshot's marked file table) gives its marks to the files whose path
    and blob it shares, when the two trees' `.gitattributes` files are the same: a mark is a
    function of the path, the blob's facts and those files alone."""
    attribute_files = _attribute_entries(files)
    attrs = GitAttributes.from_files(attribute_files, read)
    same_attributes = earlier is not None and _pairs(_attribute_entries(earlier)) == _pairs(attribute_files)
    out: dict[str, tuple[str, str]] = {}
    summaries = summaries_of(facts)  # only `generated` is read
    rows = earlier_rows(files, earlier) if same_attributes and earlier is not None else zip(files, repeat(None))
    for f, before in rows:
        if before is not None and before.blob == f.blob and before.mode == f.mode:
            if before.mark:
                out[f.path] = (before.mark, before.mark_rule)
            continue
        mark = _mark(f, attrs, summaries.get(f.path))
        if mark:
            out[f.path] = mark
    return out


def _attribute_entries(files: list[FileEntry]) -> list[FileEntry]:
    # the name's test first, as a method call: most files fail it
    return [f for f in files if f.path.endswith(".gitattributes") and is_attributes_file(f)]


def _pairs(files: list[FileEntry]) -> list[tuple[str, str]]:
    return [(f.path, f.blob) for f in files]


def _mark(f: FileEntry, attrs: GitAttributes, facts: Summary | None) -> tuple[str, str] | None:
    vendored = attrs.value(f.path, "linguist-vendored") if attrs else None
    generated = attrs.value(f.path, "linguist-generated") if attrs else None
    if vendored is True:
        return VENDORED, "gitattributes:linguist-vendored"
    if generated is True:
        return GENERATED, "gitattributes:linguist-generated"
    # an explicit false in gitattributes rules its attribute out for every later rule
    found = vendored_rule(f.path) if vendored is not False else None
    if found is None and generated is not False:
        found = generated_rule(f.path)
        if found is None and facts is not None and facts.generated:
            found = GENERATED, header_rule(facts.generated)
    return found
