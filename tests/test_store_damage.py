"""A damaged store answers `store_corrupt` (or a right answer), never `internal_error`, and a
write on it loses nothing else stored.

A small real store (a repository of four commits, a re-index among them, a workspace holding
a snapshot no rev pin holds, a working-tree snapshot, a dossier and receipts) is copied for
each example, one value of one LMDB table damaged in the copy (cut short, a byte flipped, bytes
that are not UTF-8, a container head declaring 2^32 items, valid msgpack of the wrong shape,
or one field of the decoded record changed), and the commands that read that table run
through the executor every face runs (`context_tools.faces.dispatch.Executor`).

Run by hand with more examples, drawn afresh: `RENNET_FUZZ_EXAMPLES=300 pytest
tests/test_store_damage.py`.
"""

from __future__ import annotations

import copy
import itertools
import math
import os
import shutil
import unicodedata
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import lmdb
import msgspec
import pygit2
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from context_tools.faces.dispatch import Executor, Reply
from corpora.gitbuild import RepoBuilder
from tests.schema_checks import row_validator
from tests.shop_repo import offline
from tests.test_command_inputs import _close

FUZZ_EXAMPLES = int(os.environ.get("RENNET_FUZZ_EXAMPLES", "25"))
FRESH = "RENNET_FUZZ_EXAMPLES" in os.environ
# What a damaged store may answer: damage found (`store_corrupt`; a schema version that reads
# as another is `schema_mismatch`), or what the damaged record now says: a pin or name index
# row naming what is not stored (`not_indexed`, `not_found`), a blob the repository lacks.
# `unknown_rev`: a pin flipped into another commit OID, which damage of the right form cannot be
# told from a pin whose commit a rewritten history dropped
DAMAGED = frozenset({"store_corrupt", "schema_mismatch", "not_indexed", "not_found", "missing_objects", "unknown_rev"})
DUPSORT = ("defs", "occ")  # tables holding many values a key
KEPT = ("snapshots", "facts", "occurrences", "rank", "repos", "defs", "occ", "names", "kv:workspaces")

FILES = {
    "pkg/__init__.py": "from .core import Core\n",
    "pkg/core.py": "class Core:\n    def run(self):\n        return helper()\n\n\ndef helper():\n    return 1\n",
    "web/a.js": "import { b } from './b';\nexport function a() { return b(); }\n",
    "web/b.js": "export function b() { return 2; }\n",
    "README.md": "hello helper\n",
    "pyproject.toml": '[project]\nname = "p"\nversion = "1"\ndependencies = ["click"]\n',
}


@dataclass(frozen=True)
class Made:
    root: Path
    repo: str
    store: Path  # the undamaged store every example copies
    values: dict[tuple[str, bytes], bytes]  # (table, key) -> value; a dupsort table's first row of a key

    def __repr__(self) -> str:  # what a failing example prints of it
        return f"Made({self.root})"


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Iterator[Made]:
    """main~2 and main indexed (main from main~1's snapshot); `ws` holds main~1, which no pin
    holds once main moved on; a working-tree snapshot of the checkout; a dossier of main~2..main;
    `next`, one commit past main, is left for a re-index from main's snapshot."""
    root = tmp_path_factory.mktemp("store-damage")
    builder = RepoBuilder(root / "repo")
    builder.commit(FILES, "one")
    builder.commit({"pkg/extra.py": "from pkg.core import helper\n\n\ndef extra():\n    return helper() + 1\n"},
                   "two: fixes #3")
    repo, store = str(root / "repo"), root / "store"
    with offline(root, str(store), cwd=str(root)):
        python = Executor("python", store=str(store))
        try:
            for command, args in (("repo.index", {"repo": repo, "rev": "main~1"}),
                                  ("workspace.create", {"name": "ws"}),
                                  ("workspace.add", {"name": "ws", "repo": repo, "rev": "main"})):
                assert python.run(command, args).ok
            three = builder.commit({"pkg/more.py": "from pkg.extra import extra\n\nMORE = extra()\n",
                                    "web/b.js": "export function b() { return 3; }\n"}, "three")
            pygit2.Repository(repo).checkout_head(strategy=pygit2.GIT_CHECKOUT_FORCE)
            builder.commit({"pkg/next.py": "def ahead():\n    return 4\n"}, "four", branch="next", parents=[three])
            for command, args in (("repo.index", {"repo": repo, "rev": "main"}),
                                  ("context.symbol", {"repo": repo, "name": "helper", "worktree": True}),
                                  ("dossier.build", {"repo": repo, "base": "main~2", "head": "main"})):
                reply = python.run(command, args)
                assert reply.ok, reply.envelope
        finally:
            _close(python)
    values: dict[tuple[str, bytes], bytes] = {}
    env = lmdb.open(str(store / "lmdb"), max_dbs=32, readonly=True, lock=False)
    try:
        with env.begin() as txn:
            for name, _ in txn.cursor():
                db = env.open_db(bytes(name), txn=txn, create=False)
                for key, value in txn.cursor(db=db).iternext_nodup(keys=True, values=True):
                    values[(bytes(name).decode(), bytes(key))] = bytes(value)
    finally:
        env.close()
    yield Made(root, repo, store, values)


