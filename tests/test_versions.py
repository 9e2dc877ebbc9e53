"""Versions that say what changed: a language's extractor version keys its blob facts alone, and
the snapshot version names every facts version a snapshot was assembled from."""

from __future__ import annotations

import pytest

from corpora.gitbuild import RepoBuilder
from indexer import api
from indexer.lang.registry import CONTENT, CONTENT_H, LANGUAGES, name_language
from indexer.store.canonical import lines
from indexer.store.database import Store
from indexer.store.records import facts_key, is_facts_key, load_facts, load_record
from indexer.store.versions import facts_version, facts_versions, snapshot_version

_FILES = {
    "app/main.py": "from app import util\n\n\ndef main():\n    return util.helper(1)\n",
    "app/util.py": "def helper(x):\n    return x + 1\n",
    "app/__init__.py": "",
    "src/lib.rs": "mod parse;\n\npub fn run() -> u32 {\n    parse::read()\n}\n",
    "src/parse.rs": "pub fn read() -> u32 {\n    7\n}\n",
    "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\n',
    "README.md": "# demo\n\nRuns `run`.\n",
}


def _keys(store: Store, oid: str) -> dict[str, bytes]:
    record = load_record(store, oid)
    assert record is not None
    return {f.path: facts_key(f.blob, name_language(f.path), record.extractor_version) for f in record.files}


def test_a_bumped_language_version_reparses_only_that_languages_blobs(tmp_path, monkeypatch):
    builder = RepoBuilder(tmp_path / "repo")
    oid = builder.commit(_FILES)
    with Store.open(tmp_path / "store") as store:
        first = api.index(str(builder.path), oid, store=store, workers=1)
        assert first.parsed_blobs == len(_FILES)
        before = _keys(store, oid)
        old_version = snapshot_version()

        bumped = str(int(LANGUAGES["rust"].version) + 1)
        monkeypatch.setitem(LANGUAGES, "rust", LANGUAGES["rust"]._replace(version=bumped))
        assert snapshot_version() != old_version

        again = api.index(str(builder.path), oid, store=store, workers=1)
        after = _keys(store, oid)
        rust = {path for path in _FILES if path.endswith(".rs")}
        # the Rust blobs are parsed again under their new key; every other blob's facts are reused
        assert again.parsed_blobs == len(rust)
        assert again.reused_blobs == len(_FILES) - len(rust)
        assert {path for path in _FILES if after[path] != before[path]} == rust
        # the same commit under the new version: a snapshot of its own, of the same content
        assert not again.snapshot_reused
        old_record, new_record = load_record(store, oid, old_version), load_record(store, oid)
        assert old_record is not None and new_record is not None
        assert new_record.extractor_version == snapshot_version() != old_record.extractor_version
        facts_old = load_facts(store, {p: before[p] for p in _FILES})
        facts_new = load_facts(store, {p: after[p] for p in _FILES})
        assert b"".join(lines(old_record, facts_old)) == b"".join(lines(new_record, facts_new))
        assert again.fingerprint != first.fingerprint  # its version line names the new version


def test_facts_keys_follow_from_the_snapshot_version():
    version = snapshot_version()
    blob = "a" * 40
    python, rust = LANGUAGES["python"].version, LANGUAGES["rust"].version
    assert facts_version(version, "python").endswith("." + python)
    assert facts_version(version, "rust").endswith("." + rust)
    # text, data and markup share the plain version; a header and an unnamed file depend on
    # every language their content may turn out to be
    assert facts_version(version, "markdown") == facts_version(version, "json")
    bumped = version.replace("cpp=", "cpp=9", 1)
    assert facts_version(bumped, CONTENT_H) != facts_version(version, CONTENT_H)
    assert facts_version(bumped, CONTENT) != facts_version(version, CONTENT)
    assert facts_version(bumped, "python") == facts_version(version, "python")
    assert facts_version(bumped, "cpp") != facts_version(version, "cpp")
    key = facts_key(blob, "python", version)
    assert is_facts_key(key, version) and not is_facts_key(key, bumped.replace("python=", "python=9", 1))
    assert not is_facts_key(b"short|python|" + key.rsplit(b"|", 1)[1], version)



