"""Bindings local to a function or block scope, and which identifier sites name one.

A site is "local" (model.Occurrence.role) when it is a binding made inside a function or
block scope (a parameter, a local variable) or a use of a name that the language's scoping
rules resolve to such a binding. Nothing module-level is ever local, and where the tree does
not settle the scoping (Python `global`/`nonlocal` names, a function-level import, a
JavaScript `with` body, a nested definition's name) the site keeps the role it had.

The scopes and bindings come from the matches tags.py reads anyway (a Python function or
class, a Rust `fn`, a Java or C++ class is a definition) and from `@local.scope.<key>` and
`@local.bind.<key>` patterns of indexer/queries/<lang>.scm, each handed to its handler here
(`handler`); no pass walks the tree. `Collector.finish` places each binding in its
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
binding's name is read only once it is known to be in a scope.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from tree_sitter import Node

# scope kinds
FUNCTION, BLOCK, CLASS, COMPREHENSION, WITH = range(5)
OPAQUE = -1  # a binding that settles a name otherwise (global, nonlocal, an import, a definition)
_NOWHERE = 1 << 62  # a threshold no byte reaches: not local

# how a binding finds its scope: the innermost scope around it, the innermost function, the
# innermost scope that is no comprehension (a walrus), the innermost around a definition's
# node (its name is bound outside it), or the node scope its match named
_INNERMOST, _FUNCTION, _PAST_COMPREHENSIONS, _STRICT, _NODE = range(5)

LANGUAGES = frozenset({"python", "javascript", "typescript", "tsx", "go", "rust", "java", "c", "cpp"})

# Definitions (tags.py's def node types) that are scopes: (kind, barrier, the field of their
# region or "" for all of them, the fields holding their parameters). A C or C++ function's
# scope is its definition (tags.py's span), its parameters its declarator's.
_JAVA_TYPES = ("class_declaration", "interface_declaration", "enum_declaration", "record_declaration")
_BLOCK_FUNCTION = (BLOCK, False, "", ("parameters",))
_DEFINITION_SCOPES: dict[str, dict[str, tuple[int, bool, str, tuple[str, ...]]]] = {
    "python": {"function_definition": (FUNCTION, False, "body", ("parameters",)),
               "class_definition": (CLASS, False, "body", ())},
    "go": {"function_declaration": (BLOCK, False, "", ("parameters", "result")),
           "method_declaration": (BLOCK, False, "", ("receiver", "parameters", "result"))},
    "rust": {"function_item": (BLOCK, True, "", ("parameters",))},
    "java": {**dict.fromkeys(_JAVA_TYPES, (BLOCK, True, "", ())),
             "method_declaration": _BLOCK_FUNCTION, "constructor_declaration": _BLOCK_FUNCTION},
    "c": {"function_declarator": _BLOCK_FUNCTION},
    "cpp": {**dict.fromkeys(("class_specifier", "struct_specifier", "union_specifier"), (BLOCK, True, "", ())),
            "function_declarator": _BLOCK_FUNCTION},
}
# Definitions whose name a nested one binds in the scope around it: settled, not local (the name
# is a symbol; its uses keep their role)
_NESTED: dict[str, frozenset[str]] = {
    "python": frozenset({"function_definition", "class_definition"}),
    "javascript": frozenset({"function_declaration", "generator_function_declaration", "class_declaration"}),
}
_NESTED["typescript"] = _NESTED["tsx"] = _NESTED["javascript"] | {"abstract_class_declaration"}
# def node types `Collector.definition` wants to see, per language
DEFINITIONS = {language: frozenset(_DEFINITION_SCOPES.get(language, {})) | _NESTED.get(language, frozenset())
               for language in LANGUAGES}

_PY_KEYWORD_ARGUMENT = re.compile(rb"[ \t]*=(?!=)")  # `f(load=1)`: a parameter's name, no use
_GO_KEY = re.compile(rb"[ \t]*:(?!=)")  # `T{name: v}`'s key, or a `case x:` / `a[i:j]` use
_JAVA_CALL = re.compile(rb"[ \t]*\(")  # `load(x)` calls a method: methods are another namespace
_RUST_MACRO = re.compile(rb"[ \t]*!(?!=)")  # `load!(...)` names a macro
_RUST_PATH = re.compile(rb"[ \t]*::")  # `load::x` starts a path
_EXTERN = re.compile(rb"\bextern\b")
_JS_ASSIGN = re.compile(rb"\s*=\s*")  # between a declarator's name and its value


class Collector:
    """Scopes and bindings of one tree, read from the query's matches."""

    __slots__ = ("language", "data", "scopes", "by_node", "near", "binders", "named", "required",
                 "require_calls", "_scoping", "_nested")

    def __init__(self, language: str, data: bytes) -> None:
        self.language = language
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
        self._scoping = _DEFINITION_SCOPES.get(language, {})
        self._nested = _NESTED.get(language, frozenset())

    # --- reading matches -------------------------------------------------------------

    def definition(self, def_type: str, def_node: Node, span: Node, start: int, end: int, name: str) -> None:
        """A definition tags.py found (of a type in DEFINITIONS[language]; `span` is the node
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
            walk = _PARAMETERS.get(self.language)
            if walk is not None:
                for field in parameters:
                    params = def_node.child_by_field_name(field)
                    if params is not None:
                        walk(self, params, index)
        if def_type in self._nested and (self.language != "python" or (start and self.data[start - 1] != 10)):
            self.named.append((_STRICT, start, name))

    def python_import(self, node: Node, specs: list) -> None:
        """The names a Python import binds, where it stands: settled, not local (the sites are
        uses of what it imports, which the import edge resolves). At column 0 it is at module
        level."""
        if not node.start_point[1]:
            return
        at = node.start_byte
        for spec in specs:
            if spec.names:
                names = [spec.local(i) for i in range(len(spec.names)) if spec.names[i] != "*"]
            else:
                names = [spec.aliases[0] if spec.aliases else spec.spec.split(".")[0]]
            for name in names:
                self.named.append((_INNERMOST, at, name))

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
        """A binding at identifier `site`, found `how` (in node scope `scope` for _NODE), visible
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
        starts = []
        ends = []
        parents = []
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
        for how, anchor, name in self.named:  # first: a name settled in a scope binds nothing there
            target = _place(how, anchor, starts, ends, parents, scopes)
            if target >= 0:
                _names_of(bound, target)[name] = OPAQUE
        sites: set[int] = set()
        for start, end in self.near:
            target = bisect_right(starts, start) - 1
            while target >= 0 and ends[target] <= start:
                target = parents[target]
            if target < 0:
                continue  # module level: never local
            names = _names_of(bound, target)
            name = _name(data, start, end, spelled)
            if names.setdefault(name, 0) != OPAQUE:
                sites.add(start)
        if self.binders:
            rank = [0] * count  # a scope's index after the sort, by its index before
            for new, old in enumerate(order):
                rank[old] = new
            self._place_binders(roles, rank, starts, ends, parents, scopes, bound, sites, spelled)
        candidates = {name for names in bound for name, v in names.items() if v != OPAQUE}
        if not candidates:
            return None
        return LocalSites(self.language, scopes, parents, bound, sites, candidates)

    def _place_binders(self, roles: dict[int, str], rank: list[int], starts: list[int], ends: list[int],
                       parents: list[int], scopes: list, bound: list[dict[str, int]], sites: set[int],
                       spelled: dict[bytes, str]) -> None:
        """The bindings other than `near`: each in its scope, visible from its own byte on. In
        JavaScript and TypeScript a binding at a definition's site (`const f = () => {}`) or to
        a `require(...)` call (`const u = require("./u")`: an import's binding) is settled."""
        data = self.data
        settling = self.language in _SETTLING_BINDINGS
        settled: set[int] = set()
        if settling:
            calls = self.require_calls
            settled = {start for start, name_end in self.required
                       if calls and (found := _JS_ASSIGN.match(data, name_end)) is not None and found.end() in calls}
        placed = []
        for how, start, end, node_scope, visible in self.binders:
            target = rank[node_scope] if how == _NODE else _place(how, start, starts, ends, parents, scopes)
            if target < 0:
                continue  # module level: never local
            names = _names_of(bound, target)
            name = _name(data, start, end, spelled)
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


