"""Bounds and hostile input through the real CLI (`python -m context_tools.faces.cli` in a
subprocess): a deep manifest leaves the index `ok` with that file marked, `rennet call`
answers every input with one envelope, a deep cursor or `.rennet.toml` is its typed error,
`context file` of a huge file prints a bounded page, nested definitions cost linear space.
Every run of the battery is checked for tracebacks and `internal_error`. The spill folder's
bounds are tested on the folder itself."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import time
from pathlib import Path

import msgspec
import pytest

from corpora.gitbuild import RepoBuilder
from tests.cli_runs import run_cli

ROOT = Path(__file__).resolve().parent.parent


def rennet(*args: str, home: Path) -> subprocess.CompletedProcess:
    out = run_cli(*args, home=home, cwd=home.parent, text=False)
    err = out.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err and "internal_error" not in err, err[-2000:]
    assert b"internal_error" not in out.stdout
    return out


def envelope(out: subprocess.CompletedProcess) -> dict:
    lines = out.stdout.splitlines()
    assert len(lines) == 1, out.stdout[:500]
    return json.loads(lines[0])


DEEP = 100_000


def test_a_deep_manifest_is_bad_manifest_and_the_index_is_ok(tmp_path):
    deep_json = '{"name": "deep", "x": ' + "[" * DEEP + "]" * DEEP + "}"
    b = RepoBuilder(tmp_path / "repo")
    b.commit({
        "package.json": deep_json,  # was: RecursionError, the whole index internal_error
        "php/composer.json": '{"autoload": ' + '{"a": ' * DEEP + "1" + "}" * DEEP + "}",
        "rust/Cargo.toml": "[package]\nname = 'deep'\nx = " + "[" * DEEP + "]" * DEEP + "\n",
        "py/pyproject.toml": "[project]\nname = 'deep'\nx = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n",
        "dotted/pyproject.toml": "[" + ".".join(["t"] * 5000) + "]\n",
        "fine/pyproject.toml": "[project]\nname = 'fine'\nversion = '1.0'\n",
        "rust/src/lib.rs": "pub fn f() {}\n", "web/index.js": "const x = require('deep');\n",
        "php/A.php": "<?php\nnamespace A;\nclass B {}\n",
    })
    out = rennet("index", str(tmp_path / "repo"), "--json", home=tmp_path / "home")
    assert out.returncode == 0
    data = envelope(out)["data"]
    assert {s["path"]: s["reason"] for s in data["skipped"]} == {
        p: "bad_manifest" for p in ("package.json", "php/composer.json", "rust/Cargo.toml", "py/pyproject.toml",
                                    "dotted/pyproject.toml")}
    overview = envelope(rennet("context", "overview", "--repo", str(tmp_path / "repo"), "--json",
                               home=tmp_path / "home"))
    assert "fine" in json.dumps(overview["data"])  # the manifest beside them is read
    meta = envelope(rennet("context", "file", "package.json", "--repo", str(tmp_path / "repo"), "--json",
                           home=tmp_path / "home"))["data"]["meta"]
    assert meta["skipped"] == "bad_manifest"


def test_a_hostile_gitattributes_leaves_the_index_ok_and_quick(tmp_path):
    b = RepoBuilder(tmp_path / "repo")
    b.commit({".gitattributes": "[z-a].py linguist-vendored\n*a*a*a*a*a*a*a*a*a*a*b linguist-generated\n",
              "z.py": "def z():\n    pass\n", "a" * 200 + ".py": "def a():\n    pass\n"})
    out = rennet("index", str(tmp_path / "repo"), "--json", home=tmp_path / "home")
    # was: internal_error (re.error), then 100 s for a name of 43 characters: exponential in the
    # stars, this 200-character name would never end (`rennet` stops a command after 300 s)
    assert out.returncode == 0
    files = {f["path"]: f for f in map(json.loads, rennet("snapshot", "dump", str(tmp_path / "repo"),
                                                          home=tmp_path / "home").stdout.splitlines())
             if f["type"] == "file"}
    assert files["z.py"]["mark"] == "vendored" and files["a" * 200 + ".py"]["mark"] is None


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("small")
    b = RepoBuilder(root / "repo")
    b.commit({"a.py": "".join(f"def f{i}():\n    return {i}\n" for i in range(900))})
    assert rennet("index", str(root / "repo"), "--quiet", home=root / "home").returncode == 0
    return root / "repo", root / "home"


@pytest.mark.parametrize("text, code", [
    ("[" * 5000 + "]" * 5000, "bad_input"),  # was: nothing on stdout, internal_error on stderr
    ('{"repo": ' + "[" * 5000 + "]" * 5000 + "}", "bad_input"),
    ('{"name": "A", "repo": "x"', "bad_input"),
    ("-{", "bad_input"),  # read as an option: a usage error, still one envelope
], ids=["deep", "deep-field", "not-json", "usage"])
def test_rennet_call_prints_one_envelope_for_any_input(small, text, code):
    repo, home = small
    out = rennet("call", "context.symbol", text, home=home)
    assert out.returncode in (1, 2)
    assert envelope(out)["error"]["code"] == code


def test_a_deep_or_forged_cursor_is_bad_cursor(small):
    repo, home = small
    first = envelope(rennet("context", "file", "a.py", "--repo", str(repo), "--json", "--limit", "10", home=home))
    cursor = first["page"]["cursor"]
    payload, mac = cursor.split(".")
    deep = base64.urlsafe_b64encode(b'{"o":' * 40 + b"0" + b"}" * 40).decode().rstrip("=")
    for bad in (f"{deep}.{mac}", "[" * 5000, cursor + "x" * 300):
        out = rennet("call", "context.file", json.dumps({"repo": str(repo), "path": "a.py", "limit": 10,
                                                          "cursor": bad}), home=home)
        assert out.returncode == 1 and envelope(out)["error"]["code"] == "bad_cursor"
    out = rennet("context", "file", "a.py", "--repo", str(repo), "--json", "--limit", "10", "--cursor", cursor, home=home)
    assert envelope(out)["data"]["content"]["first_line"] == 11


def test_a_deep_rennet_toml_is_a_fact_and_the_dossier_goes_on(tmp_path):
    from tests.fakes.world import make_change

    make_change(tmp_path / "r", ["PROJ-1: one"], remote=None,
                files={".rennet.toml": "[dossier]\nx = " + "[" * DEEP + "]" * DEEP + "\n"})
    out = rennet("dossier", "--repo", str(tmp_path / "r"), "--base", "main", "--head", "feature", "--json",
                 home=tmp_path / "home")
    assert out.returncode == 0 and b"Traceback" not in out.stderr  # was: internal_error (RecursionError)
    facts = [f for f in envelope(out)["data"]["facts"] if f["code"] == "bad_config"]
    assert len(facts) == 1 and "nested" in facts[0]["message"] and ".rennet.toml" in facts[0]["ref"]
    assert "\n" not in facts[0]["message"]


def test_context_file_of_a_huge_file_prints_a_bounded_page(tmp_path):
    from context_tools.query.file_view import LINE_CHARS, PAGE_BYTES

    size = 16 << 20  # 16 times the bound asserted
    b = RepoBuilder(tmp_path / "repo")
    b.commit({"one_line.py": b"x" * size, "many.txt": (b"y" * 999 + b"\n") * (size // 1000),
              "ok.py": "def f():\n    pass\n"})
    repo, home = str(tmp_path / "repo"), tmp_path / "home"
    assert rennet("index", repo, "--quiet", home=home).returncode == 0

    out = rennet("context", "file", "one_line.py", "--repo", repo, "--json", home=home)
    assert len(out.stdout) < 1 << 20  # was: the whole blob
    view = envelope(out)["data"]
    assert view["meta"]["skipped"] == "too_large" and view["meta"]["size"] == size
    assert view["content"]["lines"] == ["x" * LINE_CHARS] and view["content"]["truncated_lines"] == [1]

    out = rennet("context", "file", "many.txt", "--repo", repo, "--json", home=home)
    assert len(out.stdout) < 1 << 20
    first = envelope(out)
    lines = first["data"]["content"]["lines"]
    assert first["page"]["truncated"] and first["page"]["total"] == size // 1000
    assert PAGE_BYTES // 1000 - 2 <= len(lines) < 400 and first["data"]["content"]["truncated_lines"] == []
    more = envelope(rennet("context", "file", "many.txt", "--repo", repo, "--json", "--cursor",
                           first["page"]["cursor"], home=home))
    assert more["data"]["content"]["first_line"] == len(lines) + 1  # the cursor goes on where the page ended


def nested_js(n: int) -> str:
    return "".join(f"function f{i}() {{\n" for i in range(n)) + "}\n" * n


def test_nested_definitions_cost_linear_space(tmp_path):
    sizes = {}
    for n in (2500, 5000):
        repo = tmp_path / f"r{n}"
        RepoBuilder(repo).commit({"nest.js": nested_js(n), "flat.js": "function a() {}\nfunction b() {}\n"})
        home = tmp_path / f"home{n}"
        assert rennet("index", str(repo), "--quiet", home=home).returncode == 0
        dump = rennet("snapshot", "dump", str(repo), home=home).stdout
        sizes[n] = len(dump)
        lines = [json.loads(line) for line in dump.splitlines()]
        files = {f["path"]: f for f in lines if f["type"] == "file"}
        assert files["nest.js"]["symbols_capped"] is True and "symbols_capped" not in files["flat.js"]
        meta = envelope(rennet("context", "file", "nest.js", "--repo", str(repo), "--json", home=home))["data"]["meta"]
        assert meta["symbols_capped"] is True
    assert sizes[5000] < 2.5 * sizes[2500]  # was: 4.2x (each symbol carried its whole chain)


def test_nesting_within_the_caps_is_kept_whole_and_past_them_marked():
    from indexer.extract.blob import extract_blob
    from indexer.extract.tags import NESTING_CAP

    within = extract_blob(nested_js(200).encode(), "a.js", "javascript")
    assert len(within.symbols) == 200 and not within.symbols_capped and not within.occurrences_capped
    assert within.symbols[-1].container == ".".join(f"f{i}" for i in range(199))
    past = extract_blob(nested_js(1000).encode(), "a.js", "javascript")
    assert len(past.symbols) == NESTING_CAP + 1 and past.symbols_capped
    assert past.symbols[-1].container == ".".join(f"f{i}" for i in range(NESTING_CAP))
    assert past.occurrences_capped  # the query dropped matches in progress: its sites may be incomplete
    # every definition kept, but the query dropped matches in progress: its symbols may be
    # incomplete too, and the facts say so
    at = extract_blob(nested_js(256).encode(), "a.js", "javascript")
    assert len(at.symbols) == 256 and at.symbols_capped and at.occurrences_capped


def _tags_steps(src: bytes, path: str, language: str) -> int:
    """The lines tags.py runs to extract `src` (its queries compiled before): a count of steps,
    the same on any machine."""
    import sys

    from indexer.extract import tags
    from indexer.extract.blob import extract_blob

    extract_blob(src, "warm-" + path, language)
    count = 0

    def local(frame, event, arg):
        nonlocal count
        count += event == "line"
        return local

    sys.settrace(lambda frame, event, arg: local if frame.f_code.co_filename == tags.__file__ else None)
    try:
        extract_blob(src, path, language)
    finally:
        sys.settrace(None)
    return count


def test_nested_classes_written_with_their_scope_cost_no_more_than_plain_nesting():
    # each `class Xi::Yi` carries its written scope into the chain of what it holds; finding a
    # scope's first name by a walk back through the chain made the nesting cubic (was: 8x the
    # steps for twice the depth); each symbol's chain being as long as its depth keeps it square
    def nested(n: int) -> bytes:
        return ("".join(f"class X{i}::Y{i}\n" for i in range(n)) + "end\n" * n).encode()

    half, full = _tags_steps(nested(100), "a.rb", "ruby"), _tags_steps(nested(200), "a.rb", "ruby")
    assert full < 5 * half


def test_the_scopes_a_ruby_base_records_are_bounded():
    # each class written with its scope records the statements around it with its bases
    # (Base.nesting), each their qualified name: nested, their characters grow as the square of
    # the depth, and are held to NESTING_CHARS, innermost kept, the top last
    from indexer.extract.blob import extract_blob
    from indexer.lang.declared_bases import NESTING_CHARS

    n = 100
    src = "".join(f"class X{i:020d}::Y{i} < B\n" for i in range(n)) + "end\n" * n
    bases = extract_blob(src.encode(), "a.rb", "ruby").bases
    assert len(bases) > 50
    assert sum(len(q) for q in bases[-1].nesting) > NESTING_CHARS // 2  # the bound is met, not far off
    for outer, b in zip(bases, bases[1:]):
        assert sum(len(q) for q in b.nesting) <= NESTING_CHARS
        assert b.nesting[0] == outer.cls and b.nesting[-1] == ""


def _deep_modules(depth: int, body: str) -> bytes:
    """`body` inside `depth` nested Ruby modules of long names (a container of thousands of
    characters, under CONTAINER_CHARS)."""
    names = [f"M{i:03d}" + "x" * 12 for i in range(depth)]
    return ("".join(f"module {n}\n" for n in names) + body + "end\n" * depth).encode()


@pytest.mark.parametrize("shape", ["classes", "includes"])
def test_the_names_a_file_repeats_are_held_to_its_size(shape):
    """Each symbol stores its whole container, each base its class and the scopes its statement
    stands in: thousands of one-line classes, or `include`s, inside a long chain of modules
    repeat thousands of characters a line (was: a file of 875 kB made 316 MB of store and took
    58 s to index, 1.2 GB; one of 487 kB of `include`s 308 MB). Together they are held to
    NAME_CHARS_PER_BYTE a byte of the file and what nesting to the caps takes; past it, what
    would not fit is not recorded and the facts say so. A file far within it keeps every one."""
    from indexer.extract.blob import extract_blob
    from indexer.extract.tags import NAME_CHARS_FIXED, NAME_CHARS_PER_BYTE

    def facts(n: int):
        body = "".join(f"class Q{k} < B; end\n" for k in range(n)) if shape == "classes" else (
            "class X::Y\n" + "  include M\n" * n + "end\n")
        src = _deep_modules(236, body)
        return src, extract_blob(src, "deep.rb", "ruby")

    def repeated(f) -> int:
        return (sum(len(s.container) + 1 for s in f.symbols if s.container)
                + sum(len(b.cls) + sum(map(len, b.nesting)) for b in f.bases))

    src, few = facts(50)
    assert not few.symbols_capped and len(few.bases) == 50
    src, many = facts(5_000)
    assert many.symbols_capped and len(many.bases) < 5_000
    budget = NAME_CHARS_PER_BYTE * len(src) + NAME_CHARS_FIXED
    assert budget // 2 < repeated(many) <= budget  # the bound is met, not far off


def test_at_the_symbol_cap_only_a_symbol_cut_marks_the_list_cut(monkeypatch):
    """At a cap of 64 symbols a file: the extractor reads its cap as it cuts, so the cut is the
    one its own cap makes, reached without parsing a file of that many definitions."""
    from indexer.extract import tags
    from indexer.extract.blob import extract_blob

    monkeypatch.setattr(tags, "SYMBOL_CAP", 64)
    # an impl block is a scope, not a symbol: past the cap it cuts nothing
    full = "".join(f"fn f{i}() {{}}\n" for i in range(64)) + "impl S {}\n"
    facts = extract_blob(full.encode(), "many.rs", "rust")
    assert len(facts.symbols) == 64 and not facts.symbols_capped
    facts = extract_blob((full + "fn g() {}\n").encode(), "many.rs", "rust")
    assert len(facts.symbols) == 64 and facts.symbols_capped


# Shapes whose nesting kept a match in progress at every level of a pattern whose root captured
# nothing: (language, extension, source of n levels).
NESTINGS = {
    "rust_mods": ("rust", "rs", lambda n: "".join(f"mod m{i} {{\n" for i in range(n))
                  + "".join(f"fn f{i}() {{}}\n}}\n" for i in reversed(range(n)))),
    "rust_use_lists": ("rust", "rs", lambda n: "use " + "a::{\n" * n + "b" + "}\n" * n + ";\n"),
    "typescript_namespaces": ("typescript", "ts", lambda n: "namespace A {\n" * n + "}\n" * n),
    "javascript_chain": ("javascript", "js", lambda n: "x = a" + "\n  .b()" * n + ";\n"),
    "java_chain": ("java", "java", lambda n: "class A { void f() {\na" + "\n  .b()" * n + ";\n} }\n"),
}


def _pattern_texts(language: str, level: int) -> list[str]:
    from indexer.lang import grammars

    query = grammars.tags_query(language, level)
    text = grammars._tags(language, level)[2].encode()
    return ["\n".join(line for line in text[query.start_byte_for_pattern(i):query.end_byte_for_pattern(i)]
                      .decode().splitlines() if not line.lstrip().startswith(";")).strip()
            for i in range(query.pattern_count)]


def _captured_roots(pattern: str) -> bool:
    """Does every step a match of `pattern` can start at carry a capture? Read by a scanner of
    its own: the first step, or each branch of an alternation, or a group's first step, must be
    followed by `@`."""
    def close(at: int) -> int:  # the index past the bracket that closes the one at `at`
        depth, i = 0, at
        while True:
            c = pattern[i]
            if c == '"':
                i += 1
                while pattern[i] != '"':
                    i += 2 if pattern[i] == "\\" else 1
            elif c in "([":
                depth += 1
            elif c in ")]":
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1

    def captured(at: int) -> bool:
        end = close(at)
        if pattern[end:].lstrip().startswith("@"):
            return True
        if pattern[at] == "[":  # each branch its own root
            i, branches = at + 1, []
            while pattern[i:].lstrip()[:1] in ("(", "["):
                i = len(pattern) - len(pattern[i:].lstrip())
                branches.append(captured(i))
                i = close(i)
                while pattern[i:].lstrip().startswith("@"):  # the branch's captures
                    i = len(pattern) - len(pattern[i:].lstrip()) + 1
                    while i < len(pattern) and (pattern[i].isalnum() or pattern[i] in "._-"):
                        i += 1
            return bool(branches) and all(branches)
        inner = pattern[at + 1:].lstrip()
        if inner[:1] in ("(", "["):  # a group: its first step
            return captured(len(pattern) - len(inner))
        return False

    return captured(0) if pattern[:1] in ("(", "[") else True


def test_every_pattern_of_every_tags_query_captures_where_its_matches_start():
    """tree-sitter bounds the matches in progress by the cursor's match limit only once they
    hold a capture: a pattern whose root captures nothing held one match for each enclosing
    node of its root's type, looked at again at every node below, quadratic in the nesting
    (16,000 nested Rust modules: 10 s to extract; 8,000 TypeScript namespaces 17 s)."""
    from indexer.lang import grammars
    from indexer.lang.registry import LANGUAGES

    uncaptured = [(name, level, pattern) for name in sorted(LANGUAGES) for level in (1, 2)
                  for pattern in _pattern_texts(name, level) if not _captured_roots(pattern)]
    assert uncaptured == []
    # the scanner tells them apart: the shipped Rust method pattern captures below its root
    assert not _captured_roots("(declaration_list (function_item name: (identifier) @name) @definition.method)")
    assert _captured_roots(grammars.rooted("(declaration_list (function_item name: (identifier) @name) @x)"))
    assert not _captured_roots("((call (identifier) @fn) (#eq? @fn \"x\"))")
    assert not _captured_roots("[(a (b) @x) (c) @y]") and _captured_roots("[(a (b) @x) @z (c) @y]")


@pytest.mark.parametrize("shape", sorted(NESTINGS))
def test_nesting_past_the_match_limit_marks_the_facts_and_within_it_keeps_them_whole(shape):
    """Nested past the cursor's match limit, each shape's matches in progress meet it (and the
    facts say their lists may be incomplete; was: nothing said, the work quadratic); within
    it, the facts are those of the query whose roots captured nothing."""
    from indexer.extract.blob import extract_blob
    from indexer.extract.tags import MATCH_LIMIT
    from indexer.lang import grammars

    language, extension, source = NESTINGS[shape]
    past = extract_blob(source(4 * MATCH_LIMIT).encode(), f"a.{extension}", language)
    assert past.occurrences_capped and past.symbols_capped
    within = source(MATCH_LIMIT // 8).encode()  # TypeScript holds five a namespace: past 51 it meets the limit
    rooted = extract_blob(within, f"a.{extension}", language)
    assert not rooted.occurrences_capped and not rooted.symbols_capped
    try:
        grammars.rooted, kept = (lambda text: text), grammars.rooted
        grammars._tags.cache_clear()
        unrooted = extract_blob(within, f"a.{extension}", language)
    finally:
        grammars.rooted = kept
        grammars._tags.cache_clear()
    assert msgspec.msgpack.encode(rooted) == msgspec.msgpack.encode(unrooted)


# --- the spill folder ------------------------------------------------------------------------

def test_spill_folder_is_bounded_in_bytes_and_keeps_young_files(tmp_path, monkeypatch):
    from context_tools.faces import spill as sp

    monkeypatch.setattr(sp, "MAX_FOLDER_BYTES", 10_000)
    monkeypatch.setattr(sp, "MAX_FILE_BYTES", 6_000)
    folder = sp.spill_dir(tmp_path)
    folder.mkdir()
    now = time.time()

    def aged(name: str, size: int, age: float) -> Path:
        p = folder / name
        p.write_bytes(b"x" * size)
        os.utime(p, (now - age, now - age))
        return p

    old = aged("old.json", 4000, sp.MIN_AGE_SECONDS + 100)
    older = aged("older.json", 4000, sp.MIN_AGE_SECONDS + 200)
    young = aged("young.json", 1000, 60)
    dead_tmp = aged("x.123.tmp", 3000, sp.TMP_AGE_SECONDS + 10)  # a killed writer's
    live_tmp = aged("y.456.tmp", 500, 5)  # a writer still at work
    assert sp.sweep(folder, now=now, incoming=4000)
    assert not dead_tmp.exists() and live_tmp.exists() and young.exists()
    assert not older.exists() and old.exists()  # oldest first, only as much as the bound needs
    assert sum(p.stat().st_size for p in folder.iterdir()) + 4000 <= 10_000

    # only files younger than 15 minutes left: a reply that does not fit is not written
    for p in folder.iterdir():
        p.unlink()
    aged("a.json", 5000, 30)
    aged("b.json", 4000, 30)
    wire = json.dumps({"ok": True, "data": "z" * 3000, "page": {"cursor": "c.1"}}).encode()
    reply = sp.spill(wire, command="demo", home=tmp_path, ceiling=1024)
    assert reply["path"]["unknown"] == "not_recorded" and "not written" in reply["note"]
    assert reply["bytes"] == len(msgspec.json.format(wire, indent=1))  # the size its file would have had
    assert sorted(p.name for p in folder.iterdir()) == ["a.json", "b.json"]
    assert len(msgspec.json.encode(reply)) <= 1024 and reply["cursors"] == {"page": "c.1"}

    big = json.dumps({"data": "z" * 7000}).encode()  # over the cap of one file
    assert sp.spill(big, command="demo", home=tmp_path, ceiling=1024)["path"]["unknown"] == "not_recorded"



def test_a_reply_over_the_file_cap_is_not_written_to_an_empty_folder(tmp_path, monkeypatch):
    from context_tools.faces import spill as sp

    monkeypatch.setattr(sp, "MAX_FILE_BYTES", 6_000)  # the folder's own bounds are far off
    big = json.dumps({"data": "z" * 7000}).encode()
    reply = sp.spill(big, command="demo", home=tmp_path, ceiling=1024)
    assert reply["path"]["unknown"] == "not_recorded" and "6000-byte cap" in reply["note"]
    assert list(sp.spill_dir(tmp_path).iterdir()) == []



def test_a_write_in_progress_takes_room_in_the_folder(tmp_path, monkeypatch):
    from context_tools.faces import spill as sp

    monkeypatch.setattr(sp, "MAX_FOLDER_BYTES", 10_000)
    folder = sp.spill_dir(tmp_path)
    folder.mkdir()
    (folder / "w.123.tmp").write_bytes(b"x" * 8000)  # another writer's, seconds old
    assert not sp.sweep(folder, incoming=4000) and (folder / "w.123.tmp").exists()
    assert sp.sweep(folder, incoming=2000)


def test_two_replies_spilled_in_the_same_second_are_two_files(tmp_path, monkeypatch):
    from context_tools.faces import spill as sp

    second = time.gmtime()
    monkeypatch.setattr(sp.time, "gmtime", lambda *_: second)
    wires = [json.dumps({"data": letter * 3000}).encode() for letter in "ab"]
    paths = [sp.spill(w, command="demo", home=tmp_path, ceiling=1024)["path"] for w in wires]
    assert paths[0] != paths[1] and [Path(p).read_bytes() for p in paths] == [msgspec.json.format(w, indent=1)
                                                                             for w in wires]


def test_a_folder_of_the_most_young_files_takes_no_other(tmp_path):
    """KEEP_NEWEST files, all younger than 15 minutes: one more would be over the count."""
    from context_tools.faces import spill as sp

    folder = sp.spill_dir(tmp_path)
    folder.mkdir()
    for i in range(sp.KEEP_NEWEST):
        (folder / f"f{i:04d}.json").write_text("{}")
    assert not sp.sweep(folder, incoming=10)
    (folder / "f0000.json").unlink()
    assert sp.sweep(folder, incoming=10)


def test_spill_files_are_never_swept_by_count_alone_within_15_minutes(tmp_path):
    from context_tools.faces import spill as sp

    folder = sp.spill_dir(tmp_path)
    folder.mkdir()
    now = time.time()
    for i in range(sp.KEEP_NEWEST + 10):
        p = folder / f"f{i:04d}.json"
        p.write_text("{}")
        os.utime(p, (now - 60, now - 60))
    assert not sp.sweep(folder, now=now, incoming=10)  # no room for another without breaking the promise
    assert len(list(folder.iterdir())) == sp.KEEP_NEWEST + 10
