"""A name a repository chose (a path, a symbol, a ref) shows in a text rendering as git quotes a
path: bare when nothing in it needs escaping, else quoted with C escapes, so two names never
show the same (`a<LF>b.py`, `a b.py` and the literal `a\\nb.py` are three files, and three
lines)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from context_tools.faces.sanitize import shown_name
from tests.examples import examples

ROOT = Path(__file__).resolve().parent.parent

_ESCAPE = re.compile(r'\\(?:x([0-9a-f]{2})|u([0-9a-f]{4})|(.))', re.S)
_SIMPLE = {"\\": "\\", '"': '"', "n": "\n", "t": "\t", "r": "\r"}
_UNSHOWN = set("\u061c\u200e\u200f\u2028\u2029") | {chr(c) for c in range(0x202a, 0x202f)} | {
    chr(c) for c in range(0x2066, 0x206a)}
# what draws as a space, or as nothing, unlike what it is: never shown as itself in a name
_LOOKALIKES = set("\u00a0\u00ad\u1680\u180e\u202f\u205f\u3000\ufeff") | {chr(c) for c in range(0x2000, 0x200e)} | {
    chr(c) for c in range(0x2060, 0x2065)}


def _read(shown: str) -> tuple[str, bool]:
    """The name a rendering shows (a reader's side of the rule) and whether it was cut."""
    if not shown.startswith('"'):
        assert "\\" not in shown and shown == shown.strip() and "  " not in shown and shown
        return shown, False
    cut = shown.endswith('"…')
    body = shown[1:-2] if cut else shown[1:-1]
    assert shown.endswith('"…' if cut else '"') and not re.search(r'(?<!\\)(?:\\\\)*"', body), shown

    def one(m: re.Match[str]) -> str:
        if m.group(3) is not None:
            assert m.group(3) in _SIMPLE, shown  # no escape but these
            return _SIMPLE[m.group(3)]
        return chr(int(m.group(1) or m.group(2), 16))

    return _ESCAPE.sub(one, body), cut


_NAMES = st.text(alphabet=st.one_of(st.characters(), st.sampled_from(
    sorted(_UNSHOWN | _LOOKALIKES) + ["\x85", "\x9b", "\x1b", "\n", "\\", '"', " ", "\t", "\u3000", "n", "x", "…"])), max_size=40)


@settings(max_examples=examples(250), deadline=None)
@given(_NAMES, _NAMES)
def test_two_names_never_show_the_same_and_no_rendering_breaks_a_line(a, b):
    for name in (a, b):
        shown = shown_name(name)
        assert not any(unicodedata.category(ch) == "Cc" or ch in _UNSHOWN | _LOOKALIKES for ch in shown), shown
        assert len(shown.splitlines()) == 1
        assert _read(shown) == (name, False)  # what is shown reads back as the name, whole
    if a != b:
        assert shown_name(a) != shown_name(b)


@settings(max_examples=examples(200), deadline=None)
@given(_NAMES, st.integers(min_value=8, max_value=30))
def test_a_cut_name_says_it_is_cut_and_shows_what_it_starts_with(name, limit):
    shown = shown_name(name, limit)
    assert len(shown) <= limit
    start, cut = _read(shown)
    assert name.startswith(start)
    assert cut == (start != name)  # a cut never reads as a whole name, and a whole name is never marked cut


@settings(max_examples=examples(100), deadline=None)
@given(st.text(alphabet="abc/._-", min_size=1, max_size=30), st.integers(min_value=8, max_value=30))
def test_a_bare_name_as_long_as_the_limit_shows_whole_and_one_longer_cut(name, limit):
    """Only a name longer than the limit is cut: one of the limit's length, holding nothing that
    needs quotes, shows bare and whole, as at the default limit of 240."""
    whole = (name * limit)[:limit]
    assert shown_name(whole, limit) == whole
    assert shown_name(whole + "a", limit).endswith('"…')
    assert shown_name("a" * 240) == "a" * 240 and shown_name("a" * 241).endswith('"…')


def test_the_three_files_of_the_fault_show_as_git_shows_them():
    assert [shown_name(n) for n in ("a\nb.py", "a b.py", "a\\nb.py")] == ['"a\\nb.py"', "a b.py", '"a\\\\nb.py"']


def test_a_name_that_draws_like_another_is_quoted_with_its_escape():
    """A no-break space draws as a space, a zero-width space or a byte order mark as nothing
    (was: shown as they are, `a\u00a0b.py` drawn as `a b.py`)."""
    assert [shown_name(n) for n in ("a\u00a0b.py", "a\u200bb.py", "\ufeffa.py", "a b.py")] == [
        '"a\\xa0b.py"', '"a\\u200bb.py"', '"\\ufeffa.py"', "a b.py"]


def test_an_ordinary_name_shows_bare():
    for name in ("src/app.py", "a b.py", "Foo.bar", "café/naïve.py", "x…", "docs/sk-learn-compatibility.md",
                 "notes/Bearer tokens.md", "config/token=abc.py"):
        assert shown_name(name) == name


def test_spacing_at_an_end_or_in_a_run_is_kept_in_quotes():
    assert [shown_name(n) for n in (" a.py", "a.py ", "a  b.py", "", '"a".py')] == [
        '" a.py"', '"a.py "', '"a  b.py"', '""', '"\\"a\\".py"']


def test_a_long_name_is_cut_inside_its_quotes_and_never_inside_an_escape():
    assert shown_name("a" * 30, 12) == '"aaaaaaaaa"…'
    assert shown_name("ab\x1bcdef", 9) == '"ab\\x1b"…'
    assert shown_name("ab\x1bcdef", 8) == '"ab"…'  # `\x1b` whole or not at all
    assert shown_name("ab\x1bcd", 10) == '"ab\\x1bcd"'


# --- through the CLI -----------------------------------------------------------------------

_FILES = ("a\nb.py", "a b.py", "a\\nb.py", "a  b.py")
# as `git -c core.quotePath=true ls-files` shows them
_AS_GIT = {"a\nb.py": '"a\\nb.py"', "a b.py": "a b.py", "a\\nb.py": '"a\\\\nb.py"', "a  b.py": '"a  b.py"'}


@pytest.fixture(scope="module")
def named(tmp_path_factory):
    from corpora.gitbuild import RepoBuilder

    root = tmp_path_factory.mktemp("names")
    repo = RepoBuilder(root / "repo")
    repo.commit({"main.py": "def helper():\n    return 0\n"})
    repo.commit({path: "from main import helper\n\n\ndef twin():\n    return helper()\n" for path in _FILES})
    return root / "repo", root / "home"


def _rennet(repo: Path, home: Path, *args: str, encoding: str = "utf-8") -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RENNET_HOME": str(home), "PYTHONIOENCODING": encoding}
    env.pop("RENNET_DEBUG", None)
    done = subprocess.run([sys.executable, "-m", "context_tools.faces.cli", *args], cwd=repo, env=env,
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.decode(encoding)


def _top_files(lines: list[str]) -> list[str]:
    top = lines[lines.index("top files (5):") + 1:][:5]
    return [line.removeprefix("  ").rsplit(" rank ", 1)[0] for line in top]


def _after(lead: str, end: str = "") -> Callable[[list[str]], list[str]]:
    """The paths of the lines starting with `lead`, each up to `end`."""
    return lambda lines: [line.removeprefix(lead).split(end)[0] if end else line.removeprefix(lead)
                          for line in lines if line.startswith(lead)]


# each rendering, and how to read the paths of the changed files off it
_RENDERINGS = {
    "map": (("context", "map"), lambda lines: [line.split("  (python")[0] for line in lines if "  (python" in line]),
    "overview": (("context", "overview"), _top_files),
    "delta": (("delta", "--base", "HEAD~1", "--head", "HEAD"), _after("  added        ", "  hunks ")),
    "references": (("context", "references", "helper"),
                   lambda lines: [line.split(":5:12  call")[0] for line in lines if ":5:12  call" in line]),
    "novelty": (("context", "novelty", "HEAD~1"), lambda lines: [  # its symbols' lines, not its public API's
        line.removeprefix("  added function twin ").removesuffix(":4") for line in lines
        if line.startswith("  added function twin ") and line.endswith(":4")]),
    "novelty section": (("context", "novelty", "HEAD~1", "--section", "files"), _after("  - path: ")),
    "symbol": (("context", "symbol", "twin"), lambda lines: [line.split(":4  function twin")[0] for line in lines
                                                             if ":4  function twin" in line]),
}


@pytest.mark.parametrize("rendering", sorted(_RENDERINGS))
def test_every_text_rendering_tells_the_files_apart_as_git_does(named, rendering):
    """Four files whose names differ only by a line feed, a backslash and spacing: each text
    rendering names each as git quotes it, and no two the same (was: map showed `a\\nb.py` for
    two of them, overview `a b.py` for three, delta `a\\nb.py` for two)."""
    repo, home = named
    args, read = _RENDERINGS[rendering]
    shown = [p for p in read(_rennet(repo, home, *args).splitlines()) if p != "main.py"]
    assert sorted(shown) == sorted(_AS_GIT.values())


@pytest.mark.parametrize("path", sorted(_FILES))
def test_a_files_first_line_names_it_as_git_does(named, path):
    repo, home = named
    first = _rennet(repo, home, "context", "file", path).splitlines()[0]
    assert first.startswith(f"{_AS_GIT[path]}  python  mode 100644"), first


def test_a_name_the_output_encoding_lacks_is_not_read_as_a_name_holding_its_escape(tmp_path):
    """Standard output in ASCII writes `ü` as `\\xfc`: a file `ü.py` shows bare as `\\xfc.py`,
    one named `\\xfc.py` (a backslash, then x, f, c) quoted, so still two names (was: both
    `\\xfc.py`)."""
    from corpora.gitbuild import RepoBuilder

    RepoBuilder(tmp_path / "repo").commit({"\u00fc.py": "x = 1\n", "\\xfc.py": "y = 2\n"})
    lines = _rennet(tmp_path / "repo", tmp_path / "home", "context", "map", encoding="ascii").splitlines()
    assert sorted(line.split("  (python")[0] for line in lines if "  (python" in line) == ['"\\\\xfc.py"', "\\xfc.py"]


def test_a_path_is_shown_exactly_neither_redacted_nor_put_under_home(tmp_path):
    """A tree's path is no operator's secret or place: it is shown as it is (was: with `$HOME`
    at /srv, `app/srv/x.py` shown as `app~/x.py`; `docs/sk-learn-compatibility.py` as
    `docs/[redacted].py`, a redaction `--json` undid anyway)."""
    from corpora.gitbuild import RepoBuilder

    paths = ["app/srv/x.py", "docs/sk-learn-compatibility.py", "notes/Bearer tokens.py"]
    RepoBuilder(tmp_path / "repo").commit({p: "x = 1\n" for p in paths})
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RENNET_HOME": str(tmp_path / "home"), "HOME": "/srv"}
    env.pop("RENNET_DEBUG", None)
    done = subprocess.run([sys.executable, "-m", "context_tools.faces.cli", "context", "map"], cwd=tmp_path / "repo",
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert sorted(line.split("  (python")[0] for line in done.stdout.splitlines() if "  (python" in line) == paths


# What draws as a control or reorders a line: C0 (the line feed between lines aside) and C1
# controls, the line separators and the bidi marks
_DRAWS = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
_EVIL = "\x1b[2J\u202e"  # clears the screen, then reverses what follows


_TOKEN = "ghp_" + "A1b2C3d4" * 4  # a token's shape: what the operator names is shown redacted of it
_SHAPES = "sh\u202eapes.py"


@pytest.fixture(scope="module")
def manifested(tmp_path_factory):
    """A change whose manifest names its package, dependency and command with a reordering mark,
    in a folder whose name holds a run of spaces, whose code and text hold an escape sequence,
    which renames a file whose name holds a run of spaces and adds one holding a reordering mark;
    asked with revs, a focus and a query the operator spelled: each rendering of it, read
    in-process (`context_tools.Client`), and the overview's result."""
    import json

    from context_tools import Client
    from context_tools.faces import render_context
    from corpora.gitbuild import RepoBuilder

    root = tmp_path_factory.mktemp("manifested")
    repo = RepoBuilder(root / "repo")
    moved = "def moved_away():\n    return 1\n"
    repo.commit({"README.md": "seed\n", "old  one.py": moved})
    head = repo.commit({
        "web  app/package.json": json.dumps({"name": "js\u202ename", "version": "1.0.0",
                                             "dependencies": {"de\u202ep": "^1"},
                                             "bin": {"b\u202ein": "bin  dir/cli.js"}}),
        "pkg/app.py": f'def helper(a="{_EVIL}"):\n    return a\n\n\ndef {_TOKEN}():\n    return helper()\n',
        "notes.txt": f"helper {_EVIL}\n",
        "old  one.py": None, "renamed.py": moved,
        _SHAPES: "class Base:\n    pass\n\n\nclass Point(Base):\n    pass\n",
    })
    repo.tag(_TOKEN, head)
    client = Client(str(root / "store"))
    asked = {"overview": ("overview", {}), "map": ("repo_map", {"focus": ["no\x1b[2Jsuch", "helper"]}),
             "symbol": ("symbol", {"name": "helper"}), "hierarchy": ("symbol", {"name": "Point", "hierarchy": True}),
             "references": ("references", {"name": "helper", "text": True}),
             "query": ("references", {"name": _TOKEN}), "fuzzy": ("symbol", {"name": _TOKEN + "x"}),
             "novelty": ("novelty", {"base": "HEAD~1", "head": _TOKEN})}
    command = {"hierarchy": "symbol", "fuzzy": "symbol", "query": "references"}
    results = {kind: client.call(f"context.{command.get(kind, kind)}",
                                 repo=str(root / "repo"), **args) for kind, (render, args) in asked.items()}
    shown = {kind: getattr(render_context, render)(results[kind]) for kind, (render, _) in asked.items()}
    return {**shown, "root": root, "overview result": results["overview"]}


@pytest.mark.parametrize("kind", ["overview", "map", "symbol", "hierarchy", "references", "query", "novelty"])
def test_no_rendering_draws_a_control_or_a_reordering_mark_a_change_wrote(manifested, kind):
    """A signature, a text site's line, a manifest's names: each field a change wrote reaches
    the terminal escaped, whichever rendering shows it."""
    assert not _DRAWS.search(manifested[kind]), manifested[kind]


def test_a_manifests_names_show_as_git_quotes_a_path(manifested):
    """A package, a dependency and a command a manifest names, and the manifest's own path, show
    as `shown_name` draws a name: quoted with their escapes, never bare with them."""
    package, manifest = shown_name("js\u202ename"), shown_name("web  app/package.json")
    assert (package, manifest) == ('"js\\u202ename"', '"web  app/package.json"')
    overview = manifested["overview"].splitlines()
    for line in (f"  {package} 1.0.0 (npm, {manifest})",
                 f"  {shown_name('b' + chr(0x202e) + 'in')} [npm_bin] {shown_name('bin  dir/cli.js')}",
                 f"  {manifest} ({package}):",
                 f"    {shown_name('de' + chr(0x202e) + 'p')} ^1 [runtime, npm]"):
        assert line in overview, (line, overview)
    assert f"  added {shown_name('de' + chr(0x202e) + 'p')} ^1 [npm]" in manifested["novelty"].splitlines()
    assert '  def helper(a="\\x1b[2J\\u202e"):' in manifested["map"].splitlines()
    assert '    def helper(a="\\x1b[2J\\u202e"):' in manifested["symbol"].splitlines()
    assert "  helper \\x1b[2J\\u202e" in manifested["references"], manifested["references"]


def test_a_rename_and_a_bases_file_show_as_git_quotes_a_path(manifested):
    novelty, hierarchy = manifested["novelty"].splitlines(), manifested["hierarchy"].splitlines()
    assert any(line.endswith(f" renamed.py (from {shown_name('old  one.py')})") for line in novelty), novelty
    assert f"base     Base  [resolved]  {shown_name(_SHAPES)}:1" in hierarchy, hierarchy
    assert "note: the hierarchy of Point in sh\\u202eapes.py" in hierarchy, hierarchy


def test_what_the_operator_named_shows_sanitized(manifested, monkeypatch):
    """A rev, a query, a focus and the repository's folder are the operator's: shown as messages
    are, credentials redacted, controls escaped, the home folder `~` (docs/security.md)."""
    from context_tools.faces import render_context

    assert manifested["novelty"].startswith("[redacted] ("), manifested["novelty"]
    assert manifested["query"].splitlines()[0].startswith("1 definition(s) of [redacted]; "), manifested["query"]
    assert manifested["fuzzy"].startswith("note: nothing is defined exactly as '[redacted]'; "), manifested["fuzzy"]
    assert 'focus not found: "no\\x1b[2Jsuch"' in manifested["map"].splitlines(), manifested["map"]
    monkeypatch.setenv("HOME", str(manifested["root"]))
    assert render_context.overview(manifested["overview result"]).startswith("~/repo @ HEAD (")