_SETTLING_BINDINGS = frozenset({"javascript", "typescript", "tsx"})


def _place(how: int, anchor: int, starts: list[int], ends: list[int], parents: list[int], scopes: list) -> int:
    """The scope a binding found `how` at byte `anchor` is in, -1 for none (module level)."""
    target = bisect_right(starts, anchor - 1 if how == _STRICT else anchor) - 1
    while target >= 0 and ends[target] <= anchor:
        target = parents[target]
    if how == _FUNCTION:
        while target >= 0 and scopes[target][6] != FUNCTION:
            target = parents[target]
    elif how == _PAST_COMPREHENSIONS:
        while target >= 0 and scopes[target][6] == COMPREHENSION:
            target = parents[target]
    return target


_EMPTY: dict[str, int] = {}


def _names_of(bound: list[dict[str, int]], scope: int) -> dict[str, int]:
    """The names `scope` binds, as a dict of its own (scopes share one empty dict until then)."""
    names = bound[scope]
    if names is _EMPTY:
        names = bound[scope] = {}
    return names


def _name(data: bytes, start: int, end: int, spelled: dict[bytes, str]) -> str:
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
                 "direct", "memos")

    def __init__(self, language: str, scopes: list, parents: list[int], bound: list[dict[str, int]],
                 sites: set[int], candidates: set[str]) -> None:
        self.scopes = scopes
        self.parents = parents
        self.bound = bound
        self.sites = sites  # starts of the local bindings' own sites
        self.candidates = candidates  # names some scope binds locally: only their sites are asked
        self.check = _CHECKS.get(language, _any_name)
        # a scope's own bindings, where a site in its region sees them first (not a Python class
        # body, which its nested functions skip, nor a `with` body)
        self.direct = [names if s[6] < CLASS else _EMPTY for s, names in zip(scopes, bound)]
        self.memos: list[dict[str, int] | None] = [None] * len(scopes)  # threshold's, per scope
        # The scope whose region holds each byte, as runs: from seg_starts[k] up to the next it
        # is seg_scopes[k] (-1: none). Regions nest (each lies in its scope's node, a
        # comprehension's in two parts around its first iterable), so one sweep makes them.
        intervals = []
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
        visible at, scope by scope outwards, up to a scope that settles it otherwise."""
        memo = self.memos[i]
        if memo is None:
            memo = self.memos[i] = {}
        found = memo.get(name)
        if found is not None:
            return found
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
        memo[name] = found
        return found


# --- what a site's text and tree say it is: a variable, or a name of something else ------

def _python_name(node: Node, start: int, end: int, data: bytes, gap: int) -> bool:
    """Not an attribute (`obj.load`) nor a keyword argument's name (`f(load=1)`); a binding
    followed by `=` (`load = 1`, `def f(load=1)`) is one of `LocalSites.sites`, found first.
    `gap` is where the site before this one ends: what lies between is whitespace, brackets,
    operators, literals or comments, and only when a `.` there is followed by whitespace or a
    comment alone may the site be an attribute written apart from its dot (`obj.\n    load`,
    `obj.  # c`), which the tree then settles (a parent is found from the root: rare, and not
    cheap)."""
    before = data[start - 1]
    if before == 46:  # "."
        return False
    try:
        after = data[end]
    except IndexError:  # the last byte of the file
        return True
    if after == 61:  # "="
        if data[end + 1:end + 2] != b"=":
            return False
    elif (after == 32 or after == 9) and _PY_KEYWORD_ARGUMENT.match(data, end):
        return False
    if before in _SPACE:
        dot = data.rfind(b".", gap, start)
        if dot >= 0:
            tail = data[dot + 1:start]
            if tail.isspace() or b"#" in tail:
                parent = node.parent
                return parent is None or parent.type != "attribute" or parent.child_by_field_name("attribute") != node
    return True


_SPACE = frozenset(b" \t\r\n\\")
_JS_NAMES = frozenset({"identifier", "shorthand_property_identifier"})
_JSX_NAMED = frozenset({"jsx_opening_element", "jsx_closing_element", "jsx_self_closing_element"})


def _js_name(node: Node, start: int, end: int, data: bytes, gap: int) -> bool:
    """A variable's identifier (not a property's or a type's), and not an intrinsic JSX
    element's name (`<div>`, `</label>`: a string, no variable)."""
    if node.type not in _JS_NAMES:
        return False
    if data[start - 1] in b"</" and data[start:start + 1].islower():
        parent = node.parent
        if parent is not None and parent.type in _JSX_NAMED:
            return False
    return True


