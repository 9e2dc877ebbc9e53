"""The file inventory agrees with `git diff --raw -M -C` (status, paths, modes) and
`git diff --numstat` (line counts) for every status and mode change, and carries typed
mode-change evidence."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpora.gitbuild import Exec, Link, RepoBuilder, Submodule
from delta.inventory import inventory
from delta.range import open_repository, resolve_range

BODY = "".join(f"line {i} of some content that is long enough to compare\n" for i in range(40))
SHA = {n: str(n) * 40 for n in range(1, 8)}

STATUS_LETTER = {"added": "A", "deleted": "D", "modified": "M", "renamed": "R", "copied": "C", "type_changed": "T"}


def git(repo, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def raw_records(repo, old: str, new: str) -> set[tuple]:
    """(status letter, score, old path, new path, old mode, new mode) from `git diff --raw -z -M -C`."""
    out = git(repo, "diff", "--raw", "-z", "-M", "-C", "--no-abbrev", old, new).split("\0")
    records = set()
    i = 0
    while i < len(out) - 1:
        meta = out[i].lstrip(":").split()
        status = meta[4]
        letter, score = status[0], status[1:]
        if letter in "RC":
            old_path, new_path = out[i + 1], out[i + 2]
            i += 3
        else:
            old_path = new_path = out[i + 1]
            i += 2
        records.add((letter, int(score) if score else None, old_path, new_path, meta[0], meta[1]))
    return records


def numstat(repo, old: str, new: str) -> dict[str, tuple]:
    out = git(repo, "diff", "--numstat", "-z", "-M", "-C", old, new).split("\0")
    stats = {}
    i = 0
    while i < len(out) - 1:
        added, deleted, path = out[i].split("\t")
        if path == "":  # rename / copy: the two paths follow
            path = out[i + 2]
            i += 3
        else:
            i += 1
        stats[path] = (None if added == "-" else int(added), None if deleted == "-" else int(deleted))
    return stats


def ours(changes) -> set[tuple]:
    out = set()
    for c in changes:
        letter = STATUS_LETTER[c.status]
        old_path = c.old_path if c.old_path is not None else c.new_path
        new_path = c.new_path if c.new_path is not None else c.old_path
        out.add((letter, c.similarity, old_path, new_path, f"{c.old_mode:06o}", f"{c.new_mode:06o}"))
    return out


@pytest.fixture(scope="module")
def every_change(tmp_path_factory):
    path = tmp_path_factory.mktemp("inv") / "repo"
    b = RepoBuilder(path)
    base = b.commit({
        "src/moved.py": BODY, "src/renamed_edit.py": BODY.replace("line", "row"),
        "tool.sh": "echo hi\n", "was_exec": Exec("#!/bin/sh\nexit 0\n"),
        "link_to_file": Link("src/moved.py"), "file_to_link": "plain text\n",
        "mods/bumped": Submodule(SHA[1]), "mods/removed": Submodule(SHA[2]),
        "mods/to_file": Submodule(SHA[6]), "file_to_sub": "a file first\n",
        "gone.txt": "bye\n", "img.bin": bytes(range(256)) * 8,
        "copy_src.py": BODY.replace("line", "copy"), "exec_renamed": "#!/bin/sh\n" + BODY,
    })
    head = b.commit({
        "src/moved.py": None, "lib/moved.py": BODY,  # pure rename across folders
        "src/renamed_edit.py": None, "src/renamed_edited.py": BODY.replace("line", "row").replace("row 3 ", "ROW 3 "),
        "tool.sh": Exec("echo hi\n"),  # exec bit set
        "was_exec": "#!/bin/sh\nexit 0\n",  # exec bit cleared
        "link_to_file": "now a regular file\n", "file_to_link": Link("tool.sh"),
        "mods/bumped": Submodule(SHA[3]), "mods/removed": None, "mods/added": Submodule(SHA[4]),
        "mods/to_file": "a file now\n", "file_to_sub": Submodule(SHA[5]),
        "gone.txt": None, "new.txt": "hello\n", "img.bin": bytes(range(255, -1, -1)) * 8,
        "copy_dst.py": BODY.replace("line", "copy"),
        "copy_src.py": BODY.replace("line", "copy") + "one more line\n",  # modified source: -C sees the copy
        "exec_renamed": None, "bin/exec_renamed": Exec("#!/bin/sh\n" + BODY),  # rename + exec bit
    })
    return path, base, head


def test_inventory_agrees_with_git_raw(every_change):
    path, base, head = every_change
    repo = open_repository(path)
    changes = inventory(repo, resolve_range(repo, base, head))
    assert ours(changes) == raw_records(path, base, head)
    statuses = {c.status for c in changes}
    assert statuses == {"added", "deleted", "modified", "renamed", "copied", "type_changed"}


def test_line_counts_agree_with_git_numstat(every_change):
    path, base, head = every_change
    repo = open_repository(path)
    changes = inventory(repo, resolve_range(repo, base, head))
    stats = numstat(path, base, head)
    for c in changes:
        expected = stats[c.path]
        if c.binary:
            assert expected == (None, None), c.path
        else:
            assert (c.additions, c.deletions) == expected, c.path
    assert {c.path for c in changes if c.binary} == {"img.bin"}


def test_mode_change_evidence_is_typed(every_change):
    path, base, head = every_change
    repo = open_repository(path)
    by_path = {c.path: c for c in inventory(repo, resolve_range(repo, base, head))}
    kind = {p: (c.mode_change.kind if c.mode_change else None) for p, c in by_path.items()}
    assert kind["tool.sh"] == "exec_set"
    assert kind["was_exec"] == "exec_cleared"
    assert kind["bin/exec_renamed"] == "exec_set" and by_path["bin/exec_renamed"].status == "renamed"
    assert kind["file_to_link"] == "became_symlink"
    assert kind["link_to_file"] == "stopped_symlink"
    assert kind["file_to_sub"] == "became_submodule"
    assert kind["mods/to_file"] == "stopped_submodule"
    assert kind["mods/added"] == "submodule_added"
    assert kind["mods/removed"] == "submodule_removed"
    assert kind["src/renamed_edited.py"] is None and kind["new.txt"] is None and kind["img.bin"] is None

    bump = by_path["mods/bumped"].mode_change
    assert (bump.kind, bump.old_commit, bump.new_commit) == ("submodule_bump", SHA[1], SHA[3])
    assert by_path["mods/added"].mode_change.new_commit == SHA[4]
    assert by_path["mods/added"].mode_change.old_commit is None
    assert by_path["mods/removed"].mode_change.old_commit == SHA[2]
    assert by_path["file_to_sub"].mode_change.new_commit == SHA[5]
    assert by_path["mods/to_file"].mode_change.old_commit == SHA[6]
    assert by_path["file_to_link"].mode_change.new_mode == "120000"


def test_renames_and_copies_carry_both_paths_and_similarity(every_change):
    path, base, head = every_change
    repo = open_repository(path)
    by_path = {c.path: c for c in inventory(repo, resolve_range(repo, base, head))}
    moved = by_path["lib/moved.py"]
    assert (moved.status, moved.old_path, moved.similarity) == ("renamed", "src/moved.py", 100)
    assert moved.base_path == "src/moved.py"
    edited = by_path["src/renamed_edited.py"]
    assert edited.status == "renamed" and 50 <= edited.similarity < 100
    copy = by_path["copy_dst.py"]
    assert (copy.status, copy.old_path) == ("copied", "copy_src.py") and copy.base_path is None
    added = by_path["new.txt"]
    assert added.old_path is None and added.old_mode == 0 and added.base_path is None
    deleted = by_path["gone.txt"]
    assert deleted.new_path is None and deleted.new_oid == "0" * 40


def test_path_filter_keeps_renames_seen_from_either_side(every_change):
    path, base, head = every_change
    repo = open_repository(path)
    rng = resolve_range(repo, base, head)
    assert {c.path for c in inventory(repo, rng, ["src"])} == {"lib/moved.py", "src/renamed_edited.py"}
    assert {c.path for c in inventory(repo, rng, ["mods/bumped"])} == {"mods/bumped"}


def test_second_history_with_folder_moves_and_edits_agrees_with_git(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    files = {f"pkg/m{i}.py": "".join(f"def f{i}_{j}():\n    return {j}\n" for j in range(30)) for i in range(6)}
    base = b.commit(files)
    changes = {f"pkg/m{i}.py": None for i in range(3)}
    changes.update({f"newpkg/m{i}.py": files[f"pkg/m{i}.py"].replace("return 7", "return 70") for i in range(3)})
    changes["pkg/m4.py"] = files["pkg/m4.py"] + "def extra():\n    pass\n"
    changes["pkg/m4_copy.py"] = files["pkg/m4.py"]
    changes["pkg/empty.txt"] = ""
    head = b.commit(changes)
    repo = open_repository(tmp_path / "r")
    assert ours(inventory(repo, resolve_range(repo, base, head))) == raw_records(tmp_path / "r", base, head)


def test_packet_over_every_mode_change_with_real_snapshots(every_change, tmp_path):
    """Submodule bumps, symlinks, binaries and type changes go through the whole packet."""
    from delta import build_delta_packet
    from indexer.api import open_store
    from indexer.contract.result import Unknown

    path, base, head = every_change
    store = open_store(tmp_path / "home")
    try:
        built = build_delta_packet(path, base, head, store=store, out=tmp_path / "out")
    finally:
        store.close()
    files = {f.path: f for f in built.packet.files}
    assert len(files) == built.packet.totals.files == len(raw_records(path, base, head))
    bump = files["mods/bumped"]
    assert bump.mode_change.kind == "submodule_bump" and bump.hunk_count == 1
    assert isinstance(files["img.bin"].additions, Unknown) and files["img.bin"].hunks == []
    assert files["file_to_link"].status == "type_changed" and files["file_to_link"].hunk_count == 1
    assert files["tool.sh"].noise.cls == "mode_only"
    assert files["lib/moved.py"].noise.cls == "rename_only"
    assert not isinstance(built.packet.blast, Unknown)
    assert isinstance(files["new.txt"].fan_in, Unknown)
    assert isinstance(files["lib/moved.py"].fan_in, int)  # asked at src/moved.py in the base


def test_pairing_follows_git_exact_first_then_similarity(tmp_path):
    """Exact matches win over similar ones; one source may feed several destinations (all
    but the last are copies); symlinks, submodules and empty files pair exactly; a regular
    file never pairs with a symlink of the same blob."""
    b = RepoBuilder(tmp_path / "r")
    base = b.commit({
        "s1": Submodule(SHA[1]), "l1": Link("target"), "l3": Link("other"), "f": BODY,
        "ex": Exec(BODY + "e"), "g": BODY + "g", "e1": "", "x/e2": "", "d/x.txt": BODY + "x", "tiny": "a\n",
    })
    head = b.commit({
        "s1": None, "s2": Submodule(SHA[1]),
        "l1": None, "l2": Link("target"), "l3": None, "l4": Link("other"), "l5": Link("other"),
        "f": None, "f_link": Link(BODY),
        "ex": None, "ex2": BODY + "e",
        "g": None, "g1": BODY + "g", "g2": BODY + "g", "g0": BODY + "g",
        "e1": None, "e3": "", "x/e2": None, "y/e2": "",
        "d/x.txt": None, "e/x.txt": BODY + "x", "copy_of_x.txt": BODY,
        "tiny": None, "tiny2": "a\n",
    })
    repo = open_repository(tmp_path / "r")
    changes = inventory(repo, resolve_range(repo, base, head))
    assert ours(changes) == raw_records(tmp_path / "r", base, head)
    status = {c.path: (c.status, c.old_path) for c in changes}
    assert status["g0"] == status["g1"] == ("copied", "g") and status["g2"] == ("renamed", "g")
    assert status["l2"] == ("renamed", "l1") and status["s2"] == ("renamed", "s1")
    assert status["f_link"] == ("added", None) and status["copy_of_x.txt"] == ("renamed", "f")
    assert status["y/e2"] == ("renamed", "x/e2")  # the same-named empty file, not e1


@pytest.mark.parametrize("seed", range(6))
def test_generated_histories_agree_with_git_including_scores(tmp_path, seed):
    """Renames and copies with edits of every degree, around the 50% threshold included."""
    import random

    rnd = random.Random(seed)
    b = RepoBuilder(tmp_path / "r")
    files = {}
    for i in range(14):
        n = rnd.randint(5, 60)
        files[f"d{rnd.randint(0, 3)}/f{i}.txt"] = "".join(f"w{rnd.randint(0, 50)} line {j} {i}\n" for j in range(n))
    base = b.commit(files)
    change: dict = {}
    for path, text in files.items():
        roll = rnd.random()
        lines = text.splitlines(True)
        if roll < 0.35:  # moved, edited by a random share of lines
            change[path] = None
            share = rnd.random()
            edited = "".join(ln if rnd.random() > share else f"changed {rnd.random()}\n" for ln in lines)
            name = path.split("/")[-1]
            change[f"n{rnd.randint(0, 3)}/{name}" if rnd.random() < 0.5 else f"m/{rnd.randint(0, 99)}.txt"] = edited
        elif roll < 0.5:  # modified, and a near copy added elsewhere
            change[path] = "".join(ln if rnd.random() > 0.3 else "x\n" for ln in lines)
            change[f"c/{rnd.randint(0, 99)}.txt"] = "".join(ln if rnd.random() > 0.2 else "y\n" for ln in lines)
        elif roll < 0.6:
            change[path] = None
    head = b.commit(change)
    repo = open_repository(tmp_path / "r")
    assert ours(inventory(repo, resolve_range(repo, base, head))) == raw_records(tmp_path / "r", base, head)


_LINES = [b"alpha\n", b"beta\n", b"gamma delta\n", b"x" * 70 + b"\n", b"epsilon\r\n", b"zeta", b"\0eta\r\n",
          b"theta iota kappa lambda\n"]


def _text(lines: list[int]) -> bytes:
    return b"".join(_LINES[i % len(_LINES)] for i in lines)


_body = st.lists(st.integers(0, 40), min_size=0, max_size=14)


@settings(max_examples=40, deadline=None)
@given(bases=st.lists(_body, min_size=1, max_size=5),
       moves=st.lists(st.tuples(st.integers(0, 4), st.sampled_from(["delete", "modify", "keep"]), _body,
                                st.integers(0, 3)), max_size=6),
       data=st.data())
def test_any_renames_and_copies_agree_with_git(tmp_path_factory, bases, moves, data):
    """Files of few distinct lines (long ones, ones of CRLF, a last line with no newline,
    binary ones) moved, copied and edited any way: each status, pairing and similarity score
    is git's (`git diff --raw -M -C`), near the 50% threshold, among equal candidates and
    for several copies of one source included."""
    path = tmp_path_factory.mktemp("renames") / "r"
    builder = RepoBuilder(path)
    files = {f"d{i % 2}/f{i}.txt": _text(lines) for i, lines in enumerate(bases)}
    base = builder.commit(files)
    change: dict = {}
    for n, (which, what, extra, where) in enumerate(moves):
        source = f"d{which % len(bases) % 2}/f{which % len(bases)}.txt"
        if what == "delete":
            change[source] = None
        elif what == "modify":
            change[source] = files[source] + _text(extra[:2])
        kept = data.draw(st.integers(0, 14))
        lines = files[source].splitlines(True)
        change[f"n{where}/f{which % len(bases)}.txt" if n % 2 else f"m/{n}.txt"] = \
            b"".join(lines[:kept]) + _text(extra) + b"".join(lines[kept:kept + 3])
    head = builder.commit(change)
    repo = open_repository(path)
    assert ours(inventory(repo, resolve_range(repo, base, head))) == raw_records(path, base, head)


def test_a_rename_just_under_half_alike_is_no_rename_as_in_git(tmp_path):
    """Half of a 30,001-byte file kept, less one byte: git's score is 29,999 of 60,000, under
    its 50% threshold by one, so git pairs nothing; neither does the inventory."""
    kept = b"".join(b"kept %09d\n" % i for i in range(1000))  # 15,000 bytes
    builder = RepoBuilder(tmp_path / "r")
    base = builder.commit({"old.txt": kept + b"".join(b"gone %09d\n" % i for i in range(1000)) + b"g"})
    head = builder.commit({"old.txt": None, "new.txt": kept + b"".join(b"came %09d\n" % i for i in range(1000)) + b"c"})
    repo = open_repository(tmp_path / "r")
    assert ours(inventory(repo, resolve_range(repo, base, head))) == raw_records(tmp_path / "r", base, head)
    assert {r[0] for r in raw_records(tmp_path / "r", base, head)} == {"A", "D"}


@pytest.mark.parametrize(("old", "new"), [(b"alpha\nzeta", b"alpha\nalpha\nzeta"), (b"alpha\nzeta", b"alpha\nzeta\n"),
                                          (b"a" * 70, b"a" * 64 + b"b" * 6), (b"a" * 128, b"a" * 128 + b"\n")])
def test_a_last_line_with_no_newline_scores_as_in_git(old, new, tmp_path):
    """git counts no span for the bytes after a file's last newline and its last 64-byte cut:
    a rename's score, or whether it is one, is git's (was: those bytes counted as a span, so
    `alpha\\nzeta` to `alpha\\nalpha\\nzeta` was a rename at 62%, git's an add and a delete)."""
    builder = RepoBuilder(tmp_path / "r")
    base = builder.commit({"old.txt": old})
    head = builder.commit({"old.txt": None, "new.txt": new})
    repo = open_repository(tmp_path / "r")
    assert ours(inventory(repo, resolve_range(repo, base, head))) == raw_records(tmp_path / "r", base, head)