def test_an_assembly_bump_keeps_every_facts_key():
    """A bump of how snapshots are assembled makes new snapshots of the same blob facts: no
    facts version, a header's and an unnamed file's included, names the assembly version."""
    version = snapshot_version()
    bumped = version.replace("assembly=", "assembly=9", 1)
    assert bumped != version
    for language in (*LANGUAGES, "markdown", CONTENT_H, CONTENT):
        assert facts_version(bumped, language) == facts_version(version, language), language
    assert facts_versions(bumped) == facts_versions(version)
    assert facts_versions(version) == {facts_version(version, language) for language in (*LANGUAGES, "json",
                                                                                         CONTENT_H, CONTENT)}
    assert facts_versions("55") == {"55"}


def test_the_snapshot_version_and_the_facts_keys_it_names_keep_their_stored_form():
    """What the store's keys carry: the languages in name order (not the registry's, so adding
    or moving a language's registration renames no snapshot), and the facts versions made of
    the facts version and the language's own; a header's of C's then C++'s, an unnamed file's
    of every language's in name order, then the plain one's. A change of form would re-parse
    every blob of a store written before it."""
    from indexer.store.versions import ASSEMBLY_VERSION, FACTS_VERSION, PLAIN_VERSION

    named = ";".join(f"{name}={LANGUAGES[name].version}" for name in sorted(LANGUAGES))
    assert snapshot_version() == f"assembly={ASSEMBLY_VERSION};facts={FACTS_VERSION};{named};plain={PLAIN_VERSION}"
    made = "assembly=1;facts=10;rust=4;c=3;cpp=7;plain=2"
    assert [facts_version(made, language) for language in ("c", "cpp", "rust", "json", CONTENT_H, CONTENT)] == [
        "10.3", "10.7", "10.4", "10.2", "10.3.7", "10.3.7.4.2"]

def test_the_single_version_of_old_keys_facts_as_it_did():
    # a store written by the one extractor version (55 and before) keyed facts `blob|language|55`
    assert facts_key("b" * 40, "python", "55") == b"b" * 40 + b"|python|55"
    assert facts_version("55", "rust") == "55"


def test_a_store_of_the_single_version_of_old_is_read_as_written(tmp_path, monkeypatch):
    from indexer import build
    from indexer.contract.errors import NotIndexed

    builder = RepoBuilder(tmp_path / "repo")
    oid = builder.commit(_FILES)
    with Store.open(tmp_path / "store") as store:
        # what the one extractor version wrote: facts at `blob|language|55`, the snapshot at `oid|55`
        with monkeypatch.context() as patched:
            patched.setattr(build, "snapshot_version", lambda: "55")
            old = api.index(str(builder.path), oid, store=store, workers=1)
        record = load_record(store, oid, "55")
        assert record is not None and record.extractor_version == "55"
        keys = {f.path: facts_key(f.blob, name_language(f.path), "55") for f in record.files}
        assert all(key.endswith(b"|55") for key in keys.values())
        old_facts = load_facts(store, keys)
        assert set(old_facts) == set(_FILES)
        # this version finds no snapshot of its own: not indexed, never a wrong answer
        with pytest.raises(NotIndexed):
            api.snapshot(str(builder.path), oid, store=store, index_if_absent=False)
        new = api.index(str(builder.path), oid, store=store, workers=1)
        assert new.parsed_blobs == len(_FILES)  # no key of old is one of this version's
        snap = api.snapshot(str(builder.path), oid, store=store, index_if_absent=False)
        assert b"".join(snap.canonical_lines()) == b"".join(lines(record, old_facts))
        assert new.fingerprint != old.fingerprint
