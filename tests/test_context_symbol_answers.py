"""What context.symbol's answer holds, from a real index: definitions matched as written
before those matched through a module path, then by their file's rank; a path filter is a
folder, not a prefix of a name; a kind filter that misses names the kinds under the path
asked; a member inherited is found only within the filters; a qualification must name the
classes between; the module a definition is shown in; and `--hierarchy` lists at most 50
classes of the name."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.contract.errors import NotFound
from tests.examples import examples
from tests.indexed import Indexed, definitions

FILES = {
    # `a.b`: the method b of class a (as written) and the function b of module a.py, which
    # two files import (a higher rank)
    "a.py": "def b():\n    return 0\n",
    "k.py": "class a:\n    def b(self):\n        return 1\n",
    "use1.py": "from a import b\n",
    "use2.py": "from a import b\n",
    # `helper` in two files, the later path imported (a higher rank)
    "early.py": "def helper():\n    return 0\n",
    "zlate.py": "def helper():\n    return 1\n",
    "use3.py": "from zlate import helper\n",
    # a folder and a file named like it
    "pkg/inside.py": "def tool():\n    return 0\n",
    "pkg_tools.py": "def tool():\n    return 1\n",
    # one name, two kinds in two folders
    "one/x.py": "class Thing:\n    pass\n",
    "two/y.py": "def Thing():\n    return 0\n",
    # a member through the hierarchy, and nested classes through a re-export
    "base.py": "class Base:\n    def handle(self):\n        return 0\n",
    "app.py": "from base import Base\n\n\nclass App(Base):\n    pass\n",
    "nest/__init__.py": "from nest.impl import Outer\n",
    "nest/impl.py": "class Outer:\n    class Inner:\n        def meth(self):\n            return 0\n",
    # module paths: lib/ dropped as src/ is; a top-level main.py is module `main`
    "lib/tools/fmt.py": "def pretty():\n    return 0\n",
    "main.py": "def entry():\n    return 0\n",
    # a Python file named as another language's module file is a module of its own
    "app/main.py": "def launch():\n    return 0\n",
    "app/mod.py": "def tweak():\n    return 0\n",
    # a base imported from a file that does not define it
    "nobase_lib.py": "X = 1\n",
    "nobase_app.py": "from nobase_lib import Base\n\n\nclass Orphaned(Base):\n    pass\n",
    # 51 classes of one name
    **{f"many/m{i:02}.py": "class Many:\n    pass\n" for i in range(51)},
}

SYMBOLS = Indexed(FILES, "rennet-symbol-answers-")


app = SYMBOLS.fixture()


def test_definitions_as_written_come_before_those_through_a_module_path(app):
    assert [(p, m) for p, _, _, m in definitions(app, "a.b")] == [("k.py", "exact"), ("a.py", "qualified")]


def test_definitions_by_their_files_rank(app):
    assert [p for p, _, _, _ in definitions(app, "helper")] == ["zlate.py", "early.py"]


def test_a_path_filter_is_a_folder_not_a_prefix_of_a_name(app):
    assert [p for p, _, _, _ in definitions(app, "tool", path="pkg")] == ["pkg/inside.py"]
    assert [p for p, _, _, _ in definitions(app, "tool", path="pkg/")] == ["pkg/inside.py"]


def test_a_glob_path_filter_matches_as_fnmatch_and_a_clients_globs_are_kept_a_bounded_number(app):
    """A glob filter is read as `fnmatch` reads it, and each is kept compiled among the newest
    `GLOBS_KEPT` (64), never in fnmatch's own cache of 32,768: a client's 4,096-character glob of
    2,040 `*` compiles to about 120 kB, so its calls, each with a glob of its own, kept that much
    of the server's memory for good (300 calls, 37 MB; about 4 GB at fnmatch's bound)."""
    import fnmatch

    from context_tools.query.symbols.names import GLOBS_KEPT, _glob

    assert [p for p, _, _, _ in definitions(app, "tool", path="p?g/*.py")] == ["pkg/inside.py"]
    assert [p for p, _, _, _ in definitions(app, "tool", path="./[!p]*")] == []
    assert [p for p, _, _, _ in definitions(app, "tool", path="*tools.py")] == ["pkg_tools.py"]
    kept_by_fnmatch = fnmatch._compile_pattern.cache_info().currsize
    for i in range(GLOBS_KEPT + 16):
        assert definitions(app, "tool", path=f"*{i}*.py") == []
    assert fnmatch._compile_pattern.cache_info().currsize == kept_by_fnmatch
    assert _glob.cache_info().currsize <= GLOBS_KEPT


@given(st.text("ab/.*?[]!-", max_size=12), st.text("ab/.-", max_size=8))
@settings(max_examples=examples(300), deadline=None)
def test_a_glob_filter_matches_a_path_exactly_when_fnmatch_does(pattern, path):
    import fnmatch

    from context_tools.query.symbols.names import path_ok

    if any(c in pattern for c in "*?[") and not pattern.startswith("./"):
        assert path_ok(path, pattern) == fnmatch.fnmatchcase(path, pattern)


def test_a_kind_filter_that_misses_names_the_kinds_under_the_path_asked(app):
    with pytest.raises(NotFound) as caught:
        app.call("context.symbol", name="Thing", kind="method", path="one", fuzzy=False)
    assert caught.value.message.endswith("'Thing' is defined as: class")


def test_an_inherited_member_is_found_only_within_the_filters(app):
    assert definitions(app, "App.handle") == [("base.py", "Base.handle", 2, "inherited")]
    assert definitions(app, "App.handle", kind="class") == []
    assert definitions(app, "App.handle", path="app.py") == []


def test_a_qualification_through_a_reexport_names_the_classes_between(app):
    assert definitions(app, "nest.Outer.Inner.meth") == [("nest/impl.py", "Outer.Inner.meth", 3, "qualified")]
    assert definitions(app, "nest.Outer.Wrong.meth") == []


def test_the_module_a_definition_is_shown_in(app):
    module = {d.path: d.module for d in app.call("context.symbol", name="pretty").data.definitions}
    assert module == {"lib/tools/fmt.py": "tools.fmt"}
    entry = app.call("context.symbol", name="main.entry", fuzzy=False).data.definitions
    assert [(d.path, d.module, d.match) for d in entry] == [("main.py", "main", "qualified")]
    for name, path in (("launch", "app/main.py"), ("tweak", "app/mod.py")):
        module = path[:-3].replace("/", ".")
        found = app.call("context.symbol", name=f"{module}.{name}", fuzzy=False).data.definitions
        assert [(d.path, d.module, d.match) for d in found] == [(path, module, "qualified")]
        assert definitions(app, f"app.{name}") == []  # the folder's module is app/__init__.py's


def test_a_hierarchy_lists_at_most_50_classes_of_the_name(app):
    data = app.call("context.symbol", name="Many", hierarchy=True).data
    assert len(data.definitions) == 50 and data.definitions[0].path == "many/m00.py"
    assert data.note == "the hierarchy of Many in many/m00.py; 50 other class(es) of the name"


def test_a_base_resolved_to_a_file_not_defining_it_is_listed_with_that_file(app):
    data = app.call("context.symbol", name="Orphaned", hierarchy=True).data
    assert [(x.relation, x.spec, x.status, x.path) for x in data.hierarchy] == [
        ("base", "Base", "resolved", "nobase_lib.py")]
