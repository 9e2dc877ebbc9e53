"""Bindings local to a function or block scope, and which identifier sites name one.

A site is "local" (model.Occurrence.role) when it is a binding made inside a function or
block scope (a parameter, a local variable) or a use of a name that the language's scoping
rules resolve to such a binding. Nothing module-level is ever local, and where the tree does
not settle the scoping (Python `global`/`nonlocal` names, a function-level import, a
JavaScript `with` body, a nested definition's name) the site keeps the role it had.

The scopes and bindings come from the matches tags.py reads anyway (a Python function or
class, a Rust `fn`, a Java or C++ class is a definition) and from `@local.scope.<key>` and
`@local.bind.<key>` patterns of the language's queries, each handed to its handler
(`LocalScopes.handler`); no pass walks the tree. The machinery is here; each language's rules
(which definitions are scopes, what binds, what a site must be) are its package's
`scopes.py`. `Collector.finish` places each binding in its
scope, and tags._sites_in_order asks `LocalSites` only of the sites whose name some scope
binds.

Two ways a binding is visible:

- hoisted (Python, JavaScript/TypeScript): in the whole of its scope, before the binding too
  (Python's rule: a name bound anywhere in a function is local in all of it; JavaScript's
  `var` and parameters in their function, `let`, `const` and `catch` in their block);
- from the declaration on (Go, Java, Rust, C, C++): from the end of its declaration (Go's
  `:=`, Rust's `let`: `let x = x + 1` reads the outer `x`) or of its name (C, Java) to the
  end of its block.

A scope may be a barrier (a Java or C++ class inside a function, a Rust `fn` item inside a
function): a name not bound inside it is not looked for outside it. A Python class body is
skipped by the functions nested in it and seen only by its own statements.

Costs: every match and every node a match captures is a Python object py-tree-sitter makes
(about 0.6 and 0.9 us), so a pattern here captures what its handler reads and no more, and a
binding's name is read only once it is known to be in a scope. No binding or site walks up
the scopes around it further than a few: the bindings and the sites meet the scopes in
document order (`_innermost`, `LocalSites.threshold`), so however deep a file nests, the
work is about its scopes, bindings and sites.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import cache
from typing import Callable

from tree_sitter import Node

from indexer.lang.language import part
from indexer.lang.registry import LANGUAGES
from indexer.model import ImportSpec

# scope kinds
FUNCTION, BLOCK, CLASS, COMPREHENSION, WITH = range(5)
OPAQUE = -1  # a binding that settles a name otherwise (global, nonlocal, an import, a definition)
_NOWHERE = 1 << 62  # a threshold no byte reaches: not local
SHALLOW = 8  # a site in a scope with fewer scopes around it than this is looked up a scope at a time

# how a binding finds its scope: the innermost scope around it, the innermost function, the
# innermost scope that is no comprehension (a walrus), the innermost around a definition's
# node (its name is bound outside it), or the node scope its match named
INNERMOST, OF_FUNCTION, PAST_COMPREHENSIONS, STRICT, AT_NODE = range(5)

# A definition that is a scope: (kind, barrier, the field of its region or "" for all of it,
# the fields holding its parameters).
DefinitionScope = tuple[int, bool, str, tuple[str, ...]]
BLOCK_FUNCTION: DefinitionScope = (BLOCK, False, "", ("parameters",))

# (the Collector, a match's captures): reads one `@local.scope.<key>` or `@local.bind.<key>` match
Handler = Callable[["Collector", dict[str, list[Node]]], None]
# (the Collector, a definition's parameters node, its scope): binds the parameters
Parameters = Callable[["Collector", Node, int], None]
# (site node, its start, its end, the source, where the site before it ends): names a variable?
Check = Callable[[Node, int, int, bytes, int], bool]
# (the Collector, an import's node, the specs read from it): what the import binds or settles
OnImport = Callable[["Collector", Node, list[ImportSpec]], None]


def any_name(node: Node, start: int, end: int, data: bytes, gap: int) -> bool:
    return True


class LocalScopes:
    """What one language's package says about its local scopes (its `scopes.py`, `SCOPES`):
    - `definitions`: the definitions (tags.py's def node types) that are scopes, and how;
    - `nested`: the definitions whose name, nested in another, is bound in the scope around it:
      settled, not local (the name is a symbol; its uses keep their role);
    - `parameters`: what reads the parameters of a definition that is a scope;
    - `handlers`: what reads each `@local.scope.<key>` / `@local.bind.<key>` match, by key;
    - `check`: whether a site's node names a variable (no attribute, keyword, field or type);
    - `settling`: a binding at a definition's site or to a `require(...)` is settled (JS, TS);
    - `module_level_at_line_start`: a definition at the start of a line is at module level
      (Python): nothing there to settle;
    - `on_import`: what an import the tags found binds or settles."""

    __slots__ = ("definitions", "nested", "parameters", "handlers", "check", "settling",
                 "module_level_at_line_start", "on_import", "seen")

    def __init__(self, definitions: dict[str, DefinitionScope] | None = None, nested: frozenset[str] = frozenset(),
                 parameters: Parameters | None = None, handlers: dict[str, Handler] | None = None,
                 check: Check = any_name, settling: bool = False, module_level_at_line_start: bool = False,
                 on_import: OnImport | None = None) -> None:
        self.definitions = definitions or {}
        self.nested = nested
        self.parameters = parameters
        self.handlers = handlers or {}
        self.check = check
        self.settling = settling
        self.module_level_at_line_start = module_level_at_line_start
        self.on_import = on_import
        # def node types `Collector.definition` wants to see
        self.seen = frozenset(self.definitions) | nested

    def extended(self, definitions: dict[str, DefinitionScope] | None = None,
                 nested: frozenset[str] = frozenset()) -> LocalScopes:
        """These rules with more definitions that are scopes, or more nested ones (C++ of C's)."""
        return LocalScopes({**self.definitions, **(definitions or {})}, self.nested | nested, self.parameters,
                           self.handlers, self.check, self.settling, self.module_level_at_line_start,
                           self.on_import)

    def handler(self, key: str) -> Handler:
        """What reads a match of `@local.scope.<key>` or `@local.bind.<key>`."""
        return self.handlers.get(key, _ignore)


@cache
def of(language: str) -> LocalScopes | None:
    """The local-scope rules of `language`, None when it has none (every site keeps its role)."""
    module = LANGUAGES[language].scopes
    return part(module, "SCOPES") if module else None  # type: ignore[return-value]


_JS_ASSIGN = re.compile(rb"\s*=\s*")  # between a declarator's name and its value


class Collector:
    """Scopes and bindings of one tree, read from the query's matches."""

    __slots__ = ("rules", "data", "scopes", "by_node", "near", "binders", "named", "required",
                 "require_calls", "_scoping", "_nested")

    def __init__(self, rules: LocalScopes, data: bytes) -> None:
        self.rules = rules
        self.data = data
        # [start, end, region start, region end, hole start, hole end, kind, barrier]
        self.scopes: list[list] = []
        self.by_node: dict[tuple[int, int], int] = {}  # (start, end) -> index in `scopes`
        self.near: list[tuple[int, int]] = []  # (start, end): bound in the innermost scope around
        # (how, start, end, node scope or -1, visible from): the other bindings
        self.binders: list[tuple[int, int, int, int, int]] = []
        self.named: list[tuple[int, int, str]] = []  # (how, anchor, name): names settled, not local
        # JS: (start, where its declarator's name ends) of bindings whose value may be `require(...)`
        self.required: list[tuple[int, int]] = []
        self.require_calls: set[int] = set()  # JS: start of each `require(...)` call (an import)
        self._scoping = rules.definitions
        self._nested = rules.nested

    # --- reading matches -------------------------------------------------------------

    def definition(self, def_type: str, def_node: Node, span: Node, start: int, end: int, name: str) -> None:
        """A definition tags.py found (of a type in `LocalScopes.seen`; `span` is the node
        its symbol spans, bytes `start` to `end`, decorators included): a scope over that span
        with the parameters it binds, and, nested in another, a name settled in the scope around
        it. A Python definition at the start of a line is at module level: nothing there to
        settle."""
        scoping = self._scoping.get(def_type)
        if scoping is not None:
            kind, barrier, field, parameters = scoping
            if def_type == "function_declarator" and span.type != "function_definition":
                return  # C, C++: a prototype; a definition's scope is the definition around it
            key = (start, end)
            if key in self.by_node:
                return  # two patterns found this definition
            self.by_node[key] = index = len(self.scopes)
            region = def_node.child_by_field_name(field) if field else None
            if region is not None:
                self.scopes.append([start, end, region.start_byte, region.end_byte, 0, 0, kind, barrier])
            else:
                self.scopes.append([start, end, start, end, 0, 0, kind, barrier])
            walk = self.rules.parameters
            if walk is not None:
                for field in parameters:
                    params = def_node.child_by_field_name(field)
                    if params is not None:
                        walk(self, params, index)
        if def_type in self._nested and (not self.rules.module_level_at_line_start or (start and self.data[start - 1] != 10)):
            self.named.append((STRICT, start, name))

    def add_scope(self, node: Node, kind: int, region: Node | None = None, hole: Node | None = None) -> int:
        """A scope over `node`, looked up from within `region` (all of it by default) but for
        `hole`; one per node (a block two matches name is one scope)."""
        start, end = node.start_byte, node.end_byte
        found = self.by_node.get((start, end))
        if found is not None:
            return found
        self.by_node[(start, end)] = index = len(self.scopes)
        rstart, rend = (region.start_byte, region.end_byte) if region is not None else (start, end)
        hstart, hend = (hole.start_byte, hole.end_byte) if hole is not None else (0, 0)
        self.scopes.append([start, end, rstart, rend, hstart, hend, kind, False])
        return index

    def add(self, how: int, site: Node, scope: int = -1, visible_from: int = 0) -> None:
        """A binding at identifier `site`, found `how` (in node scope `scope` for AT_NODE), visible
        from byte `visible_from` on."""
        self.binders.append((how, site.start_byte, site.end_byte, scope, visible_from))

    # --- placing bindings in scopes ---------------------------------------------------

    def finish(self, roles: dict[int, str]) -> LocalSites | None:
        """The local sites these scopes and bindings prove, or None when there are none. A
        binding at a site the tags call a definition (a JavaScript `const f = () => {}`: its
        name is a symbol) or to a `require(...)` is settled, not local."""
        raw = self.scopes
        if not raw or not (self.near or self.binders):
            return None
        count = len(raw)
        order = sorted(range(count), key=lambda i: (raw[i][0], -raw[i][1], i)) if count > 1 else [0]
        scopes = [raw[i] for i in order]
        starts: list[int] = []
        ends: list[int] = []
        parents: list[int] = []
        stack: list[int] = []
        for i, s in enumerate(scopes):
            start = s[0]
            while stack and ends[stack[-1]] <= start:
                stack.pop()
            parents.append(stack[-1] if stack else -1)
            starts.append(start)
            ends.append(s[1])
            stack.append(i)

        data = self.data
        spelled: dict[bytes, str] = {}
        bound: list[dict[str, int]] = [_EMPTY] * count
        named, near, binders = self.named, self.near, self.binders
        # where each binding is, found in one sweep (named, then near, then the other binders)
        points = [(anchor - 1, anchor) if how == STRICT else (anchor, anchor) for how, anchor, _ in named]
        points += [(start, start) for start, _ in near]
        points += [(start, start) for how, start, *_ in binders if how != AT_NODE]
        around = _innermost(points, starts, ends)
        up = _Outwards(scopes, parents)
        for k, (how, _, name) in enumerate(named):  # first: a name settled in a scope binds nothing there
            target = up.place(how, around[k])
            if target >= 0:
                _names_of(bound, target)[name] = OPAQUE
        sites: set[int] = set()
        at = len(named)
        for k, (start, end) in enumerate(near, at):
            target = around[k]
            if target < 0:
                continue  # module level: never local
            names = _names_of(bound, target)
            name = name_at(data, start, end, spelled)
            if names.setdefault(name, 0) != OPAQUE:
                sites.add(start)
        if binders:
            rank = [0] * count  # a scope's index after the sort, by its index before
            for new, old in enumerate(order):
                rank[old] = new
            self._place_binders(roles, rank, around[at + len(near):], up, bound, sites, spelled)
        candidates = {name for names in bound for name, v in names.items() if v != OPAQUE}
        if not candidates:
            return None
        return LocalSites(self.rules.check, scopes, parents, bound, sites, candidates)

    def _place_binders(self, roles: dict[int, str], rank: list[int], around: list[int], up: _Outwards,
                       bound: list[dict[str, int]], sites: set[int], spelled: dict[bytes, str]) -> None:
        """The bindings other than `near`: each in its scope, visible from its own byte on
        (`around`: the innermost scope around each not AT_NODE, in order). In JavaScript and
        TypeScript a binding at a definition's site (`const f = () => {}`) or to a
        `require(...)` call (`const u = require("./u")`: an import's binding) is settled."""
        data = self.data
        settling = self.rules.settling
        settled: set[int] = set()
        if settling:
            calls = self.require_calls
            settled = {start for start, name_end in self.required
                       if calls and (found := _JS_ASSIGN.match(data, name_end)) is not None and found.end() in calls}
        placed = []
        k = 0
        for how, start, end, node_scope, visible in self.binders:
            if how == AT_NODE:
                target = rank[node_scope]
            else:
                target = up.place(how, around[k])
                k += 1
            if target < 0:
                continue  # module level: never local
            names = _names_of(bound, target)
            name = name_at(data, start, end, spelled)
            if settling and (start in settled or roles.get(start) == "definition"):
                names[name] = OPAQUE
                continue
            previous = names.get(name)
            if previous == OPAQUE:
                continue
            if previous is None or visible < previous:
                names[name] = visible
            if settling:
                placed.append((start, names, name))
            else:
                sites.add(start)
        # settled by a later binding (`var f; ... var f = require("./f")`): no local before it either
        sites.update(start for start, names, name in placed if names[name] != OPAQUE)


def _innermost(points: list[tuple[int, int]], starts: list[int], ends: list[int]) -> list[int]:
    """For each (key, anchor): the last scope starting at or before byte `key`, or the nearest
    scope above it ending past `anchor` (-1: none, module level). One sweep in the points'
    order, holding the scopes' path as `Collector.finish` made their parents; a scope it drops
    ends at or before every point after, so each scope is held and dropped once."""
    found = [-1] * len(points)
    order = sorted(range(len(points)), key=points.__getitem__)
    stack: list[int] = []
    count = len(starts)
    following = 0  # the first scope not yet on the path
    for k in order:
        key, anchor = points[k]
        while following < count and starts[following] <= key:
            start = starts[following]
            while stack and ends[stack[-1]] <= start:
                stack.pop()
            stack.append(following)
            following += 1
        while stack and ends[stack[-1]] <= anchor:
            stack.pop()
        if stack:
            found[k] = stack[-1]
    return found


class _Outwards:
    """For each scope, the nearest function around it or itself, and the nearest that is no
    comprehension: a binding found OF_FUNCTION or PAST_COMPREHENSIONS is there."""

    __slots__ = ("function", "past_comprehensions")

    def __init__(self, scopes: list, parents: list[int]) -> None:
        function: list[int] = []
        past: list[int] = []
        for i, s in enumerate(scopes):  # a parent comes before its scopes
            parent = parents[i]
            function.append(i if s[6] == FUNCTION else function[parent] if parent >= 0 else -1)
            past.append(i if s[6] != COMPREHENSION else past[parent] if parent >= 0 else -1)
        self.function = function
        self.past_comprehensions = past

    def place(self, how: int, innermost: int) -> int:
        """The scope a binding found `how` is in, given the innermost scope around it."""
        if innermost < 0:
            return -1
        if how == OF_FUNCTION:
            return self.function[innermost]
        if how == PAST_COMPREHENSIONS:
            return self.past_comprehensions[innermost]
        return innermost


_EMPTY: dict[str, int] = {}


def _names_of(bound: list[dict[str, int]], scope: int) -> dict[str, int]:
    """The names `scope` binds, as a dict of its own (scopes share one empty dict until then)."""
    names = bound[scope]
    if names is _EMPTY:
        names = bound[scope] = {}
    return names


def name_at(data: bytes, start: int, end: int, spelled: dict[bytes, str]) -> str:
    """The name at data[start:end], decoded once per spelling."""
    raw = data[start:end]
    name = spelled.get(raw)
    if name is None:
        name = spelled[raw] = raw.decode("utf-8", "replace")
    return name


class LocalSites:
    """Which identifier sites of one tree name a local binding. A site of a `candidates` name
    is local when it is a binding's own site (`sites`), or when its position is at or past
    the threshold its name has in the scope whose region holds it (the scope's own binding,
    `direct`, else `threshold`: 0 in the hoisted languages, where its declaration ends in the
    others) and the language's `check` says its node names a variable (no attribute, keyword,
    field or type). tags._sites_in_order asks, in document order."""

    __slots__ = ("scopes", "parents", "bound", "sites", "candidates", "check", "seg_starts", "seg_scopes",
                 "direct", "depth", "cut", "_path", "_entered", "_along")

    def __init__(self, check: Check, scopes: list, parents: list[int], bound: list[dict[str, int]],
                 sites: set[int], candidates: set[str]) -> None:
        self.scopes = scopes
        self.parents = parents
        self.bound = bound
        self.sites = sites  # starts of the local bindings' own sites
        self.candidates = candidates  # names some scope binds locally: only their sites are asked
        self.check = check
        # a scope's own bindings, where a site in its region sees them first (not a Python class
        # body, which its nested functions skip, nor a `with` body)
        self.direct = [names if s[6] < CLASS else _EMPTY for s, names in zip(scopes, bound)]
        # Each scope's depth, and the nearest scope around it or itself past which no name is
        # looked for (a `with` body, a barrier; -1: none)
        depth: list[int] = []
        cut: list[int] = []
        for i, s in enumerate(scopes):  # a parent comes before its scopes
            parent = parents[i]
            depth.append(depth[parent] + 1 if parent >= 0 else 0)
            stops = s[6] == WITH or (s[6] != CLASS and s[7])
            cut.append(i if stops else cut[parent] if parent >= 0 else -1)
        self.depth = depth
        self.cut = cut
        # `threshold`'s walk through the scopes in order (see there): the scopes from the
        # outermost to the last one entered, and for each name the answers of those binding it
        self._path: list[int] = []
        self._entered = -1
        self._along: dict[str, tuple[list[int], list[int]]] = {}  # name -> (depths, thresholds)
        # The scope whose region holds each byte, as runs: from seg_starts[k] up to the next it
        # is seg_scopes[k] (-1: none). Regions nest (each lies in its scope's node, a
        # comprehension's in two parts around its first iterable), so one sweep makes them.
        intervals: list[tuple[int, int, int]] = []
        add = intervals.append
        ordered = True  # regions that are their nodes come in the scopes' order already
        for i, s in enumerate(scopes):
            if s[5] > s[4]:
                add((s[2], -s[4], i))
                add((s[5], -s[3], i))
                ordered = False
            else:
                add((s[2], -s[3], i))
                if s[2] != s[0]:
                    ordered = False
        if not ordered:
            intervals.sort()
        # runs as (byte, scope from there on), in order; at one byte, the last one made holds
        seg_starts = [0]
        seg_scopes = [-1]
        stack: list[tuple[int, int]] = []  # (end, scope) of the open regions
        for start, end, i in intervals:
            while stack and stack[-1][0] <= start:
                at = stack.pop()[0]
                seg_starts.append(at)
                seg_scopes.append(stack[-1][1] if stack else -1)
            seg_starts.append(start)
            seg_scopes.append(i)
            stack.append((-end, i))
        while stack:
            at = stack.pop()[0]
            seg_starts.append(at)
            seg_scopes.append(stack[-1][1] if stack else -1)
        seg_starts.append(_NOWHERE)  # a sentinel: no site is past it
        self.seg_starts = seg_starts
        self.seg_scopes = seg_scopes

    def threshold(self, i: int, name: str) -> int:
        """The first byte from which `name`, looked up from scope `i`'s region, is a local
        binding (_NOWHERE when it never is): the least of the positions its bindings become
        visible at, scope by scope outwards, up to a scope that settles it otherwise.

        Sites are asked in document order, so the scopes are entered in their order (each
        after its parent) and the path to the one asked is at hand; each scope on it that
        binds a name holds the answer from there outwards, made from the answer of the nearest
        one above it as it is entered. An answer is then a search among the path's bindings of
        the name, never a walk up the scopes: the work is the scopes and bindings entered, once
        a pass over the sites, whatever the nesting. A scope with fewer than `SHALLOW` scopes
        around it, as most are, is answered by that walk up, which costs less there than
        entering the scopes."""
        depth = self.depth
        at = depth[i]
        if at < SHALLOW:
            return self._walk_up(i, name)
        path = self._path
        if at >= len(path) or path[at] != i:
            if i < self._entered:  # sites asked again from the start (tags._occurrences)
                self._path = path = []
                self._along = {}
                self._entered = -1
            self._enter(i)
        s = self.scopes[i]
        if s[6] == CLASS and name in self.bound[i]:
            return _NOWHERE  # a Python class body: its own binding is no local of its statements
        along = self._along.get(name)
        if along is None:
            return _NOWHERE
        depths, answers = along
        k = bisect_right(depths, at) - 1
        if k < 0:
            return _NOWHERE
        cut = self.cut[i]
        if cut >= 0 and depths[k] < depth[cut]:
            return _NOWHERE  # looked for no further than a `with` body or a barrier
        return answers[k]

    def _walk_up(self, i: int, name: str) -> int:
        """`threshold`, walking up from scope `i` a scope at a time."""
        scopes, parents, bound = self.scopes, self.parents, self.bound
        found = _NOWHERE
        first = True
        j = i
        while j >= 0:
            s = scopes[j]
            kind = s[6]
            if kind == CLASS:  # a Python class body: seen by its own statements only
                if first and name in bound[j]:
                    break
            elif kind == WITH:
                break  # a property of the `with` object, maybe
            else:
                visible = bound[j].get(name)
                if visible is not None:
                    if visible == OPAQUE:
                        break
                    if visible < found:
                        found = visible
                if s[7]:
                    break
            first = False
            j = parents[j]
        return found

    def _enter(self, last: int) -> None:
        """Enters the scopes after the last one entered, up to `last`: the path is then
        `last`'s scopes around it, and each name's bindings along it hold their answers."""
        scopes, parents, bound, depth, cut = self.scopes, self.parents, self.bound, self.depth, self.cut
        path, along = self._path, self._along
        for i in range(self._entered + 1, last + 1):
            at = depth[i]
            while len(path) > at:  # leave the scopes `i` is not in
                left = path.pop()
                for name in self._binding(left):
                    depths, answers = along[name]
                    depths.pop()
                    answers.pop()
            path.append(i)
            names = self._binding(i)
            if not names:
                continue
            s = scopes[i]
            parent = parents[i]
            above = cut[parent] if parent >= 0 else -1
            floor = depth[above] if above >= 0 else -1  # bindings above it are not looked at
            for name in names:
                visible = bound[i][name]
                found = along.get(name)
                if found is None:
                    found = along[name] = ([], [])
                depths, answers = found
                if visible == OPAQUE:
                    answer = _NOWHERE
                elif s[7] or not depths or depths[-1] < floor:
                    answer = visible  # a barrier, or no binding above to look at
                else:
                    answer = min(visible, answers[-1])
                depths.append(at)
                answers.append(answer)
        self._entered = last

    def _binding(self, i: int) -> list[str]:
        """The names scope `i` holds on `threshold`'s path: those it binds, asked of sites
        (`candidates`), unless it is a Python class body or a `with` body, which hold none."""
        s = self.scopes[i]
        if s[6] == CLASS or s[6] == WITH:
            return []
        candidates = self.candidates
        return [name for name in self.bound[i] if name in candidates]


# --- block-scoped languages (Go, Java): a match gives the binding and its scope ---------------------

def visible_from(caps: dict[str, list[Node]], site: Node) -> int:
    """Where a binding becomes visible: the end of its declaration (`@local.decl`: Go's
    `x := x + 1`, Rust's `let x = x + 1` read the outer `x` on the right), else of its name."""
    decl = caps.get("local.decl")
    return (decl[0] if decl else site).end_byte


def block_binding(key: str):
    """A binding `@local.bind.<key>` of one identifier in the scope `@local.block`."""
    def handler(c: Collector, caps: dict[str, list[Node]]) -> None:
        site = caps[key][0]
        c.add(AT_NODE, site, c.add_scope(caps["local.block"][0], BLOCK), visible_from(caps, site))
    return handler


def barrier(c: Collector, caps: dict[str, list[Node]]) -> None:
    c.scopes[c.add_scope(caps["local.scope.barrier"][0], BLOCK)][7] = True


def _ignore(c: Collector, caps: dict[str, list[Node]]) -> None:
    return None


