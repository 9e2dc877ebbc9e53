"""Snapshot bundles: export, import into another store, and refusal of damaged or forged bundles."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import msgspec
import pytest

from corpora.gitbuild import Link, RepoBuilder, Submodule
from indexer.contract.errors import RennetError
from indexer.fleet import bundle
from indexer.store.database import Store, WriteLock
from tests.cli_runs import run_cli

ROOT = Path(__file__).resolve().parent.parent


def rennet(home: Path, *args: str) -> subprocess.CompletedProcess:
    return run_cli(*args, "--store", str(home), text=False)


def _ok(done: subprocess.CompletedProcess) -> dict:
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


def _counts(home: Path) -> dict[str, int]:
    with Store.open(home) as store:
        with store.env.begin() as txn:
            return {name: txn.stat(getattr(store, name))["entries"]
                    for name in ("facts", "occurrences", "defs", "occ", "snapshots", "repos")}


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """A repository indexed into store A and exported; shared by the tests (they copy what they change)."""
    tmp = tmp_path_factory.mktemp("bundle")
    builder = RepoBuilder(tmp / "repo")
    builder.commit({
        "pyproject.toml": '[project]\nname = "ledgerly"\nversion = "0.3.0"\ndependencies = ["attrs"]\n',
        "ledgerly/__init__.py": "from ledgerly.books import Ledger\n",
        "ledgerly/books.py": "class Ledger:\n    def post(self, entry):\n        return balance(entry)\n\n\n"
                             "def balance(entry):\n    return sum(entry)\n",
        "ledgerly/cli.py": "from ledgerly.books import Ledger, balance\n\n\ndef main():\n    Ledger().post([1])\n",
        "web/app.js": "import {render} from './view.js';\nrender();\n",
        "web/view.js": "export function render() { return 1; }\n",
        "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00binary",
        "run": Link("ledgerly/cli.py"),
        "vendor/kit": Submodule("1" * 40),
    })
    home_a = tmp / "store-a"
    indexed = _ok(rennet(home_a, "index", str(builder.path), "--rev", "main", "--json"))
    out = tmp / "ledgerly.rnb"
    result = _ok(rennet(home_a, "export", "--repo", str(builder.path), "--rev", "main", "--out", str(out), "--json"))
    dump_a = rennet(home_a, "snapshot", "dump", str(builder.path), "--rev", "main")
    assert dump_a.returncode == 0
    return {"tmp": tmp, "builder": builder, "home_a": home_a, "bundle": out, "indexed": indexed["data"],
            "export": result["data"], "dump": dump_a.stdout}


def test_export_writes_a_versioned_header(exported):
    data = exported["bundle"].read_bytes()
    assert data.startswith(bundle.MAGIC)
    header = json.loads(data[len(bundle.MAGIC):data.index(b"\n", len(bundle.MAGIC))])
    assert header["format"] == bundle.FORMAT
    assert header["oid"] == exported["indexed"]["oid"]
    assert header["fingerprint"] == exported["indexed"]["fingerprint"] == exported["export"]["fingerprint"]
    assert header["digest"].startswith("sha256:") and header["digest"] == exported["export"]["digest"]
    assert header["extractor_version"] and header["rev"] == "main" and header["repo_name"] == "repo"
    assert exported["export"]["files"] == 9 and exported["export"]["bytes"] == len(data)
    # facts for every parsed file; the binary file, the symlink and the submodule carry none to bundle
    assert header["facts"] == 6


def test_round_trip_into_a_fresh_store(exported, tmp_path):
    clone = tmp_path / "clone"
    shutil.copytree(exported["builder"].path, clone)
    home_b = tmp_path / "store-b"
    imported = _ok(rennet(home_b, "import", str(exported["bundle"]), "--repo", str(clone), "--json"))
    d = imported["data"]
    assert d["fingerprint"] == exported["indexed"]["fingerprint"] and d["oid"] == exported["indexed"]["oid"]
    assert d["snapshot_new"] is True and d["facts_new"] == d["facts_total"] == 6
    assert d["pinned_rev"] == "main" and d["pinned_repo"] == str(clone.resolve())
    assert imported["freshness"]["status"] == "current"
    before = _counts(home_b)
    assert before["snapshots"] == 1 and before["facts"] == 6
    # The fresh store serves the tools without indexing: with the write lock held, indexing would fail.
    with WriteLock(home_b):
        dump_b = rennet(home_b, "snapshot", "dump", str(clone), "--rev", "main")
        symbol = rennet(home_b, "context", "symbol", "Ledger", "--repo", str(clone), "--json")
        refs_b = rennet(home_b, "context", "references", "balance", "--repo", str(clone), "--json")
    refs_a = rennet(exported["home_a"], "context", "references", "balance", "--repo",
                    str(exported["builder"].path), "--json")
    # Occurrences travel too: references answer the same from the imported store.
    assert _ok(refs_b)["data"] == _ok(refs_a)["data"] and _ok(refs_b)["page"]["total"] >= 2
    assert dump_b.returncode == 0, dump_b.stderr.decode()
    assert dump_b.stdout == exported["dump"]  # byte-identical canonical serialization
    answer = _ok(symbol)
    assert "ledgerly/books.py" in json.dumps(answer["data"])
    assert answer["freshness"]["pinned_oid"] == exported["indexed"]["oid"]
    assert answer["freshness"]["fingerprint"] == exported["indexed"]["fingerprint"]
    assert _counts(home_b) == before
    # importing again changes nothing
    again = _ok(rennet(home_b, "import", str(exported["bundle"]), "--repo", str(clone), "--json"))
    assert again["data"]["snapshot_new"] is False and again["data"]["facts_new"] == 0
    assert _counts(home_b) == before


def _refused(bundle_path: Path, tmp_path: Path, name: str) -> dict:
    home = tmp_path / f"store-{name}"
    done = rennet(home, "import", str(bundle_path), "--json")
    assert done.returncode == 1, name
    reply = json.loads(done.stdout)
    assert reply["ok"] is False
    counts = _counts(home)
    assert counts["facts"] == counts["snapshots"] == counts["defs"] == counts["occ"] == counts["repos"] == 0, name
    return reply["error"]


def _refused_here(bundle_path: Path, tmp_path: Path, name: str) -> str:
    """`_refused` through the import the CLI's `import` calls, in this process: the code it is
    refused with, nothing written. The CLI's own face of a refusal is `_refused`'s."""
    home = tmp_path / f"store-{name}"
    with Store.open(home) as store, pytest.raises(RennetError) as refused:
        bundle.import_bundle(store, bundle_path)
    counts = _counts(home)
    assert counts["facts"] == counts["snapshots"] == counts["defs"] == counts["occ"] == counts["repos"] == 0, name
    return refused.value.code


def test_flipped_bytes_are_refused(exported, tmp_path):
    data = exported["bundle"].read_bytes()
    header_end = data.index(b"\n", len(bundle.MAGIC))
    positions = {"magic": 3, "header": len(bundle.MAGIC) + 20, "digest": header_end - 5,
                 "body": header_end + 1 + (len(data) - header_end) // 2, "last": len(data) - 1}
    for name, at in positions.items():
        damaged = bytearray(data)
        damaged[at] ^= 0x01
        path = tmp_path / f"{name}.rnb"
        path.write_bytes(bytes(damaged))
        assert _refused_here(path, tmp_path, name) == "bad_bundle", name


def test_truncated_bundles_are_refused(exported, tmp_path):
    data = exported["bundle"].read_bytes()
    header_end = data.index(b"\n", len(bundle.MAGIC))
    for name, size in {"empty": 0, "in-header": header_end - 10, "no-body": header_end + 1,
                       "half": len(data) // 2 + header_end // 2, "one-short": len(data) - 1}.items():
        path = tmp_path / f"{name}.rnb"
        path.write_bytes(data[:size])
        assert _refused_here(path, tmp_path, name) == "bad_bundle", name


def _parts(data: bytes) -> tuple[dict, bundle.Body]:
    header_end = data.index(b"\n", len(bundle.MAGIC))
    header = json.loads(data[len(bundle.MAGIC):header_end])
    body = data[header_end + 1:header_end + 1 + header["body_bytes"]]
    return header, msgspec.msgpack.decode(zlib.decompress(body), type=bundle.Body)


def _seal(header: dict, body: bundle.Body) -> bytes:
    """A bundle of `body` whose sizes and digest are what an honest exporter would write."""
    raw = msgspec.msgpack.encode(body)
    compressed = zlib.compress(raw)
    header = dict(header, body_bytes=len(compressed), raw_bytes=len(raw))
    header["digest"] = bundle._digest(header, compressed)
    return bundle.MAGIC + bundle._header_line(header) + b"\n" + compressed


def forge(data: bytes, refingerprint: bool = True) -> bytes:
    """Rename `balance` to `steal` in the facts, and (unless told not to) recompute the
    fingerprint from the forged facts: a self-consistent forgery, sealed with a valid digest."""
    from indexer.model import BlobFacts
    from indexer.store.canonical import fingerprint
    from indexer.store.records import decode_facts, decode_record, entry_facts_key

    header, body = _parts(data)
    forged = []
    for entry in body.facts:
        facts = msgspec.msgpack.decode(entry.facts, type=BlobFacts)
        if any(s.name == "balance" for s in facts.symbols):
            facts.symbols = [msgspec.structs.replace(s, name="steal") if s.name == "balance" else s
                             for s in facts.symbols]
            entry = bundle.FactsEntry(entry.key, msgspec.msgpack.encode(facts))
        forged.append(entry)
    record_bytes = body.record
    if refingerprint:
        record = decode_record(body.record)
        by_key = {bytes(e.key): decode_facts(e.facts) for e in forged}
        by_path = {f.path: by_key[entry_facts_key(f, record.extractor_version)] for f in record.files
                   if entry_facts_key(f, record.extractor_version) in by_key}
        record.fingerprint = fingerprint(record, by_path)
        record_bytes = msgspec.msgpack.encode(record)
        header["fingerprint"] = record.fingerprint
    return _seal(header, bundle.Body(record_bytes, forged))


def test_a_forged_bundle_with_a_valid_digest_fails_the_recomputed_fingerprint(exported, tmp_path):
    """Edit a symbol in the facts and re-seal the digest: only recomputing the fingerprint catches it."""
    path = tmp_path / "forged.rnb"
    path.write_bytes(forge(exported["bundle"].read_bytes(), refingerprint=False))
    error = _refused(path, tmp_path, "forged")
    assert error["code"] == "bad_bundle" and "fingerprint" in error["message"]


def test_a_bundle_of_another_extractor_version_is_refused_by_version_whatever_its_body(exported, tmp_path):
    """Another extractor's records and facts need not decode here (their structs change with
    it): the header's version is what refuses them, with the fix named."""
    data = exported["bundle"].read_bytes()
    header_end = data.index(b"\n", len(bundle.MAGIC))
    header = json.loads(data[len(bundle.MAGIC):header_end])
    body = b"older records: " + data[header_end + 1:][:64]  # no longer even zlib
    header.update(extractor_version="1", body_bytes=len(body))
    header["digest"] = bundle._digest(header, body)
    path = tmp_path / "older.rnb"
    path.write_bytes(bundle.MAGIC + bundle._header_line(header) + b"\n" + body)
    error = _refused(path, tmp_path, "older")
    assert error["code"] == "extractor_mismatch"
    assert "extractor 1" in error["message"] and "re-export it" in error["message"]


