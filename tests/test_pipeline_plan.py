"""What indexing a commit starts from (indexer/pipeline/plan.py), on real repositories and a
real store: the earlier snapshot is the nearest one up the first-parent line, and the facts
keys import resolution asks of it are those of the paths whose facts changed since."""

from __future__ import annotations

import pygit2

from corpora.gitbuild import RepoBuilder
from indexer import api
from indexer.build import extractor_version
from indexer.pipeline.plan import plan
from indexer.store.database import Store
from indexer.store.records import path_facts_key


def test_the_earlier_snapshot_is_the_nearest_indexed_up_the_first_parent_line(tmp_path):
    builder = RepoBuilder(tmp_path / "repo")
    first = builder.commit({"a.py": "def a():\n    return 1\n", "b.py": "from a import a\n", "c.md": "# c\n"})
    second = builder.commit({"b.py": "from a import a\n\nB = a()\n"}, "two")
    third = builder.commit({"c.md": "# c, again\n", "d.py": "D = 4\n"}, "three")
    version = extractor_version()
    repo = pygit2.Repository(str(builder.path))
    with Store.open(tmp_path / "store") as store:
        assert plan(store, repo, third, version).earlier is None
        api.index(str(builder.path), first, store=store, workers=1)
        made = plan(store, repo, third, version)  # two commits on: second was never indexed
        assert made.earlier is not None and made.earlier.oid == first
        blob = {e.path: e.oid for e in made.tree}
        old = {f.path: f.blob for f in made.earlier.files}
        # b.py's and c.md's blobs changed since the earlier snapshot; a.py's did not, d.py is new
        assert made.earlier_keys() == {path: path_facts_key(path, old[path], version) for path in ("b.py", "c.md")}
        assert blob["a.py"] == old["a.py"] and blob["b.py"] != old["b.py"]
        api.index(str(builder.path), second, store=store, workers=1)
        assert plan(store, repo, third, version).earlier.oid == second
