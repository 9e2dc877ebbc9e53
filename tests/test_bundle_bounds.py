"""What a bundle can make an importer hold, and the orders its record must keep.

A bundle is untrusted until proved, and checked before anything proves it: its counts are held
to their caps before the items they count are made (tracemalloc peaks, not times), its record
keeps the orders the store's readers bisect on, and a rev name it carries is pinned only where
it names the bundle's commit in the user's repository."""

from __future__ import annotations

import shutil
import tracemalloc
import zlib
from pathlib import Path

import msgspec
import pygit2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpora.gitbuild import RepoBuilder
from indexer.api import index
from indexer.build import extractor_version
from indexer.extract.tags import SYMBOL_CAP
from indexer.extract.tokens import OCCURRENCE_CAP
from indexer.fleet import bundle
from indexer.model import BlobFacts, Edge, FileEntry, Occurrence, SnapshotRecord
from indexer.store.canonical import fingerprint
from indexer.store.database import Store
from indexer.store.records import decode_record, entry_facts_key, map_head, pin_key
from indexer.store.snapshot import load
from tests.examples import examples

_enc = msgspec.msgpack.encode


def seal(record: SnapshotRecord, entries: list[bundle.FactsEntry], **declared: int) -> tuple[bytes, int]:
    """A bundle of `record` and `entries` with a valid digest, its header declaring what
    `declared` says (else the true counts); and its inflated size."""
    raw = _enc(bundle.Body(_enc(record), entries))
    body = zlib.compress(raw, 1)
    header = {"format": bundle.FORMAT, "oid": record.oid, "fingerprint": record.fingerprint,
              "extractor_version": record.extractor_version, "rev": "main", "repo_name": "x", "remote_url": None,
              "files": len(record.files), "facts": len(entries), "body_bytes": len(body), "raw_bytes": len(raw),
              "created_at": "2026-01-01T00:00:00Z", "digest": ""}
    header.update(declared)
    header["digest"] = bundle._digest(header, body)
    return bundle.MAGIC + bundle._header_line(header) + b"\n" + body, len(raw)


def record_of(files: list[FileEntry], edges: list[Edge] | None = None) -> SnapshotRecord:
    return SnapshotRecord("a" * 40, "b" * 40, extractor_version(), files, edges or [], [], [], [], [], {}, {}, "f" * 64)


def python_files(n: int) -> list[FileEntry]:
    return [FileEntry(f"f{i:07d}.py", f"{i:040x}", 0o100644, 10, 1, "python") for i in range(n)]


def with_facts(files: list[FileEntry], facts: BlobFacts) -> list[bundle.FactsEntry]:
    version = extractor_version()
    return [bundle.FactsEntry(entry_facts_key(f, version), _enc(facts)) for f in files]


def names(n: int) -> list[str]:
    """Two-character names that do not repeat in a short run: what deflate cannot squeeze."""
    return [f"{(i * 7919 + (i >> 8) * 31) % 256:02x}" for i in range(n)]


def peak_of_check(data: bytes) -> tuple[str, int]:
    """The code `check` refuses `data` with, and the peak of memory allocated while it ran."""
    tracemalloc.start()
    try:
        bundle.check(data)
    except bundle.BadBundle as exc:
        code = exc.code
    else:
        code = "ok"
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return code, peak


