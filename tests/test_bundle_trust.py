"""Bundles whose provenance is proved before the store believes them: by a signature with a
key the importer holds, or by the repository, from which the snapshot is made again. A
bundle proved neither way is refused, or with --trust-unsigned kept in a store of its own
that no indexing run of the shared store reuses. Reading is bounded: a zlib bomb and a deep
header are `bad_bundle`. Through the real CLI, as a separate process."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import msgspec
import pygit2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpora.gitbuild import RepoBuilder
from indexer.contract.errors import RennetError
from indexer.fleet import bundle, signing
from indexer.git.tree_names import TREE_RULES
from indexer.store.database import Store
from indexer.store.records import decode_record, load_stored_record
from tests.cli_runs import cli_env, run_cli
from tests.examples import examples
from tests.processes import PEAK_AT_EXIT, peak_said
from tests.test_bundle import _counts, _parts, _seal, forge

ROOT = Path(__file__).resolve().parent.parent
KEY = "k3y-for-the-bundles-of-this-test-0123456789"


def rennet(home: Path, *args: str, key: str | None = KEY) -> subprocess.CompletedProcess:
    return run_cli(*args, "--store", str(home), "--json", env=cli_env(**({} if key is None else {"BUNDLE_KEY": key})),
                   text=False)


def reply(done: subprocess.CompletedProcess, code: int = 0) -> dict:
    assert done.returncode == code, done.stderr.decode()
    assert b"Traceback" not in done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A repository indexed into a store, exported unsigned and signed; the fingerprint a clean
    store gives it."""
    tmp = tmp_path_factory.mktemp("trust")
    builder = RepoBuilder(tmp / "repo")
    builder.commit({
        "ledgerly/__init__.py": "from ledgerly.books import Ledger\n",
        "ledgerly/books.py": "class Ledger:\n    def post(self, entry):\n        return balance(entry)\n\n\n"
                             "def balance(entry):\n    return sum(entry)\n",
        "ledgerly/cli.py": "from ledgerly.books import Ledger, balance\n\n\ndef main():\n    Ledger().post([1])\n",
    })
    home = tmp / "origin"
    indexed = reply(rennet(home, "index", str(builder.path)))["data"]
    plain, signed = tmp / "plain.rnb", tmp / "signed.rnb"
    reply(rennet(home, "export", "--repo", str(builder.path), "--out", str(plain)))
    made = reply(rennet(home, "export", "--repo", str(builder.path), "--out", str(signed),
                        "--sign-key-env", "BUNDLE_KEY"))["data"]
    assert made["signed"] is True and made["bytes"] == signed.stat().st_size
    return {"tmp": tmp, "repo": builder.path, "fingerprint": indexed["fingerprint"], "plain": plain,
            "signed": signed}


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def assert_empty(home: Path) -> None:
    counts = _counts(home)
    assert counts["facts"] == counts["snapshots"] == counts["defs"] == 0, counts


def test_signing_round_trip_and_refusals():
    data = b"anything a batch worker writes"
    signed = signing.sign(data, b"k" * 32)
    assert signing.verify(signed, b"k" * 32) == data and signing.split(signed) == (data, signed[-65:-1])
    for bad, key in ((signed, b"x" * 32), (signed[:-2] + b"0\n", b"k" * 32), (data, b"k" * 32),
                     (b"X" + signed[1:], b"k" * 32)):
        with pytest.raises(signing.BadSignature):
            signing.verify(bad, key)


@settings(max_examples=examples(200), deadline=None)
@given(data=st.binary(max_size=200), key=st.binary(min_size=signing.MIN_KEY_BYTES, max_size=64),
       at=st.integers(min_value=0, max_value=1 << 16), flip=st.integers(min_value=1, max_value=255))
