"""A commit cannot choose what a Delta packet costs: git stores a blob once however many paths
hold it, so a small repository can present many large changed files. What the inventory and
the packet hold grows with what the packet lists and captures, not with the files' contents."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pygit2
from hypothesis import given, settings
from hypothesis import strategies as st

from corpora.gitbuild import RepoBuilder
from indexer.contract.result import Unknown
from tests.examples import examples

ROOT = Path(__file__).resolve().parent.parent
BLOB = b"100644"
TREE = b"40000"


def raw_tree(repo: pygit2.Repository, entries: list[tuple[bytes, bytes, pygit2.Oid]]) -> pygit2.Oid:
    raw = b"".join(mode + b" " + name + b"\x00" + oid.raw for mode, name, oid in entries)
    return repo.odb.write(pygit2.enums.ObjectType.TREE, raw)


def python_source(size: int, salt: str = "") -> bytes:
    lines, total, i = [], 0, 0
    while total < size:
        line = f"def f{i}{salt}(a, b):\n    return a + b * {i}\n\n"
        lines.append(line)
        total += len(line)
        i += 1
    return "".join(lines).encode()


def many_paths_of_one_blob(path: Path, folders: int, files: int, size: int) -> pygit2.Repository:
    """`main`: one small file; `big`: that plus `folders` folders, each the one tree of `files`
    paths of one Python blob of `size` bytes."""
    b = RepoBuilder(path)
    b.commit({"ok.py": "x = 1\n"})
    repo = b.repo
    base = repo.head.target
    big = repo.create_blob(python_source(size))
    inner = raw_tree(repo, [(BLOB, f"f{i:04d}.py".encode(), big) for i in range(files)])
    ok = repo[base].peel(pygit2.Tree)["ok.py"].id
    tree = raw_tree(repo, [*[(TREE, f"d{i:03d}".encode(), inner) for i in range(folders)], (BLOB, b"ok.py", ok)])
    sig = pygit2.Signature("t", "t@example.invalid", 1700000100, 0)
    repo.create_commit("refs/heads/big", sig, sig, "wide", tree, [base])
    return repo


_MEASURE = """
import json, resource, sys
from delta.inventory import inventory
from delta.packet import build_delta_packet
from delta.range import open_repository, resolve_range
repo = open_repository(sys.argv[1])
rng = resolve_range(repo, "main", "big")
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
changes = inventory(repo, rng)
after_inventory = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
built = build_delta_packet(sys.argv[1], "main", "big", elements=False, index=False, write=False)
after_packet = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = built.packet.totals
print(json.dumps({"inventory_kb": after_inventory - before, "packet_kb": after_packet - before,
                  "files": len(changes), "diff_bytes": t.diff_bytes, "captured": t.diff_bytes_captured,
                  "additions": t.additions}))
