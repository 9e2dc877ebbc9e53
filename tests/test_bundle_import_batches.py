"""A bundle's import holds the store's one writer a batch of facts at a time, never for the
whole import: a call's receipt written meanwhile goes in between two batches, and the snapshot
becomes visible only in the import's last transaction, so a kill between batches leaves facts
no snapshot holds and a second import completes it (docs/store.md, "What is crash-safe").

The bundle is the benchmarks' generated corpus's (`synthetic_bundle`), signed, imported into a
real store. The imports that are stopped are `rennet import` processes, each held, through a
wrapper of `commit_facts` in its own process, once two batches of facts are committed: a state
of the import, never a time."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
from pathlib import Path

import pytest

from context_tools.faces import ledger
from indexer.fleet import bundle, signing
from indexer.store.database import Store
from indexer.store.records import snapshot_key
from tests.test_context_world import PY, ROOT, cli_env
from tests.test_interrupt import _facts_and_names, ended_within

KEY = "k" * 32
BATCH = 64  # the import's IMPORT_BLOBS in these tests: the corpus's facts fill many batches

# `rennet import`, its batches of BATCH blobs, each batch's count of facts put told on stdout,
# held (reading a byte of stdin) once the second is committed.
_HELD_BETWEEN_BATCHES = """
import os, sys
from indexer.fleet import bundle
from indexer.store import commit
bundle.IMPORT_BLOBS = BATCH
write = getattr(commit, "commit_facts", None)
batches = []
def write_and_hold(*args, **kwargs):
    put = write(*args, **kwargs)
    batches.append(len(put))
    os.write(1, f"batch {len(put)}\\n".encode())
    if len(batches) == 2:
        os.write(1, b"held\\n")
        os.read(0, 1)
    return put
commit.commit_facts = write_and_hold
sys.argv = ["rennet", *sys.argv[1:]]
from context_tools.faces.cli import run
run()
""".replace("BATCH", str(BATCH))


@pytest.fixture(scope="module")
def signed(synthetic_bundle, tmp_path_factory) -> tuple[Path, bundle.Header]:
    """The corpus's bundle signed with KEY: it goes into the shared store, proved by its key."""
    path = tmp_path_factory.mktemp("signed") / "s.rnb"
    data = signing.sign(synthetic_bundle.read_bytes(), KEY.encode())
    path.write_bytes(data)
    header, _ = bundle.parse_header(data)
    assert header.facts > 8 * BATCH  # batches enough that two committed leave most to write
    return path, header


