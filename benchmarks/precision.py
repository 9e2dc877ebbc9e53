"""How precise `context.references` is against an independent analyzer (issue 26, item 5).

For a sample of Python symbols of each kind (class, function, method, variable) in a registry
corpus, Rennet's resolved sites (every site whose `rule` is neither `name` nor `text file`,
attributed to that definition) are compared with the references Jedi finds from the
definition, its per-search file limits lifted:

- precision: the share of Rennet's resolved sites that Jedi confirms: listed among its
  references, or resolved by its goto (imports followed) to the definition. A site neither
  listed nor confirmed from which Jedi's goto names no definition at all is undecided (the
  analyzer's silence is no verdict) and counted apart: precision is over the decided sites
  (confirmed / (confirmed + contradicted)), the strict figure (confirmed / all resolved) beside it;
- recall: the share of Jedi's references (the definition itself aside) that Rennet lists as
  resolved.

The sample is chosen by a fixed rule, never by hand (`sample`): in each corpus, for each kind,
the definitions in the package's own files (not tests, docs or examples) whose name is not
private, the `PER_KIND` whose simple name is written most often in the tree's Python files
(ties by path, then qualified name): the names most likely to be spelled by other things too.
Each is asked as it is qualified in its file (`get`, `Session.get`), without a path: a query
matching several definitions is answered per definition, and only this one's sites count.

`--sample broad` takes a wider sample by another fixed rule (`broad`): rare names and private
ones too, methods overridden in a subclass, names a package re-exports; and each of Jedi's
references Rennet does not list as resolved is looked up in the answer for its simple name,
to tell a site Rennet lists as a `name_match` from one it lists not at all.

Jedi (a benchmark dependency: the `bench` extra) searches the checked-out tree with its own
module path (the tree and its `src/`) and the standard library, never the environment's
site-packages, so a corpus' imports of itself are read from the tree; pytest's own packages
alone are on its path too (`pytest_alone`), so its pytest plugin types a test's parameter as the
fixture of its name, as it does in an editor.

    python -m benchmarks.precision --corpus /tmp/corp/requests.git --corpus /tmp/corp/flask.git
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import sysconfig
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from context_tools import Client
    from indexer.store.snapshot import Snapshot

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
PER_KIND = 4
# `--sample broad` (`broad`): per corpus, of each kind by hash, then methods overridden or
# overriding, then each other kind's names a package's __init__ re-exports
BROAD_PER_KIND = 12
BROAD_OVERRIDDEN = 8
BROAD_REEXPORTED = 3
KINDS = {"class": ("class",), "function": ("function",), "method": ("method",), "variable": ("variable", "constant")}
NOT_PACKAGE = ("tests/", "test/", "docs/", "examples/", "example/", "benchmarks/", "dist/", "build/")
DECLARATIONS = (".d.ts", ".d.mts", ".d.cts")  # TypeScript declarations: a build's output, not the sources
UNRESOLVED_RULES = frozenset({"name", "text file"})  # the rules of name_match and text sites
GOAL_PRECISION = 0.95
CONSTRUCTORS = frozenset({"constructor", "__init__"})  # a class's constructor, as JS/TS and Python name it
GOAL_RECALL = 0.97

Spot = tuple[str, int, int]  # (path, line, column in characters from 0)
Site = tuple[str, int, int, str]  # a spot and the rule that resolved it

# The analyzer's verdict on one of Rennet's sites its references leave out (`compare`).
CONFIRMED = "confirmed"  # its goto from the site lands on the definition
CONTRADICTED = "contradicted"  # its goto names another definition
UNDECIDED = "undecided"  # its goto names no definition at all: it cannot judge the site


@dataclass
class Measured:
    corpus: str
    kind: str
    query: str
    path: str
    line: int
    rennet: int  # resolved sites attributed to the definition
    theirs: int  # the analyzer's references, the definition aside
    confirmed: int  # Rennet's sites the analyzer confirms
    listed: int  # the analyzer's references Rennet lists as resolved
    wrong: list[Site] = field(default_factory=list)  # contradicted: the analyzer names another definition
    missed: list[Spot] = field(default_factory=list)
    seconds: float = 0.0
    tree: str = ""  # the checked-out tree the analyzer read
    analyzer: str = "Jedi"
    undecided: list[Site] = field(default_factory=list)  # the analyzer names no definition from them
    # of `missed`, those the answer for the simple name lists as a `name_match` (None: not looked up)
    named: list[Spot] | None = None
    why: str = ""  # the part of the sample rule that chose it (`broad`)


def _package_file(path: str, suffixes: tuple[str, ...] = (".py",)) -> bool:
    return (path.endswith(suffixes) and not path.endswith(DECLARATIONS) and not path.startswith(NOT_PACKAGE)
            and "/tests/" not in path and "/__tests__/" not in path)


def sample(snap, per_kind: int = PER_KIND, suffixes: tuple[str, ...] = (".py",),
           methods: int | None = None) -> list[tuple[str, str, object]]:
    """(kind, path, symbol) of the symbols measured: the fixed rule of the module's docstring,
    over the files whose names end in one of `suffixes` (the language the analyzer reads).
    With `methods` (0 for no cap), the methods are `every_method`'s instead of the most written."""
    counts: dict[str, int] = {}

    def written(name: str) -> int:
        if name not in counts:
            counts[name] = sum(1 for p, _ in snap.occurrences(name) if p.endswith(suffixes))
        return counts[name]

    chosen = []
    for kind in KINDS:
        if kind == "method" and methods is not None:
            chosen += [("method", path, sym) for path, sym in every_method(snap, suffixes, methods)]
            continue
        found = [(-written(sym.name), path, sym.qualified, sym) for path, sym in _eligible(snap, kind, suffixes)]
        for path, sym in _first_of_each(sorted(found, key=lambda t: t[:3]))[:per_kind]:
            chosen.append((kind, path, sym))
    return chosen


