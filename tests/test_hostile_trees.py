"""Tree objects of a commit under review, written by hand: names git's fsck refuses are a
one-line `bad_tree` refusal that stores nothing and loses nothing, whether the commit is
walked whole or from its parent's snapshot; names git allows are each indexed under one
path that finds that file and no other. Raw tree objects are written to the object database
as bytes (pygit2's TreeBuilder refuses some of these names; the object database does not)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tracemalloc
from pathlib import Path

import msgspec
import pygit2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpora.gitbuild import RepoBuilder
from indexer import api
from indexer.contract.errors import BadTree
from indexer.git import read as gitread
from indexer.git.tree_names import PATH_CHARS, TREE_RULES, is_dot_git, text_name
from indexer.pipeline.plan import earlier_record
from indexer.store.database import Store
from indexer.store.records import LazyHead, SnapshotHead, decode_head, load_stored_record
from indexer.store.versions import snapshot_version
from tests.examples import examples
from tests.test_hostile_inputs import one_typed_line, rennet

TREE, BLOB, LINK, GITLINK = b"40000", b"100644", b"120000", b"160000"
COMMIT, TAG = pygit2.enums.ObjectType.COMMIT, pygit2.enums.ObjectType.TAG


def raw_tree(repo: pygit2.Repository, entries: list[tuple[bytes, bytes, pygit2.Oid]]) -> pygit2.Oid:
    """A tree object of exactly these (mode, name, oid) entries, in this order."""
    raw = b"".join(mode + b" " + name + b"\x00" + oid.raw for mode, name, oid in entries)
    return repo.odb.write(pygit2.enums.ObjectType.TREE, raw)


def raw_commit(repo: pygit2.Repository, tree: pygit2.Oid, parent: pygit2.Oid, branch: str | None = "main") -> str:
    """A commit of `tree`, on `branch` when one is named, written as bytes: libgit2 will not
    commit a tree it cannot parse."""
    body = (b"tree " + str(tree).encode() + b"\nparent " + str(parent).encode()
            + b"\nauthor t <t@example.invalid> 1700000100 +0000\ncommitter t <t@example.invalid> 1700000100 +0000"
            + b"\n\nhostile tree\n")
    oid = repo.odb.write(pygit2.enums.ObjectType.COMMIT, body)
    if branch is not None:
        repo.references.create(f"refs/heads/{branch}", oid, force=True)
    return str(oid)


def blob(repo: pygit2.Repository, text: str) -> pygit2.Oid:
    return repo.create_blob(text.encode())


def sub(repo: pygit2.Repository, name: bytes = b"x.py", text: str = "def x():\n    pass\n") -> pygit2.Oid:
    return raw_tree(repo, [(BLOB, name, blob(repo, text))])


def deep(repo: pygit2.Repository, levels: int, name: bytes) -> pygit2.Oid:
    """A folder `name` in a folder `name` ... `levels` deep, with a file at every level: the
    paths' lengths add up to the square of the depth, the trees' only to the depth."""
    leaf = blob(repo, "x = 1\n")
    tree = raw_tree(repo, [(BLOB, b"f.py", leaf)])
    for _ in range(levels):
        tree = raw_tree(repo, [(BLOB, b"f.py", leaf), (TREE, name, tree)])
    return tree


# Each: the root tree's entries besides `ok.py`, which every case keeps.
HOSTILE = {
    "two_files_named_alike": lambda r: [(BLOB, b"a.py", blob(r, "def one():\n    pass\n")),
                                        (BLOB, b"a.py", blob(r, "def two():\n    pass\n"))],
    "the_same_entry_twice": lambda r: [(BLOB, b"a.py", blob(r, "def one():\n    pass\n"))] * 2,
    "a_file_and_a_folder_named_alike": lambda r: [(BLOB, b"a", blob(r, "text\n")), (TREE, b"a", sub(r))],
    "a_slash_in_a_name_aliasing_a_folders_file": lambda r: [(TREE, b"d", sub(r)),
                                                             (BLOB, b"d/x.py", blob(r, "def alias():\n    pass\n"))],
    "a_slash_in_a_name_alone": lambda r: [(BLOB, b"e/y.py", blob(r, "def alias():\n    pass\n"))],
    "a_folder_named_dot_dot": lambda r: [(TREE, b"..", sub(r))],
    "a_folder_named_dot": lambda r: [(TREE, b".", sub(r))],
    "a_name_read_as_its_escape": lambda r: [(BLOB, b"bad\\xffname.py", blob(r, "def literal():\n    pass\n")),
                                            (BLOB, b"bad\xffname.py", blob(r, "def byte():\n    pass\n"))],
    "a_folder_read_as_a_files_escape": lambda r: [(BLOB, b"q\\xff", blob(r, "text\n")), (TREE, b"q\xff", sub(r))],
    "entries_out_of_order": lambda r: [(BLOB, b"z.py", blob(r, "z = 1\n")), (BLOB, b"b.py", blob(r, "b = 1\n"))],
    "an_entry_named_by_no_bytes": lambda r: [(BLOB, b"", blob(r, "x = 1\n"))],
    "a_path_past_the_cap": lambda r: [(TREE, b"n" * 200, deep(r, 40, b"n" * 200))],
    # names git reads as `.git`, at any depth and of any kind of entry
    "a_folder_named_dot_git": lambda r: [(TREE, b".git", sub(r, b"config", "[core]\n"))],
    "a_file_named_dot_git_in_capitals_deep_down": lambda r: [
        (TREE, b"d", raw_tree(r, [(TREE, b"e", raw_tree(r, [(BLOB, b".GIT", blob(r, "x\n"))]))]))],
    "a_link_named_dot_git": lambda r: [(LINK, b".git", blob(r, "/etc"))],
    "a_gitlink_named_dot_git": lambda r: [(GITLINK, b".Git", pygit2.Oid(hex="1" * 40))],
    "a_folder_named_by_its_ntfs_short_name": lambda r: [(TREE, b"GIT~1", sub(r))],
    "a_folder_named_dot_git_with_a_stream": lambda r: [(TREE, b".git::$INDEX_ALLOCATION", sub(r))],
    "a_folder_named_dot_git_with_hfs_ignorables": lambda r: [(TREE, ".g\u200cit\ufeff".encode(), sub(r))],
}


def hostile_repo(path: Path, case: str) -> tuple[pygit2.Repository, str]:
    """A clean first commit (`ok.py`), then a commit whose root tree adds the case's entries,
    placed in git's order (the order case keeps its own)."""
    b = RepoBuilder(path)
    b.commit({"ok.py": "def fine():\n    return 1\n"})
    repo = b.repo
    entries = [(BLOB, b"ok.py", blob(repo, "def fine():\n    return 1\n")), *HOSTILE[case](repo)]
    if case != "entries_out_of_order":
        entries.sort(key=lambda e: e[1] + (b"/" if e[0] == TREE else b""))
    return repo, raw_commit(repo, raw_tree(repo, entries), repo.head.target)


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_tree_git_refuses_is_bad_tree_walked_whole_or_from_its_parent(tmp_path, case):
    repo, head = hostile_repo(tmp_path / "repo", case)
    with Store.open(tmp_path / "cold") as store:  # no snapshot to start from: the whole walk
        with pytest.raises(BadTree) as cold:
            api.index(str(tmp_path / "repo"), head, store=store, workers=1)
        assert "\n" not in str(cold.value)
    with Store.open(tmp_path / "warm") as store:  # the parent's snapshot: only the trees that differ
        parent = api.index(str(tmp_path / "repo"), "main~1", store=store, workers=1)
        with pytest.raises(BadTree):
            api.index(str(tmp_path / "repo"), head, store=store, workers=1)
        kept = api.snapshot(str(tmp_path / "repo"), parent.oid, store=store, index_if_absent=False)
        assert kept.fingerprint == parent.fingerprint and [f.path for f in kept.files] == ["ok.py"]