def test_a_trailer_proves_every_byte_before_it_under_its_key_alone(data, key, at, flip):
    """The trailer is the HMAC-SHA256 of every byte before it (none too), under the key whole:
    a key that differs in any byte (past its 16th too), or any byte of the signed bytes
    changed (the trailer's own, its line ending included), is `BadSignature`. Bytes ending in
    anything but a trailer are unsigned, read whole, a line ending last or not."""
    signed = signing.sign(data, key)
    assert signing.verify(signed, key) == data and signing.split(signed) == (data, signed[-65:-1])
    other, changed = bytearray(key), bytearray(signed)
    other[at % len(key)] ^= flip
    changed[at % len(signed)] ^= flip
    ending = signed[:-1] + bytes([signed[-1] ^ flip])
    for bad, with_key in ((signed, bytes(other)), (bytes(changed), key), (ending, key)):
        with pytest.raises(signing.BadSignature):
            signing.verify(bad, with_key)
    for unsigned in (data, bytes(signing.TRAILER_BYTES) + data + b"\n"):
        assert signing.split(unsigned) == (unsigned, None)


def test_a_change_to_any_one_byte_signed_is_refused():
    """Every byte before the trailer is signed, the first and the last too: each changed in
    turn is `BadSignature`."""
    key = b"k" * 32
    signed = signing.sign(b"0123456789", key)
    for at in range(len(signed)):
        changed = bytearray(signed)
        changed[at] ^= 0x01
        with pytest.raises(signing.BadSignature):
            signing.verify(bytes(changed), key)


def test_a_key_that_cannot_be_had_is_one_line_bad_input(tmp_path):
    """A key variable that is not set, and a key file that cannot be read, are `bad_input`
    naming them: never an internal error."""
    with pytest.raises(RennetError) as exc:
        signing.load_key("RENNET_TEST_NO_SUCH_KEY", environ={})
    assert exc.value.code == "bad_input" and "RENNET_TEST_NO_SUCH_KEY" in exc.value.message
    with pytest.raises(RennetError) as exc:
        signing.load_key(key_file=str(tmp_path / "absent"))
    assert exc.value.code == "bad_input" and "cannot read signing key file" in exc.value.message


def test_a_key_is_named_once_and_read_whole_or_refused(tmp_path):
    """A key named by a variable and a file at once is `bad_input`, as is a key file over
    MAX_KEY_BYTES: a key file is its bytes (one line ending dropped), never a part of them."""
    path = write(tmp_path, "key", b"k" * 20)
    with pytest.raises(RennetError) as exc:
        signing.load_key("K", str(path), environ={"K": "k" * 20})
    assert exc.value.code == "bad_input" and "not both" in exc.value.message
    most = b"k" * (signing.MAX_KEY_BYTES - 1) + b"!"
    assert signing.load_key(key_file=str(write(tmp_path, "most", most))) == most
    with pytest.raises(RennetError) as exc:
        signing.load_key(key_file=str(write(tmp_path, "over", most + b"k")))
    assert exc.value.code == "bad_input" and f"over {signing.MAX_KEY_BYTES} bytes" in exc.value.message


def test_a_signed_bundle_imports_with_the_key_and_not_without(world, tmp_path):
    home = tmp_path / "store"
    (tmp_path / "key").write_text(KEY + "\n")
    done = reply(rennet(home, "import", str(world["signed"]), "--sign-key-file", str(tmp_path / "key")))["data"]
    assert done["provenance"] == "signed" and done["fingerprint"] == world["fingerprint"] and "store" not in done  # kept apart only when untrusted
    assert _counts(home)["snapshots"] == 1
    # the same bundle, no key and no repository: refused, nothing written
    other = tmp_path / "other"
    error = reply(rennet(other, "import", str(world["signed"])), 1)["error"]
    assert error["code"] == "untrusted_bundle" and "no key was given" in error["message"]
    assert_empty(other)


def test_an_unsigned_bundle_without_its_repository_is_untrusted_and_says_it_is_not_signed(world, tmp_path):
    home = tmp_path / "store"
    error = reply(rennet(home, "import", str(world["plain"])), 1)["error"]
    assert error["code"] == "untrusted_bundle" and "bundle is not signed" in error["message"]
    assert_empty(home)