def broad(snap, suffixes: tuple[str, ...] = (".py",)) -> list[tuple[str, str, object, str]]:
    """(kind, path, symbol, why) of the wider sample, by a rule fixed before measuring, in the
    package's own files (as `_eligible`, private names in, dunders out): of each kind the first
    `BROAD_PER_KIND` by the SHA-256 of path and qualified name ("hash", an order blind to how
    often a name is written); then `BROAD_OVERRIDDEN` methods a class of those files overrides
    or overrides in a base it names ("overridden", both sides in the same order); then of each
    other kind `BROAD_REEXPORTED` a package's __init__ imports to offer ("re-exported"); then
    `sample`'s most written ("popular"). A qualified name chosen once, the first of its path."""
    chosen: list[tuple[str, str, object, str]] = []
    seen: set[tuple[str, str]] = set()

    def take(kind: str, found, n: int, why: str) -> None:
        ordered = sorted(found, key=lambda t: (hashlib.sha256(f"{t[0]}:{t[1].qualified}".encode()).hexdigest(),
                                               t[0], t[1].line))
        for path, sym in ordered:
            if n <= 0:
                break
            if (path, sym.qualified) not in seen:
                seen.add((path, sym.qualified))
                chosen.append((kind, path, sym, why))
                n -= 1

    eligible = {kind: list(_eligible(snap, kind, suffixes, private=True)) for kind in KINDS}
    for kind in KINDS:
        take(kind, eligible[kind], BROAD_PER_KIND, "hash")
    by_class: dict[str, dict[str, tuple[str, object]]] = {}
    for path, sym in eligible["method"]:
        by_class.setdefault(sym.container.rsplit(".", 1)[-1], {})[sym.name] = (path, sym)
    overridden = []
    for path in sorted(snap.paths):
        facts = snap.facts(path) if _package_file(path, suffixes) else None
        for b in facts.bases if facts is not None else ():
            own, base = by_class.get(b.cls.rsplit(".", 1)[-1], {}), by_class.get(b.base.rsplit(".", 1)[-1], {})
            for name in sorted(set(own) & set(base)):
                overridden += [own[name], base[name]]
    take("method", overridden, BROAD_OVERRIDDEN, "overridden")
    offered = _reexported(snap, suffixes)
    for kind in KINDS:
        if kind != "method":
            take(kind, [(p, sym) for p, sym in eligible[kind] if sym.name in offered], BROAD_REEXPORTED, "re-exported")
    for kind, path, sym in sample(snap, PER_KIND, suffixes):
        if (path, sym.qualified) not in seen:
            seen.add((path, sym.qualified))
            chosen.append((kind, path, sym, "popular"))
    return chosen