def test_rennet_index_and_delta_refuse_a_duplicate_name_in_one_line(tmp_path):
    repo, head = hostile_repo(tmp_path / "repo", "two_files_named_alike")
    home = tmp_path / "home"
    ok = rennet("index", str(tmp_path / "repo"), "--rev", "main~1", "--json", home=home)
    assert ok.returncode == 0, ok.stderr
    out = rennet("index", str(tmp_path / "repo"), "--json", home=home)
    assert out.returncode == 1 and json.loads(out.stdout)["error"]["code"] == "bad_tree"
    one_typed_line(rennet("index", str(tmp_path / "repo"), home=home), "bad_tree")
    one_typed_line(rennet("context", "file", "a.py", "--repo", str(tmp_path / "repo"), home=home), "bad_tree")
    one_typed_line(rennet("delta", "--repo", str(tmp_path / "repo"), "--base", "main~1", "--head", "main",
                          "--out", str(tmp_path / "packet"), home=home), "bad_tree")
    out = rennet("context", "file", "ok.py", "--repo", str(tmp_path / "repo"), "--rev", "main~1", "--json",
                 home=home)
    assert out.returncode == 0 and json.loads(out.stdout)["data"]["meta"]["path"] == "ok.py"


# A file's entry naming an object of another type, which git's fsck finds ("broken link"):
# libgit2 makes no patch of it.
NO_BLOB = {
    "a_file_naming_a_tree": lambda r: (BLOB, b"a.py", sub(r), "tree"),
    "a_link_naming_a_tree": lambda r: (LINK, b"l", sub(r), "tree"),
    "a_file_naming_a_commit": lambda r: (BLOB, b"c.py", r.head.target, "commit"),
}


@pytest.mark.parametrize("case", sorted(NO_BLOB))
@pytest.mark.parametrize("side", ["head", "base"])
def test_a_file_naming_no_blob_is_missing_objects_in_one_line_from_a_delta_packet(tmp_path, case, side):
    """On either side of the range: `missing_objects` naming the path and what the object is,
    before any patch is made (was: `internal_error`, pygit2's NotFoundError from the patch)."""
    from delta import build_delta_packet
    from indexer.contract.errors import MissingObjects

    b = RepoBuilder(tmp_path / "repo")
    b.commit({"ok.py": "def fine():\n    return 1\n"})
    repo = b.repo
    mode, name, oid, what = NO_BLOB[case](repo)
    ok = (BLOB, b"ok.py", blob(repo, "def fine():\n    return 1\n"))
    odd = raw_commit(repo, raw_tree(repo, sorted([ok, (mode, name, oid)], key=lambda e: e[1])), repo.head.target)
    clean = raw_commit(repo, raw_tree(repo, [(BLOB, b"ok.py", blob(repo, "def fine():\n    return 2\n"))]),
                       pygit2.Oid(hex=odd))
    base, head = (str(repo.revparse_single("main~2").id), odd) if side == "head" else (odd, clean)
    with pytest.raises(MissingObjects) as refused:
        build_delta_packet(tmp_path / "repo", base, head, index=False, write=False)
    assert f"blob '{name.decode()}' ({str(oid)[:12]}) is a {what} in the object database" in str(refused.value)
    if case == "a_file_naming_a_tree" and side == "head":  # the command, as a user meets it
        one_typed_line(rennet("delta", "--repo", str(tmp_path / "repo"), "--base", base, "--head", head,
                              "--no-index", "--out", str(tmp_path / "packet"), home=tmp_path / "home"),
                       "missing_objects")


@pytest.mark.parametrize("parent", ["a_blob", "a_tree", "missing"])
def test_a_commit_whose_parent_is_no_commit_is_missing_objects_to_every_walk_of_history(tmp_path, parent):
    """A commit object written by hand may name any OID as its parent: a Delta packet's merge
    base, the dossier's commits of the range and a batch's range each walk through it, and each
    says `missing_objects` on one line naming the history (was: `internal_error`, libgit2's
    InvalidError or NotFoundError)."""
    from delta import build_delta_packet
    from delta.dossier.build import _range_commits
    from indexer.contract.errors import MissingObjects
    from indexer.fleet.batch import range_jobs

    b = RepoBuilder(tmp_path / "repo")
    first = b.commit({"ok.py": "def fine():\n    return 1\n"})
    repo = b.repo
    named = {"a_blob": blob(repo, "x = 1\n"), "a_tree": sub(repo), "missing": pygit2.Oid(hex="5" * 40)}[parent]
    tree = raw_tree(repo, [(BLOB, b"ok.py", blob(repo, "def fine():\n    return 2\n"))])
    head = raw_commit(repo, tree, named)
    for walk in (lambda: build_delta_packet(tmp_path / "repo", first, head, index=False, write=False),
                 lambda: _range_commits(repo, first, head),
                 lambda: range_jobs(str(tmp_path / "repo"), f"{first}..{head}")):
        with pytest.raises(MissingObjects) as refused:
            walk()
        assert "does not read" in str(refused.value) and "\n" not in str(refused.value)
    if parent == "a_blob":  # the command, as a user meets it
        one_typed_line(rennet("delta", "--repo", str(tmp_path / "repo"), "--base", first, "--head", head,
                              "--no-index", "--out", str(tmp_path / "packet"), home=tmp_path / "home"),
                       "missing_objects")


