"""Sizes in bytes (`indexer.contract.sizes`): one parser behind `context.map`'s budget on
the CLI, `rennet call`, MCP (the SDK's client over stdio) and the Python face, and behind
`rennet mcp --ceiling` / `--cache-bytes`."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import context_tools
from context_tools.faces.registry import registry
from indexer.contract.errors import BadInput, RennetError
from indexer.contract.sizes import SIZE_PATTERN, parse_size, show
from tests.examples import examples
from tests.mcp_clients import python_prepared  # noqa: F401 - fixture
from tests.test_context_world import PY, ROOT, World, cli_env, world  # noqa: F401 - fixture

HIGH = 1 << 40
UNIT = {"": 1, "k": 1024, "K": 1024, "m": 1 << 20, "M": 1 << 20, "g": 1 << 30, "G": 1 << 30}


@settings(max_examples=examples(200), deadline=None)
@given(st.integers(min_value=0, max_value=1024), st.sampled_from(sorted(UNIT)))
def test_a_number_with_a_suffix_is_that_many_powers_of_1024(n, unit):
    assert parse_size(f"{n}{unit}", what="x", high=HIGH) == n * UNIT[unit]


@settings(max_examples=examples(200), deadline=None)
@given(st.integers(min_value=0, max_value=HIGH))
def test_an_integer_or_its_shortest_spelling_reads_back_as_itself(n):
    assert parse_size(n, what="x", high=HIGH) == n
    assert parse_size(show(n), what="x", high=HIGH) == n
    assert re.match(SIZE_PATTERN, show(n))


@settings(max_examples=examples(200), deadline=None)
@given(st.one_of(st.text(max_size=30), st.integers(min_value=-(1 << 80), max_value=1 << 80), st.floats(),
                 st.booleans(), st.none(), st.recursive(st.integers() | st.text(max_size=5),
                                                        lambda inner: st.lists(inner, max_size=3)
                                                        | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                                                        max_leaves=8)),
       st.integers(min_value=0, max_value=1 << 20), st.integers(min_value=0, max_value=1 << 30))
def test_anything_else_is_bad_input_never_another_exception(value, low, span):
    high = low + span
    try:
        size = parse_size(value, what="budget", low=low, high=high)
    except BadInput as exc:
        assert "\n" not in exc.message and exc.message.startswith("budget")
        return
    assert isinstance(size, int) and low <= size <= high
    assert isinstance(value, str) and re.match(SIZE_PATTERN, value) or type(value) is int


@pytest.mark.parametrize("bad", ["12x", "-5", "1.5k", "4 k", "4kB", "4KiB", "", "k", "0x10", "٣k", "4k\n", "9" * 40])
def test_what_is_not_a_size_is_named_with_the_field(bad):
    with pytest.raises(BadInput, match=r"^bad_input: budget '.*' is not a size: give a whole number of bytes"):
        parse_size(bad, what="budget", high=HIGH)


def test_a_size_past_the_range_names_both_ends_in_its_shortest_spelling():
    with pytest.raises(BadInput, match=r"budget '65k' is 66560 bytes: give 256 to 64k$"):
        parse_size("65k", what="budget", low=256, high=65536)
    with pytest.raises(BadInput, match=r"is 100 bytes"):
        parse_size(100, what="budget", low=256, high=65536)


# --- the budget of context.map, through every face -------------------------------------------

def test_the_advertised_budget_schema_takes_both_spellings_and_describes_itself_at_the_top():
    prop = registry().get("context.map").input_schema()["properties"]["budget"]
    assert "bytes" in prop["description"] and "1024" in prop["description"]
    assert [b.get("type") for b in prop["anyOf"]] == ["integer", "string", "null"]
    assert all("description" not in b for b in prop["anyOf"])
    schema = {"type": "object", "properties": {"budget": prop}}
    for good in (4096, "64k", "64K", "16384", None):
        jsonschema.validate({"budget": good}, schema)
    for bad in ("12x", "4 k", 1.5, [], {"a": 1}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"budget": bad}, schema)


def test_python_face_reads_k_as_1024_bytes_and_answers_bad_values_with_bad_input(world: World):
    client = context_tools.Client(store=world.store)
    spelled = client.call("context.map", repo=world.repo, budget="1k")
    plain = client.call("context.map", repo=world.repo, budget=1024)
    assert spelled.data.budget == 1024 and spelled.data == plain.data
    for bad in ("12x", "65k", -1, {"nested": ["junk"]}, True):
        with pytest.raises(RennetError) as caught:
            client.call("context.map", repo=world.repo, budget=bad)
        assert caught.value.code == "bad_input" and "budget" in caught.value.message


def _cli(store: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", "context_tools.faces.cli", *args], cwd=ROOT, env=cli_env(store),
                          capture_output=True, text=True, timeout=120)


def test_cli_budget_takes_k_and_refuses_bad_sizes_as_usage_errors(world: World):
    ok = _cli(world.store, "context", "map", "--repo", world.repo, "--budget", "2K", "--json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["data"]["budget"] == 2048
    for bad in ("12x", "-5", "1", "65k", "99999999999999999999"):  # "1": below the floor
        p = _cli(world.store, "context", "map", "--repo", world.repo, f"--budget={bad}", "--json")
        assert p.returncode == 2, (bad, p.stderr)
        assert json.loads(p.stdout)["error"]["code"] == "usage_error"
        assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1
        assert "--budget" in p.stderr


def test_rennet_call_budget_takes_k_and_answers_bad_sizes_in_its_envelope(world: World):
    ok = _cli(world.store, "call", "context.map", json.dumps({"repo": world.repo, "budget": "2k"}))
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["data"]["budget"] == 2048
    for bad in ("12x", -5, "65k", {"a": [[{"b": 1}]]}):
        p = _cli(world.store, "call", "context.map", json.dumps({"repo": world.repo, "budget": bad}))
        assert p.returncode == 1 and "Traceback" not in p.stderr
        error = json.loads(p.stdout)["error"]
        assert error["code"] == "bad_input" and "budget" in error["message"], error


def test_mcp_budget_and_ceiling_take_k_over_the_sdk_client(world: World):
    from tests.mcp_clients import run_stdio, text_of

    async def maps(client):
        tools = {t.name: t for t in (await client.list_tools()).tools}
        spelled = await client.call_tool("context_map", {"repo": world.repo, "budget": "2k"})
        bad = {str(v): await client.call_tool("context_map", {"repo": world.repo, "budget": v})
               for v in ("12x", -5, "65k", {"a": [1]})}
        return tools, spelled, bad

    async def file(client):
        return await client.call_tool("context_file", {"repo": world.repo, "path": "src/webapp/app.py"})

    root = str(Path(world.repo).parent)
    tools, spelled, bad = run_stdio(world.store, maps, root=root)
    prop = tools["context_map"].input_schema["properties"]["budget"]
    assert prop == registry().get("context.map").listed_schema()["properties"]["budget"]
    body = text_of(spelled)  # within the default ceiling: the map of the budget as spelled
    assert spelled.is_error is False and body["ok"] is True and body["data"]["budget"] == 2048
    jsonschema.validate(body, tools["context_map"].output_schema)
    for value, result in bad.items():
        error = text_of(result)["error"]
        assert result.is_error is True and error["code"] == "bad_input" and "budget" in error["message"], value
    # at a ceiling of 1k even one line and the outline's first item pass it: spilled, with the
    # outline's cursor
    big = run_stdio(world.store, file, "--ceiling", "1k", root=root)
    assert set(big.structured_content) == {"head", "note", "path", "bytes", "cursors"}
    assert len(big.content[0].text.encode()) <= 1024


@pytest.mark.parametrize("flag, value", [("--ceiling", "12x"), ("--ceiling", "100"), ("--ceiling", "2G"),
                                         ("--cache-bytes", "-1"), ("--cache-bytes", "2048G")])
def test_rennet_mcp_refuses_a_bad_size_before_serving(flag, value, tmp_path):
    p = _cli(str(tmp_path), "mcp", flag, value)
    assert p.returncode == 1 and p.stderr.startswith(f"rennet: bad_input: {flag} '{value}'"), p.stderr
    assert "Traceback" not in p.stderr


# --- the spelling's own bounds (docs/agents.md "Sizes": `^[0-9]{1,15}[kKmMgG]?$`) -------------

@pytest.mark.parametrize("text, size", [
    ("9" * 15, 10**15 - 1), ("0" * 14 + "1k", 1024), ("9" * 15 + "G", (10**15 - 1) << 30), ("0" * 15, 0)])
def test_fifteen_digits_with_or_without_a_suffix_are_a_size(text, size):
    assert parse_size(text, what="x", high=1 << 80) == size


@pytest.mark.parametrize("text", ["1" * 16, "0" * 15 + "1", "1" * 16 + "k", "0" * 16 + "G"])
def test_sixteen_digits_are_not_a_size_whatever_their_value(text):
    with pytest.raises(BadInput, match="is not a size"):
        parse_size(text, what="x", high=1 << 80)


@settings(max_examples=examples(200), deadline=None)
@given(st.text(alphabet="0123456789kKmMgGx-. ", max_size=20))
def test_the_parser_reads_just_the_strings_the_schemas_pattern_admits(text):
    """What the schema advertises and what the parser reads are the same strings: a client that
    passes the pattern is never told its size is not one."""
    try:
        parse_size(text, what="x", high=1 << 80)
    except BadInput as exc:
        admitted = "is not a size" not in exc.message
    else:
        admitted = True
    assert admitted == (re.search(SIZE_PATTERN, text) is not None)


@pytest.mark.parametrize("low, high", [(0, 0), (1, 1), (256, 65536), (1, 1 << 40)])
def test_a_range_takes_both_its_ends_and_refuses_one_past_either(low, high):
    assert parse_size(low, what="x", low=low, high=high) == low
    assert parse_size(show(high), what="x", low=low, high=high) == high
    for outside in (low - 1, high + 1):
        with pytest.raises(BadInput, match=f"is {outside} bytes: give {show(low)} to {show(high)}$"):
            parse_size(outside, what="x", low=low, high=high)


def test_a_size_is_a_whole_number_from_zero_unless_the_field_says_more():
    assert parse_size(0, what="x", high=10) == 0 and parse_size("0k", what="x", high=10) == 0
    with pytest.raises(BadInput, match="must be a whole number of bytes"):
        parse_size(True, what="x", high=10)


@pytest.mark.parametrize("size, spelled", [(0, "0"), (1, "1"), (1023, "1023"), (1024, "1k"), (1025, "1025"),
                                           (3 << 10, "3k"), (1 << 20, "1M"), ((1 << 20) + 1024, "1025k"),
                                           (1 << 30, "1G"), (1 << 40, "1024G"), (5 << 30, "5G")])
def test_a_size_is_shown_in_its_shortest_spelling(size, spelled):
    assert show(size) == spelled


def test_a_setting_given_as_an_option_outranks_its_variable_even_at_zero(monkeypatch):
    from indexer.contract.sizes import configured_size

    monkeypatch.setenv("RENNET_TEST_SIZE", "5k")
    assert configured_size(0, option="--x", variable="RENNET_TEST_SIZE", default=7, low=0, high=1 << 20) == 0
    assert configured_size(None, option="--x", variable="RENNET_TEST_SIZE", default=7, low=0, high=1 << 20) == 5120
    monkeypatch.setenv("RENNET_TEST_SIZE", "0")
    with pytest.raises(BadInput, match=r"^bad_input: \$RENNET_TEST_SIZE '0' is 0 bytes: give 1 to 1M$"):
        configured_size(None, option="--x", variable="RENNET_TEST_SIZE", default=7, low=1, high=1 << 20)
    monkeypatch.setenv("RENNET_TEST_SIZE", "")
    assert configured_size(None, option="--x", variable="RENNET_TEST_SIZE", default=7, low=1, high=1 << 20) == 7


@pytest.mark.parametrize("length", [23, 24, 25])
def test_a_value_that_is_not_a_size_is_quoted_up_to_24_characters(length):
    value = "x" * length
    with pytest.raises(BadInput) as caught:
        parse_size(value, what="budget", high=HIGH)
    shown = repr(value) if length <= 24 else repr("x" * 24 + "...")
    assert caught.value.message.startswith(f"budget {shown} is not a size")
