"""Where whitespace is data: what a file's grammar says of a change of whitespace alone.

`delta.hunks.words` finds the candidates, the same words on the same lines. Whether the
whitespace that moved lies between tokens (layout) or inside one (the program's data) is the
grammar's to say:

- A file we parse (its language has a grammar, `indexer.lang.registry.detect_language`; it
  is within the indexer's size cap and parse budget, the parser was shown its own bytes or a
  view keeping every token where it stands, and the tree has no error) keeps its meaning when its two sides give the same tree over the
  stretch compared, and each literal there (`Language.literals`: strings, heredocs, template
  and raw strings, regular expressions, characters, Bash's words) the same bytes: a space in
  `"a b"`, a blank line in a SQL string, a trailing space in a heredoc are changes, and so is
  a change the tree shows, a backslash that no longer continues a Bash line. A comment's text
  is not compared (its words are, with the file's).
- Any other file is compared as lines alone (`plain`): what no literal within one line can
  hold may differ (indentation, blank lines, trailing whitespace, line ends); spacing between
  the words of a line is a change, as the grammar could not say it lies outside a string, and
  a line ending in a backslash keeps what follows it, and the blank line after it. YAML's
  block scalars and multi-line scalars are read so too (`delta.yaml_scalars`).

Parsing is paid only for candidates, within `SYNTAX_BYTES` a packet (`Parses`), in the
packet's own order, so the same range gives the same classes on any machine.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import zip_longest
from typing import Iterator

from tree_sitter import Node, Query, QueryCursor, Tree

from indexer.lang import grammars
from indexer.lang.content import skip_reason
from indexer.lang.registry import GRAMMAR_LANGUAGES, HEAD_BYTES, LANGUAGES, detect_language
from indexer.pipeline.extract import SIZE_CAP

# The bytes of sources a packet parses to tell whitespace from data: past it, files are
# compared as lines alone (`plain`), which says signal more often, never less.
SYNTAX_BYTES = 16 << 20
# The nodes a hunk's stretch may visit, past those its own bytes make, and those the hunks of
# a packet may visit together: a hunk deep in a hostile nesting, or past the packet's, is
# signal rather than a walk from the root down for each of thousands of hunks.
STRETCH_NODES = 1024
STRETCH_BUDGET = 1 << 20

_BLANKS = b" \t"


@dataclass(frozen=True)
class Parsed:
    """One side's tree and its literals: by each outermost literal's start, the span it is
    compared over (a `literal_lines` one widened over the blanks beside it on its line)."""

    tree: Tree
    data: bytes
    literals: dict[int, tuple[int, int]]
    literal_ids: frozenset[int]  # the node kinds that are literals
    trimmed_ids: frozenset[int]  # those read without the blanks at their ends
    crlf_is_lf: bool

    def text(self, node: Node) -> bytes:
        """A literal's bytes as they are data, or a token's."""
        begin, end = self.literals.get(node.start_byte, (node.start_byte, node.end_byte))
        text = self.data[begin:end]
        if node.kind_id in self.trimmed_ids:
            text = text.strip(b" \t\r")
        return text.replace(b"\r\n", b"\n") if self.crlf_is_lf else text


@cache
def _literal_query(name: str) -> Query:
    return Query(grammars.language(name), "[" + " ".join(f"({k})" for k in LANGUAGES[name].literals) + "] @literal")


@cache
def _kind_ids(name: str) -> tuple[frozenset[int], frozenset[int], frozenset[int]]:
    """The node kinds (ids) of the language's literals, of those read to their line's ends, and
    of those read without the blanks at their ends."""
    lang = grammars.language(name)
    record = LANGUAGES[name]
    kinds = {i: lang.node_kind_for_id(i) for i in range(lang.node_kind_count) if lang.node_kind_is_named(i)}
    return (frozenset(i for i, k in kinds.items() if k in record.literals),
            frozenset(i for i, k in kinds.items() if k in record.literal_lines),
            frozenset(i for i, k in kinds.items() if k in record.literal_trimmed))


def parse(path: str, data: bytes) -> Parsed | None:
    """The tree of the file at `path` holding `data`, or None where its grammar does not read
    it: no grammar, a blob the indexer would not parse (binary, over its size cap, undecodable,
    minified), a parse over budget, with an error or too deep to query, or one of a view of the
    file that moves tokens (C's blanked macros; Python's blanked comment runs keep every token
    and literal where it stands, `Language.view_keeps_tokens`, and are read)."""
    language = detect_language(path, data[:HEAD_BYTES])
    if language not in GRAMMAR_LANGUAGES or not LANGUAGES[language].literals:
        return None
    if skip_reason(data, path, language, SIZE_CAP)[0]:
        return None
    found = grammars.parse_as_shown(language, data)
    if found is None:
        return None
    tree, shown = found
    if tree.root_node.has_error or (shown is not data and shown != data and not LANGUAGES[language].view_keeps_tokens):
        return None
    if grammars.is_too_deep(tree.root_node):  # a query loses the literals past the depth it counts
        return None
    literal_ids, line_ids, trimmed_ids = _kind_ids(language)
    cursor = QueryCursor(_literal_query(language))
    nodes = cursor.captures(tree.root_node).get("literal", [])
    if cursor.did_exceed_match_limit:
        return None
    spans: dict[int, tuple[int, int]] = {}
    last_end = -1
    for node in sorted(nodes, key=lambda n: (n.start_byte, -n.end_byte)):
        start, end = node.start_byte, node.end_byte
        if start < last_end:
            continue  # within one kept already
        last_end = end
        if node.kind_id in line_ids:
            while start > 0 and data[start - 1] in _BLANKS:
                start -= 1
            while end < len(data) and data[end] in b" \t\r":
                end += 1
        spans[node.start_byte] = (start, end)
    return Parsed(tree, data, spans, literal_ids, trimmed_ids, LANGUAGES[language].literal_crlf_is_lf)


class Parses:
    """The parses of one packet, within `SYNTAX_BYTES` in the order they are asked for, and
    the walks of its hunks' stretches, within `STRETCH_BUDGET` nodes."""

    def __init__(self, budget: int | None = None) -> None:
        self.left = SYNTAX_BYTES if budget is None else budget
        self.nodes_left = STRETCH_BUDGET

    def __call__(self, path: str, data: bytes) -> Parsed | None:
        if len(data) > self.left:
            return None
        self.left -= len(data)
        return parse(path, data)

    def stretch(self, p: Parsed, a: int, b: int) -> Key | None:
        """`stretch` within the hunk's and the packet's bounds on nodes: None past either."""
        cap = min(STRETCH_NODES + b - a, self.nodes_left)
        found = stretch(p, a, b, cap)
        self.nodes_left -= cap if found is None else len(found)
        return found