# Commit and tag objects whole (they hash to their names) that libgit2 does not parse, as git's
# fsck refuses them: written by hand, a branch may name one.
UNPARSED = {
    "a_commit_of_no_headers": lambda tree, parent: (COMMIT, b"hello world\n"),
    "a_commit_of_no_author": lambda tree, parent: (COMMIT, b"tree %s\nparent %s\n\nm\n" % (tree, parent)),
    "a_commit_of_a_date_past_any": lambda tree, parent: (COMMIT, (
        b"tree %s\nparent %s\nauthor a <a@b> 99999999999999999999999 +9999\ncommitter a <a@b> 1 +0000\n\nm\n"
        % (tree, parent))),
    "a_tag_of_no_type": lambda tree, parent: (TAG, b"object %s\ntype bogus\ntag x\ntagger a <a@b> 1 +0000\n\nm\n"
                                              % parent),
}


@pytest.mark.parametrize("case", sorted(UNPARSED))
def test_a_rev_naming_an_object_libgit2_does_not_parse_is_missing_objects(tmp_path, case):
    """As the head or the base of a Delta packet, as the rev indexed, and as the parent a walk
    of history meets: `missing_objects` on one line (was: `internal_error`, libgit2's GitError
    or InvalidError from resolving the rev)."""
    from delta import build_delta_packet
    from delta.dossier.build import _range_commits
    from indexer.contract.errors import MissingObjects

    b = RepoBuilder(tmp_path / "repo")
    first = b.commit({"ok.py": "def fine():\n    return 1\n"})
    repo = b.repo
    tree = str(repo[first].tree.id).encode()
    kind, body = UNPARSED[case](tree, first.encode())
    odd = str(repo.odb.write(kind, body))
    repo.references.create("refs/heads/odd", pygit2.Oid(hex=odd))
    child = raw_commit(repo, pygit2.Oid(hex=tree.decode()), pygit2.Oid(hex=odd), branch="child")
    with Store.open(tmp_path / "home") as store:
        for refused in (lambda: api.index(str(tmp_path / "repo"), "odd", store=store, workers=1),
                        lambda: build_delta_packet(tmp_path / "repo", first, "odd", index=False, write=False),
                        lambda: build_delta_packet(tmp_path / "repo", "odd", first, index=False, write=False),
                        lambda: build_delta_packet(tmp_path / "repo", first, child, index=False, write=False),
                        lambda: _range_commits(repo, first, child)):
            with pytest.raises(MissingObjects) as said:
                refused()
            assert "does not" in str(said.value) and "\n" not in str(said.value)
    if case == "a_commit_of_no_headers":  # the command, as a user meets it
        one_typed_line(rennet("index", str(tmp_path / "repo"), "--rev", "odd", home=tmp_path / "home2"),
                       "missing_objects")


def test_a_deep_tree_of_long_names_is_refused_before_its_paths_are_spelled_out(tmp_path):
    """Without the cap, 2,000 levels of 250-character names hold 2,000 files whose paths add
    up to 500 MB; the walk stops at the first path past it."""
    b = RepoBuilder(tmp_path / "repo")
    b.commit({"ok.py": "x = 1\n"})
    repo = b.repo
    parent = repo.head.peel(pygit2.Commit)
    head = raw_commit(repo, raw_tree(repo, [(TREE, b"d", deep(repo, 2_000, b"n" * 250))]), parent.id)
    tracemalloc.start()
    try:
        with pytest.raises(BadTree, match=f"over {PATH_CHARS} characters"):
            gitread.walk_tree(repo, head)
        base = gitread.walk_tree(repo, str(parent.id))[1]
        with pytest.raises(BadTree, match=f"over {PATH_CHARS} characters"):
            gitread.tree_since(repo, head, str(parent.tree_id), base)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20


def test_a_path_at_the_cap_is_indexed(tmp_path):
    b = RepoBuilder(tmp_path / "repo")
    name = "p" * (PATH_CHARS - len("d/"))
    b.commit({"ok.py": "x = 1\n"})
    repo = b.repo
    head = raw_commit(repo, raw_tree(repo, [(TREE, b"d", sub(repo, name.encode(), "z = 1\n"))]), repo.head.target)
    assert [e.path for e in gitread.walk_tree(repo, head)[1]] == ["d/" + name]


def test_names_that_differ_only_in_case_are_two_files_each_found_by_its_own_path(tmp_path):
    b = RepoBuilder(tmp_path / "repo")
    b.commit({"A.py": "def upper():\n    return 1\n", "a.py": "def lower():\n    return 2\n",
              "Pkg/m.py": "def big():\n    pass\n", "pkg/m.py": "def small():\n    pass\n"})
    with Store.open(tmp_path / "store") as store:
        api.index(str(b.path), store=store, workers=1)
        snap = api.snapshot(str(b.path), store=store)
        assert [f.path for f in snap.files] == ["A.py", "Pkg/m.py", "a.py", "pkg/m.py"]
        assert [s.name for s in snap.facts("A.py").symbols] == ["upper"]
        assert [s.name for s in snap.facts("a.py").symbols] == ["lower"]
        assert [s.name for s in snap.facts("Pkg/m.py").symbols] == ["big"]
        assert [s.name for s in snap.facts("pkg/m.py").symbols] == ["small"]
        assert snap.file("PKG/m.py") is None and snap.file("A.PY") is None
    home = tmp_path / "home"
    for path, name in (("A.py", "upper"), ("a.py", "lower")):
        out = rennet("context", "file", path, "--repo", str(b.path), "--json", home=home)
        data = json.loads(out.stdout)["data"]
        assert data["meta"]["path"] == path and [o["name"] for o in data["outline"]["items"]] == [name]
    out = rennet("context", "file", "A.PY", "--repo", str(b.path), "--json", home=home)
    assert out.returncode == 1 and json.loads(out.stdout)["error"]["code"] == "not_found"