def _go_name(node: Node, start: int, end: int, data: bytes, gap: int) -> bool:
    """An identifier (no field, type or package name), not a composite literal's key
    (`T{name: name}`: a field)."""
    if node.type != "identifier":
        return False
    if _GO_KEY.match(data, end):
        parent = node.parent
        if parent is not None and parent.type == "literal_element":
            keyed = parent.parent
            return keyed is None or keyed.type != "keyed_element" or keyed.child_by_field_name("key") != parent
    return True


def _java_name(node: Node, start: int, end: int, data: bytes, gap: int) -> bool:
    """An identifier that is not a member (`a.x`, `a.f()`), a method's name (`f(x)`), an
    annotation (`@X`) nor a method reference's name (`A::x`)."""
    if data[start - 1] in b".@:" or node.type != "identifier":
        return False
    return not _JAVA_CALL.match(data, end)


def _rust_name(node: Node, start: int, end: int, data: bytes, gap: int) -> bool:
    """An identifier that is not a path's segment (`a::load`, `load::x`) nor a macro's name
    (`load!(...)`)."""
    if data[start - 2:start] == b"::" or node.type != "identifier":
        return False
    return not (_RUST_MACRO.match(data, end) or _RUST_PATH.match(data, end))


def _c_name(node: Node, start: int, end: int, data: bytes, gap: int) -> bool:
    """An identifier (no field or type name), not a qualified name's last part (`ns::load`)."""
    return node.type == "identifier" and data[start - 2:start] != b"::"


