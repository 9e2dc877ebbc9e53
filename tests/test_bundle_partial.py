"""Partial bundles: a batch worker's bundle leaves out the blob facts the central store holds.
Imported, the snapshot is the one a full bundle gives; a bundle that leaves out a fact the store
does not hold is refused whole, whether the store lacked it when the bundle was checked or lost
it before the commit."""

from __future__ import annotations

import secrets

import pytest

from corpora.gitbuild import RepoBuilder
from indexer.api import index, snapshot
from indexer.contract.errors import RennetError
from indexer.fleet import bundle
from indexer.fleet.signing import TRAILER_BYTES, sign, split
from indexer.store.database import Store
from indexer.store.records import NO_FACTS, entry_facts_key

KEY = secrets.token_bytes(32)


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """Two commits; the second changes one file. `sub.py` declares a base in a file that does
    not change, so the fingerprint of the second commit reads its full facts from the store."""
    tmp = tmp_path_factory.mktemp("partial")
    builder = RepoBuilder(tmp / "repo")
    files = {
        "app/base.py": "class Base:\n    def run(self):\n        return 1\n",
        "app/sub.py": "from app.base import Base\n\n\nclass Sub(Base):\n    pass\n",
        "app/util.py": "def helper():\n    return 2\n",
        "README.md": "# partial\n",
    }
    first = builder.commit(files)
    second = builder.commit({"app/util.py": "def helper():\n    return 3\n\n\ndef other():\n    return 4\n"})
    worker = Store.open(tmp / "worker")
    for oid in (first, second):
        index(str(builder.path), oid, store=worker, workers=1)
    return builder.path, first, second, worker


def _keys(snap) -> frozenset[bytes]:
    version = snap.record.extractor_version
    return frozenset(entry_facts_key(f, version) for f in snap.record.files if f.language not in NO_FACTS)


def _bundle(worker: Store, repo, oid: str, held: frozenset[bytes] = frozenset(), key: bytes | None = KEY) -> bytes:
    chunks, _ = bundle.make(snapshot(str(repo), oid, store=worker, index_if_absent=False), key, held)
    return b"".join(chunks)


def _central(tmp_path, worker: Store, repo, first: str) -> Store:
    """A store that holds the first commit, imported from a full bundle."""
    central = Store.open(tmp_path / "central")
    bundle.import_data(central, _bundle(worker, repo, first), key=KEY)
    return central


def _snapshots(store: Store) -> int:
    with store.env.begin() as txn:
        return txn.stat(store.snapshots)["entries"]


def test_a_partial_bundle_carries_only_what_the_store_lacks_and_imports_as_the_full_one(history, tmp_path):
    repo, first, second, worker = history
    central = _central(tmp_path, worker, repo, first)
    held = _keys(snapshot(str(repo), first, store=worker, index_if_absent=False))
    data = _bundle(worker, repo, second, held)
    header, _ = bundle.parse_header(split(data)[0])
    assert header.facts == 1  # app/util.py's new blob; the other three are the first commit's
    report = bundle.import_data(central, data, key=KEY, compare_held=False, partial=True)
    assert (report.snapshot_new, report.facts_new, report.facts_total) == (True, 1, 4)
    ours = b"".join(snapshot(str(repo), second, store=central, index_if_absent=False).canonical_lines())
    theirs = b"".join(snapshot(str(repo), second, store=worker, index_if_absent=False).canonical_lines())
    assert ours == theirs
    assert any(b'"type":"edge"' in line and b'"kind":"inherits"' in line for line in ours.splitlines())


def test_a_partial_bundle_into_a_store_without_its_facts_is_refused_whole(history, tmp_path):
    repo, first, second, worker = history
    held = _keys(snapshot(str(repo), first, store=worker, index_if_absent=False))
    empty = Store.open(tmp_path / "empty")
    with pytest.raises(bundle.BadBundle, match="does not hold them either"):
        bundle.import_data(empty, _bundle(worker, repo, second, held), key=KEY, compare_held=False, partial=True)
    assert _snapshots(empty) == 0


