"""tree-sitter grammars: Language objects, compiled queries and per-thread parsers.

Everything here is built once per process (queries) or once per thread (parsers, which
are not thread-safe) and reused for every blob. The tags query of a language is the
grammar wheel's shipped `queries/tags.scm` (TypeScript's adds to JavaScript's, as the
grammar intends) followed by ours from the language's package (`Language.queries`) and its
identifier leaves (`Language.identifiers`), compiled in a form
that is cheaper to compile and gives the same facts (`_used_patterns`, `_narrowed`,
`_open_parents`):
compiling is most of a worker's setup, paid again by every forked worker.
"""

from __future__ import annotations

import importlib
import re
import threading
import time
from functools import cache
from pathlib import Path
from typing import Callable, Iterable, Iterator

from tree_sitter import Language, Node, Parser, Query, Tree

from indexer.contract.decode import string_end
from indexer.contract.memory_limit import lack_of_memory, room_for
from indexer.lang.language import part
from indexer.lang.registry import LANGUAGES

_local = threading.local()


@cache
def language(name: str) -> Language:
    module, factory = LANGUAGES[name].grammar
    return Language(getattr(importlib.import_module(module), factory)())


@cache
def keywords(name: str) -> frozenset[str]:
    """The words the grammar of `name` spells as syntax (its anonymous tokens that read as a name:
    `def`, `return`, `class`): what a parse's error recovery may read as an identifier."""
    lang = language(name)
    return frozenset(kind for i in range(lang.node_kind_count)
                     if lang.node_kind_is_visible(i) and not lang.node_kind_is_named(i)
                     and (kind := lang.node_kind_for_id(i))
                     and _WORD.fullmatch(kind))


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def shipped_tags(name: str) -> str:
    """The grammar wheel's `queries/tags.scm` text, "" when it ships none (bash)."""
    module_name = LANGUAGES[name].grammar[0]
    module = importlib.import_module(module_name)
    text = getattr(module, "TAGS_QUERY", None)
    if text:
        return text
    # tree-sitter-c-sharp installs its queries beside the package, under the dist name.
    if module.__file__ is None:  # a namespace package: no folder of its own to look beside
        return ""
    pkg_dir = Path(module.__file__).parent
    for candidate in (pkg_dir / "queries" / "tags.scm",
                      pkg_dir.parent / pkg_dir.name.replace("c_sharp", "c-sharp") / "queries" / "tags.scm"):
        if candidate.is_file():
            return candidate.read_text(encoding="utf-8")
    return ""


def own_query(name: str) -> str:
    return LANGUAGES[name].query_text()


# Per pattern index, the node types a capture of ours must have for the match to count:
# ((capture name, allowed types), ...). See `_narrowed`.
TypeChecks = dict[int, tuple[tuple[str, frozenset[str]], ...]]


# The level below a pattern's root from which `_open_parents` opens parent steps: the form
# that matches cheapest, and the one that compiles cheapest (see `compile_quickly`).
MATCHING_FORM = 2
COMPILING_FORM = 1
_quick: frozenset[str] = frozenset()


def compile_quickly(languages: Iterable[str]) -> None:
    """From now on this process, and those forked from it, compile the tags queries of
    `languages` in the form that compiles cheapest: parent steps opened from right under
    the root. For a run that parses few blobs of a language, where compiling its query
    costs more than matching it; every other language keeps the form that matches
    cheapest. The two forms give the same facts (`tags._run_tags` turns to the matching
    form where the other ran out of matches in progress)."""
    global _quick
    _quick = frozenset(languages)


def quick() -> frozenset[str]:
    """The languages `compile_quickly` named last here."""
    return _quick


def form(name: str) -> int:
    """The form `tags_query(name)` is compiled in here, now."""
    return COMPILING_FORM if name in _quick else MATCHING_FORM


def tags_query(name: str, level: int | None = None) -> Query:
    """Shipped tags (+ base grammar's), our own definitions, imports and facts, and the
    identifier leaves (`@id`), as one query: one pass over the tree instead of two. A
    match counts only when it passes `type_checks(name)`. `level`: the form (default:
    `form(name)`)."""
    return _tags(name, form(name) if level is None else level)[0]