Key = list[tuple[object, ...]]


def stretch(p: Parsed, a: int, b: int, cap: int | None = None) -> Key | None:
    """What the tree holds over bytes [a, b), or at the point a when a == b: each node over it,
    in order, with whether it opens there and whether it closes there, each token's text, and
    each literal's bytes whole. Between two sides that differ in whitespace outside every token,
    the same. None when the walk would visit more than `cap` nodes."""
    root = p.tree.root_node
    out: Key = [(root.kind_id,)]  # the whole file, whatever blank lines begin or end it
    todo: list[tuple[Node, bool]] = [(c, False) for c in reversed(_children_over(root, a, b))]
    visited = 0
    while todo:
        node, leaving = todo.pop()
        if leaving:
            out.append((-1, node.kind_id))
            continue
        visited += 1
        if cap is not None and visited > cap:
            return None
        start, end = node.start_byte, node.end_byte
        if node.kind_id in p.literal_ids and start in p.literals:
            out.append((node.kind_id, start >= a, end <= b, p.text(node)))
            continue
        if node.is_extra:  # a comment: its words are the file's, its spacing no data
            out.append((node.kind_id, start >= a, end <= b))
            continue
        if node.child_count == 0:
            out.append((node.kind_id, start >= a, end <= b, p.text(node)))
            continue
        out.append((node.kind_id, start >= a))
        if end <= b:
            todo.append((node, True))
        todo.extend((c, False) for c in reversed(_children_over(node, a, b)))
    return out


def same_trees(old: Parsed, new: Parsed) -> bool:
    """Whether two sides hold the same tree and literals (`stretch` over each whole file),
    read in step, to the first difference."""
    return all(a == b for a, b in zip_longest(whole(old), whole(new)))


def whole(p: Parsed) -> Iterator[tuple[object, ...]]:
    """`stretch` over the whole file, in one walk of a cursor: every node opens and closes in it."""
    root = p.tree.root_node
    yield (root.kind_id,)
    cursor = root.walk()
    if not cursor.goto_first_child():
        return
    literals, literal_ids = p.literals, p.literal_ids
    while True:
        node = cursor.node
        assert node is not None
        kind, start = node.kind_id, node.start_byte
        descend = False
        if kind in literal_ids and start in literals:
            yield (kind, True, True, p.text(node))
        elif node.is_extra:
            yield (kind, True, True)
        elif node.child_count == 0:
            yield (kind, True, True, p.text(node))
        else:
            yield (kind, True)
            descend = True
        if descend and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent() or cursor.depth == 0:
                return
            done = cursor.node
            assert done is not None
            yield (-1, done.kind_id)


def _children_over(node: Node, a: int, b: int) -> list[Node]:
    """The children of `node` over the stretch, from the first that ends past its start (a
    cursor's jump: `Node.first_child_for_byte` hands back nodes that crash when read)."""
    found: list[Node] = []
    cursor = node.walk()
    if cursor.goto_first_child_for_byte(a) is None:
        return found
    while True:
        child = cursor.node
        if child is None or child.start_byte > max(a, b - 1):
            return found
        if _over(child, a, b):
            found.append(child)
        if not cursor.goto_next_sibling():
            return found


def _over(node: Node, a: int, b: int) -> bool:
    """Whether `node` holds some of [a, b), or holds the point a on both sides of it."""
    if a == b:
        return node.start_byte < a < node.end_byte
    return node.start_byte < b and node.end_byte > a


def plain(lines: list[bytes]) -> list[bytes]:
    """The lines of a file read without its grammar, as a change of whitespace alone keeps
    them: each non-blank line without its indentation and trailing whitespace (which a
    literal on one line cannot hold), its spacing between words kept (which one can); a line
    ending in a backslash keeps what follows it, and a blank line after it is kept, as a space
    or a CR after the backslash, or a blank line, ends the line it continued."""
    out: list[bytes] = []
    continued = False
    for line in lines:
        inner = line.strip()
        if not inner:
            if continued:
                out.append(b"")
            continued = False
            continue
        continued = inner.endswith(b"\\")
        out.append(line.lstrip(b" \t").removesuffix(b"\n") if continued else inner)
    return out
