"""What context.references' answer holds, from a real index: sites grouped by the definition
they reach in the definitions' order, then those of the definitions past the 20 told apart,
then name matches, then text; each group by resolution then place (line, then column); each
definition's count of the sites reaching it; the counts over every site whatever
`resolution` keeps, asked again on the same client; a site's text stripped and cut to 240
characters."""

from __future__ import annotations

import pytest

from indexer.contract.errors import NotFound
from tests.indexed import Indexed

LONG_LINE = "    total = " + " + ".join(["get(0)"] * 40) + "\n"
FILES = {
    "api.py": "def get(key):\n    return key\n",
    "store.py": "class Store:\n    def get(self, key):\n        return key\n",
    "use_api.py": "from api import get\n\nget(1)\nget(2); get(3)\n",
    "use_store.py": "from store import Store\n\nStore().get(1)\n",
    "other.py": "def f(d):\n    return d.get(1)\n",
    "README.md": "Call `get` to fetch.\n",
    "long.py": "from api import get\n\n\ndef g():\n" + LONG_LINE,
    # 22 definitions of `run`, each called in its file; d00.py's also imported
    **{f"runs/d{i:02}.py": "def run():\n    return 0\n\n\nrun()\n" for i in range(22)},
    "runs/user.py": "from runs.d00 import run\n\nrun()\n",
    # a site two definitions reach alike goes to the first
    "t1.py": "def twin():\n    return 1\n",
    "t2.py": "def twin():\n    return 2\n",
    "both.py": "from t1 import *\nfrom t2 import *\n\ntwin()\n",
    # a segment of an import's path is no site of a function of its name
    "paths.py": "def path():\n    return 0\n\n\npath()\n",
    "osuser.py": "import os.path\n",
    # a Go package: b.go defines and uses Scale, a.go (before it in path order) sees it unimported
    "geo/a.go": "package geo\n\nfunc Twice() int { return Scale(2) }\n",
    "geo/b.go": "package geo\n\nfunc Scale(n int) int { return n }\n\nvar unit = Scale(1)\n",
}

REFS = Indexed(FILES, "rennet-refs-answers-")


app = REFS.fixture()


def test_sites_of_definitions_past_those_told_apart_come_after_every_definitions_group(app):
    data = app.call("context.references", name="run").data
    assert (data.definitions_total, len(data.definitions), data.definitions_attributed) == (22, 20, 20)
    assert [(d.path, d.sites) for d in data.definitions] == [("runs/d00.py", 3)] + [
        (f"runs/d{i:02}.py", 1) for i in range(1, 20)]
    assert [(s.path, s.line, s.resolution, s.definition) for s in data.sites] == [
        ("runs/d00.py", 5, "same_file", 0), ("runs/user.py", 1, "import", 0), ("runs/user.py", 3, "import", 0),
        *((f"runs/d{i:02}.py", 5, "same_file", i) for i in range(1, 20)),
        ("runs/d20.py", 5, "same_file", None), ("runs/d21.py", 5, "same_file", None)]


def test_sites_by_definition_then_resolution_then_line_and_column(app):
    data = app.call("context.references", name="get").data
    index = {d.qualified: i for i, d in enumerate(data.definitions)}
    assert [(d.qualified, d.sites) for d in data.definitions] == sorted(
        [("get", 45), ("Store.get", 1)], key=lambda d: index[d[0]])
    groups = [s.definition for s in data.sites]
    assert groups == sorted(groups[:-2]) + [None, None]
    api = [(s.path, s.line, s.col) for s in data.sites if s.definition == index["get"]]
    assert api == sorted(api) and ("use_api.py", 4, 0) in api and ("use_api.py", 4, 8) in api
    assert [(s.path, s.resolution) for s in data.sites[-2:]] == [("other.py", "name_match"), ("README.md", "text")]
    assert data.by_resolution == {"import": 46, "same_file": 0, "same_package": 0, "name_match": 1, "text": 1}
    assert (data.code_sites, data.text_sites) == (47, 1)


