"""Rank arcs kept with each snapshot and updated by a re-index: the rows carried over and the
rows computed again must give exactly the arcs, ranks and bytes a cold index gives."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from corpora.gitbuild import Link, RepoBuilder
from indexer import api
from indexer.rank import arcs as rank_arcs
from indexer.rank import graph
from indexer.rank.arcs import load_rank_arcs
from indexer.store import facts_writer
from indexer.store.database import Store


def _core(i: int) -> str:
    return (f"def common():\n    return {i}\n\n\ndef unique_{i}():\n    return common()\n\n\n"
            f"class Widget{i}:\n    pass\n")


def _user(j: int) -> str:
    return (f"from lib.core{j} import unique_{j}\n\n\ndef run_{j}():\n"
            f"    return unique_{j}(), Widget{j}(), common(), shared_name, parseConfigValue()\n")


def _base() -> dict[str, object]:
    files: dict[str, object] = {f"lib/core{i}.py": _core(i) for i in range(25)}  # `common`: 25 definers
    files.update({f"app/use{j}.py": _user(j) for j in range(10)})
    files["app/use9.py"] = "import lib.later\n" + _user(9)  # resolves once lib/later.py arrives
    files.update({
        "lib/__init__.py": "", "app/__init__.py": "",
        "lib/shared.py": "shared_name = 1\n\n\ndef parseConfigValue():\n    return shared_name\n",
        "app/main.py": "import lib.core0\n\n\ndef main():\n    return parseConfigValue(), unique_0()\n",
        "app/plain.py": "def plain():\n    return parseConfigValue(), unique_3(), Widget2()\n",  # uses, no imports
        # web/app.ts's import follows tsconfig's paths: a tsconfig change moves its target
        "tsconfig.json": _tsconfig("web/one/*"),
        "web/app.ts": "import { helper } from \"@h/helper\";\n\nexport function start() {\n  return helper();\n}\n",
        "web/one/helper.ts": "export function helper() {\n  return 1;\n}\n",
        "web/two/helper.ts": "export function helper() {\n  return 2;\n}\n",
    })
    return files


def _tsconfig(target: str) -> str:
    return f'{{"compilerOptions": {{"baseUrl": ".", "paths": {{"@h/*": ["{target}"]}}}}}}\n'


# Each step changes what one rule of the update must notice.
STEPS: list[tuple[str, dict[str, object]]] = [
    ("a body uses one more name", {"app/use3.py": _user(3) + "\n\ndef more():\n    return unique_4()\n"}),
    ("a name gets a second definer", {"lib/core5.py": _core(5) + "\n\ndef unique_2():\n    return 0\n"}),
    ("a definer goes (25 -> 24 definers of common: still too many)", {"lib/core7.py": None}),
    ("common falls to 20 definers: its uses start to count",
     {f"lib/core{i}.py": None for i in (8, 9, 10, 11)}),
    ("a definition changes kind (variable -> function)",
     {"lib/shared.py": "def shared_name():\n    return 1\n\n\ndef parseConfigValue():\n    return shared_name\n"}),
    ("a file moves", {"app/use1.py": None, "app/moved.py": _user(1)}),
    ("imports change; a binary file and a link arrive",
     {"app/main.py": "import lib.core1\n\n\ndef main():\n    return parseConfigValue()\n",
      "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00binary", "app/link.py": Link("app/main.py")}),
    ("a second file defines the long compound name", {"tools/config.py": "def parseConfigValue():\n    return 2\n"}),
    ("common back over the limit", {"lib/core30.py": _core(30)}),
    ("an unchanged file's import starts to resolve", {"lib/later.py": "VALUE = 1\n"}),
    ("a module that uses others, importing nothing, becomes a link", {"app/plain.py": Link("app/use6.py")}),
    ("a module becomes binary", {"app/use4.py": b"\x00\x01binary now\x00"}),
    ("an unchanged file's import lands elsewhere, no path added or removed", {"tsconfig.json": _tsconfig("web/two/*")}),
    # lib/shared.py defines names app/ uses; a mark takes them out of the rank, no blob changes
    ("an unchanged definer turns vendored", {".gitattributes": "lib/shared.py linguist-vendored\n"}),
    ("and is ours again", {".gitattributes": None}),
]


def _arrays(arcs: rank_arcs.RankArcs) -> list[list]:
    return [a.tolist() for a in arcs]


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """The repository of the base and STEPS, and what a cold index of each commit computes
    (fingerprint, rank, arcs): the reference both ways of writing are held to, made once."""
    root = tmp_path_factory.mktemp("arcs")
    builder = RepoBuilder(root / "repo")
    commits = [("base", builder.commit(_base(), message="base"))]
    for label, change in STEPS:
        commits.append((label, builder.commit(change, message=label)))
    cold = []
    for i, (_, oid) in enumerate(commits):
        with Store.open(root / f"cold{i}") as cold_store:
            report = api.index(str(builder.path), oid, store=cold_store, workers=1)
            snap = api.snapshot(str(builder.path), oid, store=cold_store)
            cold.append((report.fingerprint, snap.rank, _arrays(load_rank_arcs(cold_store, oid))))
    return builder.path, commits, cold


@pytest.mark.parametrize("writes_held", [False, True], ids=["writes-as-they-come", "writes-after-the-arcs"])
def test_a_re_index_updates_the_arcs_to_exactly_what_a_cold_index_computes(tmp_path, monkeypatch, writes_held,
                                                                          history):
    """`writes_held`: the parsed blobs' facts reach the store only once the arcs are updated,
    so the update can learn the new blobs' names only from what the writer has not written."""
    used: list[bool] = []
    real_update = rank_arcs.update
    updated = threading.Event()
    written_after_update: list[bool] = []

    def watched(*args, **kwargs):  # the real update, observed: was it taken, did it answer?
        result = real_update(*args, **kwargs)
        used.append(result is not None)
        updated.set()
        return result

    monkeypatch.setattr(rank_arcs, "update", watched)
    path, commits, cold = history
    warm_store = Store.open(tmp_path / "warm")
    real_send = facts_writer._write_frame

    in_passing = facts_writer.FactsWriter.IN_PASSING
    reindexing = False  # an index of a commit after the base (the warm store's first)

    def held_send(pipe, frame):  # on the sending thread, while the index goes on
        if reindexing:
            written_after_update.append(updated.wait(timeout=60))
        real_send(pipe, frame)

    if writes_held:
        monkeypatch.setattr(facts_writer.FactsWriter, "IN_PASSING", 0)  # every batch to the writer process
        monkeypatch.setattr(facts_writer, "_write_frame", held_send)
    try:
        for i, (label, oid) in enumerate(commits):
            updated.clear()
            reindexing = i > 0
            with monkeypatch.context() as m:
                if not (writes_held and reindexing):  # only a re-index's writes are held
                    m.setattr(facts_writer.FactsWriter, "IN_PASSING", in_passing)
                warm = api.index(str(path), oid, store=warm_store, workers=1)
            fingerprint, rank, arcs = cold[i]
            assert warm.fingerprint == fingerprint, label
            assert api.snapshot(str(path), oid, store=warm_store).rank == rank, label
            assert _arrays(load_rank_arcs(warm_store, oid)) == arcs, label
        assert used == [True] * len(STEPS)  # every re-index updated the earlier arcs
        if writes_held:
            assert written_after_update and all(written_after_update)
    finally:
        warm_store.close()


