"""How many edges imports can make. An import of a package or namespace reaches its files, so
n files each importing a package of n files would make n² edges (Go, Java `.*`, C# `using`
and `global using`, PHP `use` of a namespace): an import keeps at most TARGETS_CAP files and
a file at most FILE_EDGES edges, and an import that lost any says so beside its edges
(`targets_capped`). A C# file whose project's visibility was past its ceiling says that its
edges may reach files it does not see (`visibility_capped`). Counted: edges and the memory
traced, never time."""

from __future__ import annotations

import json
import tracemalloc

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from indexer.extract.blob import extract_blob
from indexer.lang.registry import detect_language
from indexer.model import BlobFacts
from indexer.resolve import imports as resolve_module
from indexer.resolve.imports import resolve_since
from indexer.resolve.tree import CAVEATS, TARGETS_CAPPED, VISIBILITY_CAPPED, TreePaths
from tests.examples import examples
from tests.test_context_csharp_projects import _stair
from tests.test_resolve import entry


def go(n: int) -> dict[str, str]:
    """A package of n files, and n files of another each importing it."""
    files = {"go.mod": "module m\n\ngo 1.21\n"}
    for i in range(n):
        files[f"b/f{i:05d}.go"] = f"package b\n\nfunc F{i}() {{}}\n"
        files[f"a/g{i:05d}.go"] = f'package a\n\nimport "m/b"\n\nfunc G{i}() {{ b.F0() }}\n'
    return files


def java(n: int) -> dict[str, str]:
    """A package of n classes, and n classes of another each importing it by `.*`."""
    files = {}
    for i in range(n):
        files[f"src/p/C{i:05d}.java"] = f"package p;\n\npublic class C{i:05d} {{}}\n"
        files[f"src/q/D{i:05d}.java"] = f"package q;\n\nimport p.*;\n\npublic class D{i:05d} {{ C00000 c; }}\n"
    return files


def csharp(n: int) -> dict[str, str]:
    """A namespace of n files each declaring a part of one class, and n files using it."""
    files = {}
    for i in range(n):
        files[f"B/Foo{i:05d}.cs"] = f"namespace B {{ public partial class Foo {{ public int X{i}; }} }}\n"
        files[f"A/U{i:05d}.cs"] = f"using B;\nnamespace A {{ class U{i} {{ Foo f; }} }}\n"
    return files


def csharp_global(n: int) -> dict[str, str]:
    """A namespace of n files, and n files each with a `global using` of it."""
    files = {}
    for i in range(n):
        files[f"B/K{i:05d}.cs"] = f"namespace B {{ public class K{i} {{ }} }}\n"
        files[f"A/U{i:05d}.cs"] = f"global using B;\nnamespace A {{ class U{i} {{ }} }}\n"
    return files


def php(n: int) -> dict[str, str]:
    """n namespaces under one, each with a file declaring the same class, and n files with a
    `use` of the one above them all, using the class."""
    files = {}
    for i in range(n):
        files[f"lib/s{i:05d}/Foo.php"] = f"<?php\nnamespace B\\S{i};\nclass Foo {{}}\n"
        files[f"app/U{i:05d}.php"] = f"<?php\nnamespace A;\nuse B;\nclass U{i} {{ function f() {{ return new Foo(); }} }}\n"
    return files


SHAPES = {"go": go, "java": java, "csharp": csharp, "csharp_global": csharp_global, "php": php}


def extracted(files: dict[str, str]) -> dict[str, BlobFacts]:
    return {p: extract_blob(t.encode(), p, detect_language(p, t.encode()[:512])) for p, t in files.items()}


def resolved(files: dict[str, str], facts: dict[str, BlobFacts] | None = None) -> resolve_module.Resolution:
    facts = extracted(files) if facts is None else facts
    return resolve_since([entry(p) for p in sorted(files)], facts, lambda p: files[p].encode())


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_n_files_each_reaching_n_make_edges_linear_in_them_and_say_what_was_left_out(monkeypatch, shape):
    """Without the cap the edges were n² (90,000 at 300 files a side, 360,000 at 600, in each
    shape); with it an import keeps the first of its files, in path order, and is marked."""
    monkeypatch.setattr(resolve_module, "TARGETS_CAP", 8)

    def run(n: int) -> tuple[int, int]:
        files = SHAPES[shape](n)
        facts = extracted(files)
        tracemalloc.start()
        try:
            found = resolved(files, facts)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        importers = {p for p, f in facts.items() if f.imports}
        assert len(importers) == n
        for path in importers:
            targets = [e.target for e in found.edges if e.source == path]
            assert len(targets) == 8 and targets == sorted(targets)  # the first, in path order
        assert {(u.path, u.status) for u in found.unresolved} == {(p, TARGETS_CAPPED) for p in importers}
        return len(found.edges), peak

    # Each size's lower peak of two runs: what the process allocates once, whichever run it
    # falls in (a cache filled, a table grown by earlier tests), is not the edges' memory.
    (small, small_peak), (large, large_peak) = (min(run(n) for _ in range(2)) for n in (40, 80))
    assert (small, large) == (8 * 40, 8 * 80)
    assert large_peak <= 2.5 * small_peak