def _any_name(node: Node, start: int, end: int, data: bytes, gap: int) -> bool:
    return True


_CHECKS = {"python": _python_name, "javascript": _js_name, "typescript": _js_name, "tsx": _js_name,
           "go": _go_name, "java": _java_name, "rust": _rust_name, "c": _c_name, "cpp": _c_name}


# --- Python -------------------------------------------------------------------------------
# --- Python -------------------------------------------------------------------------------

_PY_NAMED_PARAMETERS = frozenset({"default_parameter", "typed_default_parameter"})
_PY_WRAPPED_PARAMETERS = frozenset({"typed_parameter", "list_splat_pattern", "dictionary_splat_pattern"})


def _py_parameters(c: Collector, params: Node, scope: int = -1) -> None:
    """The names a parameter list binds: `a`, `b=1`, `*args`, `c: T`, `d: T = 1`, `**kw`."""
    near = c.near
    for node in params.named_children:
        kind = node.type
        if kind in _PY_NAMED_PARAMETERS:
            node = node.child_by_field_name("name")
            kind = node.type if node is not None else ""
        while kind in _PY_WRAPPED_PARAMETERS:
            node = node.named_children[0] if node.named_child_count else None
            kind = node.type if node is not None else ""
        if kind == "identifier":
            near.append((node.start_byte, node.end_byte))


def _py_lambda(c: Collector, caps: dict[str, list[Node]]) -> None:
    node = caps["local.scope.lambda"][0]
    c.add_scope(node, FUNCTION, region=caps["local.body"][0])
    params = node.child_by_field_name("parameters")
    if params is not None:
        _py_parameters(c, params)


def _py_comprehension(c: Collector, caps: dict[str, list[Node]]) -> None:
    # its first iterable is evaluated in the scope around it
    c.add_scope(caps["local.scope.comprehension"][0], COMPREHENSION, hole=caps["local.hole"][0])


_PY_TARGETS = frozenset({"pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "expression_list",
                         "parenthesized_expression", "list_splat_pattern", "list_splat"})


def _py_pattern(c: Collector, caps: dict[str, list[Node]]) -> None:
    """The names an assignment or loop target binds: `x`, `x, (y, *z)`; not `a.b` or `a[i]`."""
    stack = [caps["local.bind.pattern"][0]]
    near = c.near
    while stack:
        current = stack.pop()
        kind = current.type
        if kind == "identifier":
            near.append((current.start_byte, current.end_byte))
        elif kind in _PY_TARGETS:
            stack.extend(current.named_children)


