"""Each bound a bundle is read under (docs/fleet.md "Bundles", the table of limits), held at the
figure the spec gives: a bundle at the bound gets past it, one a byte or an item over is
refused by it, whatever else the bundle gets wrong after. Counts are read from msgpack heads,
so a list's items here are the smallest values msgpack has: the count check must not lean on
how many bytes the items take."""

from __future__ import annotations

import json
import mmap
import zlib

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.contract.limits import Limits, in_force
from indexer.fleet import bundle
from indexer.model import BlobFacts
from indexer.store.database import Store
from tests.examples import examples
from tests.test_bundle_bounds import python_files, record_of, seal, with_facts

_enc = msgspec.msgpack.encode
KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30


def sealed(record: dict, entries: list, **declared: int) -> bytes:
    """A bundle of the record given as a plain map (its lists any values at all) and `entries`,
    with a valid digest and the header's counts as `declared` says."""
    raw = _enc([_enc(record), entries])
    body = zlib.compress(raw, 1)
    header = {"format": bundle.FORMAT, "oid": record["oid"], "fingerprint": record["fingerprint"],
              "extractor_version": record["extractor_version"], "rev": "main", "repo_name": "x", "remote_url": None,
              "files": len(record["files"]), "facts": len(entries), "body_bytes": len(body), "raw_bytes": len(raw),
              "created_at": "2026-01-01T00:00:00Z", "digest": ""}
    header.update(declared)
    header["digest"] = bundle._digest(header, body)
    return bundle.MAGIC + bundle._header_line(header) + b"\n" + body


def plain_record(files: int = 1) -> dict:
    return msgspec.msgpack.decode(_enc(record_of(python_files(files))))


def refusal(data: bytes) -> str:
    with pytest.raises(bundle.BadBundle) as caught:
        bundle.check(data)
    return caught.value.message


def header_of(files: int = 1, facts: int = 0, body_bytes: int = 100, raw_bytes: int = 0) -> bundle.Header:
    return bundle.Header(format=bundle.FORMAT, oid="a" * 40, fingerprint="f" * 64, extractor_version="v", rev="main",
                         repo_name="x", remote_url=None, files=files, facts=facts, body_bytes=body_bytes,
                         raw_bytes=raw_bytes, created_at="2026-01-01T00:00:00Z", digest="")


@pytest.mark.parametrize("length", [16 * KiB - 1, 16 * KiB, 16 * KiB + 1])
def test_a_header_line_of_16_kib_is_read_and_one_byte_more_is_refused(length):
    header = msgspec.structs.asdict(header_of())
    header["repo_name"] = ""
    header["repo_name"] = "r" * (length - len(bundle._header_line(header)))
    line = bundle._header_line(header)
    assert len(line) == length
    data = bundle.MAGIC + line + b"\n" + b"body"
    if length <= 16 * KiB:
        found, start = bundle.parse_header(data)
        assert found.repo_name == header["repo_name"] and data[start:] == b"body"
    else:
        with pytest.raises(bundle.BadBundle, match="bundle header is truncated or over 16384 bytes"):
            bundle.parse_header(data)


def test_a_header_line_without_its_line_ending_is_refused():
    line = bundle._header_line(msgspec.structs.asdict(header_of()))
    with pytest.raises(bundle.BadBundle, match="truncated"):
        bundle.parse_header(bundle.MAGIC + line)


@pytest.mark.parametrize("cap", [8, Limits().files])
def test_the_declared_files_pass_at_the_files_limit_and_one_more_is_refused(cap, monkeypatch):
    """At most `files` (1,048,576 by default, as a user moves it) files, and facts at most one a
    file: told from the header alone."""
    monkeypatch.delenv("RENNET_LIMITS", raising=False)
    with in_force(Limits(files=cap)):
        bundle.check_counts(header_of(files=cap, facts=cap))
        bundle.check_counts(header_of(files=cap - 1, facts=cap - 1))
        with pytest.raises(bundle.BadBundle, match=f"declares {cap + 1:,} files, over the {cap:,} a snapshot holds"):
            bundle.check_counts(header_of(files=cap + 1))
        with pytest.raises(bundle.BadBundle, match=f"declares {cap} blob facts for {cap - 1} files"):
            bundle.check_counts(header_of(files=cap - 1, facts=cap))
    assert Limits().files == 1_048_576


