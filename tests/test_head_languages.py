"""What a resident host prepares before its first index: the grammar languages the names in
its roots' HEAD trees say, or those of the repositories under a root in none
(indexer/git/head_languages.py), or every one where that is not known."""

from __future__ import annotations

import pytest

from corpora.gitbuild import Exec, Link, RepoBuilder, Submodule
from indexer.git.head_languages import head_languages


def test_the_names_of_the_head_tree_say_which_languages(tmp_path):
    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({"old.rs": "fn main() {}\n"})
    builder.commit({
        "old.rs": None,  # gone at HEAD: not a language it holds
        "src/app.ts": "export const a = 1;\n",
        "src/deep/er/mod.py": "x = 1\n",
        "include/api.h": "int api(void);\n",  # C or C++ by its content: both
        "bin/tool": Exec(b"#!/bin/sh\necho\n"),  # only the content names it: left to the workers
        "notes.txt": "prose\n",
        "link.go": Link("src/app.ts"),  # a symlink's name says nothing of a blob
        "vendor/lib": Submodule("a" * 40),
    })
    assert head_languages([str(builder.path)]) == frozenset({"typescript", "python", "c", "cpp"})
    # a folder inside the work tree is served from its repository's HEAD
    (builder.path / "src").mkdir(exist_ok=True)
    assert head_languages([str(builder.path / "src")]) == frozenset({"typescript", "python", "c", "cpp"})


def test_not_knowing_means_every_language(tmp_path):
    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({f"pkg/m{i}.py": "x = 1\n" for i in range(20)})
    outside = tmp_path / "plain"
    outside.mkdir()
    assert head_languages([str(outside)]) is None  # a folder in no repository
    assert head_languages([str(builder.path), str(outside)]) is None
    assert head_languages([str(builder.path)], limit=10) is None  # a tree past the limit is not walked to its end
    assert head_languages([str(builder.path)], limit=30) == frozenset({"python"})
    # 21 entries (the folder and its 20 files): past a limit of 20, not past one of 21
    assert head_languages([str(builder.path)], limit=20) is None
    assert head_languages([str(builder.path)], limit=21) == frozenset({"python"})


def test_a_folder_of_repositories_names_the_languages_of_those_under_it(tmp_path):
    """A root that is a folder of checkouts (`--root ~/src`) is in no repository: its guess is
    the languages of the repositories under it, at any depth (was: not known, every language,
    for the commonest root of all). A repository's own folders are its tree's to say, and a
    link leads out of the root: neither is listed."""
    import os

    import pygit2

    src = tmp_path / "src"
    RepoBuilder(src / "app").commit({"main.py": "x = 1\n"})
    RepoBuilder(src / "github.com" / "org" / "tool").commit({"cmd/main.go": "package main\n"})
    nested = RepoBuilder(src / "app" / "vendored")  # untracked inside app's work tree: app's tree says what app holds
    nested.commit({"lib.rs": "fn f() {}\n"})
    bare = pygit2.init_repository(str(src / "mirror.git"), bare=True)
    web = RepoBuilder(tmp_path / "web")
    web.commit({"index.ts": "export const a = 1;\n"})
    bare.remotes.create("origin", str(web.path)).fetch(["+refs/heads/*:refs/heads/*"])
    bare.set_head("refs/heads/" + web.repo.head.shorthand)
    elsewhere = RepoBuilder(tmp_path / "elsewhere")
    elsewhere.commit({"a.rb": "x = 1\n"})
    os.symlink(elsewhere.path, src / "linked")
    (src / "notes").mkdir()
    (src / "notes" / "todo.c").write_text("int x;\n")  # in no repository: nothing serves it
    assert head_languages([str(src)]) == frozenset({"python", "go", "typescript"})
    assert head_languages([str(src / "github.com")]) == frozenset({"go"})
    assert head_languages([str(src / "notes")]) is None  # a folder holding no repository
    # the names listed in folders have a limit of their own: 3 checkouts (3), the `.git` each
    # holds (3; its commit was never checked out); each tree's file counts toward the trees'
    three = tmp_path / "three"
    for name in ("a", "b", "c"):
        RepoBuilder(three / name).commit({f"{name}.py": "x = 1\n"})
    assert head_languages([str(three)], folders=5) is None
    assert head_languages([str(three)], limit=2) is None
    assert head_languages([str(three)], limit=3, folders=6) == frozenset({"python"})


def test_an_unborn_head_names_none(tmp_path):
    import pygit2

    pygit2.init_repository(str(tmp_path / "empty"))
    assert head_languages([str(tmp_path / "empty")]) == frozenset()


@pytest.mark.parametrize("what", ["a subtree", "the root tree", "the head commit"])
def test_a_damaged_tree_means_every_language_at_once(what, tmp_path):
    """A loose tree (or the head commit) cut short under a root: the forkserver's preload walks
    it before any index, so a walk that never returned held every index of the server. Now it
    is not known: every language, at once."""
    import subprocess
    import sys

    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({"src/deep/mod.py": "x = 1\n" * 400, "app.ts": "export const a = 1;\n" * 100})
    head = builder.repo[builder.repo.head.target]
    sub = {"a subtree": head.tree["src"].id, "the root tree": head.tree_id, "the head commit": head.id}[what]
    place = builder.path / ".git" / "objects" / str(sub)[:2] / str(sub)[2:]
    data = place.read_bytes()
    place.chmod(0o644)
    place.write_bytes(data[:len(data) * 4 // 5])
    code = f"from indexer.git.head_languages import head_languages; print(head_languages([{str(builder.path)!r}]))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "None", (done.stdout, done.stderr)


def test_the_repositories_read_are_freed_as_the_call_ends_never_left_in_a_cycle(tmp_path):
    """pygit2's own Repository keeps views of itself that hold it back: each repository read was
    freed, its packs and object cache with it, only by a full collection, which a resident host
    rarely runs (was: one pygit2.Repository left in a cycle per repository read). It is read
    through `indexer.git.read.Repository`, in no cycle, with the collector paused as a call's."""
    from indexer.pipeline.collector import collector_paused
    from tests.cycles import left_in_cycles

    for name in ("one", "two"):
        RepoBuilder(tmp_path / "root" / name).commit({"a.py": "x = 1\n"})
    left_in_cycles()  # what the builders left
    with collector_paused():
        assert head_languages([str(tmp_path / "root")]) == frozenset({"python"})
        assert head_languages([str(tmp_path / "root" / "one")]) == frozenset({"python"})
        assert left_in_cycles() == []