def test_a_resolution_asked_after_another_keeps_its_own_class(app):
    every = app.call("context.references", name="get")
    kept = app.call("context.references", name="get", resolution="name_match")
    assert [(s.path, s.resolution) for s in kept.data.sites] == [("other.py", "name_match")]
    assert kept.page.total == 1 and kept.data.by_resolution == every.data.by_resolution
    assert all(d.sites is None for d in kept.data.definitions)  # no per-definition count under a filter
    again = app.call("context.references", name="get")
    assert [(s.path, s.line, s.col) for s in again.data.sites] == [(s.path, s.line, s.col) for s in every.data.sites]


def test_a_sites_text_is_its_line_stripped_and_cut_to_240_characters(app):
    sites = app.call("context.references", name="get", text=True, path="api.py").data.sites
    long = [s.text for s in sites if s.path == "long.py" and s.line == 5]
    assert len(long) == 40 and set(long) == {LONG_LINE.strip()[:240]}
    assert next(s.text for s in sites if (s.path, s.line) == ("use_api.py", 4)) == "get(2); get(3)"


def test_a_site_two_definitions_reach_alike_goes_to_the_first(app):
    data = app.call("context.references", name="twin").data
    assert [d.path for d in data.definitions] == ["t1.py", "t2.py"]
    assert data.definitions_attributed == 2  # each told apart: as many as there are, under the 20
    assert [(s.path, s.line, s.resolution, s.definition) for s in data.sites] == [("both.py", 4, "import", 0)]


def test_a_segment_of_an_import_path_is_no_site_of_a_function(app):
    assert [(s.path, s.line) for s in app.call("context.references", name="path").data.sites] == [("paths.py", 5)]


def test_a_path_filter_that_holds_no_definition_is_not_found(app):
    with pytest.raises(NotFound):
        app.call("context.references", name="get", path="nowhere")


def test_a_definitions_sites_go_by_resolution_before_place(app):
    """Within a definition's group the defining file's sites come before its package's, though
    the package's file is first in path order."""
    data = app.call("context.references", name="Scale").data
    assert [(s.path, s.line, s.resolution) for s in data.sites] == [
        ("geo/b.go", 5, "same_file"), ("geo/a.go", 3, "same_package")]


def test_a_name_match_of_a_single_definition_carries_none_and_is_not_counted_as_its(app):
    data = app.call("context.references", name="get", path="api.py").data
    assert [d.path for d in data.definitions] == ["api.py"] and data.definitions_attributed == 1
    matched = [s for s in data.sites if s.resolution in ("name_match", "text")]
    # `d.get(1)`, `Store().get(1)` (Store's, not asked) and the Markdown mention
    assert [(s.path, s.definition) for s in matched] == [("other.py", None), ("use_store.py", None), ("README.md", None)]
    assert all(s.definition == 0 for s in data.sites if s not in matched)
    assert data.definitions[0].sites == len(data.sites) - 3 == 45


def test_a_qualified_query_counts_the_sites_of_the_name_alone_it_leaves_out(app):
    """`Store.get` asks for that method's sites: those only its name ties to anything (`d.get(1)`
    on an untyped `d`, `get(1)` bound to api's get, the README's) are left out of its sites and
    counts, and counted apart, so an answer of few sites says how many of the name it left."""
    qualified = app.call("context.references", name="Store.get").data
    # the same definition asked by its bare name, narrowed to its file: every site, each class kept
    bare = app.call("context.references", name="get", path="store.py", kind="method", limit=200).data
    assert [d.path for d in bare.definitions] == [d.path for d in qualified.definitions] == ["store.py"]
    name_only = bare.by_resolution["name_match"] + bare.by_resolution["text"]
    assert name_only >= 3 and qualified.same_name_left_out == name_only
    assert qualified.by_resolution == {**bare.by_resolution, "name_match": 0, "text": 0}
    assert {(s.path, s.line) for s in qualified.sites} == {
        (s.path, s.line) for s in bare.sites if s.resolution not in ("name_match", "text")}
    assert bare.same_name_left_out == 0  # a bare name leaves none out