def type_checks(name: str, level: int | None = None) -> TypeChecks:
    return _tags(name, form(name) if level is None else level)[1]


def tags_source(name: str) -> str:
    """The tags query's whole source, before `compact_patterns` keeps what the extraction reads."""
    return "\n".join(p for p in (shipped_source(name), own_query(name), LANGUAGES[name].identifiers) if p)


def tags_text(name: str) -> str:
    """The source `tags_query(name)` was compiled from in the form that matches cheapest (its
    patterns off are `unsupported_patterns` of it): what another runtime compiles to run the
    same query."""
    return _tags(name, MATCHING_FORM)[2]


@cache
def _tags(name: str, level: int) -> tuple[Query, TypeChecks, str]:
    source = tags_source(name)
    # Compiling a query analyses every pattern against the grammar's parse table, which is
    # most of a worker's setup: compile only what the extraction reads (see `_used_patterns`).
    compact = compact_patterns(source, language(name), level)
    room_for(QUERY_ROOM, f"compiling the {name} tags query")
    if compact is not None:
        texts, checks = compact
        try:
            text = "\n".join(texts)
            query = Query(language(name), text)
            if query.pattern_count == len(texts):
                return query, checks, text
        except Exception as exc:
            if lack_of_memory(exc):  # not a pattern to do without: the full form would be cached for good
                raise
    query = Query(language(name), source)
    for index in unsupported_patterns(query, source):
        query.disable_pattern(index)
    return query, {}, source


def shipped_source(name: str) -> str:
    """The shipped tags the language's query starts with: its base grammar's, then its own."""
    base = LANGUAGES[name].tags_base
    return "\n".join(p for p in (shipped_tags(base) if base else "", shipped_tags(name)) if p)


def compact_patterns(source: str, lang: Language, level: int = MATCHING_FORM) -> tuple[list[str], TypeChecks] | None:
    """The patterns of `source` the extraction reads, in the form cheaper to compile
    (`_used_patterns`, `_narrowed`, `_open_parents` from `level` below the root), and the
    type checks their matches must pass; None when the source does not split into patterns."""
    patterns = _used_patterns(source)
    if patterns is None:
        return None
    checks: TypeChecks = {}
    texts = []
    for index, text in enumerate(patterns):
        text, pattern_checks = _narrowed(text, lang)
        text, parent_checks = _open_parents(text, lang, len(pattern_checks), level)
        if pattern_checks or parent_checks:
            checks[index] = pattern_checks + parent_checks
        texts.append(rooted(text))
    return texts, checks


# The capture `rooted` puts on a pattern's root; the extraction reads nothing of it.
ROOT_CAPTURE = "rennet.root"


def rooted(text: str) -> str:
    """`text` with a capture on its root step when it has none. tree-sitter holds a match in
    progress from its root node until it completes or the cursor leaves that node, and bounds
    those in progress by the cursor's match limit only once they hold a capture: a pattern
    whose root captures nothing (`(declaration_list (function_item ...) @definition.method)`)
    kept one for every enclosing node of its root's type, each looked at again at every node
    below, work quadratic in the nesting. With the capture each is one of the matches the
    limit bounds, and past it the facts say they may be incomplete. A group's first step
    (`((kind ...) @x (#eq? ...))`) is its root."""
    start = 0
    if text.startswith("("):
        inner = len(text) - len(text[1:].lstrip())
        if text[inner:inner + 1] == "(":  # a group: its first step is the root
            start = inner
    found = _KIND.match(text, start + 1) if text[start:start + 1] == "(" else None
    if found is None:  # an alternation or a lone wildcard string: not a step with children
        return text
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c == '"':
            i = string_end(text, i)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                break
        i += 1
    after = text[i + 1:].lstrip()
    if i >= len(text) or after[:1] in ("@", "*", "+", "?"):  # captured, or a repetition's own
        return text
    return f"{text[:i + 1]} @{ROOT_CAPTURE}{text[i + 1:]}"


