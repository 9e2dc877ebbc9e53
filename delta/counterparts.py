"""Test and implementation counterparts of changed files, by each ecosystem's naming
conventions: whether the counterpart exists at head and whether it changed too.

A file is read as (family, role, stem): `src/app/foo.py` is (python, implementation,
"foo"), `tests/unit/test_foo.py` is (python, test, "foo"). Counterparts are the head's
files of the same family and stem in the other role (Go: in the same folder), nearest
folder first, less those the name alone cannot carry (a generic stem or a claimed test in
unrelated folders: CounterpartIndex._strong). When an implementation has no test, the place
its test would have is named with `exists_at_head: false`, by the layout of its nearest
tested neighbours (delta/layout.py) or else the language's convention, so "no test" is
stated rather than implied; a test whose name matches no file is `not_applicable` with the
reason, never a guessed path.
"""

from __future__ import annotations

import posixpath
import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable

from msgspec import Struct

from delta.layout import Layouts, Placement, placement
from delta.testdirs import (
    TEST_DIRS,
    all_words,
    folder_words,
    impl_folder,
    in_test_dir,
    join,
    leading,
    mirror,
    names_stem,
    overlap,
    related,
    subjects,
    tests_folder_for,
)
from indexer.contract.result import Unknown, not_applicable

MAX_COUNTERPARTS = 3
# A Rust test module's attribute, `#[cfg(test)]` (also `# [ cfg ( test ) ]` as rustfmt never writes it)
_RUST_INLINE_TESTS = re.compile(rb"#\s*\[\s*cfg\s*\(\s*test\s*\)\s*\]")
# A stem this many implementations carry names no one file: a match on it needs related folders too.
GENERIC_STEM_FILES = 3
# The files of the other role a file's candidates are ranked among, at most: past it, half
# those nearest it in path order (sharing the most leading folders) and half those nearest it
# by their folders read from the last (sharing the longest folder tail, as tests/a/b/ mirrors
# src/a/b/). Each file's candidates were all ranked, and learning the layout ranks every
# implementation's: a stem many files carry (a thousand utils.py beside a thousand
# test_utils.py, which a commit under review may hold) cost the square of them.
STEM_CANDIDATES = 64


class Counterpart(Struct, frozen=True):
    path: str
    role: str  # the counterpart's role: "test" | "implementation"
    exists_at_head: bool
    changed: bool  # the range changes it too
    rule: str  # which convention paired them: "python:test_<stem>.py"


@dataclass(frozen=True)
class Reading:
    family: str
    role: str
    stem: str
    rule: str


@dataclass(frozen=True)
class Family:
    name: str
    extensions: tuple[str, ...]
    read: Callable[[str, str, str], Reading | None]  # (folder, name, ext) -> reading
    conventional: Callable[[str, Reading, str], str]  # (folder, reading, ext) -> counterpart path
    same_folder: bool = False


def _affixes(prefixes: Iterable[str], suffixes: Iterable[str], family: str, never: frozenset[str] = frozenset()):
    """A reader for conventions of the form <prefix><stem> / <stem><suffix> (before the extension)."""
    def read(folder: str, name: str, ext: str) -> Reading | None:
        base = name[: len(name) - len(ext)]
        if name in never or not base:
            return None
        for p in prefixes:
            # "Test" + "Foo" is a prefix convention; "Tester" is not ("test_" already ends in "_")
            if base.startswith(p) and len(base) > len(p) and (p.endswith("_") or base[len(p)].isupper()):
                return Reading(family, "test", base[len(p):], f"{family}:{p}<stem>{ext}")
        for s in suffixes:
            if base.endswith(s) and len(base) > len(s):
                return Reading(family, "test", base[: -len(s)], f"{family}:<stem>{s}{ext}")
        return Reading(family, "implementation", base, f"{family}:<stem>{ext}")
    return read


# Test modules whose name gives no stem (Django's app/tests.py): a test, of no one file.
NAMELESS_TESTS = {"tests.py", "test.py"}
NAMELESS_RULE = "python:<folder naming stem>/tests.py"