# (compressed bytes, declared files) -> the most the body may inflate to, as docs/fleet.md gives
# it: 100 times the compressed size (or 1 MiB), 16 MiB and 32 KiB a file, 512 MiB, the least.
ALLOWANCES = {
    "the ratio": (200_000, 1_000, 20_000_000),
    "a small body's 1 MiB": (100, 1_000, 1 * MiB),
    "the ratio just past 1 MiB": (10_486, 1_000, 1_048_600),
    "the files'": (10_000_000, 2, 16 * MiB + 2 * 32 * KiB),
    "no files'": (10_000_000, 0, 16 * MiB),
    "the hard cap": (10_000_000, 100_000, 512 * MiB),
}


@pytest.mark.parametrize("case", sorted(ALLOWANCES))
def test_the_inflated_size_declared_passes_at_its_allowance_and_one_byte_more_is_refused(case):
    body_bytes, files, allowed = ALLOWANCES[case]
    assert bundle.raw_allowance(header_of(files=files, body_bytes=body_bytes)) == allowed
    for raw in (allowed - 1, allowed):
        assert bundle.raw_limit(header_of(files=files, body_bytes=body_bytes, raw_bytes=raw)) == raw
    with pytest.raises(bundle.BadBundle, match=f"inflate to {allowed + 1} bytes from {body_bytes}, over the "
                                               f"{allowed} allowed"):
        bundle.raw_limit(header_of(files=files, body_bytes=body_bytes, raw_bytes=allowed + 1))


@pytest.mark.parametrize("inflated", [-1, 0, 1])
def test_a_body_inflates_to_just_the_bytes_its_header_declares(inflated):
    """A body one byte short of what its header declares, or one byte past it, is refused."""
    raw = bytes(range(256)) * 40
    declared = len(raw) - inflated
    if inflated == 0:
        assert bundle.inflate(zlib.compress(raw), declared) == raw
    elif inflated > 0:  # refused as soon as the stream passes the declared size, none of it kept
        with pytest.raises(bundle.BadBundle, match=f"^bad_bundle: bundle body inflates past the {declared} bytes its "
                                                   f"header declares$"):
            bundle.inflate(zlib.compress(raw), declared)
    else:
        with pytest.raises(bundle.BadBundle, match=f"^bad_bundle: bundle body inflates to {len(raw)} bytes, its "
                                                   f"header declares {declared}$"):
            bundle.inflate(zlib.compress(raw), declared)


@pytest.mark.parametrize("compressed", [64 * KiB - 1, 64 * KiB, 64 * KiB + 1, 128 * KiB])
def test_a_body_of_any_length_is_inflated_whole_across_its_input_slices(compressed):
    """The body goes to the inflater a slice at a time: one that ends just at a slice's end is
    whole, and a byte after the stream's end is refused wherever it falls."""
    import random

    n = next(n for n in range(compressed - 64, compressed)
             if len(zlib.compress(random.Random(0).randbytes(n), 1)) == compressed)
    raw = random.Random(0).randbytes(n)
    body = zlib.compress(raw, 1)
    assert len(body) == compressed and bundle.inflate(body, n) == raw
    with pytest.raises(bundle.BadBundle, match="cut short or followed by other bytes"):
        bundle.inflate(body + b"\0", n)
    with pytest.raises(bundle.BadBundle, match="cut short or followed by other bytes"):
        bundle.inflate(body[:-1], n)


# The record's other lists: each at most 65,536 + 64 a declared file.
OTHER_LISTS = ["edges", "unresolved", "packages", "dependencies", "entry_points"]


@pytest.mark.parametrize("files", [0, 1])
@pytest.mark.parametrize("name", OTHER_LISTS)
def test_a_record_list_at_its_cap_is_counted_through_and_one_more_item_is_refused(name, files):
    cap = 65_536 + 64 * files
    record = plain_record(files)
    entries = with_facts(python_files(files), BlobFacts("python", 1))
    record[name] = [0] * cap  # items of no list's type: refused once decoded, after the count
    assert "over the cap" not in refusal(sealed(record, entries))
    record[name] = [0] * (cap + 1)
    assert refusal(sealed(record, entries)) == (f"bundle's record's {name} list holds {cap + 1} entries, over the cap "
                                                f"of {cap}")


