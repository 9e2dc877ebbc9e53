"""A stored snapshot record read back from a real store: its head's columns counted off their
msgpack heads (`records.LazyHead`) for file tables of every array width, and a head whose
columns disagree, are no arrays, or name blobs that are no OIDs, refused as `store_corrupt`
by every way a head is read (lazy, whole, as a re-index's prior)."""

from __future__ import annotations

from collections import Counter

import msgspec
import pytest

from indexer.contract.errors import RennetError
from indexer.model import BlobFacts, FileEntry, SnapshotRecord
from indexer.store.commit import PackedSnapshot, commit_snapshot
from indexer.store.database import Store
from indexer.store.records import (
    facts_key,
    is_facts_key,
    load_facts,
    load_stored_record,
    pack_record,
    put_stored_many,
    snapshot_key,
    stored_facts,
)
from indexer.store.versions import snapshot_version

OID = "c" * 40
VERSION = snapshot_version()


@pytest.fixture
def store(tmp_path):
    with Store.open(tmp_path / "store") as s:
        yield s


def record_of(n: int) -> SnapshotRecord:
    files = [FileEntry(f"f{i:06d}.py", f"{i:040x}", 0o100644, 10, 1, "python") for i in range(n)]
    return SnapshotRecord(OID, "d" * 40, VERSION, files, [], [], [], [], [],
                          {f.path: i % 3 for i, f in enumerate(files)}, {f.path: 0.5 for f in files})


def commit(store: Store, value: bytes) -> None:
    commit_snapshot(store, PackedSnapshot(OID, VERSION, value, None, "2026-01-01T00:00:00Z"))


def damaged(record: SnapshotRecord, **fields) -> bytes:
    """The stored form of `record` with `fields` in place of its head's own."""
    value = pack_record(record)
    size = int.from_bytes(value[:4], "big")
    head = msgspec.msgpack.decode(value[5:4 + size])  # after the plain mark
    head.update(fields)
    packed = b"p" + msgspec.msgpack.encode(head)
    return len(packed).to_bytes(4, "big") + packed + value[4 + size:]


@pytest.mark.parametrize("n", [0, 1, 15, 16, 65535, 65536])
def test_a_head_of_any_array_width_reads_back_whole(store, n):
    """A fixarray (0 to 15 items), an array 16 and an array 32 head: each column's count is
    read off its head, and a table of 0 or 15 files is no damage."""
    record = record_of(n)
    commit(store, pack_record(record))
    stored = load_stored_record(store, OID)
    lazy, whole = stored.lazy_head(), stored.full_head()
    assert lazy.paths == whole.paths == [f.path for f in record.files]
    assert lazy.fan_in == whole.fan_in == [i % 3 for i in range(n)]
    assert lazy.files() == whole.files() == record.files
    assert stored.prior().files == record.files


def reads(store: Store):
    stored = load_stored_record(store, OID)
    return {"lazy": lambda: stored.lazy_head().blobs, "whole": stored.full_head, "prior": stored.prior,
            "record": stored.record}


def assert_corrupt(store: Store, what: str, ways=("lazy", "whole", "prior", "record")) -> None:
    """Every way of reading the head finds the damage: `store_corrupt` saying `what`, or a
    DecodeError, which every face answers as `store_corrupt` (context_tools/faces/dispatch.py)."""
    for way, read in reads(store).items():
        if way not in ways:
            continue
        with pytest.raises((RennetError, msgspec.DecodeError)) as raised:
            read()
        if isinstance(raised.value, RennetError):
            assert raised.value.code == "store_corrupt", (way, raised.value)
            assert what in raised.value.message, (way, raised.value.message)


@pytest.mark.parametrize("n", [3, 20, 70000])
def test_columns_one_item_short_are_store_corrupt(store, n):
    """One column an item short, at every array width (20 and 19 items are both array 16 heads,
    whose low bits are no count)."""
    record = record_of(n)
    commit(store, damaged(record, languages=["python"] * (n - 1)))
    # each column's count as its head states it (an array 16's and 32's big-endian)
    assert_corrupt(store, f"columns of unequal length: paths {n}, blobs {n}, modes {n}, sizes {n}, lines {n}, "
                          f"languages {n - 1}, marks {n},")


