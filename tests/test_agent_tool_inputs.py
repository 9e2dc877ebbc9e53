"""Every agent tool, given any arguments an MCP client could send that pass its input schema,
answers with a result or a typed error: never `internal_error`, never an exception escaping
the executor the MCP server runs it through (`context_tools.faces.mcp.serve`). The arguments
are drawn from each tool's own input schema (`tests/schema_strategies.py`), mostly naming
what the fixture repository holds (its path, its revs, its symbols, a cursor a real reply
gave) so they reach deep code, and now and then anything else the schema admits.

Write tools run too. `dossier_build` reaches no network: no tracker is configured (no user
config, no `RENNET_*` tracker variable) and no `gh` is on PATH.

Run by hand with more examples, drawn afresh: `RENNET_FUZZ_EXAMPLES=500 pytest
tests/test_agent_tool_inputs.py --hypothesis-show-statistics` (the statistics tally the
answers' codes).
"""

from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from context_tools.faces.dispatch import Executor, Reply, encode_wire
from context_tools.faces.packs.dossier import TRUSTED_FLAGS
from context_tools.faces.registry import Command, registry
from context_tools.faces.roots import Roots
from tests.schema_checks import row_validator
from tests.schema_strategies import values_of
from tests.shop_repo import ODD, PATHS, SYMBOLS, index_shop, offline

# The codes an agent tool may answer these arguments with: each a failure a client can act on.
# The fixture's store is whole, on a disk with room, and no other process writes it: a store
# fault (`store_corrupt`, `store_error`, `busy`, ...) in answer to an argument would misname it.
TYPED = frozenset({
    "bad_input", "bad_cursor", "not_found", "not_indexed", "unknown_rev", "not_a_repository", "forbidden",
    "empty_repository", "missing_objects", "bad_tree", "no_merge_base", "path_outside_repository",
    "not_a_checkout", "unavailable",
})
TOOLS = registry().agent_tools()
# Examples a tool; more, and drawn afresh each run, when RENNET_FUZZ_EXAMPLES asks for them by hand.
FUZZ_EXAMPLES = int(os.environ.get("RENNET_FUZZ_EXAMPLES", "25"))
FRESH = "RENNET_FUZZ_EXAMPLES" in os.environ

@dataclass(frozen=True)
class Shop:
    root: str  # the server's one root: the folder holding the repository and the store
    repo: str
    store: str
    shas: tuple[str, ...]  # base, head, feature, merge
    blob: str  # a blob's oid: a rev naming no commit
    cursors: tuple[str, ...]  # cursors real replies gave
    executors: dict[str, Executor]  # of the servers `_executors` names


def _cursors(executor: Executor, shop_repo: str) -> tuple[str, ...]:
    asks = [("context.file", {"path": "src/shop/cart.py", "limit": 1}),
            ("context.overview", {"section": "top_files", "limit": 1}),
            ("context.references", {"name": "total", "limit": 1}),
            ("context.symbol", {"name": "Cart", "hierarchy": True, "limit": 1}),
            ("context.novelty", {"base": "v1", "section": "files", "limit": 1}),
            ("context.map", {"budget": 256}),
            ("repo.snapshots", {"limit": 1}),
            ("workspace.status", {"name": "ws", "limit": 1})]
    found = []
    for command, args in asks:
        if command != "workspace.status":
            args = {"repo": shop_repo, **args}
        reply = executor.run(command, args)
        page = reply.envelope.get("page") or {}
        if page.get("cursor"):
            found.append(page["cursor"])
    return tuple(found)


@pytest.fixture(scope="module")
def shop(tmp_path_factory) -> Any:
    """The fixture repository indexed at v1, main, feature and gone (HEAD~1 and the others left
    for `repo_index`), a workspace `ws` of it, and an environment that configures no tracker and
    has no `gh`, in the folder the server runs in: the repository's."""
    root = tmp_path_factory.mktemp("agent-inputs")
    repo, shas, blob, store = index_shop(root)
    python = Executor("python", store=store)
    assert python.run("workspace.create", {"name": "ws"}).ok
    assert python.run("workspace.add", {"name": "ws", "repo": repo, "rev": "main"}).ok
    with offline(root, store, cwd=repo):  # the folder the server runs in: a `repo` left out, or relative, is read from it
        executors = _executors(store, str(root))
        yield Shop(str(root), repo, store, shas, blob, _cursors(executors["plain"], repo), executors)


def _executors(store: str, root: str) -> dict[str, Executor]:
    """The executors `rennet mcp --root ROOT` runs calls through, as started plainly, with
    `--worktree`, and with the least `--ceiling` (most replies spilled to a file)."""
    from context_tools.faces.context import cache_budget
    from context_tools.faces.spill import MIN_CEILING, configured_ceiling

    def served(worktree: bool = False, ceiling: int | None = None) -> Executor:
        return Executor("mcp", store=store, ceiling=configured_ceiling(ceiling), roots=Roots.of([root]),
                        cache_bytes=cache_budget(None), worktree=worktree, settle="later")

    return {"plain": served(), "--worktree": served(worktree=True), "--ceiling": served(ceiling=MIN_CEILING)}


