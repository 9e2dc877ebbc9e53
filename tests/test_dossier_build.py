"""What the builder reads: the commits of merge-base..head, the head branch name, PR text;
bare repositories; typed errors for bad revisions; the default store home."""

from __future__ import annotations

import os

import pygit2
import pytest

from corpora.gitbuild import RepoBuilder
from delta.dossier import build_dossier
from delta.dossier.build import head_branch
from indexer.contract.errors import RennetError
from indexer.store.database import Store


def forked(tmp_path, bare=False):
    b = RepoBuilder(tmp_path / "r", bare=bare)
    b.commit({"a": "0"}, "before the fork, PROJ-100 (#1)")
    fork = b.commit({"a": "1"}, "fork point (#2)")
    b.commit({"a": "2"}, "on main after the fork (#3)")
    b.checkout(fork)
    one = b.commit({"b": "1"}, "feature work (#4)", branch="feature/9-thing", parents=[fork])
    two = b.commit({"b": "2"}, "more work\n\nbody mentions #5", branch="feature/9-thing", parents=[one])
    return b, fork, one, two


def ids(d):
    return [r.id for r in d.references]


def test_only_the_commits_of_merge_base_to_head_are_read(tmp_path):
    b, fork, one, two = forked(tmp_path)
    with Store.open(tmp_path / "home") as store:
        d = build_dossier(tmp_path / "r", "main", "feature/9-thing", store=store, config={})
    assert ids(d) == ["#9", "#4", "#5"]  # branch first, then commits oldest first; #1 #2 #3 are not in range
    assert d.patchset.merge_base_oid == fork and d.patchset.commits == 2
    assert [p.where for p in d.references[1].provenance] == [one]
    assert [(p.source, p.where) for p in d.references[2].provenance] == [("commit_body", two)]


def test_pr_title_and_body_are_sources(tmp_path):
    forked(tmp_path)
    with Store.open(tmp_path / "home") as store:
        d = build_dossier(tmp_path / "r", "main", "feature/9-thing", title="Thing (#40)", body="Closes #41",
                          store=store, config={})
    assert ids(d) == ["#9", "#40", "#41", "#4", "#5"]
    assert d.references[2].closing and d.references[2].provenance[0].where == "pr.body"


def test_merge_commits_in_the_range_are_read(tmp_path):
    b, fork, one, two = forked(tmp_path)
    side = b.commit({"c": "1"}, "side (#6)", branch="side", parents=[fork])
    merge = b.commit({"c": "1"}, "Merge branch 'side' (#7)", branch="feature/9-thing", parents=[two, side])
    with Store.open(tmp_path / "home") as store:
        d = build_dossier(tmp_path / "r", "main", "feature/9-thing", store=store, config={})
    assert set(ids(d)) == {"#9", "#4", "#5", "#6", "#7"} and d.patchset.commits == 4
    assert d.patchset.head_oid == merge


def test_bare_repository_needs_no_working_tree(tmp_path):
    forked(tmp_path, bare=True)
    with Store.open(tmp_path / "home") as store:
        d = build_dossier(tmp_path / "r", "main", "feature/9-thing", store=store, config={})
    assert ids(d) == ["#9", "#4", "#5"]


def test_head_branch_names(tmp_path):
    b, fork, one, two = forked(tmp_path)
    b.repo.references.create("refs/remotes/origin/fix/77", pygit2.Oid(hex=two))
    b.tag("v1.0", two)
    assert head_branch(b.repo, "feature/9-thing") == "feature/9-thing"
    assert head_branch(b.repo, "refs/heads/feature/9-thing") == "feature/9-thing"
    assert head_branch(b.repo, "origin/fix/77") == "fix/77"
    assert head_branch(b.repo, "v1.0") == ""
    assert head_branch(b.repo, two) == ""


@pytest.mark.parametrize("base, head, code", [
    ("main", "nope", "unknown_rev"),
    ("nope", "main", "unknown_rev"),
])
def test_bad_revisions_are_typed_errors_and_store_nothing(tmp_path, base, head, code):
    forked(tmp_path)
    with Store.open(tmp_path / "home") as store:
        with pytest.raises(RennetError) as err:
            build_dossier(tmp_path / "r", base, head, store=store, config={})
        assert err.value.code == code
        assert list(store.kv("dossiers").items()) == []


def test_not_a_repository(tmp_path):
    with pytest.raises(RennetError) as err:
        build_dossier(tmp_path, "main", "HEAD", store=None)
    assert err.value.code == "not_a_repository"


def test_default_store_is_rennet_home(tmp_path, monkeypatch):
    forked(tmp_path)
    monkeypatch.setenv("RENNET_HOME", str(tmp_path / "env-home"))
    d = build_dossier(tmp_path / "r", "main", "feature/9-thing", config={})
    assert not d.reused
    assert build_dossier(tmp_path / "r", "main", "feature/9-thing", config={}).reused
    assert os.path.isdir(tmp_path / "env-home" / "lmdb")


