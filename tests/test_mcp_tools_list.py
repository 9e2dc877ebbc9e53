"""The first `tools/list` of a fresh server reads each tool's output schema from its shipped file
(`context_tools/faces/schemas`) rather than importing every output type to derive it: the list a
server sends is, byte for byte, the one the types give now (docs/agents.md, "What the tools cost
a context")."""

from __future__ import annotations

import json
from typing import Any

import pytest

from context_tools.faces.registry import registry
from tests.mcp_clients import INIT, RawStdio, python_prepared  # noqa: F401 - fixture


def _text(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tools, each output schema as its JSON text: the SDK writes that schema as the face
    made it, key order included, where it orders the keys of a tool's other parts its own way."""
    return [{**tool, "outputSchema": json.dumps(tool["outputSchema"], ensure_ascii=False)} for tool in tools]


def _derived(worktree: bool) -> list[dict[str, Any]]:
    """The tools of `tools/list` derived from the types, as the SDK dumps them."""
    from context_tools.faces.mcp import tool_list

    return _text([tool.model_dump(by_alias=True, mode="json", exclude_none=True)
                  for tool in tool_list(registry(), worktree, derived=True)])


@pytest.mark.parametrize("worktree", [False, True])
def test_the_served_list_is_the_one_the_types_give(worktree, tmp_path):
    """A stale shipped file, or a list that read its files otherwise than the types give them
    (another key order in an output schema included: its text is compared), fails here."""
    server = RawStdio(str(tmp_path / "home"), "--root", str(tmp_path), *(("--worktree",) if worktree else ()))
    try:
        answers = server([json.dumps(INIT).encode(), b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
                          b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}'], {1, 2})
        listed = next(a for a in answers if a.get("id") == 2)
        assert list(listed["result"]) == ["tools"], listed
        assert _text(listed["result"]["tools"]) == _derived(worktree)
        server.close()
    finally:
        server.kill()