# `field: [(a) (b) ...]` (or `field: ([...])`): a field's node of one of several types.
_ALTERNATION = re.compile(r"(\b[a-z_]+:\s*)(\(\s*)?\[((?:\s*\([a-z_]+\))+)\s*\](?(2)\s*\))")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_QUANTIFIER = re.compile(r"[)\]_]\s*[*+?]")
# Two types cost little to compile, and the wildcard would then hand tags.py every other
# node of the field to reject (every non-function `value` of an object literal's pairs).
_NARROW_MIN_TYPES = 3


def _narrowed(text: str, lang: Language) -> tuple[str, tuple[tuple[str, frozenset[str]], ...]]:
    """`text` with each field alternation of three or more plain node types turned into
    `(_)` plus a capture whose type tags.py checks. The analysis tree-sitter runs when
    compiling grows with the branches of an alternation (JavaScript's `export default x =`
    constant pattern lists eight: a sixth of TypeScript's setup), and a field holds one
    node, so the matches that pass the check are the same. Only in patterns without
    quantifiers (a check after the fact cannot stop a repetition) and for concrete node
    types."""
    if _QUANTIFIER.search(_STRING.sub("", text)):
        return text, ()
    checks: list[tuple[str, frozenset[str]]] = []
    plain = _STRING.sub(lambda m: " " * len(m.group()), text)

    def narrow(match: re.Match[str]) -> str:
        types = re.findall(r"\(([a-z_]+)\)", match.group(3))
        if len(types) < _NARROW_MIN_TYPES:
            return match.group()
        before = plain[:match.start()]
        if before.count("[") > before.count("]"):
            return match.group()  # in a branch of another alternation: the capture would be missing from the others' matches
        for kind in types:
            kind_id = lang.id_for_node_kind(kind, True)
            # (`node_kind_is_supertype` answers True for every kind in py-tree-sitter 0.26.1)
            if kind_id is None or kind_id in lang.supertypes:
                return match.group()
        capture = f"rennet.type.{len(checks)}"
        checks.append((capture, frozenset(types)))
        return f"{match.group(1)}(_) @{capture}"

    return _ALTERNATION.sub(narrow, text), tuple(checks)


_KIND = re.compile(r"[a-z_][a-z0-9_]*")


def _open_parents(text: str, lang: Language, taken: int, level: int = MATCHING_FORM,
                  ) -> tuple[str, tuple[tuple[str, frozenset[str]], ...]]:
    """`text` with each step `level` levels or more below the pattern's root that has children
    of its own turned from `(kind ...)` into `(_ ...)` plus a capture whose type tags.py
    checks. tree-sitter analyses every parent step of a concrete kind against the parse
    table as it compiles (a deep pattern pays it at each level: Python's module-level
    assignments in `if` and `try` bodies, most of its setup) and skips a wildcard's; the node
    a step matches has one kind, so the matches that pass the check are the same. In the
    form that matches cheapest (level 2) the root and the step right under it stay kinds, so
    a match starts only where two kinds line up and the wildcards cost the matching next to
    nothing; opened right under the root (level 1, the form that compiles cheapest) every
    child of every root node is tried, and deep nesting keeps more matches in progress, up
    to the cursor's match limit. Only in patterns without quantifiers or predicates, for
    steps outside alternations (a capture there would be missing from the other branches'
    matches) and for concrete kinds; `taken`: checks `_narrowed` added."""
    outside_strings = _STRING.sub("", text)
    if _QUANTIFIER.search(outside_strings) or "#" in outside_strings or text[:1] != "(":
        return text, ()
    opens: list[tuple[int, str, bool]] = []  # per open step: where its kind starts, the kind, has children
    alternation = 0
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement), in text order of their ends
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i = string_end(text, i)
            continue
        if c == "[":
            alternation += 1
        elif c == "]":
            alternation -= 1
        elif c == "(":
            if opens:
                opens[-1] = (opens[-1][0], opens[-1][1], True)
            found = _KIND.match(text, i + 1)
            opens.append((i + 1, found.group() if found and alternation == 0 else "", False))
        elif c == ")":
            start, kind, children = opens.pop()
            if len(opens) >= level and kind and kind != "_" and children:
                edits.append((start, start + len(kind), kind))
                edits.append((i + 1, i + 1, kind))
        i += 1
    checks: list[tuple[str, frozenset[str]]] = []
    out, at = [], 0
    for start, end, kind in sorted(edits):
        kind_id = lang.id_for_node_kind(kind, True)
        if kind_id is None or kind_id in lang.supertypes:
            continue
        out.append(text[at:start])
        if end > start:
            out.append("_")
        else:
            capture = f"rennet.type.{taken + len(checks)}"
            checks.append((capture, frozenset((kind,))))
            out.append(f" @{capture}")
        at = end
    out.append(text[at:])
    return "".join(out), tuple(checks)


