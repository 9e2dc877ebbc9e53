"""What importing a bundle holds at once, whatever it holds: its facts stay the bytes they came
in and are decoded a blob at a time, each blob's decoded weight bounded from its msgpack heads
before it is made (indexer/fleet/carried_facts.py, indexer/fleet/facts_weight.py). Peaks are
tracemalloc's, in process: deterministic, no timings."""

from __future__ import annotations

import gc
import itertools
import random
import string
import tracemalloc
from typing import Callable

import msgspec
import pytest

from corpora.gitbuild import RepoBuilder
from indexer.api import index
from indexer.fleet import bundle, facts_weight
from indexer.model import (
    Base,
    BlobFacts,
    Dependency,
    Edge,
    ImportSpec,
    Occurrence,
    ParseError,
    Symbol,
    UnresolvedImport,
    unresolved_order,
)
from indexer.store.canonical import fingerprint
from indexer.store.database import Store
from indexer.store.records import decode_core, full_facts, load_record
from indexer.store.snapshot import load
from tests.test_bundle_bounds import names, python_files, record_of, seal, with_facts

_enc = msgspec.msgpack.encode


def peak_of(run: Callable[[], object]) -> tuple[object, int]:
    """What `run` returns (or the code it is refused with), and the peak allocated meanwhile."""
    gc.collect()
    tracemalloc.start()
    try:
        result: object = run()
    except bundle.BadBundle as exc:
        result = exc.code
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return result, peak


def _wide(n: int) -> list[str]:
    """One-character strings outside Latin-1: three bytes of msgpack, each its own 76-byte
    object (CPython shares only Latin-1's), the most objects a byte makes in any field; drawn
    at random, so that deflate cannot squeeze them past the bundle's ratio."""
    draw = random.Random(n).randrange
    return [chr(0x100 + draw(4000)) for _ in range(n)]


def sealed(files, facts: BlobFacts) -> tuple[bytes, int]:
    """A bundle of `files`, each with `facts`, whose fingerprint is the true one: it passes
    every check and is written."""
    record = record_of(files)
    record.fingerprint = fingerprint(record, {f.path: facts for f in files})
    return seal(record, with_facts(files, facts))


def _distinct(n: int) -> list[str]:
    """Three-character names, none repeated: each is a key of the name index once written."""
    alphabet = string.ascii_letters + string.digits + "_$"
    return ["".join(t) for t in itertools.islice(itertools.product(alphabet, repeat=3), n)]


# shape -> (files, the facts of each)
_HOSTILE: dict[str, tuple[int, Callable[[], BlobFacts]]] = {
    # decoded, the costliest items a byte can make (every blob's decoded at once held 25 times
    # the body at any count)
    "one-character names outside Latin-1": (64, lambda: BlobFacts("python", 1, local_names=_wide(3_000))),
    # written, a name-index key for every occurrence (stored forms made all before the commit
    # hold over 7 times the body at any count, so a count past half a MiB in all will do)
    "occurrences of distinct names": (64, lambda: BlobFacts("python", 1, occurrences=[
        Occurrence(n, 1, 1, "r") for n in _distinct(1_200)])),
    # fingerprinted, an `inherits` edge and its line for every base (fewer a file than the
    # allowance takes: each edge costs tracemalloc much time, and a file's are made together;
    # the old peak held every edge at once, so it stays as many times the body at any count)
    "bases of one-character names": (64, lambda: BlobFacts("python", 1, bases=[Base(c, c, 300)
                                                                               for c in _wide(375)])),
}


@pytest.mark.parametrize("shape", sorted(_HOSTILE))
def test_a_hostile_bundle_imports_holding_under_four_times_its_inflated_body(tmp_path, shape):
    """Files whose facts are all of the costliest items, over a quarter MiB of them in all (the old
    peak grew with them; under tracemalloc each costs much time), fingerprint true: imported
    (checked, then written) while every blob's facts were decoded at once, their stored forms
    all made before the commit and every `inherits` edge held until all were made, the peak
    came to 25 times the inflated body (names outside Latin-1), 18 times (distinct names) and
    61 times (bases); now under 4 times."""
    count, facts = _HOSTILE[shape]
    files = python_files(count)
    data, raw = sealed(files, facts())
    assert raw > 1 << 18
    assert len(data) * bundle.MAX_RATIO > raw and raw < bundle.raw_allowance(bundle.parse_header(data)[0])
    with Store.open(tmp_path / "store") as store:
        report, peak = peak_of(lambda: bundle.import_data(store, data, trust_unsigned=True))
    assert isinstance(report, bundle.ImportReport) and report.facts_new == count, report
    assert peak < 4 * raw, (peak, raw, peak / raw)


