"""Every command that is not an agent tool (the CLI's and the Python face's own: batch, bundle
export and import, snapshot dump, store info, list and gc, the ledger, workspaces, delta build),
given any input a user or a script could pass that fits its input schema, answers with a result
or a typed error on one line: never `internal_error`, never an exception escaping the executor.
Nothing held is lost: `store gc` keeps every pinned snapshot, and a bundle refused leaves the
store as it was. Inputs are drawn from each row's schema (`tests/schema_strategies.py`), mostly
naming what the shop (`tests/shop_repo.py`) holds; files written go under the test's folder.

A write runs on its own copy of the store, so examples do not feed each other. `batch.run` runs
on the local engine only (a Dask cluster is slow to start; `tests/test_dask_batch.py` has it).

Run by hand with more examples, drawn afresh: `RENNET_FUZZ_EXAMPLES=200 pytest
tests/test_command_inputs.py --hypothesis-show-statistics`.
"""

from __future__ import annotations

import itertools
import os
import shutil
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from context_tools.faces.dispatch import Executor, Reply
from context_tools.faces.registry import Command, registry
from indexer.contract.errors import RennetError
from tests.schema_checks import row_validator
from tests.schema_strategies import values_of
from tests.shop_repo import ODD, index_shop, offline

AGENT = {row.id for row in registry().agent_tools()}
ROWS = tuple(row for row in registry().rows if row.id not in AGENT and row.runnable and "python" in row.surfaces)
TYPED = frozenset({
    "bad_input", "bad_cursor", "not_found", "not_indexed", "unknown_rev", "not_a_repository", "forbidden",
    "empty_repository", "missing_objects", "bad_tree", "no_merge_base", "path_outside_repository",
    "not_a_checkout", "unavailable", "already_exists", "bad_bundle", "untrusted_bundle", "bad_signature",
    "extractor_mismatch", "fingerprint_conflict", "batch_failed", "output_error",
})
FUZZ_EXAMPLES = int(os.environ.get("RENNET_FUZZ_EXAMPLES", "25"))
FRESH = "RENNET_FUZZ_EXAMPLES" in os.environ
KEY_ENV = "RENNET_TEST_BUNDLE_KEY"
ODD_KEY_ENV = "RENNET_TEST_ODD_KEY"  # bytes that are not UTF-8, as an environment may hold


@dataclass(frozen=True)
class Shop:
    root: Path
    repo: str
    store: str
    shas: tuple[str, ...]
    scratch: Path  # the folder commands run in: a relative path names something under it
    bundles: tuple[str, ...]  # a bundle exported, signed and not, then damaged copies and bytes
    key_file: str
    cursors: tuple[str, ...]