"""


def test_many_paths_of_one_large_blob_hold_no_patch_each(tmp_path):
    """120 paths of one 512 kB Python blob, from a repository of a few hundred kilobytes: the
    inventory keeps each file's counts, not its patch (was: a libgit2 patch with both sides'
    bytes and line arrays kept for every changed file at once, about 3.5 MB a 900 kB file:
    700 MB for 200 such paths; 24 GB and the OOM killer for 2,000 with the element differ).
    Peak memory stays within a few blobs' worth while the totals still count every file."""
    size = 512 * 1024
    many_paths_of_one_blob(tmp_path / "r", 2, 60, size)
    done = subprocess.run([sys.executable, "-c", _MEASURE, str(tmp_path / "r")], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["files"] == 120
    assert got["captured"] <= 2 * 1024 * 1024 < got["diff_bytes"]  # counted in full, captured to the cap
    assert got["additions"] == 120 * python_source(size).count(b"\n")
    assert got["inventory_kb"] < 40 * 1024, got  # old code: about 220 MB
    assert got["packet_kb"] < 60 * 1024, got


def test_one_change_at_many_paths_is_diffed_once(tmp_path, monkeypatch):
    """300 paths of one added blob and 40 of one modified blob: each change's patch is made
    once for its counts, and every path keeps its own (was: a patch a path, each made from
    both sides' bytes: 2,000 paths of a 900 kB blob took 65 s, now 4 s)."""
    import delta.inventory as inv
    from delta.range import open_repository, resolve_range

    made = []
    real = inv._counts
    monkeypatch.setattr(inv, "_counts", lambda m: made.append(1) or real(m))
    repo = many_paths_of_one_blob(tmp_path / "r", 3, 100, 4096)
    changes = inv.inventory(open_repository(tmp_path / "r"), resolve_range(repo, "main", "big"))
    assert len(changes) == 300 and len(made) == 1
    assert {(c.additions, c.hunk_count) for c in changes} == {(python_source(4096).count(b"\n"), 1)}
    # each path's text is its own size: d000/f0000.py and d001/f0000.py spell as many bytes
    assert len({c.size for c in changes}) == 1

    b = RepoBuilder(tmp_path / "m")
    old, new = python_source(8192).decode(), python_source(8192).decode().replace("* 7\n", "* 70\n")
    b.commit({f"p{i:02d}.py": old for i in range(40)})
    b.commit({f"p{i:02d}.py": new for i in range(40)})
    made.clear()
    changes = inv.inventory(b.repo, resolve_range(b.repo, "main~1", "main"))
    assert len(changes) == 40 and len(made) == 1
    assert {(c.additions, c.deletions, c.hunk_count) for c in changes} == {(1, 1, 1)}


_NAME = st.text(st.sampled_from(list("ab é\"\\\t\n-_.") + ["\u202e", "\x7f"]), min_size=1, max_size=6).filter(
    lambda n: n not in (".", "..", ".git"))


@settings(max_examples=examples(30), deadline=None)
@given(names=st.lists(_NAME, min_size=2, max_size=5, unique=True),
       suffixes=st.lists(st.sampled_from(["", ".py", ".txt", ".bin"]), min_size=5, max_size=5))
def test_a_change_shared_by_paths_counts_as_its_own_patch_would(tmp_path_factory, names, suffixes):
    """Whatever the paths spell (quotes, escapes, bidi marks, newlines) and whatever diff driver
    their attributes pick (`diff=python`'s function context, `binary`), a file that takes the
    counts of an earlier path's patch of the same change has those its own patch gives: added,
    modified and copied, each at every path."""
    import delta.inventory as inv
    from delta.range import resolve_range

    path = tmp_path_factory.mktemp("shared") / "r"
    repo = pygit2.init_repository(str(path), initial_head="main")
    (path / ".git" / "info").mkdir(exist_ok=True)
    (path / ".git" / "info" / "attributes").write_text("*.py diff=python\n*.bin binary\n")
    sig = pygit2.Signature("t", "t@example.invalid", 1700000000, 0)
    paths = [n + s for n, s in zip(names, suffixes)]
    src = python_source(3000)
    edited = src.replace(b"* 30\n", b"* 31\n")
    added = repo.create_blob(python_source(500, "_new"))

    def commit(files: dict[str, bytes], parents: list) -> pygit2.Oid:
        tb = repo.TreeBuilder()
        for name, data in files.items():
            tb.insert(name, repo.create_blob(data), pygit2.enums.FileMode.BLOB)
        return repo.create_commit("refs/heads/main", sig, sig, "m", tb.write(), parents)

    base = commit({"src.py": src, **{f"m{p}": src for p in paths}}, [])
    head_files = {"src.py": edited, **{f"m{p}": edited for p in paths}, **{f"c{p}": edited for p in paths},
                  **{f"a{p}": repo[added].data for p in paths}}
    head = commit(head_files, [base])
    changes = inv.inventory(repo, resolve_range(repo, str(base), str(head)))
    assert {c.status for c in changes} >= {"added", "modified", "copied"}
    for c in changes:
        # binary by `*.bin binary` at the path of the side that decides, the base's where it has
        # one (`delta.inventory.BinaryRule`): no patch is made of it
        assert c.binary == (c.path if c.status == "added" else c.old_path).endswith(".bin"), c.path
        made = c.patch()
        if c.binary:
            assert made is None and (c.additions, c.deletions, c.hunk_count, c.size) == (0, 0, 0, 0)
            continue
        assert made is not None
        direct = inv._counts(made)
        # a copy's text also holds its pairing lines (checked against git in test_delta_packet.py)
        paired = 0 if c.status != "copied" or direct.binary else inv._pair_lines(
            "copy", c.similarity, c.old_path, c.new_path, c.old_mode, c.new_mode, direct.size == 0)
        assert (c.binary, c.additions, c.deletions, c.hunk_count, c.size) == \
            (direct.binary, direct.additions, direct.deletions, direct.hunks, direct.size + paired), c.path


def test_a_blob_at_many_paths_is_read_once_by_the_noise_rules(tmp_path, monkeypatch):
    """The noise rules read a blob once however many paths hold it, and each path still gets
    its own class: a generated header, a minified file (by content only where the name says
    JavaScript), a change of whitespace only (where indentation is syntax only if it keeps
    the indents). Was: each path's blob read whole again (2,000 paths of a 900 kB file: 3 s
    of the packet's 5.5 s)."""
    import delta.packet as packet

    gen = b"# Code generated by protoc. DO NOT EDIT.\n" + python_source(2000)
    minified = b"var a=" + b"1+" * 2000 + b"1;\n"
    old = b"def f():\n    return 1\n" * 50
    spaced = b"def f():\n    return  1\n" * 50  # whitespace inside lines: whitespace only, indents kept
    b = RepoBuilder(tmp_path / "r")
    b.commit({"ok.py": "x = 1\n", **{f"w/{i:02d}.py": old.decode() for i in range(20)}})
    b.commit({"ok.py": "x = 1\n", **{f"w/{i:02d}.py": spaced.decode() for i in range(20)},
              **{f"g/{i:02d}.py": gen.decode() for i in range(40)},
              **{f"m/{i:02d}.js": minified.decode() for i in range(40)},
              **{f"t/{i:02d}.txt": minified.decode() for i in range(40)}})
    reads = []
    real = packet.read_bounded  # what the noise rules read a blob with
    monkeypatch.setattr(packet, "read_bounded", lambda repo, oid: reads.append(oid) or real(repo, oid))
    built = packet.build_delta_packet(tmp_path / "r", "main~1", "main", elements=False, index=False, write=False)
    classes: dict[str, set[str | None]] = {}
    for f in built.packet.files:
        if "/" in f.path:
            classes.setdefault(f.path.split("/")[0], set()).add(f.noise.cls if f.noise else None)
    assert classes == {"g": {"generated"}, "m": {"minified"}, "t": {None}, "w": {"whitespace_only"}}
    assert len(reads) == len(set(reads)) <= 4, len(reads)  # old code: 160


def _moved_and_edited(path: Path, n: int) -> RepoBuilder:
    """`n` similar files moved to another folder, each with a line changed: n renames as git
    pairs them, each destination alike with every source."""
    b = RepoBuilder(path)
    body = python_source(3000).decode()
    b.commit({f"src/a{i:03d}.py": body + f"# {i}\n" for i in range(n)})
    b.commit({f"dst/b{i:03d}.py": body + f"# {i} edited\n" for i in range(n)}, replace=True)
    return b


def test_renames_past_a_bound_are_not_looked_for_and_the_packet_says_so(tmp_path, monkeypatch):
    """Inexact rename and copy pairing compares each added file's spans with every possible
    source: n deleted and n added files alike cost n squared times their spans. Past git's
    rename limit, past PAIRING_BYTES of blobs to read or PAIRING_WORK of span comparisons, no
    inexact pair is looked for (exact ones still are), and the packet says so in `renames`
    (was: no bound but git's limit on the number of files, unsaid: 300 files of 20 kB alike
    took 27 s, 1,000 of them would take minutes). The comparisons are counted from the
    postings before any is made: past PAIRING_WORK each blob was read once and no span
    visited (was: visited up to the bound, then given up)."""
    import delta.packet as packet
    from indexer.git import renames

    _moved_and_edited(tmp_path / "r", 30)
    built = packet.build_delta_packet(tmp_path / "r", "main~1", "main", elements=False, index=False, write=False)
    assert built.packet.renames is None
    assert {f.status for f in built.packet.files} == {"renamed", "copied", "deleted"}

    fingerprints: list[bytes] = []
    visits: list[int] = []
    real, real_shared = renames.fingerprints, renames._shared
    monkeypatch.setattr(renames, "fingerprints", lambda blobs: fingerprints.extend(blobs) or real(blobs))
    monkeypatch.setattr(renames, "_shared", lambda *a: visits.append(1) or real_shared(*a))
    # the work is known from the postings before a span is visited: each blob is read once, no more
    for bound, value, said, read in (("PAIRING_WORK", 1000, "shared spans", 60), ("PAIRING_BYTES", 1000, "bytes", 0),
                                     ("RENAME_LIMIT", 5, "rename limit", 0)):
        with monkeypatch.context() as m:
            m.setattr(renames, bound, value, raising=False)
            fingerprints.clear()
            built = packet.build_delta_packet(tmp_path / "r", "main~1", "main", elements=False, index=False,
                                              write=False)
        p = built.packet
        assert p.renames is not None and p.renames.unknown == "not_assessed" and said in p.renames.reason, bound
        assert {f.status for f in p.files} == {"added", "deleted"}, bound
        assert len(fingerprints) == len(set(fingerprints)) == read and not visits, bound
        assert len(p.files) == 60
    with monkeypatch.context() as m:  # 30 sources times 30 added files: at git's limit squared, within it
        m.setattr(renames, "RENAME_LIMIT", 30)
        built = packet.build_delta_packet(tmp_path / "r", "main~1", "main", elements=False, index=False, write=False)
    assert built.packet.renames is None and "renamed" in {f.status for f in built.packet.files}


def test_renames_of_the_previous_patchset_past_a_bound_are_said_not_assessed(tmp_path, monkeypatch):
    """The previous patchset's inventory is paired within the same bounds, and its account
    says when they were met, in `successor.renames` and the text (was: said for the current
    patchset alone; the previous one's renames were read as added and deleted files, unsaid)."""
    import msgspec

    import delta.packet as packet
    from context_tools.faces.packs.delta import _result, render_packet
    from indexer.git import renames

    b = _moved_and_edited(tmp_path / "r", 30)
    b.tag("v1", str(b.repo.head.target))
    b.commit({"dst/b000.py": python_source(3000).decode() + "# 0 edited again\n"})

    def build() -> packet.DeltaPacket:
        return packet.build_delta_packet(tmp_path / "r", "main~2", "main", previous_base="main~2",
                                         previous_head="v1", elements=False, index=False, write=False).packet

    p = build()
    assert isinstance(p.successor, packet.SuccessorAccount) and p.successor.renames is None
    assert b'"renames"' not in msgspec.json.encode(p.successor) and b'"unread":[]' in msgspec.json.encode(p.successor)
    with monkeypatch.context() as m:
        m.setattr(renames, "PAIRING_WORK", 1000)
        p = build()
    successor = p.successor
    assert isinstance(successor, packet.SuccessorAccount) and successor.renames is not None
    assert successor.renames.unknown == "not_assessed" and "shared spans" in successor.renames.reason
    assert p.renames is not None  # the current patchset's own mark, as before
    assert "renames in the previous patchset not assessed: comparing" in render_packet(_result(p, "main", "2026-12-07T00:00:00Z"))


def test_the_previous_patchsets_renames_are_paired_on_what_the_current_ones_left(tmp_path, monkeypatch):
    """The bytes pairing reads and the spans it visits are one budget for the packet too: the
    current patchset's pairing first, the previous one's on what is left; past it the previous
    patchset's renames are `not_assessed` and say so (was: a PAIRING_BYTES and a PAIRING_WORK
    each, so a pair of patchsets paired twice what a packet may; scaled down here to just under
    what the two pairings read)."""
    import delta.packet as packet
    from delta.inventory import DiffBudget, inventory_of
    from delta.range import resolve_range
    from indexer.git import renames

    b = _moved_and_edited(tmp_path / "r", 10)
    b.tag("v1", str(b.repo.head.target))
    b.commit({"dst/b000.py": python_source(3000).decode() + "# 0 edited again\n"})
    repo = b.repo

    def held(rev: str, folder: str) -> int:
        tree = repo.revparse_single(rev).peel(pygit2.Tree)[folder]
        return sum(e.size for e in repo[tree.id].peel(pygit2.Tree))

    def visits(head: str) -> int:
        budget = DiffBudget(repo)
        inventory_of(repo, resolve_range(repo, "main~2", head), budget=budget)
        return budget.pairing.work

    def previous_renames() -> Unknown | None:
        p = packet.build_delta_packet(tmp_path / "r", "main~2", "main", previous_base="main~2", previous_head="v1",
                                      elements=False, index=False, write=False).packet
        assert p.renames is None and isinstance(p.successor, packet.SuccessorAccount)
        return p.successor.renames

    current, previous = held("main~2", "src") + held("main", "dst"), held("main~2", "src") + held("v1", "dst")
    assert previous_renames() is None
    with monkeypatch.context() as m:
        m.setattr(renames, "PAIRING_BYTES", current + previous - 1)
        mark = previous_renames()
        assert mark is not None and mark.unknown == "not_assessed"
        assert f"hold {previous} bytes, over {previous - 1}, what earlier pairings of the packet left of " \
               f"{current + previous - 1}:" in mark.reason
    current, previous = visits("main"), visits("v1")
    assert current > 0 and previous > 0
    monkeypatch.setattr(renames, "PAIRING_WORK", current + previous - 1)
    mark = previous_renames()
    assert mark is not None and mark.unknown == "not_assessed"
    assert f"over {previous - 1} shared spans, what earlier pairings of the packet left of {current + previous - 1}:" \
        in mark.reason


def test_the_packets_summary_an_agent_gets_says_when_renames_were_not_assessed(tmp_path, monkeypatch):
    """`delta.packet`, the summary an agent gets over MCP, carries the packet's `renames` mark
    and the previous patchset's (`previous_renames`): past a pairing bound, the renamed files
    it lists as added and deleted are said to be so (was: the marks were in the packet on disk
    only; the summary said nothing)."""
    import context_tools
    from indexer.git import renames

    b = _moved_and_edited(tmp_path / "r", 10)  # shared spans far past the bound set below
    b.tag("v1", str(b.repo.head.target))
    b.commit({"dst/b000.py": python_source(3000).decode() + "# 0 edited again\n"})
    client = context_tools.Client(store=str(tmp_path / "home"))
    ask = dict(repo=str(tmp_path / "r"), base="main~2", head="main", previous_base="main~2", previous_head="v1")
    whole = client.call("delta.packet", **ask).data
    assert whole.renames is None and whole.previous_renames is None
    monkeypatch.setattr(renames, "PAIRING_WORK", 1000)
    bounded = client.call("delta.packet", **ask).data
    for mark in (bounded.renames, bounded.previous_renames):
        assert mark is not None and mark.unknown == "not_assessed" and "shared spans" in mark.reason
    assert {f.status for f in bounded.files} <= {"added", "deleted"}


def test_a_blob_of_millions_of_lines_is_not_diffed_and_the_packet_says_so(tmp_path):
    """One added file of 4 million lines (8 MB, a few kilobytes packed): libgit2 keeps a record
    a line, so its patch alone held about 400 MB (a 50 MB one: 2.4 GB and 9 s, from a 356 kB
    repository). A side over BIG_BLOB is not diffed nor read: its counts are `not_assessed`
    with the reason, its hunks dropped as `big_blob`, and the totals count it as not diffed."""
    b = RepoBuilder(tmp_path / "r")
    b.commit({"ok.py": "x = 1\n"})
    repo = b.repo
    big = repo.create_blob(b"a\n" * (4 * 1024 * 1024))
    tb = repo.TreeBuilder(repo.head.peel(pygit2.Tree))
    tb.insert("big.txt", big, pygit2.enums.FileMode.BLOB)
    sig = pygit2.Signature("t", "t@example.invalid", 1700000100, 0)
    repo.create_commit("refs/heads/big", sig, sig, "big", tb.write(), [repo.head.target])
    done = subprocess.run([sys.executable, "-c", _MEASURE, str(tmp_path / "r")], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["packet_kb"] < 48 * 1024, got  # old code: about 400 MB

    from delta.packet import build_delta_packet

    p = build_delta_packet(tmp_path / "r", "main", "big", elements=False, index=False, write=False).packet
    (f,) = p.files
    assert f.additions == f.deletions and f.additions.unknown == "not_assessed"  # type: ignore[union-attr]
    assert "not diffed" in f.additions.reason and f.hunks_dropped == "big_blob"  # type: ignore[union-attr]
    assert [(d.path, d.reason) for d in p.drops] == [("big.txt", "big_blob")]
    assert p.totals.files_not_diffed == 1 and p.totals.additions == 0


def test_blobs_past_the_diff_budget_are_not_diffed_in_path_order(tmp_path, monkeypatch):
    """Many distinct large files (compressed, a repository holds thousands of megabytes of
    them): no more than DIFF_BYTES of blobs are diffed for one packet, in path order; the files
    past it have `diff_cap` counts, and no patch is made for them (scaled down here)."""
    import delta.inventory as inv
    from delta.packet import build_delta_packet

    monkeypatch.setattr(inv, "DIFF_BYTES", 5 * 41_000)  # five files of 40,002 bytes
    b = RepoBuilder(tmp_path / "r")
    b.commit({"ok.py": "x = 1\n"})
    b.commit({f"f{i}.txt": f"{i}\n" + "line\n" * 8000 for i in range(8)})
    made = []
    real = inv._counts
    monkeypatch.setattr(inv, "_counts", lambda m: made.append(1) or real(m))
    p = build_delta_packet(tmp_path / "r", "main~1", "main", elements=False, index=False, write=False).packet
    assert len(made) == 5
    assert [f.hunks_dropped for f in p.files] == [None] * 5 + ["diff_cap"] * 3
    assert [f.additions for f in p.files][:5] == [8001] * 5
    assert all(not isinstance(f.additions, int) and f.additions.unknown == "not_assessed" for f in p.files[5:])
    assert p.totals.files_not_diffed == 3 and p.totals.additions == 5 * 8001


def test_a_blob_not_diffed_at_many_paths_counts_no_bytes_at_any(tmp_path, monkeypatch):
    """One change past BIG_BLOB at two paths: the second takes the first's counts, and neither
    counts bytes of patch text in the totals, whatever its path spells (scaled down here)."""
    import delta.inventory as inv
    from delta.packet import build_delta_packet

    monkeypatch.setattr(inv, "BIG_BLOB", 1_000)
    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"ok.py": "x = 1\n"})
    big = "line\n" * 400
    head = b.commit({"ok.py": "x = 2\n", "a.txt": big, "sub/longer.txt": big})
    p = build_delta_packet(tmp_path / "r", base, head, elements=False, index=False, write=False).packet
    only = build_delta_packet(tmp_path / "r", base, head, paths=["ok.py"], elements=False, index=False,
                              write=False).packet.totals.diff_bytes
    # the file the base holds first, then those the range adds
    assert [(f.path, f.hunks_dropped) for f in p.files] == [("ok.py", None), ("a.txt", "big_blob"),
                                                           ("sub/longer.txt", "big_blob")]
    assert p.totals.files_not_diffed == 2 and p.totals.diff_bytes == only > 0


