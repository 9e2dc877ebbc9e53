"""Hunk ids are content-derived: stable when a rebase shifts lines, blind to whitespace,
sensitive to path and function context; headers and spans match `git diff`."""

from __future__ import annotations

import re
import subprocess

from corpora.gitbuild import RepoBuilder
from delta.hunks import hunk_id, index_hunks
from delta.inventory import inventory
from delta.range import open_repository, resolve_range


def module(n: int, tweak: dict[int, str] | None = None) -> str:
    """A Python module of n functions; `tweak` replaces the body line of function i."""
    tweak = tweak or {}
    out = []
    for i in range(n):
        out.append(f"def func_{i}(x):\n")
        out.append(f"    value = x * {i}\n")
        out.append(tweak.get(i, f"    return value + {i}\n"))
        out.append("\n")
    return "".join(out)


def hunks_of(path, base, head):
    """Each file's hunks, its two sides given, as the packet gives them, for the grammar to read."""
    repo = open_repository(path)
    recs = []
    for change in inventory(repo, resolve_range(repo, base, head)):
        old = None if change.status == "added" else repo[change.old_oid].data
        new = None if change.status == "deleted" else repo[change.new_oid].data
        recs.extend(index_hunks(change, lambda old=old, new=new: (old, new)))
    return recs


def test_rebased_branch_keeps_hunk_ids_while_lines_shift(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    fork = b.commit({"app.py": module(30), "other.py": "x = 1\n"}, message="fork point")
    feature_edits = {5: "    return value - 5  # fixed\n", 25: "    return None\n"}
    v1 = b.commit({"app.py": module(30, feature_edits)}, branch="feature", parents=[fork])

    # main moves on: ten lines land above the feature's edits and another file changes
    b.checkout(fork)
    header = "".join(f"# header line {i}\n" for i in range(10))
    main2 = b.commit({"app.py": header + module(30), "other.py": "x = 2\n"}, branch="main", parents=[fork])
    # the rebased feature: the same edits replayed on the new main
    rebased = b.commit({"app.py": header + module(30, feature_edits)}, branch="feature", parents=[main2])

    before = hunks_of(tmp_path / "r", fork, v1)
    after = hunks_of(tmp_path / "r", main2, rebased)
    assert len(before) == 2 and len(after) == 2
    assert [h.id for h in before] == [h.id for h in after]
    assert [h.new_start + 10 for h in before] == [h.new_start for h in after]  # the lines did shift
    assert [h.section for h in before] == [h.section for h in after]


def test_ids_ignore_whitespace_and_line_numbers_but_not_path_or_context(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"a.py": module(10), "b.py": module(10)})
    head = b.commit({"a.py": module(10, {7: "    return  value+7  # x\n"}),
                     "b.py": module(10, {7: "    return value + 7 # x\n"})})
    recs = hunks_of(tmp_path / "r", base, head)
    assert len(recs) == 2
    assert recs[0].id != recs[1].id  # same normalized body and context, other path
    assert recs[0].body == recs[1].body  # the same once whitespace is left out
    assert recs[0].body_key != recs[1].body_key  # not the same lines: no move of one to the other
    assert recs[0].section == recs[1].section == "def func_6(x):"

    head2 = b.commit({"a.py": module(10, {8: "    return  value+7  # x\n"})}, parents=[base], branch="other")
    other = hunks_of(tmp_path / "r", base, head2)
    # same path, same +/- body text but under another function: another id
    assert other[0].id != recs[0].id


def test_identical_hunks_in_one_file_get_distinct_ids(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    block = "".join(f" filler {i}\n" for i in range(20))  # no line a function context: one section
    base = b.commit({"f.txt": (" a = 1\n" + block) * 3})
    head = b.commit({"f.txt": (" a = 2\n" + block) * 3})
    recs = hunks_of(tmp_path / "r", base, head)
    assert len(recs) == 3 and recs[0].body == recs[1].body == recs[2].body
    assert [h.section for h in recs] == ["", "", ""]
    assert len({h.id for h in recs}) == 3  # the third as well as the second told apart


def test_whitespace_only_hunks_are_flagged(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"a.py": module(12)})
    text = module(12).replace("    value = x * 2\n", "    value  =  x * 2   \n").replace(
        "    return value + 9\n", "    return value + 90\n")
    head = b.commit({"a.py": text + "\n\n"})
    recs = hunks_of(tmp_path / "r", base, head)
    flags = [(h.section, h.whitespace_only) for h in recs]
    assert [w for _, w in flags] == [True, False, True]