def test_bytes_ending_in_no_line_ending_carry_no_trailer_whatever_they_hold():
    """A trailer is the prefix, the MAC and a line ending last: a line ending elsewhere in the
    last bytes makes none, so such bytes are unsigned, read whole."""
    for last in (b"x", b"0", b"\r"):
        unsigned = b"data" + signing.PREFIX + b"0" * 32 + b"\n" + b"0" * 31 + last
        assert len(unsigned) >= signing.TRAILER_BYTES
        assert signing.split(unsigned) == (unsigned, None)


def test_a_tampered_signed_bundle_is_refused(world, tmp_path):
    """The forger re-seals the digest and keeps the trailer: only the key tells."""
    unsigned, mac = signing.split(world["signed"].read_bytes())
    forged = forge(unsigned) + signing.PREFIX + mac + b"\n"
    home = tmp_path / "store"
    error = reply(rennet(home, "import", str(write(tmp_path, "t.rnb", forged)), "--sign-key-env", "BUNDLE_KEY"),
                  1)["error"]
    assert error["code"] == "bad_bundle" and "signature does not match" in error["message"]
    resigned = signing.sign(forge(unsigned), b"not-the-importers-key-0123456789")
    error = reply(rennet(home, "import", str(write(tmp_path, "r.rnb", resigned)), "--sign-key-env", "BUNDLE_KEY"),
                  1)["error"]
    assert error["code"] == "bad_bundle"
    error = reply(rennet(home, "import", str(world["plain"]), "--sign-key-env", "BUNDLE_KEY"), 1)["error"]
    assert error["code"] == "bad_bundle" and "not signed" in error["message"]
    assert_empty(home)


def test_a_self_consistent_forgery_is_refused_and_an_honest_index_stays_clean(world, tmp_path):
    path = write(tmp_path, "forged.rnb", forge(world["plain"].read_bytes()))
    home = tmp_path / "store"
    error = reply(rennet(home, "import", str(path)), 1)["error"]
    assert error["code"] == "untrusted_bundle"
    clone = tmp_path / "clone"
    shutil.copytree(world["repo"], clone)
    error = reply(rennet(home, "import", str(path), "--repo", str(clone)), 1)["error"]
    assert error["code"] == "bad_bundle" and "differ from the ones its blob gives" in error["message"]
    assert_empty(home)
    indexed = reply(rennet(home, "index", str(clone)))["data"]
    assert indexed["fingerprint"] == world["fingerprint"] and indexed["parsed_blobs"] == 3


def test_an_honest_unsigned_bundle_is_made_again_from_its_repository(world, tmp_path):
    clone = tmp_path / "clone"
    shutil.copytree(world["repo"], clone)
    done = reply(rennet(tmp_path / "store", "import", str(world["plain"]), "--repo", str(clone)))["data"]
    assert done["provenance"] == "rederived" and done["fingerprint"] == world["fingerprint"]
    assert done["pinned_repo"] == str(clone.resolve())


def test_a_rederived_bundle_cannot_name_another_tree(tmp_path):
    """The record's fields outside the fingerprint are held against the repository too: a
    bundle naming the tree of the next commit would have that commit's index diff from the
    wrong tree and keep the file it changed as it was."""
    builder = RepoBuilder(tmp_path / "repo")
    first = builder.commit({"a.py": "def old():\n    return 1\n"})
    second = builder.commit({"a.py": "def new():\n    return 2\n"})
    from indexer.api import index
    from indexer.store.snapshot import load

    plain = tmp_path / "plain.rnb"  # the honest bundle and the clean index made in this process: the import is tested
    with Store.open(tmp_path / "origin") as origin:
        index(str(builder.path), first, origin)
        bundle.export(load(origin, str(builder.path), first), plain)
    with Store.open(tmp_path / "clean") as store:
        clean = index(str(builder.path), second, store).fingerprint
    header, body = _parts(plain.read_bytes())
    record = decode_record(body.record)
    record.tree = str(builder.repo[second].peel(pygit2.Tree).id)
    forged = write(tmp_path, "tree.rnb", _seal(header, bundle.Body(msgspec.msgpack.encode(record), body.facts)))
    home = tmp_path / "store"
    error = reply(rennet(home, "import", str(forged), "--repo", str(builder.path)), 1)["error"]
    assert error["code"] == "bad_bundle"
    assert_empty(home)
    assert reply(rennet(home, "index", str(builder.path), "--rev", second))["data"]["fingerprint"] == clean