def _wide_rows(n: int) -> list[tuple[str, str, int, str, str]]:
    """`n` distinct rows of four one-character strings outside Latin-1 and a line, sorted:
    the most objects a byte of a record's list makes, in the order a record keeps."""
    draw = random.Random(n).randrange
    rows: set[tuple[str, str, int, str, str]] = set()
    while len(rows) < n:
        a, b, c, d = (chr(0x100 + draw(4000)) for _ in range(4))
        rows.add((a, b, draw(128), c, d))
    return sorted(rows)


# A record's lists read in order from their bytes (indexer/fleet/carried_list.py), in the orders
# a record keeps (model.edge_order, model.unresolved_order).
_RECORD_LISTS: dict[str, Callable[[int], list]] = {
    "edges": lambda n: [Edge(s, t, k, line, spec) for s, t, line, k, spec in _wide_rows(n)],
    "unresolved": lambda n: sorted((UnresolvedImport(p, spec, k, line, status) for p, k, line, spec, status
                                    in _wide_rows(n)), key=unresolved_order),
    # in no order of theirs: the fingerprint sorts them
    "dependencies": lambda n: [Dependency(*row) for row in zip(*[iter(_wide(6 * n))] * 6)],
}


@pytest.mark.parametrize("field", sorted(_RECORD_LISTS))
def test_a_record_of_edges_alone_imports_holding_under_three_and_a_half_times_its_inflated_body(tmp_path, field):
    """A record of 16,384 edges (or unresolved imports, or dependencies) and little else, each
    of one-character strings outside Latin-1, fingerprint true: imported while the record was
    decoded whole, the peak came to 13 times the inflated body (edges of paths: 7;
    dependencies: 16). Now they stay the bytes they came in, read a block at a time by the
    checks, the fingerprint (which orders dependencies by their keys alone) and the stored
    form: under 3.5 times (measured 2.6 to 2.9), and stored as they came."""
    files = python_files(64)
    items = _RECORD_LISTS[field](1 << 14)
    record = record_of(files)
    setattr(record, field, items)
    record.fingerprint = fingerprint(record, {f.path: BlobFacts("python", 1) for f in files})
    data, raw = seal(record, with_facts(files, BlobFacts("python", 1)))
    with Store.open(tmp_path / "store") as store:
        report, peak = peak_of(lambda: bundle.import_data(store, data, trust_unsigned=True))
    assert isinstance(report, bundle.ImportReport) and report.snapshot_new, report
    assert peak < 3.5 * raw, (peak, raw, peak / raw)
    with Store.open(report.store) as apart:
        stored = load_record(apart, record.oid)
    assert stored is not None and getattr(stored, field) == items and stored.fingerprint == record.fingerprint


@pytest.fixture(scope="module")
def tiny_files(tmp_path_factory) -> tuple[list, bytes, int, object, int]:
    """8,192 files of the least facts a parsed file has, fingerprint true, imported into a store
    of their own once for the two tests that weigh that import: the files, the bundle, its
    inflated size, and the import's report and peak."""
    files = python_files(1 << 13)
    data, raw = sealed(files, BlobFacts("python", 1))
    with Store.open(tmp_path_factory.mktemp("tiny-files") / "store") as store:
        report, peak = peak_of(lambda: bundle.import_data(store, data, trust_unsigned=True))
    return files, data, raw, report, peak