def test_accepts_an_open_repository(tmp_path):
    b, *_ = forked(tmp_path)
    with Store.open(tmp_path / "home") as store:
        assert ids(build_dossier(b.repo, "main", "feature/9-thing", store=store, config={})) == ["#9", "#4", "#5"]


def test_references_past_the_cap_are_omitted_not_fetched(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"a": "0"}, "init")
    b.commit({"a": "1"}, "#1 #2 #3 #4", branch="f", parents=[base])
    with Store.open(tmp_path / "home") as store:
        d = build_dossier(tmp_path / "r", "main", "f", store=store, config={"max_references": 2})
    assert ids(d) == ["#1", "#2"] and d.references_total == 4
    assert [(o.id, o.reason) for o in d.omissions] == [("#3", "max_references"), ("#4", "max_references")]
    assert [f.ref for f in d.facts] == ["#1", "#2"]  # only the kept ones were tried (no remote: missing_config)


def test_thousands_of_references_are_counted_and_a_bounded_few_named(tmp_path):
    """A commit naming thousands of issues: the dossier counts them all, fetches `max_references`
    and names a bounded number of the rest, so its size does not follow the message's."""
    from delta.dossier.build import MAX_REFERENCE_OMISSIONS

    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"a": "0"}, "init")
    b.commit({"a": "1"}, " ".join(f"#{i} #{i}" for i in range(1, 5001)), branch="f", parents=[base])
    with Store.open(tmp_path / "home") as store:
        d = build_dossier(tmp_path / "r", "main", "f", store=store, config={"max_references": 2})
    assert ids(d) == ["#1", "#2"] and d.references_total == 5000
    assert [o.id for o in d.omissions] == [f"#{i}" for i in range(3, 3 + MAX_REFERENCE_OMISSIONS)]
    assert MAX_REFERENCE_OMISSIONS == 100  # docs/dossier.md's figure
    assert {o.reason for o in d.omissions} == {"max_references"}


def test_a_huge_message_is_read_in_part_and_says_so(tmp_path):
    """A commit message or PR body of any size: each is read up to SOURCE_CHARS and all of them
    up to TOTAL_SOURCE_CHARS; a reference past the cut is not found, and one fact says so."""
    from delta.dossier.build import SOURCE_CHARS, TOTAL_SOURCE_CHARS, bounded_sources
    from delta.dossier.refs import COMMIT_BODY, PR_BODY, Source

    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"a": "0"}, "init")
    b.commit({"a": "1"}, "subject #1\n\n" + "x " * SOURCE_CHARS + "#2", branch="f", parents=[base])
    with Store.open(tmp_path / "home") as store:
        d = build_dossier(tmp_path / "r", "main", "f", store=store, body="#3 " + "y" * SOURCE_CHARS + " #4", config={})
    assert ids(d) == ["#3", "#1"]
    [fact] = [f for f in d.facts if f.code == "source_truncated"]
    assert fact.message.startswith("2 text(s) of the change were read in part")
    many = [Source(COMMIT_BODY, str(i), "z" * SOURCE_CHARS) for i in range(20)] + [Source(PR_BODY, "pr.body", "#5")]
    read, fact = bounded_sources(many)
    assert sum(len(s.text) for s in read) == TOTAL_SOURCE_CHARS and read[-1].text == "" and fact is not None
    assert bounded_sources(many[-1:]) == (many[-1:], None)


def test_a_commit_body_of_exactly_the_read_bound_is_read_whole(tmp_path):
    """A commit's body is its text after the blank line that ends the subject, as git has it:
    one of SOURCE_CHARS characters is read whole, to the reference at its end."""
    from delta.dossier.build import SOURCE_CHARS

    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"a": "0"}, "init")
    body = "x " * (SOURCE_CHARS // 2 - 1) + "#2"
    b.commit({"a": "1"}, "subject #1\n\n" + body + "\n", branch="f", parents=[base])
    with Store.open(tmp_path / "home") as store:
        d = build_dossier(tmp_path / "r", "main", "f", store=store, config={})
    assert ids(d) == ["#1", "#2"] and not [f for f in d.facts if f.code == "source_truncated"]


def test_long_messages_of_many_commits_are_held_no_more_than_the_read_allows(tmp_path):
    """Every commit of the range has a long message: the dossier holds what it reads of them
    (TOTAL_SOURCE_CHARS) and one message at a time, whatever their sum (was: every commit
    kept with its whole message, and every message made text, before any was cut: 60 commits
    of 8 MB from a repository of 8 MB took the process to 1 GB, now 99 MB)."""
    import tracemalloc

    from delta.dossier.build import SOURCE_CHARS, TOTAL_SOURCE_CHARS

    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"a": "0"}, "init")
    head, size = base, SOURCE_CHARS + SOURCE_CHARS // 2
    for n in range(1, 17):
        head = b.commit({"a": str(n)}, f"step #{n}\n\n" + "." * size + f" #{1000 + n}", branch="f", parents=[head])
    tracemalloc.start()
    try:
        with Store.open(tmp_path / "home") as store:
            d = build_dossier(tmp_path / "r", "main", "f", store=store, config={})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert d.patchset.commits == 16
    read = TOTAL_SOURCE_CHARS // SOURCE_CHARS  # commits, oldest first, until the whole read is spent
    assert ids(d) == [f"#{n}" for n in range(1, read + 1)]  # no body's reference: each past its cut
    [fact] = [f for f in d.facts if f.code == "source_truncated"]
    assert fact.message.startswith(f"{16 + 16 - read} text(s) of the change were read in part")
    # what is read, and a few copies of the one message in hand (16 such messages: 25 MB)
    assert peak < TOTAL_SOURCE_CHARS + 6 * size, peak  # was 34 MB


