"""The successor account over a force-pushed second patchset: carried (same id), moved
(same body, other place), changed (cost match), dropped and new; never by dates."""

from __future__ import annotations

from corpora.gitbuild import RepoBuilder
from delta import build_delta_packet
from delta.hunks import HunkRecord, hunk_id
from delta.range import RangeIdentity
from delta.successor import account


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
