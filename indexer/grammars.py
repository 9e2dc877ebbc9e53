"""tree-sitter grammars: Language objects, compiled queries and per-thread parsers.

Everything here is built once per process (queries) or once per thread (parsers, which
are not thread-safe) and reused for every blob. The tags query of a language is the
grammar wheel's shipped `queries/tags.scm` (TypeScript's adds to JavaScript's, as the
grammar intends) followed by ours from `indexer/queries/<lang>.scm`.
"""

from __future__ import annotations

import importlib
import threading
import time
from functools import lru_cache
from pathlib import Path

from tree_sitter import Language, Node, Parser, Query, Tree

# language -> (module, factory function)
_MODULES: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "csharp": ("tree_sitter_c_sharp", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "php": ("tree_sitter_php", "language_php"),
    "bash": ("tree_sitter_bash", "language"),
}

# Shipped tags of another grammar that this one extends (TypeScript's tags.scm only adds
# TS-specific patterns to JavaScript's).
_TAGS_BASE: dict[str, str] = {"typescript": "javascript", "tsx": "javascript"}

# Our own queries, named by the language whose grammar they are written against.
_OWN_QUERY_FILE: dict[str, str] = {"tsx": "typescript"}

QUERY_DIR = Path(__file__).with_name("queries")

_local = threading.local()


@lru_cache(maxsize=None)
def language(name: str) -> Language:
    module, factory = _MODULES[name]
    return Language(getattr(importlib.import_module(module), factory)())


def shipped_tags(name: str) -> str:
    """The grammar wheel's `queries/tags.scm` text, "" when it ships none (bash)."""
    module_name = _MODULES[name][0]
    module = importlib.import_module(module_name)
    text = getattr(module, "TAGS_QUERY", None)
    if text:
        return text
    # tree-sitter-c-sharp installs its queries beside the package, under the dist name.
    pkg_dir = Path(module.__file__).parent
    for candidate in (pkg_dir / "queries" / "tags.scm",
                      pkg_dir.parent / pkg_dir.name.replace("c_sharp", "c-sharp") / "queries" / "tags.scm"):
        if candidate.is_file():
            return candidate.read_text(encoding="utf-8")
    return ""


def own_query(name: str) -> str:
    path = QUERY_DIR / f"{_OWN_QUERY_FILE.get(name, name)}.scm"
    return path.read_text(encoding="utf-8") if path.is_file() else ""


@lru_cache(maxsize=None)
def tags_query(name: str) -> Query:
    """Shipped tags (+ base grammar's), our own definitions, imports and facts, and the
    identifier leaves (`@id`), as one query: one pass over the tree instead of two."""
    parts = []
    base = _TAGS_BASE.get(name)
    if base:
        parts.append(shipped_tags(base))
    parts.append(shipped_tags(name))
    parts.append(own_query(name))
    parts.append(IDENTIFIER_PATTERNS[name])
    query = Query(language(name), "\n".join(p for p in parts if p))
    _disable_unsupported(query, "\n".join(p for p in parts if p))
    return query


def _disable_unsupported(query: Query, source: str) -> None:
    # Ruby's tags mark every identifier not a local as a call via `#is-not? local`, a
    # predicate needing scope analysis that py-tree-sitter does not evaluate; kept, it
    # would call every variable a call. `call` nodes still give real calls.
    for index in range(query.pattern_count):
        text = source[query.start_byte_for_pattern(index):query.end_byte_for_pattern(index)]
        if "#is-not? local" in text:
            query.disable_pattern(index)


# Identifier-like leaves per grammar: the occurrence sites.
IDENTIFIER_PATTERNS: dict[str, str] = {
    "python": "(identifier) @id",
    "javascript": "[(identifier) (property_identifier) (shorthand_property_identifier)"
                  " (shorthand_property_identifier_pattern) (private_property_identifier)] @id",
    "typescript": "[(identifier) (property_identifier) (shorthand_property_identifier)"
                  " (shorthand_property_identifier_pattern) (private_property_identifier)"
                  " (type_identifier)] @id",
    "go": "[(identifier) (type_identifier) (field_identifier) (package_identifier)] @id",
    "rust": "[(identifier) (type_identifier) (field_identifier) (shorthand_field_identifier)] @id",
    "java": "[(identifier) (type_identifier)] @id",
    "c": "[(identifier) (type_identifier) (field_identifier)] @id",
    "cpp": "[(identifier) (type_identifier) (field_identifier) (namespace_identifier)] @id",
    "csharp": "(identifier) @id",
    "ruby": "[(identifier) (constant)] @id",
    "php": "(name) @id",
    "bash": "(variable_name) @id\n(command_name (word) @id)",
}
IDENTIFIER_PATTERNS["tsx"] = IDENTIFIER_PATTERNS["typescript"]


def parser(name: str) -> Parser:
    """This thread's parser for `name` (parsers keep state and are not thread-safe)."""
    parsers = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = _local.parsers = {}
    found = parsers.get(name)
    if found is None:
        found = parsers[name] = Parser(language(name))
    return found


# Parse budget. tree-sitter calls the progress callback every fixed number of parser
# operations, so counting calls is a deterministic cap: the same bytes hit it or not on any
# machine. Some external scanners (bash on long runs of whitespace) spend seconds between
# two calls, so a wall-clock limit, far above any normal parse (a few MB/s), backs it up.
PARSE_STEPS_BASE = 20_000
PARSE_STEPS_PER_KIB = 100
WALL_SECONDS_BASE = 1.0
WALL_SECONDS_PER_MIB = 4.0
_CHUNK = 1 << 16


class Budget:
    """A step and time budget for one parse."""

    __slots__ = ("limit", "steps", "deadline", "exceeded")

    def __init__(self, size: int) -> None:
        self.limit = PARSE_STEPS_BASE + PARSE_STEPS_PER_KIB * (size >> 10)
        self.steps = 0
        self.deadline = time.monotonic() + WALL_SECONDS_BASE + WALL_SECONDS_PER_MIB * size / (1 << 20)
        self.exceeded = False

    def tick(self, *_: object) -> bool:
        self.steps += 1
        if self.steps > self.limit or time.monotonic() > self.deadline:
            self.exceeded = True
        return self.exceeded


def parse(name: str, data: bytes) -> Tree | None:
    """The syntax tree of `data`, or None when parsing ran over its budget."""
    p = parser(name)
    budget = Budget(len(data))
    try:
        return p.parse(lambda offset, _point: data[offset:offset + _CHUNK], progress_callback=budget.tick)
    except ValueError:  # py-tree-sitter raises "Parsing failed" when the callback cancels
        p.reset()
        return None


# tree-sitter's query cursor is quadratic in the number of children of an ERROR node
# (50,000 stray `(` take seconds per query); such a tree is not usefully queryable.
WIDE_ERROR_CHILDREN = 2000


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
        if node.is_error and node.child_count > WIDE_ERROR_CHILDREN:
            return True
        if node.has_error and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return False