def hostile(shape: str) -> tuple[bytes, int]:
    one = python_files(1)
    if shape == "400k facts entries, files declared as many, none listed":
        entries = [bundle.FactsEntry(b"%07d" % i, _enc(BlobFacts("python", 1))) for i in range(400_000)]
        return seal(record_of([]), entries, files=400_000)
    if shape == "more facts than files":
        return seal(record_of([]), with_facts(python_files(1000), BlobFacts("python", 1)), files=0)
    if shape == "occurrences past the cap":
        occ = [Occurrence(n, i, i % 90, "r") for i, n in enumerate(names(bundle.MAX_FACTS_LIST + 1))]
        return seal(record_of(one), with_facts(one, BlobFacts("python", 1, occurrences=occ)))
    if shape == "local names past the cap":
        return seal(record_of(one), with_facts(one, BlobFacts("python", 1, local_names=names(bundle.MAX_FACTS_LIST + 1))))
    if shape == "edges past the cap":
        count = bundle.LIST_BASE + bundle.LIST_PER_FILE + 1
        edges = [Edge(one[0].path, f"t{i:07d}", "python", i, "") for i in range(count)]
        return seal(record_of(one, edges), with_facts(one, BlobFacts("python", 1)))
    if shape == "files listed past the declared count":
        files = python_files(50_000)
        return seal(record_of(files), with_facts(files, BlobFacts("python", 1)), files=1, facts=1)
    if shape == "symbols in stored form":
        lines = b"".join(b'\t{"name":"%s","kind":"function"}\n' % n.encode() for n in names(100_000))
        return seal(record_of(one), with_facts(one, BlobFacts("python", 1, symbols_json=lines)))
    raise AssertionError(shape)


# shape -> what its refusal says: each is refused for its count, not for anything after
_REFUSED = {
    "400k facts entries, files declared as many, none listed": "disagree with its content",
    "more facts than files": "at most one a file",
    "occurrences past the cap": "occurrences holds 131073 entries, over the cap",
    "local names past the cap": "local_names holds 131073 entries, over the cap",
    "edges past the cap": "edges list holds 65601 entries, over the cap",
    "files listed past the declared count": "facts list holds 50000 entries, over the cap of 1",
    "symbols in stored form": "carry symbols in stored form",
}


@pytest.mark.parametrize("shape", sorted(_REFUSED))
def test_a_hostile_count_is_refused_before_its_items_are_made(shape):
    """Each is refused while at most the inflated body, a copy of the record's bytes and the
    inflater's pieces are held: under twice its inflated size and two pieces. Decoded, the
    same bytes come to 4 to 27 times it."""
    data, raw = hostile(shape)
    code, peak = peak_of_check(data)
    assert code == "bad_bundle"
    assert peak < 2 * raw + 2 * bundle._OUT_PIECE, (peak, raw)
    with pytest.raises(bundle.BadBundle, match=_REFUSED[shape]):
        bundle.check(data)


def test_the_caps_are_above_what_the_extractor_writes():
    assert bundle.MAX_FACTS_LIST > 2 * max(SYMBOL_CAP, OCCURRENCE_CAP)


def test_the_inflated_size_is_bounded_by_the_file_count_before_inflating():
    """Two files may inflate to `RAW_BASE` and `RAW_PER_FILE` twice, however large a body the
    ratio to its compressed size would allow: one byte more is refused before any is inflated."""
    import secrets

    files = python_files(2)
    noise = BlobFacts("python", 1, local_names=[secrets.token_hex(8) for _ in range(20_000)])  # deflate keeps it large
    claimed = bundle.RAW_BASE + 2 * bundle.RAW_PER_FILE + 1
    data, raw = seal(record_of(files), with_facts(files, noise), raw_bytes=claimed)
    assert bundle.parse_header(data)[0].body_bytes * bundle.MAX_RATIO > claimed  # the ratio alone admits it
    code, peak = peak_of_check(data)
    assert code == "bad_bundle" and peak < 1 << 20
    from indexer.contract.limits import limits

    with pytest.raises(bundle.BadBundle, match=f"files, over the {limits().files:,} a snapshot holds"):
        bundle.check(seal(record_of([]), [], files=limits().files + 1)[0])


