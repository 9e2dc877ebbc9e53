"""The executor's own checks of a command's input, before any handler runs: what no path, rev
or name can hold (`dispatch._unfit_string`), a size said in words, and the roots an agent face
serves with those its client declares (`roots.Roots.check`). Each is a typed error on one line,
never `internal_error`, whichever face the input came from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from context_tools.faces.dispatch import Executor
from context_tools.faces.roots import Roots
from indexer.contract.decode import JSON_MAX_DEPTH


def _error(executor: Executor, command: str, raw: Any, **kwargs: Any) -> dict[str, str]:
    reply = executor.run(command, raw, **kwargs)
    assert not reply.ok, reply.wire
    return reply.wire["error"]


@pytest.fixture
def python_face(tmp_path: Path) -> Executor:
    return Executor("python", store=str(tmp_path / "store"), receipts=False)


@pytest.mark.parametrize("raw, where", [
    pytest.param({"\ud800": 1}, "$", id="surrogate-key"),  # JSON may spell one in a key as in a value
    pytest.param({"a\x00b": 1}, "$", id="nul-key"),
    pytest.param({"focus": ["ok", "a\udfff"]}, "$.focus[1]", id="surrogate-item"),
    pytest.param({"focus": ("ok", "a\x00")}, "$.focus[1]", id="nul-tuple-item"),  # a Python caller's tuple
])
def test_a_string_no_name_can_hold_is_bad_input_naming_where(python_face, tmp_path, request, raw, where):
    """A lone surrogate or a NUL, in a key or in any item, is refused before anything reads it:
    a key the input's type does not know would otherwise reach its error message, and a
    message holding a lone surrogate was `internal_error` (UTF-8 cannot encode it)."""
    error = _error(python_face, "context.map", {"repo": str(tmp_path / "no-such-repo"), **raw})
    assert error["code"] == "bad_input", error
    why = "a string is not valid Unicode" if "surrogate" in request.node.name else "a string holds a NUL character"
    assert why in error["message"] and error["message"].endswith(f"- at `{where}`"), error


def test_a_size_that_is_none_is_said_in_words_not_as_a_regular_expression(python_face, tmp_path):
    error = _error(python_face, "context.map", {"repo": str(tmp_path), "budget": "4x"})
    assert error["code"] == "bad_input"
    assert "not a size: give a whole number of bytes" in error["message"] and "regex" not in error["message"]


def test_a_path_outside_the_roots_is_forbidden_before_it_is_read(tmp_path):
    """An agent face serves only paths under its roots: one outside is `forbidden` naming the
    roots, where the same call from the user's own face reads it (no repository there)."""
    (tmp_path / "served").mkdir()
    outside = tmp_path / "outside"
    agent = Executor("mcp", store=str(tmp_path / "store"), roots=Roots.of([tmp_path / "served"]), receipts=False)
    error = _error(agent, "context.overview", {"repo": str(outside)})
    assert error["code"] == "forbidden" and "roots this server serves" in error["message"], error
    user = Executor("python", store=str(tmp_path / "store"), receipts=False)
    assert _error(user, "context.overview", {"repo": str(outside)})["code"] == "not_a_repository"


def test_the_roots_a_client_declares_narrow_the_executors(tmp_path):
    """A path under the server's roots but under none the client declared is `forbidden`, naming
    the client's; one under a declared root goes on to be read."""
    for name in ("mine", "other"):
        (tmp_path / name).mkdir()
    agent = Executor("mcp", store=str(tmp_path / "store"), roots=Roots.of([tmp_path]), receipts=False)
    declared = (str(tmp_path / "mine"),)
    error = _error(agent, "context.overview", {"repo": str(tmp_path / "other")}, client_roots=declared)
    assert error["code"] == "forbidden" and "the roots the client declared" in error["message"], error
    error = _error(agent, "context.overview", {"repo": str(tmp_path / "mine")}, client_roots=declared)
    assert error["code"] == "not_a_repository", error