def _hints(shop: Shop, row: Command) -> Any:
    """Strings for each argument by its name: mostly what the fixture holds, now and then odd text."""
    repo = shop.repo
    shas = shop.shas
    revs = st.one_of(
        st.sampled_from(("HEAD", "HEAD~1", "HEAD^2", "HEAD^", "main", "main~1", "feature", "v1", "v1^{}",
                         "refs/heads/main", "refs/tags/v1", "WORKTREE", "v2", "v2^{}", "blobtag", "treetag", "gone",
                         "ü-branch", "a/b", "orphan", "feature@{1}", shas[1], "heads/" + shas[1])),
        st.sampled_from(shas), st.sampled_from(shas).map(lambda s: s[:7]),
        st.sampled_from(shas).map(lambda s: s.upper()), st.just(shop.blob), st.just("0" * 40),
        st.sampled_from(ODD), st.text(max_size=12),
        # revs that resolve however long they are: a rev is also a key of what is stored
        st.tuples(st.sampled_from(("HEAD", "main", "v1", "v2", shas[0])), st.sampled_from(("~0", "^0", "^{}", "^{commit}")),
                  st.sampled_from((1, 2, 50, 200, 300, 1000))).map(lambda t: t[0] + t[1] * t[2]))
    repos = st.one_of(
        st.just(repo), st.just(repo), st.just(repo), st.just(repo),
        st.sampled_from((repo + "/src", repo + "/src/shop", repo + "/.git", repo + "/.git/objects",
                         repo + "/src/shop/cart.py", repo + "/../repo", repo + "/", shop.root, shop.store,
                         shop.root + "/nope", "/", "/etc", "/tmp", ".", "..", "~", "")),
        st.sampled_from(ODD), st.text(max_size=12))
    names = st.one_of(st.sampled_from(SYMBOLS), st.sampled_from(ODD), st.text(max_size=12),
                      st.sampled_from(SYMBOLS).map(lambda s: s.lower()), st.just("a." * 511 + "a"))
    paths = st.one_of(st.sampled_from(PATHS), st.sampled_from(PATHS).map(lambda p: "./" + p),
                      st.sampled_from(("*.py", "**/*.py", "src/**", "src/*/cart.py", "[a-z]*", "*" * 200,
                                       "../src", "/etc/passwd", repo + "/src/shop/cart.py", "src//shop")),
                      st.sampled_from(ODD), st.text(max_size=12))
    cursors = st.one_of(st.sampled_from(shop.cursors), st.sampled_from(shop.cursors).map(lambda c: c[:-1]),
                        st.sampled_from(shop.cursors).map(lambda c: c + "x"),
                        st.sampled_from(shop.cursors).map(lambda c: c.replace(".", "..", 1)),
                        st.sampled_from(ODD), st.text(max_size=40)) if shop.cursors else st.text()
    files = st.one_of(st.sampled_from((repo + "/notes.py", repo + "/src", repo + "/.git/HEAD", "-", shop.root + "/nope",
                                       "/etc/passwd", "/dev/zero", repo + "/.git/objects")),
                      st.sampled_from(ODD), st.text(max_size=12))
    texts = st.one_of(st.sampled_from(("fixes #12", "SHOP-7 and GH-3", "see acme/other#5", "ABC-1 " * 200,
                                       "https://github.com/acme/other/issues/9", "www.example.com/x#1")),
                      st.text(max_size=40))
    by_name = {"repo": repos, "rev": revs, "base": revs, "head": revs, "previous_base": revs, "previous_head": revs,
               "name": names, "kind": st.one_of(st.sampled_from(("class", "function", "method", "struct")), names),
               "path": paths, "focus": st.one_of(paths, names), "paths": paths, "cursor": cursors,
               "workspace": st.one_of(st.just("ws"), st.just("ws"), st.sampled_from(ODD), st.text(max_size=8)),
               "member": st.one_of(st.just("repo"), st.sampled_from(ODD), st.text(max_size=8)),
               "body_file": files, "title": texts, "body": texts}

    if row.id.startswith("workspace."):
        by_name["name"] = by_name["workspace"]

    def hint(name: str) -> Any:
        return by_name.get(name)

    return hint


def declared_roots(shop: Shop) -> Any:
    """The roots a client declares: none mostly, else ones that hold the repository, narrow
    below it or name nothing."""
    return st.one_of(st.just(()), st.just(()), st.just(()),
                     st.lists(st.sampled_from((shop.root, shop.repo, shop.repo + "/src", shop.root + "/nope", "/")),
                              min_size=1, max_size=2).map(tuple))


def assert_typed(row: Command, reply: Reply) -> None:
    """The reply is the result contract: ok with data, or a typed error on one line."""
    envelope = reply.envelope
    assert envelope["command"] == row.id
    if envelope["ok"]:
        assert reply.error is None and set(envelope) == {"ok", "command", "data", "freshness", "page"}
        assert isinstance(envelope["data"], dict)
    else:
        assert set(envelope) == {"ok", "command", "error"}
        error = envelope["error"]
        assert error["code"] in TYPED, error
        message = error["message"]
        assert isinstance(message, str) and message and len(message.splitlines()) == 1, error
        assert not any(unicodedata.category(c) == "Cc" for c in message), error  # no terminal control either
    wire = encode_wire(reply.wire)  # what the MCP face sends: it encodes, and fits its output schema
    row_validator(row.id, "output").validate(reply.wire)
    assert wire