@pytest.mark.parametrize("shape", ["local names", "occurrences", "bare files"])
def test_within_the_caps_decoding_holds_a_bounded_multiple_of_the_inflated_body(shape):
    """The worst shapes measured (lists of two-character names: a 3-byte item becomes a
    50-byte string and a pointer) stay under 24 times the inflated body, which the caps bound."""
    if shape == "bare files":
        files = python_files(10_000)
        data, raw = seal(record_of(files), with_facts(files, BlobFacts("python", 1)))
    else:
        files = python_files(3)
        many = names(bundle.MAX_FACTS_LIST // 2)
        facts = BlobFacts("python", 1, local_names=many) if shape == "local names" else BlobFacts(
            "python", 1, occurrences=[Occurrence(n, i, i % 90, "r") for i, n in enumerate(many)])
        data, raw = seal(record_of(files), with_facts(files, facts))
    code, peak = peak_of_check(data)
    assert code == "bad_bundle"  # the record's fingerprint is made up: refused once all is decoded
    assert peak < 24 * raw, (peak, raw, peak / raw)


def test_a_synthetic_corpus_bundle_imports_within_its_allowance(tmp_path, synthetic_bundle):
    """A generated corpus (the benchmarks' generator) exports a bundle well inside every cap, and
    it imports; checking it holds under 10 times its inflated body."""
    data = synthetic_bundle.read_bytes()
    header, _ = bundle.parse_header(data)
    assert header.raw_bytes * 4 < bundle.raw_allowance(header) and header.files >= 900
    code, peak = peak_of_check(data)
    assert code == "ok" and peak < 10 * header.raw_bytes, (peak, header.raw_bytes)
    with Store.open(tmp_path / "store") as store:
        report = bundle.import_bundle(store, synthetic_bundle, trust_unsigned=True)
    assert report.files == header.files and report.snapshot_new


# --- an honest bundle -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def honest(tmp_path_factory):
    """A repository of a few files, with edges, external imports and a manifest; indexed and
    exported."""
    tmp = tmp_path_factory.mktemp("honest")
    builder = RepoBuilder(tmp / "repo")
    builder.commit({
        "pyproject.toml": '[project]\nname = "ledgerly"\nversion = "0.3.0"\ndependencies = ["attrs"]\n',
        "ledgerly/__init__.py": "import os\nimport attrs\nfrom ledgerly.books import Ledger\n",
        "ledgerly/books.py": "import json\nfrom ledgerly import cli\n\n\nclass Ledger:\n    def post(self, e):\n"
                             "        return balance(e)\n\n\ndef balance(e):\n    return sum(e)\n",
        "ledgerly/cli.py": "import sys\nfrom ledgerly.books import Ledger, balance\nfrom ledgerly import books\n\n\n"
                           "def main():\n    Ledger().post([1])\n",
        "ledgerly/zz.py": "from ledgerly import books, cli\nimport missing_mod\n",
    })
    main = builder.repo.head.target
    store = Store.open(tmp / "origin")
    index(str(builder.path), "main", store)
    out = tmp / "b.rnb"
    bundle.export(load(store, str(builder.path), "main"), out)
    store.close()
    return {"tmp": tmp, "builder": builder, "data": out.read_bytes(), "path": out, "oid": str(main)}


def test_an_honest_bundle_passes_and_keeps_its_orders(honest):
    verified = bundle.check(honest["data"])
    record = verified.record
    assert len(record.edges) >= 4 and len(record.unresolved) >= 3
    bundle.check_order(record)


def _resealed(data: bytes, record: SnapshotRecord) -> bytes:
    from tests.test_bundle import _parts, _seal

    header, body = _parts(data)
    header.update(files=len(record.files))
    return _seal(header, bundle.Body(_enc(record), body.facts))


def _strictly_increasing(keys: list) -> bool:
    return all(a < b for a, b in zip(keys, keys[1:]))


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(data=st.data(), which=st.sampled_from(["files", "edges", "unresolved"]))
def test_a_record_out_of_order_or_with_repeats_is_refused_whatever_its_provenance(honest, data, which):
    """A reordered or repeated list keeps the fingerprint (it sorts) yet breaks every lookup
    that bisects: refused as `bad_bundle` by the checks every import runs, signed, made
    again or --trust-unsigned; the record as exported passes."""
    from tests.test_bundle import _parts

    record = decode_record(_parts(honest["data"])[1].record)
    items = list(getattr(record, which))
    extra = data.draw(st.lists(st.integers(0, len(items) - 1), max_size=3))  # repeats
    changed = data.draw(st.permutations(items + [items[i] for i in extra]))
    setattr(record, which, changed)
    key = {"files": lambda f: f.path, "edges": lambda e: (e.source, e.target, e.line, e.kind, e.spec),
           "unresolved": lambda u: (u.path, u.line, u.kind, u.spec, u.status)}[which]
    sealed = _resealed(honest["data"], record)
    if _strictly_increasing([key(x) for x in changed]):
        assert changed == items
        assert bundle.check(sealed).record.fingerprint == record.fingerprint
        return
    with pytest.raises(bundle.BadBundle, match="not sorted"):
        bundle.check(sealed)


def _with_map(data: bytes, name: str, pairs: list[tuple[str, object]]) -> tuple[bytes, SnapshotRecord]:
    """The bundle `data` with its record's map `name` made of `pairs` as they come (a key
    repeated is repeated in the msgpack), fingerprint made again for the map they come to, so
    that only the map's own checks can refuse it; and the record as decoded before."""
    from indexer.store.records import NO_FACTS
    from tests.test_bundle import _parts, _seal

    header, body = _parts(data)
    record = decode_record(body.record)
    blobs = {e.key: msgspec.msgpack.decode(e.facts, type=BlobFacts) for e in body.facts}
    facts = {f.path: blobs[entry_facts_key(f, record.extractor_version)] for f in record.files
             if f.language not in NO_FACTS}
    fields = msgspec.structs.asdict(record)
    fields[name] = msgspec.Raw(map_head(len(pairs)) + b"".join(_enc(k) + _enc(v) for k, v in pairs))
    try:
        fields["fingerprint"] = header["fingerprint"] = fingerprint(
            msgspec.structs.replace(record, **{name: dict(pairs)}), facts)
    except (TypeError, ValueError):
        pass  # a value of a wrong type: refused before the fingerprint is made
    return _seal(header, bundle.Body(_enc(fields), body.facts)), record


_VALUES = {"fan_in": st.integers(0, 1 << 20), "rank": st.floats(0, 1, allow_subnormal=False)}
_WRONG = st.sampled_from([None, "1", [1], 0.5, True])


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(data=st.data(), name=st.sampled_from(["fan_in", "rank"]))
def test_a_fan_in_or_rank_map_of_other_paths_or_order_is_refused(honest, data, name):
    """Fan-in and rank name files' paths in the files' order, at most once each: a map that
    names another path, repeats one, strays from that order, holds more entries than there
    are files or a value of another type is `bad_bundle`, with a line saying which; one that
    keeps to them imports with the map it came with (read in step with the files: indexer/
    fleet/carried_list.py `CarriedMap`)."""
    from tests.test_bundle import _parts

    paths = [f.path for f in decode_record(_parts(honest["data"])[1].record).files]
    keys = data.draw(st.lists(st.sampled_from([*paths, "zz/other.py", "", "ledgerly"]), max_size=len(paths) + 2))
    if data.draw(st.booleans()):  # most such maps are out of order: these keep to it more often
        keys = sorted(set(keys) & set(paths))
    values = data.draw(st.lists(_VALUES[name] | _WRONG if data.draw(st.booleans()) else _VALUES[name],
                                min_size=len(keys), max_size=len(keys)))
    sealed, _ = _with_map(honest["data"], name, list(zip(keys, values)))
    wrong = [v for v in values if not isinstance(v, int if name == "fan_in" else (int, float)) or v is True]
    in_order = [k for k in paths if k in keys] == keys
    if len(keys) > len(paths):
        refusal = "map holds .* entries, over the cap"
    elif wrong:
        refusal = "does not decode"
    elif not in_order:
        refusal = "map names a path its file list lacks, or names paths out of the files' order or twice"
    else:
        verified = bundle.check(sealed)
        assert getattr(verified.record, name) == dict(zip(keys, values))
        return
    with pytest.raises(bundle.BadBundle, match=refusal) as refused:
        bundle.check(sealed)
    assert refused.value.code == "bad_bundle" and "\n" not in refused.value.message


def test_a_trusted_unsigned_bundle_with_unsorted_files_writes_nothing(honest, tmp_path):
    from tests.test_bundle import _parts

    record = decode_record(_parts(honest["data"])[1].record)
    record.files = record.files[::-1]
    path = tmp_path / "r.rnb"
    path.write_bytes(_resealed(honest["data"], record))
    with Store.open(tmp_path / "store") as store:
        with pytest.raises(bundle.BadBundle, match="file list is not sorted"):
            bundle.import_bundle(store, path, trust_unsigned=True)
    assert not (tmp_path / "store" / "untrusted").exists()


def test_text_that_is_not_utf8_in_a_header_or_body_is_bad_bundle(honest, tmp_path):
    """msgspec says a string that is not UTF-8 with a UnicodeDecodeError, not a DecodeError: a
    byte flipped in the header's text, or such a string in the record sealed with a valid
    digest, is `bad_bundle` (was: `internal_error`), and the store is left as it was."""
    from tests.test_bundle import _parts, _seal

    data = honest["data"]
    in_header = data.replace(b'"created_at":"2', b'"created_at":"\xce', 1)
    header, body = _parts(data)
    assert b"ledgerly/zz.py" in body.record
    in_record = _seal(header, bundle.Body(body.record.replace(b"ledgerly/zz.py", b"ledgerly/z\xce.py"), body.facts))
    for name, bad in (("record", in_record), ("header", in_header)):
        assert bad != data
        with pytest.raises(bundle.BadBundle):
            bundle.check(bad)
        path = tmp_path / f"{name}.rnb"
        path.write_bytes(bad)
        with Store.open(tmp_path / "store") as store:
            with pytest.raises(bundle.BadBundle):
                bundle.import_bundle(store, path, trust_unsigned=True)
        assert not (tmp_path / "store" / "untrusted").exists()


# --- the rev a bundle names -------------------------------------------------------------------

def _pinned(store: Store, repo_path: Path, rev: str) -> str | None:
    from indexer.git import read as gitread

    repo_id = gitread.repo_identity(gitread.open_repo(str(repo_path)))
    with store.env.begin(db=store.repos) as txn:
        found = txn.get(pin_key(repo_id, rev))
    return bytes(found).decode() if found is not None else None


def test_the_bundles_rev_is_pinned_only_where_it_names_the_bundles_commit(honest, tmp_path):
    """The header says `main`; in a clone whose `main` has moved on, importing without --rev
    links the snapshot and pins nothing (a note says why); where `main` is the bundle's commit,
    it is pinned; a --rev the user names is pinned as before."""
    moved = tmp_path / "moved"
    shutil.copytree(honest["builder"].path, moved)
    RepoBuilder(moved).commit({"ledgerly/new.py": "x = 1\n"})
    assert str(pygit2.Repository(str(moved)).head.target) != honest["oid"]
    with Store.open(tmp_path / "store") as store:
        report = bundle.import_bundle(store, honest["path"], str(moved))
        assert report.provenance == "rederived" and report.pinned_repo is not None
        assert report.pinned_rev is None and "'main'" in (report.note or "") and "--rev" in report.note
        assert _pinned(store, moved, "main") is None
        assert "pinned_rev" not in msgspec.json.decode(msgspec.json.encode(report))
        # where the bundle's rev is the bundle's commit, it is pinned
        named = bundle.import_bundle(store, honest["path"], str(honest["builder"].path))
        assert named.pinned_rev == "main" and named.note is None
        assert _pinned(store, honest["builder"].path, "main") == honest["oid"]
        explicit = bundle.import_bundle(store, honest["path"], str(moved), "release")
        assert explicit.pinned_rev == "release" and explicit.note is None
        assert _pinned(store, moved, "release") == honest["oid"] and _pinned(store, moved, "main") is None


def test_a_bundle_rev_that_resolves_nowhere_pins_nothing(honest, tmp_path):
    from tests.test_bundle import _parts, _seal

    header, body = _parts(honest["data"])
    header.update(rev="no-such-branch")
    path = tmp_path / "r.rnb"
    path.write_bytes(_seal(header, body))
    with Store.open(tmp_path / "store") as store:
        report = bundle.import_bundle(store, path, str(honest["builder"].path))
        assert report.pinned_rev is None and "does not resolve" in (report.note or "")
        assert report.rev == "no-such-branch"
        assert _pinned(store, honest["builder"].path, "no-such-branch") is None


def test_a_bundle_rev_too_long_to_pin_links_the_snapshot_and_pins_nothing(honest, tmp_path):
    """The header's rev resolves to the bundle's commit but is longer than a pin's key holds
    (`main~0~0...`): the snapshot is imported and linked, nothing pinned, a note says why
    (was: the import refused as `bad_input`, telling the user to pass a shorter rev they never
    gave)."""
    from indexer.store.records import PIN_REV_BYTES
    from tests.test_bundle import _parts, _seal

    header, body = _parts(honest["data"])
    long_rev = "main" + "~0" * (PIN_REV_BYTES // 2)
    header.update(rev=long_rev)
    path = tmp_path / "r.rnb"
    path.write_bytes(_seal(header, body))
    with Store.open(tmp_path / "store") as store:
        report = bundle.import_bundle(store, path, str(honest["builder"].path))
        assert report.snapshot_new and report.pinned_repo is not None and report.pinned_rev is None
        assert "longer than a rev that can be pinned" in (report.note or "")


def test_an_empty_bundle_path_says_so():
    """`rennet import ''`: `bad_input` saying the path is empty (was: "no bundle at", naming nothing)."""
    from indexer.contract.errors import BadInput

    with pytest.raises(BadInput, match="the path is empty"):
        bundle.read("")


def test_a_file_without_a_bundles_magic_is_refused_at_its_first_bytes(tmp_path):
    """A device or a stream has no size to refuse it by: `/dev/zero` is `bad_bundle` for its
    magic, read from its first bytes, and a file of the right magic still reads whole (was:
    read to the 1 GiB cap, all of it held, then refused for its size)."""
    tracemalloc.start()
    try:
        with pytest.raises(bundle.BadBundle, match="bad magic"):
            bundle.read("/dev/zero")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
    good = tmp_path / "b"
    good.write_bytes(bundle.MAGIC + b"rest")
    assert bundle.read(good) == bundle.MAGIC + b"rest"


def test_a_bundle_whose_files_define_past_the_symbol_cap_imports_nothing(tmp_path, monkeypatch):
    """A bundle may name one blob's facts at every path of its record, as a commit may: its
    fingerprint reads each path's definitions. Past what a snapshot holds (the `symbols`
    limit, 42 here as a user sets it: 3 definitions at 14 paths and one more), it is `bad_bundle` before the
    fingerprint is recomputed, and nothing is imported; within it, it imports."""
    b = RepoBuilder(tmp_path / "repo")
    module = "def a():\n    pass\n\n\ndef b():\n    pass\n\n\ndef c():\n    pass\n"
    b.commit({"ok.py": "def ok():\n    pass\n", **{f"d/m{i:02d}.py": module for i in range(14)}})
    with Store.open(tmp_path / "origin") as store:
        assert index(str(b.path), "main", store).symbols == 43
        bundle.export(load(store, str(b.path), "main"), tmp_path / "b.rnb")
    monkeypatch.setenv("RENNET_LIMITS", "symbols=42")
    with Store.open(tmp_path / "store") as store:
        with pytest.raises(bundle.BadBundle, match="define 43 symbols together, over the 42 a snapshot holds"):
            bundle.import_bundle(store, tmp_path / "b.rnb", trust_unsigned=True)
        with store.env.begin(db=store.facts) as txn:
            assert txn.stat(store.facts)["entries"] == 0  # nothing imported
        monkeypatch.setenv("RENNET_LIMITS", "symbols=43")
        assert bundle.import_bundle(store, tmp_path / "b.rnb", trust_unsigned=True).files == 15


_STATED = {  # field stated, what it states for a list of n, the refusal
    "one symbol": ("symbol_count", lambda n: 1, r"state 1 symbols and 0 occurrences, and carry 3 and \d+"),
    "one occurrence more": ("occurrence_count", lambda n: n + 1, r"state \d+ symbols and \d+ occurrences, and carry"),
    "no symbol count": ("symbol_count", lambda n: 0, "define 43 symbols together, over the 42"),
}


@pytest.mark.parametrize("stated", sorted(_STATED))
def test_a_blobs_facts_stating_other_counts_than_they_carry_import_nothing(tmp_path, monkeypatch, stated):
    """The store keeps the counts of the lists a blob's facts carry, while the `symbols` cap
    and the fingerprint's file lines read the counts they state: a bundle stating one symbol
    for a blob of three, at 14 paths, self-consistent (its fingerprint recomputed over what it
    states), would pass a cap of 42 its files are over (was: imported). Such a count, or an
    occurrence count other than the occurrences listed, is `bad_bundle` and nothing is
    written; a count left out (0, the default) is the list's, and counted so."""
    from indexer.fleet.carried_facts import CarriedFacts, fingerprint_table

    name, count, refusal = _STATED[stated]
    b = RepoBuilder(tmp_path / "repo")
    module = "def a():\n    pass\n\n\ndef b():\n    a()\n\n\ndef c():\n    b()\n"
    b.commit({"ok.py": "def ok():\n    pass\n", **{f"d/m{i:02d}.py": module for i in range(14)}})
    with Store.open(tmp_path / "origin") as store:
        index(str(b.path), "main", store)
        honest = bundle.check(b"".join(bundle.make(load(store, str(b.path), "main"))[0]))
    record = msgspec.msgpack.decode(honest.record_bytes, type=SnapshotRecord)
    entries = []
    for key in honest.facts:
        facts = honest.facts[key]
        assert (facts.symbol_count, facts.occurrence_count) in ((1, 0), (3, 0))  # as an exporter writes them
        setattr(facts, name, count(len(facts.symbols if name == "symbol_count" else facts.occurrences)))
        entries.append(bundle.FactsEntry(key, _enc(facts)))
    keys = {f.path: entry_facts_key(f, record.extractor_version) for f in record.files}
    stated_facts = CarriedFacts({e.key: msgspec.Raw(_enc(e.facts)) for e in entries})
    record.fingerprint = fingerprint(record, fingerprint_table(keys, [stated_facts]))
    # the file lines read the stated counts; one left out reads as the list's
    assert (record.fingerprint == honest.record.fingerprint) == (stated == "no symbol count")
    forged, _ = seal(record, entries)
    (tmp_path / "b.rnb").write_bytes(forged)
    monkeypatch.setenv("RENNET_LIMITS", "symbols=42")
    with Store.open(tmp_path / "store") as store:
        with pytest.raises(bundle.BadBundle, match=refusal):
            bundle.import_bundle(store, tmp_path / "b.rnb", trust_unsigned=True)
    assert not (tmp_path / "store" / "untrusted").exists()  # nothing written, not even apart


@pytest.mark.parametrize("field, value", [
    ("blob", "0" + "\u00e9" * 6 + "0" * 27),  # 40 bytes of UTF-8, a character cut at the 12th byte
    ("blob", "A" * 40), ("blob", "a" * 39), ("blob", ""), ("oid", "g" * 40), ("tree", "b" * 41)])
def test_a_record_naming_an_object_by_no_object_id_imports_nothing(honest, tmp_path, field, value):
    """A record's commit, tree and files' blobs are Git's object ids, 40 lower-case hex digits,
    as the store writes them: its name index, a facts key and a later read of a file's content
    take them so (a submodule names none: its blob is empty). A self-consistent bundle naming
    one otherwise (a file's blob empty too) is `bad_bundle`, made again from its repository or
    loaded apart unsigned, and nothing is written (was: a blob of non-ASCII characters was
    `internal_error` both ways: a UnicodeDecodeError naming it where it was made again, a
    ValueError writing its name-index rows)."""
    from indexer.fleet.carried_facts import CarriedFacts, content, fingerprint_table

    checked = bundle.check(honest["data"])
    record = msgspec.msgpack.decode(checked.record_bytes, type=SnapshotRecord)
    raws = {k: bytes(content(r)) for k, r in checked.facts.raw.items()}
    if field == "blob":
        first = record.files[0]
        moved = msgspec.structs.replace(first, blob=value)
        raws[entry_facts_key(moved, record.extractor_version)] = raws.pop(entry_facts_key(first, record.extractor_version))
        record.files = [moved, *record.files[1:]]
    else:
        setattr(record, field, value)
    entries = [bundle.FactsEntry(k, raws[k]) for k in sorted(raws)]
    keys = {f.path: entry_facts_key(f, record.extractor_version) for f in record.files}
    record.fingerprint = fingerprint(record, fingerprint_table(keys, [CarriedFacts(
        {e.key: msgspec.Raw(_enc(e.facts)) for e in entries})]))
    forged, _ = seal(record, entries)
    for kwargs in ({"repo_path": str(honest["builder"].path)}, {"trust_unsigned": True}):
        with Store.open(tmp_path / "store") as store:
            with pytest.raises(bundle.BadBundle, match="no object id"):
                bundle.import_data(store, forged, **kwargs)
    assert not (tmp_path / "store" / "untrusted").exists()


def _declared_end(data: bytes) -> int:
    """Where the body the header of bundle bytes `data` declares ends."""
    header, start = bundle.parse_header(data)
    return start + header.body_bytes


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(junk=st.binary(max_size=300), signed=st.booleans())
def test_a_bundle_is_read_no_further_than_its_header_declares(honest, tmp_path, junk, signed):
    """Once its header is read, a bundle is read to the body it declares and a signature
    trailer, and no further: bytes past them are `bad_bundle` (was: read to the 1 GiB cap and
    held, twice over, before anything looked at them). An honest bundle, signed or not, still
    reads whole."""
    from indexer.fleet import signing

    data = signing.sign(honest["data"], b"k" * 32) if signed else honest["data"]
    path = tmp_path / "b.rnb"
    path.write_bytes(data + junk)
    try:
        got = bundle.read(path)
    except bundle.BadBundle as exc:
        assert "more than" in exc.message and junk, exc.message
        return
    assert len(got) <= _declared_end(data) + signing.TRAILER_BYTES
    assert got == data + junk
    if junk:
        with pytest.raises((bundle.BadBundle, signing.BadSignature)):
            bundle.check(signing.verify(got, b"k" * 32) if signed else got)


def test_a_stream_carrying_more_than_its_bundle_is_refused_without_reading_on(honest, tmp_path):
    """A pipe (`rennet import /dev/stdin`) has no size to refuse it by: a bundle followed by
    128 MiB more is refused once a byte past its declared body and trailer comes, holding no
    more than the bundle (was: read to the 1 GiB cap, 2.1 GB of the importer's memory and 3 s,
    then refused for its size)."""
    import os
    import threading

    from indexer.fleet import signing

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    written = [0]
    zeros = b"\0" * (1 << 20)  # made before memory is traced: the writer's, not the reader's

    def write() -> None:
        try:
            with open(fifo, "wb") as out:
                out.write(honest["data"])
                for _ in range(128):
                    out.write(zeros)
                    written[0] += 1 << 20
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=write)
    writer.start()
    tracemalloc.start()
    try:
        with pytest.raises(bundle.BadBundle, match="more than"):
            bundle.read(fifo)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        writer.join(60)
    assert not writer.is_alive()
    assert written[0] < 8 << 20, written[0]  # what the pipe and a reader's buffer take, not the rest
    assert peak < len(honest["data"]) + signing.TRAILER_BYTES + (1 << 20)