def test_headers_and_spans_match_git_diff(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"a.py": module(40), "b.txt": "".join(f"{i}\n" for i in range(100)), "c.py": module(3)})
    head = b.commit({
        "a.py": module(40, {1: "    return 1\n", 2: "    return 2\n", 20: "    pass\n", 39: "    raise\n"}),
        "b.txt": "".join(f"{i}\n" for i in range(100) if i % 17) + "tail\n",
        "c.py": None, "d.py": module(2),
    })
    ours = [(h.path, h.header) for h in hunks_of(tmp_path / "r", base, head)]
    out = subprocess.run(["git", "-C", str(tmp_path / "r"), "diff", "-M", "-C", "-U3", base, head],
                         check=True, capture_output=True, text=True).stdout
    theirs, path = [], None
    for line in out.splitlines():
        if line.startswith("diff --git "):
            path = re.match(r"diff --git a/(\S+) b/(\S+)", line).group(2)
        elif line.startswith("@@"):
            theirs.append((path, line))
    assert sorted(ours) == sorted(theirs)
    for h in hunks_of(tmp_path / "r", base, head):
        m = re.match(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", h.header)
        assert (h.old_start, h.new_start) == (int(m.group(1)), int(m.group(3)))
        assert h.size > len(h.header)


def test_a_hunks_size_is_the_bytes_git_diff_prints_of_it(tmp_path):
    # a last line with no newline (on one side or both), and a function context git cuts at 80
    # bytes on a space it then drops, where libgit2 keeps it
    b = RepoBuilder(tmp_path / "r")
    ctx = "def _is_incomplete_option(ctx: Context, args: t.List[str], param: Parameter) -> bool:\n" + "".join(
        f"    v{i} = x\n" for i in range(8))
    base = b.commit({"a.py": module(40), "e.txt": "x\ny", "g.txt": "p\nq\n", "h.txt": "k\nm",
                     "s.py": ctx + "    return 0\n"})
    head = b.commit({"a.py": module(40, {1: "    return 1\n", 20: "    pass   \n"}), "e.txt": "x\nz",
                     "g.txt": "p\nr", "h.txt": "k\nm\n", "s.py": ctx + "    return 1\n"})
    out = subprocess.run(["git", "-C", str(tmp_path / "r"), "diff", "-U3", base, head],
                         check=True, capture_output=True).stdout
    theirs: dict[str, list[int]] = {}
    path = ""
    for chunk in re.split(rb"(?m)^(?=diff --git |@@ )", out):
        if chunk.startswith(b"diff --git "):
            path = re.match(rb"diff --git a/(\S+) b/(\S+)", chunk).group(2).decode()
        elif chunk.startswith(b"@@"):
            theirs.setdefault(path, []).append(len(chunk))
    ours: dict[str, list[int]] = {}
    for h in hunks_of(tmp_path / "r", base, head):
        ours.setdefault(h.path, []).append(h.size)
    assert ours == theirs


def _git_bodies(repo, base, head) -> dict[str, list[tuple[bytes, ...]]]:
    """Each file's hunks as `git diff -M` prints them, normalized like `delta.hunks.normalize`."""
    out = subprocess.run(["git", "-C", str(repo), "diff", "-M", "-C", "-U3", base, head],
                         check=True, capture_output=True).stdout
    bodies: dict[str, list[list[bytes]]] = {}
    path = None
    for line in out.split(b"\n"):
        if line.startswith(b"+++ "):
            path = line[6:].decode()
        elif line.startswith(b"@@"):
            bodies.setdefault(path, []).append([])
        elif line[:1] in (b"+", b"-") and not line.startswith((b"--- ", b"+++ ")) and path in bodies:
            bodies[path][-1].append(line[:1] + re.sub(rb"\s+", b"", line[1:]))
    return {p: [tuple(h) for h in hs] for p, hs in bodies.items()}


def test_hunks_of_renamed_and_type_changed_files_read_their_own_lines(tmp_path):
    # The patches of pairs git's plain tree diff does not give (renames, copies, type changes)
    # are built from two buffers; libgit2 points into them rather than copying, so the buffers
    # must live as long as the patch. Here the memory they were in is reused before the hunks
    # are read: every body must still be the lines `git diff -M` shows.
    from corpora.gitbuild import Link

    b = RepoBuilder(tmp_path / "r")
    big = module(60)
    base = b.commit({"pkg/a.py": big, "pkg/b.py": module(50), "ln": "target text\n"})
    head = b.commit({"pkg/a.py": None, "src/pkg/a.py": big.replace("return value + 7\n", "return 7\n"),
                     "pkg/b.py": None, "src/pkg/b.py": module(50, {3: "\n"}), "ln": Link("pkg/b.py")})
    repo = open_repository(tmp_path / "r")
    changes = inventory(repo, resolve_range(repo, base, head))
    assert {c.status for c in changes} == {"renamed", "type_changed"}
    churn = [bytes([0xA2]) * n for n in range(1, 20000, 7) for _ in range(2)]  # reuse freed memory
    del churn
    theirs = _git_bodies(tmp_path / "r", base, head)
    for change in changes:
        if change.status == "renamed":
            assert [h.body for h in index_hunks(change)] == theirs[change.path], change.path
        else:  # git prints a type change as a deletion and an addition; ours is one patch of both
            assert [h.body for h in index_hunks(change)] == [(b"-targettext", b"+pkg/b.py")]


def test_header_of_a_long_function_line_is_what_git_prints(tmp_path):
    # git cuts the function context at 80 bytes and then drops trailing whitespace; libgit2
    # keeps the space when the cut lands on one (click 8.1.3..8.1.7, shell_completion.py).
    signature = "def _is_incomplete_option(ctx: Context, args: t.List[str], param: Parameter) -> bool:\n"
    assert signature[79] == " "
    body = "".join(f"    x{i} = {i}\n" for i in range(12))
    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"a.py": signature + body})
    head = b.commit({"a.py": signature + body.replace("x9 = 9", "x9 = 90")})
    out = subprocess.run(["git", "-C", str(tmp_path / "r"), "diff", "-U3", base, head],
                         check=True, capture_output=True, text=True).stdout
    theirs = [line for line in out.splitlines() if line.startswith("@@")]
    ours = hunks_of(tmp_path / "r", base, head)
    assert [h.header for h in ours] == theirs
    assert ours[0].section == signature[:79]


