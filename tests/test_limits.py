"""`$RENNET_LIMITS`: a user moves how much one snapshot may hold; a repository never can. A bad
setting is `bad_input` naming the variable, told before any work."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpora.gitbuild import RepoBuilder
from indexer.contract.errors import BadInput
from indexer.contract.limits import DEFAULT, HIGHEST, NAMES, Limits, in_force, limits, parse_limits
from indexer.contract.sizes import show
from tests.examples import examples
from tests.test_context_world import ROOT
from tests.test_hostile_inputs import one_typed_line, rennet


def test_each_limit_is_moved_by_name_and_the_rest_keep_their_defaults():
    assert parse_limits("symbols=32M, imports=5000000,files=2k", what="x") == Limits(
        files=2048, path_chars=DEFAULT.path_chars, symbols=32 << 20, imports=5_000_000,
        manifest_bytes=DEFAULT.manifest_bytes, manifest_items=DEFAULT.manifest_items,
        attribute_rules=DEFAULT.attribute_rules, attribute_tries=DEFAULT.attribute_tries)
    for name in NAMES:  # each may go up or down, within 1..1024G
        assert getattr(parse_limits(f"{name}=1", what="x"), name) == 1
        assert getattr(parse_limits(f"{name}=1024G", what="x"), name) == HIGHEST


@pytest.mark.parametrize("text,said", [
    ("symbol=32M", "'symbol=32M' is not name=size"),
    ("symbols", "'symbols' is not name=size"),
    ("symbols=32M,symbols=64M", "symbols is given twice"),
    ("symbols=0", "symbols '0' is 0 bytes: give 1 to 1024G"),
    ("symbols=1025G", "give 1 to 1024G"),
    ("symbols=-1", "is not a size"),
    ("symbols=1.5M", "is not a size"),
    ("symbols=32M,", "'' is not name=size"),
    ("files=1," * 100_000, "files is given twice"),
])
def test_a_bad_setting_is_bad_input_naming_the_variable(text, said):
    with pytest.raises(BadInput) as caught:
        parse_limits(text, what="$RENNET_LIMITS")
    message = caught.value.message
    assert message.startswith("$RENNET_LIMITS") and said in message and len(message) < 300


@settings(max_examples=examples(200), deadline=None)
@given(st.text(max_size=80) | st.lists(st.sampled_from([*NAMES, "=", ",", "1", "k", "M", "G", " ", "x"]),
                                       max_size=20).map("".join))
def test_any_setting_is_limits_or_bad_input(text):
    try:
        chosen = parse_limits(text, what="$RENNET_LIMITS")
    except BadInput:
        return
    assert all(1 <= getattr(chosen, name) <= HIGHEST for name in NAMES)


def test_the_environment_moves_the_limits_and_a_block_in_force_outranks_it(monkeypatch):
    monkeypatch.delenv("RENNET_LIMITS", raising=False)
    assert limits() == DEFAULT
    monkeypatch.setenv("RENNET_LIMITS", "imports=8M")
    assert limits().imports == 8 << 20
    with in_force(DEFAULT):
        assert limits() == DEFAULT
    assert limits().imports == 8 << 20
    monkeypatch.setenv("RENNET_LIMITS", "imports=eight")
    with pytest.raises(BadInput, match="RENNET_LIMITS imports"):
        limits()


def _index(repo, rev, home, setting: str | None):
    before = os.environ.get("RENNET_LIMITS")
    try:
        if setting is None:
            os.environ.pop("RENNET_LIMITS", None)
        else:
            os.environ["RENNET_LIMITS"] = setting
        return rennet("index", str(repo), "--rev", rev, home=home)
    finally:
        if before is None:
            os.environ.pop("RENNET_LIMITS", None)
        else:
            os.environ["RENNET_LIMITS"] = before


def test_a_user_raising_a_limit_indexes_what_the_limit_refused_and_the_snapshot_serves_after(tmp_path):
    """Six files in three folders: `files=5` refuses them (`bad_tree`, naming the setting that
    doubles the limit), `files=6` indexes them, and the stored snapshot answers under the
    defaults as under the raised limit."""
    b = RepoBuilder(tmp_path / "repo")
    b.commit({f"d{i}/m{j}.py": f"def f{i}{j}():\n    pass\n" for i in range(3) for j in range(2)})
    home = tmp_path / "home"
    refused = _index(tmp_path / "repo", "main", home, "files=5")
    one_typed_line(refused, "bad_tree")
    assert "holds over 5 files, the most a snapshot holds ($RENNET_LIMITS=files=10 raises it)" in refused.stderr
    assert _index(tmp_path / "repo", "main", home, "files=6").returncode == 0
    answer = rennet("context", "symbol", "f21", "--repo", str(tmp_path / "repo"), "--rev", "main", "--json",
                    home=home)
    assert answer.returncode == 0, answer.stderr
    assert json.loads(answer.stdout)["data"]["definitions"][0]["path"] == "d2/m1.py"


@pytest.mark.parametrize("words", [["index"], ["call", "context.map", "{}"], ["context", "overview", "--json"]])
def test_a_bad_setting_stops_a_command_before_it_reads_anything(tmp_path, words):
    b = RepoBuilder(tmp_path / "repo")
    b.commit({"a.py": "x = 1\n"})
    home = tmp_path / "home"
    env = {**os.environ, "RENNET_HOME": str(home), "PYTHONPATH": str(ROOT), "RENNET_LIMITS": "symbols=lots"}
    out = subprocess.run([sys.executable, "-m", "context_tools.faces.cli", *words], env=env,
                         cwd=str(tmp_path / "repo"), capture_output=True, text=True, timeout=120)
    one_typed_line(out, "bad_input")
    assert "$RENNET_LIMITS symbols 'lots' is not a size" in out.stderr
    if words[0] == "call" or "--json" in words:
        assert json.loads(out.stdout)["error"]["code"] == "bad_input"
    assert not (home / "data.mdb").exists() and not any(home.glob("**/*.mdb"))  # no store made or opened


def test_a_bad_setting_keeps_the_mcp_server_from_starting(tmp_path):
    env = {**os.environ, "RENNET_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT),
           "RENNET_LIMITS": "files=1,files=2"}
    out = subprocess.run([sys.executable, "-m", "context_tools.faces.cli", "mcp", "--root", str(tmp_path)],
                         env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert out.returncode == 1 and out.stderr == "rennet: bad_input: $RENNET_LIMITS: files is given twice\n"


def _documented_defaults() -> dict[str, int]:
    """The defaults as docs/limits.md's table gives them: `| `name` | 1M (1,048,576) | ...`."""
    text = (ROOT / "docs" / "limits.md").read_text()
    rows = re.findall(r"^\| `(\w+)` \| \w+ \(([\d,]+)\) \|", text, re.M)
    return {name: int(figure.replace(",", "")) for name, figure in rows}