def _reexported(snap, suffixes: tuple[str, ...]) -> set[str]:
    """The names the package's own __init__ files import from a module to offer them."""
    import ast

    names: set[str] = set()
    for path in snap.paths:
        if not path.endswith("/__init__.py") or not _package_file(path, suffixes):
            continue
        try:
            tree = ast.parse(snap.blob_bytes(path))
        except SyntaxError:
            continue
        names |= {a.asname or a.name for node in tree.body if isinstance(node, ast.ImportFrom) for a in node.names}
    return names


def every_method(snap, suffixes: tuple[str, ...], cap: int = 0) -> list[tuple[str, object]]:
    """(path, symbol) of the methods measured by the larger rule: every method the kind's rule
    admits (a member of a named container, neither private, in the package's own files) but a
    constructor (`CONSTRUCTORS`: its references are its class's `new C(...)`, no site of its
    own name), one definition a qualified name (the first by path and line), ordered by the
    SHA-256 of the qualified name (an order blind to the name's spelling and to any result),
    the first `cap` of them (all with 0)."""
    found = [(hashlib.sha256(sym.qualified.encode()).hexdigest(), path, sym.line, sym.qualified, sym)
             for path, sym in _eligible(snap, "method", suffixes) if sym.name not in CONSTRUCTORS]
    chosen = _first_of_each([(h, p, q, sym) for h, p, _, q, sym in sorted(found, key=lambda t: t[:3])])
    return chosen[:cap] if cap else chosen


def _eligible(snap, kind: str, suffixes: tuple[str, ...], private: bool = False):
    """(path, symbol) of the definitions of a kind the sample may take: in the package's own files,
    not private (`private`: a dunder alone left out); a method has a container, the other kinds none."""
    for path, sym in snap.symbols():
        hidden = sym.name.startswith("__") and sym.name.endswith("__") if private else (
            sym.name.startswith("_") or sym.container.startswith("_"))
        if sym.kind not in KINDS[kind] or not _package_file(path, suffixes) or hidden:
            continue
        if (kind == "method") != bool(sym.container):
            continue
        yield path, sym


def _first_of_each(ordered: list[tuple]) -> list[tuple[str, object]]:
    """(path, symbol) of the first definition of each qualified name, in order: the same query
    twice would measure it twice. Each entry is (key, path, qualified, symbol)."""
    seen: set[str] = set()
    out = []
    for _, path, qualified, sym in ordered:
        if qualified not in seen:
            seen.add(qualified)
            out.append((path, sym))
    return out


def _char_col(lines: dict[str, list[bytes]], tree: Path, path: str, line: int, col: int, utf16: bool = False) -> int:
    """A byte column (Rennet's) as a character column (Jedi's), or in UTF-16 code units (the
    TypeScript language service's)."""
    text = lines.get(path)
    if text is None:
        text = lines[path] = (tree / path).read_bytes().splitlines()
    if 0 < line <= len(text):
        chars = text[line - 1][:col].decode("utf-8", "replace")
        return len(chars.encode("utf-16-le")) // 2 if utf16 else len(chars)
    return col


def rennet_sites(client, repo: str, rev: str, query: str, path: str, line: int) -> list[tuple[str, int, int, str]]:
    """(path, line, byte col, rule) of the resolved sites attributed to the definition at
    (path, line): every page of the answer read. A definition past the answer's cap of
    definitions (a name defined in every locale of date-fns) is asked with its file (`--path`),
    which the answer then lists."""
    out = []
    cursor = None
    narrow: dict[str, str] = {}
    while True:
        res = client.call("context.references", repo=repo, rev=rev, name=query, cursor=cursor, **narrow)
        data = res.data
        mine = {i for i, d in enumerate(data.definitions) if d.path == path and d.line == line}
        if not mine and not narrow and data.definitions_total > len(data.definitions):
            narrow, cursor, out = {"path": path}, None, []
            continue
        for s in data.sites:
            if s.rule in UNRESOLVED_RULES or s.resolution in ("name_match", "text"):
                continue
            owner = getattr(s, "definition", None)
            # an answer without attribution counts every site; one attributing its first
            # definitions leaves the sites of later ones without
            if owner in mine or (owner is None and not getattr(data, "definitions_attributed", 0)):
                out.append((s.path, s.line, s.col, s.rule))
        cursor = res.page.cursor if res.page is not None else None
        if not cursor:
            return out