@cache
def first_identifier_pattern(name: str) -> int:
    """Index of the first `@id` pattern in `tags_query(name)` (either form: they hold the same
    patterns): they come last, and every match from there on is an occurrence site."""
    patterns = _split_patterns(LANGUAGES[name].identifiers) or []
    return tags_query(name).pattern_count - len(patterns)


def unsupported_patterns(query: Query, source: str) -> list[int]:
    """The patterns of `query` (compiled from `source`) the tags query disables."""
    # Ruby's tags mark every identifier not a local as a call via `#is-not? local`, a
    # predicate needing scope analysis that py-tree-sitter does not evaluate; kept, it
    # would call every variable a call. `call` nodes still give real calls.
    encoded = source.encode("utf-8")
    return [index for index in range(query.pattern_count)
            if b"#is-not? local" in encoded[query.start_byte_for_pattern(index):query.end_byte_for_pattern(index)]]


# Captures that give a match a role in indexer/extract/tags.py; a pattern with none of them
# (go's `(package_clause ...) @name`, ruby's `(setter ...) @ignore`) yields nothing there.
_ROLE_CAPTURE = re.compile(r"@(?:definition\.|reference\.|import\.|local\.(?:scope|bind)\.|scope\b|main\b|package\b|id\b)")
# A leading run of doc comments (`(comment)* @doc .`): it only adds an @doc capture that
# nothing reads, the match is the same without it, and it makes a pattern several times
# costlier to compile. Its `#strip!`/`#select-adjacent!` directives go with it.
_DOC_PREFIX = re.compile(r"^\(\s*\(comment\)\*\s*@doc\s*\.\s*")
_DOC_DIRECTIVE = re.compile(r'\(#[\w!?-]+(?:\s+(?:@[\w.]+|"(?:[^"\\]|\\.)*"))*\s*\)')


def _used_patterns(source: str) -> list[str] | None:
    """The top-level patterns of `source` the extraction can read, in order: those with a
    role capture, without `#is-not? local` (unsupported, see `unsupported_patterns`), and
    without a doc-comment prefix. None when the source does not split cleanly."""
    split = _split_patterns(source)
    if split is None:
        return None
    out = []
    for text in split:
        if not _ROLE_CAPTURE.search(text) or "#is-not? local" in text:
            continue
        if _DOC_PREFIX.match(text):
            stripped = _DOC_PREFIX.sub("(", text, count=1)
            stripped = _DOC_DIRECTIVE.sub(lambda m: "" if "@doc" in m.group() else m.group(), stripped)
            if "@doc" not in stripped:
                text = stripped
        out.append(text)
    return out


def _split_patterns(source: str) -> list[str] | None:
    """Top-level patterns of a query source, comments dropped; a pattern runs from its
    opening bracket (or string) through the captures and quantifiers after it."""
    patterns: list[str] = []
    current: list[str] = []
    depth = 0
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if c == ";":
            end = source.find("\n", i)
            i = n if end < 0 else end
            continue
        if c == '"':
            j = i + 1
            while j < n and source[j] != '"':
                j += 2 if source[j] == "\\" else 1
            if j >= n:
                return None
            if depth == 0 and current:
                patterns.append("".join(current).strip())
                current = []
            current.append(source[i:j + 1])
            i = j + 1
            continue
        if c in "([":
            if depth == 0 and current:
                patterns.append("".join(current).strip())
                current = []
            depth += 1
        elif c in ")]":
            depth -= 1
            if depth < 0:
                return None
        elif depth == 0 and not (c.isspace() or c in "@*+?" or c.isalnum() or c in "._-"):
            return None
        elif depth == 0 and not current and not c.isspace():
            return None  # something before the first pattern: not a shape we know
        current.append(c)
        i += 1
    if depth != 0:
        return None
    if current:
        patterns.append("".join(current).strip())
    return [p for p in patterns if p]