def test_a_bundle_of_many_tiny_files_imports_holding_under_four_times_its_inflated_body(tiny_files):
    """8,192 files of the least facts a parsed file has, fingerprint true: while the record's
    files were decoded whole (a struct and a string object a field) and each blob's facts held
    as a view of the inflated body, the import held 8 times the inflated body (6 at 100,000
    files). Now the files stay the bytes they came in, read a block at a time by the checks,
    the fingerprint and the stored form (whose head takes them by column), and each blob's facts
    are the msgpack object they were read as: under 4 times (measured 3.4), and stored as they
    came."""
    files, _, raw, report, peak = tiny_files
    assert isinstance(report, bundle.ImportReport) and report.facts_new == len(files), report
    assert peak < 4 * raw, (peak, raw, peak / raw)
    with Store.open(report.store) as apart:
        stored = load_record(apart, report.oid)
    assert stored is not None and stored.files == files and stored.fingerprint == report.fingerprint


def test_full_fan_in_and_rank_maps_cost_an_import_about_their_bytes(tmp_path, tiny_files):
    """The 8,192 files above with a fan-in and a rank for every file, as an exporter writes
    them, fingerprint true: while the maps were decoded whole (a string and a number object an
    entry, in a dict), the import held 3.8 times the inflated body, the maps 6.7 times their
    bytes more than the same files without them. Now they stay the bytes they came in, read a
    block at a time in step with the files: under 3.5 times the body (measured 3.1), the maps
    under twice their bytes more (measured 1.7), and stored as they came."""
    files, _, bare_raw, bare_report, bare_peak = tiny_files
    assert isinstance(bare_report, bundle.ImportReport) and bare_report.snapshot_new, bare_report
    record = record_of(files)
    facts = BlobFacts("python", 1)
    record.fan_in = {f.path: i % 23 for i, f in enumerate(files)}
    record.rank = {f.path: round((i * 7919 % 10007) / 1e6, 9) for i, f in enumerate(files)}
    record.fingerprint = fingerprint(record, {f.path: facts for f in files})
    data, raw = seal(record, with_facts(files, facts))
    with Store.open(tmp_path / "maps") as store:
        report, peak = peak_of(lambda: bundle.import_data(store, data, trust_unsigned=True))
    assert isinstance(report, bundle.ImportReport) and report.snapshot_new, report
    assert peak < 3.5 * raw, (peak, raw, peak / raw)
    assert peak - bare_peak < 2 * (raw - bare_raw), (bare_peak, peak, raw - bare_raw,
                                                      (peak - bare_peak) / (raw - bare_raw))
    with Store.open(report.store) as apart:
        stored = load_record(apart, record.oid)
    assert stored is not None and stored.fingerprint == record.fingerprint
    assert stored.fan_in == record.fan_in and stored.rank == record.rank


def test_one_blob_past_its_decoded_weight_is_refused_before_it_is_made():
    """A single import naming a million one-character names: its list holds one item, its
    tuple is counted from its head, and the blob would come to over MAX_WEIGHT: `bad_bundle`,
    while at most the inflated body and its shapes are held."""
    files = python_files(1)
    n = facts_weight.MAX_WEIGHT // 80
    facts = BlobFacts("python", 1, imports=[ImportSpec("python", "m", 1, names=tuple(_wide(n)))])
    data, raw = sealed(files, facts)
    code, peak = peak_of(lambda: bundle.check(data))
    assert code == "bad_bundle"
    assert peak < 2 * raw + 2 * bundle._OUT_PIECE, (peak, raw)
    with pytest.raises(bundle.BadBundle, match="would come to .* bytes decoded"):
        bundle.check(data)