def _bundles(python: Executor, repo: str, root: Path) -> tuple[str, ...]:
    folder = root / "bundles"
    folder.mkdir()
    plain, signed = folder / "main.bundle", folder / "signed.bundle"
    assert python.run("bundle.export", {"repo": repo, "rev": "main", "out": str(plain)}).ok
    assert python.run("bundle.export", {"repo": repo, "rev": "v1", "out": str(signed),
                                        "sign_key_file": str(root / "key")}).ok
    data = plain.read_bytes()
    damaged = {"truncated": data[: len(data) // 2], "header": data[:64], "empty": b"",
               "flipped": data[:100] + bytes([data[100] ^ 0xFF]) + data[101:],
               "tail": data[:-1] + bytes([data[-1] ^ 1]), "random": os.urandom(4096),
               "json": b'{"bundle": 1}\n', "doubled": data + data}
    out = [str(plain), str(signed)]
    for name, body in damaged.items():
        (folder / name).write_bytes(body)
        out.append(str(folder / name))
    return (*out, str(folder), str(folder / "nope"), "/dev/null", "/etc/passwd")


@pytest.fixture(scope="module")
def shop(tmp_path_factory) -> Any:
    root = tmp_path_factory.mktemp("command-inputs")
    repo, shas, _blob, store = index_shop(root)
    (root / "key").write_bytes(b"k" * 32)
    scratch = root / "scratch"
    scratch.mkdir()
    with offline(root, store, cwd=str(scratch)) as mp:
        mp.setenv(KEY_ENV, "s" * 32)
        mp.setenv(ODD_KEY_ENV, os.fsdecode(b"s" * 30 + b"\xff\xfe"))
        python = Executor("python", store=store)
        assert python.run("workspace.create", {"name": "ws"}).ok
        assert python.run("workspace.add", {"name": "ws", "repo": repo, "rev": "main"}).ok
        bundles = _bundles(python, repo, root)
        cursors = []
        for command, args in (("store.list", {"limit": 1}), ("workspace.list", {"limit": 1}),
                              ("ledger.read", {"limit": 1})):
            page = python.run(command, args).envelope.get("page") or {}
            if page.get("cursor"):
                cursors.append(page["cursor"])
        _close(python)
        yield Shop(root, repo, store, shas, scratch, bundles, str(root / "key"), tuple(cursors))


_examples = itertools.count()


def _close(python: Executor) -> None:
    """The executor's receipts written and its store closed: each example opens a copy of its own."""
    from context_tools.faces import context

    python.ledger.flush()
    store = context._OPEN.pop(python.handle.home, None)
    if store is not None:
        store.close()


def _outputs(shop: Shop, here: Path) -> Any:
    """Where a command may be told to write: under this example's own folder (a file, the folder
    itself, a file under a missing folder, a file of its copy of the store) or the scratch
    folder it runs in."""
    store = here / "store"
    return st.one_of(st.sampled_from((str(here / "out"), str(here / "out.jsonl"), str(here), str(here / "no/such/x"),
                                      str(here / "out") + "/", str(store / "lmdb/data.mdb"), str(store / "lmdb"),
                                      str(store / "write.lock"), str(store / "new"))),
                     st.text(max_size=12).filter(lambda s: "/" not in s and s not in ("", ".", "..") and "\0" not in s))


def _hints(shop: Shop, row: Command, here: Path) -> Any:
    repo = shop.repo
    revs = st.one_of(st.sampled_from(("HEAD", "main", "main~1", "feature", "v1", "v2", "v1^{}", "gone", "orphan",
                                      "a/b", "ü-branch", "WORKTREE", "refs/heads/main", *shop.shas)),
                     st.sampled_from(shop.shas).map(lambda s: s[:7]), st.sampled_from(ODD), st.text(max_size=12),
                     st.tuples(st.sampled_from(("HEAD", "main")), st.sampled_from((1, 50, 300))).map(
                         lambda t: t[0] + "~0" * t[1]))
    repos = st.one_of(st.just(repo), st.just(repo), st.just(repo),
                      st.sampled_from((repo + "/src", repo + "/.git", repo + "/", str(shop.root), shop.store,
                                       str(shop.root / "nope"), "/", ".", "..", "")),
                      st.sampled_from(ODD), st.text(max_size=12))
    names = st.one_of(st.just("ws"), st.just("ws"), st.just("new-ws"), st.sampled_from(ODD), st.text(max_size=8))
    inputs = st.one_of(st.sampled_from(shop.bundles), st.sampled_from(ODD), st.text(max_size=12))
    jobs_file = here / "jobs"
    pairs = st.one_of(st.tuples(repos, revs).map(lambda t: f"{t[0]}@{t[1]}"), repos, st.sampled_from(ODD))
    by_name: dict[str, Any] = {
        "repo": repos, "rev": revs, "base": revs, "head": revs, "previous_base": revs, "previous_head": revs,
        "name": names, "member": st.one_of(st.just("repo"), names, repos),
        "out": _outputs(shop, here), "file": inputs,
        "from_file": st.one_of(st.just(str(jobs_file)), inputs),
        "sign_key_file": st.one_of(st.just(shop.key_file), inputs),
        "sign_key_env": st.one_of(st.just(KEY_ENV), st.just(ODD_KEY_ENV), st.just("PATH"), st.just("NOPE"), st.text(max_size=8)),
        "range": st.one_of(st.tuples(revs, revs).map(lambda t: f"{t[0]}..{t[1]}"), revs),
        "pairs": pairs, "paths": st.sampled_from(("src", "src/shop/cart.py", "*.py", "../x", "/etc", "")),
        "command": st.one_of(st.sampled_from([r.id for r in registry().rows]), st.text(max_size=8)),
        "cursor": st.one_of(st.sampled_from(shop.cursors), st.sampled_from(shop.cursors).map(lambda c: c[:-1]),
                            st.sampled_from(ODD), st.text(max_size=20)) if shop.cursors else st.text(max_size=20),
    }
    if row.id == "workspace.remove":
        by_name["repo"] = st.one_of(repos, st.just("repo"), names)
    return by_name.get


def _held(python: Executor) -> dict[str, list[str]]:
    """Snapshot key -> what pins it, of every snapshot something holds."""
    held: dict[str, list[str]] = {}
    cursor = None
    while True:
        reply = python.run("store.list", {"limit": 200, "cursor": cursor})
        assert reply.ok, reply.envelope
        for s in reply.envelope["data"]["snapshots"]:
            if s["pinned_by"]:
                held[f"{s['oid']}|{s['extractor_version']}"] = sorted(s["pinned_by"])
        cursor = (reply.envelope.get("page") or {}).get("cursor")
        if not cursor:
            return held


def _state(python: Executor) -> tuple[Any, ...]:
    info = python.run("store.info", {})
    assert info.ok, info.envelope
    data = {k: v for k, v in info.envelope["data"].items() if k not in ("file_bytes", "used_bytes", "receipts")}
    return data, _held(python)


def _called(row: Command, store: str, arguments: dict[str, Any]) -> Reply:
    """`rennet call ID 'JSON' --store STORE`, in process: its one envelope as a Reply."""
    import contextlib
    import io
    import json

    from context_tools.faces.cli import main

    out, err = io.BytesIO(), io.StringIO()
    text = io.TextIOWrapper(out, encoding="utf-8")
    with contextlib.redirect_stdout(text), contextlib.redirect_stderr(err):
        code = main(["call", "--store", store, row.id, json.dumps(arguments)])
        text.flush()
    lines = out.getvalue().splitlines()
    assert "Traceback" not in err.getvalue() and len(lines) == 1, (out.getvalue()[-500:], err.getvalue()[-500:])
    envelope = json.loads(lines[0])
    assert code == (0 if envelope["ok"] else 1) or code == 2 and not envelope["ok"], (code, envelope)
    error = None if envelope["ok"] else RennetError(envelope["error"]["message"])
    return Reply(row.id, envelope, envelope, error=error)


def assert_typed(row: Command, reply: Reply) -> None:
    envelope = reply.envelope
    assert envelope["command"] == row.id
    if envelope["ok"]:
        assert reply.error is None and isinstance(envelope["data"], dict)
        row_validator(row.id, "output").validate(reply.wire)
    else:
        error = envelope["error"]
        assert error["code"] in TYPED, error
        message = error["message"]
        assert isinstance(message, str) and message and len(message.splitlines()) == 1, error
        assert not any(unicodedata.category(c) == "Cc" for c in message), error


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
@settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=not FRESH,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_input_the_schema_admits_gets_a_result_or_a_typed_error(shop: Shop, row: Command, data) -> None:
    here = shop.root / "examples" / str(next(_examples))
    here.mkdir(parents=True)
    schema = row.input_schema()
    arguments = data.draw(values_of(schema, _hints(shop, row, here)), label="arguments")
    if "engine" in arguments or "scheduler" in arguments:  # the local engine: a Dask cluster is slow to start
        arguments.pop("scheduler", None)
        arguments["engine"] = "local"
    if isinstance(arguments.get("out"), str) and not arguments["out"].startswith(str(shop.root)):
        arguments["out"] = str(here / (arguments["out"].replace("/", "_") or "out"))
    if "from_file" in arguments:
        lines = data.draw(st.lists(st.one_of(st.just(f"{shop.repo}@main"), st.just(shop.repo),
                                             st.just(f"{shop.repo}@v1"), st.sampled_from(ODD)), max_size=3))
        (here / "jobs").write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogateescape")
    row_validator(row.id, "input").validate(arguments)
    store = shop.store
    copied = row.authority == "write" or "out" in schema["properties"]
    if copied:  # its own copy: a write (or an output) neither loses nor feeds the shared store
        store = str(here / "store")
        shutil.copytree(shop.store, store, ignore=shutil.ignore_patterns("*.lock", "lock*"))
    python = Executor("python", store=store)
    try:
        before = _state(python) if copied else None
        face = data.draw(st.sampled_from(("python", "python", "rennet call")), label="face")
        if face == "python":
            reply = python.run(row.id, arguments)
        else:
            _close(python)  # the CLI opens the store itself, as another process would
            reply = _called(row, store, arguments)
        event(reply.envelope["error"]["code"] if not reply.ok else "ok")
        assert_typed(row, reply)
    finally:
        _close(python)
    if before is not None:  # opened afresh, as a later process does: every held snapshot still there
        again = Executor("python", store=store)
        try:
            after = _state(again)
            if row.authority == "read" or row.id == "store.gc":  # a dump may index and pin what it dumps
                assert all(set(pins) <= set(after[1].get(key, ())) for key, pins in before[1].items()), \
                    "a held snapshot was lost or released"
            if row.id == "store.gc":
                assert after[1] == before[1], "gc dropped or released a held snapshot"
                for rev in ("main", "v1", "feature"):  # what the shop pinned still reads
                    got = again.run("context.file", {"repo": shop.repo, "rev": rev, "path": "go.mod"})
                    assert got.ok, got.envelope
            if row.id == "bundle.import" and not reply.ok:
                assert after == before, "a refused bundle changed the store"
        finally:
            _close(again)