def parser(name: str) -> Parser:
    """This thread's parser for `name` (parsers keep state and are not thread-safe)."""
    parsers = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = _local.parsers = {}
    found = parsers.get(name)
    if found is None:
        found = parsers[name] = Parser(language(name))
    return found


# tree-sitter allocates through py-tree-sitter's PyMem functions, which return NULL when an
# address-space limit (`ulimit -v`) refuses the room, and uses what they return unchecked: a
# segmentation fault, not a MemoryError. Under a limit the most a parse (its tree, a few hundred
# bytes a byte of source at worst, and its query's cursor) or a query's compile may take is
# asked for first (`memory_limit.room_for`), its lack `out_of_memory`.
PARSE_ROOM = 16 << 20
PARSE_ROOM_PER_BYTE = 512
QUERY_ROOM = 16 << 20

# Parse budget. tree-sitter calls the progress callback every fixed number of parser
# operations, so counting calls is a deterministic cap: the same bytes hit it or not on any
# machine. Some external scanners (bash on long runs of whitespace) spend seconds between
# two calls, so a wall-clock limit, far above any normal parse (a few MB/s), backs it up.
PARSE_STEPS_BASE = 20_000
PARSE_STEPS_PER_KIB = 100
# The step budget is what bounds a parse, and it is the same on every machine. The wall-clock
# deadline is a last resort far above any step-bounded parse, so a loaded machine never turns
# a parse into `unparseable`: facts are cached by content and must not depend on the load.
WALL_SECONDS_BASE = 30.0
WALL_SECONDS_PER_MIB = 60.0
# Bytes handed to the parser. A real file is read less than twice over; a token that never
# ends (an unclosed `/*` again and again) is lexed to the end of the file from each start,
# quadratic work between two progress calls, and py-tree-sitter keeps every chunk it was
# handed. Past this budget the parse is cut short, so both stay linear in the file.
HANDED_BYTES_BASE = 4 << 20
HANDED_BYTES_PER_BYTE = 64
_CHUNK = 1 << 16
# What a node's text is read in once the parse is over: py-tree-sitter reads a node's text
# through the parse's reader, a chunk at a time from the node's start, so a chunk of _CHUNK
# cost each name read (`Node.text`) a copy of the file's next 64 kB.
_TEXT_CHUNK = 1 << 10


class Budget:
    """A step budget for one parse, with a wall-clock deadline as a last resort."""

    __slots__ = ("limit", "steps", "deadline", "exceeded", "handed")

    def __init__(self, size: int) -> None:
        self.limit = PARSE_STEPS_BASE + PARSE_STEPS_PER_KIB * (size >> 10)
        self.steps = 0
        self.deadline = time.monotonic() + WALL_SECONDS_BASE + WALL_SECONDS_PER_MIB * size / (1 << 20)
        self.exceeded = False
        self.handed: int | None = HANDED_BYTES_BASE + HANDED_BYTES_PER_BYTE * size  # bytes the parser may still be handed

    def chunk(self, source: bytes, offset: int) -> bytes:
        """What the parser reads from `offset`, and its end once over budget. The tree keeps
        this reader to give its nodes' text: once the parse is over (`handed` None), it reads
        without a budget, a small chunk at a time (`_TEXT_CHUNK`)."""
        if self.handed is None:
            return source[offset:offset + _TEXT_CHUNK]
        piece = source[offset:offset + _CHUNK]
        self.handed -= len(piece)
        if self.handed < 0:
            self.exceeded = True
            return b""
        return piece

    def tick(self, *_: object) -> bool:
        self.steps += 1
        if self.steps > self.limit or time.monotonic() > self.deadline:
            self.exceeded = True
        return self.exceeded


def parser_view(name: str, data: bytes) -> bytes:
    """What the parser is given: `data`, or the view the language's package shows of it
    (`Language.view`: C and C++ blank the macros tree-sitter cannot place). Same length and
    lines, so every offset and name read from `data` still holds."""
    view = _parser_view(name)
    return data if view is None else view(name, data)


