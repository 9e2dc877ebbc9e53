"""Import resolution over trees drawn to make it costly: many roots, include directories,
packages or names. Each resolver's work stays proportional to what the tree holds and what
its imports reach, counted in lines run (no machine's speed changes that), and its answers
are those a plain scan of the tree gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.lang.python import resolve as python_resolve
from indexer.lang.python.stdlib import STDLIB_MODULES
from indexer.model import ImportSpec
from indexer.resolve.tree import EXTERNAL, TreePaths, join
from tests.test_context_csharp_projects import lines_run


def _python_roots(n: int) -> tuple[TreePaths, list[ImportSpec]]:
    """n roots each holding a package, and a script importing n names none of them holds
    and the n packages."""
    paths = [f"r{i}/pkg{i}/__init__.py" for i in range(n)] + ["main.py"]
    imports = [ImportSpec("python", f"name{i}", i + 1) for i in range(n)]
    imports += [ImportSpec("python", f"pkg{i}", n + i + 1) for i in range(n)]
    return TreePaths(paths), imports


def test_many_python_roots_and_names_cost_work_linear_in_them():
    """Which roots hold a top-level name was asked of every root for each name imported (n
    roots and n names: 16 s at 2,000, 66 s at 4,000); now only of the roots holding a file
    or folder of that name."""

    def run(n: int) -> int:
        tree, imports = _python_roots(n)
        resolver = python_resolve.PythonResolver(tree)
        outcomes, lines = lines_run(python_resolve.__file__,
                                    lambda: [resolver.resolve("main.py", imp) for imp in imports])
        assert outcomes == [EXTERNAL] * n + [(f"r{i}/pkg{i}/__init__.py",) for i in range(n)]
        return lines

    assert run(400) <= 2.2 * run(200)


SEGMENTS = ["a", "b", "io", "c"]
ENTRIES = st.lists(st.tuples(st.lists(st.sampled_from(SEGMENTS), max_size=3),
                             st.sampled_from(["x.py", "x.pyi", "__init__.py", "__init__.pyi", "a.py", "io.py",
                                              "b/README", "c.txt"])), max_size=12)


@settings(max_examples=300, deadline=None)
@given(ENTRIES, st.lists(st.sampled_from([*SEGMENTS, "x", "a/b", ".", ".."]), max_size=6))
def test_the_roots_holding_a_name_are_those_a_scan_of_every_root_finds(entries, names):
    tree = TreePaths({join(*folders, name) for folders, name in entries})
    modules = python_resolve.PythonModules(tree)
    for name in names:
        scanned = [root for root in modules.roots
                   if modules.module_file(root, [name])
                   or (name not in STDLIB_MODULES and tree.is_dir(join(root, name)))]
        assert modules.roots_for(name) == scanned


def _includes(n: int) -> tuple[TreePaths, list[ImportSpec]]:
    """n include folders each holding its header and `x.h`, and a file including n headers
    none of them holds, then `x.h` under n spellings, and n files including `x.h`."""
    paths = [f"d{i}/include/h{i}.h" for i in range(n)] + [f"d{i}/include/x.h" for i in range(n)]
    paths += [f"d{i}/include/q/x.h" for i in range(n)] + ["main.c"]
    imports = [ImportSpec("c_system_include", f"<z{i}.h>", i + 1) for i in range(n)]
    imports += [ImportSpec("c_system_include", f"<q{i}/x.h>", n + i + 1) for i in range(n)]
    return TreePaths(paths), imports


def test_many_include_folders_and_includes_cost_work_linear_in_them():
    """Each include was tried under every include folder, and a header many folders hold was
    weighed against each of them for each file including it (n folders and n includes: 4 s
    at 2,000, 16 s at 4,000). Now the files an include names are found once a spelling, from
    the files of its name, and the nearest of them by a search in path order."""
    from indexer.lang.c import resolve as c_resolve
    from indexer.resolve import tree as tree_module

    def run(n: int) -> int:
        tree, imports = _includes(n)
        resolver = c_resolve.CResolver(tree)
        others = [(f"d{i}/include/h{i}.h", ImportSpec("c_system_include", "<x.h>", 1)) for i in range(n)]

        def resolve() -> list[object]:
            return ([resolver.resolve("main.c", imp) for imp in imports]
                    + [resolver.resolve(path, imp) for path, imp in others])

        outcomes, lines = lines_run((c_resolve.__file__, tree_module.__file__), resolve)
        assert outcomes == [EXTERNAL] * 2 * n + [(f"d{i}/include/x.h",) for i in range(n)]
        return lines

    assert run(400) <= 2.2 * run(200)


PATHS = st.lists(st.lists(st.sampled_from(["a", "b", "include", "x.h", "y.h"]), min_size=1, max_size=4)
                 .map("/".join), max_size=50)


@settings(max_examples=300, deadline=None)
@given(PATHS, st.lists(st.sampled_from(["x.h", "y.h", "a/x.h", "include/x.h", "b/a/y.h", "/x.h", "a/"]),
                       max_size=4), st.sampled_from(["a/b/c.c", "include/m.c", "m.c", "b/include/a/q.c"]))
def test_what_ends_in_a_spelling_and_the_nearest_are_those_a_scan_finds(paths, suffixes, importer):
    """Files of one name are searched by their reversed paths past a few, and the nearest of
    candidates in path order by a search a folder of the importer: the same answers as a scan."""
    from indexer.resolve import tree as tree_module
    from indexer.resolve.tree import nearest, nearest_sorted

    tree = TreePaths(paths)
    for suffix in suffixes:
        scanned = [p for p in sorted(set(paths)) if p == suffix or p.endswith("/" + suffix)]
        assert tree.ending_with(suffix) == scanned
        original = tree_module._SCANNED
        tree_module._SCANNED = 0  # every name searched
        try:
            assert TreePaths(paths).ending_with(suffix) == scanned
        finally:
            tree_module._SCANNED = original
        for skip in (None, importer, *scanned[:1]):
            left = [p for p in scanned if p != skip]
            assert nearest_sorted(importer, scanned, skip) == (nearest(importer, left) if left else None)