def _refused_where_made_again(world, tmp_path: Path, header, body, record) -> None:
    """`world`'s plain bundle with `record` for its snapshot record, sealed again, is refused
    where it is made again from a clone of its repository, and nothing is written."""
    forged = _seal(header, bundle.Body(msgspec.msgpack.encode(record), body.facts))
    clone = tmp_path / "clone"
    shutil.copytree(world["repo"], clone)
    with Store.open(tmp_path / "store") as store:
        with pytest.raises(bundle.BadBundle, match="snapshot record differs from the one its commit gives"):
            bundle.import_data(store, forged, repo_path=str(clone))
    assert_empty(tmp_path / "store")


def test_a_rederived_bundle_cannot_state_another_symbol_count(world, tmp_path):
    """docs/security.md: the symbol count, which the fingerprint leaves out, is stored and read
    too: a bundle stating another one is refused where it is made again, nothing written."""
    header, body = _parts(world["plain"].read_bytes())
    record = decode_record(body.record)
    record.symbols += 1
    _refused_where_made_again(world, tmp_path, header, body, record)


@pytest.mark.parametrize("change", ["rank below the fingerprint's rounding", "a fan-in of 0 left out"])
def test_a_rederived_bundle_cannot_carry_maps_the_fingerprint_cannot_tell(world, tmp_path, change):
    """docs/security.md: the record is held against the repository in every field but the
    time of indexing and the count of blob facts. The fingerprint prints a rank to 9 decimals
    and a file's fan-in as 0 when the map leaves it out: a bundle differing from its commit
    only there is refused where it is made again, nothing written."""
    header, body = _parts(world["plain"].read_bytes())
    record = decode_record(body.record)
    if change.startswith("rank"):
        path = next(iter(record.rank))
        record.rank = {p: r + 1e-12 if p == path else r for p, r in record.rank.items()}
    else:
        path = next(p for p, n in record.fan_in.items() if n == 0)
        record.fan_in = {p: n for p, n in record.fan_in.items() if p != path}
    _refused_where_made_again(world, tmp_path, header, body, record)


def test_a_rederived_bundle_cannot_reorder_what_the_fingerprint_sorts(tmp_path):
    """The fingerprint sorts a record's packages, dependencies and entry points; the record
    keeps them as the commit gives them, and a bundle listing them in another order is refused
    where it is made again, nothing written."""
    builder = RepoBuilder(tmp_path / "repo")
    rev = builder.commit({
        "pyproject.toml": '[project]\nname = "w"\nversion = "1"\ndependencies = ["attrs", "click"]\n'
                          '[project.scripts]\nw = "w.cli:main"\nwx = "w.cli:extra"\n',
        "w/__init__.py": "", "w/cli.py": "def main():\n    pass\n\n\ndef extra():\n    pass\n"})
    from indexer.api import index
    from indexer.store.snapshot import load

    plain = tmp_path / "plain.rnb"
    with Store.open(tmp_path / "origin") as origin:
        index(str(builder.path), rev, origin)
        bundle.export(load(origin, str(builder.path), rev), plain)
    header, body = _parts(plain.read_bytes())
    for name in ("dependencies", "entry_points"):
        record = decode_record(body.record)
        items = list(getattr(record, name))
        assert len(items) == 2, items
        setattr(record, name, items[::-1])
        forged = _seal(header, bundle.Body(msgspec.msgpack.encode(record), body.facts))
        with Store.open(tmp_path / "store") as store:
            with pytest.raises(bundle.BadBundle, match="snapshot record differs from the one its commit gives"):
                bundle.import_data(store, forged, repo_path=str(builder.path))
        assert_empty(tmp_path / "store")


