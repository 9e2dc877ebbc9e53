"""The canonical serialization: lines encoded in bulk (a file's symbols, the resolved edges)
must be exactly the lines encoded one record at a time, whatever the strings hold, and stored
facts must serialize as the facts they were made from."""

from __future__ import annotations

import json

import msgspec

from indexer.model import BlobFacts, Edge, FileEntry, Occurrence, SnapshotRecord, Symbol, UnresolvedImport
from indexer.store import canonical
from indexer.store.database import unpack
from indexer.store.records import decode_core, decode_facts, stored_facts

# strings that look like the boundaries the bulk encoders split or rename at
TRAPS = ['},{"name":', '"},{"type":"edge",', ',"target":', '{"source":', "a\nb", "\\", "}\n{", "ü→\u2028",
         "tab\there", '\n{\t"name":']


def _symbols() -> list[Symbol]:
    out = []
    for i, trap in enumerate(TRAPS):
        out.append(Symbol(f"name{i}{trap}", "function", trap if i % 2 else "", i + 1, i + 2, i * 10, i * 10 + 5,
                          f"def f{trap}():", condition=f"defined({trap})" if i % 3 == 0 else ""))
    return out


def _one_at_a_time_symbol(path: str, s: Symbol) -> bytes:
    # a C/C++ symbol's condition is in its record only when it has one (other languages' are unchanged)
    fields = {k: v for k, v in msgspec.structs.asdict(s).items() if k != "condition" or v}
    return msgspec.json.encode({"type": "symbol", "path": path, **fields}) + b"\n"


def _record(files: list[FileEntry], edges: list[Edge], unresolved: list[UnresolvedImport]) -> SnapshotRecord:
    return SnapshotRecord(oid="0" * 40, tree="1" * 40, extractor_version="x", files=files, edges=edges,
                          unresolved=unresolved, packages=[], dependencies=[], entry_points=[],
                          fan_in={f.path: 0 for f in files}, rank={f.path: 0.5 for f in files})


def test_symbol_lines_are_the_records_one_by_one():
    path = 'dir/we"ird},{"name":.py'
    facts = BlobFacts("python", 10, symbols=_symbols())
    files = [FileEntry(path, "2" * 40, 0o100644, 10, 10, "python")]
    lines = [line for line in canonical.lines(_record(files, [], []), {path: facts})
             if json.loads(line)["type"] == "symbol"]
    assert lines == [_one_at_a_time_symbol(path, s) for s in facts.symbols]
    assert [json.loads(line)["name"] for line in lines] == [s.name for s in facts.symbols]


def test_edge_lines_are_the_records_one_by_one():
    edges = sorted((Edge(f"a{i}.py", f"b{trap}.py", "python", i + 1, trap) for i, trap in enumerate(TRAPS)),
                   key=lambda e: (e.source, e.target, e.line, e.kind, e.spec))
    unresolved = [UnresolvedImport("a0.py", 'x"},{', "python", 9, "external")]
    files = [FileEntry(p, "2" * 40, 0o100644, 1, 1, "python") for p in sorted({e.source for e in edges})]
    lines = [json.loads(line) for line in canonical.lines(_record(files, edges, unresolved), {})]
    got = [line for line in lines if line["type"] == "edge"]
    want = [{"type": "edge", "from": e.source, "to": e.target, "kind": e.kind, "line": e.line, "spec": e.spec,
             "status": "resolved"} for e in edges]
    want.append({"type": "edge", "from": "a0.py", "to": None, "kind": "python", "line": 9, "spec": 'x"},{',
                 "status": "external"})
    assert got == want
    assert all(list(line) == list(w) for line, w in zip(got, want))  # keys in the documented order


def test_stored_facts_serialize_as_the_facts_they_came_from():
    path = "pkg/m.py"
    facts = BlobFacts("python", 12, symbols=_symbols(),
                      occurrences=[Occurrence("name0", 1, 0, "definition"), Occurrence("other", 2, 4, "call")])
    files = [FileEntry(path, "3" * 40, 0o100644, 12, 12, "python")]
    record = _record(files, [], [])
    stored = stored_facts(b"key", facts)
    core = decode_core(unpack(stored.packed_core))  # as assembly loads it: symbols still encoded
    assert core.symbols == [] and core.symbol_count == len(facts.symbols)
    assert core.symbol_list() == facts.symbols
    reader = decode_facts(unpack(stored.packed_core))  # as readers load it: symbols decoded
    assert reader.symbols == facts.symbols
    fresh = b"".join(canonical.chunks(record, {path: facts}))
    assert b"".join(canonical.chunks(record, {path: core})) == fresh
    assert b"".join(canonical.chunks(record, {path: reader})) == fresh
    assert canonical.fingerprint(record, {path: core}) == canonical.fingerprint(record, {path: facts})
    # the file line counts what the facts hold in either form
    file_line = json.loads(fresh.split(b"\n")[0])
    assert (file_line["symbols"], file_line["occurrences"]) == (len(facts.symbols), 2)