def two_kinds(lines: int, seed: int) -> bytes:
    """Lines of two kinds drawn at random: each side holds every line of the other many times
    over, in no long run, the costliest shape for a Myers diff of its bytes."""
    rnd = random.Random(seed)
    return b"".join(rnd.choices((b"t0\n", b"t1\n"), k=lines))


def test_many_short_lines_alike_on_both_sides_are_not_diffed_and_the_packet_says_why(tmp_path, monkeypatch):
    """The diff's work is not linear in its bytes: two 4 MiB sides of lines of two kinds took 12 s
    of CPU, 64 MiB of them 96 s (from an 8 MB pack). Each file's work is counted from its lines
    before it is diffed, and a file that would take a packet's past DIFF_WORK is not diffed, said
    as `diff_work` in its counts, drops, totals and text (DIFF_WORK scaled down here). Ordinary
    changes of more lines and bytes are still diffed: a generated file with one block changed
    (its lines alike at the start and end are no work) and one rewritten (lines the other side
    lacks are no work either); the file refused spent none of the work."""
    import delta.inventory as inv
    from context_tools.faces.packs.delta import _result, render_packet
    from delta.packet import build_delta_packet

    monkeypatch.setattr(inv, "DIFF_WORK", 1_000_000)
    numbers = [b"%05d\n" % i for i in range(20_000)]
    block = numbers[:9_000] + [b"%05d changed\n" % i for i in range(9_000, 9_050)] + numbers[9_050:]
    b = RepoBuilder(tmp_path / "r")
    b.commit({"a_pairs.txt": two_kinds(3_000, 1), "block.txt": b"".join(numbers),
              "rewritten.txt": b"".join(numbers)})
    b.commit({"a_pairs.txt": two_kinds(3_000, 2), "block.txt": b"".join(block),
              "rewritten.txt": b"".join(b"r%04x\n" % i for i in range(20_000))})
    for _ in range(2):  # the same range gives the same packet
        p = build_delta_packet(tmp_path / "r", "main~1", "main", elements=False, index=False, write=False).packet
        files = {f.path: f for f in p.files}
        pairs = files["a_pairs.txt"]
        assert pairs.hunks_dropped == "diff_work" and pairs.hunk_count == 0 and pairs.additions == pairs.deletions
        assert isinstance(pairs.additions, Unknown) and pairs.additions.unknown == "not_assessed"
        assert "not diffed" in pairs.additions.reason and "n * max(256, sqrt(n))" in pairs.additions.reason
        assert [(d.path, d.reason) for d in p.drops] == [("a_pairs.txt", "diff_work")]
        assert (files["block.txt"].additions, files["block.txt"].deletions) == (50, 50)
        assert (files["rewritten.txt"].additions, files["rewritten.txt"].deletions) == (20_000, 20_000)
        assert p.totals.files_not_diffed == 1 and p.totals.additions == 20_050
        assert "not diffed: a_pairs.txt: diff_work" in render_packet(_result(p, "main", "2026-12-07T00:00:00Z"))