def _read_python(folder: str, name: str, ext: str) -> Reading | None:
    if name in ("conftest.py", "setup.py", "noxfile.py", "manage.py"):
        return None
    if name in NAMELESS_TESTS or (name.startswith("__") and name.endswith("__.py")):  # __init__, __about__
        return None
    reading = _affixes(("test_",), ("_test", "_tests"), "python")(folder, name, ext)
    if reading and reading.stem.lstrip("_"):
        # click's _compat.py is tested by test_compat.py: the underscore marks privacy, not a name
        reading = Reading(reading.family, reading.role, reading.stem.lstrip("_"), reading.rule)
    return reading


def _read_js(folder: str, name: str, ext: str) -> Reading | None:
    base = name[: len(name) - len(ext)]
    if base.endswith(".d") or not base:
        return None
    for marker in (".test", ".spec"):
        if base.endswith(marker) and len(base) > len(marker):
            return Reading("js", "test", base[: -len(marker)], f"js:<stem>{marker}{ext}")
    if "__tests__" in folder.split("/"):
        return Reading("js", "test", base, f"js:__tests__/<stem>{ext}")
    return Reading("js", "implementation", base, f"js:<stem>{ext}")


def _read_rust(folder: str, name: str, ext: str) -> Reading | None:
    base = name[:-3]
    if name in ("mod.rs", "lib.rs", "main.rs", "build.rs"):
        return None
    if folder.split("/")[0:1] == ["tests"] or folder.endswith("/tests") or folder == "tests":
        return Reading("rust", "test", base, "rust:tests/<stem>.rs")
    return _affixes((), ("_test", "_tests"), "rust")(folder, name, ext)


def _read_ruby(folder: str, name: str, ext: str) -> Reading | None:
    return _affixes(("test_",), ("_spec", "_test"), "ruby")(folder, name, ext)


def _conv_python(folder: str, r: Reading, ext: str) -> str:
    if r.role == "implementation":
        return f"tests/test_{r.stem}.py"
    return join(impl_folder(folder), f"{r.stem}.py")


def _conv_same(fmt: str) -> Callable[[str, Reading, str], str]:
    def conv(folder: str, r: Reading, ext: str) -> str:
        if r.role == "implementation":
            return join(tests_folder_for(folder), fmt.format(stem=r.stem, ext=ext))
        return join(impl_folder(folder), f"{r.stem}{ext}")
    return conv


def _conv_js(folder: str, r: Reading, ext: str) -> str:
    if r.role == "implementation":
        return join(folder, f"{r.stem}.test{ext}")
    parent = "/".join(p for p in folder.split("/") if p != "__tests__")
    return join(parent, f"{r.stem}{ext}")


def _conv_ruby(folder: str, r: Reading, ext: str) -> str:
    if r.role == "implementation":
        parts = folder.split("/") if folder else []
        rest = "/".join(parts[1:]) if parts[:1] == ["lib"] else folder
        return join(join("spec", rest) if rest else "spec", f"{r.stem}_spec.rb")
    parts = [p for p in folder.split("/") if p and p not in TEST_DIRS]
    return join("/".join(["lib"] + parts), f"{r.stem}.rb")


def _conv_rust(folder: str, r: Reading, ext: str) -> str:
    return f"tests/{r.stem}.rs" if r.role == "implementation" else f"src/{r.stem}.rs"


