"""C# namespaces across projects: a namespace may span projects (folders holding a .csproj),
and a project sees another's files only through a `<ProjectReference>` of its .csproj (and what
that project references in turn). A `using` or `global using` of a namespace gets edges to the
files of it the importer's project sees, and none to another project's files of the same
namespace; `context references` counts a site `import` or `same_package` only where its
project sees the definition's file, else `name_match`. Files under no .csproj see all and are
seen by all. A re-index after a .csproj gains a reference gives what a cold index does. Exact
edges and site resolutions, from a real index."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpora.gitbuild import RepoBuilder
from indexer import api
from indexer.lang.csharp.projects import CSharpProjects
from indexer.store.database import Store
from tests.examples import examples
from tests.indexed import Indexed, sites
from tests.lines_run import module_lines
from tests.reindexed import reindexed_as_cold


def _csproj(*references: str) -> str:
    items = "".join(f'    <ProjectReference Include="{r}" />\n' for r in references)
    return f'<Project Sdk="Microsoft.NET.Sdk">\n  <ItemGroup>\n{items}  </ItemGroup>\n</Project>\n'


FILES = {
    # A references Core, which references Base: A sees both
    "A/A.csproj": _csproj("..\\Core\\Core.csproj"),
    "A/Usings.cs": "global using Company.Core;\n",
    "A/Page.cs": "namespace Company.App {\n  class Page { Thing t; Other o; Basis r; }\n}\n",
    "Core/Core.csproj": _csproj("../Base/Base.csproj"),
    "Core/Thing.cs": "namespace Company.Core {\n  public class Thing {}\n}\n",
    "Base/Base.csproj": _csproj(),
    "Base/Basis.cs": "namespace Company.Core {\n  public class Basis {}\n}\n",
    # B shares the namespace and references nothing: it sees not Core's Thing, and A sees not Other
    "B/B.csproj": _csproj(),
    "B/Other.cs": "namespace Company.Core {\n  public class Other {}\n}\n",
    "B/Mine.cs": "namespace Company.Core {\n  class Mine { Thing t; Other o; }\n}\n",
    # C references nothing: its `using` of the namespace reaches no file
    "C/C.csproj": _csproj("$(Root)\\Core\\Core.csproj"),  # a property-built path reaches nothing
    "C/Use.cs": "using Company.Core;\nnamespace Company.C {\n  class Use { Thing t; }\n}\n",
    # under no .csproj: sees every project's files
    "tools/Script.cs": "using Company.Core;\nclass Script { Thing t; Other o; }\n",
}

REPO = Indexed(FILES, "rennet-ctx-csharp-projects-", message="csharp projects")


app = REPO.fixture()


def test_using_edges_reach_the_files_of_the_projects_seen():
    record = REPO.record()
    assert [(e.source, e.target, e.kind) for e in record.edges] == [
        ("A/Usings.cs", "Base/Basis.cs", "csharp_global_using"),
        ("A/Usings.cs", "Core/Thing.cs", "csharp_global_using"),
        ("tools/Script.cs", "B/Other.cs", "csharp_using"),
        ("tools/Script.cs", "Core/Thing.cs", "csharp_using"),
    ]
    assert [(u.path, u.spec, u.status) for u in record.unresolved] == [("C/Use.cs", "Company.Core", "external")]


def test_sites_count_only_where_the_project_sees_the_definition(app):
    assert sites(app, "Thing") == [
        ("A/Page.cs", 2, "import"), ("tools/Script.cs", 2, "import"),
        ("B/Mine.cs", 2, "name_match"), ("C/Use.cs", 3, "name_match")]
    assert sites(app, "Other") == [
        ("B/Mine.cs", 2, "same_package"), ("tools/Script.cs", 2, "import"), ("A/Page.cs", 2, "name_match")]
    assert sites(app, "Basis") == [("A/Page.cs", 2, "import")]


def test_which_projects_a_file_sees():
    reads = []

    def read(path: str) -> bytes:
        reads.append(path)
        return FILES[path].encode()

    projects = CSharpProjects([p for p in FILES if p.endswith(".csproj")], read)
    assert projects.visible("A") == {"A", "Core", "Base"}
    assert projects.visible("Core") == {"Core", "Base"}
    assert projects.visible("C") == {"C"}
    assert projects.sees("A/Page.cs", "Base/Basis.cs") and not projects.sees("Core/Thing.cs", "A/Page.cs")
    assert projects.sees("tools/Script.cs", "B/Other.cs") and projects.sees("B/Mine.cs", "tools/Script.cs")
    assert projects.of("A/deep/x/File.cs") == "A" and projects.of("tools/Script.cs") is None
    # each once, all on the first question: what a project sees is closed in one order
    assert sorted(reads) == ["A/A.csproj", "B/B.csproj", "Base/Base.csproj", "C/C.csproj", "Core/Core.csproj"]
    assert CSharpProjects([], read).sees("a/X.cs", "b/Y.cs")  # no projects: all one


def test_a_reference_added_to_a_csproj_reindexes_as_cold(tmp_path):
    builder = RepoBuilder(tmp_path / "repo")
    commits = [builder.commit(FILES, message="projects")]
    commits.append(builder.commit({"C/C.csproj": _csproj("..\\Core\\Core.csproj")}, message="C references Core"))
    reindexed_as_cold(str(builder.path), commits, tmp_path / "incremental")
    with Store.open(tmp_path / "incremental") as store:
        snap = api.snapshot(str(builder.path), commits[1], store=store)
        assert [e.target for e in snap.imports("C/Use.cs")] == ["Core/Thing.cs"]


@pytest.mark.parametrize(("include", "seen"), [
    ("..\\Core\\Core.csproj", {"A", "Core"}),
    ("../Core/Core.csproj", {"A", "Core"}),
    ("$(MSBuildThisFileDirectory)..\\Core\\Core.csproj", {"A", "Core"}),
    ("$(MSBuildProjectDirectory)\\..\\Core\\Core.csproj", {"A", "Core"}),
    ("$(Root)\\Core\\Core.csproj", {"A"}),  # another property: unknown
    ("..\\Gone\\Gone.csproj", {"A"}),  # not in the tree
    ("..\\..\\..\\Core.csproj", {"A"}),  # above the root
])
def test_a_project_reference_path(include, seen):
    files = {"A/A.csproj": _csproj(include), "Core/Core.csproj": _csproj()}
    assert CSharpProjects(files, lambda p: files[p].encode()).visible("A") == seen


def test_a_hostile_csproj_is_read_in_linear_time():
    """Tags that never close: each was scanned to the end of the file (quadratic; a 144 kB
    .csproj took 12 s, one of 1 MB minutes), now only to the next tag. The scan is a regex,
    work done in C that a test cannot count: what bounds it is that no match attempt crosses
    a `<`, so each start reads at most up to the next tag."""
    from indexer.lang.csharp.projects import _REFERENCE

    files = {"A/A.csproj": "<ProjectReference " * 20_000 + _csproj("../Core/Core.csproj"),
             "Core/Core.csproj": _csproj()}
    assert CSharpProjects(files, lambda p: files[p].encode()).visible("A") == {"A", "Core"}
    # an attribute list that runs into another tag is no match, from the first tag or the second
    assert _REFERENCE.match(b"<ProjectReference a <x Include='B.csproj'") is None
    assert _REFERENCE.match(b"<ProjectReference a <ProjectReference Include='B.csproj'") is None
    found = _REFERENCE.search(b"<ProjectReference a <ProjectReference Include='B.csproj'")
    assert found is not None and found.start() == len(b"<ProjectReference a ")


# The file table last searched and the projects read of it (each .csproj's references read
# once), kept while the file table is: an example asks about each of its projects in turn.
_SEARCHED: list = [None, None]


def _naive_visible(files: dict[str, str], project: str) -> set[str]:
    """The projects `project` reaches, by a plain search over each .csproj's references."""
    if _SEARCHED[0] is not files:
        _SEARCHED[:] = [files, CSharpProjects(files, lambda p: files[p].encode())]
    projects = _SEARCHED[1]
    found, todo = {project}, [project]
    while todo:
        for ref in projects._references(todo.pop()):
            if ref not in found:
                found.add(ref)
                todo.append(ref)
    return found