def test_the_same_edit_under_another_function_of_the_same_file_has_another_id(tmp_path):
    body = "    a = 1\n    b = 2\n    c = 3\n    d = 4\n    return 0\n"
    src = f"def alpha():\n{body}\n\ndef beta():\n{body}"
    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"s.py": src})
    in_alpha = b.commit({"s.py": src.replace("return 0", "return 1", 1)}, branch="a", parents=[base])
    in_beta = b.commit({"s.py": src[::-1].replace("0 nruter", "1 nruter", 1)[::-1]}, branch="b", parents=[base])
    [a] = hunks_of(tmp_path / "r", base, in_alpha)
    [z] = hunks_of(tmp_path / "r", base, in_beta)
    assert (a.path, a.body) == (z.path, z.body)
    assert (a.section, z.section) == ("def alpha():", "def beta():")
    assert a.id != z.id


def test_identical_hunks_keep_their_distinct_ids_across_a_rebase(tmp_path):
    # no line starts a function context, so both hunks have the same path, section and body:
    # only their order tells them apart, and it survives lines shifting above them
    block = "".join(f" filler {i}\n" for i in range(20))
    b = RepoBuilder(tmp_path / "r")
    fork = b.commit({"f.txt": " a = 1\n" + block + " a = 1\n" + block})
    v1 = b.commit({"f.txt": " a = 2\n" + block + " a = 2\n" + block}, branch="feature", parents=[fork])
    top = "".join(f" header {i}\n" for i in range(10))
    b.checkout(fork)
    main2 = b.commit({"f.txt": top + " a = 1\n" + block + " a = 1\n" + block}, branch="main", parents=[fork])
    rebased = b.commit({"f.txt": top + " a = 2\n" + block + " a = 2\n" + block}, branch="feature",
                       parents=[main2])
    before = hunks_of(tmp_path / "r", fork, v1)
    after = hunks_of(tmp_path / "r", main2, rebased)
    assert [h.section for h in before] == ["", ""] and before[0].body == before[1].body
    assert before[0].id != before[1].id
    assert [h.id for h in before] == [h.id for h in after]
    assert before[1].new_start + 10 == after[1].new_start  # the lines did shift