def test_a_file_whose_diff_work_is_counted_spends_its_bytes_diffed_or_not(tmp_path, monkeypatch):
    """Counting a file's work reads both its sides: what a packet reads so is bounded by
    DIFF_BYTES whether the files are diffed or not, so many files refused for their work cost
    no more than 64 MiB of reading (scaled down here: two files' bytes of three)."""
    import delta.inventory as inv
    from delta.packet import build_delta_packet

    monkeypatch.setattr(inv, "DIFF_WORK", 1_000)
    monkeypatch.setattr(inv, "DIFF_BYTES", 5 * 9_000)
    counted = []
    real = inv.diff_work
    monkeypatch.setattr(inv, "diff_work", lambda old, new: counted.append(1) or real(old, new))
    b = RepoBuilder(tmp_path / "r")
    b.commit({f"p{i}.txt": two_kinds(3_000, i) for i in range(3)})
    b.commit({f"p{i}.txt": two_kinds(3_000, 10 + i) for i in range(3)})
    p = build_delta_packet(tmp_path / "r", "main~1", "main", elements=False, index=False, write=False).packet
    assert [(f.path, f.hunks_dropped) for f in p.files] == [
        ("p0.txt", "diff_work"), ("p1.txt", "diff_work"), ("p2.txt", "diff_cap")]
    assert len(counted) == 2


def _lines_edited(edits: dict[int, str], tag: str = "l") -> str:
    """6,000 distinct lines of 7 bytes, some replaced by lines of the same length: every side
    holds 42,000 bytes, and each edit far from another is a hunk of its own. `tag` spells the
    last line, so files of one edit are blobs of their own."""
    return "".join(f"{edits[j]}{j:05d}\n" if j in edits else f"{tag if j == 5999 else 'l'}{j:05d}\n"
                   for j in range(6000))