FOLDERS = ["", "a", "a/b", "a/b/c", "d", "d/e", "f"]


@settings(max_examples=examples(200), deadline=None)
@given(st.data())
def test_projects_and_what_they_see_are_those_a_plain_search_finds(data):
    """Any folders holding a .csproj, any references among them (cycles, self-references,
    references to no project): the nearest project of each file, and what each sees, are
    what walking up the folders and searching the references give."""
    homes = data.draw(st.lists(st.sampled_from(FOLDERS), unique=True, max_size=6))
    files = {}
    for home in homes:
        refs = data.draw(st.lists(st.sampled_from(FOLDERS), max_size=3))
        files[f"{home}/P.csproj".lstrip("/")] = _csproj(*(
            "/".join([".."] * (home.count("/") + 1 if home else 0) + ([ref] if ref else []) + ["P.csproj"])
            for ref in refs))
    projects = CSharpProjects(files, lambda p: files[p].encode())
    files_asked = data.draw(st.lists(st.sampled_from([f"{f}/x/X.cs".lstrip("/") for f in FOLDERS]
                                                     + [f"{f}/X.cs".lstrip("/") for f in FOLDERS]), max_size=8))
    for path in files_asked:
        here = path.rpartition("/")[0]
        nearest = max((h for h in homes if not h or here == h or here.startswith(h + "/")),
                      key=lambda h: h.count("/") + bool(h), default=None)
        assert projects.of(path) == nearest
    for viewer in files_asked:
        for target in files_asked:
            mine, theirs = projects.of(viewer), projects.of(target)
            expected = mine is None or theirs is None or theirs in _naive_visible(files, mine)
            assert projects.sees(viewer, target) == expected
    for home in homes:
        assert projects.visible(home) == _naive_visible(files, home)