@pytest.mark.parametrize("change", ["header names another commit", "header states another fingerprint",
                                    "facts no file uses", "a facts entry twice", "a file twice",
                                    "a body longer than its header says", "facts that do not decode"])
def test_a_bundle_disagreeing_with_itself_writes_nothing_even_trusted_unsigned(tmp_path, change):
    """docs/security.md: a self-inconsistent bundle is `bad_bundle` whatever proves it,
    `--trust-unsigned` included, and nothing is written, in the shared store or one apart: a
    header naming another commit or fingerprint than its record, or facts of a blob no file of
    the snapshot holds (sealed with a valid digest, the counts made to agree; two files of one
    blob share their facts, so the count of facts stays within the files)."""
    from indexer.api import index
    from indexer.store.snapshot import load

    builder = RepoBuilder(tmp_path / "repo")
    rev = builder.commit({"a.py": "def twin():\n    return 1\n", "b.py": "def twin():\n    return 1\n"})
    plain = tmp_path / "plain.rnb"
    with Store.open(tmp_path / "origin") as origin:
        index(str(builder.path), rev, origin)
        bundle.export(load(origin, str(builder.path), rev), plain)
    header, body = _parts(plain.read_bytes())
    facts = list(body.facts)
    assert (header["files"], len(facts)) == (2, 1)
    if change == "header names another commit":
        header["oid"] = "f" * 40
    elif change == "header states another fingerprint":
        header["fingerprint"] = "sha256:" + "0" * 64
    elif change == "facts no file uses":
        facts.append(bundle.FactsEntry(b"f" * 40 + bytes(facts[0].key)[40:], facts[0].facts))
        header["facts"] = len(facts)
    elif change == "facts that do not decode":
        facts[0] = bundle.FactsEntry(facts[0].key, b"\xc1")  # a byte msgpack never uses
    elif change == "a facts entry twice":
        facts.append(facts[0])
        header["facts"] = len(facts)
    record_bytes = body.record
    if change == "a file twice":  # the fingerprint made again over both, so only the order check can tell
        from indexer.store.canonical import fingerprint
        from indexer.store.records import decode_facts

        record = decode_record(body.record)
        record.files = [record.files[0], *record.files]
        record.fingerprint = header["fingerprint"] = fingerprint(
            record, {f.path: decode_facts(facts[0].facts) for f in record.files})
        record_bytes = msgspec.msgpack.encode(record)
        header["files"] = len(record.files)
    forged = _seal(header, bundle.Body(record_bytes, facts))
    if change == "a body longer than its header says":  # its digest made over the longer body
        header, _ = _parts(forged)
        start = forged.index(b"\n", len(bundle.MAGIC)) + 1
        longer = forged[start:] + b"\0"
        header["digest"] = bundle._digest(header, longer)
        forged = bundle.MAGIC + bundle._header_line(header) + b"\n" + longer
    home = tmp_path / "store"
    with Store.open(home) as store:
        with pytest.raises(bundle.BadBundle):
            bundle.import_data(store, forged, trust_unsigned=True)
    assert_empty(home)
    assert not (home / "untrusted").exists()