# --- names git allows, of any bytes -----------------------------------------------------

# Bytes that test the escaping: the escape's own characters, a dot, a slash, controls, bytes
# that are never UTF-8, and the lead bytes of sequences that may or may not complete.
NAME_BYTES = st.lists(st.sampled_from(b"\\xXfF0.ab/\n\t \x7f\x80\xc3\xa9\xed\xa0\xff\xf0\x9f"), min_size=0, max_size=6)
NAMES = st.lists(NAME_BYTES.map(bytes), min_size=1, max_size=6)


def tree_of(repo: pygit2.Repository, names: list[bytes], folder_too: bool) -> pygit2.Oid:
    """A tree naming each of `names` (in git's order, repeats kept), a blob each; with
    `folder_too` the first name is also a folder holding one file."""
    entries = [(BLOB, name, blob(repo, f"n{i} = {i}\n")) for i, name in enumerate(names)]
    if folder_too:
        entries.append((TREE, names[0], sub(repo)))
    entries.sort(key=lambda e: e[1] + (b"/" if e[0] == TREE else b""))
    return raw_tree(repo, entries)


@pytest.fixture(scope="module")
def name_repo(tmp_path_factory) -> tuple[pygit2.Repository, str, list[gitread.TreeEntry]]:
    b = RepoBuilder(tmp_path_factory.mktemp("names") / "repo")
    b.commit({"ok.py": "x = 1\n", "d/in.py": "y = 2\n"})
    head = str(b.repo.head.target)
    return b.repo, head, gitread.walk_tree(b.repo, head)[1]


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=NAMES, folder_too=st.booleans())
def test_any_names_are_one_path_each_or_bad_tree_and_both_walks_agree(name_repo, names, folder_too):
    repo, base_commit, base = name_repo
    tree = raw_tree(repo, [(BLOB, b"ok.py", blob(repo, "x = 1\n")), (TREE, b"t", tree_of(repo, names, folder_too))])
    head = raw_commit(repo, tree, pygit2.Oid(hex=base_commit), branch=None)
    base_tree = str(repo[base_commit].peel(pygit2.Tree).id)
    outcomes = []
    for walk in (lambda: gitread.walk_tree(repo, head), lambda: gitread.tree_since(repo, head, base_tree, base)[:2]):
        try:
            outcomes.append(walk()[1])
        except BadTree as exc:
            assert "\n" not in str(exc)
            outcomes.append(None)
    assert outcomes[0] == outcomes[1]  # refused or walked alike, cold or from the parent's snapshot
    hostile = (len(set(map(text_name, names))) < len(names) or folder_too
               or any(not n or n in (b".", b"..") or b"/" in n for n in names))
    if hostile:
        assert outcomes[0] is None
        return
    paths = [e.path for e in outcomes[0] or []]
    assert paths == sorted(set(paths))  # unique and sorted: a bisection finds each
    assert set(paths) == {"ok.py", *("t/" + text_name(n) for n in names)}
    by_path = {e.path: e.oid for e in outcomes[0] or []}
    for i, name in enumerate(names):  # each path names its own blob
        assert repo[by_path["t/" + text_name(name)]].data == f"n{i} = {i}\n".encode()


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.binary(min_size=1, max_size=12).filter(lambda b: b"\x00" not in b and b"/" not in b))
def test_a_name_reads_as_text_path_made_it_of_pygit2s_name(name_repo, raw):
    """`text_name` of the raw bytes is what `text_path` made of the name pygit2 decodes, so
    every path a snapshot held before names checked their bytes is the same."""
    repo = name_repo[0]
    (entry,) = repo[raw_tree(repo, [(BLOB, raw, blob(repo, "x = 1\n"))])]
    assert entry.raw_name == raw and text_name(raw) == gitread.text_path(entry.name)


# --- names git reads as `.git` ------------------------------------------------------------

HFS_IGNORED = "\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u206a\u206b\u206c\u206d\u206e\u206f\ufeff"
# git's NTFS reading: a part of the name (between backslashes) that is `.git` or `git~1` in any
# case, then dots and spaces only, then the part's end or a colon (an alternate data stream)
NTFS_DOT_GIT = re.compile(rb"(?:\A|\\)(?:\.[gG][iI][tT]|[gG][iI][tT]~1)[. ]*(?::|\\|\Z)")


def git_reads_as_dot_git(raw: bytes) -> bool:
    """git's rule for a tree entry name (fsck's hasDotgit), stated apart from the indexer's:
    as NTFS reads it (`NTFS_DOT_GIT`), or as HFS+ does: the name up to where git stops
    reading it as UTF-8 (a byte that starts no valid sequence, or U+FFFE / U+FFFF), less
    the code points HFS+ ignores, is `.git` in any ASCII case."""
    if NTFS_DOT_GIT.search(raw):
        return True
    end = len(raw)
    while True:  # the longest prefix that is UTF-8
        try:
            text = raw[:end].decode("utf-8")
            break
        except UnicodeDecodeError:
            end -= 1
    text = re.split("[\ufffe\uffff]", text)[0]
    return re.fullmatch(r"\.[gG][iI][tT]", "".join(c for c in text if c not in HFS_IGNORED)) is not None


# Pieces of names near `.git`: its letters in both cases, what NTFS drops or reads as a
# separator or a stream, the code points HFS+ ignores and one it does not (U+200B), a
# dotted capital I, bytes that are not UTF-8 and U+FFFE.
DOT_GIT_PIECES = [b".", b"g", b"G", b"i", b"I", b"t", b"T", b"~", b"1", b"2", b" ", b":", b"\\", b"x", b"$",
                  b".git", b".GIT", b"git~1", b"GiT~1", "\u200b".encode(), "\u0130".encode(), b"\xff", b"\xe2\x80",
                  "\ufffe".encode(), b"\n", *(c.encode() for c in HFS_IGNORED)]
DOT_GIT_NAMES = st.lists(st.sampled_from(DOT_GIT_PIECES), min_size=1, max_size=7).map(b"".join).filter(
    lambda n: n not in (b".", b".."))


@settings(max_examples=examples(250), deadline=None)
@given(raw=DOT_GIT_NAMES)
def test_a_name_is_read_as_dot_git_exactly_where_gits_rule_says(raw):
    assert is_dot_git(raw) == git_reads_as_dot_git(raw)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=DOT_GIT_NAMES, kind=st.sampled_from([BLOB, TREE, LINK]), depth=st.integers(0, 2))