@settings(max_examples=examples(200), deadline=None)
@given(st.data())
def test_what_many_projects_see_is_what_a_plain_search_finds_or_past_the_ceiling_all(data):
    """Up to 60 projects with any references among them, kept as intervals, bits or shared
    with a referenced project's: each sees what a plain search of the references finds.
    Under a ceiling small enough to be reached, a project sees that or every project, the
    same ones whichever project is asked about first. The numbers between two that a file
    sees, asked at once as intervals, are those it sees asked one by one."""
    from unittest import mock

    from indexer.lang.csharp import projects as module

    count = data.draw(st.integers(1, 60))
    names = [f"p{i:02d}" for i in range(count)]
    refs = st.lists(st.sampled_from(names), max_size=4)  # made once: each made anew is validated anew
    files = {f"{name}/P.csproj": _csproj(*(f"../{ref}/P.csproj" for ref in data.draw(refs))) for name in names}
    ceiling = data.draw(st.sampled_from([module.REACH_BYTES, 0, 8, 64, 512]))
    with mock.patch.object(module, "REACH_BYTES", ceiling):
        projects = CSharpProjects(files, lambda p: files[p].encode())
        seen = {name: projects.visible(name) for name in data.draw(st.permutations(names))}
        again = CSharpProjects(files, lambda p: files[p].encode())
        assert {name: again.visible(name) for name in reversed(names)} == seen
        top = max(projects.number(name) for name in names)
        for viewer in data.draw(st.lists(st.sampled_from(names), max_size=5)):
            low = data.draw(st.integers(0, top))
            high = data.draw(st.integers(low, top))
            # the numbers from low to high of the projects the viewer sees
            expected = {projects.number(p) for p in seen[viewer]} & set(range(low, high + 1))
            bounds = projects.seen_spans(f"{viewer}/F.cs", low, high)
            if bounds is None:
                assert seen[viewer] == set(names)
                continue
            assert bounds == sorted(bounds) and all(a < b for a, b in zip(bounds[::2], bounds[1::2]))
            assert all(low <= b <= high + 1 for b in bounds) and len(bounds) % 2 == 0
            assert all(a < b for a, b in zip(bounds[1::2], bounds[2::2]))  # none overlapping the next
            assert {n for a, b in zip(bounds[::2], bounds[1::2]) for n in range(a, b)} == expected
    capped = [name for name in names if seen[name] != _naive_visible(files, name)]
    assert all(seen[name] == set(names) for name in capped)
    assert projects.capped == bool(capped) or projects.capped and ceiling < module.REACH_BYTES
    assert projects.kept <= ceiling