def copy_damaged(made: Made, here: Path, table: str, key: bytes, value: bytes) -> Path:
    """A copy of the made store with `value` in place of the one `table` holds under `key`."""
    home = here / "store"
    shutil.copytree(made.store, home, ignore=shutil.ignore_patterns("lock.mdb", "*.lock"))
    put(made, home, table, key, value)
    return home


def put(made: Made, home: Path, table: str, key: bytes, value: bytes) -> None:
    """`value` in place of the one the made store's `table` holds under `key`, in the store at `home`."""
    env = lmdb.open(str(home / "lmdb"), max_dbs=32)
    try:
        with env.begin(write=True) as txn:
            db = env.open_db(table.encode(), txn=txn, create=False)
            if table in DUPSORT:
                txn.delete(key, made.values[(table, key)], db=db)
                if value:  # a dupsort table holds no empty value
                    txn.put(key, value, db=db)
            else:
                txn.put(key, value, db=db)
    finally:
        env.close()


def stored_keys(home: Path) -> set[tuple[str, bytes]]:
    env = lmdb.open(str(home / "lmdb"), max_dbs=32, readonly=True, lock=False)
    try:
        with env.begin() as txn:
            return {(name, bytes(key)) for name in KEPT
                    for key in txn.cursor(db=env.open_db(name.encode(), txn=txn, create=False)).iternext(values=False)}
    finally:
        env.close()


def reads(made: Made, here: Path, table: str) -> list[tuple[str, dict[str, Any]]]:
    """The commands that read `table`, as the faces send them."""
    repo = made.repo
    snapshot = [("context.overview", {"repo": repo}), ("context.map", {"repo": repo}),
                ("context.file", {"repo": repo, "path": "pkg/core.py"}),
                ("context.file", {"repo": repo, "path": "README.md"}),
                ("context.novelty", {"repo": repo, "base": "main~2", "head": "main"}),
                ("snapshot.dump", {"repo": repo, "out": str(here / "dump.jsonl")}),
                ("bundle.export", {"repo": repo, "rev": "main~1", "out": str(here / "main.bundle")})]
    names = [("context.symbol", {"repo": repo, "name": "helper"}),
             ("context.symbol", {"repo": repo, "name": "Core.run"}),
             ("context.symbol", {"repo": repo, "name": "helpr"}),  # near names: the runs of `names`
             ("context.references", {"repo": repo, "name": "helper"}),
             ("context.references", {"repo": repo, "name": "b"})]
    holders = [("store.list", {}), ("store.info", {}), ("repo.snapshots", {"repo": repo}),
               ("context.symbol", {"repo": repo, "name": "helper", "worktree": True})]
    workspaces = [("workspace.list", {}), ("workspace.status", {"name": "ws"})]
    return {
        "meta": [("store.info", {})],
        "snapshots": snapshot + names[:1] + holders[:2] + workspaces[1:],
        "facts": snapshot + names, "occurrences": names + snapshot[:1] + snapshot[5:6],
        "defs": names, "occ": names, "names": names, "rank": [],
        "repos": snapshot[:1] + snapshot[4:5] + names[:1] + holders,
        "kv:workspaces": workspaces + holders[:2],
        "kv:ledger": [("ledger.read", {}), ("store.info", {})],
        "kv:dossiers": [("dossier.build", {"repo": repo, "base": "main~2", "head": "main"}), ("store.info", {})],
    }[table]


