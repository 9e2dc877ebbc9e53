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

from indexer.contract.errors import TooLarge
from indexer.contract.limits import limits
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


def read_once(files: Iterable[tuple[str, str]], size: Callable[[str, str], int],
              read: Callable[[str, str], bytes | None]) -> list[tuple[str, bytes]]:
    """(path, bytes) of each `.gitattributes` file given as (path, blob), for `GitAttributes`:
    a blob many folders hold is sized and read once (git stores the folder once), one of
    FILE_BYTES or more is not read (git ignores it), nor one `read` gives None for."""
    sources: list[tuple[str, bytes]] = []
    blobs: dict[str, bytes | None] = {}
    for path, blob in files:
        if blob not in blobs:
            blobs[blob] = read(path, blob) if size(path, blob) < FILE_BYTES else None
        data = blobs[blob]
        if data is not None:
            sources.append((path, data))
    return sources


def _rules(data: bytes, room: int) -> list[_Rule]:
    """The rules of one `.gitattributes` file that name an attribute of `READ`, as git reads
    its lines: split at each newline (a carriage return before it dropped), a line of
    LINE_BYTES or more ignored, a file of FILE_BYTES or more ignored whole. One past `room`
    at most: the caller refuses that many."""
    if len(data) >= FILE_BYTES:
        return []
    rules: list[_Rule] = []
    for raw in data.split(b"\n"):
        if len(rules) > room:
            break
        raw = raw.removesuffix(b"\r")
        if not raw or len(raw) >= LINE_BYTES:
            continue
        parsed = _split_line(raw.decode("utf-8", "replace"))
        if parsed is None:
            continue
        attrs = {name: value for name, value in _parse_attrs(parsed[1]).items() if name in READ}
        if attrs:
            rules.append(_Rule(parsed[0], attrs))
    return rules


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


# What git reads of a `.gitattributes` file (attr.c, since 2.39): a line of this many bytes or
# more (its line ending aside) is ignored, and so is a file of this many bytes or more.
LINE_BYTES = 2048
FILE_BYTES = 100 << 20
# The attributes marks and the noise classifier read; rules naming none of them are not kept.
READ = frozenset({"linguist-generated", "linguist-vendored"})
# A file's lookup tries the kept rules of each folder above it: a commit whose files would
# cost more tries than `Limits.attribute_tries` together (a folder's rules counted for each
# file below each folder holding them), or whose distinct `.gitattributes` files make more
# rules than `Limits.attribute_rules`, is refused (`too_large`).