def _held_import(path: Path, home: Path) -> subprocess.Popen:
    """A `rennet import` of `path` into `home`, started and read until it is held between its
    second and third batch of facts."""
    p = subprocess.Popen([PY, "-c", _HELD_BETWEEN_BATCHES, "import", str(path), "--sign-key-env", "RENNET_TEST_KEY",
                          "--store", str(home), "--json"], cwd=ROOT, env=cli_env(None, RENNET_TEST_KEY=KEY),
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    said = _said_until_held(p)
    if said[-1:] != ["held"]:
        out, err = ended_within(p, 120, "the import neither held nor ended")
        pytest.fail(f"the import committed no facts apart from its snapshot: {said}, {out[-300:]}, {err[-300:]}")
    assert said == [f"batch {BATCH}"] * 2 + ["held"]
    return p


def _said_until_held(p: subprocess.Popen) -> list[str]:
    """The lines `p` writes until it says `held`, or ends, or writes nothing for two minutes;
    read from its pipe unbuffered, so that nothing it said waits in a buffer select cannot see."""
    assert p.stdout is not None
    fd, text, lines = p.stdout.fileno(), b"", []
    while "held" not in lines and select.select([fd], [], [], 120)[0] and (chunk := os.read(fd, 4096)):
        text += chunk
        *done, rest = text.split(b"\n")
        lines += [line.decode() for line in done]
        text = rest
    return lines


def _stored(home: Path, header: bundle.Header) -> tuple[int, bool]:
    """(blob facts the store holds, whether it holds the bundle's snapshot)."""
    with Store.open(home) as store, store.env.begin() as txn:
        return (txn.stat(store.facts)["entries"],
                txn.get(snapshot_key(header.oid, header.extractor_version), db=store.snapshots) is not None)


def test_a_receipt_goes_in_between_two_batches_of_a_bundles_import(signed, tmp_path):
    """A receipt (the MCP and CLI faces' `ledger.append`) written while an import is held between
    batches is committed at once, before the import ends, and stays; meanwhile the store holds
    the two batches' facts and no snapshot. Every batch holds at most the import's bound (was:
    the import held the store's writer from its first fact to its snapshot, in one transaction,
    so a receipt waited the whole import: 13 s for a bundle of 50,000 files)."""
    path, header = signed
    home = tmp_path / "store"
    p = _held_import(path, home)
    try:
        receipt = ledger.Receipt(at="now", command="context.symbol", surface="mcp", input_digest="d", outcome="ok")
        with Store.open(home) as store:
            ledger.append(store, receipt)
            assert list(ledger.receipts(store)) == [receipt]
        assert _stored(home, header) == (2 * BATCH, False)
        assert p.poll() is None  # still held: the receipt went in before the import's end
    finally:
        assert p.stdin is not None
        p.stdin.write("x")
        p.stdin.flush()
    out, err = ended_within(p, 120, "the import did not end once let go")
    assert p.returncode == 0, err
    batches = [BATCH, BATCH] + [int(line.split()[1]) for line in out.splitlines() if line.startswith("batch ")]
    report = json.loads(out.splitlines()[-1])["data"]
    assert max(batches) <= BATCH and sum(batches) == report["facts_new"] == header.facts
    assert report["snapshot_new"] and report["fingerprint"] == header.fingerprint
    with Store.open(home) as store:
        assert receipt in list(ledger.receipts(store))
    assert _stored(home, header) == (header.facts, True)


def test_an_import_killed_between_batches_leaves_no_snapshot_and_a_second_completes_it(signed, tmp_path):
    """SIGKILL to an import held between two batches: the store opens and holds those batches'
    facts and no snapshot of the bundle; importing the bundle again writes only the facts it
    lacks and leaves the very store an import never stopped leaves (facts, name index, record)."""
    path, header = signed
    home = tmp_path / "store"
    p = _held_import(path, home)
    p.kill()
    out, err = ended_within(p, 30, "the import did not end on SIGKILL")
    assert (p.returncode, err) == (-signal.SIGKILL, ""), err
    assert _stored(home, header) == (2 * BATCH, False)
    with Store.open(home) as store:
        report = bundle.import_bundle(store, path, key=KEY.encode())
        assert (report.facts_new, report.snapshot_new) == (header.facts - 2 * BATCH, True)
        resumed = _facts_and_names(store), _records(store)
    with Store.open(tmp_path / "whole") as store:
        assert bundle.import_bundle(store, path, key=KEY.encode()).facts_new == header.facts
        assert resumed == (_facts_and_names(store), _records(store))


def _records(store: Store) -> list[tuple[bytes, bytes]]:
    with store.env.begin() as txn:
        return [(bytes(k), bytes(v)) for k, v in txn.cursor(db=store.snapshots).iternext()]


def test_a_bundle_differing_from_a_stored_fact_past_many_batches_writes_nothing(signed, tmp_path, monkeypatch):
    """The store holds other facts under the bundle's last key (sorted, so the last a batch would
    reach): the import is refused `bad_bundle` and writes none of the facts before it, though
    they fill many batches, since every held fact is compared before the first batch."""
    import msgspec

    from indexer.model import Occurrence
    from indexer.store.commit import commit_facts
    from indexer.store.records import stored_facts

    path, header = signed
    monkeypatch.setattr(bundle, "IMPORT_BLOBS", BATCH)
    verified = bundle.check(signing.verify(path.read_bytes(), KEY.encode()))
    last = sorted(verified.facts)[-1]
    planted = verified.facts[last]
    planted = msgspec.structs.replace(planted, occurrences=[*planted.occurrences, Occurrence("planted", 1, 1, "r")])
    with Store.open(tmp_path / "store") as store:
        assert commit_facts(store, [stored_facts(last, planted)]) == [last]
        with pytest.raises(bundle.BadBundle, match="differ from the ones this store holds"):
            bundle.import_bundle(store, path, key=KEY.encode())
    assert _stored(tmp_path / "store", header) == (1, False)


def test_a_batch_ends_at_its_byte_bound_the_blob_passing_it_last(signed, tmp_path, monkeypatch):
    """A batch holds at most IMPORT_BYTES of stored facts and the blob that passes it, however
    many blobs its count would allow: each batch but the last ends only once past the bound,
    and none holds more than the bound before its last blob. The bound is set lower here (read
    as the import runs) so the corpus fills many batches; the test below keeps the shipped one."""
    from indexer.store import commit

    path, header = signed
    bound = 64 << 10
    monkeypatch.setattr(bundle, "IMPORT_BLOBS", 1 << 30)
    monkeypatch.setattr(bundle, "IMPORT_BYTES", bound)
    write = commit.commit_facts
    batches: list[list[int]] = []

    def weighed(store, facts, differs=None):
        sizes: list[int] = []
        batches.append(sizes)

        def seen(each):
            for x in each:
                sizes.append(len(x.packed_core) + len(x.packed_occurrences))
                yield x
        return write(store, seen(facts), differs)

    monkeypatch.setattr(commit, "commit_facts", weighed)
    with Store.open(tmp_path / "store") as store:
        assert bundle.import_bundle(store, path, key=KEY.encode()).facts_new == header.facts
    assert len(batches) >= 3 and sum(map(len, batches)) == header.facts
    assert all(sum(sizes[:-1]) < bound for sizes in batches), [sum(s) for s in batches]
    assert all(sum(sizes) >= bound for sizes in batches[:-1]), [sum(s) for s in batches]


def test_the_shipped_batch_bounds_are_the_figures_the_docs_state():
    assert (bundle.IMPORT_BLOBS, bundle.IMPORT_BYTES) == (256, 2 << 20)
    docs = Path(__file__).parents[1] / "docs"
    assert "at most 256 blobs or 2 MiB a transaction" in (docs / "security.md").read_text()
    assert "at most 256 blobs or 2 MiB a transaction" in (docs / "fleet.md").read_text()