FAMILIES: tuple[Family, ...] = (
    Family("python", (".py",), _read_python, _conv_python),
    Family("go", (".go",), _affixes((), ("_test",), "go"), _conv_same("{stem}_test{ext}"), same_folder=True),
    Family("js", (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"), _read_js, _conv_js),
    Family("jvm", (".java", ".kt", ".kts", ".scala", ".groovy"),
           _affixes(("Test",), ("Tests", "Test", "IT", "Spec"), "jvm"), _conv_same("{stem}Test{ext}")),
    Family("ruby", (".rb",), _read_ruby, _conv_ruby),
    Family("rust", (".rs",), _read_rust, _conv_rust),
    Family("csharp", (".cs",), _affixes((), ("Tests", "Test"), "csharp"), _conv_same("{stem}Tests{ext}")),
    Family("php", (".php",), _affixes((), ("Test",), "php"), _conv_same("{stem}Test{ext}")),
    Family("swift", (".swift",), _affixes((), ("Tests", "Test"), "swift"), _conv_same("{stem}Tests{ext}")),
    Family("c", (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp"),
           _affixes(("test_",), ("_unittest", "_test", "_tests"), "c"), _conv_same("{stem}_test{ext}")),
    Family("elixir", (".ex", ".exs"), _affixes((), ("_test",), "elixir"), _conv_same("{stem}_test.exs")),
    Family("dart", (".dart",), _affixes((), ("_test",), "dart"), _conv_same("{stem}_test{ext}")),
)


_BY_EXT = sorted(((ext, fam) for fam in FAMILIES for ext in fam.extensions), key=lambda e: -len(e[0]))


def _read(path: str) -> tuple[Family, Reading, str] | None:
    folder, name = posixpath.split(path)
    for ext, family in _BY_EXT:  # longest extension first: ".kts" is not ".ts"
        if name.endswith(ext):
            reading = family.read(folder, name, ext)
            if reading and reading.role == "implementation" and in_test_dir(folder):
                # tests/backends/models.py, tests/typing/*.py: what the tests use, not what they test
                reading = Reading(reading.family, "support", reading.stem, f"{reading.family}:test-folder support")
            return (family, reading, ext) if reading else None
    return None


def test_rule(path: str) -> str | None:
    """The rule that reads the file at `path` as a test, or as what tests use (a file in a test
    folder), by the conventions the counterparts pair by; None for an implementation, or a file
    of no family they know."""
    found = _read(path)
    return found[1].rule if found is not None and found[1].role != "implementation" else None


class _Stem:
    """The files of one (family, role, stem), in path order, and by their folders read from the
    last, to find those nearest a file (`nearest`)."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self._tails: list[tuple[str, str]] | None = None

    def nearest(self, path: str) -> list[str]:
        """The files, or, past STEM_CANDIDATES of them, those nearest `path`: a run around
        where it would stand in path order and one where its folder tail would, in path order."""
        if len(self.paths) <= STEM_CANDIDATES:
            return self.paths
        if self._tails is None:
            self._tails = sorted((_tail(p), p) for p in self.paths)
        half = STEM_CANDIDATES // 2
        found = set(_run(self.paths, path, half))
        found.update(p for _, p in _run(self._tails, (_tail(path), path), half))
        return sorted(found)


def _tail(path: str) -> str:
    """A file's folders read from the last (`a/b/c.py`: "b/a")."""
    return "/".join(reversed(posixpath.dirname(path).split("/")))


def _run(items: list, at: object, count: int) -> list:
    """`count` of the sorted `items` around where `at` would stand."""
    start = min(max(0, bisect_left(items, at) - count // 2), max(0, len(items) - count))
    return items[start:start + count]


class CounterpartIndex:
    """The head's files (and the range's deleted ones) by (family, role, stem)."""

    def __init__(self, head_paths: Iterable[str], changed_paths: set[str], deleted_paths: Iterable[str] = (),
                 read_head: Callable[[str], bytes | None] | None = None,
                 blob_of: Callable[[str], str | None] | None = None) -> None:
        self.head = set(head_paths)
        self.changed = changed_paths
        self._read_head = read_head  # a head file's bytes, for tests a file holds itself
        # a head file's blob, under which what it holds is kept: a blob at many paths is read once
        # (None for a path whose answer is not kept: one not read)
        self._blob_of = blob_of
        self._holds_tests: dict[str, bool] = {}
        self._by_key: dict[tuple[str, str, str], _Stem] = {}
        nameless: dict[frozenset[str], _Stem] = {}  # a folder's words -> the tests.py paths in such folders
        for path in sorted(self.head | set(deleted_paths)):
            found = _read(path)
            if found and found[1].role != "support":
                _, r, _ = found
                self._by_key.setdefault((r.family, r.role, r.stem), _Stem()).paths.append(path)
            elif posixpath.basename(path) in NAMELESS_TESTS and in_test_dir(posixpath.dirname(path)):
                # django/contrib/admin/tests.py is the admin's Selenium helper, not a test folder's tests
                if words := folder_words(path):
                    nameless.setdefault(words, _Stem()).paths.append(path)
        self._nameless = nameless
        # each folder's words under the one of them the fewest folders' words hold: a folder a file
        # may be offered names only words the file's stem and folders name, so it is found under one
        held = Counter(w for words in nameless for w in words)
        self._nameless_by_rarest: dict[str, list[frozenset[str]]] = {}
        for words in nameless:
            self._nameless_by_rarest.setdefault(min(words, key=lambda w: (held[w], w)), []).append(words)
        self._layouts: dict[str, Layouts] = {}  # family -> its placements, read when first needed
        self._folders = frozenset(posixpath.dirname(p) for p in self.head)

    def _candidates(self, path: str, family: Family, r: Reading, other: str) -> dict[str, str]:
        """Files of the other role that name this one, each with the rule that pairs them."""
        folder = posixpath.dirname(path)
        out: dict[str, str] = {}
        group = self._by_key.get((r.family, other, r.stem))
        for p in group.nearest(path) if group is not None else ():
            if p != path and (not family.same_folder or posixpath.dirname(p) == folder):
                out[p] = _read(p)[1].rule if r.role == "implementation" else r.rule  # type: ignore[index]
        if r.family == "python" and r.role == "implementation":
            for p in self._nameless_naming(path, r.stem):
                out[p] = NAMELESS_RULE
        return out

    def _nameless_naming(self, path: str, stem: str) -> list[str]:
        """Django's tests/admin_filters/tests.py for django/contrib/admin/filters.py: a tests.py
        in a test folder whose name is the stem plus words of the implementation's own folders,
        sharing at least one of them (humanize_tests for contrib/humanize/templatetags/humanize.py).
        "proxy_models" names no folder of django/contrib/auth/models.py, and tests/backends/ shares
        no folder with django/contrib/auth/backends.py, so neither is offered."""
        want = set(stem.split("_")) - {""}
        if not want:
            return []
        own = all_words(path)
        out: list[str] = []
        # a folder offered holds only words of `want` and `own`, its rarest among them: looked for
        # there, where every folder holding the stem's first word was tried for each file (the
        # product of the implementations and the tests.py folders naming their stem)
        for word in want | own:
            for words in self._nameless_by_rarest.get(word, ()):
                if want <= words and words - want <= own and words & own:
                    out.extend(self._nameless[words].nearest(path))
        # many folders' words may name it too: those nearest it, as among the files of one stem
        found = _Stem()
        found.paths = sorted(out)
        return found.nearest(path)

    def _rank(self, path: str, candidate: str) -> tuple:
        """Closest first, every step explainable: a file that exists at head before one the range
        deleted; then the longest mirrored folder tail; then the most folder words in common;
        then the most shared leading folders; then the fewest folders left unexplained (of
        django/db/backends/utils.py and django/contrib/gis/db/backends/utils.py, tests/backends/
        mirrors both, the first more closely); then the path, so ties are stable."""
        shared = mirror(path, candidate)
        return (candidate not in self.head, -shared, -overlap(path, candidate),
                -leading(path, candidate), len(subjects(candidate)) - shared, candidate)

    def _strong(self, path: str, family: Family, r: Reading, other: str) -> tuple[list[str], dict[str, str], int]:
        """The candidates a reviewer is offered, closest first, with their rules, and how many
        were set aside as matches by name alone. A reviewer reads every counterpart as "the
        tests of this file", so a pairing whose folders are unrelated (testdirs.related) is
        not offered when the name cannot carry it alone:
        - the stem is generic, GENERIC_STEM_FILES or more implementations carrying it (base,
          utils, models, views in Django): tests/generic_views/test_base.py is no test of
          django/core/management/base.py;
        - or the test is claimed, related to another implementation of that stem:
          tests/utils_tests/test_text.py is django/utils/text.py's, not
          django/db/models/functions/text.py's.
        A test in a folder named for the stem (tests/lookup/test_lookups.py) is borne out by
        that folder; Django's folder-named tests.py is matched by its folder already: both stay."""
        rules = self._candidates(path, family, r, other)
        group = self._by_key.get((r.family, "implementation", r.stem))
        impls = group.paths if group is not None else []
        generic = len(impls) >= GENERIC_STEM_FILES
        dropped = 0
        for p in list(rules):
            impl, test = (path, p) if r.role == "implementation" else (p, path)
            if rules[p] == NAMELESS_RULE or related(impl, test) or names_stem(test, r.stem):
                continue
            if generic or any(other_impl != impl and related(other_impl, test) for other_impl in impls):
                del rules[p]
                dropped += 1
        return sorted(rules, key=lambda p: self._rank(path, p)), rules, dropped

    def _placements(self, family: Family) -> Layouts:
        """How the family's tested implementations at head place their tests: each one's
        closest counterpart that exists at head in a related folder, read as a placement
        (delta/layout.py)."""
        if family.name not in self._layouts:
            found: list[Placement] = []
            for (fam, role, _stem), group in sorted(self._by_key.items(), key=lambda kv: kv[0]):
                if fam != family.name or role != "implementation":
                    continue
                for impl in group.paths:
                    read = _read(impl)
                    if impl not in self.head or read is None:
                        continue
                    ranked, rules, _ = self._strong(impl, family, read[1], "test")
                    test = next((p for p in ranked if p in self.head), None)
                    if test is None or not self._shows_layout(impl, test):
                        continue
                    made = placement(impl, test, rules[test], read[2])
                    if made:
                        found.append(made)
            self._layouts[family.name] = Layouts(found)
        return self._layouts[family.name]

    def _shows_layout(self, impl: str, test: str) -> bool:
        """Whether a pairing shows where the repository puts tests, beyond the one name: the
        folders bear it out (tests/db_functions/math/test_log.py pairs with admin/templatetags/
        log.py by name, and says nothing of where the admin's tests go; tests/lookup/ is named
        for lookups.py, not for django/db/models/), and each is the other's closest (tests/
        backends/base/test_base.py is django/db/backends/base/base.py's, though it is
        django/contrib/gis/db/backends/oracle/base.py's closest test too)."""
        if not related(impl, test):
            return False
        found = _read(test)
        if found is None:
            return False
        family, r, _ = found
        ranked, _, _ = self._strong(test, family, r, "implementation")
        return bool(ranked) and ranked[0] == impl

    def _own_tests(self, path: str) -> list[Counterpart]:
        """The file itself, when it holds its tests: Rust's `#[cfg(test)] mod tests`, the
        language's own place for unit tests (lib.rs and mod.rs too)."""
        if not path.endswith(".rs") or self._read_head is None or path not in self.head:
            return []
        key = self._blob_of(path) if self._blob_of is not None else None
        held = self._holds_tests.get(key) if key is not None else None
        if held is None:
            data = self._read_head(path)
            held = data is not None and _RUST_INLINE_TESTS.search(data) is not None
            if key is not None:
                self._holds_tests[key] = held
        if not held:
            return []
        return [Counterpart(path, "test", True, path in self.changed, "rust:#[cfg(test)] in the file")]

    def counterparts(self, path: str) -> list[Counterpart] | Unknown:
        found = _read(path)
        own = self._own_tests(path) if found is None or found[1].role == "implementation" else []
        if found is None and own:
            return own
        if found is None:
            name = posixpath.basename(path)
            if name in NAMELESS_TESTS:
                return not_applicable(f"{name} is a test module whose name names no implementation")
            return not_applicable(f"no test convention known for {name}")
        family, r, ext = found
        if r.role == "support":
            return not_applicable(f"{posixpath.basename(path)} sits in the test folder "
                                  f"{posixpath.dirname(path)}/ without a test name: test support (models, "
                                  "fixtures, helpers), not an implementation")
        other = "implementation" if r.role == "test" else "test"
        folder = posixpath.dirname(path)
        ranked, rules, dropped = self._strong(path, family, r, other)
        if ranked:
            return own + [Counterpart(p, other, p in self.head, p in self.changed, rules[p])
                          for p in ranked[:MAX_COUNTERPARTS - len(own)]]
        if own:
            return own
        if r.role == "test":
            # a test names what it tests only by convention; test_appctx.py may test behaviour
            # spread over modules, so a path nobody wrote is not offered as its implementation
            if dropped:
                return not_applicable(f"{dropped} implementation(s) named {r.stem} at head, none in a folder "
                                      f"related to {folder or 'the root'}/, and the name alone does not pair "
                                      f"them: {r.stem} is a name many files share, or its test is another's")
            where = f"in {folder or 'the root'}/" if family.same_folder else "at head"
            return not_applicable(f"no implementation named {r.stem} {where} or deleted in the range: "
                                  f"{posixpath.basename(path)} names no file, so none is guessed")
        learned = self._placements(family).suggest(folder, r.stem, ext, self._folders)
        if learned:
            expected, pl = learned
            rule = f"{r.family}:layout of {pl.source} -> {pl.test}"
        else:
            expected, rule = family.conventional(folder, r, ext), f"{r.family}:conventional"
        return [Counterpart(expected, other, expected in self.head, expected in self.changed, rule)]