def name_matches(client, repo: str, rev: str, name: str) -> list[tuple[str, int, int]]:
    """(path, line, byte col) of the `name_match` sites of the answer for a simple name, every page."""
    out = []
    cursor = None
    while True:
        res = client.call("context.references", repo=repo, rev=rev, name=name, cursor=cursor)
        out += [(s.path, s.line, s.col) for s in res.data.sites if s.resolution == "name_match"]
        cursor = res.page.cursor if res.page is not None else None
        if not cursor:
            return out


def jedi_project(tree: Path, work: Path | None = None):
    import jedi

    roots = [str(tree / "src")] if (tree / "src").is_dir() else []
    stdlib = sysconfig.get_paths()["stdlib"]
    framework = [str(pytest_alone(work))] if work is not None else []
    return jedi.Project(str(tree), sys_path=[*roots, str(tree), stdlib, *framework], load_unsafe_extensions=False,
                        smart_sys_path=False)


def pytest_alone(work: Path) -> Path:
    """A folder holding links to the installed `pytest` and `_pytest` packages and nothing else:
    Jedi's pytest plugin types a test's parameter as the fixture of its name only where it can
    read `@pytest.fixture` as pytest's own `fixture` (both corpora test with pytest), while the
    rest of the environment's site-packages stays off Jedi's path."""
    import _pytest
    import pytest

    folder = work / "jedi-path"
    folder.mkdir(parents=True, exist_ok=True)
    for module in (pytest, _pytest):
        source = Path(module.__file__).parent
        link = folder / source.name
        if not link.is_symlink() or link.resolve() != source.resolve():
            link.unlink(missing_ok=True)
            link.symlink_to(source, target_is_directory=True)
    return folder


def lift_jedi_limits() -> None:
    """Jedi stops a project-wide search after a number of opened and parsed files, and never
    searches other files for a name of two characters or less (`g`): all lifted."""
    from jedi.inference import references

    references._OPENED_FILE_LIMIT = 1_000_000
    references._PARSED_FILE_LIMIT = 1_000_000

    def containing(inference_state, module_contexts, name, limit_reduction=1):
        yield from (m for m in module_contexts if not m.is_compiled())
        files = references._find_project_modules(inference_state, module_contexts)
        yield from references.search_in_file_ios(inference_state, files, name, limit_reduction=limit_reduction)

    references.get_module_contexts_containing_name = containing


def jedi_references(project, tree: Path, path: str, line: int, col: int) -> set[Spot]:
    import jedi

    script = jedi.Script(path=str(tree / path), project=project)
    found: set[Spot] = set()
    for name in script.get_references(line, col, include_builtins=False):
        if name.module_path is None or name.line is None:
            continue
        try:
            rel = Path(name.module_path).resolve().relative_to(tree.resolve())
        except ValueError:
            continue  # the standard library's
        found.add((rel.as_posix(), name.line, name.column))
    found.discard((path, line, col))
    return found


def jedi_judges(project, tree: Path, site: Spot, definition: tuple[str, int]) -> str:
    """Jedi's verdict on a site from its goto (imports followed): confirmed when it lands on the
    definition (its project-wide reference search passes over some sites its own goto resolves,
    `s.get` after `s = requests.session()`, a function returning a Session), contradicted when it
    names only other definitions (the standard library's too), undecided when it names none or
    fails: an analyzer that cannot answer judges nothing."""
    import jedi

    try:
        script = jedi.Script(path=str(tree / site[0]), project=project)
        names = script.goto(site[1], site[2], follow_imports=True)
    except Exception:
        return UNDECIDED
    named = []
    for name in names:
        if name.module_path is None or name.line is None:
            named.append(("", 0))  # a builtin's: a definition, not the tree's
            continue
        try:
            named.append((Path(name.module_path).resolve().relative_to(tree.resolve()).as_posix(), name.line))
        except ValueError:
            named.append(("", 0))
    return verdict(named, definition)


def verdict(named: list[tuple[str, int]], definition: tuple[str, int]) -> str:
    """The verdict of an analyzer's goto that names these definitions ((path, line), a library's
    with a path outside the tree) on a site of `definition`."""
    if not named:
        return UNDECIDED
    return CONFIRMED if tuple(definition) in {tuple(n) for n in named} else CONTRADICTED