@cache
def _parser_view(name: str) -> Callable[[str, bytes], bytes] | None:
    module = LANGUAGES[name].view
    return part(module, "parser_view") if module else None  # type: ignore[return-value]


def parse(name: str, data: bytes) -> Tree | None:
    """The syntax tree of `data` (as `parser_view` shows it), or None when parsing ran over its
    budget or the source is one the grammar is known to crash on (`Language.unsafe`).
    A tree with errors, of a language that has a retry view (`Language.retry`), is
    parsed again as that view shows the source, and that tree kept when it has fewer bytes in errors: a clean file costs one parse."""
    found = parse_as_shown(name, data)
    return found[0] if found is not None else None


def parse_as_shown(name: str, data: bytes) -> tuple[Tree, bytes] | None:
    """`parse`'s tree with the bytes it is the tree of: `data` itself, or a view of it (same
    length and lines, some bytes blanked), for a reader of what the tree holds byte for byte."""
    unsafe = _unsafe(name)
    if unsafe is not None and unsafe(data):
        return None
    shown = parser_view(name, data)
    kept, _SHOWN.last = getattr(_SHOWN, "last", None), None
    tree = kept[2] if kept is not None and kept[0] == name and kept[1] is shown else _parse(name, shown)
    retry = _retry_view(name)
    if retry is not None and tree is not None and tree.root_node.has_error:
        view = retry(data, tree.root_node)
        if view is not None:
            other = _parse(name, view)
            if other is not None and error_bytes(other.root_node) < error_bytes(tree.root_node):
                return other, view
    return (tree, shown) if tree is not None else None


@cache
def _unsafe(name: str) -> Callable[[bytes], bool] | None:
    module = LANGUAGES[name].unsafe
    return part(module, "unsafe_source") if module else None  # type: ignore[return-value]


@cache
def _retry_view(name: str) -> Callable[[bytes, Node], bytes | None] | None:
    module = LANGUAGES[name].retry
    return part(module, "retry_view") if module else None  # type: ignore[return-value]


_SHOWN = threading.local()  # the last view `parse_shown` parsed on this thread: (name, view, tree)


def parse_shown(name: str, data: bytes) -> Tree | None:
    """The tree of `data` as given, under the parse budget: for a language's view to check a
    view of a source it would show. Kept for `parse`, which takes it when the view it is
    shown is that very object, rather than parse the same bytes again."""
    tree = _parse(name, data)
    _SHOWN.last = (name, data, tree)
    return tree


def parse_fragment(name: str, data: bytes) -> Tree | None:
    """The tree of `data` as given, under the parse budget, not kept for `parse`: for a view
    to read a piece of the source on its own (Rust's item macro bodies)."""
    return _parse(name, data)


def _parse(name: str, data: bytes) -> Tree | None:
    room_for(PARSE_ROOM + PARSE_ROOM_PER_BYTE * len(data), f"parsing a {name} file of {len(data)} bytes")
    p = parser(name)
    budget = Budget(len(data))
    try:
        tree = p.parse(lambda offset, _point: budget.chunk(data, offset), progress_callback=budget.tick)
    except ValueError:  # py-tree-sitter raises "Parsing failed" when the callback cancels
        p.reset()
        return None
    finally:
        budget.handed = None
    return None if budget.exceeded else tree


def _failures(root: Node) -> Iterator[tuple[Node, int]]:
    """The nodes a parse's errors are told from, in document order, with their depth below
    `root`: each outermost ERROR node under it, each missing node, and each leaf beside them.
    Descends only into subtrees that contain an error, as `has_wide_error` does."""
    cursor = root.walk()
    while True:
        node = cursor.node
        if node is None:
            return
        descend = False
        if node.is_missing or (node.is_error and node != root) or node.child_count == 0:
            yield node, cursor.depth
        else:
            descend = node.has_error
        if descend and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return