def test_trust_unsigned_keeps_the_facts_apart_from_the_shared_store(world, tmp_path):
    path = write(tmp_path, "forged.rnb", forge(world["plain"].read_bytes()))
    home = tmp_path / "store"
    done = reply(rennet(home, "import", str(path), "--trust-unsigned"))["data"]
    assert done["provenance"] == "untrusted" and Path(done["store"]).parent == home / "untrusted"
    assert _counts(Path(done["store"]))["snapshots"] == 1
    assert_empty(home)  # not a fact of it in the shared store
    clone = tmp_path / "clone"
    shutil.copytree(world["repo"], clone)
    indexed = reply(rennet(home, "index", str(clone)))["data"]
    assert indexed["fingerprint"] == world["fingerprint"] and indexed["reused_blobs"] == 0
    # the tools read the shared store's honest snapshot; the forged name is only in the kept-apart one
    assert reply(rennet(home, "context", "symbol", "steal", "--repo", str(clone)), 1)["error"]["code"] == "not_found"
    apart = reply(rennet(Path(done["store"]), "context", "symbol", "steal", "--repo", str(clone)))
    assert apart["freshness"]["fingerprint"] == done["fingerprint"] != world["fingerprint"]


def test_facts_of_a_key_already_stored_are_never_overwritten(world, tmp_path):
    """A signed forgery (the key leaked, say) whose facts disagree with the store's own under the
    same key: refused, and the store's facts stay."""
    home = tmp_path / "store"
    clone = tmp_path / "clone"
    shutil.copytree(world["repo"], clone)
    reply(rennet(home, "index", str(clone)))
    before = _counts(home)
    forged = signing.sign(forge(world["plain"].read_bytes()), KEY.encode())
    path = write(tmp_path, "f.rnb", forged)
    error = reply(rennet(home, "import", str(path), "--sign-key-env", "BUNDLE_KEY"), 1)["error"]
    assert error["code"] in ("bad_bundle", "fingerprint_conflict")
    assert _counts(home) == before
    # a snapshot not yet in the store, whose facts collide with stored ones: facts refused
    header, body = _parts(forged)
    header.update(oid="f" * 40)
    record = decode_record(body.record)
    record.oid = "f" * 40
    moved = signing.sign(_seal(header, bundle.Body(msgspec.msgpack.encode(record), body.facts)), KEY.encode())
    error = reply(rennet(home, "import", str(write(tmp_path, "m.rnb", moved)), "--sign-key-env", "BUNDLE_KEY"),
                  1)["error"]
    assert error["code"] == "bad_bundle" and "differ from the ones this store holds" in error["message"]
    assert _counts(home) == before


def bomb(compressed_bytes: int) -> tuple[bytes, int]:
    """A valid zlib stream of zeros about `compressed_bytes` long, and how many bytes it inflates to:
    deflate's steady state for zeros repeats, so the stream is built by repetition, not by compressing."""
    chunk = bytes(1 << 20)
    deflater = zlib.compressobj(9)
    first = deflater.compress(chunk) + deflater.flush(zlib.Z_SYNC_FLUSH)
    steady = deflater.compress(chunk) + deflater.flush(zlib.Z_SYNC_FLUSH)
    assert deflater.compress(chunk) + deflater.flush(zlib.Z_SYNC_FLUSH) == steady
    repeats = compressed_bytes // len(steady)
    # Adler-32 of zeros: its first sum stays 1 and its second grows by one a byte, so the
    # checksum of the whole is had without running it over every chunk
    inflated = (repeats + 1) << 20
    adler = (inflated % 65521) << 16 | 1
    end = deflater.flush()[:-4] + struct.pack(">I", adler)
    return first + steady * repeats + end, inflated


@pytest.fixture(scope="module")
def bomb_2mb():
    return bomb(2_000_000)