def test_import_for_a_repository_without_the_commit_is_refused(exported, tmp_path):
    other = RepoBuilder(tmp_path / "other")
    other.commit({"a.py": "x = 1\n"})
    home = tmp_path / "store-other"
    done = rennet(home, "import", str(exported["bundle"]), "--repo", str(other.path), "--json")
    assert done.returncode == 1
    assert json.loads(done.stdout)["error"]["code"] == "missing_objects"
    assert _counts(home)["facts"] == 0


def test_import_for_a_repository_whose_commit_is_damaged_is_refused_in_time(exported, tmp_path):
    """The bundle's commit is a loose object cut short in the repository named: `missing_objects`
    saying so, nothing imported (was: libgit2 read it and never returned)."""
    copy = tmp_path / "copy"
    shutil.copytree(exported["builder"].path, copy, symlinks=True)
    oid = exported["indexed"]["oid"]
    place = copy / ".git" / "objects" / oid[:2] / oid[2:]
    data = place.read_bytes()
    place.chmod(0o644)
    place.write_bytes(data[:len(data) * 4 // 5])
    home = tmp_path / "store-damaged"
    done = subprocess.run([sys.executable, "-m", "context_tools.faces.cli", "import", str(exported["bundle"]),
                           "--repo", str(copy), "--store", str(home), "--json"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, (done.stdout, done.stderr)
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "missing_objects" and "damaged" in error["message"] and oid[:12] in error["message"]
    assert _counts(home)["facts"] == 0


def test_export_of_an_unindexed_rev_and_bad_paths(exported, tmp_path):
    home = tmp_path / "store-empty"
    done = rennet(home, "export", "--repo", str(exported["builder"].path), "--rev", "main",
                  "--out", str(tmp_path / "x.rnb"), "--json")
    assert done.returncode == 1 and json.loads(done.stdout)["error"]["code"] == "not_indexed"
    assert not (tmp_path / "x.rnb").exists()
    missing = rennet(home, "import", str(tmp_path / "absent.rnb"), "--json")
    assert missing.returncode == 1 and json.loads(missing.stdout)["error"]["code"] == "bad_input"


def test_export_never_carries_the_remotes_credentials(tmp_path):
    """CI checkouts often hold a token in the remote URL (GitLab's `gitlab-ci-token:...@`): the
    bundle, an artifact others download, names where it came from without it."""
    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({"a.py": "x = 1\n"})
    secret = "glcbt-64_SECRETjobtoken0123"
    builder.repo.remotes.create("origin", f"https://gitlab-ci-token:{secret}@gitlab.example.invalid/g/p.git")
    home, out = tmp_path / "store", tmp_path / "p.rnb"
    _ok(rennet(home, "index", str(builder.path), "--json"))
    _ok(rennet(home, "export", "--repo", str(builder.path), "--out", str(out), "--json"))
    header, _ = _parts(out.read_bytes())
    assert header["remote_url"] == "https://gitlab.example.invalid/g/p.git"
    assert secret.encode() not in out.read_bytes()


@pytest.mark.parametrize("url, named", [
    ("https://ci@corp.example:TOKEN@host.invalid/g/p.git", "https://host.invalid/g/p.git"),  # a user name with '@'
    ("ssh://git:TOKEN@host.invalid:2222/g/p.git", "ssh://host.invalid:2222/g/p.git"),
    ("https://host.invalid/g/p@v2.git", "https://host.invalid/g/p@v2.git"),  # no user info: the path's '@' stays
])
def test_a_remotes_user_info_is_left_out_whole(tmp_path, url, named):
    """docs/security.md: a bundle's `remote_url` is the remote's URL without its user info, all
    of it up to the authority's last '@' (a user name may hold one: an e-mail address)."""
    import pygit2

    repo = pygit2.init_repository(str(tmp_path / "r"))
    repo.remotes.create("origin", url)
    assert bundle._remote_url(repo) == named and "TOKEN" not in named


def test_export_never_writes_through_a_planted_partial_file(exported, tmp_path):
    """In a folder others may write (a shared /tmp), `<out>.partial` is planted as a link to a
    file of the user's: the export writes its bundle at `--out`, never through the link."""
    victim = tmp_path / "victim"
    victim.write_text("keep me\n")
    shared = tmp_path / "shared"
    shared.mkdir()
    out = shared / "map.rnb"
    (shared / "map.rnb.partial").symlink_to(victim)
    _ok(rennet(exported["home_a"], "export", "--repo", str(exported["builder"].path), "--rev", "main",
               "--out", str(out), "--json"))
    assert victim.read_bytes() == b"keep me\n"
    assert not out.is_symlink() and not (shared / "map.rnb.partial").exists()
    bundle.check(out.read_bytes())


def test_export_and_import_summaries_keep_an_odd_path_on_its_line(tmp_path):
    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({"a.py": "def f():\n    return 1\n"})
    home_a, home_b = tmp_path / "a", tmp_path / "b"
    out = tmp_path / "bun\ndle\x07.rnb"
    _ok(rennet(home_a, "index", str(builder.path), "--json"))
    exported = rennet(home_a, "export", "--repo", str(builder.path), "--out", str(out))
    imported = rennet(home_b, "import", str(out), "--repo", str(builder.path), "--rev", "x\ty")
    assert exported.returncode == imported.returncode == 0, exported.stderr + imported.stderr
    export_lines, import_lines = exported.stdout.decode().splitlines(), imported.stdout.decode().splitlines()
    # the path holds escapes, so it shows quoted, as git quotes such a path
    assert len(export_lines) == 3 and 'bun\\ndle\\x07.rnb": snapshot ' in export_lines[0]
    assert len(import_lines) == 3 and import_lines[2].startswith('  pinned as "x\\ty" of ')
    assert b"\x07" not in exported.stdout + imported.stdout