def test_a_partial_bundle_is_only_read_as_one_when_the_importer_says_so(history, tmp_path):
    repo, first, second, worker = history
    central = _central(tmp_path, worker, repo, first)
    held = _keys(snapshot(str(repo), first, store=worker, index_if_absent=False))
    with pytest.raises(bundle.BadBundle, match="bundle lacks the facts of"):  # `rennet import`: whole bundles only
        bundle.import_data(central, _bundle(worker, repo, second, held), key=KEY)
    with pytest.raises(bundle.BadBundle, match="bundle lacks the facts of"):  # unsigned: `partial` needs a key
        bundle.import_data(central, _bundle(worker, repo, second, held, key=None), partial=True)
    assert _snapshots(central) == 1


def test_facts_the_store_loses_before_the_commit_refuse_the_bundle(history, tmp_path):
    repo, first, second, worker = history
    central = _central(tmp_path, worker, repo, first)
    held = _keys(snapshot(str(repo), first, store=worker, index_if_absent=False))
    verified = bundle.check(split(_bundle(worker, repo, second, held))[0], central)
    assert verified.held and set(verified.held) <= held
    with central.env.begin(write=True) as txn:  # as a `store gc` between the check and the commit would
        txn.delete(verified.held[0], db=central.facts)
    with pytest.raises(bundle.BadBundle, match="no longer holds"):
        bundle._load(central, verified, None, None, None, compare_held=False)
    assert _snapshots(central) == 1


def test_the_fingerprint_is_recomputed_over_the_facts_the_store_holds(history, tmp_path):
    """The facts a bundle leaves out count as the store's, not as the worker's: where the store
    holds other facts under such a key, the worker's fingerprint does not come out again."""
    repo, first, second, worker = history
    central = _central(tmp_path, worker, repo, first)
    first_keys = _keys(snapshot(str(repo), first, store=worker, index_if_absent=False))
    shared = sorted(first_keys & _keys(snapshot(str(repo), second, store=worker, index_if_absent=False)))
    with central.env.begin(write=True) as txn:  # base.py's key now holds sub.py's facts
        txn.put(shared[0], txn.get(shared[1], db=central.facts), db=central.facts)
    data = _bundle(worker, repo, second, first_keys)
    with pytest.raises(bundle.BadBundle, match="fingerprint recomputed"):
        bundle.import_data(central, data, key=KEY, compare_held=False, partial=True)
    assert _snapshots(central) == 1


def test_bundles_imported_together_may_leave_out_what_an_earlier_one_carries(history, tmp_path):
    """A batch driver's transaction of a stream's bundles: the second leaves out the facts of the
    first, which the store does not hold yet; both go in, as the whole bundles would."""
    repo, first, second, worker = history
    held = _keys(snapshot(str(repo), first, store=worker, index_if_absent=False))
    central = Store.open(tmp_path / "central")
    reports = bundle.import_signed(central, [(_bundle(worker, repo, first), None, None),
                                             (_bundle(worker, repo, second, held), None, None)], KEY)
    assert [type(r) for r in reports] == [bundle.ImportReport, bundle.ImportReport]
    assert [r.provenance for r in reports] == ["signed", "signed"]  # type: ignore[union-attr]
    for oid in (first, second):
        ours = b"".join(snapshot(str(repo), oid, store=central, index_if_absent=False).canonical_lines())
        assert ours == b"".join(snapshot(str(repo), oid, store=worker, index_if_absent=False).canonical_lines())


def test_bundles_imported_together_commit_their_records_in_one_transaction(history, tmp_path, monkeypatch):
    """The second bundle leaves out what the first carries: both records still go in together,
    one transaction, not each alone after a refusal (the fallback that would also land both)."""
    from indexer.store import commit

    repo, first, second, worker = history
    held = _keys(snapshot(str(repo), first, store=worker, index_if_absent=False))
    write = commit.commit_snapshots
    transactions: list[int] = []

    def counted(store, writes):
        transactions.append(len(writes))
        return write(store, writes)

    monkeypatch.setattr(commit, "commit_snapshots", counted)
    central = Store.open(tmp_path / "central")
    reports = bundle.import_signed(central, [(_bundle(worker, repo, first), None, None),
                                             (_bundle(worker, repo, second, held), None, None)], KEY)
    assert [type(r) for r in reports] == [bundle.ImportReport] * 2 and transactions == [2]