def open_corpus(repo: Path, work: Path, name: str) -> tuple[str, str, Path, Snapshot, Client]:
    """A registry corpus' newest version: its label, its rev, its checked-out tree, its snapshot and a
    client of a store of its own (`name` tells the halves' stores apart)."""
    from benchmarks.host import checkout
    from context_tools import Client
    from indexer import api

    meta = json.loads((repo / "corpus.json").read_text())
    rev = meta["tags"][-1]
    label = f"{meta['package']} {meta['versions'][-1]}"
    tree = checkout(repo, rev, work / "checkouts" / f"{repo.name}-{rev}") / "tree"
    store_home = work / "stores" / f"{name}-{os.getpid()}"
    snap = api.snapshot(str(repo), rev, store=api.open_store(str(store_home)))
    return label, rev, tree, snap, Client(store=str(store_home))


def measure_corpus(repo: Path, work: Path, per_kind: int, log=print, rule: str = "written") -> list[Measured]:

    label, rev, tree, snap, client = open_corpus(repo, work, "precision")
    project = jedi_project(tree, work)
    lines: dict[str, list[bytes]] = {}
    out = []
    chosen = broad(snap) if rule == "broad" else [(k, p, sym, "") for k, p, sym in sample(snap, per_kind)]
    loose: dict[str, set[Spot]] = {}
    for kind, path, sym, why in chosen:
        started = time.perf_counter()
        ours = rennet_sites(client, str(repo), rev, sym.qualified, path, sym.line)
        def_col = _char_col(lines, tree, path, sym.line, _name_col(tree, path, sym))
        theirs = jedi_references(project, tree, path, sym.line, def_col)
        spots = {(p, ln, _char_col(lines, tree, p, ln, c)): rule for p, ln, c, rule in ours}
        m = compare(label, kind, sym.qualified, path, sym.line, spots, theirs,
                    lambda site: jedi_judges(project, tree, site, (path, sym.line)))
        if rule == "broad":
            if sym.name not in loose:
                loose[sym.name] = {(p, ln, _char_col(lines, tree, p, ln, c))
                                   for p, ln, c in name_matches(client, str(repo), rev, sym.name)}
            m.named, m.why = [spot for spot in m.missed if spot in loose[sym.name]], why
        m.seconds, m.tree = time.perf_counter() - started, str(tree)
        log(f"[{label}] {kind} {sym.qualified} ({path}:{sym.line}): rennet {m.rennet}, jedi {m.theirs}, "
            f"confirmed {m.confirmed}, undecided {len(m.undecided)}, listed {m.listed}")
        out.append(m)
    return out


def compare(corpus: str, kind: str, query: str, path: str, line: int, ours: dict[Spot, str], theirs: set[Spot],
            judge: Callable[[Spot], str], analyzer: str = "Jedi") -> Measured:
    """One symbol's figures: Rennet's resolved sites (spot -> rule, in the analyzer's columns)
    against the analyzer's references; a site the references leave out is judged by `judge`
    (the analyzer's goto from it): confirmed, contradicted (wrong) or undecided."""
    judged: dict[str, list[Site]] = {CONFIRMED: [], CONTRADICTED: [], UNDECIDED: []}
    for (p, ln, c), rule in sorted(ours.items()):
        judged[CONFIRMED if (p, ln, c) in theirs else judge((p, ln, c))].append((p, ln, c, rule))
    missed = sorted(s for s in theirs if s not in ours)
    return Measured(corpus, kind, query, path, line, len(ours), len(theirs), len(judged[CONFIRMED]),
                    len(theirs) - len(missed), judged[CONTRADICTED], missed, analyzer=analyzer,
                    undecided=judged[UNDECIDED])


def _name_col(tree: Path, path: str, sym) -> int:
    """The byte column of the definition's name on its line (`def get(`, `class Session(`, `x = `)."""
    text = (tree / path).read_bytes().splitlines()[sym.line - 1]
    name = sym.name.encode()
    for lead in (b"def " + name, b"class " + name):
        at = text.find(lead)
        if at >= 0:
            return at + len(lead) - len(name)
    at = text.find(name)
    return max(at, 0)