def test_a_worktree_face_reads_the_working_tree_where_the_caller_chose_no_rev(tmp_path):
    """`rennet mcp --worktree`: a call naming no rev, head, workspace or worktree answers from the
    working tree, uncommitted files included; one naming a rev reads that rev."""
    from corpora.gitbuild import RepoBuilder

    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({"a.py": "def committed():\n    return 1\n"})
    (builder.path / "b.py").write_text("def uncommitted():\n    return 2\n")
    face = Executor("mcp", store=str(tmp_path / "store"), roots=Roots.of([tmp_path]), worktree=True, receipts=False)
    reply = face.run("context.symbol", {"repo": str(builder.path), "name": "uncommitted"})
    assert reply.ok, reply.wire
    assert reply.wire["freshness"]["status"] == "worktree"
    assert [d["path"] for d in reply.wire["data"]["definitions"]] == ["b.py"]
    reply = face.run("context.symbol", {"repo": str(builder.path), "name": "committed", "rev": "HEAD"})
    assert reply.wire.get("freshness", {}).get("status") != "worktree", reply.wire
    # a face started without --worktree reads the rev, and over MCP a read never indexes one
    plain = Executor("mcp", store=str(tmp_path / "store"), roots=Roots.of([tmp_path]), receipts=False)
    assert _error(plain, "context.symbol", {"repo": str(builder.path), "name": "uncommitted"})["code"] == "not_indexed"
    # a command that takes no `worktree` is given none; no input at all is the empty object
    assert face.run("repo.snapshots", {"repo": str(builder.path)}).ok
    error = _error(face, "context.symbol", None)
    assert error["code"] == "bad_input" and "`name`" in error["message"], error


def test_no_input_is_an_empty_one_and_a_decoded_input_is_taken_as_it_is(python_face, tmp_path, monkeypatch):
    """Every field of `context.map` may be left out: no input at all (None) is the empty object,
    so its `repo` is the current folder; a Python caller's own input Struct is not decoded again."""
    from context_tools.faces.packs.context import MapInput

    monkeypatch.chdir(tmp_path)
    assert _error(python_face, "context.map", None)["code"] == "not_a_repository"
    given = MapInput(repo=str(tmp_path / "no-such-repo"), budget=1024)
    assert _error(python_face, "context.map", given)["code"] == "not_a_repository"
    for raw in (["not", "an", "object"], "map", 7):
        error = _error(python_face, "context.map", raw)
        assert error["code"] == "bad_input" and "input must be a JSON object, got " in error["message"], error


@pytest.mark.parametrize("lists", [JSON_MAX_DEPTH - 1, JSON_MAX_DEPTH, 100_000])
def test_input_nested_past_the_bound_is_bad_input_whatever_decoded_it(python_face, tmp_path, lists):
    """A Python caller's input (or `rennet call`'s) was decoded by no bounded parser: nested past
    `JSON_MAX_DEPTH` (the object itself one level) it is refused before the checks that recurse
    through it (a RecursionError would be `internal_error`); at the bound it is decoded."""
    deep: Any = "x"
    for _ in range(lists):
        deep = [deep]
    error = _error(python_face, "context.map", {"repo": str(tmp_path), "focus": deep})
    assert error["code"] == "bad_input", error
    said = f"input is nested more than {JSON_MAX_DEPTH} levels deep"
    assert (said in error["message"]) == (1 + lists > JSON_MAX_DEPTH), error


@pytest.mark.parametrize("field, value", [("limit", "5"), ("limit", 5.0), ("limit", True)])
def test_a_value_of_another_type_than_the_schemas_is_bad_input(python_face, tmp_path, field, value):
    """Decoding is strict: a field the schema declares an integer takes no string, float or
    boolean that reads as one (the MCP face reads a client's `"5"` as the schema declares it
    before this, `argument_types.as_declared`; the executor itself refuses it)."""
    error = _error(python_face, "context.symbol", {"repo": str(tmp_path / "no-such-repo"), "name": "f", field: value})
    assert error["code"] == "bad_input" and f"`$.{field}`" in error["message"], error


def test_a_command_not_served_on_a_face_is_unavailable_there_before_its_input_is_read(tmp_path):
    """`store.gc` runs on the CLI and in Python, never for an agent: over MCP it is `unavailable`,
    saying where it runs, whatever its input (the roots check never sees the path)."""
    agent = Executor("mcp", store=str(tmp_path / "store"), roots=Roots.of([tmp_path / "served"]), receipts=False)
    reply = agent.run("store.gc", {"no such field": "/elsewhere"})
    assert reply.wire["error"]["code"] == "unavailable", reply.wire
    assert reply.wire["error"]["reason"] == "surface_not_supported"
    assert reply.wire["error"]["available_on"] == ["cli", "python"]