def test_a_fact_two_bundles_carry_is_new_for_the_first_alone(history, tmp_path):
    """Two whole bundles imported together, the second carrying the facts of the first's blobs
    it shares: each fact put counts as new once, for the first bundle that carries it."""
    repo, first, second, worker = history
    keys = [_keys(snapshot(str(repo), oid, store=worker, index_if_absent=False)) for oid in (first, second)]
    central = Store.open(tmp_path / "central")
    reports = bundle.import_signed(central, [(_bundle(worker, repo, first), None, None),
                                             (_bundle(worker, repo, second), None, None)], KEY)
    assert [r.facts_new for r in reports] == [len(keys[0]), len(keys[1] - keys[0])]  # type: ignore[union-attr]
    with central.env.begin() as txn:
        assert txn.stat(central.facts)["entries"] == len(keys[0] | keys[1])


def test_a_refused_bundle_fails_alone_and_one_that_needed_its_facts_fails_too(history, tmp_path):
    repo, first, second, worker = history
    held = _keys(snapshot(str(repo), first, store=worker, index_if_absent=False))
    tampered = bytearray(_bundle(worker, repo, first))
    tampered[-TRAILER_BYTES - 1] ^= 0x01  # the body's last byte, under the signature
    central = Store.open(tmp_path / "central")
    reports = bundle.import_signed(central, [(bytes(tampered), None, None),
                                             (_bundle(worker, repo, second, held), None, None)], KEY)
    assert isinstance(reports[0], bundle.BadBundle) and not isinstance(reports[0], bundle.LackingFacts)
    assert isinstance(reports[1], bundle.LackingFacts) and reports[1].code == "bad_bundle"
    assert _snapshots(central) == 0
    # the second alone, whole, goes in: a refused one takes nothing else along
    [report] = bundle.import_signed(central, [(_bundle(worker, repo, second), None, None)], KEY)
    assert isinstance(report, bundle.ImportReport) and _snapshots(central) == 1


def test_a_batch_bundle_signed_with_another_key_or_none_is_refused(history, tmp_path):
    """What a batch's workers send is believed only under the run's key: a whole, self-consistent
    bundle signed with another key, or not signed, is `bad_bundle` and nothing is written."""
    repo, first, _, worker = history
    central = Store.open(tmp_path / "central")
    reports = bundle.import_signed(central, [(_bundle(worker, repo, first, key=secrets.token_bytes(32)), None, None),
                                             (_bundle(worker, repo, first, key=None), None, None)], KEY)
    assert [type(r) for r in reports] == [bundle.BadBundle, bundle.BadBundle], reports
    assert "signature does not match" in reports[0].message and "not signed" in reports[1].message
    assert _snapshots(central) == 0


def _another_fingerprint(data: bytes) -> bytes:
    """The bundle `data` of a commit made again with one file's rank moved and its fingerprint
    recomputed, signed with the run's key: self-consistent, the same commit under another
    fingerprint (a worker whose store went wrong, say)."""
    import zlib

    import msgspec

    from indexer.fleet.carried_facts import content, fingerprint_table
    from indexer.model import SnapshotRecord
    from indexer.store.canonical import fingerprint

    checked = bundle.check(split(data)[0])
    record = msgspec.msgpack.decode(checked.record_bytes, type=SnapshotRecord)
    record.rank = dict(record.rank)
    record.rank[record.files[0].path] += 0.5
    keys = {f.path: entry_facts_key(f, record.extractor_version) for f in record.files if f.language not in NO_FACTS}
    record.fingerprint = fingerprint(record, fingerprint_table(keys, [checked.facts]))
    raw = msgspec.msgpack.encode(bundle.Body(msgspec.msgpack.encode(record), [
        bundle.FactsEntry(k, bytes(content(checked.facts.raw[k]))) for k in checked.facts]))
    body = zlib.compress(raw)
    header = dict(msgspec.structs.asdict(checked.header), fingerprint=record.fingerprint, body_bytes=len(body),
                  raw_bytes=len(raw), digest="")
    header["digest"] = bundle._digest(header, body)
    return sign(bundle.MAGIC + bundle._header_line(header) + b"\n" + body, KEY)


def test_a_bundle_the_commit_refuses_fails_alone(history, tmp_path):
    """docs/fleet.md: the driver imports a stream's bundles in one transaction; should the
    commit refuse one (a snapshot the store holds under another fingerprint), each is
    committed alone instead, so only that one fails and the others are stored."""
    repo, first, second, worker = history
    central = _central(tmp_path, worker, repo, first)
    conflicting = _another_fingerprint(_bundle(worker, repo, first))
    reports = bundle.import_signed(central, [(conflicting, None, None), (_bundle(worker, repo, second), None, None)], KEY)
    assert isinstance(reports[0], bundle.FingerprintConflict), reports
    assert isinstance(reports[1], bundle.ImportReport) and reports[1].snapshot_new
    assert _snapshots(central) == 2