def _py_name(c: Collector, caps: dict[str, list[Node]]) -> None:
    site = caps["local.bind.name"][0]
    c.near.append((site.start_byte, site.end_byte))


def _py_walrus(c: Collector, caps: dict[str, list[Node]]) -> None:
    c.add(_PAST_COMPREHENSIONS, caps["local.bind.walrus"][0])  # PEP 572: the enclosing function's


def _py_global(c: Collector, caps: dict[str, list[Node]]) -> None:
    site = caps["local.bind.global"][0]
    c.named.append((_INNERMOST, site.start_byte, _name(c.data, site.start_byte, site.end_byte, {})))


# --- JavaScript, TypeScript -------------------------------------------------------------

_JS_PATTERN_TYPES = frozenset({"object_pattern", "array_pattern", "formal_parameters"})


def _js_names(c: Collector, node: Node, how: int, scope: int = -1, declared: bool = False) -> None:
    """The names a binding pattern binds: `x`, `{a, b: c, d = 1, ...e}`, `[f, ...g]`, TypeScript
    parameters (`x: T`, `y?: U`); not keys, defaults or types. A declarator's (`declared`) are
    checked for a `require(...)` value at `Collector.finish`."""
    if declared:
        name_end = node.end_byte
    stack = [node]
    while stack:
        current = stack.pop()
        kind = current.type
        if kind in ("identifier", "shorthand_property_identifier_pattern"):
            start = current.start_byte
            c.binders.append((how, start, current.end_byte, scope, 0))
            if declared:
                c.required.append((start, name_end))
        elif kind in _JS_PATTERN_TYPES:
            stack.extend(current.named_children)
        elif kind in ("assignment_pattern", "object_assignment_pattern"):
            found = current.child_by_field_name("left")
            if found is not None:
                stack.append(found)
        elif kind == "pair_pattern":
            found = current.child_by_field_name("value")
            if found is not None:
                stack.append(found)
        elif kind in ("required_parameter", "optional_parameter"):
            found = current.child_by_field_name("pattern")
            if found is not None:
                stack.append(found)
        elif kind == "rest_pattern":
            if current.named_child_count:
                stack.append(current.named_children[0])


def _js_function(c: Collector, caps: dict[str, list[Node]]) -> None:
    scope = c.add_scope(caps["local.scope.function"][0], FUNCTION, region=caps["local.body"][0])
    for params in caps.get("local.params", ()):
        _js_names(c, params, _NODE, scope)


def _js_with(c: Collector, caps: dict[str, list[Node]]) -> None:
    c.add_scope(caps["local.scope.with"][0], WITH, region=caps["local.body"][0])


def _js_let(c: Collector, caps: dict[str, list[Node]]) -> None:
    _js_names(c, caps["local.bind.let"][0], _NODE, c.add_scope(caps["local.block"][0], BLOCK), True)


def _js_var(c: Collector, caps: dict[str, list[Node]]) -> None:
    _js_names(c, caps["local.bind.var"][0], _FUNCTION, declared=True)


def _js_for(c: Collector, caps: dict[str, list[Node]]) -> None:
    """`for (const x of xs)`: the loop's own; `for (var x in o)`: the function's."""
    kind = caps["local.kind"][0].type
    if kind == "var":
        _js_names(c, caps["local.bind.for"][0], _FUNCTION)
    elif kind in ("let", "const"):
        _js_names(c, caps["local.bind.for"][0], _NODE, c.add_scope(caps["local.block"][0], BLOCK))


def _js_catch(c: Collector, caps: dict[str, list[Node]]) -> None:
    _js_names(c, caps["local.bind.catch"][0], _NODE, c.add_scope(caps["local.block"][0], BLOCK))


# --- block-scoped languages: a match gives the binding and its scope ---------------------

def _visible_from(caps: dict[str, list[Node]], site: Node) -> int:
    """Where a binding becomes visible: the end of its declaration (`@local.decl`: Go's
    `x := x + 1`, Rust's `let x = x + 1` read the outer `x` on the right), else of its name."""
    decl = caps.get("local.decl")
    return (decl[0] if decl else site).end_byte


