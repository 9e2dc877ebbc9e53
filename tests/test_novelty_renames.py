"""context.novelty pairs a moved file with its old path the way git does (similarity, not
only an identical blob): moving a package under src/ and editing it on the way is not the
removal of its public API and the addition of another."""

from __future__ import annotations

import context_tools
from corpora.gitbuild import RepoBuilder
from indexer import api

SESSIONS = "".join(f"def merge_{i}(a, b):\n    return a or b or {i}\n\n\n" for i in range(30))


def test_a_package_moved_under_src_with_edits_is_renamed_not_removed_and_added(tmp_path):
    b = RepoBuilder(tmp_path / "repo")
    base = b.commit({"requests/sessions.py": SESSIONS, "requests/version.py": "VERSION = '2.31.0'\n"})
    edited = SESSIONS.replace("def merge_7(a, b):", "def merge_7(a, b, c=None):") + "def fresh():\n    pass\n"
    head = b.commit({"requests/sessions.py": None, "requests/version.py": None,
                     "src/requests/sessions.py": edited, "src/requests/version.py": "VERSION = '2.31.0'\n"})
    store = api.open_store(tmp_path / "store")
    for rev in (base, head):
        api.index(str(tmp_path / "repo"), rev, store=store)
    store.close()

    d = context_tools.Client(store=str(tmp_path / "store")).call(
        "context.novelty", repo=str(tmp_path / "repo"), base=base, head=head).data
    files = {(f.path, f.change, f.previous_path) for f in d.files.items}
    assert files == {("src/requests/sessions.py", "renamed", "requests/sessions.py"),
                     ("src/requests/version.py", "renamed", "requests/version.py")}
    # only what the edit did, under the new path
    assert {(s.path, s.qualified, s.change) for s in d.symbols.items} == {
        ("src/requests/sessions.py", "merge_7", "changed"), ("src/requests/sessions.py", "fresh", "added")}
    assert {(a.qualified, a.change) for a in d.public_api.items} == {("merge_7", "changed"), ("fresh", "added")}