def test_a_tree_naming_dot_git_anywhere_is_bad_tree_walked_whole_or_from_its_parent(name_repo, raw, kind, depth):
    repo, base_commit, base = name_repo
    tree = raw_tree(repo, [(kind, raw, sub(repo) if kind == TREE else blob(repo, "x = 1\n"))])
    for _ in range(depth):
        tree = raw_tree(repo, [(TREE, b"d", tree)])
    head = raw_commit(repo, raw_tree(repo, [(BLOB, b"ok.py", blob(repo, "x = 1\n")), (TREE, b"t", tree)]),
                      pygit2.Oid(hex=base_commit), branch=None)
    base_tree = str(repo[base_commit].peel(pygit2.Tree).id)
    for walk in (lambda: gitread.walk_tree(repo, head), lambda: gitread.tree_since(repo, head, base_tree, base),
                 lambda: gitread.check_tree(repo, head)):
        if git_reads_as_dot_git(raw):
            with pytest.raises(BadTree, match="reads as .git") as refused:
                walk()
            assert "\n" not in str(refused.value)
        else:
            walk()


# Spellings held against git's own fsck: each refused or not as hasDotgit says.
SPELLINGS = [b".git", b".GIT", b".gIt", b"git", b".gitx", b"x.git", b".git.", b".git . .", b".git. x", b"git~1",
             b"GIT~1", b"git~2", b"git~10", b"git~1.", b"git~1 :", b".git::$INDEX_ALLOCATION", b".git:x",
             b".git\\x", b"x\\.git", b"x\\git~1 ", b"x\\.gitx", b".gitmodules", b".github", b".git\xff",
             b".g\xffit", b"\xff.git", b".git\xe2\x80", ".git\ufffe".encode(), ".git\u200b".encode(),
             ".gi\u200ct".encode(), "\ufeff.git".encode(), ".git\u206f".encode(), ".g\u0130t".encode(),
             ".git\u200c".encode() + b"\xff", b".git\n", b"\n.git"]


def test_the_rule_agrees_with_gits_fsck(tmp_path):
    git = shutil.which("git")
    if git is None:
        pytest.skip("no git to hold the rule against")
    import random

    pick = random.Random(7)
    starts = [b"", b"", b".git", b"git~1", b"x\\", "\u200c".encode()]  # half of them near `.git` from the start
    names = {*SPELLINGS, *(pick.choice(starts) + b"".join(pick.choices(DOT_GIT_PIECES, k=pick.randint(1, 5)))
                           for _ in range(400))} - {b".", b".."}
    repo = pygit2.init_repository(str(tmp_path / "repo"), bare=True)
    leaf = blob(repo, "x\n")
    trees = {str(raw_tree(repo, [(BLOB, name, leaf)])): name for name in names}
    out = subprocess.run([git, "fsck", "--strict", "--no-dangling"], cwd=tmp_path / "repo", capture_output=True,
                         text=True, env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)})
    refused = {trees[line.split()[3].rstrip(":")] for line in out.stderr.splitlines()
               if line.startswith("error in tree ") and "hasDotgit" in line}
    assert refused and {n for n in names if is_dot_git(n)} == refused
    assert {n for n in names if git_reads_as_dot_git(n)} == refused


def test_gitmodules_as_a_link_is_indexed_as_a_link(tmp_path):
    """git's fsck refuses a `.gitmodules` that is a symbolic link (gitmodulesSymlink): a
    checkout's submodule commands would read it from outside the tree. The indexer runs no
    submodule command and reads no `.gitmodules`: the link is a link like any other, its
    target kept as text, never followed."""
    b = RepoBuilder(tmp_path / "repo")
    b.commit({"ok.py": "x = 1\n"})
    repo = b.repo
    head = raw_commit(repo, raw_tree(repo, [(LINK, b".gitmodules", blob(repo, "/etc/passwd")),
                                            (BLOB, b"ok.py", blob(repo, "x = 1\n"))]), repo.head.target)
    with Store.open(tmp_path / "store") as store:
        api.index(str(tmp_path / "repo"), head, store=store, workers=1)
        snap = api.snapshot(str(tmp_path / "repo"), head, store=store, index_if_absent=False)
        link = snap.file(".gitmodules")
        assert link is not None and link.language == "symlink" and link.target == "/etc/passwd"


# --- snapshots stored under older tree rules ----------------------------------------------

def stale_parent(tmp_path: Path) -> tuple[str, str, str, str]:
    """A history whose parent commit holds `d/.git/config` (a name the rules now refuse), with
    children that keep `d` as it is: one of the very same tree, one adding a file at the root.
    Returns (repository path, parent, same-tree child, grown child)."""
    b = RepoBuilder(tmp_path / "repo")
    b.commit({"ok.py": "x = 1\n"})
    repo = b.repo
    ok = (BLOB, b"ok.py", blob(repo, "x = 1\n"))
    d = (TREE, b"d", raw_tree(repo, [(TREE, b".git", sub(repo, b"config", "[core]\n")), (BLOB, b"m.py", blob(
        repo, "def m():\n    pass\n"))]))
    parent = raw_commit(repo, raw_tree(repo, [d, ok]), repo.head.target)
    same = raw_commit(repo, repo[parent].tree_id, pygit2.Oid(hex=parent), branch=None)
    grown = raw_commit(repo, raw_tree(repo, [d, (BLOB, b"new.py", blob(repo, "def n():\n    pass\n")), ok]),
                       pygit2.Oid(hex=parent), branch=None)
    return str(tmp_path / "repo"), parent, same, grown


def index_under_older_rules(monkeypatch, path: str, oid: str, store: Store, rules: str) -> None:
    """Index `oid` as an indexer of older tree rules did (`rules`; "" for one that recorded
    none): names read as `.git` pass."""
    from indexer.git import tree_names
    from indexer.pipeline import assemble

    with monkeypatch.context() as m:
        m.setattr(tree_names, "is_dot_git", lambda raw: False)
        m.setattr(assemble, "TREE_RULES", rules)
        api.index(path, oid, store=store, workers=1)