def _block_binding(key: str):
    """A binding `@local.bind.<key>` of one identifier in the scope `@local.block`."""
    def handler(c: Collector, caps: dict[str, list[Node]]) -> None:
        site = caps[key][0]
        c.add(_NODE, site, c.add_scope(caps["local.block"][0], BLOCK), _visible_from(caps, site))
    return handler


def _barrier(c: Collector, caps: dict[str, list[Node]]) -> None:
    c.scopes[c.add_scope(caps["local.scope.barrier"][0], BLOCK)][7] = True


def _go_range(c: Collector, caps: dict[str, list[Node]]) -> None:
    """`for k, v := range m` and `case v := <-ch:` bind; with `=` they assign what is bound
    already."""
    site = caps["local.bind.range"][0]
    if b":=" in c.data[site.end_byte:caps["local.value"][0].start_byte]:
        c.add(_NODE, site, c.add_scope(caps["local.block"][0], BLOCK), _visible_from(caps, site))


_RUST_PATTERNS = frozenset({"tuple_pattern", "slice_pattern", "or_pattern", "reference_pattern", "ref_pattern",
                            "mut_pattern", "captured_pattern", "closure_parameters"})


def _rust_names(node: Node, data: bytes) -> list[Node]:
    """The names a Rust pattern binds: `x`, `(a, mut b)`, `Some(c)`, `P { d, e: f }`, `g @ 1..=5`,
    a closure's `|h, i: T|`; not paths, literals, nor a name starting upper-case (a constant or
    a unit variant: `None`, `MAX`, which a pattern compares with)."""
    out = []
    stack = [node]
    while stack:
        current = stack.pop()
        kind = current.type
        if kind in ("identifier", "shorthand_field_identifier"):
            first = data[current.start_byte:current.start_byte + 1]
            if first.islower() or first == b"_":
                out.append(current)
        elif kind in _RUST_PATTERNS:
            stack.extend(current.named_children)
        elif kind == "match_pattern":  # its pattern; past it, the guard
            if current.named_child_count:
                stack.append(current.named_children[0])
        elif kind == "tuple_struct_pattern":
            stack.extend(current.named_children[1:])  # the first is the path
        elif kind == "struct_pattern":
            stack.extend(child for child in current.named_children if child.type == "field_pattern")
        elif kind in ("field_pattern", "parameter"):
            found = current.child_by_field_name("pattern")
            if found is None and kind == "field_pattern":
                found = current.child_by_field_name("name")  # `P { d }`
            if found is not None:
                stack.append(found)
    return out


def _rust_binding(c: Collector, caps: dict[str, list[Node]]) -> None:
    site = caps["local.bind.pattern"][0]
    scope = c.add_scope(caps["local.block"][0], BLOCK)
    visible = _visible_from(caps, site)
    for name in _rust_names(site, c.data):
        c.add(_NODE, name, scope, visible)


_C_WRAPPERS = frozenset({"init_declarator", "pointer_declarator", "array_declarator", "parenthesized_declarator",
                         "attributed_declarator", "reference_declarator"})


def _c_declared(node: Node, parameter: bool = False) -> list[Node]:
    """The name a C or C++ declarator declares: `x`, `*x`, `x[3]`, `x = 1`, `&x`, `(*cb)(int)`,
    `auto [a, b]`; none for a prototype in a block (`int f(int);`: the function outside) or a
    qualified name."""
    current = node
    for _ in range(8):
        kind = current.type
        if kind == "identifier":
            return [current]
        if kind == "structured_binding_declarator":
            return [child for child in current.named_children if child.type == "identifier"]
        if kind == "function_declarator":
            inner = current.child_by_field_name("declarator")
            if inner is None or (not parameter and inner.type != "parenthesized_declarator"):
                return []
            current = inner
            continue
        if kind not in _C_WRAPPERS:
            return []
        inner = current.child_by_field_name("declarator")
        if inner is None:  # a reference or parenthesized declarator holds it unnamed
            inner = current.named_children[-1] if current.named_child_count else None
        if inner is None:
            return []
        current = inner
    return []