def test_bundle_bytes_past_the_cap_are_refused_in_memory_too(history, tmp_path, monkeypatch):
    """A bundle's bytes handed over in memory (a batch worker's) are held to the cap a bundle
    file is (MAX_BUNDLE_BYTES, lowered here to the bundle's size less one): `bad_bundle`,
    nothing written; at the cap they are read."""
    repo, first, _, worker = history
    data = _bundle(worker, repo, first)
    monkeypatch.setattr(bundle, "MAX_BUNDLE_BYTES", len(data) - 1)
    central = Store.open(tmp_path / "central")
    with pytest.raises(bundle.BadBundle, match=f"bundle is {len(data)} bytes, over the cap"):
        bundle.import_data(central, data, key=KEY)
    [refused] = bundle.import_signed(central, [(data, None, None)], KEY)
    assert isinstance(refused, bundle.BadBundle) and f"bundle is {len(data)} bytes, over the cap" in refused.message
    assert _snapshots(central) == 0
    monkeypatch.setattr(bundle, "MAX_BUNDLE_BYTES", len(data))
    [report] = bundle.import_signed(central, [(data, None, None)], KEY)
    assert isinstance(report, bundle.ImportReport) and _snapshots(central) == 1


def test_a_partial_bundle_counts_the_symbols_of_the_facts_it_leaves_out(history, tmp_path, monkeypatch):
    """The `symbols` cap holds a partial bundle's snapshot whole: the definitions of the files
    whose facts the store holds count with those it carries. Under a cap one short of the
    snapshot's (more than the files it carries define), it is `bad_bundle`, nothing written."""
    repo, first, second, worker = history
    central = _central(tmp_path, worker, repo, first)
    held = _keys(snapshot(str(repo), first, store=worker, index_if_absent=False))
    data = _bundle(worker, repo, second, held)
    symbols = snapshot(str(repo), second, store=worker, index_if_absent=False).record.symbols
    assert symbols > 2  # app/util.py, the one file it carries facts of, defines 2
    monkeypatch.setenv("RENNET_LIMITS", f"symbols={symbols - 1}")
    with pytest.raises(bundle.BadBundle, match=f"define {symbols} symbols together"):
        bundle.import_data(central, data, key=KEY, compare_held=False, partial=True)
    assert _snapshots(central) == 1
    monkeypatch.setenv("RENNET_LIMITS", f"symbols={symbols}")
    assert bundle.import_data(central, data, key=KEY, compare_held=False, partial=True).snapshot_new


def test_a_batch_bundle_is_linked_only_to_a_repository_holding_its_commit(history, tmp_path):
    """A job's bundle is linked to the repository the job names only where that repository
    holds the bundle's commit: elsewhere it is `missing_objects`, and nothing is written."""
    repo, first, _, worker = history
    other = RepoBuilder(tmp_path / "other")
    other.commit({"x.py": "x = 1\n"})
    central = Store.open(tmp_path / "central")
    [refused] = bundle.import_signed(central, [(_bundle(worker, repo, first), str(other.path), None)], KEY)
    assert isinstance(refused, RennetError) and refused.code == "missing_objects", refused
    assert _snapshots(central) == 0


def test_an_unchecked_bundle_of_a_commit_the_store_lacks_goes_in_new(history, tmp_path):
    """A batch bundle whose commit the driver could not read (a job named by URL), into a
    store holding no snapshot of that commit, goes in as a new snapshot: there is nothing for
    it to complete, and no internal error."""
    repo, first, _, worker = history
    with Store.open(tmp_path / "central") as central:
        [done] = bundle.import_signed(central, [(_bundle(worker, repo, first), None, None)], KEY, unchecked={0})
        assert isinstance(done, bundle.ImportReport) and done.snapshot_new and _snapshots(central) == 1


def test_a_bundle_linked_to_no_repository_reports_no_rev_pinned(history, tmp_path):
    """A rev with no repository to pin it in pins nothing, and the report says none was."""
    repo, first, _, worker = history
    with Store.open(tmp_path / "central") as central:
        [done] = bundle.import_signed(central, [(_bundle(worker, repo, first), None, "main")], KEY)
        assert isinstance(done, bundle.ImportReport) and (done.pinned_repo, done.pinned_rev) == (None, None)
