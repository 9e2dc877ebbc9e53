"""What a Python receiver is an instance of, read from the lines of its file as written: the
one typing of a variable the references query makes (`sites._BySyntax`). A name is typed where
the site sees it: by the innermost function binding it (its last assignment above the site, a
parameter's annotation, a pytest fixture of the parameter's name), else at module level; an
attribute of `self` by the assignments of its class's methods. Each typing says which binding
decided it (`Typed.rule`); anything else is untyped, and its site stays a name match."""

from __future__ import annotations

import functools
import re
from bisect import bisect_left, bisect_right
from typing import TYPE_CHECKING, Callable, Iterator, Literal, NamedTuple

from context_tools.query.symbols.call_close import PYTHON, after_call
from context_tools.query.symbols.rightmost import Holding
from context_tools.query.symbols.script_annotations import named_type

if TYPE_CHECKING:
    from indexer.lang.bindings import Bindings
    from indexer.model import Symbol
    from indexer.store.snapshot import Snapshot

HEADER_LINES = 30  # the lines a `def` header (its parameters, its return annotation) is read over
DECORATOR_LINES = 12  # the lines above a `def` its decorators are read over
FIXTURE_DEPTH = 3  # fixtures returning other fixtures' values, followed this far
_FUNCTIONS = ("function", "method")
# a class named as written in an annotation: `Flask`, `"Flask"`, `flask.Flask`, `Flask | None`
_CLASS = rb"['\"]?(?:[A-Za-z_][\w.]*\.)?([A-Za-z_]\w*)['\"]?\s*(?:\|\s*None\s*)?"
_CALL = re.compile(rb"\s*(?:[A-Za-z_][\w.]*\.)?([A-Za-z_]\w*)\s*\(")
_RETURNS = re.compile(rb"->\s*" + _CLASS + rb":")
# `Iterator[Flask]`, `Generator[Flask, None, None]`: what a yield fixture gives its tests
_YIELDS = re.compile(rb"->\s*(?:[A-Za-z_][\w.]*\.)?(?:Iterator|Generator|Iterable)\[\s*" + _CLASS + rb"[,\]]")
_FIXTURE = re.compile(rb"@\s*(?:[A-Za-z_][\w.]*\.)?fixture\b")
_FIXTURE_NAME = re.compile(rb"\bname\s*=\s*['\"]([A-Za-z_]\w*)['\"]")


class Typed(NamedTuple):
    """A receiver typed as an instance of a class asked about; `rule`: the binding that decided
    it, None for a plain assignment of an instance (`app = Flask(...)`: the file's rule stands)."""

    rule: str | None
    callee: str = ""  # a plain assignment's call as written (`requests.cookies.RequestsCookieJar`)
    cls: str = ""  # the class an assignment's annotation or call names, as written


Typing = Typed | Literal[False] | None  # typed; bound to something else; nothing in the file binds it