@pytest.mark.parametrize("rules", ["", "1"])
def test_a_snapshot_stored_under_older_tree_rules_lets_no_commit_of_its_trees_pass(tmp_path, monkeypatch, rules):
    path, parent, same, grown = stale_parent(tmp_path)
    with Store.open(tmp_path / "store") as store:
        index_under_older_rules(monkeypatch, path, parent, store, rules)
        stored = load_stored_record(store, parent)
        assert stored is not None and stored.prior().tree_rules == rules
        before = api.snapshot(path, parent, store=store, index_if_absent=False)
        for child in (same, grown):  # the parent's snapshot is the one to start from
            assert earlier_record(store, gitread.open_repo(path), child, snapshot_version()) is not None
            with pytest.raises(BadTree, match="'.git'.*reads as .git"):
                api.index(path, child, store=store, workers=1)
        with pytest.raises(BadTree, match="reads as .git"):  # its own snapshot is checked again when reused
            api.index(path, parent, store=store, workers=1)
        kept = api.snapshot(path, parent, store=store, index_if_absent=False)  # and kept: nothing stored is lost
        assert kept.fingerprint == before.fingerprint and "d/.git/config" in [f.path for f in kept.files]


def test_a_snapshot_under_these_rules_is_trusted_and_one_under_older_rules_is_checked_whole(tmp_path, monkeypatch):
    """From a parent checked under these rules a child's walk checks the trees that differ
    (here the root alone); from one checked under older rules, every tree of the child."""
    b = RepoBuilder(tmp_path / "repo")
    b.commit({"ok.py": "x = 1\n", "a/b/c.py": "c = 1\n", "a/d.py": "d = 1\n", "e/f.py": "f = 1\n"})
    parent = str(b.repo.head.target)
    child = b.commit({"new.py": "n = 1\n"})
    checked: list[str] = []
    real = gitread.checked_entries

    def counted(tree, folder):
        checked.append(folder)
        return real(tree, folder)

    for rules, expected in ((TREE_RULES, [""]), ("1", ["", "a/", "a/b/", "e/"])):
        with Store.open(tmp_path / f"store{rules}") as store:
            index_under_older_rules(monkeypatch, str(b.path), parent, store, rules)
            checked.clear()
            with monkeypatch.context() as m:
                m.setattr(gitread, "checked_entries", counted)
                report = api.index(str(b.path), child, store=store, workers=1)
            assert sorted(checked) == expected and report.files == 5


def test_a_record_stored_before_the_rules_were_recorded_reads_as_unchecked():
    head = SnapshotHead("c" * 40, "t" * 40, "v", [], [], [], [], [], [], [], [], [], [], [], [])
    old = msgspec.msgpack.encode({k: v for k, v in msgspec.structs.asdict(head).items() if k != "tree_rules"})
    assert decode_head(old).tree_rules == "" and LazyHead(old, "store").tree_rules == ""
    assert decode_head(msgspec.msgpack.encode(head)) == head


def test_a_folder_is_ordered_as_its_name_and_a_slash(tmp_path):
    """git orders a tree's entries by name, a folder's as if a `/` followed it: `a-b.py`,
    `a.py`, then the folder `a`, then `a0`. Such a tree is in git's order: walked whole."""
    builder = RepoBuilder(tmp_path / "repo")
    head = builder.commit({"a-b.py": "x = 1\n", "a.py": "x = 2\n", "a/b.py": "x = 3\n", "a0": "x = 4\n"})
    assert [e.name for e in builder.repo[head].tree] == ["a-b.py", "a.py", "a", "a0"]  # as git wrote it
    _, entries = gitread.walk_tree(builder.repo, head)
    assert [e.path for e in entries] == ["a-b.py", "a.py", "a/b.py", "a0"]


def test_a_path_one_past_the_cap_is_refused_and_said_cut(tmp_path):
    """One character past the cap: `bad_tree`, the path said by its first 80 characters and
    its length."""
    b = RepoBuilder(tmp_path / "repo")
    name = "p" * (PATH_CHARS + 1 - len("d/"))
    b.commit({"ok.py": "x = 1\n"})
    repo = b.repo
    head = raw_commit(repo, raw_tree(repo, [(TREE, b"d", sub(repo, name.encode(), "z = 1\n"))]), repo.head.target)
    with pytest.raises(BadTree) as raised:
        gitread.walk_tree(repo, head)
    assert raised.value.message == (f"path {('d/' + name)[:80]!r}... ({PATH_CHARS + 1} characters) is over "
                                    f"{PATH_CHARS} characters; no checkout has it")


def wide(repo: pygit2.Repository, folders: int, files: int, parent: pygit2.Oid) -> str:
    """A commit of `ok.py` and `folders` folders, each the one tree of `files` empty files: git
    stores that folder once, so the repository stays a few kilobytes whatever the product."""
    empty = blob(repo, "")
    inner = raw_tree(repo, [(BLOB, f"f{i:07d}".encode(), empty) for i in range(files)]) if files else \
        raw_tree(repo, [])
    entries = [(TREE, f"d{i:07d}".encode(), inner) for i in range(folders)]  # before `ok.py` in git's order
    return raw_commit(repo, raw_tree(repo, [*entries, (BLOB, b"ok.py", blob(repo, "x = 1\n"))]), parent)


def test_a_commit_of_more_files_than_a_snapshot_holds_is_refused_and_loses_nothing(tmp_path, monkeypatch):
    """2 folders of 512 files and `ok.py`, from a repository of a few kilobytes: one past a cap of
    1,024 files a snapshot holds (the `files` limit, as a user sets it; its default is
    tests/test_limits.py's). `rennet index` refuses it in one line once its walk passes the cap (a
    Delta packet's diff, below), and the parent's snapshot answers as before (was: 1,000,000
    files of such a repository indexed in 24 s and 884 MB, and a Delta packet of them took 3
    minutes and 3 GB; any multiple of that was as easy to write). The walk is the same whatever
    the cap, so the cap a user sets is crossed as surely as the default, without a walk of a
    million entries."""
    monkeypatch.setenv("RENNET_LIMITS", "files=1K")
    b = RepoBuilder(tmp_path / "repo")
    b.commit({"ok.py": "x = 1\n"})
    repo = b.repo
    head = wide(repo, 2, 512, repo.head.target)
    home = tmp_path / "home"
    assert rennet("index", str(tmp_path / "repo"), "--rev", "main~1", home=home).returncode == 0
    out = rennet("index", str(tmp_path / "repo"), "--rev", head, home=home)
    one_typed_line(out, "bad_tree")
    assert f"the tree of {head[:12]} holds over 1,024 files" in out.stderr
    assert "($RENNET_LIMITS=files=2k raises it)" in out.stderr
    kept = rennet("context", "file", "ok.py", "--repo", str(tmp_path / "repo"), "--rev", "main~1", "--json",
                  home=home)
    assert kept.returncode == 0 and json.loads(kept.stdout)["data"]["meta"]["path"] == "ok.py"


