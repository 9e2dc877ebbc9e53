"""The successor account over a force-pushed second patchset: carried (same id), moved
(same body, other place), changed (cost match), dropped and new; never by dates."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from corpora.gitbuild import RepoBuilder
from delta import build_delta_packet
from delta.hunks import HunkRecord, hunk_id
from delta.range import RangeIdentity
from delta.successor import LAYOUT_ONLY_MARGIN, OTHER_FILE_PENALTY, account
from tests.examples import examples
from tests.lines_run import counted


def module(names: list[str], tweak: dict[str, str] | None = None) -> str:
    tweak = tweak or {}
    out = []
    for name in names:
        out.append(f"def {name}(items):\n")
        out.append("    total = 0\n    for item in items:\n        total += item\n")
        out.append(tweak.get(name, f"    return total  # {name}\n"))
        out.append("\n" * 8)
    return "".join(out)


NAMES = [f"fn_{c}" for c in "abcdefghij"]
LONG_A = ("    checked = [validate(x) for x in items if x is not None]\n"
          "    return summarize(checked, strict=True, label='alpha')\n")
LONG_C = ("    result = compute_weighted_total(items, weights=DEFAULT_WEIGHTS, normalize=True)\n"
          "    log_total(result, channel='metrics', level='debug')\n"
          "    return result\n")
LONG_D = "    raise NotImplementedError('delta path is not wired yet')\n"
MOVED_BODY = "    return cache.lookup(total, ttl=300, namespace='reports')\n"


def test_force_pushed_second_patchset(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    shared = "    return total  # shared\n"  # the line the moved edit replaces, in both places
    fork = b.commit({"calc.py": module(NAMES, {"fn_h": shared}),
                     "report.py": module(["summary", "detail"], {"detail": shared})})
    v1 = b.commit({"calc.py": module(NAMES, {"fn_a": LONG_A, "fn_c": LONG_C, "fn_d": LONG_D,
                                             "fn_h": MOVED_BODY})},
                  branch="feature", parents=[fork])
    b.tag("feature-v1", v1)
    # the force-push: rebuilt from the fork, dated later, with the edits reshuffled
    b.checkout(fork)
    v2 = b.commit({
        "calc.py": module(NAMES, {"fn_a": LONG_A,  # carried
                                  "fn_c": LONG_C.replace("level='debug'", "level='info'"),  # changed
                                  "fn_j": "    return total * 2  # doubled\n",  # new
                                  "fn_h": shared}),
        # fn_d's edit is dropped; fn_h's edit now lands in another file
        "report.py": module(["summary", "detail"], {"detail": MOVED_BODY}),
    }, branch="feature", parents=[fork])

    built = build_delta_packet(tmp_path / "r", "main", "feature", previous_base="main",
                               previous_head="feature-v1", index=False, write=False)
    acc = built.packet.successor
    assert acc.previous.head_oid == v1 and built.packet.range.head_oid == v2
    assert acc.counts == {"carried": 1, "moved": 1, "changed": 1, "dropped": 1, "new": 1}

    previous = build_delta_packet(tmp_path / "r", "main", "feature-v1", index=False, write=False).packet
    prev_ids = {h.section: h.id for f in previous.files for h in f.hunks}
    cur = {h.id: (f.path, h.section) for f in built.packet.files for h in f.hunks}

    assert [c.id for c in acc.carried] == [prev_ids["def fn_a(items):"]]
    [moved] = acc.moved
    assert moved.previous.id == prev_ids["def fn_h(items):"] and moved.previous.path == "calc.py"
    assert cur[moved.current.id] == ("report.py", "def detail(items):")
    [changed] = acc.changed
    assert changed.previous.id == prev_ids["def fn_c(items):"]
    assert cur[changed.current.id] == ("calc.py", "def fn_c(items):") and 0.5 <= changed.similarity < 1
    assert [d.id for d in acc.dropped] == [prev_ids["def fn_d(items):"]]
    assert [cur[n.id][1] for n in acc.new] == ["def fn_j(items):"]


def test_a_hunk_whose_whitespace_the_force_push_changed_is_changed_not_carried_nor_moved(tmp_path):
    """The hunk id drops whitespace, as git's patch-id does; a force-push that re-indents a line
    out of its block, or puts a space into a command, keeps the id but not what the hunk does."""
    b = RepoBuilder(tmp_path / "r")
    pre = "".join(f"def f{i}():\n    return {i}\n\n" for i in range(10))
    fork = b.commit({"app.py": pre + "def check(user):\n    return False\n", "run.sh": "echo hi\n",
                     "b.sh": "echo b\n"})
    guarded = "def check(user):\n    if user.admin:\n        grant(user)\n    log(user)\n    return False\n"
    v1 = b.commit({"app.py": pre + guarded, "run.sh": "echo hi\nrm -rf /tmp/build\n"},
                  branch="feature", parents=[fork])
    b.tag("feature-v1", v1)
    b.checkout(fork)
    b.commit({"app.py": pre + guarded.replace("    log(user)", "        log(user)"),  # into the `if`
              "b.sh": "echo b\nrm -rf / tmp/build\n"},  # the line moved to another file, a space put in
             branch="feature", parents=[fork])

    built = build_delta_packet(tmp_path / "r", "main", "feature", previous_base="main",
                               previous_head="feature-v1", index=False, write=False)
    acc = built.packet.successor
    assert acc.counts == {"carried": 0, "moved": 0, "changed": 2, "dropped": 0, "new": 0}
    previous = build_delta_packet(tmp_path / "r", "main", "feature-v1", index=False, write=False).packet
    prev = {f.path: f.hunks[0].id for f in previous.files}
    cur = {f.path: f.hunks[0].id for f in built.packet.files}
    assert prev["app.py"] == cur["app.py"]  # the id is git's patch-id's, whitespace left out
    # the same lines but for whitespace that is data score just below 1.0 (test below)
    assert {(c.previous.path, c.current.path, c.similarity) for c in acc.changed} == {
        ("app.py", "app.py", 1.0 - LAYOUT_ONLY_MARGIN), ("run.sh", "b.sh", round(1.0 - OTHER_FILE_PENALTY - LAYOUT_ONLY_MARGIN, 3))}


def test_a_force_push_that_changed_whitespace_alone_scores_1_only_where_the_packets_rule_finds_layout(
        tmp_path, monkeypatch):
    """A `changed` pair whose lines are the same but for whitespace scores 1.0 only where that
    whitespace is layout by the rule the packet classes hunks by (its grammar, YAML's block
    scalars, a shell's CR), just below where it is data. Was: 1.0 for any whitespace on the same
    lines, as the bodies compared leave it all out, so a trailing space put into a SQL string or
    a `run: |` script, or a CR into `cd /tmp`, by the force-push read as the same change
    respaced. The line rule the previous patchset's hunks were classed by disagrees with the
    grammar both ways: a call respaced between its tokens is layout, a trailing space inside a
    string is not."""
    import delta.packet as packet
    import delta.syntax as syntax

    sql = 'def q():\n    return """\nSELECT a\n  FROM t\n"""\n'
    ci = "jobs:\n  run: |\n    make build\n    make test\n"
    keys = "a: 1\nb: 2\n"
    sh = "cd /tmp\nrm -rf build\n"
    pre = "".join(f"def f{i}():\n    return {i}\n\n" for i in range(6))
    b = RepoBuilder(tmp_path / "r")
    fork = b.commit({"x.py": pre, "y.py": pre, "ci.yml": "on: push\n", "k.yml": "on: push\n", "s.sh": "set -e\n",
                     "w.py": pre + sql})
    v1 = b.commit({"x.py": pre + "total = f(a, b)\n", "y.py": pre + sql, "ci.yml": "on: push\n" + ci,
                   "k.yml": "on: push\n" + keys, "s.sh": "set -e\n" + sh,
                   "w.py": pre + sql.replace("SELECT a\n", "SELECT a  \n")},  # whitespace only to the lines alone
                  branch="feature", parents=[fork])
    b.tag("feature-v1", v1)
    b.checkout(fork)
    b.commit({"x.py": pre + "total = f(a,  b)\n",  # between tokens: layout
              "y.py": pre + sql.replace("SELECT a\n", "SELECT a \n"),  # inside the string: data
              "ci.yml": "on: push\n" + ci.replace("make build\n", "make build \n"),  # inside the block: data
              "k.yml": "on: push\n" + keys.replace("a: 1\n", "a: 1  \n"),  # outside a block: layout
              "s.sh": "set -e\n" + sh.replace("cd /tmp\n", "cd /tmp\r\n")},  # a CR is a shell's word's
             branch="feature", parents=[fork])
    seen: list[list[HunkRecord]] = []
    parsed: list[tuple[int, str, int]] = []  # the packet's parse budgets, what each parsed
    real, real_parse = packet.account, syntax.Parses.__call__
    monkeypatch.setattr(syntax.Parses, "__call__", lambda self, path, data: parsed.append(
        (id(self), path, len(data))) or real_parse(self, path, data))
    monkeypatch.setattr(packet, "account", lambda prev, previous, *a, **k: seen.append(previous) or real(
        prev, previous, *a, **k))
    built = build_delta_packet(tmp_path / "r", "main", "feature", previous_base="main",
                               previous_head="feature-v1", index=False, write=False)
    acc = built.packet.successor
    assert {c.current.path: c.similarity for c in acc.changed} == {
        "x.py": 1.0, "y.py": 1.0 - LAYOUT_ONLY_MARGIN, "ci.yml": 1.0 - LAYOUT_ONLY_MARGIN, "k.yml": 1.0,
        "s.sh": 1.0 - LAYOUT_ONLY_MARGIN}
    # one budget of parse bytes served both patchsets: the previous one's w.py and y.py were read through it
    assert len({budget for budget, _, _ in parsed}) == 1
    assert {(path, size) for _, path, size in parsed} >= {("w.py", len(pre + sql) + 2), ("y.py", len(pre + sql) + 1)}
    # past the bytes the account reads to judge pairs, none is found layout
    monkeypatch.setattr(packet, "SAME_CHANGE_BYTES", 0)
    capped = build_delta_packet(tmp_path / "r", "main", "feature", previous_base="main",
                                previous_head="feature-v1", index=False, write=False).packet.successor
    assert {c.current.path: c.similarity for c in capped.changed} == dict.fromkeys(
        ("x.py", "y.py", "ci.yml", "k.yml", "s.sh"), 1.0 - LAYOUT_ONLY_MARGIN)
    # the previous patchset's hunks are classed by the same rule as a packet of it alone classes them
    alone = build_delta_packet(tmp_path / "r", "main", "feature-v1", index=False, write=False).packet
    assert {h.path: h.whitespace_only for h in seen[0]} == {
        f.path: f.hunks[0].noise == "whitespace_only" for f in alone.files} == {
        "x.py": False, "y.py": False, "ci.yml": False, "k.yml": False, "s.sh": False, "w.py": False}


def _rec(path: str, section: str, body: tuple[bytes, ...]) -> HunkRecord:
    return HunkRecord(id=hunk_id(path, section, body), path=path, header="@@", section=section, old_start=1,
                      old_lines=1, new_start=1, new_lines=1, additions=1, deletions=1, size=10,
                      whitespace_only=False, body=body, body_key=repr(body), old_changed=(1, 1),
                      new_changed=(1, 1))


def test_cost_match_is_greedy_best_first_and_deterministic():
    rng = RangeIdentity("r", "b", "h", "1" * 40, "2" * 40, "1" * 40, "x")
    base = tuple(f"+line{i}".encode() for i in range(10))
    prev = [_rec("a.py", "s1", base), _rec("a.py", "s2", base[:5] + (b"+zzz",) * 5)]
    # the best partner for prev[0] is cur[1] (9 of 10 lines shared), not the first in order
    cur = [_rec("a.py", "t1", base[:6] + (b"+q",) * 4), _rec("a.py", "t2", base[:9] + (b"+w",))]
    acc = account(rng, prev, cur)
    pairs = [(c.previous.id, c.current.id) for c in acc.changed]
    assert pairs[0] == (prev[0].id, cur[1].id)
    assert acc.counts["carried"] == acc.counts["moved"] == 0
    again = account(rng, prev, cur)
    assert [(c.previous.id, c.current.id) for c in again.changed] == pairs


def test_unrelated_bodies_are_dropped_and_new_not_paired():
    rng = RangeIdentity("r", "b", "h", "1" * 40, "2" * 40, "1" * 40, "x")
    prev = [_rec("a.py", "s", (b"-alpha", b"+beta"))]
    cur = [_rec("b.py", "s", (b"-gamma", b"+delta", b"+epsilon"))]
    acc = account(rng, prev, cur)
    assert acc.counts == {"carried": 0, "moved": 0, "changed": 0, "dropped": 1, "new": 1}


def test_previous_files_over_the_capture_cap_are_listed_as_unread_not_silently_skipped(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    big = "".join(f"row {i}\n" for i in range(400))
    fork = b.commit({"calc.py": module(NAMES), "big.txt": big})
    v1 = b.commit({"calc.py": module(NAMES, {"fn_a": LONG_A}), "big.txt": big.replace("row", "line")},
                  branch="feature", parents=[fork])
    b.tag("feature-v1", v1)
    b.commit({"calc.py": module(NAMES, {"fn_a": LONG_A, "fn_b": LONG_D}), "big.txt": big.replace("row", "Row")},
             branch="feature", parents=[fork])

    built = build_delta_packet(tmp_path / "r", "main", "feature", previous_base="main",
                               previous_head="feature-v1", index=False, write=False, capture_cap=2048)
    p = built.packet
    assert [(d.path, d.reason) for d in p.drops] == [("big.txt", "capture_cap")]
    acc = p.successor
    assert acc.counts == {"carried": 1, "moved": 0, "changed": 0, "dropped": 0, "new": 1}
    # big.txt's previous hunks were not read either: the account says so instead of leaving them out
    [unread] = acc.unread
    assert (unread.path, unread.reason, unread.hunks) == ("big.txt", "capture_cap", 1) and unread.bytes > 2048


RNG = RangeIdentity("r", "b", "h", "1" * 40, "2" * 40, "1" * 40, "x")
TEN = tuple(f"+line{i}".encode() for i in range(10))


def test_changed_needs_a_body_at_least_half_alike():
    prev = [_rec("a.py", "s", TEN)]
    four = [_rec("a.py", "t", TEN[:4] + tuple(f"+other{i}".encode() for i in range(6)))]  # ratio 0.4
    six = [_rec("a.py", "t", TEN[:6] + tuple(f"+other{i}".encode() for i in range(4)))]  # ratio 0.6
    assert account(RNG, prev, four).counts == {"carried": 0, "moved": 0, "changed": 0, "dropped": 1, "new": 1}
    acc = account(RNG, prev, six)
    assert acc.counts["changed"] == 1 and acc.changed[0].similarity == 0.6


def test_a_hunk_changed_into_another_file_is_matched_at_a_cost():
    prev = [_rec("a.py", "s", TEN)]
    # equally alike in another file (listed first) and in its own: its own file wins
    cur = [_rec("b.py", "s", TEN[:9] + (b"+x",)), _rec("a.py", "s", TEN[:9] + (b"+y",))]
    acc = account(RNG, prev, cur)
    assert [(c.previous.id, c.current.id) for c in acc.changed] == [(prev[0].id, cur[1].id)]
    assert acc.changed[0].similarity == 0.9
    # alone in another file, it is still the same hunk changed, less the other-file penalty
    acc = account(RNG, prev, cur[:1])
    assert [(c.current.path, c.similarity) for c in acc.changed] == [("b.py", 0.75)]
    # a pair only as alike as the penalty allows is no pair across files
    cur = [_rec("b.py", "s", TEN[:6] + tuple(f"+other{i}".encode() for i in range(4)))]
    assert account(RNG, prev, cur).counts["changed"] == 0


def test_a_body_found_in_its_own_file_and_another_moves_within_its_file():
    body = (b"-old", b"+new")
    prev = [_rec("a.py", "f", body)]
    cur = [_rec("b.py", "f", body), _rec("a.py", "g", body)]
    acc = account(RNG, prev, cur)
    assert [(m.previous.id, m.current.id) for m in acc.moved] == [(prev[0].id, cur[1].id)]
    assert [n.id for n in acc.new] == [cur[0].id]


def _at(path: str, body: tuple[bytes, ...], line: int, ordinal: int = 0) -> HunkRecord:
    """A hunk of `path` whose changed lines start at `line`, its body's key its lines'."""
    return HunkRecord(id=hunk_id(path, "", body, ordinal), path=path, header="@@", section="", old_start=line,
                      old_lines=1, new_start=line, new_lines=1, additions=1, deletions=0, size=10,
                      whitespace_only=False, body=body, body_key=repr(body), old_changed=(line, line),
                      new_changed=(line, line))


def _reference_account(previous: list[HunkRecord], current: list[HunkRecord]) -> dict[str, list]:
    """The account as it was made before its bounds, every pair scored: what it must still be
    within them."""
    import difflib

    from delta.successor import CHANGED_THRESHOLD, OTHER_FILE_PENALTY

    by_id = {h.id: j for j, h in enumerate(current)}
    taken_prev: set[int] = set()
    taken_cur: set[int] = set()
    carried = []
    for i, h in enumerate(previous):
        j = by_id.get(h.id)
        if j is not None and j not in taken_cur:
            carried.append(current[j].id)
            taken_cur.add(j)
            taken_prev.add(i)
    moved = []
    for i, h in enumerate(previous):
        if i in taken_prev:
            continue
        found = [j for j, c in enumerate(current) if j not in taken_cur and c.body_key == h.body_key]
        if found:
            j = min(found, key=lambda j: (current[j].path != h.path, j))
            moved.append((h.id, current[j].id))
            taken_cur.add(j)
            taken_prev.add(i)
    scored = []
    for i, a in enumerate(previous):
        for j, b in enumerate(current):
            if i in taken_prev or j in taken_cur:
                continue
            score = difflib.SequenceMatcher(None, a.body, b.body, autojunk=False).ratio() \
                - OTHER_FILE_PENALTY * (a.path != b.path)
            if score >= CHANGED_THRESHOLD:
                scored.append((score, i, j))
    changed = []
    for score, i, j in sorted(scored, key=lambda t: (-t[0], t[1], t[2])):
        if i not in taken_prev and j not in taken_cur:
            taken_prev.add(i)
            taken_cur.add(j)
            changed.append((i, previous[i].id, current[j].id, round(score, 3)))
    return {"carried": carried, "moved": moved, "changed": [c[1:] for c in sorted(changed)],
            "dropped": [h.id for i, h in enumerate(previous) if i not in taken_prev],
            "new": [h.id for j, h in enumerate(current) if j not in taken_cur]}


_lines = st.lists(st.sampled_from([b"+a", b"+b", b"-a", b"-c", b"+d"]), min_size=1, max_size=6).map(tuple)
_hunks = st.lists(st.tuples(st.sampled_from(["a.py", "b.py"]), _lines), max_size=8)


@settings(max_examples=examples(200), deadline=None)
@given(_hunks, _hunks)
def test_within_its_bounds_the_account_is_every_pair_scored(before, after):
    def made(hunks: list[tuple[str, tuple[bytes, ...]]]) -> list[HunkRecord]:
        seen: dict[tuple[str, tuple[bytes, ...]], int] = {}
        out = []
        for k, (path, body) in enumerate(hunks):
            seen[(path, body)] = seen.get((path, body), -1) + 1
            out.append(_at(path, body, 10 * k, seen[(path, body)]))
        return out

    previous, current = made(before), made(after)
    acc = account(RNG, previous, current)
    want = _reference_account(previous, current)
    assert [c.id for c in acc.carried] == want["carried"]
    assert [(m.previous.id, m.current.id) for m in acc.moved] == want["moved"]
    assert [(c.previous.id, c.current.id, c.similarity) for c in acc.changed] == want["changed"]
    assert [d.id for d in acc.dropped] == want["dropped"] and [n.id for n in acc.new] == want["new"]
    assert acc.unscored is None


def _work(previous: list[HunkRecord], current: list[HunkRecord]):
    import difflib

    import delta.successor as successor

    return counted(lambda: account(RNG, previous, current), [successor.__file__, difflib.__file__])


def test_many_hunks_of_one_file_score_a_bounded_number_of_pairs(monkeypatch):
    """A previous patchset is bounded by its diff text alone: 20,000 small hunks of one file
    against the current's 5,000 of the same file made every pair of them (over 25 minutes).
    Past MAX_PAIRS among a file's pairs, each previous hunk is scored against the current
    hunks nearest its place: the work stops growing, and a hunk edited in place still pairs."""
    import delta.successor as successor

    monkeypatch.setattr(successor, "MAX_PAIRS", 2_000)

    def shape(n: int) -> tuple[list[HunkRecord], list[HunkRecord]]:
        previous = [_at("a.py", (b"-x%d" % k, b"+old%d" % k), 10 * k) for k in range(n)]
        current = [_at("a.py", (b"-x%d" % k, b"+new%d" % k), 10 * k) for k in range(n)]
        return previous, current

    small = _work(*shape(200))[1]
    large_acc, large = _work(*shape(400))
    assert large <= 1.3 * small, (small, large)
    assert large_acc.counts == {"carried": 0, "moved": 0, "changed": 400, "dropped": 0, "new": 0}
    assert [(c.previous.path, c.current.path) for c in large_acc.changed] == [("a.py", "a.py")] * 400
    # within the bound every pair of the file is scored, as before
    within, _ = _work(*shape(40))
    assert within.counts["changed"] == 40 and within.unscored is None


def test_hunks_of_one_line_repeated_are_scored_within_a_bound_of_lines_alike(monkeypatch):
    """difflib's ratio reads, for each line of one body, every place the other holds it: two hunks
    of one line repeated n times cost n squared (2,000 lines: 20 million lines of difflib run).
    Past MATCH_CELLS lines alike a pair is not scored, and the account says so."""
    import delta.successor as successor

    monkeypatch.setattr(successor, "MATCH_CELLS", 100_000, raising=False)

    def shape(n: int) -> tuple[list[HunkRecord], list[HunkRecord]]:
        return [_at("a.py", (b"+x",) * n + (b"+y",), 1)], [_at("a.py", (b"+x",) * n + (b"+z",), 1)]

    small = _work(*shape(1_000))[1]
    large_acc, large = _work(*shape(2_000))
    assert large <= 2.5 * small, (small, large)
    assert large_acc.counts == {"carried": 0, "moved": 0, "changed": 0, "dropped": 1, "new": 1}
    assert large_acc.unscored is not None and large_acc.unscored.unknown == "not_assessed"
    assert large_acc.unscored.reason.startswith("1 of the pairs of a previous and a current hunk were not scored")
    within, _ = _work(*shape(200))  # 40,000 lines alike: scored
    assert within.counts["changed"] == 1 and within.unscored is None


def test_one_body_many_hunks_share_moves_in_work_linear_in_them():
    """A body written in n hunks of one file before and n of another now: each previous hunk
    listed every current one of its body again (the square of n); now the first not yet taken
    is found once for all."""
    def shape(n: int) -> tuple[list[HunkRecord], list[HunkRecord]]:
        return ([_at("a.py", (b"+x",), k, k) for k in range(n)],
                [_at("b.py", (b"+x",), k, k) for k in range(n)])

    small = _work(*shape(1_000))[1]
    large_acc, large = _work(*shape(2_000))
    assert large <= 2.5 * small, (small, large)
    assert [(m.previous.path, m.current.path) for m in large_acc.moved] == [("a.py", "b.py")] * 2_000


def _other(n: int, tag: str) -> tuple[bytes, ...]:
    """A body of `n` lines no other body of these tests shares a line with."""
    return tuple(f"+{tag}{i}".encode() for i in range(n))


def test_within_max_pairs_every_pair_is_scored_across_files(monkeypatch):
    import delta.successor as successor

    monkeypatch.setattr(successor, "MAX_PAIRS", 4)
    prev = [_at("a.py", TEN, 1), _at("a.py", _other(10, "p"), 50)]
    cur = [_at("b.py", TEN[:9] + (b"+x",), 1), _at("a.py", _other(10, "q"), 50)]
    acc = account(RNG, prev, cur)  # 2 x 2 pairs: at the bound, the one across files is scored too
    assert [(c.previous.path, c.current.path) for c in acc.changed] == [("a.py", "b.py")]


def test_past_max_pairs_a_files_pairs_within_it_are_all_scored(monkeypatch):
    # 4 previous x 7 current hunks is past the bound, but the pairs within each file (1 x 6 and
    # 3 x 1) are within it: each previous hunk meets every current one of its file, however far
    import delta.successor as successor

    monkeypatch.setattr(successor, "MAX_PAIRS", 10)
    prev = [_at("f.py", TEN, 1)] + [_at("g.py", _other(10, f"g{k}"), 10 * k) for k in range(3)]
    cur = [_at("f.py", _other(10, f"f{k}"), 10 * k) for k in range(1, 6)] + [_at("f.py", TEN[:9] + (b"+x",), 900),
                                                                             _at("g.py", _other(10, "h"), 5)]
    acc = account(RNG, prev, cur)
    assert [(c.previous.id, c.current.id) for c in acc.changed] == [(prev[0].id, cur[5].id)]


def test_past_max_pairs_in_a_file_a_hunk_meets_those_around_its_place(monkeypatch):
    # 2 x 12 pairs of one file past a bound of 8: each previous hunk meets the 4 current hunks
    # around where it stood, those just above it as well as those below
    import delta.successor as successor

    monkeypatch.setattr(successor, "MAX_PAIRS", 8)
    cur = [_at("a.py", _other(10, f"c{k}"), k) for k in range(1, 13)]
    cur[4] = _at("a.py", TEN[:9] + (b"+x",), 5)  # the hunk at line 6, edited and moved a line up
    prev = [_at("a.py", TEN, 6), _at("a.py", _other(10, "q"), 100)]
    acc = account(RNG, prev, cur)
    assert [(c.previous.id, c.current.id) for c in acc.changed] == [(prev[0].id, cur[4].id)]


def test_the_capture_cap_on_the_previous_patchset_counts_its_files_together(tmp_path):
    # two previous files each within the cap but not together: the second, in path order, is unread
    b = RepoBuilder(tmp_path / "r")
    rows = "".join(f"row {i}\n" for i in range(200))
    fork = b.commit({"a.txt": rows, "b.txt": rows, "calc.py": module(NAMES)})
    v1 = b.commit({"a.txt": rows.replace("row", "line"), "b.txt": rows.replace("row", "item"),
                   "calc.py": module(NAMES, {"fn_a": LONG_A})}, branch="feature", parents=[fork])
    b.tag("feature-v1", v1)
    b.commit({"calc.py": module(NAMES, {"fn_a": LONG_A})}, branch="feature", parents=[fork])
    built = build_delta_packet(tmp_path / "r", "main", "feature", previous_base="main",
                               previous_head="feature-v1", index=False, write=False, capture_cap=4200)
    assert [(u.path, u.reason) for u in built.packet.successor.unread] == [("b.txt", "capture_cap")]


def _summary(tmp_path, monkeypatch, cap: int):
    """The successor account in counts an agent's `delta.packet` answers with, its packet built
    under a capture cap of `cap` bytes."""
    import context_tools
    import delta.packet

    real = delta.packet.build_delta_packet
    monkeypatch.setattr(delta.packet, "build_delta_packet", lambda *a, **k: real(*a, **{**k, "capture_cap": cap}))
    return context_tools.Client(store=str(tmp_path / "home")).call(
        "delta.packet", repo=str(tmp_path / "r"), base="main", head="feature", previous_base="main",
        previous_head="feature-v1").data.successor


def test_current_hunks_at_a_path_the_previous_cap_left_unread_are_uncompared(tmp_path, monkeypatch):
    """The previous b.txt is past the capture cap, unread: the current hunk at b.txt is compared
    with none of the previous patchset's (`uncompared`), not counted new, since what the previous
    b.txt held there is not known. The summary an agent gets counts one unread file and one
    uncompared hunk."""
    b = RepoBuilder(tmp_path / "r")
    rows = "".join(f"row {i}\n" for i in range(200))
    fork = b.commit({"a.txt": rows, "b.txt": rows, "calc.py": module(NAMES)})
    b.tag("feature-v1", b.commit({"a.txt": rows.replace("row", "line"), "b.txt": rows.replace("row", "item"),
                                  "calc.py": module(NAMES, {"fn_a": LONG_A})}, branch="feature", parents=[fork]))
    b.checkout(fork)
    b.commit({"b.txt": rows.replace("row 50\n", "row fifty\n"), "calc.py": module(NAMES, {"fn_a": LONG_A})},
             branch="feature", parents=[fork])
    built = build_delta_packet(tmp_path / "r", "main", "feature", previous_base="main",
                               previous_head="feature-v1", index=False, write=False, capture_cap=4200)
    acc = built.packet.successor
    assert not built.packet.drops and [(u.path, u.reason) for u in acc.unread] == [("b.txt", "capture_cap")]
    [current_b] = [h for h in built.hunk_records if h.path == "b.txt"]
    assert [(h.id, h.path) for h in acc.uncompared] == [(current_b.id, "b.txt")]
    assert acc.counts == {"carried": 1, "moved": 0, "changed": 0, "dropped": 1, "new": 0}
    told = _summary(tmp_path, monkeypatch, 4200)
    assert (told.counts, told.unread, told.uncompared) == (acc.counts, 1, 1)


def test_a_previous_file_the_current_cap_left_unread_takes_no_room_of_the_previous_cap(tmp_path, monkeypatch):
    """The current a.txt is past the capture cap, so the previous a.txt is `current_unread`, its
    hunks not read: they take none of the previous patchset's capture cap, and the previous
    b.txt after it is read within it (carried). The summary counts one unread file, no hunk
    uncompared (the current a.txt's hunks were not read either)."""
    b = RepoBuilder(tmp_path / "r")
    rows = "".join(f"row {i}\n" for i in range(400))
    short = "".join(f"row {i}\n" for i in range(200))
    fork = b.commit({"a.txt": rows, "b.txt": short})
    edited = "".join(f"line {i}\n" if i < 150 else f"row {i}\n" for i in range(400))
    b.tag("feature-v1", b.commit({"a.txt": edited, "b.txt": short.replace("row", "item")},
                                 branch="feature", parents=[fork]))
    b.checkout(fork)
    b.commit({"a.txt": rows.replace("row", "line"), "b.txt": short.replace("row", "item")}, branch="feature",
             parents=[fork])
    built = build_delta_packet(tmp_path / "r", "main", "feature", previous_base="main",
                               previous_head="feature-v1", index=False, write=False, capture_cap=4200)
    p = built.packet
    assert [(d.path, d.reason) for d in p.drops] == [("a.txt", "capture_cap")]
    acc = p.successor
    [unread] = acc.unread
    assert (unread.path, unread.reason) == ("a.txt", "current_unread")
    b_size = next(f.hunks[0].size for f in p.files if f.path == "b.txt")
    assert unread.bytes <= 4200 < unread.bytes + b_size  # read, the two would not fit together
    assert acc.counts == {"carried": 1, "moved": 0, "changed": 0, "dropped": 0, "new": 0} and not acc.uncompared
    told = _summary(tmp_path, monkeypatch, 4200)
    assert (told.counts, told.unread, told.uncompared) == (acc.counts, 1, 0)


def test_a_previous_patchset_of_exactly_the_capture_cap_is_read(tmp_path):
    """The capture cap holds a previous patchset whose diff text is exactly its size, as it holds
    the current one's: a force-push that changed no line carries every hunk, none unread."""
    b = RepoBuilder(tmp_path / "r")
    rows = "".join(f"row {i}\n" for i in range(200))
    fork = b.commit({"a.txt": rows, "calc.py": module(NAMES)})
    head = {"a.txt": rows.replace("row 9\n", "row nine\n"), "calc.py": module(NAMES, {"fn_a": LONG_A})}
    b.tag("feature-v1", b.commit(head, branch="feature", parents=[fork], message="v1"))
    b.checkout(fork)
    b.commit(head, branch="feature", parents=[fork], message="v2")
    whole = build_delta_packet(tmp_path / "r", "main", "feature", index=False, write=False).packet
    size = whole.totals.diff_bytes
    for cap, unread in ((size, []), (size - 1, [("calc.py", "capture_cap")])):
        acc = build_delta_packet(tmp_path / "r", "main", "feature", previous_base="main", previous_head="feature-v1",
                                 index=False, write=False, capture_cap=cap).packet.successor
        assert [(u.path, u.reason) for u in acc.unread] == unread, cap