class PythonReceivers:
    """The receivers of one query's sites: `is_class(name)` says whether a name is one of the
    classes asked about (the method's class and those it is reached through), `makes(callee)`
    whether calling it makes an instance of one (asked of a call written in any language's
    site too: `Headers(...).get`)."""

    def __init__(self, snap: Snapshot, is_class: Callable[[str], bool], read_lines: Callable[[str], list[bytes]],
                 read_source: Callable[[str], bytes], read_functions: Callable[[str], list[Symbol]],
                 lines_naming: Callable[[str, str], list[int]], rules: Callable[[str], Bindings]) -> None:
        self.snap = snap
        self.is_class = is_class
        # a file's lines, bytes and functions (`functions_in`), read once a query (`sites._Reading`)
        self._read_lines = read_lines
        self._read_source = read_source
        self._read_functions = read_functions
        self._lines_naming = lines_naming  # the lines that may declare a name (`sites._Reading`)
        self._rules = rules  # the binding rules of a file's language (`sites._Reading.rules`)
        self._factories: dict[str, bool] = {}  # `makes`' answers, by callee
        self._module: dict[tuple[str, str], Typing] = {}
        self._fixtures: dict[tuple[str, str], Typing] = {}
        self._attributes: dict[tuple[str, str, str], Typing] = {}
        self._assignments: dict[tuple[str, int, str], list[int]] = {}
        self._fixture_table: dict[str, dict[tuple[str, str], Symbol]] = {}
        self._by_line: dict[str, Holding] = {}
        self._headers: dict[tuple[str, int], bytes] = {}
        self._header_names: dict[tuple[str, int, str], bool] = {}
        self._annotations: dict[tuple[str, int, str], str | None] = {}  # a parameter's annotated class
        self._assigned_at: dict[tuple[str, int, str], Typing] = {}  # what an assignment's line gives the name

    def lines(self, path: str) -> list[bytes]:
        return self._read_lines(path)

    def functions(self, path: str) -> list[Symbol]:
        return self._read_functions(path)

    def variable(self, path: str, name: str, line: int, depth: int = 0) -> Typing:
        """What `name` is where the site on `line` sees it: the functions holding the site,
        innermost first (a closure sees its function's names), decide by the first that binds
        it: its last assignment above the site (`app = Flask(...)`; an annotation naming a
        class, `app: Flask = LocalProxy(...)`, first), or its parameter (typed by an annotation
        naming a class, or, in a test function or a fixture, as the pytest fixture of its name
        visible there); else a module-level (unindented) assignment."""
        lines = self.lines(path)
        around = self.holders(path, line)
        assignment = _assignment(name)
        for holder in around:
            # the last line of the function above the site's assigning the name (from 0)
            assigning = self._assigning(path, holder, name)
            k = bisect_right(assigning, line - 2)
            last = assigning[k - 1] if k and assigning[k - 1] >= holder.line else None
            if last is not None:
                at = (path, last, name)  # once an assignment, however many sites it types
                if at not in self._assigned_at:
                    self._assigned_at[at] = self._assigned(lines, last, assignment)
                return self._assigned_at[at]
            header, named = self._header_naming(path, holder, name)
            if named:
                return self._parameter(path, holder, name, header, depth)
        key = (path, name)
        if key not in self._module:
            assigned = [i for i, t in enumerate(lines) if t[:1] not in (b" ", b"\t") and assignment.match(t)]
            self._module[key] = next((t for t in (self._assigned(lines, i, assignment) for i in assigned) if t),
                                     False) if assigned else None
        return self._module[key]

    def header(self, path: str, sym: Symbol) -> bytes:
        """The function's `def` header (`_header`), read once a function and query."""
        found = self._headers.get((path, sym.start_byte))
        if found is None:
            found = self._headers[path, sym.start_byte] = _header(self.lines(path), sym)
        return found

    def _header_naming(self, path: str, holder: Symbol, name: str) -> tuple[bytes, bool]:
        """The function's `def` header, and whether a parameter there is the name: read once a
        function (and name), however many of its sites read the name."""
        header = self.header(path, holder)
        key = (path, holder.start_byte, name)
        named = self._header_names.get(key)
        if named is None:
            named = self._header_names[key] = re.search(rb"[(,*\s]" + re.escape(name.encode()) + rb"\s*[,:=)]",
                                                        header) is not None
        return header, named

    def holders(self, path: str, line: int) -> Iterator[Symbol]:
        """The functions of the file holding the line, the latest first line first (of one line,
        in the file's list's order): each found by a binary search over the functions by first
        line, not by reading them all for each site."""
        found = self._by_line.get(path)
        if found is None:
            found = self._by_line[path] = Holding.by(self.functions(path), lambda s: s.line)
        return found.holding(line)

    def _assigning(self, path: str, holder: Symbol, name: str) -> list[int]:
        """The lines (from 0) of the function, its header's first on, that assign the name
        (`_assignment`), in order: found once a function and name, however many sites of it
        read the name."""
        key = (path, holder.start_byte, name)
        found = self._assignments.get(key)
        if found is None:
            lines = self.lines(path)
            assignment = _assignment(name)
            # of the function's lines, those that may assign the name: read once a name, not
            # every line of the function for each name its sites read
            naming = self._lines_naming(path, name)
            body = naming[bisect_left(naming, holder.line):bisect_left(naming, min(holder.end_line, len(lines)))]
            found = self._assignments[key] = [i for i in body if assignment.match(lines[i])]
        return found

    def _assigned(self, lines: list[bytes], i: int, assignment: re.Pattern[bytes]) -> Typing:
        """What the assignment on line `i` (from 0) gives (`_typed`); None when it is none."""
        bound = assignment.match(lines[i])
        return self._typed(lines, i, bound) if bound is not None else None

    def _typed(self, lines: list[bytes], i: int, bound: re.Match[bytes]) -> Typing:
        """What the assignment `bound` matched on line `i` (from 0) gives: its annotation (group
        1) when it names a class asked (`app: Flask = LocalProxy(...)`), else an instance when its
        whole value is a call making one (`Flask(...)`, not `Flask(...).test_client()`)."""
        text = lines[i]
        if bound.group(1):  # `name: T = ...`: the annotation decides, when it names a class asked
            cls = re.match(rb"\s*" + _CLASS + rb"$", bound.group(1))
            if cls is not None and self.is_class(cls.group(1).decode()):
                return Typed(f"annotation `{cls.group(1).decode()}`", cls=cls.group(1).decode())
        m = _CALL.match(text, bound.end())
        with_as = text.lstrip().startswith((b"with", b"async"))
        if m is None or not self.makes(m.group(1).decode()) or not _call_alone(lines, i, m.end() - 1, with_as):
            return False
        return Typed(None, text[bound.end():m.end()].rstrip(b"( \t").strip().decode(), m.group(1).decode())

    def assigned_class(self, path: str, name: str) -> str | Literal[False] | None:
        """The class asked about that the file's first module-level (unindented) assignment of
        `name` types it as (`_typed`): its annotation (`current_app: Flask = LocalProxy(...)`),
        else the class its whole value, a call, makes an instance of (`codes =
        LookupDict(...)`); False when that assignment gives none, None when no line assigns it."""
        spelled = name.encode()
        assignment = _assignment(spelled)  # on a line starting with the name: `name = ...`, `name: T = ...`
        lines = self.lines(path)
        for i in self._lines_naming(path, name):
            if lines[i].startswith(spelled) and (bound := assignment.match(lines[i])) is not None:
                typed = self._typed(lines, i, bound)
                return typed.cls if typed else False
        return None

    def _parameter(self, path: str, holder: Symbol, name: str, header: bytes, depth: int) -> Typing:
        key = (path, holder.start_byte, name)
        if key not in self._annotations:  # once a function and name, however many of its sites ask
            annotated = re.search(rb"[(,*\s]" + re.escape(name.encode()) + rb"\s*:\s*" + _CLASS + rb"[,=)]", header)
            self._annotations[key] = annotated.group(1).decode() if annotated is not None else None
        cls = self._annotations[key]
        if cls is not None:
            return Typed(f"annotation `{cls}` of parameter `{name}`") if self.is_class(cls) else False
        lines = self.lines(path)
        own = self.fixture_name(lines, holder)
        if not holder.name.startswith("test") and own is None:
            return False
        if depth >= FIXTURE_DEPTH:  # a class's own fixtures too: two asking for each other end here
            return False
        if holder.container and own != name:  # a fixture of the test's own class comes first
            inner = self._fixtures_of(path).get((holder.container, name))
            if inner is not None:
                return Typed(f"pytest fixture `{name}` of {path}") if self._gives(path, inner, depth) else False
        # a fixture asking for the fixture of its own name gets the one it overrides, further out
        return self.fixture(path, name, depth, skip_own=own == name)

    def makes(self, callee: str) -> bool:
        """Does a call of `callee` make an instance of the method's class: the class itself, a
        top-level function of the tree of that name whose return annotation names it or whose
        every `return` calls it (`def session(): return Session()`), or a Python method of that
        name whose every definition in the tree is annotated to return it (`def load_app(self)
        -> Flask:`, then `app = info.load_app()`)?"""
        if self.is_class(callee):
            return True
        found = self._factories.get(callee)
        if found is None:
            defined = self.snap.definitions(callee)
            methods = [(p, s) for p, s in defined if s.kind == "method" and p.endswith((".py", ".pyi"))]
            found = self._factories[callee] = any(
                self._returns_instance(p, sym) for p, sym in defined if sym.kind == "function" and not sym.container
            ) or (bool(methods) and all(self.annotated_return(p, s) for p, s in methods))
        return found

    def _returns_instance(self, path: str, sym: Symbol) -> bool:
        if path.endswith((".py", ".pyi")):
            annotated = self.annotated_return(path, sym)
            if annotated is not None:
                return annotated
        else:
            signed = re.search(r"->\s*['\"]?(?:[A-Za-z_][\w.]*\.)?([A-Za-z_]\w*)['\"]?\s*:\s*$", sym.signature)
            if signed:
                return self.is_class(signed.group(1))
            if self._rules(path).language == "javascript":  # `function f(x): T {`: its declared type
                header = sym.signature.encode()
                closed = header.rfind(b")")
                typed = re.match(rb"\)\s*:\s*", header[closed:]) if closed >= 0 else None
                if typed is not None:
                    declared = named_type(header[closed + typed.end():])
                    return declared is not None and self.is_class(declared)
        body = self._read_source(path)[sym.start_byte:sym.end_byte]
        returned = re.findall(rb"^\s*return\b\s*(?:[A-Za-z_][\w.]*\.)?([A-Za-z_]\w*)?\s*(\()?", body, re.M)
        return bool(returned) and all(self.is_class(cls.decode()) and called for cls, called in returned)

    def annotated_return(self, path: str, sym: Symbol) -> bool | None:
        """Does the function's return annotation name a class asked (`-> Flask:`, `-> Flask |
        None:`, over a header of several lines)? None when it has none."""
        header = self.header(path, sym)
        if b"->" not in header:
            return None
        found = _RETURNS.search(header)
        return found is not None and self.is_class(found.group(1).decode())

    def fixture(self, path: str, name: str, depth: int, skip_own: bool = False) -> Typing:
        """The type of the pytest fixture `name` as a test or fixture of the file sees it: the
        closest definition of it, in the file itself (at its top level), then in conftest.py of
        its folder and of each folder above. False when none is typed, or none is visible."""
        folder = path.rpartition("/")[0]
        places = [] if skip_own else [path]
        while True:
            conftest = f"{folder}/conftest.py" if folder else "conftest.py"
            if conftest != path and self.snap.file(conftest) is not None:
                places.append(conftest)
            if not folder:
                break
            folder = folder.rpartition("/")[0]
        for place in places:
            found = self._fixture_in(place, name, depth)
            if found is not None:
                return found
        return False

    def _fixture_in(self, path: str, name: str, depth: int) -> Typing:
        """The type of the file's own top-level fixture `name` (by its function's name, or the
        `name=` its decorator gives), None when the file defines no such fixture."""
        key = (path, name)
        if key in self._fixtures:
            return self._fixtures[key]
        self._fixtures[key] = False  # a fixture asking for itself ends here
        found: Typing = None
        sym = self._fixtures_of(path).get(("", name))
        if sym is not None:
            found = self._gives(path, sym, depth)
            if found:
                found = Typed(f"pytest fixture `{name}` of {path}")
        self._fixtures[key] = found
        return found

    def _fixtures_of(self, path: str) -> dict[tuple[str, str], Symbol]:
        """The file's fixtures by their container ("" at the top) and the name pytest knows
        each by, the first of each: read once a file, not every function again for each name."""
        found = self._fixture_table.get(path)
        if found is None:
            lines = self.lines(path)
            found = self._fixture_table[path] = {}
            for sym in self.functions(path):
                named = self.fixture_name(lines, sym)
                if named is not None:
                    found.setdefault((sym.container, named), sym)
        return found

    def _gives(self, path: str, sym: Symbol, depth: int) -> Typing:
        """What a fixture gives its tests: its return annotation (`Iterator[T]` for one that
        yields), else what every `return` or `yield` of its body gives (a call making an
        instance, or a name typed where it is returned)."""
        lines = self.lines(path)
        header = self.header(path, sym)
        annotated = _YIELDS.search(header) or _RETURNS.search(header)
        if annotated is not None:
            return Typed(None) if self.is_class(annotated.group(1).decode()) else False
        body = lines[sym.line:sym.end_line]
        indent = next((len(t) - len(t.lstrip()) for t in body if t.strip() and not t.lstrip().startswith(b"#")), 0)
        gives = [(sym.line + i, m) for i, t in enumerate(body) if len(t) - len(t.lstrip()) == indent
                 and (m := re.match(rb"\s*(?:return|yield)\s+((?:[A-Za-z_]\w*\.)*)([A-Za-z_]\w*)\s*(\(|(?:#.*)?$)", t))]
        if not gives:
            return False
        for i, m in gives:
            given = m.group(2).decode()
            if m.group(3) == b"(":  # a call, the whole value given (not `app.test_client()`)
                if not self.makes(given) or not _call_alone(lines, i, m.end() - 1):
                    return False
            elif m.group(1) or not self.variable(path, given, i + 1, depth + 1):
                return False
        return Typed(None)

    def fixture_name(self, lines: list[bytes], sym: Symbol) -> str | None:
        """The name pytest knows the function by as a fixture (`@pytest.fixture`, `@fixture`,
        `@pytest.fixture(name="x")`), None when it is no fixture."""
        above: list[bytes] = []
        for t in reversed(lines[max(0, sym.line - 1 - DECORATOR_LINES):sym.line - 1]):
            if not t.strip():
                break
            above.append(t)
            if t.lstrip().startswith(b"@") and _FIXTURE.search(t):
                text = b" ".join(reversed(above))
                named = _FIXTURE_NAME.search(text)
                return named.group(1).decode() if named else sym.name
        return None

    def self_attribute(self, path: str, cls: Symbol, attribute: str) -> Typing:
        """What `self.attribute` is in the class: typed when the class's body annotates it
        (`attribute: Flask`) or every assignment of it in the class's methods gives an instance
        of a class asked (`self.app = Flask(...)`, `self.app = app` of a parameter `app:
        Flask`); None when the class never binds it."""
        key = (path, cls.qualified, attribute)
        if key in self._attributes:
            return self._attributes[key]
        lines = self.lines(path)
        body = range(cls.line, min(cls.end_line, len(lines)))
        indent = next((t[:len(t) - len(t.lstrip())] for t in lines[cls.line:cls.end_line] if t.strip()), b"")
        # a declaration of the class body itself, not a parameter of a method's header
        declared = re.compile(re.escape(indent) + re.escape(attribute.encode()) + rb"\s*:\s*" + _CLASS + rb"(?:=|$)")
        assigned = _assignment(b"self." + attribute.encode())
        found: Typing = None
        for i in body:
            text = lines[i]
            d = declared.match(text)
            if d is not None and self.is_class(d.group(1).decode()):
                found = Typed(f"annotation `{d.group(1).decode()}` of `self.{attribute}` in {cls.name}")
                break
            if assigned.match(text) is None:
                continue
            typed = self._assigned(lines, i, assigned)
            if not typed:
                given = re.match(rb"\s*\S+\s*=\s*([A-Za-z_]\w*)\s*$", text)
                typed = self.variable(path, given.group(1).decode(), i + 1) if given else False
            if not typed:
                found = False
                break
            found = Typed(f"`self.{attribute}` an instance in {cls.name}'s methods")
        self._attributes[key] = found
        return found