@pytest.mark.parametrize("name, said", [("fan_in", "fan-in map"), ("rank", "rank map")])
def test_a_fan_in_or_rank_map_holds_at_most_one_entry_a_declared_file(name, said):
    record = plain_record(3)
    entries = with_facts(python_files(3), BlobFacts("python", 1))
    record[name] = {f"p{i}": 0 for i in range(3)}
    assert "over the cap" not in refusal(sealed(record, entries))
    record[name] = {f"p{i}": 0 for i in range(4)}
    assert refusal(sealed(record, entries)) == f"bundle's {said} holds 4 entries, over the cap of 3"


@pytest.mark.parametrize("listed", [2, 4])
def test_the_file_list_holds_just_the_files_declared(listed):
    record = plain_record(listed)
    entries = with_facts(python_files(min(listed, 3)), BlobFacts("python", 1))
    message = refusal(sealed(record, entries, files=3, facts=len(entries)))
    assert message == ("bundle's file list holds 4 entries, over the cap of 3" if listed > 3
                       else "bundle counts disagree with its content (files)")


@pytest.mark.parametrize("carried", [2, 4])
def test_the_facts_list_holds_just_the_facts_declared(carried):
    files = python_files(4)
    record = plain_record(4)
    entries = with_facts(files, BlobFacts("python", 1))[:carried]
    message = refusal(sealed(record, entries, facts=3))
    assert message == ("bundle's facts list holds 4 entries, over the cap of 3" if carried > 3
                       else "bundle counts disagree with its content (facts)")


def test_a_facts_entry_given_twice_is_refused():
    """Facts are keyed by blob: an entry repeated counts twice in the header and once in what
    it holds, so the counts disagree."""
    files = python_files(3)
    entries = with_facts(files[:2], BlobFacts("python", 1))
    data, _ = seal(record_of(files), [*entries, entries[1]])
    assert refusal(data) == "bundle counts disagree with its content"


@pytest.mark.parametrize("count", [131_071, 131_072, 131_073])
def test_a_blobs_list_of_131072_passes_and_one_more_is_refused_however_few_its_bytes(count):
    """Empty names take a byte each: a list past the cap in fewer bytes than the facts must
    have before they are weighed is still counted."""
    one = python_files(1)
    data, _ = seal(record_of(one), with_facts(one, BlobFacts("python", 1, local_names=[""] * count)))
    message = refusal(data)
    if count <= 131_072:
        assert message == "fingerprint recomputed from the bundle's record and facts does not match"
    else:
        assert message.startswith("bundle's facts of blob") and message.endswith("local_names holds 131073 entries, over the cap of 131072")


def test_a_blobs_facts_weighing_just_the_cap_pass_and_one_byte_more_is_refused(monkeypatch):
    """The decoded weight of a blob's facts is held to `MAX_WEIGHT` (112 MiB), a bound read from
    its heads: at the weight the facts pass, one byte under it they are refused. The cap is
    moved to this blob's weight here, so the bound is met with a blob of a few hundred KiB."""
    from indexer.fleet import facts_weight

    one = python_files(1)
    facts = _enc(BlobFacts("python", 1, local_names=[""] * 131_072))
    weight = facts_weight.weigh(facts_weight.decode_shape(facts), len(facts))
    assert facts_weight.MAX_WEIGHT == 112 * MiB and weight < facts_weight.MAX_WEIGHT
    data, _ = seal(record_of(one), with_facts(one, msgspec.msgpack.decode(facts, type=BlobFacts)))
    monkeypatch.setattr(facts_weight, "MAX_WEIGHT", weight)
    assert refusal(data) == "fingerprint recomputed from the bundle's record and facts does not match"
    monkeypatch.setattr(facts_weight, "MAX_WEIGHT", weight - 1)
    assert refusal(data).endswith(f"would come to {weight} bytes decoded, over the cap of {weight - 1}")


def _sparse(path, size: int) -> None:
    with open(path, "wb") as fh:
        fh.truncate(size)