def test_arcs_arrays_give_the_rank_of_the_weights_they_hold():
    nodes = ["a.py", "b.py", "c.py", "d.py"]
    weights = {"a.py": {"b.py": 2.0, "c.py": 0.5}, "b.py": {"c.py": 1.0}, "c.py": {"a.py": 0.1, "b.py": 0.3}}
    arcs = rank_arcs.from_weights(nodes, weights)
    assert arcs.lengths.tolist() == [2, 1, 2, 0]
    assert arcs.targets.tolist() == [1, 2, 2, 0, 1]  # each row's arcs in the order they were made
    assert arcs.totals.tolist() == [2.5, 1.0, 0.1 + 0.3, 0.0]
    x = graph.pagerank(arcs, graph.teleport_to(nodes, None))
    assert x[3] < min(x[:3])  # d.py: nobody points at it
    assert abs(sum(x) - 1.0) < 1e-9
    again = rank_arcs.unpack(rank_arcs.pack(arcs))
    assert _arrays(again) == _arrays(arcs)


@pytest.mark.parametrize("damage", ["truncated", "trailing", "lengths", "target", "target_one_past"])
def test_arcs_that_do_not_read_whole_are_refused(damage):
    arcs = rank_arcs.from_weights(["a", "b"], {"a": {"b": 1.0}, "b": {"a": 2.0}})
    data = bytearray(rank_arcs.pack(arcs))
    if damage == "truncated":
        data = data[:-3]
    elif damage == "trailing":
        data += b"\x00" * 8
    elif damage == "target_one_past":
        data[16:20] = np.array([2], dtype="<i4").tobytes()  # rows are 0 and 1
    elif damage == "lengths":
        data[8:12] = np.array([5], dtype="<i4").tobytes()  # first row claims 5 arcs of 2
    else:
        data[16:20] = np.array([7], dtype="<i4").tobytes()  # an arc to a row that does not exist
    assert rank_arcs.unpack(bytes(data)) is None


# the last: whole arcs, but of one row where the snapshot has more (another snapshot's)
@pytest.mark.parametrize("damage", [b"z\x00garbage", b"p\x01\x02",
                                    b"p" + rank_arcs.pack(rank_arcs.from_weights(["x.py"], {}))],
                         ids=["zlib-garbage", "plain-short", "another-snapshots-rows"])
def test_damaged_stored_arcs_are_computed_whole_again(tmp_path, damage):
    from indexer.store.records import snapshot_key
    from indexer.store.versions import snapshot_version

    builder = RepoBuilder(tmp_path / "repo")
    first = builder.commit(_base())
    second = builder.commit(dict(STEPS[1][1]))
    with Store.open(tmp_path / "warm") as store:
        api.index(str(builder.path), first, store=store, workers=1)
        with store.env.begin(write=True) as txn:  # what a foreign or torn write could leave
            txn.put(snapshot_key(first, snapshot_version()), damage, db=store.rank)
        assert load_rank_arcs(store, first) is None or load_rank_arcs(store, first).rows() == 1
        warm = api.index(str(builder.path), second, store=store, workers=1)
        with Store.open(tmp_path / "cold") as cold_store:
            cold = api.index(str(builder.path), second, store=cold_store, workers=1)
            assert warm.fingerprint == cold.fingerprint
            assert _arrays(load_rank_arcs(store, second)) == _arrays(load_rank_arcs(cold_store, second))