@pytest.mark.parametrize("folders,files,what", [(1, 9, "files"), (4, 3, "files"), (9, 0, "folders")])
def test_a_tree_past_the_cap_is_refused_walked_whole_from_its_parent_or_diffed(tmp_path, monkeypatch, folders,
                                                                               files, what):
    """The cap (8 here, as a user sets it) holds for files and for folders (empty ones too), for the whole walk,
    the walk from an earlier snapshot's tree and the diff a Delta packet reads; a tree at the
    cap is read. The refusal comes a tree at a time, before any further tree is read: a tree
    a million times wider costs what one past the cap does. A tree whose folders are all one
    folder (git stores it once) is read no more than the cap's worth of times."""
    monkeypatch.setenv("RENNET_LIMITS", "files=8")
    b = RepoBuilder(tmp_path / "repo")
    b.commit({"ok.py": "x = 1\n"})
    repo = b.repo
    parent = repo.head.peel(pygit2.Commit)
    base = gitread.walk_tree(repo, str(parent.id))[1]
    at_cap = wide(repo, 7, 1, parent.id)  # ok.py and 7 files in 7 folders
    assert len(gitread.walk_tree(repo, at_cap)[1]) == 8
    assert len(gitread.tree_since(repo, at_cap, str(parent.tree_id), base).entries) == 8
    gitread.check_diff_reads(repo, str(parent.id), at_cap)
    head = wide(repo, folders, files, parent.id)
    with pytest.raises(BadTree, match=f"over 8 {what}"):
        gitread.walk_tree(repo, head)
    with pytest.raises(BadTree, match=f"over 8 {what}"):
        gitread.tree_since(repo, head, str(parent.tree_id), base)
    with pytest.raises(BadTree, match=f"over 8 {what}"):
        gitread.check_tree(repo, head) if what == "folders" else gitread.check_diff_reads(repo, str(parent.id), head)
    read: list[str] = []
    real = gitread._subtree
    monkeypatch.setattr(gitread, "_subtree", lambda r, e, path: read.append(path) or real(r, e, path))
    huge = wide(repo, 1_000, 1_000, parent.id)
    for walk in (lambda: gitread.walk_tree(repo, huge), lambda: gitread.check_tree(repo, huge),
                 lambda: gitread.tree_since(repo, huge, str(parent.tree_id), base),
                 lambda: gitread.check_diff_reads(repo, str(parent.id), huge)):
        read.clear()
        with pytest.raises(BadTree, match="over 8"):
            walk()
        assert len(read) <= 2 * 8, len(read)  # the walk from a snapshot falls back to the whole walk


def many_paths_of(repo: pygit2.Repository, text: str, paths: int, parent: pygit2.Oid) -> str:
    """A commit of `ok.py` and a folder of `paths` files, each the one blob of `text`."""
    one = blob(repo, text)
    folder = raw_tree(repo, [(BLOB, f"m{i:05d}.py".encode(), one) for i in range(paths)])
    return raw_commit(repo, raw_tree(repo, [(TREE, b"d", folder), (BLOB, b"ok.py", blob(repo, "x = 1\n"))]), parent,
                      branch=None)