def test_a_bundle_file_of_1_gib_is_read_and_one_byte_more_is_refused_before_reading(tmp_path):
    """The file is held to 1 GiB by its size before a byte is read: one of 1 GiB is read as far
    as its first bytes (not a bundle's here), one byte more is refused for its size."""
    _sparse(tmp_path / "at", GiB)
    with pytest.raises(bundle.BadBundle, match=r"^bad_bundle: not a rennet bundle \(bad magic\)$"):
        bundle.read(tmp_path / "at")
    _sparse(tmp_path / "past", GiB + 1)
    with pytest.raises(bundle.BadBundle, match=f"bundle is {GiB + 1} bytes, over the cap of {GiB}"):
        bundle.read(tmp_path / "past")


def test_bundle_bytes_past_1_gib_are_refused_before_they_are_looked_at(tmp_path):
    """Bytes already in memory (a batch worker's result) are held to the same 1 GiB: a mapped
    file of zeros takes no memory, so the refusal is told by the length alone."""
    _sparse(tmp_path / "past", GiB + 1)
    with (open(tmp_path / "past", "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data,
          Store.open(tmp_path / "store") as store):
        with pytest.raises(bundle.BadBundle, match=f"bundle is {GiB + 1} bytes, over the cap of {GiB}"):
            bundle.import_data(store, data)  # type: ignore[arg-type]
        [refused] = bundle.import_signed(store, [(data, None, None)], b"k" * 32)  # type: ignore[list-item]
        assert isinstance(refused, bundle.BadBundle) and refused.message == (f"bundle is {GiB + 1} bytes, over the "
                                                                              f"cap of {GiB}")



def _streamed(fifo, first: bytes) -> bytes:
    """What `bundle.read` takes of a pipe whose writer sends `first`, then a MiB of zeros."""
    import threading

    def send() -> None:
        try:
            with open(fifo, "wb") as out:
                out.write(first)
                for _ in range(64):
                    out.write(b"\0" * (16 * KiB))
        except BrokenPipeError:
            pass  # the reader stopped, as it should

    writer = threading.Thread(target=send)
    writer.start()
    try:
        return bundle.read(fifo)
    finally:
        writer.join()


def test_a_stream_is_read_no_further_than_the_cap_and_then_refused(tmp_path, monkeypatch):
    """A pipe has no size to refuse it by. One whose header declares a body past the cap (64 KiB
    here) is read to one byte past the cap and no further, however much its writer sends, and
    refused for its length; one of no header line is read no further than a header's room, and
    refused for its header."""
    import os

    monkeypatch.setattr(bundle, "MAX_BUNDLE_BYTES", 64 * KiB)
    fifo = tmp_path / "stream"
    os.mkfifo(fifo)
    header = {"format": bundle.FORMAT, "oid": "0" * 40, "fingerprint": "0" * 64, "extractor_version": "x",
              "rev": "main", "repo_name": "x", "remote_url": None, "files": 1, "facts": 1, "body_bytes": 1 << 40,
              "raw_bytes": 1, "created_at": "2026-01-01T00:00:00Z", "digest": "sha256:" + "0" * 64}
    with pytest.raises(bundle.BadBundle, match=f"over the cap of {64 * KiB}"):
        _streamed(fifo, bundle.MAGIC + bundle._header_line(header) + b"\n")
    data = _streamed(fifo, bundle.MAGIC)
    assert len(data) == len(bundle.MAGIC) + bundle.MAX_HEADER_BYTES + 1
    with Store.open(tmp_path / "store") as store, pytest.raises(bundle.BadBundle, match="header is truncated or over"):
        bundle.import_data(store, data)


@pytest.mark.parametrize("version", [1, 2, 3])
def test_format_2_is_read_and_the_formats_either_side_are_refused(version):
    """docs/fleet.md: this rennet reads and writes format 2; version 1 (no `raw_bytes`) is
    refused, as is any later one."""
    header = msgspec.structs.asdict(header_of())
    header["format"] = version
    data = bundle.MAGIC + bundle._header_line(header) + b"\n"
    if version == 2:
        assert bundle.parse_header(data)[0].format == 2
    else:
        with pytest.raises(bundle.BadBundle, match=f"bundle format {version} is not supported "
                                                   r"\(this rennet reads format 2\)"):
            bundle.parse_header(data)


@pytest.mark.parametrize("spelling", ["spaces", "order", "escapes"])
def test_a_header_of_its_fields_spelled_otherwise_is_refused(spelling):
    """docs/fleet.md: the header is one line of JSON, keys sorted, no spaces, ASCII. Its digest
    is taken over that spelling made again from the fields, so the same fields spelled
    otherwise (spaces, keys out of order, a character escaped) would pass it: `bad_bundle`."""
    header = msgspec.structs.asdict(header_of())
    canonical = bundle._header_line(header)
    other = {"spaces": json.dumps(header, sort_keys=True).encode(),
             "order": json.dumps(dict(reversed(header.items())), separators=(",", ":")).encode(),
             "escapes": canonical.replace(b'"main"', b'"\\u006dain"')}[spelling]
    assert other != canonical and json.loads(other) == header
    assert bundle.parse_header(bundle.MAGIC + canonical + b"\n")[0] == bundle.Header(**header)
    with pytest.raises(bundle.BadBundle, match="bundle header bytes are not canonical"):
        bundle.parse_header(bundle.MAGIC + other + b"\n")


@pytest.mark.parametrize("size, lines", [(0, -1), (1, -1), (0, 0), (0, -2)])
def test_a_missing_blob_is_listed_with_no_size_and_no_lines_or_refused(size, lines):
    """docs/fleet.md: a file listed as missing (`missing_object`) has no content: size 0 and
    lines -1, nothing else."""
    from indexer.model import FileEntry
    from indexer.pipeline.extract import MISSING, MISSING_OBJECT

    gone = FileEntry("a.py", "e" * 40, 0o100644, size, lines, MISSING, skipped=MISSING_OBJECT)
    data, _ = seal(record_of([gone]), [])
    if (size, lines) == (0, -1):
        assert refusal(data) == "fingerprint recomputed from the bundle's record and facts does not match"
    else:
        assert refusal(data) == "bundle lists a.py as missing inconsistently"


@pytest.mark.parametrize("field", ["oid", "fingerprint", "extractor_version"])
def test_a_header_naming_another_snapshot_than_its_record_is_refused(field):
    """docs/fleet.md: the header's `oid`, `fingerprint` and `extractor_version` are the
    snapshot's, the record's: a header naming another (what a reader of the header alone would
    believe), sealed with a valid digest, is `bad_bundle`."""
    record = record_of(python_files(1))
    said = {"oid": "c" * 40, "fingerprint": "e" * 64, "extractor_version": record.extractor_version}[field]
    if field == "extractor_version":  # the header's is this rennet's (else refused before the body), the record's not
        record = msgspec.structs.replace(record, extractor_version=said + "x")
    data, _ = seal(record, with_facts(record.files, BlobFacts("python", 1)), **{field: said})
    assert refusal(data) == "bundle header and snapshot record disagree"


def test_facts_no_file_uses_are_refused():
    from indexer.model import FileEntry

    files = [*python_files(1), FileEntry("z.bin", "d" * 40, 0o100644, 10, -1, "binary")]
    entries = [*with_facts(files[:1], BlobFacts("python", 1)), *with_facts(python_files(2)[1:], BlobFacts("python", 1))]
    data, _ = seal(record_of(files), entries)
    assert refusal(data) == "bundle holds facts no file of its snapshot uses"


def test_facts_under_a_key_of_another_shape_are_refused():
    """A file whose blob is no OID makes a key no store reads facts by: refused (as naming no
    object), though the key is the one the file names."""
    from indexer.model import FileEntry

    files = [FileEntry("a.py", "not-an-oid", 0o100644, 10, 1, "python")]
    data, _ = seal(record_of(files), with_facts(files, BlobFacts("python", 1)))
    assert refusal(data) == "bundle lists a.py with blob 'not-an-oid', no object id"


def test_a_path_listed_twice_is_refused():
    files = python_files(2)
    data, _ = seal(record_of([files[0], files[0]]), with_facts(files[:1], BlobFacts("python", 1)), facts=1)
    assert refusal(data) == "bundle's file list is not sorted by path, or lists a path twice"


@pytest.mark.parametrize("name", ["edges", "unresolved"])
def test_an_edge_or_unresolved_import_listed_twice_is_refused(name):
    """docs/fleet.md: import edges and unresolved imports are sorted, each without repeats."""
    from indexer.model import Edge, UnresolvedImport

    files = python_files(1)
    record = record_of(files)
    twice = {"edges": Edge(files[0].path, "b.py", "python", 1, "b"),
             "unresolved": UnresolvedImport(files[0].path, "b", "python", 1, "external")}[name]
    setattr(record, name, [twice, twice])
    data, _ = seal(record, with_facts(files, BlobFacts("python", 1)))
    assert refusal(data) == {"edges": "bundle's import edges are not sorted, or list an edge twice",
                             "unresolved": "bundle's unresolved imports are not sorted, or list one twice"}[name]


@pytest.mark.parametrize("inflates", [32 * MiB, 64 * MiB])
def test_a_body_is_inflated_into_its_buffer_a_bounded_piece_at_a_time(inflates):
    """Memory is the declared size and a few pieces (a piece, and zlib's buffer while it makes
    one), never the body inflated twice: at its declared size (32 MiB here), or a bomb stopped
    one byte past it."""
    import tracemalloc

    limit = 32 * MiB
    body = zlib.compress(bytes(inflates), 1)
    tracemalloc.start()
    try:
        if inflates == limit:
            assert len(bundle.inflate(body, limit)) == limit
        else:
            with pytest.raises(bundle.BadBundle, match="inflates past"):
                bundle.inflate(body, limit)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < limit + 4 * bundle._OUT_PIECE, peak


@pytest.mark.parametrize("name", ["files", *OTHER_LISTS])
def test_an_item_of_another_type_in_any_record_list_is_refused_by_the_checks(name):
    """Every carried item is decoded once by the checks, so one of another type (here a string
    as long as an item) is `bad_bundle` there, never an error of whatever reads it later."""
    record = plain_record(1)
    entries = with_facts(python_files(1), BlobFacts("python", 1))
    record[name] = ["x" * 64]
    assert refusal(sealed(record, entries)) == "bundle body does not decode (ValidationError)"


def test_a_record_nested_past_the_decoders_depth_is_refused_as_not_decoding():
    record = plain_record(1)
    record["unknown"] = msgspec.Raw(b"\x91" * 200_000 + b"\xc0")
    data = sealed(record, with_facts(python_files(1), BlobFacts("python", 1)))
    assert refusal(data) == "bundle body does not decode (RecursionError)"


def test_a_facts_entry_that_is_not_bytes_is_refused():
    entries = with_facts(python_files(1), BlobFacts("python", 1))
    data = sealed(plain_record(1), [[entries[0].key, "not bytes"]])
    assert refusal(data) == "bundle body does not decode (a facts entry is not bytes)"


@pytest.mark.parametrize("name, said", [("fan_in", "fan-in"), ("rank", "rank")])
@pytest.mark.parametrize("key", ["a", "f0000000.py~", "z"])
def test_a_map_key_no_file_has_is_refused_wherever_it_sorts(name, said, key):
    """Before every file's path, between two, or after all: each is a path the file list lacks."""
    record = plain_record(2)
    record[name] = {key: 0}
    data = sealed(record, with_facts(python_files(2), BlobFacts("python", 1)))
    assert refusal(data) == (f"bundle's {said} map names a path its file list lacks, or names paths out of the "
                             f"files' order or twice")


@settings(max_examples=examples(100), deadline=None)
@given(st.binary(max_size=40), st.sampled_from([b'{"format":"', b'{"format":2,"oid":"', b'{"', b'{"format":']))
def test_any_header_bytes_are_a_header_or_bad_bundle(junk, start):
    """Bytes that are not UTF-8 where the format is read, or anywhere after, are `bad_bundle`
    like any other header that does not decode."""
    data = bundle.MAGIC + start + junk.replace(b"\n", b"") + b'"}\n'
    try:
        bundle.parse_header(data)
    except bundle.BadBundle:
        pass


def test_a_format_that_is_not_utf8_is_bad_bundle():
    with pytest.raises(bundle.BadBundle, match="bundle header is not a JSON object"):
        bundle.parse_header(bundle.MAGIC + b'{"format":"\xff"}\n')