def test_the_previous_patchset_draws_on_the_bytes_the_current_one_left(tmp_path, monkeypatch):
    """A packet with a previous patchset diffs no more than DIFF_BYTES of blobs for both: the
    current inventory first, then the previous one on what is left (was: a budget each, so a
    hostile pair of patchsets read and diffed twice what a packet may). A pair of sides both
    patchsets change alike is diffed once for the two. A previous file left undiffed is
    `unread` with its reason, and the current hunks at its path are `uncompared`, in no list of
    the five: the previous file's own hunks are not known, so a hunk another previous file
    shares must not be said moved there (scaled down here: three pairs of 42,000-byte sides)."""
    import context_tools
    import delta.inventory as inv
    from context_tools.faces.packs.delta import _result, render_packet
    from delta.packet import SuccessorAccount, build_delta_packet
    from indexer.contract.encode import encode_json

    monkeypatch.setattr(inv, "DIFF_BYTES", 3 * 84_000)
    made = []
    real = inv._counts
    monkeypatch.setattr(inv, "_counts", lambda m: made.append(1) or real(m))
    b = RepoBuilder(tmp_path / "r")
    tags = {"f0.txt": "a", "f1.txt": "b", "f2.txt": "c"}
    fork = b.commit({path: _lines_edited({}, tag) for path, tag in tags.items()})
    b.tag("v1", b.commit({"f0.txt": _lines_edited({10: "A"}, "a"), "f1.txt": _lines_edited({100: "X"}, "b"),
                          "f2.txt": _lines_edited({100: "X", 3000: "Y"}, "c")}, branch="feature", parents=[fork]))
    b.checkout(fork)
    # f0 as before (its pair diffed once for both); f1's edit is gone; f2 keeps the edit it shares with f1
    b.commit({"f0.txt": _lines_edited({10: "A"}, "a"), "f2.txt": _lines_edited({100: "X"}, "c")},
             branch="feature", parents=[fork])

    def build() -> bytes:
        made.clear()
        p = build_delta_packet(tmp_path / "r", "main", "feature", previous_base="main", previous_head="v1",
                               elements=False, index=False, write=False).packet
        assert [(f.path, f.hunks_dropped) for f in p.files] == [("f0.txt", None), ("f2.txt", None)] and not p.drops
        acc = p.successor
        assert isinstance(acc, SuccessorAccount)
        assert [(u.path, u.reason, u.hunks, u.bytes) for u in acc.unread] == [("f2.txt", "diff_cap", 0, 0)]
        assert acc.counts == {"carried": 1, "moved": 0, "changed": 0, "dropped": 1, "new": 0}
        f2 = next(f for f in p.files if f.path == "f2.txt")
        assert [(h.id, h.path) for h in acc.uncompared] == [(h.id, "f2.txt") for h in f2.hunks] and f2.hunks
        assert [c.path for c in acc.carried] == ["f0.txt"] and [d.path for d in acc.dropped] == ["f1.txt"]
        text = render_packet(_result(p, "feature", "2026-12-07T00:00:00Z"))
        assert "unread in the previous patchset: f2.txt (diff_cap)" in text
        assert "not compared: 1 current hunks" in text
        # current f0 and f2, previous f1: three pairs' patches made, f0's once
        assert len(made) == 3
        return encode_json(p)

    def summary() -> None:  # what an agent's `delta_packet` answers: the account's counts and unknowns
        told = context_tools.Client(store=str(tmp_path / "home")).call(
            "delta.packet", repo=str(tmp_path / "r"), base="main", head="feature", previous_base="main",
            previous_head="v1").data.successor
        assert told is not None and (told.counts, told.unread, told.uncompared) == (
            {"carried": 1, "moved": 0, "changed": 0, "dropped": 1, "new": 0}, 1, 1), told

    assert build() == build()  # the same ranges give the same packet
    summary()


def test_the_previous_patchset_draws_on_the_diff_work_the_current_one_left(tmp_path, monkeypatch):
    """The diff work too is one budget for the packet, spent on the current patchset first: a
    previous file whose work would take the packet's past DIFF_WORK is not diffed, `diff_work`
    in `successor.unread`, however little its own inventory spent (was: each inventory had
    DIFF_WORK of its own; scaled down here to just under the two files' work)."""
    import delta.inventory as inv
    from delta.packet import SuccessorAccount, build_delta_packet

    b = RepoBuilder(tmp_path / "r")
    fork = b.commit({"a.txt": two_kinds(3_000, 1), "b.txt": two_kinds(3_000, 2)})
    b.tag("v1", b.commit({"b.txt": two_kinds(3_000, 3)}, branch="feature", parents=[fork]))
    b.checkout(fork)
    b.commit({"a.txt": two_kinds(3_000, 4)}, branch="feature", parents=[fork])
    current = inv.diff_work(two_kinds(3_000, 1), two_kinds(3_000, 4))
    previous = inv.diff_work(two_kinds(3_000, 2), two_kinds(3_000, 3))
    assert current > 0 and previous > 0
    monkeypatch.setattr(inv, "DIFF_WORK", current + previous - 1)
    p = build_delta_packet(tmp_path / "r", "main", "feature", previous_base="main", previous_head="v1",
                           elements=False, index=False, write=False).packet
    assert [(f.path, f.hunks_dropped) for f in p.files] == [("a.txt", None)]
    acc = p.successor
    assert isinstance(acc, SuccessorAccount)
    assert [(u.path, u.reason) for u in acc.unread] == [("b.txt", "diff_work")]
    assert acc.counts["dropped"] == 0 and acc.counts["new"] == len(p.files[0].hunks) > 0
    # the work of the two exactly: both diffed
    monkeypatch.setattr(inv, "DIFF_WORK", current + previous)
    p = build_delta_packet(tmp_path / "r", "main", "feature", previous_base="main", previous_head="v1",
                           elements=False, index=False, write=False).packet
    assert isinstance(p.successor, SuccessorAccount) and not p.successor.unread and p.successor.counts["dropped"] > 0


def test_a_previous_file_at_a_path_the_packet_did_not_read_is_compared_with_nothing(tmp_path, monkeypatch):
    """Past the budget a current file is not diffed while the previous patchset's file at its
    path, of less work, still may be: its hunks are then `unread` (`current_unread`), neither
    dropped nor moved, since what the current file holds there is not known (scaled down)."""
    import delta.inventory as inv
    from delta.packet import SuccessorAccount, build_delta_packet

    b = RepoBuilder(tmp_path / "r")
    fork = b.commit({"a.txt": two_kinds(3_000, 1), "m.txt": _lines_edited({})})
    b.tag("v1", b.commit({"a.txt": two_kinds(3_000, 1) + b"t0\n", "m.txt": _lines_edited({100: "X"})},
                         branch="feature", parents=[fork]))
    b.checkout(fork)
    b.commit({"a.txt": two_kinds(3_000, 2), "m.txt": _lines_edited({100: "X", 200: "Z"})}, branch="feature",
             parents=[fork])
    monkeypatch.setattr(inv, "DIFF_WORK", inv.diff_work(two_kinds(3_000, 1), two_kinds(3_000, 2)) - 1)
    p = build_delta_packet(tmp_path / "r", "main", "feature", previous_base="main", previous_head="v1",
                           elements=False, index=False, write=False).packet
    assert [(d.path, d.reason) for d in p.drops] == [("a.txt", "diff_work")]
    acc = p.successor
    assert isinstance(acc, SuccessorAccount)
    assert [(u.path, u.reason, u.hunks) for u in acc.unread] == [("a.txt", "current_unread", 1)]
    assert acc.counts == {"carried": 1, "moved": 0, "changed": 0, "dropped": 0, "new": 1}
    assert not acc.uncompared


