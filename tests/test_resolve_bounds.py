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