def share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def summary(rows: list[Measured]) -> dict:
    by_kind: dict[str, dict] = {}
    for key in [*KINDS, "all"]:
        mine = [r for r in rows if key in (r.kind, "all")]
        rennet = sum(r.rennet for r in mine)
        theirs = sum(r.theirs for r in mine)
        confirmed = sum(r.confirmed for r in mine)
        wrong = sum(len(r.wrong) for r in mine)
        by_kind[key] = {"symbols": len(mine), "rennet": rennet, "confirmed": confirmed, "contradicted": wrong,
                        "undecided": sum(len(r.undecided) for r in mine), "theirs": theirs,
                        "listed": sum(r.listed for r in mine),
                        "precision": share(confirmed, confirmed + wrong),  # over the decided sites
                        "precision_strict": share(confirmed, rennet),  # over every resolved site
                        "recall": share(sum(r.listed for r in mine), theirs)}
    return {"by_kind": by_kind, "wrong_by_rule": Counter(rule for r in rows for *_, rule in r.wrong).most_common(),
            "undecided_by_rule": Counter(rule for r in rows for *_, rule in r.undecided).most_common()}


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def table(rows: list[Measured], methods: str = "", sampled: str = "written") -> list[str]:
    """The table by kind, the goals' verdicts and the wrong sites by rule (also in benchmarks.run's report);
    `methods` says how the methods were chosen when not as the other kinds, `sampled` which rule chose them."""
    if not rows:
        return []
    s = summary(rows)
    corpora = sorted({r.corpus for r in rows})
    them = rows[0].analyzer
    how = ("Jedi (its file limits lifted)", "benchmarks/precision.py") if them == "Jedi" else \
        (f"the {them}", "benchmarks/precision_ts.py")
    chosen = (f"the {PER_KIND} per kind and corpus whose name is written most often{methods}" if sampled == "written"
              else f"per corpus {BROAD_PER_KIND} of each kind by hash, {BROAD_OVERRIDDEN} methods overridden, "
                   f"{BROAD_REEXPORTED} re-exported names of each other kind and the most written (`--sample broad`)")
    lines = ["", f"Precision of `context.references` against {how[0]}, on {', '.join(corpora)}: "
             f"{len(rows)} symbols, {chosen} ({how[1]}). Resolved sites are those whose rule is neither `name` nor `text file`; a site "
             f"from which the analyzer names no definition at all is undecided, and precision is over the "
             f"decided sites (confirmed / (confirmed + contradicted)), the strict figure over all.", "",
             f"| kind | symbols | rennet resolved | confirmed | contradicted | undecided "
             f"| precision, decided (goal {GOAL_PRECISION}) | precision, strict "
             f"| the analyzer's references | of them rennet's | recall (goal {GOAL_RECALL}) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for kind, k in s["by_kind"].items():
        p, strict, r = k["precision"], k["precision_strict"], k["recall"]
        lines.append(f"| {kind} | {k['symbols']} | {k['rennet']} | {k['confirmed']} | {k['contradicted']} "
                     f"| {k['undecided']} | {_pct(p)}{_goal(p, GOAL_PRECISION)} | {_pct(strict)}"
                     f"{_goal(strict, GOAL_PRECISION)} | {k['theirs']} | {k['listed']} | {_pct(r)}{_goal(r, GOAL_RECALL)} |")
    for key, what in (("wrong_by_rule", "Resolved sites the analyzer contradicts"),
                      ("undecided_by_rule", "Resolved sites the analyzer cannot judge (undecided)")):
        if s[key]:
            lines += ["", f"{what}, by the rule that resolved them: " + "; ".join(
                f"`{rule}` {n}" for rule, n in s[key]) + "."]
    lines += ["", "| corpus | kind | query | defined at | rennet | confirmed | contradicted | undecided | analyzer "
              "| listed |", "|---|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r.corpus} | {r.kind} | `{r.query}` | {r.path}:{r.line} | {r.rennet} | {r.confirmed} "
                     f"| {len(r.wrong)} | {len(r.undecided)} | {r.theirs} | {r.listed} |")
    return lines


def _goal(v: float | None, goal: float) -> str:
    return "" if v is None else (" PASS" if v >= goal else " FAIL")


def run_precision(corpora: list[Path], work: Path, per_kind: int = PER_KIND, rule: str = "written") -> list[dict]:
    """Every Python corpus measured (benchmarks.run calls this for its report): rows as plain data."""
    lift_jedi_limits()
    rows = []
    for repo in corpora:
        meta = json.loads((repo / "corpus.json").read_text())
        if meta.get("ecosystem") != "pypi":
            continue
        rows += [asdict(m) for m in measure_corpus(repo, work, per_kind, log=lambda s: print(s, file=sys.stderr),
                                                   rule=rule)]
    return rows


def rows_of(data: list[dict]) -> list[Measured]:
    return [Measured(**{**d, "wrong": [tuple(w) for w in d["wrong"]], "missed": [tuple(m) for m in d["missed"]],
                        "undecided": [tuple(u) for u in d.get("undecided", [])],
                        "named": None if d.get("named") is None else [tuple(n) for n in d["named"]]})
            for d in data]


def missed_table(rows: list[Measured]) -> list[str]:
    """Jedi's references Rennet does not list as resolved, by kind and by the part of the rule
    that chose the symbol: those the simple name's answer lists as `name_match`, and those it
    lists not at all (a site missed, or a reference of Jedi's that is no use: read them)."""
    if not rows or any(r.named is None for r in rows):
        return []
    lines = ["", "Jedi's references not listed as resolved: as a `name_match` under the simple name, or not at all.",
             "", "| kind | chosen as | symbols | the analyzer's references | listed as resolved | name_match | not listed |",
             "|---|---|---:|---:|---:|---:|---:|"]
    groups = sorted({(r.kind, r.why) for r in rows}, key=lambda g: (list(KINDS).index(g[0]), g[1]))
    for kind, why in [*groups, ("all", "")]:
        mine = [r for r in rows if kind == "all" or (r.kind, r.why) == (kind, why)]
        named = sum(len(r.named or ()) for r in mine)
        missed = sum(len(r.missed) for r in mine)
        lines.append(f"| {kind} | {why} | {len(mine)} | {sum(r.theirs for r in mine)} | "
                     f"{sum(r.listed for r in mine)} | {named} | {missed - named} |")
    return lines


def listing(rows: list[Measured], per_symbol: int) -> list[str]:
    """Each symbol's first wrong and missed sites with their source lines (for reading them)."""
    lines = ["", "Sites:"]
    for r in rows:
        for w in r.wrong[:per_symbol]:
            lines.append(f"- wrong `{r.query}`: {w[0]}:{w[1]}:{w[2]} ({w[3]}) {_line(r.tree, w[0], w[1])}")
        for u in r.undecided[:per_symbol]:
            lines.append(f"- undecided `{r.query}`: {u[0]}:{u[1]}:{u[2]} ({u[3]}) {_line(r.tree, u[0], u[1])}")
        for m in r.missed[:per_symbol]:
            how = " (a name_match)" if r.named is not None and m in r.named else ""
            lines.append(f"- missed{how} `{r.query}`: {m[0]}:{m[1]}:{m[2]} {_line(r.tree, m[0], m[1])}")
    return lines


def _line(tree: str, path: str, line: int) -> str:
    """The source line of a site (for reading the lists)."""
    try:
        text = (Path(tree) / path).read_bytes().splitlines()
    except OSError:
        return ""
    return "`" + text[line - 1].decode("utf-8", "replace").strip()[:100] + "`" if 0 < line <= len(text) else ""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.precision", description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", action="append", required=True, help="a PyPI registry corpus repository; repeatable")
    ap.add_argument("--per-kind", type=int, default=PER_KIND)
    ap.add_argument("--work", default=os.environ.get("RENNET_BENCH_WORK", "/tmp/rennet-bench"))
    ap.add_argument("--out", default=str(RESULTS / "precision-latest.json"))
    ap.add_argument("--wrong", type=int, default=0, help="list this many wrong and missed sites per symbol")
    ap.add_argument("--sample", choices=("written", "broad"), default="written",
                    help="the most written names of each kind (default), or the wider rule of `broad`")
    args = ap.parse_args(argv)
    from benchmarks.host import machine

    info = machine()
    work = Path(args.work)
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    data = run_precision([Path(c) for c in args.corpus], work, args.per_kind, rule=args.sample)
    rows = rows_of(data)
    lines = table(rows, sampled=args.sample) + missed_table(rows)
    if args.wrong:
        lines += listing(rows, args.wrong)
    print("\n".join(lines))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"machine": info, "started": started, "rows": data,
                                          "summary": summary(rows)}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