@pytest.mark.parametrize("row", TOOLS, ids=[row.wire_name for row in TOOLS])
@settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=not FRESH,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_any_arguments_the_schema_admits_get_a_result_or_a_typed_error(shop: Shop, row: Command, data) -> None:
    fixture, executors = shop, shop.executors
    schema = row.input_schema()
    arguments = data.draw(values_of(schema, _hints(fixture, row)), label="arguments")
    if row.id == "dossier.build" and data.draw(st.integers(0, 9), label="trusted settings") != 0:
        # any of these is `forbidden` over MCP before anything else: sent now and then
        arguments = {k: v for k, v in arguments.items() if k not in TRUSTED_FLAGS}
    row_validator(row.id, "input").validate(arguments)  # the SDK would have sent it on
    client_roots = data.draw(declared_roots(fixture), label="client_roots")
    server = data.draw(st.sampled_from(sorted(executors)), label="server")
    reply = executors[server].run(row.id, arguments, client_roots=client_roots)
    event(reply.envelope["error"]["code"] if not reply.ok else "ok")
    assert_typed(row, reply)
    cursor = (reply.envelope.get("page") or {}).get("cursor") if reply.ok else None
    if cursor and data.draw(st.booleans(), label="next page"):
        # the next page, as a client asks for it: the same arguments, or some of them changed
        changed = data.draw(values_of(schema, _hints(fixture, row)), label="changed")
        again = {**arguments, **data.draw(st.sampled_from([{}, changed]), label="next arguments"), "cursor": cursor}
        row_validator(row.id, "input").validate(again)
        reply = executors[server].run(row.id, again, client_roots=client_roots)
        event("next page: " + (reply.envelope["error"]["code"] if not reply.ok else "ok"))
        assert_typed(row, reply)


OTHER_TYPES = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=False),
                        st.text(max_size=8), st.lists(st.integers(), max_size=3),
                        st.dictionaries(st.text(max_size=4), st.integers(), max_size=2))


def _off_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values of a property's schema just past what it admits, or of another type."""
    branches = schema.get("anyOf", [schema])
    near: list[Any] = []
    for branch in branches:
        if "maxLength" in branch:
            near.append("x" * (branch["maxLength"] + 1))
        if branch.get("minLength", 0) > 0:
            near.append("")
        if "minimum" in branch:
            near.append(branch["minimum"] - 1)
        if "maximum" in branch:
            near.append(branch["maximum"] + 1)
        if "maxItems" in branch:
            near.append(["x"] * (branch["maxItems"] + 1))
        if "enum" in branch:
            near.append("not-" + str(branch["enum"][0]))
        if "pattern" in branch:
            near.append("12q")
        if branch.get("type") == "integer":
            near.append(1.5)
    return st.one_of(st.sampled_from(near), OTHER_TYPES) if near else OTHER_TYPES


@pytest.mark.parametrize("row", TOOLS, ids=[row.wire_name for row in TOOLS])
@settings(max_examples=max(10, FUZZ_EXAMPLES // 2), deadline=None, derandomize=not FRESH,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_arguments_the_schema_refuses_are_bad_input_sent_straight_to_the_executor(shop: Shop, row: Command,
                                                                                  data) -> None:
    """The SDK refuses such arguments before our code; a face that does not (a reader process, a
    Python caller) still gets `bad_input`, never `internal_error`."""
    fixture, executors = shop, shop.executors
    schema = row.input_schema()
    arguments = data.draw(values_of(schema, _hints(fixture, row)), label="valid arguments")
    properties = schema["properties"]
    how = data.draw(st.sampled_from(("value", "value", "value", "unknown key", "missing", "not an object")),
                    label="how")
    bad: Any
    if how == "value":
        name = data.draw(st.sampled_from(sorted(properties)), label="property")
        bad = {**arguments, name: data.draw(_off_schema(properties[name]), label="value")}
    elif how == "unknown key":
        bad = {**arguments, data.draw(st.text(max_size=8).filter(lambda k: k not in properties)): 1}
    elif how == "missing" and schema.get("required"):
        bad = {k: v for k, v in arguments.items() if k != schema["required"][0]}
    else:
        bad = data.draw(st.one_of(st.lists(st.integers(), max_size=2), st.text(max_size=4), st.integers(),
                                  st.booleans()), label="not an object")
    if jsonschema.Draft202012Validator(schema).is_valid(bad):
        return  # the value drawn happens to fit (a text where a text may be): nothing to refuse
    reply = executors["plain"].run(row.id, bad)
    assert not reply.ok and reply.envelope["error"]["code"] == "bad_input", reply.envelope
    message = reply.envelope["error"]["message"]
    assert len(message.splitlines()) == 1 and not any(unicodedata.category(c) == "Cc" for c in message)