def error_bytes(root: Node) -> int:
    """How much of the source the tree could not place: the bytes under each outermost ERROR
    node, plus one per missing node. A root that is itself an ERROR (the parser gave up on the
    file as a whole) counts only the tokens standing directly in it, and its children as any
    other node's, so two such trees still compare by how much each recovered."""
    if not root.has_error:
        return 0
    total = 0
    for node, depth in _failures(root):
        if node.is_missing:
            total += 1
        elif (node.is_error and node != root) or (root.is_error and depth == 1):  # an ERROR, or a token directly in the root
            total += node.end_byte - node.start_byte
    return total


# The regions of a parse's errors its facts keep (`BlobFacts.parse_errors`), the first in
# document order; the rest are only counted. An agent needs where the parse failed, not a list
# as long as the damage a half-written file can do.
PARSE_ERROR_REGIONS = 8
_MISSING_KIND_CHARS = 40


def error_regions(root: Node) -> tuple[list[tuple[int, int, str]], int]:
    """Where the parse of `root` failed: the first PARSE_ERROR_REGIONS of its outermost ERROR
    nodes and missing nodes, in document order, each as (first line, last line, 1-based; for a
    missing node the kind of token the parser assumed there, else ""), and how many there are
    in all. A root that is itself an ERROR is one region, the whole file. A clean tree costs
    one check."""
    if not root.has_error:
        return [], 0
    if root.is_error:
        return [(root.start_point[0] + 1, _last_line(root), "")], 1
    regions: list[tuple[int, int, str]] = []
    total = 0
    for node, _ in _failures(root):
        if not (node.is_missing or node.is_error):
            continue
        total += 1
        if len(regions) < PARSE_ERROR_REGIONS:
            regions.append((node.start_point[0] + 1, _last_line(node),
                            node.type[:_MISSING_KIND_CHARS] if node.is_missing else ""))
    return regions, total


def _last_line(node: Node) -> int:
    """The 1-based last line of `node`: its end point is past its last byte, so a node ending
    at a line's start ends on the line before (a whole file's, after its last line break)."""
    end = node.end_point
    return end[0] if end[1] == 0 and end[0] > node.start_point[0] else end[0] + 1


# tree-sitter's query cursor is quadratic in the number of children of an ERROR node
# (50,000 stray `(` take seconds per query); such a tree is not usefully queryable. Comments
# among them are not counted: they cost the cursor no more than their lines.
WIDE_ERROR_CHILDREN = 2000


def _code_children(node: Node) -> int:
    """The children of `node` that are no comment (no extra): a run of comments after an
    unclosed block, each a child of the ERROR node recovery ends in, costs the query cursor
    no more than the lines they are, and the definitions before them are worth reading."""
    count = 0
    cursor = node.walk()
    more = cursor.goto_first_child()
    while more:
        child = cursor.node
        if child is not None and not child.is_extra:
            count += 1
        more = cursor.goto_next_sibling()
    return count


def has_wide_error(root: Node) -> bool:
    """True when an ERROR node has more than WIDE_ERROR_CHILDREN children. Iterative, and
    descends only into subtrees that contain an error, so a clean tree costs one check."""
    if not root.has_error:
        return False
    cursor = root.walk()
    while True:
        node = cursor.node
        if node is None:
            return False
        if node.is_error and node.child_count > WIDE_ERROR_CHILDREN and _code_children(node) > WIDE_ERROR_CHILDREN:
            return True
        if node.has_error and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return False


# tree-sitter's query cursor keeps the depth at which a match started in 16 bits: a node
# deeper than this below the queried root wraps it, so matches from there are lost and their
# states pile up unfinished, slowing the cursor while it still loses matches. Such a tree is
# not usefully queryable.
QUERY_MAX_DEPTH = 0xFFFF


def is_too_deep(root: Node) -> bool:
    """True when a node lies more than QUERY_MAX_DEPTH levels below `root`. A subtree of n
    nodes reaches at most n - 1 levels below its top, so only subtrees larger than the depth
    still allowed are entered: a tree of up to 65,536 nodes costs one check, a large flat one
    a look at its top levels."""
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > QUERY_MAX_DEPTH:
            return True
        if depth + node.descendant_count - 1 > QUERY_MAX_DEPTH:
            stack.extend((child, depth + 1) for child in node.children)
    return False