def test_a_file_the_budget_left_undiffed_is_not_read_for_its_own_tests(tmp_path, monkeypatch):
    """Whether a Rust file holds its tests is read from its head side only where the inventory
    diffed it: a file past the packet's budget is read by no other reader either (was: the
    counterparts read each listed Rust file up to BIG_BLOB, so a thousand distinct files of
    4 MiB past DIFF_BYTES were read whole all the same; scaled down here)."""
    import delta.inventory as inv
    import delta.packet as packet

    monkeypatch.setattr(inv, "DIFF_BYTES", 41_000)
    b = RepoBuilder(tmp_path / "r")
    b.commit({"ok.py": "x = 1\n"})
    rust = "#[cfg(test)]\nmod tests {}\n" + "".join(f"fn f{i}() {{}}\n" for i in range(3000))
    b.commit({"a.txt": "line\n" * 8000, "src/lib.rs": rust, "src/mod.rs": "#[cfg(test)]\nmod tests {}\n"})  # in path order
    lib = str(b.repo.revparse_single("main:src/lib.rs").id)
    read = []
    real = packet.read_bounded
    monkeypatch.setattr(packet, "read_bounded", lambda repo, oid: read.append(oid) or real(repo, oid))
    p = packet.build_delta_packet(tmp_path / "r", "main~1", "main", elements=False, index=False, write=False).packet
    files = {f.path: f for f in p.files}
    assert files["src/lib.rs"].hunks_dropped == "diff_cap" and files["src/mod.rs"].hunks_dropped is None
    assert lib not in read
    assert "rust:#[cfg(test)] in the file" not in [c.rule for c in files["src/lib.rs"].counterparts.items]
    # a file diffed within the budget is read as before
    assert "rust:#[cfg(test)] in the file" in [c.rule for c in files["src/mod.rs"].counterparts.items]


def test_a_blob_diffed_at_one_path_and_not_at_another_is_read_for_its_tests_where_diffed(tmp_path, monkeypatch):
    """Whether a Rust file holds its tests is kept by blob: one blob at a path the budget left
    undiffed (`a.rs`, its base side large) and at a path diffed (`b.rs`, added) is read at the
    second, and the second lists itself as its own test (was: the first path's unread answer,
    none, was kept for the blob, and the diffed file lost its own tests); the first, not diffed,
    is read by no reader, in either order."""
    import delta.inventory as inv
    import delta.packet as packet

    rust = "#[cfg(test)]\nmod tests {}\nfn f() {}\n"
    big = "// filler line\n" * 3000
    monkeypatch.setattr(inv, "DIFF_BYTES", len(big) + len(rust) - 1)
    own = "rust:#[cfg(test)] in the file"
    for undiffed, diffed in (("a.rs", "b.rs"), ("b.rs", "a.rs")):
        b = RepoBuilder(tmp_path / undiffed)
        b.commit({undiffed: big})
        b.commit({undiffed: rust, diffed: rust})
        p = packet.build_delta_packet(tmp_path / undiffed, "main~1", "main", elements=False, index=False,
                                      write=False).packet
        files = {f.path: f for f in p.files}
        assert (files[undiffed].hunks_dropped, files[diffed].hunks_dropped) == ("diff_cap", None)
        assert own in [c.rule for c in files[diffed].counterparts.items], undiffed
        assert own not in [c.rule for c in files[undiffed].counterparts.items], undiffed


def test_a_blob_diffed_at_one_path_and_not_at_another_takes_its_noise_class_where_diffed(tmp_path, monkeypatch):
    """The noise rules keep what they read of a blob (its generated header, its minified sample)
    for every path of it: one blob at a path the budget left undiffed and at a path diffed, in
    either order, is classed at the second as read there (was: the undiffed path's unread
    answer, none, was kept for the blob, and the diffed protobuf output or minified bundle was
    signal when the undiffed path came first)."""
    import delta.inventory as inv
    import delta.packet as packet

    generated = ("py", "# Generated by the protocol buffer compiler.  DO NOT EDIT!\nimport os\nX = 1\n", "generated")
    minified = ("js", "var a=1;" * 200 + "\n", "minified")
    big = "// filler line\n" * 3000
    for suffix, content, cls in (generated, minified):
        monkeypatch.setattr(inv, "DIFF_BYTES", len(big) + len(content) - 1)
        for undiffed, diffed in ((f"a.{suffix}", f"b.{suffix}"), (f"b.{suffix}", f"a.{suffix}")):
            where = tmp_path / f"{cls}-{undiffed}"
            b = RepoBuilder(where)
            b.commit({undiffed: big})
            b.commit({undiffed: content, diffed: content})
            p = packet.build_delta_packet(where, "main~1", "main", elements=False, index=False, write=False).packet
            files = {f.path: f for f in p.files}
            assert (files[undiffed].hunks_dropped, files[diffed].hunks_dropped) == ("diff_cap", None), undiffed
            assert files[diffed].noise is not None and files[diffed].noise.cls == cls, (cls, undiffed)


def test_the_successor_account_splits_each_side_it_judges_once_however_many_pairs(tmp_path, monkeypatch):
    """Pairs of hunks whose lines differ in whitespace alone are judged on their files' sides
    (`delta.hunks.same_change`); each pair split its files' sides into lines again, so a force-
    push respacing a string every 40 lines of one file cost the square of the file (80,000
    lines: 20 s of CPU). Each side is now split once: the bytes split stay within a few times
    the sides' bytes, however many pairs are judged."""
    import delta.packet as packet

    split = [0]

    class Counted(bytes):
        def split(self, *args, **kwargs):  # type: ignore[override]
            split[0] += len(self)
            return super().split(*args, **kwargs)

    real = packet._sides

    def counted(repo, change):
        sides = real(repo, change)
        return lambda: tuple(Counted(s) if s is not None else None for s in sides())

    monkeypatch.setattr(packet, "_sides", counted)
    n = 4000
    line = "x_{} = 'a{}b {}'\n"
    base = "".join(line.format(i, " ", i) for i in range(n))
    prev = "".join(line.format(i, "  " if i % 40 == 0 else " ", i) for i in range(n))
    cur = "".join(line.format(i, "   " if i % 40 == 0 else " ", i) for i in range(n))
    b = RepoBuilder(tmp_path / "r")
    root = b.commit({"m.py": base})
    b.commit({"m.py": prev}, branch="prev", parents=[root])
    b.checkout(root)
    b.commit({"m.py": cur}, branch="cur", parents=[root])
    p = packet.build_delta_packet(tmp_path / "r", "main", "cur", previous_base="main", previous_head="prev",
                                  elements=False, index=False, write=False).packet
    assert p.successor.counts["changed"] == n // 40  # every pair judged: the same lines but for whitespace
    sides = len(base) * 2 + len(prev) + len(cur)
    assert split[0] <= 4 * sides, (split[0], sides)