class GitAttributes:
    """Attribute lookup over all .gitattributes files of a tree, for the attributes in `READ`.

    `value(path, attr)` is True (set, or `=true`), False (unset `-attr`, or `=false`),
    the string of any other `attr=value`, or None when no line specifies it."""

    def __init__(self, sources: Iterable[tuple[str, bytes]]) -> None:
        self.by_dir: dict[str, list[_Rule]] = {}
        # Git stores a folder once however many places name it: one file's rules are parsed
        # once, shared by every folder holding it, and what they say of a name found once.
        parsed: dict[bytes, list[_Rule]] = {}
        held: dict[int, int] = {}  # rule list -> folders holding it
        kept = 0  # rules made, each file's once
        cap = limits()
        for path, data in sources:
            rules = parsed.get(data)
            if rules is None:
                rules = parsed[data] = _rules(data, cap.attribute_rules - kept)
                kept += len(rules)
                if kept > cap.attribute_rules:
                    raise TooLarge(f"the .gitattributes files of this tree hold over {cap.attribute_rules:,} rules "
                                   f"naming linguist-generated or linguist-vendored "
                                   f"({cap.raise_hint('attribute_rules')}); not read")
            if rules:
                self.by_dir[posixpath.dirname(path)] = rules
                held[id(rules)] = held.get(id(rules), 0) + 1
        # what is found is kept only for a file several folders share: there names recur
        self._shared = {key for key, n in held.items() if n > 1}
        self._said: dict[tuple[int, str, str], tuple[bool, bool | str | None]] = {}
        # the folders holding rules by their names' parts: a path's are found a part at a time,
        # where spelling each of its folders out would cost the square of its depth
        self._root = _Folder()
        for directory, rules in self.by_dir.items():
            folder = self._root
            for part in directory.split("/") if directory else ():
                folder = folder.children.setdefault(part, _Folder())
            folder.rules = rules

    def _levels(self, path: str) -> list[tuple[int, list[_Rule]]]:
        """(where the path relative to it starts, its rules) for each folder above `path`
        holding rules, the root first."""
        out: list[tuple[int, list[_Rule]]] = []
        folder: _Folder | None = self._root
        start = 0
        while folder is not None:
            if folder.rules:
                out.append((start, folder.rules))
            end = path.find("/", start)
            if end < 0:
                break
            folder = folder.children.get(path[start:end])
            start = end + 1
        return out

    def check_cost(self, paths: Iterable[str]) -> None:
        """`too_large` when looking up `paths` would try more rules together than the limit."""
        paths = list(paths)
        cap = limits()
        rules = sum(map(len, self.by_dir.values()))
        if rules * len(paths) <= cap.attribute_tries:
            return
        cost = 0
        for path in paths:
            cost += sum(len(rules) for _, rules in self._levels(path))
        if cost > cap.attribute_tries:
            raise TooLarge(f"the .gitattributes files of this tree give its {len(paths):,} files {cost:,} rules to "
                           f"try together, over the {cap.attribute_tries:,} a lookup of them may cost "
                           f"({cap.raise_hint('attribute_tries')}); not read")

    @classmethod
    def from_files(cls, files: Iterable[FileEntry], read: Callable[[str], bytes]) -> "GitAttributes":
        """Every regular `.gitattributes` file of a snapshot's file table (unreadable ones are
        skipped), each blob read once however many folders hold it."""
        entries = {f.path: f for f in files if is_attributes_file(f)}

        def readable(path: str, _blob: str) -> bytes | None:
            try:
                return read(path)
            except (OSError, KeyError, ValueError):
                return None

        return cls(read_once(((p, f.blob) for p, f in entries.items()), lambda p, _: entries[p].size, readable))

    def __bool__(self) -> bool:
        return bool(self.by_dir)

    def value(self, path: str, attr: str) -> bool | str | None:
        # Deeper files override shallower ones, later lines override earlier: scan the
        # deepest file first, its lines last-to-first, and stop at the first line that speaks.
        for start, rules in reversed(self._levels(path)):
            rel = path[start:]
            if id(rules) in self._shared:
                key = (id(rules), rel, attr)
                said = self._said.get(key)
                if said is None:
                    said = self._said[key] = _said(rules, rel, attr)
            else:
                said = _said(rules, rel, attr)
            if said[0]:
                return said[1]
        return None


class _Folder:
    __slots__ = ("children", "rules")

    def __init__(self) -> None:
        self.children: dict[str, _Folder] = {}
        self.rules: list[_Rule] | None = None


def _said(rules: list[_Rule], rel: str, attr: str) -> tuple[bool, bool | str | None]:
    """Whether a line of one file speaks of `attr` for `rel` (relative to the file's folder),
    and what it says: the last such line, as git reads them."""
    for rule in reversed(rules):
        if attr in rule.attrs and rule.matches(rel):
            return True, rule.attrs[attr]
    return False, None


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
    attrs.check_cost(f.path for f in files)
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


def linguist_flag(value: bool | str | None) -> bool | None:
    """What a linguist attribute (`linguist-generated`, `linguist-vendored`) says of a path, as
    linguist reads it: None, unspecified (the path and content rules decide); False, unset
    (`-attr`) or set to the string `false`; True, set, or set to any other value (`=1`, and
    `=0` or `=FALSE` too). The Repo Map's marks and the Delta packet's noise classes read it
    here, so the two agree on a file."""
    if value is None:
        return None
    return value is not False and value != "false"


def _mark(f: FileEntry, attrs: GitAttributes, facts: Summary | None) -> tuple[str, str] | None:
    vendored = linguist_flag(attrs.value(f.path, "linguist-vendored")) if attrs else None
    generated = linguist_flag(attrs.value(f.path, "linguist-generated")) if attrs else None
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