@pytest.mark.parametrize("declared", ["small", "allowed", "huge"])
def test_a_2mb_bomb_is_bad_bundle_within_bounded_memory(world, tmp_path, bomb_2mb, declared):
    body, inflated = bomb_2mb
    assert len(body) < 2_100_000 and inflated > 1 << 30
    header, _ = _parts(world["plain"].read_bytes())
    raw = {"small": 5000, "allowed": len(body) * bundle.MAX_RATIO, "huge": inflated}[declared]
    header.update(body_bytes=len(body), raw_bytes=raw)
    header["digest"] = bundle._digest(header, body)
    path = write(tmp_path, "bomb.rnb", bundle.MAGIC + bundle._header_line(header) + b"\n" + body)
    home = tmp_path / "store"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cli = PEAK_AT_EXIT + "import runpy\nrunpy.run_module('context_tools.faces.cli', run_name='__main__', alter_sys=True)\n"
    child = subprocess.Popen([sys.executable, "-c", cli, "import", str(path), "--trust-unsigned",
                              "--store", str(home), "--json"], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env)
    out, err = child.communicate(timeout=300)
    assert child.returncode == 1 and b"Traceback" not in err
    assert json.loads(out)["error"]["code"] == "bad_bundle"
    assert not (home / "untrusted").exists() or not any((home / "untrusted").iterdir())
    assert peak_said(err) < 600 << 10  # the command's own peak (KiB)


def test_the_bomb_costs_bounded_memory_measured_in_a_child(world, tmp_path, bomb_2mb):
    """The inflater alone, in a child whose peak memory is read back: well under 1 GB for a
    bomb of over a GB, with the largest size a 2 MB body may declare."""
    body, _ = bomb_2mb
    path = write(tmp_path, "body.z", body)
    code = PEAK_AT_EXIT + ("import sys; from indexer.fleet import bundle\n"
                           "body = open(sys.argv[1], 'rb').read()\n"
                           "try:\n    bundle.inflate(body, len(body) * bundle.MAX_RATIO)\n"
                           "except bundle.BadBundle as exc:\n    print(exc.code)\n")
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT)
    assert done.stdout.split() == ["bad_bundle"] and peak_said(done.stderr) < 512 << 10, done.stdout + done.stderr


@pytest.mark.parametrize("header", [
    b'{"format":' + b"[" * 5000 + b"]" * 5000 + b"}",
    b'{"x":' + b"{" * 3000 + b"}" * 3000 + b',"format":2}',
    b'{"format":2,' + b'"a":1,' * 3000 + b"}",
    b"[" * 20000,
])
def test_a_deep_or_huge_header_is_bad_bundle(tmp_path, header):
    path = write(tmp_path, "deep.rnb", bundle.MAGIC + header + b"\n" + b"x" * 100)
    error = reply(rennet(tmp_path / "store", "import", str(path), "--trust-unsigned"), 1)["error"]
    assert error["code"] == "bad_bundle"


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.binary(max_size=400),
                 st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                              lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                            max_size=4),
                              max_leaves=30).map(lambda v: json.dumps(v).encode())))
def test_any_header_line_is_parsed_or_refused_as_bad_bundle(line):
    data = bundle.MAGIC + line.replace(b"\n", b" ") + b"\n" + b"body"
    try:
        header, start = bundle.parse_header(data)
    except RennetError as exc:
        assert exc.code == "bad_bundle"
    else:
        assert header.format == bundle.FORMAT and data[start:] == b"body"


@pytest.mark.parametrize("written, key", [
    (b"K" * 20 + b"\n", b"K" * 20),
    (b"K" * 20 + b"\r\n", b"K" * 20),
    (b"K" * 20, b"K" * 20),
    (b"K" * 20 + b"\n\n", b"K" * 20 + b"\n"),
    (b"K" * 20 + b"\r\n\r\n", b"K" * 20 + b"\r\n"),
    (b"K" * 20 + b"\r", b"K" * 20 + b"\r"),
    (b"K" * 20 + b"\n\r\n", b"K" * 20 + b"\n"),
    (b"K" * 20 + b"\r\nK", b"K" * 20 + b"\r\nK"),
])
def test_a_key_file_loses_exactly_one_line_ending(tmp_path, written, key):
    """One trailing "\\n" or "\\r\\n" is what an editor or `echo` adds; any more is the key's own,
    so keys that differ in their bytes stay different keys."""
    path = write(tmp_path, "key", written)
    assert signing.load_key(key_file=str(path)) == key


