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

import context_tools
from corpora.gitbuild import RepoBuilder
from indexer import api
from indexer.lang.csharp.projects import CSharpProjects
from indexer.store.database import Store
from tests.indexed import Indexed, sites
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


@pytest.fixture(scope="module")
def app() -> tuple[context_tools.Client, str]:
    return REPO.asked()


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
    assert sorted(reads) == ["A/A.csproj", "Base/Base.csproj", "C/C.csproj", "Core/Core.csproj"]  # each once
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


def _naive_visible(files: dict[str, str], project: str) -> set[str]:
    """The projects `project` reaches, by a plain search over each .csproj's references."""
    projects = CSharpProjects(files, lambda p: files[p].encode())
    found, todo = {project}, [project]
    while todo:
        for ref in projects._references(todo.pop()):
            if ref not in found:
                found.add(ref)
                todo.append(ref)
    return found


FOLDERS = ["", "a", "a/b", "a/b/c", "d", "d/e", "f"]


@settings(max_examples=200, deadline=None)
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


def lines_run(module_file: str, call):
    """`call()`, and how many lines of `module_file` ran for it: a measure of work that no
    machine's speed changes."""
    import sys

    count = [0]

    def tracer(frame, event, arg):
        if frame.f_code.co_filename != module_file:
            return None
        if event == "line":
            count[0] += 1
        return tracer

    sys.settrace(tracer)
    try:
        result = call()
    finally:
        sys.settrace(None)
    return result, count[0]


def test_a_tree_of_many_projects_costs_work_linear_in_it():
    """A chain of projects each referencing the next, a file asked about in each: finding a
    file's project tried every project folder in turn (quadratic in the projects: 5.5
    million lines ran at 1,000, 22 million at 2,000), and each project's set of what it sees
    held the chain below it (at 2,000: 87 MB traced). Now each folder is climbed once (84
    lines a project), and what a project sees is a bit a project: at most n^2/16 bytes for
    a chain of n (at 2,000: 1.1 MB traced)."""
    import tracemalloc

    from indexer.lang.csharp import projects as module

    def work(n: int) -> tuple[int, int, int]:
        files = {f"p{i}/p{i}.csproj": _csproj(f"../p{i + 1}/p{i + 1}.csproj") if i + 1 < n else _csproj()
                 for i in range(n)}
        projects = CSharpProjects(files, lambda p: files[p].encode())
        tracemalloc.start()
        try:
            seen, lines = lines_run(module.__file__, lambda: sum(
                projects.sees(f"p{i}/deep/F{i}.cs", f"p{(i * 7) % n}/F.cs") for i in range(n)))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert seen == sum((i * 7) % n >= i for i in range(n))  # a project sees those after it in the chain
        return lines, sum((r.bit_length() + 7) // 8 for r in projects._reach.values()), peak

    small, large = work(1_000), work(2_000)
    assert large[0] <= 2 * small[0] + 100  # lines run: linear in the projects
    assert large[1] <= 2_000 ** 2 // 16 + 2_000  # bytes of what each sees
    assert large[2] < 4 << 20