@pytest.mark.parametrize(("n", "fewer"), [(9, 1), (15, 7)])
def test_a_fixarray_column_counted_by_all_four_bits_of_its_head(store, n, fewer):
    """A fixarray's count is the low four bits of its head: a column of `fewer` items beside
    `n` files, whose low three bits agree, is damage too."""
    commit(store, damaged(record_of(n), languages=["python"] * fewer))
    assert_corrupt(store, f"languages {fewer}")


@pytest.mark.parametrize("column", [b"x" * 20, {"a": 1}, 7, None])
def test_a_column_that_is_no_array_is_store_corrupt(store, column):
    """A column that decodes as something else (a string, a map, a number, nil): its count is
    unknown, which is damage (not a TypeError of comparing a width that is not there)."""
    commit(store, damaged(record_of(20), sizes=column))
    assert_corrupt(store, "columns of unequal length")


@pytest.mark.parametrize("blob", ["a" * 39, "a" * 41, "A" * 40, "g" * 40, "a" * 39 + " ", "\u00e9" * 40, "\u00e9" * 20])
def test_a_blob_of_another_length_or_not_lowercase_hex_is_store_corrupt(store, blob):
    """Forty lowercase hex digits or none (a submodule's): a blob of 39 hex digits is as much
    damage as one of letters past `f`, a space or a letter beyond ASCII (forty of them, or
    twenty: forty bytes of UTF-8)."""
    record = record_of(20)
    blobs = [f.blob for f in record.files]
    blobs[7] = blob
    commit(store, damaged(record, blobs=blobs))
    assert_corrupt(store, "names a blob that is no OID")  # the lazy head's, as its blobs are decoded


def test_a_submodules_empty_blob_is_no_damage(store):
    """A submodule's file has no blob (its commit is its target): "" beside forty hex digits
    reads back by every way a head is read."""
    record = record_of(20)
    record.files[3] = FileEntry("f000003.py", "", 0o160000, 0, 0, "submodule", target="e" * 40)
    commit(store, pack_record(record))
    for read in reads(store).values():
        read()
    assert load_stored_record(store, OID).lazy_head().blobs[3] == ""


def test_a_key_whose_language_is_not_utf8_is_no_facts_key():
    version = snapshot_version()
    """A key of the right shape but for its language's bytes: no key this code makes (a
    bundle's facts keys are checked with it)."""
    assert not is_facts_key(f"{'a' * 40}|python|{version}".encode(), version)  # the snapshot's version, not the facts'
    good = facts_key("a" * 40, "python", version)
    assert is_facts_key(good, version)
    assert not is_facts_key(good.replace(b"python", b"pyth\xffn"), version)
    assert not is_facts_key(b"a" * 39 + good[40:], version)


def test_a_record_dropped_or_replaced_between_its_head_and_its_tail_is_busy(store):
    """The tail is read in a transaction of its own when first asked for: a record gone by then
    (a `store gc` between), or another in its place (a complete snapshot replacing a partial
    one), says so, never the bytes the head's transaction once saw there nor another record's;
    `busy`, since nothing is damaged and the call asked again reads what is stored now (was:
    `store_error` for the one, the other record's bytes read from the head's offset)."""
    commit(store, pack_record(record_of(3)))
    stored = load_stored_record(store, OID)
    with store.env.begin(write=True) as txn:
        txn.delete(snapshot_key(OID, VERSION), db=store.snapshots)
    with pytest.raises(RennetError) as raised:
        stored.tail()
    assert raised.value.code == "busy" and "left the store while this call read it" in raised.value.message
    commit(store, pack_record(record_of(3)))
    stored = load_stored_record(store, OID)
    with store.env.begin(write=True) as txn:
        txn.put(snapshot_key(OID, VERSION), pack_record(record_of(4)), db=store.snapshots)
    with pytest.raises(RennetError) as raised:
        stored.tail()
    assert raised.value.code == "busy"