def test_a_commit_too_large_to_read_is_left_out_and_said(tmp_path):
    """A commit object past 16 MiB is not read for references, as libgit2 would read it whole:
    the commits around it are, and the `source_truncated` fact counts it (was: read whole,
    whatever its size)."""
    limit = 16 * 1024 * 1024
    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"a": "0"}, "init")
    one = b.commit({"a": "1"}, "before (#1)", branch="f", parents=[base])
    two = b.commit({"a": "2"}, "huge (#2)\n\n" + "z" * limit, branch="f", parents=[one])
    b.commit({"a": "3"}, "after (#3)", branch="f", parents=[two])
    with Store.open(tmp_path / "home") as store:
        d = build_dossier(tmp_path / "r", "main", "f", store=store, config={})
    assert ids(d) == ["#1", "#3"] and d.patchset.commits == 3
    [fact] = [f for f in d.facts if f.code == "source_truncated"]
    assert fact.message == ("1 commit(s) over 16 MiB were not read; "
                            "references past the cut were not found")


def test_a_commits_encoding_header_never_chooses_how_its_message_is_read(tmp_path):
    """A commit may declare any `encoding`, and pygit2 decodes its message with Python's codec of
    that name: one Python lacks, one that is no text encoding (`rot13`), or bytes the codec
    refuses ended the dossier in a LookupError or UnicodeDecodeError (`internal_error`). Each
    message is read as UTF-8, its bytes that are not replaced, and its references found."""
    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"a": "0"}, "init")
    repo = b.repo
    tree = repo[base].tree.id
    head = base
    for n, (encoding, message) in enumerate(((b"x-no-such-codec", b"fix #11 \xff"), (b"rot13", b"fix #12"),
                                             (b"utf-16", b"fix #13 \x00"), (b"ISO-8859-1", b"fix #14 caf\xe9"))):
        head = str(repo.odb.write(pygit2.enums.ObjectType.COMMIT, (
            b"tree %s\nparent %s\nauthor a <a@b> %d +0000\ncommitter a <a@b> %d +0000\nencoding %s\n\n%s\n"
            % (str(tree).encode(), head.encode(), n, n, encoding, message))))
    repo.references.create("refs/heads/f", pygit2.Oid(hex=head), force=True)
    with Store.open(tmp_path / "home") as store:
        d = build_dossier(tmp_path / "r", "main", "f", store=store, config={})
    assert ids(d) == ["#11", "#12", "#13", "#14"] and d.patchset.commits == 4


def test_a_range_longer_than_the_commit_bound_is_read_from_its_newest_end(tmp_path):
    from delta.dossier.build import MAX_COMMITS

    b = RepoBuilder(tmp_path / "r")
    head = pygit2.Oid(hex=b.commit({"a": "0"}, "init"))
    repo = b.repo
    # only the commit objects are written, all of one tree, and the branch is set once: the
    # messages are what is read, and a blob, a tree and a branch update a commit cost the most
    tree = repo.TreeBuilder()
    tree.insert("a", repo.create_blob(b"1"), pygit2.GIT_FILEMODE_BLOB)
    tree_oid = tree.write()
    for n in range(1, MAX_COMMITS + 2):
        sig = pygit2.Signature("t", "t@example.com", 1_700_000_000 + n, 0)
        head = repo.create_commit(None, sig, sig, f"step #{n}", tree_oid, [head])
    repo.references.create("refs/heads/f", head)
    with Store.open(tmp_path / "home") as store:
        d = build_dossier(tmp_path / "r", "main", "f", store=store, config={"max_references": 0})
    assert d.patchset.commits == MAX_COMMITS and d.references_total == MAX_COMMITS
    assert d.omissions[0].id == "#2"  # the oldest commit's #1 is past the bound


def test_a_reference_shows_its_first_provenances_and_counts_all(tmp_path):
    from delta.dossier.items import MAX_PROVENANCE

    b = RepoBuilder(tmp_path / "r")
    head = b.commit({"a": "0"}, "init")
    for n in range(MAX_PROVENANCE + 5):
        head = b.commit({"a": f"{n}"}, f"step {n} of #7", branch="f", parents=[head])
    with Store.open(tmp_path / "home") as store:
        d = build_dossier(tmp_path / "r", "main", "f", store=store, config={})
    [ref] = d.references
    assert ref.id == "#7" and ref.provenance_total == MAX_PROVENANCE + 5
    assert [p.text for p in ref.provenance] == ["#7"] * MAX_PROVENANCE