def test_a_package_past_the_cap_keeps_its_first_files_and_the_dump_says_so():
    """At the real caps: an import of a package of TARGETS_CAP + 100 files keeps TARGETS_CAP
    edges, and the canonical dump carries a `targets_capped` line for it beside them."""
    from indexer.store.canonical import lines

    n = resolve_module.TARGETS_CAP + 100
    files = {"go.mod": "module m\n\ngo 1.21\n", "a/main.go": 'package a\n\nimport "m/b"\n'}
    files.update({f"b/f{i:05d}.go": f"package b\n\nfunc F{i}() {{}}\n" for i in range(n)})
    facts = extracted(files)
    found = resolved(files, facts)
    assert [e.target for e in found.edges] == [f"b/f{i:05d}.go" for i in range(resolve_module.TARGETS_CAP)]
    assert [(u.path, u.spec, u.status) for u in found.unresolved] == [("a/main.go", "m/b", TARGETS_CAPPED)]

    from indexer.model import SnapshotRecord

    record = SnapshotRecord("0" * 40, "0" * 40, "v", [entry(p) for p in sorted(files)], found.edges,
                            found.unresolved, [], [], [], {}, {})
    dumped = [line for line in lines(record, facts) if b'"type":"edge"' in line]
    assert dumped[-1] == (b'{"type":"edge","from":"a/main.go","to":null,"kind":"go","line":3,"spec":"m/b",'
                          b'"status":"targets_capped"}\n')