def test_the_stored_core_sums_a_blob_s_sites_into_uses_and_local_names(store):
    """What assembly and `context.novelty` read instead of the occurrence list: per name the
    count of its sites that are uses, and (sorted) the names whose every site is a local
    binding or a definition, never one with a use."""
    from indexer.extract.blob import extract_blob
    from indexer.model import NOT_USES

    source = (b"import os\n\n\ndef walk(root):\n    tally = 0\n    for entry in os.listdir(root):\n"
              b"        tally += len(entry)\n    return tally\n\n\ndef again():\n    return walk('.') + walk('..')\n")
    facts = extract_blob(source, "pkg/walk.py", "python")
    key = facts_key("e" * 40, "python", VERSION)
    with store.env.begin(write=True) as txn:
        put_stored_many(txn, store, [stored_facts(key, facts)])
    [core] = load_facts(store, {"pkg/walk.py": key}).values()
    uses = Counter(o.name for o in facts.occurrences if o.role not in NOT_USES)
    local = {o.name for o in facts.occurrences if o.role == "local"}
    assert {"tally", "root", "entry"} <= local and uses["walk"] == 2 and uses["len"] == 1  # the source holds each kind
    assert core.uses == dict(sorted(uses.items()))
    assert core.local_names == sorted(local - set(uses))
    assert core.occurrence_count == len(facts.occurrences) and core.symbols == facts.symbols


def test_an_empty_name_is_never_a_key_of_the_name_index(store):
    """LMDB takes no empty key: a symbol or site named "" (as a grammar may leave an anonymous
    one) is kept in the facts and left out of the name index, and the write goes through."""
    from indexer.model import Occurrence, Symbol

    facts = BlobFacts("python", 2, symbols=[Symbol("", "function", "", 1, 1, 0, 4, "def"),
                                            Symbol("named", "function", "", 2, 2, 5, 9, "def named")],
                      occurrences=[Occurrence("", 1, 0, "call"), Occurrence("named", 2, 4, "definition")])
    key = facts_key("f" * 40, "python", VERSION)
    with store.env.begin(write=True) as txn:
        assert put_stored_many(txn, store, [stored_facts(key, facts)]) == 1
    with store.env.begin() as txn:
        assert [bytes(k) for k in txn.cursor(db=store.defs).iternext(values=False)] == [b"named"]
        assert [bytes(k) for k in txn.cursor(db=store.occ).iternext(values=False)] == [b"named"]
    assert [s.name for s in load_facts(store, {"a.py": key})["a.py"].symbols] == ["", "named"]


@pytest.mark.parametrize("value", [b"A" * 40, b"a" * 39, b"a" * 41, b"a" * 39 + b"\n"])
def test_a_pin_holding_anything_but_forty_lowercase_hex_digits_is_store_corrupt(value):
    """The store writes OIDs as forty lowercase hex digits: a pin holding another spelling is
    damage, never a name to look a snapshot up by."""
    from indexer.store.records import pin_key, pinned_in

    assert pinned_in(b"a" * 40, pin_key("0123456789abcdef", "main"), "home") == "a" * 40
    with pytest.raises(RennetError) as raised:
        pinned_in(value, pin_key("0123456789abcdef", "main"), "home")
    assert raised.value.code == "store_corrupt" and "holds no commit OID" in raised.value.message


@pytest.mark.parametrize("rev", ["main", "a|b", "||", "release|2026|rc1"])
def test_a_pins_key_gives_back_its_repository_and_its_rev_whatever_bars_the_rev_holds(rev):
    """A rev may hold `|` (git allows it in a name); a repository's identity never does: the key
    splits at its first two bars alone, as `store list` and gc read it."""
    from indexer.store.records import pin_key, pin_parts

    assert pin_parts(pin_key("0123456789abcdef", rev)) == ("0123456789abcdef", rev)