WRITES = [("repo.index", {"rev": "next"}), ("store.gc", {})]  # a re-index from main's snapshot, then a collection


def assert_answered(command: str, reply: Reply) -> None:
    """A reply valid against the command's schema, or a typed error a damaged store may give,
    on one line."""
    envelope = reply.envelope
    if envelope["ok"]:
        row_validator(command).validate(reply.wire)
        return
    error = envelope["error"]
    assert error["code"] in DAMAGED, (command, error)
    message = error["message"]
    assert message and len(message.splitlines()) == 1, error
    assert not any(unicodedata.category(c) == "Cc" for c in message), error


def run(made: Made, home: Path, commands: list[tuple[str, dict[str, Any]]]) -> list[Reply]:
    """Each command through one executor as the CLI's, offline (a receipt written after each,
    as the CLI writes it); the store closed after."""
    with offline(made.root, str(home), cwd=str(home.parent)):
        cli = Executor("cli", store=str(home), settle="never")
        try:
            return [cli.run(command, args) for command, args in commands]
        finally:
            _close(cli)


# --- damage ---------------------------------------------------------------------------------

def layers(table: str, value: bytes) -> tuple[list[bytes], bytes]:
    """A stored value as its parts (a snapshot record: its head and its tail), and what the
    value is made of besides (the record's 4-byte head size, added back by `joined`)."""
    if table == "snapshots" and len(value) >= 4:
        size = int.from_bytes(value[:4], "big")
        return [value[4:4 + size], value[4 + size:]], b"record"
    return [value], b""


def joined(parts: list[bytes], kind: bytes) -> bytes:
    return len(parts[0]).to_bytes(4, "big") + parts[0] + parts[1] if kind == b"record" else parts[0]


def decoded(part: bytes) -> tuple[tuple[str, str], Any] | None:
    """((mark, codec), tree) of a part as the store writes it: msgpack or JSON, bare or behind
    the store's mark (`p` plain, `z` zlib); None for bytes of no such form."""
    for mark in ("", "p", "z"):
        if mark and part[:1] != mark.encode():
            continue
        body = part[1:] if mark else part
        if mark == "z":
            try:
                body = zlib.decompress(body)
            except zlib.error:
                continue
        for codec, decode in (("msgpack", msgspec.msgpack.decode), ("json", msgspec.json.decode)):
            try:
                return (mark, codec), decode(body)
            except (msgspec.DecodeError, UnicodeDecodeError):
                pass
    return None


def encoded(how: tuple[str, str], tree: Any) -> bytes:
    mark, codec = how
    body = msgspec.msgpack.encode(tree) if codec == "msgpack" else msgspec.json.encode(tree)
    return {"": body, "p": b"p" + body, "z": b"z" + zlib.compress(body)}[mark]