def _c_local(c: Collector, caps: dict[str, list[Node]]) -> None:
    """A declaration in a block; `extern int x;` names the global `x`, no local."""
    site = caps["local.bind.decl"][0]
    decl = caps.get("local.decl")
    if decl and _EXTERN.search(c.data, decl[0].start_byte, site.start_byte):
        return
    scope = c.add_scope(caps["local.block"][0], BLOCK)
    for name in _c_declared(site):
        c.add(_NODE, name, scope, name.end_byte)


def _c_parameter(c: Collector, caps: dict[str, list[Node]]) -> None:
    scope = c.add_scope(caps["local.block"][0], BLOCK)
    for name in _c_declared(caps["local.bind.param"][0], parameter=True):
        c.add(_NODE, name, scope, name.end_byte)


def _c_parameters(c: Collector, params: Node, scope: int) -> None:
    """A C or C++ function definition's parameters (with a default value too, in C++)."""
    for node in params.named_children:
        if node.type in ("parameter_declaration", "optional_parameter_declaration"):
            declarator = node.child_by_field_name("declarator")
            if declarator is not None:
                for name in _c_declared(declarator, parameter=True):
                    c.add(_NODE, name, scope, name.end_byte)


def _go_parameters(c: Collector, params: Node, scope: int) -> None:
    """A Go function's or method's parameters, named results and receiver: `a, b int`, `c ...T`."""
    if params.type != "parameter_list":
        return  # an unnamed result: `(x int) int`
    for node in params.named_children:
        if node.type in ("parameter_declaration", "variadic_parameter_declaration"):
            for name in node.named_children:  # the names, then the type (never an identifier)
                if name.type != "identifier":
                    break
                c.add(_NODE, name, scope, name.end_byte)


def _java_parameters(c: Collector, params: Node, scope: int) -> None:
    """A Java method's or constructor's parameters: `int a`, `String... b`."""
    for node in params.named_children:
        kind = node.type
        if kind == "formal_parameter":
            name = node.child_by_field_name("name")
        elif kind == "spread_parameter":
            declarator = next((n for n in node.named_children if n.type == "variable_declarator"), None)
            name = declarator.child_by_field_name("name") if declarator is not None else None
        else:
            continue
        if name is not None:
            c.add(_NODE, name, scope, name.end_byte)


def _rust_parameters(c: Collector, params: Node, scope: int) -> None:
    """A Rust function's parameters, patterns included (not `self`)."""
    data = c.data
    for node in params.named_children:
        if node.type == "parameter":
            pattern = node.child_by_field_name("pattern")
            if pattern is not None:
                for name in _rust_names(pattern, data):
                    c.add(_NODE, name, scope, name.end_byte)


_PARAMETERS = {"python": _py_parameters, "go": _go_parameters, "java": _java_parameters, "rust": _rust_parameters,
               "c": _c_parameters, "cpp": _c_parameters}


_HANDLERS = {
    "python": {"lambda": _py_lambda, "comprehension": _py_comprehension,
               "name": _py_name, "pattern": _py_pattern, "walrus": _py_walrus, "global": _py_global},
    "javascript": {"function": _js_function, "with": _js_with,
                   "let": _js_let, "var": _js_var, "for": _js_for, "catch": _js_catch},
    "go": {"short": _block_binding("local.bind.short"), "param": _block_binding("local.bind.param"),
           "var": _block_binding("local.bind.var"), "range": _go_range},
    "java": {"barrier": _barrier, "decl": _block_binding("local.bind.decl"),
             "param": _block_binding("local.bind.param")},
    "rust": {"pattern": _rust_binding},
    "c": {"decl": _c_local, "param": _c_parameter},
}
_HANDLERS["typescript"] = _HANDLERS["tsx"] = _HANDLERS["javascript"]
_HANDLERS["cpp"] = _HANDLERS["c"]
_NO_HANDLERS: dict = {}


def _ignore(c: Collector, caps: dict[str, list[Node]]) -> None:
    return None


def handler(language: str, key: str):
    """What reads a match of `@local.scope.<key>` or `@local.bind.<key>` in `language`."""
    return _HANDLERS.get(language, _NO_HANDLERS).get(key, _ignore)