# One blob's facts of each container field, of tiny items: the costliest per byte that field
# can hold.
_N = 20_000
_TINY: dict[str, Callable[[], BlobFacts]] = {
    "symbols": lambda: BlobFacts("python", 1, symbols=[Symbol(c, "", "", 300, 300, 300, 300, "")
                                                       for c in _wide(_N)]),
    "occurrences": lambda: BlobFacts("python", 1, occurrences=[Occurrence(c, 300, 300, c) for c in _wide(_N)]),
    "imports": lambda: BlobFacts("python", 1, imports=[ImportSpec(c, c, 300, names=(c, c), aliases=(c,),
                                                                  exports=(c,), visibility=c) for c in _wide(_N)]),
    "dunder_all": lambda: BlobFacts("python", 1, dunder_all=_wide(_N)),
    "bases": lambda: BlobFacts("python", 1, bases=[Base(c, c, 300, c) for c in _wide(_N)]),
    "exported_as": lambda: BlobFacts("python", 1, exported_as=[(c, c) for c in _wide(_N)]),
    "uses": lambda: BlobFacts("python", 1, uses={f"{i:x}": 300 for i in range(_N)}),
    "local_names": lambda: BlobFacts("python", 1, local_names=_wide(_N)),
    "definitions": lambda: BlobFacts("python", 1, definitions={f"{i:x}": 0.5 for i in range(_N)}),
    "parse_errors": lambda: BlobFacts("python", 1, parse_errors=[ParseError(300, 300, c) for c in _wide(_N)]),
}


def test_every_container_of_blob_facts_is_weighed_here():
    assert set(_TINY) == set(facts_weight.FACTS_CONTAINERS)


def test_the_object_sizes_weighed_are_cpythons_at_least():
    """facts_weight's sizes are upper bounds of CPython's objects on a 64-bit machine: an int
    of 64 bits, a string of one character past the Basic Multilingual Plane, a float, empty
    bytes, and an empty tuple and list with the collector's header (16 bytes)."""
    import sys

    assert facts_weight._INT >= sys.getsizeof((1 << 64) - 1) and facts_weight._STR >= sys.getsizeof("\U0001f600")
    assert facts_weight._FLOAT >= sys.getsizeof(0.5) and facts_weight._BYTES >= sys.getsizeof(b"")
    assert facts_weight._TUPLE >= sys.getsizeof(()) + 16 and facts_weight._LIST >= sys.getsizeof([]) + 16


@pytest.mark.parametrize("field", sorted(_TINY))
def test_the_weight_bounds_what_decoding_makes(field):
    """For tiny items of every field, what decoding makes is at most `weigh`'s estimate and at
    most WORST_PER_BYTE a byte (which lets small blobs go unweighed)."""
    raw = _enc(_TINY[field]())
    estimate = facts_weight.weigh(facts_weight.decode_shape(raw), len(raw))
    facts, peak = peak_of(lambda: decode_core(raw))
    assert isinstance(facts, BlobFacts)
    assert peak <= estimate, (peak, estimate)
    assert peak <= facts_weight.WORST_PER_BYTE * len(raw), (peak, len(raw), peak / len(raw))