def functions_in(snap: Snapshot, path: str) -> list[Symbol]:
    """The file's functions and methods, which hold the names its sites see."""
    facts = snap.core_facts(path)
    return [s for s in (facts.symbols if facts else ()) if s.kind in _FUNCTIONS]


@functools.lru_cache(maxsize=1024)  # once a name: a query of many names outgrows re's own cache
def _assignment(name: str | bytes) -> re.Pattern[bytes]:
    """`name = ...`, `name: T = ...` (group 1 the annotation), and `with Class(...) as name:`
    (what the class's `__enter__` returns: itself, for the context managers a Repo Map names)."""
    spelled = re.escape(name if isinstance(name, bytes) else name.encode())
    return re.compile(rb"\s*(?:" + spelled + rb"\s*(?::([^=]*))?=(?!=)|(?:async\s+)?with\s(?=.*\bas\s+" + spelled
                      + rb"\s*:))")


def _call_alone(lines: list[bytes], i: int, opened: int, with_as: bool = False) -> bool:
    """Is the call whose parenthesis opens at byte `opened` of line `i` (from 0) the whole
    value: closed (on that line or one of the next `HEADER_LINES`) with nothing after it but a
    comment (or, in a `with` statement, `as name:`)?"""
    rest = after_call(lines, i, opened, PYTHON, HEADER_LINES)
    return rest is not None and (not rest or (with_as and re.fullmatch(rb"as\s+[A-Za-z_]\w*\s*:", rest) is not None))


def _header(lines: list[bytes], sym: Symbol) -> bytes:
    """The `def` header of a function, its parameters and return annotation, over as many lines
    as it takes (at most `HEADER_LINES`), up to the colon closing it (`def f() -> T: ...` too)."""
    out = []
    depth = 0
    for t in lines[sym.line - 1:sym.line - 1 + HEADER_LINES]:
        code = t.split(b"#", 1)[0]
        for m in _HEADER_MARKS.finditer(code):  # brackets and colons alone
            ch = code[m.start()]
            if ch in b"([{":
                depth += 1
            elif ch in b")]}":
                depth -= 1
            elif depth <= 0:  # `:`
                out.append(code[:m.start() + 1].strip())
                return b" ".join(out)
        out.append(code.strip())
    return b" ".join(out)


_HEADER_MARKS = re.compile(rb"[()\[\]{}:]")