def test_a_key_file_of_line_endings_and_a_short_key_is_too_short(tmp_path):
    path = write(tmp_path, "key", b"K" * 15 + b"\n\n")
    assert signing.load_key(key_file=str(path)) == b"K" * 15 + b"\n"
    with pytest.raises(RennetError) as exc:
        signing.load_key(key_file=str(write(tmp_path, "short", b"K" * 14 + b"\r\n")))
    assert exc.value.code == "bad_input"


def test_a_key_is_at_least_16_bytes_from_a_file_or_the_environment(tmp_path):
    """`MIN_KEY_BYTES` is the least a key may be: 16 bytes are a key, 15 are `bad_input`,
    named by a variable or in a file whose line ending is no part of the key."""
    assert signing.load_key("K", environ={"K": "k" * 16}) == b"k" * 16
    assert signing.load_key(key_file=str(write(tmp_path, "key", b"k" * 16 + b"\n"))) == b"k" * 16
    for named in ({"env_name": "K", "environ": {"K": "k" * 15}}, {"key_file": str(write(tmp_path, "short", b"k" * 15 + b"\n"))}):
        with pytest.raises(RennetError) as exc:
            signing.load_key(**named)
        assert exc.value.code == "bad_input" and "use at least 16" in exc.value.message


def test_a_key_in_the_environment_is_its_bytes_utf8_or_not(world, tmp_path):
    """An environment variable is bytes; one that is not UTF-8 is the key its bytes are, the same
    as a key file of them (was: `internal_error`, a UnicodeEncodeError of the decoded text)."""
    raw = b"K" * 20 + b"\xff\xfe"
    assert signing.load_key(env_name="K", environ={"K": os.fsdecode(raw)}) == raw
    key_file = write(tmp_path, "key", raw)
    out = tmp_path / "odd.rnb"
    made = reply(rennet(world["tmp"] / "origin", "export", "--repo", str(world["repo"]), "--out", str(out),
                        "--sign-key-env", "BUNDLE_KEY", key=os.fsdecode(raw)))["data"]
    assert made["signed"] is True
    home = tmp_path / "store"
    imported = reply(rennet(home, "import", str(out), "--sign-key-file", str(key_file)))["data"]
    assert imported["fingerprint"] == world["fingerprint"]


@pytest.mark.parametrize("claim", ["", TREE_RULES])
def test_an_import_records_the_tree_rules_it_can_vouch_for(world, tmp_path, claim):
    """A bundle says which tree rules its store checked the commit's trees under: made again
    from its repository, the import records this code's (it walked them); signed, the
    signer's word; loaded with --trust-unsigned, none: a re-index from it checks them all."""
    header, body = _parts(world["plain"].read_bytes())
    record = decode_record(body.record)
    record.tree_rules = claim
    plain = _seal(header, bundle.Body(msgspec.msgpack.encode(record), body.facts))
    clone = tmp_path / "clone"
    shutil.copytree(world["repo"], clone)
    signed = signing.sign(plain, KEY.encode())
    for how, data, kwargs, kept in (
            ("rederived", plain, {"repo_path": str(clone)}, TREE_RULES),
            ("signed", signed, {"key": KEY.encode()}, claim),
            ("signed", signed, {"key": KEY.encode(), "repo_path": str(clone)}, claim),  # the key proves it
            ("untrusted", plain, {"trust_unsigned": True}, "")):
        with Store.open(tmp_path / how) as store:
            done = bundle.import_data(store, data, **kwargs)
            assert done.provenance == how
        if how == "untrusted":  # a store of its own, named by the bundle's digest
            digest = bundle.parse_header(plain)[0].digest
            assert Path(done.store) == tmp_path / how / "untrusted" / digest[len("sha256:"):][:16]
        with Store.open(done.store or tmp_path / how) as store:
            stored = load_stored_record(store, record.oid)
            assert stored is not None and stored.prior().tree_rules == kept