def test_an_id_reads_path_and_function_context_apart():
    body = (b"-x=1", b"+x=2")
    assert hunk_id("src/ab", "c", body) != hunk_id("src/a", "bc", body)
    assert hunk_id("p.py", "def f():", body) != hunk_id("p.py", "def f():" + "\n".join(x.decode() for x in body), ())


def _one_hunk(path: str, runs: tuple[tuple[int, int, int, int], ...] = ((1, 2, 1, 2),)):
    """A hunk of `path` for `same_change`, which reads its path and runs of changed lines alone."""
    from delta.hunks import HunkRecord

    return HunkRecord(id="h", path=path, header="@@ -1 +1 @@", section="", old_start=1, old_lines=1, new_start=1,
                      new_lines=1, additions=1, deletions=1, size=0, whitespace_only=False, body=(), body_key="k",
                      old_changed=(1, 1), new_changed=(1, 1), runs=runs)


def _same(a_path: str, a_sides: tuple[bytes, bytes], b_path: str, b_sides: tuple[bytes, bytes],
          a_runs: tuple[tuple[int, int, int, int], ...] = ((1, 2, 1, 2),),
          b_runs: tuple[tuple[int, int, int, int], ...] = ((1, 2, 1, 2),)) -> tuple[bool, bool]:
    """`same_change` of the two hunks, each way round."""
    from delta.hunks import FileSides, same_change

    a, b = _one_hunk(a_path, a_runs), _one_hunk(b_path, b_runs)
    one = same_change(a, FileSides(a_path, lambda: a_sides, None), b, FileSides(b_path, lambda: b_sides, None))
    other = same_change(b, FileSides(b_path, lambda: b_sides, None), a, FileSides(a_path, lambda: a_sides, None))
    return one, other


def test_two_hunks_are_the_same_change_only_by_the_stricter_of_their_files_rules():
    """`delta.hunks.same_change` across a file renamed between two patchsets: a CR is data, and
    indentation syntax, and YAML's block scalars read, where either file's path (or content)
    says so; and a hunk of more runs than the other is another change."""
    assert _same("notes.txt", (b"x\n", b"cd /tmp\n"), "notes.md", (b"x\n", b"cd /tmp\r\n")) == (True, True)
    assert _same("notes.txt", (b"x\n", b"a b\n"), "notes.md", (b"x\n", b"a  b\n")) == (False, False)  # spacing kept
    assert _same("notes.txt", (b"x\n", b"cd /tmp\n"), "run.sh", (b"x\n", b"cd /tmp\r\n")) == (False, False)
    assert _same("notes.txt", (b"x\n", b"    y\n"), "app.py", (b"x\n", b"y\n")) == (False, False)
    yaml_old, yaml_new = b"key: |\n  x\n", b"key: |\n  a  \n"
    second = ((2, 3, 2, 3),)  # the block's line: its trailing spaces are data to YAML
    assert _same("c.yml", (yaml_old, yaml_new), "c.yml", (yaml_old, b"key: |\n  a\n"), second, second) == (False, False)
    assert _same("c.txt", (yaml_old, yaml_new), "c.yml", (yaml_old, b"key: |\n  a\n"), second, second) == (False, False)
    two_runs = ((1, 2, 1, 2), (2, 3, 2, 3))
    assert _same("a.txt", (b"x\ny\n", b"a\nb\n"), "a.txt", (b"x\n", b"a\n"), a_runs=two_runs) == (False, False)