def test_a_commit_defining_more_than_a_snapshot_holds_is_refused_before_assembly(tmp_path):
    """One module of 5,000 definitions at 3,356 paths: 16.78 million definitions over the files,
    past the 16,777,216 a snapshot holds, from a repository of kilobytes. `rennet index`
    refuses it in one line before assembling it, and the parent's snapshot answers as before
    (was: 2,000 paths of a module of 34,615 definitions indexed in 120 s and 1.8 GB, as 69
    million symbols; 20,000 paths were as easy to write). The module is parsed once whatever
    its paths, so a short one at more paths crosses the cap as surely and parses in a tenth."""
    from indexer.contract.limits import DEFAULT

    b = RepoBuilder(tmp_path / "repo")
    b.commit({"ok.py": "x = 1\n"})
    repo = b.repo
    module = "".join(f"def f{i}(): pass\n" for i in range(5_000))
    head = many_paths_of(repo, module, DEFAULT.symbols // 5_000 + 1, repo.head.target)
    home = tmp_path / "home"
    assert rennet("index", str(tmp_path / "repo"), "--rev", "main", home=home).returncode == 0
    out = rennet("index", str(tmp_path / "repo"), "--rev", head, home=home)
    one_typed_line(out, "too_large")
    assert f"define 16,780,001 symbols together, over the {DEFAULT.symbols:,} a snapshot holds" in out.stderr
    kept = rennet("context", "file", "ok.py", "--repo", str(tmp_path / "repo"), "--rev", "main", "--json",
                  home=home)
    assert kept.returncode == 0 and json.loads(kept.stdout)["data"]["meta"]["path"] == "ok.py"


def test_a_snapshot_at_the_symbol_cap_is_indexed_and_one_past_it_refused_cold_or_from_its_parent(tmp_path,
                                                                                                 monkeypatch):
    """With a cap of 40 (as a user sets it): 3 definitions at 13 paths and `ok.py`'s one are 40, indexed; at 14
    paths, 43, refused whether walked whole or from the parent's snapshot, which stays."""
    from indexer.contract.errors import TooLarge

    monkeypatch.setenv("RENNET_LIMITS", "symbols=40")
    b = RepoBuilder(tmp_path / "repo")
    first = b.commit({"ok.py": "def ok():\n    pass\n"})
    repo = b.repo
    module = "def a():\n    pass\n\n\ndef b():\n    pass\n\n\ndef c():\n    pass\n"
    at = many_paths_of(repo, module, 13, repo.head.target)
    past = many_paths_of(repo, module, 14, repo.head.target)
    with Store.open(tmp_path / "home") as store:
        assert api.index(str(tmp_path / "repo"), at, store=store, workers=1).symbols == 40
        for home in ("cold", "warm"):
            with Store.open(tmp_path / home) as other:
                if home == "warm":
                    parent = api.index(str(tmp_path / "repo"), first, store=other, workers=1)
                with pytest.raises(TooLarge, match="define 43 symbols together, over the 40"):
                    api.index(str(tmp_path / "repo"), past, store=other, workers=1)
                if home == "warm":
                    kept = api.snapshot(str(tmp_path / "repo"), parent.oid, store=other, index_if_absent=False)
                    assert kept.fingerprint == parent.fingerprint


def test_one_manifest_at_many_folders_past_what_a_tree_may_read_is_refused(tmp_path):
    """One package.json of 700 kB (under the size cap of a file) at 100 folders: 70 MB of
    manifests, past the 64 MiB a tree's are read up to, from a repository of kilobytes.
    `rennet index` refuses it in one line from the file table (was: each parsed and its
    declarations kept once a folder)."""
    import json as json_module

    from indexer.contract.limits import DEFAULT

    b = RepoBuilder(tmp_path / "repo")
    b.commit({"ok.py": "x = 1\n"})
    repo = b.repo
    pkg = json_module.dumps({"name": "p", "description": "d" * 700_000}).encode()
    folder = raw_tree(repo, [(BLOB, b"package.json", repo.create_blob(pkg))])
    entries = [(TREE, f"p{i:03d}".encode(), folder) for i in range(100)] + [(BLOB, b"x.py", blob(repo, "x = 1\n"))]
    head = raw_commit(repo, raw_tree(repo, entries), repo.head.target, branch=None)
    out = rennet("index", str(tmp_path / "repo"), "--rev", head, home=tmp_path / "home")
    one_typed_line(out, "too_large")
    assert f"the 100 manifests of this tree hold {100 * len(pkg):,} bytes together, over the {DEFAULT.manifest_bytes:,}" \
        in out.stderr


def test_a_commit_past_the_imports_a_snapshot_resolves_is_refused_cold_or_from_its_parent(tmp_path, monkeypatch):
    """Each import is resolved at each path that holds its file. With a cap of 30 (4,194,304 in
    use): 3 imports at 10 paths are 30, indexed; at 11 paths, 33, refused `too_large` whether
    walked whole or from the parent's snapshot, whose files' imports are counted from their
    stored summaries (was: 2,000 folders of one file of 1,000 imports, a repository of
    kilobytes, indexed in 30 s and 1.1 GB as 2 million edges; as many folders as a tree
    holds were as easy to write)."""
    from indexer.contract.errors import TooLarge

    monkeypatch.setenv("RENNET_LIMITS", "imports=30")
    b = RepoBuilder(tmp_path / "repo")
    first = b.commit({"a.py": "x = 1\n", "b.py": "y = 1\n", "c.py": "z = 1\n"})
    repo = b.repo
    importer = "import a\nimport b\nimport c\n"
    one = blob(repo, importer)

    def folders(n: int, parent: str) -> str:
        inner = raw_tree(repo, [(BLOB, b"m.py", one)])
        base = repo[first].peel(pygit2.Tree)
        entries = [(BLOB, e.name.encode(), e.id) for e in base]
        entries += [(TREE, f"d{i:02d}".encode(), inner) for i in range(n)]
        return raw_commit(repo, raw_tree(repo, sorted(entries, key=lambda e: e[1])), pygit2.Oid(hex=parent),
                          branch=None)

    ten = folders(10, first)
    eleven = folders(11, ten)
    with Store.open(tmp_path / "home") as store:
        assert api.index(str(tmp_path / "repo"), ten, store=store, workers=1).edges == 30
        with pytest.raises(TooLarge, match="write 33 imports together, over the 30"):
            api.index(str(tmp_path / "repo"), eleven, store=store, workers=1)  # ten's 30 from the store
        kept = api.snapshot(str(tmp_path / "repo"), ten, store=store, index_if_absent=False)
        assert kept.record.edges and len(kept.record.edges) == 30
    with Store.open(tmp_path / "cold") as store:
        with pytest.raises(TooLarge, match="write 33 imports together, over the 30"):
            api.index(str(tmp_path / "repo"), eleven, store=store, workers=1)


def test_paths_past_the_characters_a_snapshot_holds_are_refused_walked_whole_from_its_parent_or_diffed(
        tmp_path, monkeypatch):
    """A deep chain of folders, each stored once, makes every path below it long: the paths of
    a tree's files are held to the `path_chars` limit together (60 here, as a user sets it) by the whole walk,
    the walk from an earlier snapshot and a Delta packet's diff; at the cap they are read (was:
    100,000 files under 1,900 folders, a repository of 8.8 MB, indexed in 34 s and 1.7 GB into
    a store of 371 MB; now refused in 0.6 s)."""
    monkeypatch.setenv("RENNET_LIMITS", "path_chars=60")
    b = RepoBuilder(tmp_path / "repo")
    b.commit({"ok.py": "x = 1\n"})  # 5 characters
    repo = b.repo
    parent = repo.head.peel(pygit2.Commit)
    base = gitread.walk_tree(repo, str(parent.id))[1]

    def deep_files(levels: int, files: int) -> str:
        tree = raw_tree(repo, [(BLOB, f"f{i}".encode(), blob(repo, "")) for i in range(files)])
        for _ in range(levels):
            tree = raw_tree(repo, [(TREE, b"d", tree)])
        return raw_commit(repo, raw_tree(repo, [(TREE, b"d", tree), (BLOB, b"ok.py", blob(repo, "x = 1\n"))]),
                          parent.id, branch=None)

    within = deep_files(4, 4)  # four paths of 12 characters and ok.py's 5: 53
    assert sum(len(e.path) for e in gitread.walk_tree(repo, within)[1]) == 53
    assert len(gitread.tree_since(repo, within, str(parent.tree_id), base).entries) == 5
    gitread.check_diff_reads(repo, str(parent.id), within)
    past = deep_files(4, 5)  # 65
    for walk in (lambda: gitread.walk_tree(repo, past),
                 lambda: gitread.tree_since(repo, past, str(parent.tree_id), base)):
        with pytest.raises(BadTree, match="paths of over 60 characters together"):
            walk()
    with pytest.raises(BadTree, match="differ in files with paths of over 60 characters together"):
        gitread.check_diff_reads(repo, str(parent.id), deep_files(4, 6))  # 72 past ok.py, which is no change