def _chain(n: int) -> dict[str, str]:
    """n projects, each referencing the next."""
    return {f"p{i}/p{i}.csproj": _csproj(f"../p{i + 1}/p{i + 1}.csproj") if i + 1 < n else _csproj()
            for i in range(n)}


def _tested(n: int) -> dict[str, str]:
    """A project everything references, and n // 2 libraries each with its test project."""
    files = {"common/common.csproj": _csproj()}
    for i in range(n // 2):
        files[f"lib{i}/lib{i}.csproj"] = _csproj("../common/common.csproj")
        files[f"test{i}/test{i}.csproj"] = _csproj("../common/common.csproj", f"../lib{i}/lib{i}.csproj")
    return files


def _alone(n: int) -> dict[str, str]:
    return {f"p{i}/p{i}.csproj": _csproj() for i in range(n)}


def _stair(n: int) -> dict[str, str]:
    """A chain each link of which also references a project of its own, numbered apart from
    the next link's: what the links see, however kept, is quadratic in the chain."""
    k = n // 3
    files = {}
    for i in range(k):
        files[f"a{i:05d}/a.csproj"] = _csproj()
        files[f"a{i:05d}z/z.csproj"] = _csproj()  # between, seen by none
        files[f"c{i:05d}/c.csproj"] = _csproj(f"../a{i:05d}/a.csproj",
                                              *([f"../c{i + 1:05d}/c.csproj"] if i + 1 < k else []))
    return files


def _asked(files: dict[str, str]) -> tuple[CSharpProjects, list[bool]]:
    """The projects of `files`, and whether each project's file sees one of another."""
    projects = CSharpProjects(files, lambda p: files[p].encode())
    folders = sorted(p.rpartition("/")[0] for p in files)
    return projects, [projects.sees(f"{f}/deep/F.cs", f"{folders[(i * 7) % len(folders)]}/G.cs")
                      for i, f in enumerate(folders)]


@pytest.mark.parametrize("shape", [_chain, _tested, _alone])
def test_a_tree_of_many_projects_costs_work_linear_in_it(shape):
    """A file asked about in each project: finding a file's project tried every project folder
    in turn (quadratic in the projects: 5.5 million lines ran at 1,000, 22 million at 2,000).
    What each project sees was a set of what it reaches (87 MB traced at 2,000 in a chain),
    then a bit a project numbered as met: still n^2/16 bytes for a chain, and for n projects
    referencing nothing or one common project alike (35 MB traced at 20,000). Now a chain or
    tree costs a few numbers a project, whatever is asked: lines run and bytes traced double
    with the projects, and what they see beyond their rows keeps a few bytes a project."""
    import tracemalloc

    from indexer.lang.csharp import projects as module

    def lines(n: int) -> int:
        files = shape(n)
        (projects, seen), count = module_lines(module.__file__, lambda: _asked(files))
        assert seen[:40] == [_naive_sees(files, p, f"{q}/G.cs") for p, q in _pairs(files)[:40]]
        assert not projects.capped  # what they see beyond their rows: bytes kept, and work
        assert projects.kept <= 32 * n and projects.spent <= 512 * n
        return count

    def peak(n: int) -> int:
        files = shape(n)
        tracemalloc.start()
        try:
            _asked(files)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    assert lines(1_000) <= 2.1 * lines(500) + 100  # lines run: linear in the projects
    small, large = peak(4_000), peak(8_000)
    assert large <= 2.2 * small  # bytes traced (a bit a project: 2.5 to 2.7 times)
    assert large < 8_000 * 1_100  # bytes a project (a bit a project: 1,150 to 1,250)


def _pairs(files: dict[str, str]) -> list[tuple[str, str]]:
    folders = sorted(p.rpartition("/")[0] for p in files)
    return [(f, folders[(i * 7) % len(folders)]) for i, f in enumerate(folders)]


def _naive_sees(files: dict[str, str], viewer: str, target: str) -> bool:
    return target.rpartition("/")[0] in _naive_visible(files, viewer)


def test_past_the_ceiling_a_project_sees_every_project_whatever_is_asked_first(monkeypatch):
    """A stair of references makes what the projects see quadratic whichever way it is kept:
    past the ceiling of work a project sees every project, as a file under no .csproj does,
    `capped` says so, and which projects those are does not depend on which file is asked
    about first (a re-index asks in another order than a cold index or a query)."""
    from indexer.lang.csharp import projects as module

    files = _stair(600)
    folders = sorted(p.rpartition("/")[0] for p in files)
    uncapped = CSharpProjects(files, lambda p: files[p].encode())
    assert uncapped.visible("c00000") == {f for f in folders if f.startswith("c") or f.count("z") == 0 and f[0] == "a"}
    assert not uncapped.capped and uncapped.kept > 2_000
    monkeypatch.setattr(module, "REACH_BYTES", 2_000)
    answers = []
    for order in (folders, folders[::-1]):
        projects = CSharpProjects(files, lambda p: files[p].encode())
        asked = {(a, b): projects.sees(f"{a}/F.cs", f"{b}/G.cs") for a in order[:50] + order[-50:] for b in order}
        assert projects.capped and projects.kept <= 2_000
        answers.append(sorted(asked.items()))
        for a in folders:
            seen = projects.visible(a)
            assert seen == uncapped.visible(a) or seen == set(folders)
        assert projects.visible("c00000") == set(folders)  # the chain's head sees all
        assert projects.visible("c00199") == uncapped.visible("c00199")  # its end as before
    assert answers[0] == answers[1]


def test_a_namespace_many_projects_use_costs_resolution_linear_work(tmp_path):
    """One namespace declared by a file in each of n projects, and n projects whose file has a
    `using` of it and each of which sees its own share: each `using` asked every file of the
    namespace whether its project saw it and read every file's symbols again (n^2 of each:
    3 s to index 2,400 files, 94 s for 6,000). Now a namespace's symbols are read once and
    which of its projects a file sees is asked a project at a time of what it sees: the
    lines the C# resolver runs double with n, and the edges are those a plain reading gives."""
    from indexer.lang.csharp import projects as projects_module
    from indexer.lang.csharp import resolve as resolve_module

    def indexed(n: int) -> tuple[int, list[tuple[str, str]]]:
        files = {}
        for i in range(n):
            files[f"a{i:04d}/a.csproj"] = _csproj()
            files[f"a{i:04d}/A.cs"] = f"namespace Co {{ public class A{i} {{}} }}\n"
            files[f"c{i:04d}/c.csproj"] = _csproj(f"../a{i:04d}/a.csproj",
                                                  *([f"../c{i + 1:04d}/c.csproj"] if i + 1 < n else []))
            files[f"c{i:04d}/C.cs"] = f"using Co;\nclass C{i} {{ A0 a; A{n - 1} b; A{i} c; }}\n"
        repo = str(tmp_path / f"repo{n}")
        RepoBuilder(tmp_path / f"repo{n}").commit(files, message="namespace")
        with Store.open(tmp_path / f"store{n}") as store:
            _, lines = module_lines((resolve_module.__file__, projects_module.__file__),
                                 lambda: api.index(repo, "main", store=store, workers=1))
            record = api.snapshot(repo, "main", store=store).record
        return lines, [(e.source, e.target) for e in record.edges]

    small, edges = indexed(60)
    # c_i sees a_j for j >= i: A0 only from c0, A{n-1} from all, its own A{i}
    assert edges == sorted({(f"c{i:04d}/C.cs", f"a{j:04d}/A.cs") for i in range(60) for j in (0, 59, i) if j >= i})
    large, _ = indexed(120)
    assert large <= 2.2 * small