def test_a_file_keeps_at_most_its_edge_budget_over_all_its_imports():
    """A file of many imports each reaching the cap: its edges stop at FILE_EDGES, in the
    order the imports are written, and each import past it is marked."""
    cap, budget = resolve_module.TARGETS_CAP, resolve_module.FILE_EDGES
    packages = budget // cap + 2
    files = {"go.mod": "module m\n\ngo 1.21\n",
             "a/main.go": "package a\n\nimport (\n" + "".join(f'\t"m/p{k}"\n' for k in range(packages)) + ")\n"}
    for k in range(packages):
        files.update({f"p{k}/f{i:05d}.go": f"package p{k}\n\nfunc F{i}() {{}}\n" for i in range(cap + 1)})
    found = resolved(files)
    assert len(found.edges) == budget
    assert sorted({e.spec for e in found.edges}) == sorted(f"m/p{k}" for k in range(budget // cap))
    assert [u.spec for u in found.unresolved] == sorted(f"m/p{k}" for k in range(packages))
    assert {u.status for u in found.unresolved} == {TARGETS_CAPPED}


def test_a_file_of_many_lines_importing_one_package_is_held_to_its_budget():
    """The same `import p.*;` on every line of a file: each line is an import of its own, and
    the file's edges still stop at FILE_EDGES."""
    lines_ = resolve_module.FILE_EDGES // 100 + 5
    files = {f"src/p/C{i:03d}.java": f"package p;\n\npublic class C{i:03d} {{}}\n" for i in range(100)}
    files["src/q/D.java"] = "package q;\n" + "import p.*;\n" * lines_ + "public class D {}\n"
    found = resolved(files)
    assert len(found.edges) == resolve_module.FILE_EDGES
    assert len(found.unresolved) == lines_ - resolve_module.FILE_EDGES // 100


def test_honest_imports_below_the_caps_are_not_marked():
    """An import reaching fewer files than the cap keeps all of them, unmarked."""
    found = resolved(go(50))
    assert len(found.edges) == 50 * 50 and not found.unresolved


def _csharp_over_stair(n: int) -> dict[str, str]:
    """The stair of projects (what they see is quadratic), a namespace in the library of the
    chain's head, and a file using it in the head, in the next link (which does not see it)
    and in the chain's end."""
    files = _stair(n)
    files["a00000/Lib.cs"] = "namespace N { public class Foo { } }\n"
    for project in ("c00000", "c00001", f"c{n // 3 - 1:05d}"):
        files[f"{project}/Use.cs"] = "using N;\nnamespace U { class Use { Foo f; } }\n"
    return files


def test_a_csharp_project_past_the_visibility_ceiling_marks_its_edges(monkeypatch):
    """Past REACH_BYTES a project sees every project, and its files' imports may reach files
    they do not see: those imports are marked `visibility_capped` beside their edges; the
    files of projects under the ceiling, and every file without it, are not."""
    from indexer.lang.csharp import projects as module

    files = _csharp_over_stair(600)
    facts = extracted(files)
    exact = resolved(files, facts)
    assert [(e.source, e.target) for e in exact.edges] == [("c00000/Use.cs", "a00000/Lib.cs")]
    assert [(u.path, u.status) for u in exact.unresolved] == [("c00001/Use.cs", "external"),
                                                              ("c00199/Use.cs", "external")]
    monkeypatch.setattr(module, "REACH_BYTES", 2_000)
    capped = resolved(files, facts)
    # the head and the next link see every project, the end as before
    assert [(e.source, e.target) for e in capped.edges] == [("c00000/Use.cs", "a00000/Lib.cs"),
                                                            ("c00001/Use.cs", "a00000/Lib.cs")]
    assert [(u.path, u.status) for u in capped.unresolved] == [("c00000/Use.cs", VISIBILITY_CAPPED),
                                                               ("c00001/Use.cs", VISIBILITY_CAPPED),
                                                               ("c00199/Use.cs", "external")]


def test_a_reindex_keeps_the_marks_as_a_cold_index_makes_them(tmp_path, monkeypatch):
    """The marks are a file's own, as its edges are: a re-index that resolves some files anew
    keeps the others' marks, and equals a cold index."""
    from corpora.gitbuild import RepoBuilder
    from indexer.api import open_store
    from indexer.build import index
    from indexer.store.records import load_record

    monkeypatch.setattr(resolve_module, "TARGETS_CAP", 8)
    files = go(20)
    builder = RepoBuilder(tmp_path / "r")
    first = builder.commit(files, "first")
    second = builder.commit({"a/g00003.go": files["a/g00003.go"] + "\nfunc Extra() {}\n"}, "second")
    with open_store(tmp_path / "warm") as store:
        index(str(builder.path), first, store=store)
        index(str(builder.path), second, store=store)
        warm = load_record(store, second)
    with open_store(tmp_path / "cold") as store:
        index(str(builder.path), second, store=store)
        cold = load_record(store, second)
    assert warm is not None and cold is not None
    assert warm.fingerprint == cold.fingerprint and warm.unresolved == cold.unresolved
    assert len(cold.unresolved) == 20 and {u.status for u in cold.unresolved} <= CAVEATS
    import context_tools

    totals = context_tools.Client(store=tmp_path / "cold").call(
        "context.overview", repo=str(builder.path), rev=second).data.totals
    assert (totals.capped_imports, totals.unresolved_imports, totals.edges) == (20, 0, 20 * 8)


def test_a_reindex_from_a_snapshot_made_before_the_caps_resolves_every_file_anew(tmp_path, monkeypatch):
    """A snapshot stored by code without the caps holds more edges an import than they allow:
    a re-index from it keeps none of its files' outcomes, and equals a cold index."""
    from corpora.gitbuild import RepoBuilder
    from indexer.api import open_store
    from indexer.build import index
    from indexer.store.records import load_record

    files = go(20)
    builder = RepoBuilder(tmp_path / "r")
    first = builder.commit(files, "first")
    second = builder.commit({"a/g00003.go": files["a/g00003.go"] + "\nfunc Extra() {}\n"}, "second")
    with open_store(tmp_path / "warm") as store:
        index(str(builder.path), first, store=store)  # no import reaches past the cap as it is
        stored = load_record(store, first)
        assert stored is not None and len(stored.edges) == 400 and not stored.unresolved
        monkeypatch.setattr(resolve_module, "TARGETS_CAP", 8)
        index(str(builder.path), second, store=store)
        warm = load_record(store, second)
    with open_store(tmp_path / "cold") as store:
        index(str(builder.path), second, store=store)
        cold = load_record(store, second)
    assert warm is not None and cold is not None
    assert len(cold.edges) == 160 and warm.fingerprint == cold.fingerprint


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abcd"), st.integers(0, 30), st.integers(1, 3)), max_size=60, unique=True))
def test_a_snapshot_keeps_to_the_caps_as_counting_every_file_and_import_finds(drawn):
    """The runs measured from every TARGETS_CAP-th edge find what counting them all finds."""
    from collections import Counter

    from indexer.model import Edge, edge_order

    edges = sorted((Edge(s, f"t{t:02d}", "go", line, "x") for s, t, line in drawn), key=edge_order)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(resolve_module, "TARGETS_CAP", 3)
        mp.setattr(resolve_module, "FILE_EDGES", 7)
        files = Counter(e.source for e in edges)
        imports = Counter((e.source, e.line) for e in edges)
        counted = max(files.values(), default=0) <= 7 and max(imports.values(), default=0) <= 3
        assert resolve_module._within_caps(edges) == counted


def _reaching(language: str, definers: int, importers: int) -> tuple[dict[str, str], dict[str, BlobFacts], list]:
    """`definers` files a namespace (package) is made of, each defining `Foo`, and `importers`
    files each importing it: the files, their facts, and (importer, import) to resolve."""
    from indexer.model import ImportSpec, Symbol

    foo = Symbol("Foo", "class", "B", 1, 1, 0, 10, "class Foo")
    if language == "php":
        files = {f"lib/s{i:05d}/Foo.php": f"<?php\nnamespace B\\S{i};\nclass Foo {{}}\n" for i in range(definers)}
        files.update({f"app/U{i:05d}.php": "<?php\nnamespace A;\nuse B;\nnew Foo();\n" for i in range(importers)})
        facts = extracted(files)
        return files, facts, [(p, f.imports[0]) for p, f in facts.items() if f.imports]
    suffix, package, kind, spec = {"csharp": (".cs", "B", "csharp_using", "B"),
                                   "csharp_global": (".cs", "B", "csharp_global_using", "B"),
                                   "java": (".java", "p", "java", "p.*")}[language]
    files = {f"src/p/D{i:05d}{suffix}": "" for i in range(definers)}
    files.update({f"src/q/U{i:05d}{suffix}": "" for i in range(importers)})
    facts = {p: BlobFacts(language.split("_")[0], 1, symbols=[foo], package_name=package) for p in files if "/p/" in p}
    imp = ImportSpec(kind, spec, 1)
    facts.update({p: BlobFacts(language.split("_")[0], 1, imports=[imp], uses={"Foo": 1}, package_name="A")
                  for p in files if "/q/" in p})
    return files, facts, [(p, imp) for p in files if "/q/" in p]


@pytest.mark.parametrize("language", ["csharp", "csharp_global", "java", "php"])
def test_an_import_reaching_past_the_cap_costs_the_files_it_keeps_not_all_it_reaches(language):
    """Each import listed every file it reached before the cap applied (C# and PHP made the
    list, Java copied its package's): importers times the namespace's files. Now the files
    come in path order as they are taken, one past the cap: the lines run double with both."""
    from indexer.resolve import tree as tree_module
    from indexer.resolve.imports import FACTORIES, FAMILY
    from indexer.resolve.tree import TARGETS_CAP, TreePaths
    from tests.lines_run import module_lines

    def run(definers: int, importers: int) -> int:
        files, facts, asked = _reaching(language, definers, importers)
        resolver = FACTORIES[FAMILY[asked[0][1].kind]](TreePaths(files), facts, lambda p: b"")
        module = __import__(type(resolver).__module__, fromlist=["_"])
        outcomes, lines = module_lines((module.__file__, tree_module.__file__),
                                    lambda: [resolver.resolve(path, imp) for path, imp in asked])
        # one past the cap, or (Java) the package's one tuple, which resolve_since reads to the cap
        assert all(len(o) == (definers if language == "java" else TARGETS_CAP + 1) and list(o) == sorted(o)
                   for o in outcomes)
        return lines

    assert run(2 * TARGETS_CAP, 100) <= 2.2 * run(TARGETS_CAP + 100, 50)


def _many_reach(shape: str, definers: int) -> tuple[dict[str, str], dict[str, BlobFacts], list]:
    """Trees where an import reaches `definers` files, or passes over them, made of facts
    (no parse): the files (what a .csproj holds), their facts, and (importer, import) for
    three importers. `csharp_unseen`: a namespace's files all in a project the importers'
    does not see, but one; `csharp_global_projects`: a `global using` of a namespace spread
    over two projects the importers see; `csharp_static`: `using static` of a type every
    file of its namespace declares a part of; `php_class`: a `use` of a class each file
    declares in the same namespace; `php`: a `use` of a namespace below which each file
    declares the class the importers use; `php_include`: an include of a name each file
    bears (found by suffix); `php_psr4`: a `use` of a class each root of one PSR-4 prefix
    holds; `php_psr4_classes`: `use`s of classes each held by one of the prefix's roots;
    and the C# shapes of `_reaching`."""
    from indexer.model import ImportSpec, Symbol
    from tests.test_context_csharp_projects import _csproj

    if shape in ("csharp", "csharp_global"):
        return _reaching(shape, definers, 3)

    def symbol(name: str, kind: str, container: str) -> Symbol:
        return Symbol(name, kind, container, 1, 1, 0, 10, f"{kind} {name}")

    files: dict[str, str] = {}
    facts: dict[str, BlobFacts] = {}
    if shape.startswith(("php_include", "php_psr4")):
        roots = [f"r{i:05d}" for i in range(definers)]
        files["composer.json"] = json.dumps({"autoload": {"psr-4": {"B\\": [f"{r}/" for r in roots]}}})
        for i, root in enumerate(roots):
            name = f"C{i}" if shape == "php_psr4_classes" else "Foo"
            files[f"{root}/{name}.php"] = ""
            facts[f"{root}/{name}.php"] = BlobFacts("php", 3, symbols=[symbol("B", "namespace", ""),
                                                                       symbol(name, "class", "B")])
        importers = [f"app/m{i}/U.php" for i in range(3)]
        files.update({p: "" for p in importers})
        asked = [(p, ImportSpec("php_require", "Foo.php", 2) if shape == "php_include"
                  else ImportSpec("php_use", f"B\\C{i}" if shape == "php_psr4_classes" else "B\\Foo", 2))
                 for i, p in enumerate(importers)]
        facts.update({p: BlobFacts("php", 3, imports=[imp], uses={"Foo": 1}) for p, imp in asked})
        return files, facts, asked
    if shape in ("php", "php_class"):  # below B or in it
        for i in range(definers):
            space = f"B\\S{i}" if shape == "php" else "B"
            files[f"lib/s{i:05d}/Foo.php"] = ""
            facts[f"lib/s{i:05d}/Foo.php"] = BlobFacts("php", 3, symbols=[symbol(space, "namespace", ""),
                                                                           symbol("Foo", "class", space)])
        imp = ImportSpec("php_use", "B" if shape == "php" else "B\\Foo", 2)
        importers = [f"app/m{i}/U.php" for i in range(3)]
        facts.update({p: BlobFacts("php", 3, imports=[imp], uses={"Foo": 1}) for p in importers})
        files.update({p: "" for p in importers})
        return files, facts, [(p, imp) for p in importers]
    definer = BlobFacts("csharp", 1, symbols=[symbol("Foo", "class", "B")], package_name="B")
    if shape == "csharp_unseen":
        files.update({"P/P.csproj": _csproj(), "Q/Q.csproj": _csproj(), "Q/B/Foo.cs": ""})
        files.update({f"P/B/F{i:05d}.cs": "" for i in range(definers)})
        imp, importers = ImportSpec("csharp_using", "B", 1), [f"Q/A/U{i}.cs" for i in range(3)]
    elif shape == "csharp_global_projects":
        files.update({"P/P.csproj": _csproj(), "Q/Q.csproj": _csproj("../P/P.csproj")})
        files.update({f"{p}/B/F{i:05d}.cs": "" for p in "PQ" for i in range(definers // 2)})
        imp, importers = ImportSpec("csharp_global_using", "B", 1), [f"Q/A/U{i}.cs" for i in range(3)]
    else:
        files.update({f"B/F{i:05d}.cs": "" for i in range(definers)})
        imp, importers = ImportSpec("csharp_using", "B.Foo", 1, names=("*",)), [f"A/U{i}.cs" for i in range(3)]
    facts.update({p: definer for p in files if p.endswith(".cs")})
    files.update({p: "" for p in importers})
    facts.update({p: BlobFacts("csharp", 1, imports=[imp], uses={"Foo": 1}, package_name="A") for p in importers})
    return files, facts, [(p, imp) for p in importers]


@pytest.mark.parametrize("shape", ["csharp", "csharp_global", "php", "csharp_unseen", "csharp_global_projects",
                                   "csharp_static", "php_class", "php_include", "php_psr4", "php_psr4_classes"])
def test_an_import_reads_no_more_of_what_it_reaches_than_it_keeps(monkeypatch, shape):
    """An import is resolved with work bounded by TARGETS_CAP, not by the files it reaches:
    the lines one import runs (once the namespace's index is made) are the same whether it
    reaches 64 files or 512. A C# `using` passed over every file of a project its importer
    does not see, a `global using` of a namespace over two projects sorted all its files, a
    `using static` of a type listed all its files, a PHP `use` of a class compared every
    file declaring it, a PHP include found by suffix listed and compared every file of its
    name, a PHP `use` under a PSR-4 prefix asked each root of the prefix: the lines grew
    with the files (4 to 8 times here)."""
    import heapq

    from indexer.lang.csharp import projects as projects_module
    from indexer.lang.csharp import resolve as csharp_resolve
    from indexer.lang.php import resolve as php_resolve
    from indexer.resolve import tree as tree_module
    from indexer.resolve.imports import FACTORIES, FAMILY
    from indexer.resolve.tree import TreePaths
    from tests.lines_run import module_lines

    for module in (csharp_resolve, php_resolve):
        monkeypatch.setattr(module, "TARGETS_CAP", 8)
    counted = (csharp_resolve.__file__, php_resolve.__file__, projects_module.__file__, tree_module.__file__,
               heapq.__file__)

    def per_import(definers: int) -> int:
        files, facts, asked = _many_reach(shape, definers)
        resolver = FACTORIES[FAMILY[asked[0][1].kind]](TreePaths(files), facts, lambda p: files[p].encode())
        first = resolver.resolve(*asked[0])  # makes what the resolver keeps of the namespace
        outcome, lines = module_lines(counted, lambda: resolver.resolve(*asked[1]))
        assert len(outcome) == len(first) <= 10 and list(outcome) == sorted(outcome)
        return lines

    small, large = per_import(64), per_import(512)
    assert large <= 1.1 * small + 20


def _seeing_many(shape: str, n: int) -> tuple[dict[str, str], dict[str, BlobFacts], list]:
    """A namespace over n projects a_i, each holding files of it defining `Foo` (the file
    `Foo.cs` for `static`; three for `*_3`), and n projects c_i each referencing a_i and
    c_i+1, each with a file importing the namespace (or the type B.Foo): c_i sees a_j for
    j >= i, so each importer sees many of the namespace's projects and many files define
    the name it uses, and those it does not see come first in path order."""
    from indexer.model import ImportSpec, Symbol
    from tests.test_context_csharp_projects import _csproj

    kind, _, per = shape.partition("_")
    imp = {"using": ImportSpec("csharp_using", "B", 1), "global": ImportSpec("csharp_global_using", "B", 1),
           "static": ImportSpec("csharp_using", "static B.Foo", 1, names=("*",))}[kind]
    definer = BlobFacts("csharp", 1, symbols=[Symbol("Foo", "class", "B", 1, 1, 0, 10, "class Foo")], package_name="B")
    files: dict[str, str] = {}
    facts: dict[str, BlobFacts] = {}
    for i in range(n):
        files[f"a{i:05d}/a.csproj"] = _csproj()
        for k in range(int(per or 1)):
            files[f"a{i:05d}/{'Foo' if k == 0 and kind == 'static' else f'F{k}'}.cs"] = ""
        files[f"c{i:05d}/c.csproj"] = _csproj(f"../a{i:05d}/a.csproj", *([f"../c{i + 1:05d}/c.csproj"] if i + 1 < n else []))
        files[f"c{i:05d}/U.cs"] = ""
    facts.update({p: definer for p in files if p.endswith(".cs")})
    facts.update({p: BlobFacts("csharp", 1, imports=[imp], uses={"Foo": 1}, package_name="A") for p in files
                  if p.endswith("/U.cs")})
    return files, facts, [(p, imp) for p in sorted(files) if p.endswith("/U.cs")]


@pytest.mark.parametrize("shape", ["using", "using_3", "global", "global_3", "static"])
def test_importers_each_seeing_many_projects_of_a_namespace_cost_work_linear_in_them(monkeypatch, shape):
    """n importers each seeing most of n projects of a namespace, many files defining the name
    each uses: an import asked each of those files whether its importer saw it when they
    were no more than the namespace's projects (passing over every one it did not see), else
    merged the files of every project it saw; n times the smaller of n projects and n files.
    Now each reads a span of what its project sees at a time: the lines run double with n
    (were 3.0 to 3.4 times here)."""
    import heapq

    from indexer.lang.csharp import numbered as numbered_module
    from indexer.lang.csharp import projects as projects_module
    from indexer.lang.csharp import resolve as csharp_resolve
    from indexer.resolve import tree as tree_module
    from tests.lines_run import module_lines

    monkeypatch.setattr(csharp_resolve, "TARGETS_CAP", 8)
    counted = (csharp_resolve.__file__, projects_module.__file__, numbered_module.__file__, tree_module.__file__,
               heapq.__file__)

    def run(n: int) -> int:
        files, facts, asked = _seeing_many(shape, n)
        resolver = csharp_resolve.CSharpResolver(TreePaths(files), facts, lambda p: files[p].encode())
        outcomes, lines = module_lines(counted, lambda: [resolver.resolve(path, imp) for path, imp in asked])
        for (path, _), outcome in zip(asked, outcomes):
            seen = n - int(path[1:6])  # c_i sees the files of a_j, j >= i
            # one past the cap (a type: two, the importer kept in)
            kept = min(seen * (3 if shape.endswith("_3") else 1), 10 if shape == "static" else 9)
            assert len(outcome) == kept and list(outcome) == sorted(outcome)
        return lines

    assert run(200) <= 2.2 * run(100)


_CS_TYPES = ("class", "interface", "struct", "enum", "type")


def _listed(resolver, importer: str, imp) -> tuple[str, ...] | str:
    """What the C# resolver answered before it stopped at the cap: every file the import
    reaches, listed, and asked one by one whether the importer sees it."""
    from indexer.rank.weights import uses_of
    from indexer.resolve.tree import EXTERNAL

    sees = resolver.projects.sees
    spec = imp.spec.strip().rstrip(";").removeprefix("static ").strip()
    spec = spec.split("=", 1)[1].strip() if "=" in spec else spec
    space = [] if imp.names == ("*",) else resolver.by_namespace.get(spec, [])
    if any(sees(importer, p) for p in space):
        if imp.kind == "csharp_global_using":
            return tuple(p for p in space if p != importer and sees(importer, p))
        own = resolver.facts[importer]
        used = set(uses_of(own)) - ({spec.rpartition(".")[2], *imp.aliases} if imp.aliases else set())
        return tuple(p for p in space if p != importer and sees(importer, p)
                     and used & {s.name for s in resolver.facts[p].symbols})
    head, _, last = spec.rpartition(".")
    files = resolver.by_namespace.get(head, [])
    named = [p for p in files if p.rsplit("/", 1)[-1] == last + ".cs"]
    declaring = [p for p in files if any(s.name == last and s.container == head and s.kind in _CS_TYPES
                                         for s in resolver.facts[p].symbols)]
    return tuple(p for p in named or declaring if sees(importer, p)) or EXTERNAL


def _kept(outcome: tuple[str, ...] | str, importer: str, cap: int) -> tuple[list[str], bool] | str:
    """What resolve_since makes of an outcome: the edges' targets, and whether it is marked."""
    if isinstance(outcome, str):
        return outcome
    targets = [p for p in outcome if p != importer]
    return targets[:cap], len(targets) > cap


_CS_FILE = st.tuples(st.integers(-1, 3), st.sampled_from(["N", "N", "M"]),
                     st.sets(st.sampled_from(["Foo", "Bar"]), max_size=2), st.booleans())
_CS_IMPORT = st.tuples(st.integers(-1, 3), st.sampled_from(["using", "global", "static", "alias"]),
                       st.sampled_from(["N", "M", "N.Foo", "M.Bar"]), st.sets(st.sampled_from(["Foo", "Bar"])))


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.lists(st.integers(0, 3), max_size=2), min_size=4, max_size=4),
       st.lists(_CS_FILE, min_size=1, max_size=14), st.lists(_CS_IMPORT, min_size=1, max_size=4),
       st.integers(1, 3), st.sampled_from([0, 1, 32]), st.booleans())
@example([[1], [2], [3], []], [(k, "N", {"Foo"}, False) for k in (0, 1, 2, 3, 3, 0, -1)],
         [(1, "using", "N", {"Foo"}), (2, "global", "N", set())], 2, 0, False)
def test_a_csharp_import_keeps_what_listing_every_file_it_reaches_kept(references, drawn, importing, cap,
                                                                       one_by_one, ceiling):
    """Over the cap or under it, with files in projects the importer does and does not see
    and under none, read file by file or a span of what the importer's project sees at a
    time (NumberedPaths), past the visibility ceiling or not: a `using`, `global using`,
    `using static` and alias keep the files and the mark that listing every file reached,
    asked one by one, kept."""
    from unittest import mock

    from indexer.lang.csharp import projects as projects_module
    from indexer.lang.csharp import resolve as csharp_resolve
    from indexer.model import ImportSpec, Symbol
    from indexer.resolve.tree import TreePaths
    from tests.test_context_csharp_projects import _csproj

    def folder(owner: int) -> str:
        return f"P{owner}" if owner >= 0 else "loose"

    files = {f"P{k}/P{k}.csproj": _csproj(*(f"../P{r}/P{r}.csproj" for r in refs if r != k))
             for k, refs in enumerate(references)}
    facts: dict[str, BlobFacts] = {}
    for i, (owner, namespace, names, named) in enumerate(drawn):
        path = f"{folder(owner)}/{namespace}/{'Foo' if named else f'F{i}'}.cs"
        files[path] = ""
        facts[path] = BlobFacts("csharp", 1, package_name=namespace, symbols=[
            Symbol(name, "class", namespace, 1, 1, 0, 1, "class") for name in sorted(names)])
    asked = []
    for i, (owner, kind, spec, used) in enumerate(importing):
        path = f"{folder(owner)}/U{i}.cs"
        imp = ImportSpec("csharp_global_using" if kind == "global" else "csharp_using", spec, 1,
                         names=("*",) if kind == "static" else (), aliases=("X",) if kind == "alias" else ())
        files[path] = ""
        facts[path] = BlobFacts("csharp", 1, imports=[imp], uses={name: 1 for name in sorted(used)},
                                package_name="N" if i % 2 else "Other")
        asked.append((path, imp))
    asked += [(p, ImportSpec("csharp_using", "N", 1)) for p in sorted(facts) if facts[p].package_name == "N"][:3]
    with (mock.patch.object(csharp_resolve, "TARGETS_CAP", cap), mock.patch.object(csharp_resolve, "_ASKED", one_by_one),
          mock.patch.object(projects_module, "REACH_BYTES", 0 if ceiling else projects_module.REACH_BYTES)):
        resolver = csharp_resolve.CSharpResolver(TreePaths(files), facts, lambda p: files[p].encode())
        for importer, imp in asked:
            assert (_kept(resolver.resolve(importer, imp), importer, cap)
                    == _kept(_listed(resolver, importer, imp), importer, cap))


def _php_old(base):
    """The PHP resolver as it was: an include by suffix listed every path ending so and
    compared each with the importer; a `use` under a PSR-4 prefix asked each of its roots."""
    from indexer.resolve.tree import UNRESOLVED, join, nearest, normalize, parent

    class Old(base):
        def _include(self, importer, raw, quoted):
            spec = quoted[-1] if quoted else raw
            rel = spec.lstrip("/") if "__DIR__" in raw or "__FILE__" in raw else spec
            for at in (parent(importer), ""):
                cand = normalize(join(at, rel))
                if cand is not None and cand in self.tree:
                    return (cand,)
            clean = normalize(rel)
            hits = self.tree.ending_with(clean) if clean else []
            return (nearest(importer, hits),) if hits else UNRESOLVED

        def _by_psr4(self, importer, namespace, name):
            full = f"{namespace}\\{name}" if namespace else name
            by_prefix: dict = {}
            for root in self.psr4:
                by_prefix.setdefault(root.prefix, []).append(root)
            hits: list[str] = []
            for length in sorted({len(p) for p in by_prefix}, reverse=True):
                if length > len(full):
                    continue
                for root in by_prefix.get(full[:length], ()):
                    path = join(root.directory, full[len(root.prefix):].replace("\\", "/") + ".php")
                    if path in self.tree and self._holds(path, namespace, name):
                        hits.append(path)
                if hits:
                    break
            return (nearest(importer, hits),) if hits else ()

    return Old


_PHP_DIRS = ("", "/", "a", "a/b", "a-b", "b", "r", "r/s", "r/s/B")
_PHP_FILE = st.tuples(st.sampled_from(_PHP_DIRS), st.sampled_from(["x.php", "C.php", "B/C.php", "b/C.php", "D.php"]),
                      st.sampled_from([None, "A", "A\\B", "a\\b", "Other"]), st.sampled_from(["C", "c", "D"]))
_PHP_IMPORT = st.tuples(st.sampled_from(["a/b/m.php", "a/m.php", "r/s/m.php", "m.php", "b/c/m.php"]), st.sampled_from(
    ["x.php", "'b/x.php'", "a/b/x.php", "../x.php", "./C.php", "__DIR__ . '/C.php'", "B/C.php", "A\\C", "A\\B\\C",
     "a\\b\\C", "C", "A\\B\\D", "Other\\C", "\\A\\B\\C"]))


@settings(max_examples=examples(150), deadline=None)
@example([("/", "C.php", None, "C")], [("A", ""), ("A", "a"), ("A", "b")], [("m.php", "A\\C")], 0)  # `//C.php`
@given(st.lists(_PHP_FILE, max_size=12),
       st.lists(st.tuples(st.sampled_from(["", "A\\", "A\\B\\", "a\\", "A"]), st.sampled_from(_PHP_DIRS)), max_size=8),
       st.lists(_PHP_IMPORT, min_size=1, max_size=8), st.integers(0, 3))
def test_php_includes_and_psr4_uses_resolve_as_asking_every_match_did(drawn, roots, importing, scanned):
    """Whichever of the many files of an include's name, and of the many roots of a PSR-4
    prefix, are in the tree, parsed or not, declaring the class or another, a file's includes
    and `use`s resolve to what listing every path ending so, and asking every root of the
    prefix, resolved them to (the suffix search past `scanned` files of one name)."""
    from unittest import mock

    from indexer.lang.php import resolve as php_resolve
    from indexer.model import ImportSpec, Symbol
    from indexer.resolve import tree as tree_module

    composer = {"autoload": {"psr-4": {}}, "autoload-dev": {"psr-4": {}}}
    for i, (prefix, directory) in enumerate(roots):  # a prefix's roots in either section
        composer["autoload" if i % 2 else "autoload-dev"]["psr-4"].setdefault(prefix, []).append(directory)
    files = {"composer.json": json.dumps(composer)}
    facts: dict[str, BlobFacts] = {}
    for directory, name, namespace, declared in drawn:
        path = tree_module.join(directory, name)
        files[path] = ""
        if namespace is not None:  # else not parsed: taken on the path's word
            facts[path] = BlobFacts("php", 3, symbols=[Symbol(namespace, "namespace", "", 1, 1, 0, 1, "namespace"),
                                                       Symbol(declared, "class", namespace, 1, 1, 0, 1, "class")])
    asked = [(importer, ImportSpec("php_use" if "\\" in spec or spec == "C" else "php_require", spec, 1))
             for importer, spec in importing]
    files.update({importer: "" for importer, _ in importing})
    with mock.patch.object(tree_module, "_SCANNED", scanned):
        new = php_resolve.PhpResolver(tree_module.TreePaths(files), facts, lambda p: files[p].encode())
        old = _php_old(php_resolve.PhpResolver)(tree_module.TreePaths(files), facts, lambda p: files[p].encode())
        for importer, imp in asked + asked[::-1]:  # asked again, once found
            assert new.resolve(importer, imp) == old.resolve(importer, imp)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.integers(-1, 6), max_size=40), st.lists(st.tuples(st.integers(0, 2), st.integers(1, 3)), max_size=5),
       st.booleans())
@example([0, 2, 1, 1, 3], [(2, 3), (0, 1)], False)  # a later run first in path order; intervals touching
@example([4, 0, 3], [(2, 1), (1, 1), (1, 1)], False)  # more intervals than runs
@example([1] * 150 + [0] * 70 + [2, 3, 4] + [1] * 80, [(3, 1)], False)  # long runs, copied out a part at a time
def test_numbered_paths_seen_are_those_a_filter_of_each_finds(numbers, spans, every):
    """The paths whose project number lies in some intervals, found an interval of the numbers
    at a time (runs of one number, the heap of intervals, the runs that follow at once; or
    each run asked, with many intervals), in path order: those a filter of every path by its
    number keeps."""
    from bisect import bisect_right

    from indexer.lang.csharp.numbered import NumberedPaths

    paths = [f"p{i:03d}" for i in range(len(numbers))]
    bounds: list[int] = []  # [start, end) in pairs, sorted, none overlapping the next (some touching it)
    for gap, length in spans:
        start = (bounds[-1] if bounds else -2) + gap
        bounds += (start, start + length)
    numbered = NumberedPaths(paths, numbers)
    if every:
        assert list(numbered.seen(None)) == paths
    else:
        assert list(numbered.seen(bounds)) == [p for p, n in zip(paths, numbers) if bisect_right(bounds, n) & 1]