def test_the_shipped_diff_work_refuses_the_costliest_shape_and_holds_64_mib_of_code():
    """At the shipped bounds: two 4 MiB sides of lines of two kinds (12 s of CPU to diff) are
    past DIFF_WORK alone, and 64 MiB of code with every line in play (16 files of 4 MiB sides,
    edited throughout, so no line is set aside) fit within it."""
    import delta.inventory as inv

    side = inv.BIG_BLOB // 3
    assert inv.diff_work(two_kinds(side, 1), two_kinds(side, 2)) > inv.DIFF_WORK
    code = [b"    total_%06d += item[%06d]\n" % (i, i) for i in range(inv.BIG_BLOB // 33)]  # code's lines: 33 bytes
    edited = [line.replace(b"+=", b"-=") if i % 40 == 7 else line for i, line in enumerate(code)]
    old, new = b"".join(code), b"".join(edited)
    assert len(old) <= inv.BIG_BLOB and 16 * len(old) >= 63 * 1024 * 1024
    assert 16 * inv.diff_work(old, new) <= inv.DIFF_WORK


def test_a_rust_file_at_many_paths_is_read_once_for_its_own_tests(tmp_path, monkeypatch):
    """Whether a Rust file holds its tests (`#[cfg(test)]`) is read once a blob, however many
    listed paths hold it, and each path still names itself as its tests (was: the blob read
    whole again for each path)."""
    import delta.packet as packet

    source = "pub fn f() -> u8 { 1 }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n"
    b = RepoBuilder(tmp_path / "r")
    b.commit({"ok.py": "x = 1\n"})
    b.commit({f"src/m{i:03d}.rs": source for i in range(120)})
    reads = []
    real = packet.read_bounded
    monkeypatch.setattr(packet, "read_bounded", lambda repo, oid: reads.append(oid) or real(repo, oid))
    p = packet.build_delta_packet(tmp_path / "r", "main~1", "main", elements=False, index=False, write=False).packet
    assert len(p.files) == 120
    for f in p.files:
        assert [(c.path, c.rule) for c in f.counterparts.items] == [(f.path, "rust:#[cfg(test)] in the file")]
    assert len(reads) <= 2, len(reads)  # the noise rules' read and the counterparts'; was 121


def test_names_that_are_not_utf8_share_no_counts_and_keep_their_own(tmp_path):
    """Two paths of one blob whose names are not UTF-8, and a file at such a name turned into a
    symlink: each is counted from its own patch (was, with counts shared: `internal_error` from
    the name's surrogate escapes, and for the type change before that)."""
    import delta.inventory as inv
    from delta.range import resolve_range

    b = RepoBuilder(tmp_path / "r")
    b.commit({"ok.py": "x = 1\n"})
    repo = b.repo
    base = repo.head.target
    text = repo.create_blob(python_source(2000))
    link = repo.create_blob(b"ok.py")
    ok = repo[base].peel(pygit2.Tree)["ok.py"].id
    sig = pygit2.Signature("t", "t@example.invalid", 1700000100, 0)
    mid = repo.create_commit("refs/heads/main", sig, sig, "raw", raw_tree(
        repo, [(BLOB, b"caf\xe9.py", text), (BLOB, b"ok.py", ok)]), [base])
    head = repo.create_commit("refs/heads/main", sig, sig, "raw", raw_tree(
        repo, [(BLOB, b"bad\xff.py", text), (b"120000", b"caf\xe9.py", link), (BLOB, b"ok.py", ok),
               (BLOB, b"z\xfe.py", text)]), [mid])
    changes = inv.inventory(repo, resolve_range(repo, str(mid), str(head)))
    # the two new paths copy the file that became a symlink (git's `C100`)
    assert sorted((c.status, c.path) for c in changes) == [
        ("copied", "bad\\xff.py"), ("copied", "z\\xfe.py"), ("type_changed", "caf\\xe9.py")]
    for c in changes:
        # binary by `*.bin binary` at the path of the side that decides, the base's where it has
        # one (`delta.inventory.BinaryRule`): no patch is made of it
        assert c.binary == (c.path if c.status == "added" else c.old_path).endswith(".bin"), c.path
        made = c.patch()
        if c.binary:
            assert made is None and (c.additions, c.deletions, c.hunk_count, c.size) == (0, 0, 0, 0)
            continue
        assert made is not None
        direct = inv._counts(made)
        assert (c.additions, c.deletions, c.hunk_count, c.size) == \
            (direct.additions, direct.deletions, direct.hunks, direct.size), c.path


def test_a_gitattributes_many_folders_hold_is_read_and_parsed_once(tmp_path, monkeypatch):
    """200 folders, each the one tree of a `.gitattributes` of 300 rules and a file: its rules
    are parsed once and what they say of a name found once, and each folder's file still takes
    the class its rules give (was: parsed and matched again in each folder: 1,000 such folders
    of 5,000 rules, from a repository of 156 kB, took 171 s and 3 GB; now 1.9 s and 54 MB)."""
    import indexer.git.attributes as attributes
    from delta.packet import build_delta_packet

    b = RepoBuilder(tmp_path / "r")
    b.commit({"ok.py": "x = 1\n"})
    repo = b.repo
    base = repo.head.target
    rules = repo.create_blob("".join(f"*.x{i} linguist-vendored\n" for i in range(299)).encode()
                             + b"*.gen linguist-generated\n")
    ok = repo[base].peel(pygit2.Tree)["ok.py"].id
    inner = raw_tree(repo, [(BLOB, b".gitattributes", rules), (BLOB, b"a.gen", ok), (BLOB, b"b.py", ok)])
    tree = raw_tree(repo, [*[(TREE, f"d{i:03d}".encode(), inner) for i in range(200)], (BLOB, b"ok.py", ok)])
    sig = pygit2.Signature("t", "t@example.invalid", 1700000100, 0)
    repo.create_commit("refs/heads/big", sig, sig, "wide", tree, [base])
    parsed, matched = [], []
    real_split, real_match = attributes._split_line, attributes._Rule.matches
    monkeypatch.setattr(attributes, "_split_line", lambda line: parsed.append(1) or real_split(line))
    monkeypatch.setattr(attributes._Rule, "matches", lambda rule, rel: matched.append(1) or real_match(rule, rel))
    p = build_delta_packet(tmp_path / "r", "main", "big", elements=False, index=False, write=False).packet
    # what each folder's rules say: generated (kept in noise_cleared: the range wrote the rule)
    classes = {(f.path.rsplit("/", 1)[-1], f.noise.cls if f.noise else None, tuple(m.cls for m in f.noise_cleared))
               for f in p.files}
    assert classes == {(".gitattributes", None, ()), ("a.gen", None, ("generated",)), ("b.py", None, ())}
    assert len(parsed) == 300, len(parsed)  # was 60,000
    assert len(matched) <= 3 * 300, len(matched)  # three names, each matched once; was 180,000


def _deep_commit(path: Path, depth: int) -> tuple[pygit2.Repository, str, str]:
    """A commit of one file `depth` folders deep (`a/a/.../x.txt`) with a `.gitattributes`
    marking it generated half way down: the repository, the commit and the file's path."""
    b = RepoBuilder(path)
    b.commit({"ok.py": "x = 1\n"})
    repo = b.repo
    blob = repo.create_blob(b"x\n")
    rules = repo.create_blob(b"*.txt linguist-generated\n")
    tree = raw_tree(repo, [(BLOB, b"x.txt", blob)])
    for level in range(depth, 0, -1):
        tree = raw_tree(repo, [*([(BLOB, b".gitattributes", rules)] if level == depth // 2 else []), (TREE, b"a", tree)])
    sig = pygit2.Signature("t", "t@example.invalid", 1700000100, 0)
    head = repo.create_commit(None, sig, sig, "deep", tree, [repo.head.target])
    return repo, str(head), "a/" * depth + "x.txt"


def test_the_gitattributes_of_a_deep_path_are_read_walking_its_folders_once(tmp_path):
    """Each folder's `.gitattributes` was looked up from the root, reading every tree above it
    again: one changed file 2,000 folders deep (a path of 4 kB) took 67 s of CPU on each side
    of the packet; now 0.25 s. The lines run at n and 2n folders grow as the folders do."""
    from delta.attributes import TreeAttributes
    from tests.lines_run import counted

    def work(depth: int) -> int:
        repo, head, path = _deep_commit(tmp_path / str(depth), depth)
        found, ran = counted(lambda: TreeAttributes(repo, head, [path]))
        assert found.value(path, "linguist-generated") is True
        return ran

    small, large = work(300), work(600)
    assert large <= 2.5 * small, (small, large)


def test_the_folders_of_deep_paths_under_folders_of_their_own_are_held_in_memory_linear_in_them(tmp_path):
    """One subtree 2,000 folders deep, stored once, can sit under a thousand top folders of its
    own: a commit of 216 kB packed. The folders on the way to its files were spelled out, each
    a string of its whole path, and sorted by their parts: the square of the depth in memory for
    each file, 27 MB a file (1,000 files would pass the machine's 24 GB); now a trie of their
    names, walked once. The memory traced at n and 2n folders grows as the folders do."""
    import tracemalloc

    from delta.attributes import TreeAttributes

    def peak(depth: int) -> int:
        repo, deep, _ = _deep_commit(tmp_path / str(depth), depth)
        under = repo[deep].peel(pygit2.Tree)
        tree = raw_tree(repo, [(TREE, f"t{i}".encode(), under.id) for i in range(8)])
        sig = pygit2.Signature("t", "t@example.invalid", 1700000100, 0)
        head = str(repo.create_commit(None, sig, sig, "tops", tree, [repo.head.target]))
        paths = [f"t{i}/" + "a/" * depth + "x.txt" for i in range(8)]
        tracemalloc.start()
        try:
            found = TreeAttributes(repo, head, paths)
            most = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert all(found.value(p, "linguist-generated") is True for p in paths)
        return most

    small, large = peak(300), peak(600)
    assert large <= 2.5 * small, (small, large)


def test_the_gitattributes_found_are_those_each_folder_holds(tmp_path):
    """The folders walked down once give the `.gitattributes` each folder's own lookup gives: a
    folder whose name sorts after a sibling's longer one (`a-x`, `a/b`), a file where a path
    wants a folder, a folder missing, a `.gitattributes` that is a folder or a link."""
    from delta.attributes import _attribute_files
    from indexer.git.read import blob_oid_at

    b = RepoBuilder(tmp_path / "r")
    from corpora.gitbuild import Link

    b.commit({".gitattributes": "*.a text\n", "a/.gitattributes": "*.b text\n", "a/b/.gitattributes": "*.c text\n",
              "a-x/.gitattributes": "*.d text\n", "a-x/y/z.txt": "z\n", "f": "file\n", "a/b/c/d.txt": "d\n",
              "g/.gitattributes/inner": "a folder\n", "h/.gitattributes": Link("../.gitattributes")})
    repo = b.repo
    head = str(repo.head.target)
    paths = ["a/b/c/d.txt", "a-x/y/z.txt", "f/under/a/file.txt", "missing/x/y.txt", "g/q.txt", "h/q.txt", "top.txt"]
    folders = {"/".join(p.split("/")[:i]) for p in paths for i in range(p.count("/") + 1)}
    want = {}
    for folder in folders:
        name = f"{folder}/.gitattributes" if folder else ".gitattributes"
        if (oid := blob_oid_at(repo, head, name)) is not None:
            want[name] = oid
    assert _attribute_files(repo, head, paths) == want
    assert sorted(want) == [".gitattributes", "a-x/.gitattributes", "a/.gitattributes", "a/b/.gitattributes"]


def test_hunk_pairs_left_unscored_are_said_by_the_summary_and_the_text(tmp_path, monkeypatch):
    """Past MATCH_CELLS, the successor account's `unscored` mark reaches the summary an agent
    gets (`previous_unscored`) and the text output: the hunk edited again is then a dropped
    and a new one, and the packet says why (was: in the packet on disk only)."""
    import context_tools
    import delta.successor as successor
    from context_tools.faces.packs.delta import _result, render_packet
    from delta import packet

    b = RepoBuilder(tmp_path / "r")
    lines = [f"x{k} = {k}\n" for k in range(40)]
    b.commit({"a.py": "".join(lines)})
    b.commit({"a.py": "".join(lines[:20] + ["x20 = 'first'\n"] + lines[21:])})
    b.tag("v1", str(b.repo.head.target))
    b.commit({"a.py": "".join(lines[:20] + ["x20 = 'second'\n"] + lines[21:])})
    client = context_tools.Client(store=str(tmp_path / "home"))
    ask = dict(repo=str(tmp_path / "r"), base="main~2", head="main", previous_base="main~2", previous_head="v1")

    def built() -> packet.DeltaPacket:
        return packet.build_delta_packet(tmp_path / "r", "main~2", "main", previous_base="main~2",
                                         previous_head="v1", elements=False, index=False, write=False).packet

    whole = built()
    assert isinstance(whole.successor, packet.SuccessorAccount) and whole.successor.counts["changed"] == 1
    assert client.call("delta.packet", **ask).data.previous_unscored is None
    assert "hunks of the previous patchset" not in render_packet(_result(whole, "main", "2026-12-07T00:00:00Z"))
    monkeypatch.setattr(successor, "MATCH_CELLS", 0)
    bounded = built()
    assert isinstance(bounded.successor, packet.SuccessorAccount)
    assert bounded.successor.counts["changed"] == 0 and bounded.successor.counts["dropped"] == 1
    mark = client.call("delta.packet", **ask).data.previous_unscored
    assert mark is not None and mark.unknown == "not_assessed" and "MATCH_CELLS" in mark.reason
    assert "hunks of the previous patchset not assessed: 1 of the pairs" in render_packet(_result(bounded, "main", "2026-12-07T00:00:00Z"))