def test_lines_encoded_a_block_at_a_time_are_the_records_one_by_one(monkeypatch):
    """Files and edges are encoded a block per call: lines across block boundaries, with
    paths that look like the boundaries, are still one record per line in order."""
    monkeypatch.setattr(canonical, "_BLOCK", 3)
    paths = sorted(f'd/{i}{trap}.py' for i, trap in enumerate(TRAPS + ['},{"type":"file",']))
    files = [FileEntry(p, f"{i:040x}", 0o100644, i, i, "python") for i, p in enumerate(paths)]
    edges = [Edge(paths[i], paths[i + 1], "python", i + 1, f"s{i}") for i in range(len(paths) - 1)]
    unresolved = [UnresolvedImport(p, f"x{i}", "python", i, "external") for i, p in enumerate(paths)]
    record = _record(files, edges, unresolved)
    lines = [json.loads(line) for line in canonical.lines(record, {})]
    assert [line["path"] for line in lines if line["type"] == "file"] == paths
    assert [(line["from"], line["to"], line["line"]) for line in lines if line["type"] == "edge" and line["to"]] == \
        [(e.source, e.target, e.line) for e in edges]
    assert [(line["from"], line["spec"]) for line in lines if line["type"] == "edge" and not line["to"]] == \
        [(u.path, u.spec) for u in unresolved]
    whole = b"".join(canonical.chunks(record, {}))
    monkeypatch.setattr(canonical, "_BLOCK", 4096)
    assert b"".join(canonical.chunks(record, {})) == whole  # the block size never shows in the bytes


def test_the_fingerprint_holds_the_extractor_version_and_the_capped_marks():
    """docs/store.md: the fingerprint is of the extractor version line and the lines; a file
    line says `occurrences_capped`, and `symbols_capped` when true: each changes the fingerprint."""
    path = "pkg/m.py"
    files = [FileEntry(path, "4" * 40, 0o100644, 12, 12, "python")]
    record = _record(files, [], [])
    plain = BlobFacts("python", 12, symbols=_symbols()[:2])
    prints = {canonical.fingerprint(record, {path: plain})}
    prints.add(canonical.fingerprint(msgspec.structs.replace(record, extractor_version="y"), {path: plain}))
    for mark in ("occurrences_capped", "symbols_capped"):
        capped = msgspec.structs.replace(plain, **{mark: True})
        line = json.loads(next(canonical.lines(record, {path: capped})))
        assert line[mark] is True
        prints.add(canonical.fingerprint(record, {path: capped}))
    assert len(prints) == 4


def test_manifest_lines_are_the_same_bytes_in_any_order_they_were_found():
    """Packages, dependencies and entry points are sorted by every field that tells two apart:
    two dependencies of one name and scope in one manifest (a spec for each platform), or two
    entry points differing only in their target, serialize the same whichever came first, as
    lists and as a bundle's sequences read a block at a time."""
    from indexer.model import Dependency, EntryPoint, Package

    packages = [Package("p", "2", "pypi", "a/pyproject.toml"), Package("p", "1", "pypi", "pyproject.toml")]
    dependencies = [Dependency("attrs", ">=2; sys_platform == 'win32'", "runtime", "pypi", "pyproject.toml", "p"),
                    Dependency("attrs", ">=1", "runtime", "pypi", "pyproject.toml", "p"),
                    Dependency("attrs", ">=1", "dev", "pypi", "pyproject.toml", "p")]
    entry_points = [EntryPoint("tool", "console_script", "p/cli.py", "p.cli:main", "pyproject.toml"),
                    EntryPoint("tool", "console_script", "p/cli.py", "p.cli:app", "pyproject.toml"),
                    EntryPoint("tool", "console_script", "", "p.old:main", "pyproject.toml")]

    dumps = set()
    for turn in range(4):
        order = (lambda items: items) if turn % 2 == 0 else (lambda items: items[::-1])
        kind = list if turn < 2 else tuple  # a sequence that is no list, as a bundle's is
        record = msgspec.structs.replace(_record([], [], []), packages=kind(order(packages)),
                                         dependencies=kind(order(dependencies)),
                                         entry_points=kind(order(entry_points)))
        dumps.add(b"".join(canonical.lines(record, {})))
    assert len(dumps) == 1
    lines = [json.loads(line) for line in dumps.pop().splitlines()]
    assert [d["spec"] for d in lines if d["type"] == "dependency"] == [
        ">=1", ">=1", ">=2; sys_platform == 'win32'"]
    assert [e["target"] for e in lines if e["type"] == "entry_point"] == ["p.old:main", "p.cli:app", "p.cli:main"]