def nodes(tree: Any, at: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """Every place in a decoded record (of a list, its first and last items)."""
    yield at, tree
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield from nodes(value, (*at, key))
    elif isinstance(tree, list) and tree:
        for i in sorted({0, len(tree) - 1}):
            yield from nodes(tree[i], (*at, i))


def changes(node: Any) -> list[Any]:
    """What one place of a record may be changed into: its kind's odd values, or another kind."""
    if isinstance(node, bool):
        return [not node, None]
    if isinstance(node, int):
        return [-1, 2**40, node + 1, "1"]
    if isinstance(node, float):
        return [math.nan, math.inf, -1.0]
    if isinstance(node, str):
        return ["", "zz", "x" * 300, "a\nb", "../x", node[:-1], None]
    if isinstance(node, bytes):
        return [b"", node[:-1], b"{", b'{"a":1}\n', b"\xff"]
    if isinstance(node, list):
        return ["drop", "repeat", "empty", "reverse", None]
    if isinstance(node, dict):
        return ["drop", "empty", None]
    return [0]


def changed(tree: Any, at: tuple, change: Any) -> Any:
    tree = copy.deepcopy(tree)
    if not at:
        return change if not isinstance(change, str) or isinstance(tree, str) else type(tree)()
    parent = tree
    for step in at[:-1]:
        parent = parent[step]
    node = parent[at[-1]]
    if change == "drop" and isinstance(node, (list, dict)):
        if node:
            del node[0 if isinstance(node, list) else next(iter(node))]
    elif change == "repeat" and isinstance(node, list):
        node[:0] = node[:1]
    elif change == "empty" and isinstance(node, (list, dict)):
        parent[at[-1]] = type(node)()
    elif change == "reverse" and isinstance(node, list):
        node.reverse()
    else:
        parent[at[-1]] = change
    return tree


# Always found out: bytes no reader of the table takes (a cut, bytes that are not UTF-8, a
# container head declaring 2^32 items, msgpack of another shape).
DETECTED = ("cut", "not utf-8", "huge container", "other shape")


@st.composite
def damages(draw, made: Made) -> tuple[str, bytes, bytes, str]:
    """(table, key, damaged value, kind of damage)."""
    table = draw(st.sampled_from(sorted({table for table, _ in made.values})), label="table")
    key = draw(st.sampled_from(sorted(key for held, key in made.values if held == table)), label="key")
    value = made.values[(table, key)]
    parts, kind = layers(table, value)
    i = draw(st.integers(0, len(parts) - 1), label="part")
    part = parts[i]
    how = decoded(part)
    damage = draw(st.sampled_from(DETECTED + ("flipped byte",) + (("huge size",) if kind else ()) +
                                  (("field",) if how else ())), label="damage")
    if damage == "cut":
        part = part[:draw(st.integers(0, max(len(part) - 1, 0)))]
    elif damage == "not utf-8":
        part = b"\xff\xfe" + part[2:]
    elif damage == "huge container":  # an array, a map, a string 2^32 - 1 long, behind the store's mark or not
        mark = part[:1] if part[:1] in (b"p", b"z") else b""
        part = mark + draw(st.sampled_from((b"\xdd", b"\xdf", b"\xdb"))) + b"\xff\xff\xff\xff"
    elif damage == "other shape":
        mark = draw(st.sampled_from((b"", b"p")))
        part = mark + msgspec.msgpack.encode(draw(st.sampled_from((7, ["x", 1], {"a": 1}, "text"))))
    elif damage == "flipped byte" and part:
        at = draw(st.integers(0, len(part) - 1))
        part = part[:at] + bytes([part[at] ^ draw(st.sampled_from((1, 0x20, 0x80, 0xFF)))]) + part[at + 1:]
    elif damage == "field":
        assert how is not None
        codec, tree = how
        at, node = draw(st.sampled_from(list(nodes(tree))), label="field")
        change = draw(st.sampled_from(changes(node)), label="change")
        part = encoded(codec, changed(tree, at, change))
        damage = f"field {'.'.join(map(str, at)) or '(whole)'} = {change!r:.24}"
    parts[i] = part
    damaged = joined(parts, kind)
    if damage == "huge size":
        damaged = (0xFFFFFFFF).to_bytes(4, "big") + damaged[4:]  # the record's head size
    return table, key, damaged, damage


_examples = itertools.count()


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=not FRESH,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_a_damaged_store_answers_store_corrupt_or_rightly_and_a_write_loses_nothing_else(made: Made, data) -> None:
    """Every read of the damaged table answers, typed; then a re-index and a collection answer
    too, and when the damage is of a kind always found out, neither drops anything stored."""
    table, key, value, damage = data.draw(damages(made), label="damage")
    event(f"{table}: {damage.split(' = ')[0] if damage.startswith('field') else damage}")
    here = made.root / "examples" / str(next(_examples))
    here.mkdir(parents=True)
    home = copy_damaged(made, here, table, key, value)
    commands = reads(made, here, table)
    for (command, _), reply in zip(commands, run(made, home, commands)):
        event(f"{command}: {reply.envelope['error']['code'] if not reply.ok else 'ok'}")
        assert_answered(command, reply)
    before = stored_keys(home)
    writes = [(command, {**args, "repo": made.repo} if "rev" in args else args) for command, args in WRITES]
    for (command, _), reply in zip(writes, run(made, home, writes)):
        assert_answered(command, reply)
    if damage in DETECTED:
        assert before <= stored_keys(home), f"a write on a store with {damage} {table} dropped what it held"
    shutil.rmtree(here)


# --- each fault the sweep found -------------------------------------------------------------

def oid_of(made: Made, rev: str) -> str:
    return str(pygit2.Repository(made.repo).revparse_single(rev).peel(pygit2.Commit).id)


def key_of(made: Made, table: str, start: bytes) -> bytes:
    """The key of `table` that starts with `start` (one only)."""
    found = [key for held, key in made.values if held == table and key.startswith(start)]
    assert len(found) == 1, found
    return found[0]


def pin_of(made: Made, rev: str) -> bytes:
    key = b"pin|" + gitread_identity(made) + b"|" + rev.encode()
    assert ("repos", key) in made.values
    return key


def with_head(value: bytes, **fields: Any) -> bytes:
    """A stored snapshot record whose head holds `fields` in place of its own."""
    size = int.from_bytes(value[:4], "big")
    head = msgspec.msgpack.decode(value[5:4 + size])  # after the plain mark
    head.update(fields)
    packed = b"p" + msgspec.msgpack.encode(head)
    return len(packed).to_bytes(4, "big") + packed + value[4 + size:]


def not_utf8(value: bytes, text: bytes) -> bytes:
    """`value` with the first byte of the string `text` it holds made 0xFF (a string that is not UTF-8)."""
    at = value.index(text)
    return value[:at] + b"\xff" + value[at + 1:]


def error_of(reply: Reply) -> tuple[str, str]:
    assert not reply.ok, reply.envelope
    assert_answered(reply.command, reply)
    return reply.envelope["error"]["code"], reply.envelope["error"]["message"]


def test_a_pin_that_is_not_utf8_is_store_corrupt_on_one_line(made: Made, tmp_path) -> None:
    """The headline fault: a rev pin's value read with `bytes.decode()` (was: `internal_error:
    UnicodeDecodeError`, from every read of the rev, `store list`, `store info`, `store gc` and
    `rennet snapshots`), through the CLI itself."""
    from tests.test_store_faults import rennet

    pin = pin_of(made, "main")
    home = copy_damaged(made, tmp_path, "repos", pin, b"\xff\xfe" + made.values[("repos", pin)][2:])
    for args in (("context", "symbol", "helper", "--repo", made.repo, "--rev", "main"), ("store", "list"), ("store", "gc"),
                 ("snapshots", "--repo", made.repo)):
        code, reply, said = rennet(home, *args)
        assert code == 1 and reply["error"]["code"] == "store_corrupt", (args, reply)
        message = reply["error"]["message"]
        assert len(message.splitlines()) == 1 and f"store at {home} is corrupt" in message, message
        assert "the pin of rev 'main' holds no commit OID" in message and "move it aside and re-index" in message
        assert said.splitlines() == [f"rennet: store_corrupt: {message}"], said  # and no receipt's complaint


@pytest.mark.parametrize("value", [b"[1,2]", b"e927cec399", b"", b"G" * 40])
def test_a_pin_that_holds_no_oid_is_store_corrupt(made: Made, tmp_path, value: bytes) -> None:
    """A pin whose value is UTF-8 but no OID (was: `unknown_rev` naming the value as a revision
    the user gave, or `not_indexed` advising to index what is indexed)."""
    pin = pin_of(made, "main~1")
    home = copy_damaged(made, tmp_path, "repos", pin, value)
    for reply in run(made, home, [("context.symbol", {"repo": made.repo, "rev": "main~1", "name": "helper"}),
                                  ("context.novelty", {"repo": made.repo, "base": "main~1", "head": "main"})]):
        assert error_of(reply)[0] == "store_corrupt"


def test_a_pin_to_a_commit_neither_stored_nor_in_the_repository_says_so(made: Made, tmp_path) -> None:
    """A pin holding a commit OID whose snapshot the store lacks and the repository does not
    hold (a flipped hex digit, or a history rewritten after an upgrade): `unknown_rev` saying the
    rev is pinned there and how to pin it anew (was: `unknown revision '<OID>'`, naming an OID
    the user never gave as if they had)."""
    pin = pin_of(made, "main")
    gone = "0" * 39 + "1"
    home = copy_damaged(made, tmp_path, "repos", pin, gone.encode())
    [reply] = run(made, home, [("context.symbol", {"repo": made.repo, "rev": "main", "name": "helper"})])
    code, message = error_of(reply)
    assert code == "unknown_rev" and "main of " in message and f"pinned to commit {gone[:12]}" in message
    assert "rennet index --rev main" in message


def test_an_indexing_stamp_of_another_shape_is_store_corrupt(made: Made, tmp_path) -> None:
    """The `repos` row saying when a snapshot was indexed, decoded as any msgpack and asked
    `.get` (was: `internal_error: AttributeError: 'int' object has no attribute 'get'`)."""
    stamp = key_of(made, "repos", gitread_identity(made) + b"|" + oid_of(made, "main").encode())
    home = copy_damaged(made, tmp_path, "repos", stamp, msgspec.msgpack.encode(7))
    for reply in run(made, home, [("context.symbol", {"repo": made.repo, "name": "helper"}),
                                  ("repo.snapshots", {"repo": made.repo})]):
        code, message = error_of(reply)
        assert code == "store_corrupt" and "indexing stamp" in message


def gitread_identity(made: Made) -> bytes:
    from indexer.git import read as gitread

    return gitread.repo_identity(gitread.open_repo(made.repo)).encode()


# (table, the key's start, a string the value holds, commands that read it)
NOT_UTF8 = [
    ("snapshots", "main", b"pkg/core.py", [("context.file", {"path": "pkg/core.py"})]),
    ("facts", "pkg/core.py", b"helper", [("context.symbol", {"name": "helper"})]),
    ("occurrences", "", b"helper", [("context.references", {"name": "helper"})]),
    ("names", "", b"helper", [("context.symbol", {"name": "helpr"})]),
    ("kv:workspaces", "ws|", b"main", [("workspace.status", {"name": "ws"}), ("store.list", {})]),
    ("kv:ledger", "", b"repo.index", [("ledger.read", {})]),
]


@pytest.mark.parametrize("table,start,text,commands", NOT_UTF8, ids=[row[0] for row in NOT_UTF8])
def test_a_stored_string_that_is_not_utf8_is_store_corrupt(made: Made, tmp_path, table, start, text, commands):
    """msgspec raises a string that is not UTF-8 as UnicodeDecodeError, not DecodeError: every
    decoder of stored bytes now raises DecodeError for it (`indexer/contract/read_back.py`), as
    for any other damage (was: `internal_error: UnicodeDecodeError`)."""
    if table == "snapshots":
        key = snapshot_key_of(made, oid_of(made, start))
    elif table == "facts":  # the facts of the blob of a file at main
        key = key_of(made, "facts", blob_of(made, start).encode() + b"|")
    else:
        key = next(key for held, key in made.values
                   if held == table and key.startswith(start.encode()) and text in made.values[(held, key)])
    home = copy_damaged(made, tmp_path, table, key, not_utf8(made.values[(table, key)], text))
    wanted = [(command, {"repo": made.repo, **args} if command.startswith("context") else args)
              for command, args in commands]
    for reply in run(made, home, wanted):
        code, message = error_of(reply)
        assert code == "store_corrupt" and f"store at {home} is corrupt" in message, message


def test_a_stored_dossier_that_is_not_utf8_is_retrieved_again(made: Made, tmp_path) -> None:
    """A stored dossier that does not decode is built again, as one of an older shape is (was:
    `internal_error: UnicodeDecodeError`)."""
    key, value = next((key, value) for (held, key), value in made.values.items() if held == "kv:dossiers")
    home = copy_damaged(made, tmp_path, "kv:dossiers", key, not_utf8(value, b"main"))
    reply, = run(made, home, [("dossier.build", {"repo": made.repo, "base": "main~2", "head": "main"})])
    assert reply.ok and reply.envelope["data"]["reused"] is False, reply.envelope


def blob_of(made: Made, path: str) -> str:
    return str(pygit2.Repository(made.repo).revparse_single(f"main:{path}").id)


def snapshot_key_of(made: Made, oid: str) -> bytes:
    return key_of(made, "snapshots", oid.encode() + b"|")


def test_a_file_table_whose_columns_disagree_is_store_corrupt(made: Made, tmp_path) -> None:
    """A head whose `blobs` column holds one item more than `paths` (each decodes alone):
    a lookup by position read past a column's end (was: `internal_error: IndexError`)."""
    key = snapshot_key_of(made, oid_of(made, "main"))
    value = made.values[("snapshots", key)]
    size = int.from_bytes(value[:4], "big")
    blobs = msgspec.msgpack.decode(value[5:4 + size])["blobs"]
    home = copy_damaged(made, tmp_path, "snapshots", key, with_head(value, blobs=blobs[:1] + blobs))
    for reply in run(made, home, [("context.references", {"repo": made.repo, "name": "helper"}),
                                  ("context.file", {"repo": made.repo, "path": "web/b.js"})]):
        code, message = error_of(reply)
        assert code == "store_corrupt" and "columns of unequal length" in message, message


def test_a_blob_of_the_file_table_that_is_no_oid_is_store_corrupt(made: Made, tmp_path) -> None:
    """A file's blob that is no OID is damage to the record (was: `missing_objects`, telling
    the user the repository lacks a blob named `zz`); so for a re-index starting from that
    snapshot (was: `internal_error: TypeError: name must be an oid`, from pygit2), and for
    the snapshot's names off the name index (was: `ValueError` from `bytes.fromhex`)."""
    from indexer.api import open_store, snapshot

    key = snapshot_key_of(made, oid_of(made, "main"))
    value = made.values[("snapshots", key)]
    size = int.from_bytes(value[:4], "big")
    head = msgspec.msgpack.decode(value[5:4 + size])
    blobs = ["zz" if path == "pkg/core.py" else blob for path, blob in zip(head["paths"], head["blobs"])]
    home = copy_damaged(made, tmp_path, "snapshots", key, with_head(value, blobs=blobs))
    read, reindex, export = run(made, home, [("context.file", {"repo": made.repo, "path": "pkg/core.py"}),
                                             ("repo.index", {"repo": made.repo, "rev": "next"}),
                                             ("bundle.export", {"repo": made.repo, "rev": "main",
                                                                "out": str(tmp_path / "main.bundle")})])
    code, message = error_of(read)
    assert code == "store_corrupt" and "names a blob that is no OID" in message, message
    code, message = error_of(reindex)
    assert code == "store_corrupt" and "names a blob that is no OID" in message, message
    assert error_of(export)[0] == "store_corrupt"  # the facts of blob `zz` are not in the store
    with open_store(home) as store, pytest.raises(Exception) as raised:
        snapshot(made.repo, "main", store=store).defined_names()
    assert getattr(raised.value, "code", None) == "store_corrupt", raised.value


@pytest.mark.parametrize("blob", ["zz", "g" * 40, "A" * 40, "a" * 39])
def test_a_blob_of_the_file_table_that_is_no_oid_is_store_corrupt_to_every_lookup(made: Made, tmp_path, blob):
    """A file's blob damaged into no OID, read by the lookups of a lazily decoded head: a name's
    definitions and references found through the name index, which lists the file's true blob,
    no longer in the file table (was: `not_found` for `helper`, defined in that file, and its
    references listed without it), and the file itself. The blobs column is checked when it is
    decoded, as the whole head's is."""
    key = snapshot_key_of(made, oid_of(made, "main"))
    value = made.values[("snapshots", key)]
    size = int.from_bytes(value[:4], "big")
    head = msgspec.msgpack.decode(value[5:4 + size])
    blobs = [blob if path == "pkg/core.py" else held for path, held in zip(head["paths"], head["blobs"])]
    home = copy_damaged(made, tmp_path, "snapshots", key, with_head(value, blobs=blobs))
    for reply in run(made, home, [("context.symbol", {"repo": made.repo, "name": "helper"}),
                                  ("context.references", {"repo": made.repo, "name": "helper"}),
                                  ("context.file", {"repo": made.repo, "path": "pkg/core.py"}),
                                  ("context.file", {"repo": made.repo, "path": "web/b.js"})]):
        code, message = error_of(reply)
        assert code == "store_corrupt" and "names a blob that is no OID" in message, (reply.command, message)


def test_a_snapshot_whose_blob_facts_are_not_in_the_store_is_store_corrupt(made: Made, tmp_path) -> None:
    """Blob facts a stored snapshot reads, gone from the store (as the collection above lost
    them, or a file table damaged into another file's name): the store does not hold what it
    wrote, and indexing the rev again does not write them, since the snapshot is there (was:
    `store_error` advising to re-index the rev)."""
    key = key_of(made, "facts", blob_of(made, "pkg/core.py").encode() + b"|")
    home = copy_damaged(made, tmp_path, "facts", key, b"")
    env = lmdb.open(str(home / "lmdb"), max_dbs=32)
    try:
        with env.begin(write=True) as txn:
            txn.delete(key, db=env.open_db(b"facts", txn=txn, create=False))
    finally:
        env.close()
    reply, = run(made, home, [("bundle.export", {"repo": made.repo, "rev": "main", "out": str(tmp_path / "b")})])
    code, message = error_of(reply)
    assert code == "store_corrupt" and "are not in it" in message and "move it aside" in message, message


def holders(made: Made) -> dict[str, tuple[str, bytes, bytes]]:
    """Each kind of holder's row as damaged: a workspace that does not decode, a pin of no OID,
    a list of working-tree snapshots of no OIDs."""
    ws = key_of(made, "kv:workspaces", b"ws|")
    pin = pin_of(made, "main")
    trees = key_of(made, "repos", b"worktrees|")
    return {"workspace": ("kv:workspaces", ws, made.values[("kv:workspaces", ws)][:-3]),
            "pin": ("repos", pin, made.values[("repos", pin)][:12]),
            "worktree list": ("repos", trees, msgspec.msgpack.encode(["tree"]))}


@pytest.mark.parametrize("holder", ["workspace", "pin", "worktree list"])
def test_gc_drops_nothing_a_damaged_holder_held(made: Made, tmp_path, holder: str) -> None:
    """`store gc` took a holder it could not read for no holder: the snapshot it alone held was
    dropped, with the blob facts only that snapshot needed (was: main~1's snapshot, which only
    the workspace holds, dropped; the snapshot of main, or the working tree's, dropped when its
    pin or list was damaged). Now `store_corrupt`, and nothing is dropped; `store list` says
    the same rather than listing the snapshot as held by nothing."""
    table, key, value = holders(made)[holder]
    home = copy_damaged(made, tmp_path, table, key, value)
    before = stored_keys(home)
    for reply in run(made, home, [("store.gc", {}), ("store.list", {})]):
        code, message = error_of(reply)
        assert code == "store_corrupt" and f"store at {home} is corrupt" in message, message
    assert stored_keys(home) == before


@pytest.mark.parametrize("damage", ["extractor version", "columns", "blob"])
def test_gc_keeps_the_facts_of_a_held_snapshot_whose_head_does_not_read_back_whole(made: Made, tmp_path, damage):
    """gc keeps the facts keys each held snapshot's head names; a head whose keys would come out
    wrong (another extractor version than its key's, columns of unequal length cut short by
    `zip`, a blob that is no OID) keeps every facts key of its version, as one that does not
    decode does (was: the blob facts only that snapshot needed dropped; the snapshot then read
    as a file without facts)."""
    home = tmp_path / "store"
    shutil.copytree(made.store, home, ignore=shutil.ignore_patterns("lock.mdb", "*.lock"))
    for oid in (oid_of(made, "main"), *worktree_trees(made)):  # both hold main's blobs
        key = snapshot_key_of(made, oid)
        value = made.values[("snapshots", key)]
        size = int.from_bytes(value[:4], "big")
        head = msgspec.msgpack.decode(value[5:4 + size])
        changed = {"extractor version": {"extractor_version": "assembly=1"},
                   "columns": {"languages": head["languages"][:1]},
                   "blob": {"blobs": ["zz"] * len(head["blobs"])}}[damage]
        put(made, home, "snapshots", key, with_head(value, **changed))
    before = stored_keys(home)
    reply, = run(made, home, [("store.gc", {})])
    assert reply.ok, reply.envelope
    assert stored_keys(home) == before


def worktree_trees(made: Made) -> list[str]:
    return msgspec.msgpack.decode(made.values[("repos", key_of(made, "repos", b"worktrees|"))])