def test_the_defaults_are_the_documented_ones():
    assert _documented_defaults() == {name: getattr(DEFAULT, name) for name in NAMES}


@pytest.mark.parametrize("name", NAMES)
def test_a_refusal_names_the_setting_that_doubles_the_limit_up_to_1024g(name):
    assert DEFAULT.raise_hint(name) == f"$RENNET_LIMITS={name}={show(2 * getattr(DEFAULT, name))} raises it"
    for at, doubled in ((1, "2"), (3 << 10, "6k"), (HIGHEST // 2, "1024G"), (HIGHEST // 2 + 1, "1024G"),
                        (HIGHEST, "1024G")):
        assert replace(DEFAULT, **{name: at}).raise_hint(name) == f"$RENNET_LIMITS={name}={doubled} raises it"
    assert DEFAULT.raise_hint("imports") == "$RENNET_LIMITS=imports=8M raises it"  # docs/limits.md's example


def test_a_setting_is_split_at_most_once_a_name():
    """Past as many parts as there are limits, the rest is one part, refused whole: a setting of
    a million commas costs no more than one of nine parts."""
    every = ",".join(f"{name}=1" for name in NAMES)
    with pytest.raises(BadInput, match=r"'x,y,z' is not name=size"):
        parse_limits(every + ",x,y,z", what="$RENNET_LIMITS")
    with pytest.raises(BadInput, match=r"'x' is not name=size"):
        parse_limits(",".join(f"{name}=1" for name in NAMES[:-1]) + ",x,y,z", what="$RENNET_LIMITS")
    assert parse_limits(every, what="$RENNET_LIMITS") == Limits(*[1] * len(NAMES))


@pytest.mark.parametrize("length", [39, 40, 41])
def test_a_part_that_is_not_name_size_is_quoted_up_to_40_characters(length):
    part = "x" * length
    with pytest.raises(BadInput) as caught:
        parse_limits(part, what="$RENNET_LIMITS")
    shown = repr(part) if length <= 40 else repr("x" * 40 + "...")
    assert caught.value.message.startswith(f"$RENNET_LIMITS: {shown} is not name=size")