def test_the_weight_bounds_what_the_scopes_of_bases_make():
    """A base's scopes (`Base.nesting`, a container of a struct encoded as an array): tiny names
    in them, read from their heads as an import's names are, bounded as any field's."""
    raw = _enc(BlobFacts("python", 1, bases=[Base(c, c, 300, "", tuple(_wide(16))) for c in _wide(_N // 16)]))
    estimate = facts_weight.weigh(facts_weight.decode_shape(raw), len(raw))
    facts, peak = peak_of(lambda: decode_core(raw))
    assert isinstance(facts, BlobFacts) and len(facts.bases[0].nesting) == 16
    assert peak <= estimate, (peak, estimate)
    assert peak <= facts_weight.WORST_PER_BYTE * len(raw), (peak, len(raw), peak / len(raw))


@pytest.mark.parametrize("last", ["\u00e9", "\u4e2d", "\U0001f600"])
def test_the_weight_bounds_a_long_string_widened_as_it_is_decoded(last):
    """One character past ASCII, Latin-1 or the Basic Multilingual Plane at the end of a long
    string widens the whole of it (to one, two or four bytes a character), and CPython's decoder
    holds the narrower form while it widens: five bytes a byte at the most (was: weighed at four,
    a string of ASCII and one emoji peaked at 1.25 times its weight)."""
    raw = _enc(BlobFacts("python", 1, local_names=["a" * 100_000 + last]))
    estimate = facts_weight.weigh(facts_weight.decode_shape(raw), len(raw))
    facts, peak = peak_of(lambda: decode_core(raw))
    assert isinstance(facts, BlobFacts) and facts.local_names[0][-1] == last
    assert peak <= estimate, (peak, estimate)


def test_an_honest_blob_at_the_extractors_caps_weighs_under_the_cap():
    """Symbols to the extractor's cap, each with a base, and occurrences and local names to
    theirs: what a 1 MiB source could give at most, well within MAX_WEIGHT."""
    from indexer.extract.tags import SYMBOL_CAP
    from indexer.extract.tokens import OCCURRENCE_CAP

    many = names(SYMBOL_CAP)
    facts = BlobFacts(
        "python", 20_000,
        symbols=[Symbol(f"Name{i}", "class", "Outer.Inner", i, i + 3, i * 20, i * 20 + 60,
                        f"class Name{i}(Base{i}, metaclass=Meta):") for i in range(SYMBOL_CAP)],
        bases=[Base(f"Outer.Inner.Name{i}", f"pkg.Base{i}", i) for i in range(SYMBOL_CAP)],
        occurrences=[Occurrence(n, i, 4, "reference") for i, n in enumerate(many[:OCCURRENCE_CAP])],
        local_names=many[:OCCURRENCE_CAP])
    raw = _enc(facts)
    assert facts_weight.weigh(facts_weight.decode_shape(raw), len(raw)) < facts_weight.MAX_WEIGHT


# --- honest bundles -----------------------------------------------------------------------------

def _stored(store: Store, keys: list[bytes]) -> dict[bytes, BlobFacts | None]:
    with store.env.begin() as txn:
        return {key: full_facts(txn, store, key) for key in keys}


def test_an_honest_bundle_round_trips_with_the_same_fingerprint_and_facts(tmp_path):
    """A small repository indexed, exported and imported into an empty store: the snapshot's
    fingerprint and every blob's stored facts are the origin's."""
    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({
        "pkg/__init__.py": "from pkg.core import Engine\n__all__ = ['Engine']\n",
        "pkg/core.py": "import os\n\n\nclass Base:\n    pass\n\n\nclass Engine(Base):\n"
                       "    def run(self, x):\n        return os.path.join(x, helper(x))\n\n\n"
                       "def helper(x):\n    return x\n",
        "pkg/cli.py": "from pkg.core import Engine, helper\nimport missing\n\n\ndef main():\n    Engine().run('a')\n",
        "web/app.js": "import {render} from './view.js';\nexport class App extends Object {}\nrender();\n",
        "web/view.js": "export function render() { return 1; }\n",
        "README.md": "# pkg\n",
    })
    with Store.open(tmp_path / "origin") as origin:
        index(str(builder.path), "main", origin)
        snap = load(origin, str(builder.path), "main")
        bundle.export(snap, tmp_path / "b.rnb")
        keys = sorted(bundle.facts_keys(snap.record))
        theirs = _stored(origin, keys)
        expected = snap.record.fingerprint
    assert len(keys) >= 5 and all(theirs.values())
    with Store.open(tmp_path / "store") as store:
        report = bundle.import_bundle(store, tmp_path / "b.rnb", str(builder.path))
        assert report.provenance == "rederived" and report.fingerprint == expected
        assert report.facts_new == len(keys) and report.snapshot_new
        assert load(store, str(builder.path), "main").record.fingerprint == expected
        assert _stored(store, keys) == theirs


def test_an_honest_corpus_bundle_imports_holding_under_four_times_its_inflated_body(tmp_path, synthetic_bundle):
    """The benchmarks' generated corpus: its import (checked, then written) held 7 times the
    inflated body while every blob's facts were decoded at once; now under 4 times, and it
    imports with the origin's fingerprint."""
    data = synthetic_bundle.read_bytes()
    header, _ = bundle.parse_header(data)
    with Store.open(tmp_path / "store") as store:
        report, peak = peak_of(lambda: bundle.import_data(store, data, trust_unsigned=True))
    assert isinstance(report, bundle.ImportReport) and report.fingerprint == header.fingerprint
    assert report.facts_new == header.facts and report.snapshot_new
    assert peak < 4 * header.raw_bytes, (peak, header.raw_bytes, peak / header.raw_bytes)
