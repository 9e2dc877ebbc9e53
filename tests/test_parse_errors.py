"""A file with a syntax error (mid-edit: half a function, an unclosed bracket) is parsed with
tree-sitter's error recovery, and what is defined in or after the error may be lost or misread.
The facts record where the parse failed, and the answers say so where a miss would otherwise
read as absence: `context.file`, a `context.symbol` or `context.references` miss or answer, the
overview and map, a working-tree answer's freshness, and a Delta packet's head side."""

from __future__ import annotations

import os
import subprocess
import sys

import msgspec
import pytest

import context_tools
from context_tools.query import parse_errors as parse_errors_module
from corpora.gitbuild import RepoBuilder
from delta.packet import build_delta_packet
from indexer.contract.errors import RennetError
from indexer.extract.blob import extract_blob
from indexer.lang import grammars
from indexer.model import ParseError
from indexer.store.canonical import lines
from indexer.store.database import Store
from indexer.store.records import load_record

# A class body with an unclosed paren before a def: tree-sitter's recovery swallows `later`
# into an ERROR, and the outline goes on with `after` as though nothing were lost.
SHOP = """class Shop:
    def open(self):
        return 1

    def broken(self):
        x = compute(1, 2

    def later(self):
        return 2


def after():
    return 3
"""

# A TypeScript class mid-edit: an `if (` left open; `later` is lost and `after` is misread.
BOX = """export class Box {
  open(): number {
    return 1;
  }
  half(x: number) {
    if (x > 1 {
  }
  later(): void {}
}
export function after() { return 3; }
"""

CLEAN = "from app.shop import Shop\n\n\ndef main():\n    return Shop().later()\n"


def test_a_python_class_body_with_an_unclosed_paren_records_where_the_parse_failed():
    facts = extract_blob(SHOP.encode(), "app/shop.py", "python")
    names = [s.qualified for s in facts.symbols]
    assert "Shop.later" not in names and "after" in names  # what the recovery lost, and went on past
    assert facts.parse_errors == [ParseError(6, 9)] and facts.parse_error_total == 1
    clean = extract_blob(CLEAN.encode(), "app/main.py", "python")
    assert clean.parse_errors == [] and clean.parse_error_total == 0


def test_a_typescript_file_mid_edit_records_its_missing_token_and_error_regions():
    facts = extract_blob(BOX.encode(), "web/box.ts", "typescript")
    assert "Box.later" not in [s.qualified for s in facts.symbols]
    assert facts.parse_errors[0] == ParseError(6, 6, ")")  # the `)` the parser assumed
    assert facts.parse_error_total == len(facts.parse_errors) >= 2
    assert all(1 <= r.line <= r.end_line <= 10 for r in facts.parse_errors)


def test_the_regions_kept_are_bounded_and_the_total_counts_them_all():
    source = "".join(f"def f{i}(:\n    pass\n\n" for i in range(40)).encode()
    facts = extract_blob(source, "many.py", "python")
    assert len(facts.parse_errors) == grammars.PARSE_ERROR_REGIONS
    assert facts.parse_error_total > grammars.PARSE_ERROR_REGIONS
    assert [r.line for r in facts.parse_errors] == sorted(r.line for r in facts.parse_errors)


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    """A commit holding app/shop.py with a parse error, a clean importer of it, and a clean module."""
    root = tmp_path_factory.mktemp("parse-errors")
    builder = RepoBuilder(root / "repo")
    oid = builder.commit({"app/__init__.py": "", "app/shop.py": SHOP, "app/main.py": CLEAN,
                          "app/util.py": "def helper():\n    return 1\n"})
    return builder, oid, context_tools.Client(store=str(root / "store"))


def test_context_file_says_where_its_parse_failed_and_that_its_outline_may_be_incomplete(broken):
    builder, _, client = broken
    meta = client.envelope("context.file", repo=str(builder.path), path="app/shop.py", content=False)["data"]["meta"]
    errors = meta["parse_errors"]
    assert errors["total"] == 1 and errors["regions"] == [{"line": 6, "end_line": 9}]
    assert "does not parse at lines 6-9 (a syntax error, or syntax its grammar does not know)" in errors["note"] and "outline" in errors["note"]
    clean = client.envelope("context.file", repo=str(builder.path), path="app/util.py", content=False)["data"]
    assert "parse_errors" not in clean["meta"]


def test_a_symbol_miss_names_the_files_with_parse_errors_whose_text_holds_the_name(broken):
    builder, oid, client = broken
    for name in ("later", "Shop.later"):
        with pytest.raises(RennetError) as missed:
            client.call("context.symbol", repo=str(builder.path), name=name, fuzzy=False)
        assert missed.value.code == "not_found"
        assert missed.value.message == (
            f"no definition of {name!r} in {oid[:12]}; 1 file that does not parse cleanly holds 'later' in its text, where "
            "a definition or site of it may be missing or misread: app/shop.py at lines 6-9")
    with pytest.raises(RennetError) as elsewhere:  # a name no broken file holds: the miss says nothing more
        client.call("context.symbol", repo=str(builder.path), name="nowhere_at_all", fuzzy=False)
    assert elsewhere.value.message == f"no definition of 'nowhere_at_all' in {oid[:12]}"


def test_a_symbol_or_references_answer_names_them_too(broken):
    builder, _, client = broken
    found = client.envelope("context.symbol", repo=str(builder.path), name="open")["data"]
    assert [d["qualified"] for d in found["definitions"]] == ["Shop.open"]
    assert found["parse_errors"]["paths"] == ["app/shop.py"] and found["parse_errors"]["total"] == 1
    sites = client.envelope("context.references", repo=str(builder.path), name="later")["data"]
    assert sites["parse_errors"]["paths"] == ["app/shop.py"]
    assert "app/shop.py at lines 6-9" in sites["parse_errors"]["note"]
    helper = client.envelope("context.symbol", repo=str(builder.path), name="helper")["data"]
    assert "parse_errors" not in helper  # no file with errors holds it
    assert client.envelope("context.references", repo=str(builder.path), name="helper")["data"]["parse_errors"] is None


def test_the_overview_counts_them_and_the_map_names_those_it_shows(broken):
    builder, oid, client = broken
    assert client.envelope("context.overview", repo=str(builder.path))["data"]["totals"]["parse_errors"] == 1
    repo_map = client.envelope("context.map", repo=str(builder.path))["data"]
    assert "app/shop.py" in [f["path"] for f in repo_map["files"]] and repo_map["parse_errors"] == ["app/shop.py"]
    with Store.open(client._executor.handle.home) as store:  # the record and its canonical lines say it
        record = load_record(store, oid)
        assert record is not None and record.parse_errors == ("app/shop.py",)


def test_the_canonical_file_line_counts_the_regions_only_where_there_are_some(broken):
    builder, oid, client = broken
    with Store.open(client._executor.handle.home) as store:
        record = load_record(store, oid)
        assert record is not None
        from indexer.lang.registry import name_language
        from indexer.store.records import facts_key, load_facts

        facts = load_facts(store, {f.path: facts_key(f.blob, name_language(f.path), record.extractor_version)
                                   for f in record.files})
        file_lines = [line for line in b"".join(lines(record, facts)).splitlines() if line.startswith(b'{"type":"file"')]
    assert [line.endswith(b',"parse_errors":1}') for line in file_lines] == [
        b'"path":"app/shop.py"' in line for line in file_lines]


def test_the_lookup_reads_a_bounded_number_of_broken_files(tmp_path, monkeypatch):
    monkeypatch.setattr(parse_errors_module, "ERROR_READS", 2)
    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({f"m{i}.py": f"def f{i}(:\n    later = {i}\n" for i in range(4)})
    client = context_tools.Client(store=str(tmp_path / "store"))
    with pytest.raises(RennetError) as missed:
        client.call("context.symbol", repo=str(builder.path), name="later", fuzzy=False)
    assert missed.value.message.endswith("2 files that do not parse cleanly hold 'later' in their text, where a definition or "
                                      "site of it may be missing or misread: m0.py at line 1 (missing ')'), "
                                      "m1.py at line 1 (missing ')'); 2 more files that do not parse cleanly were not "
                                      "read for it"), missed.value


GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent"}


def _checkout(root) -> str:
    repo = root / "checkout"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "shop.py").write_text("class Shop:\n    def open(self):\n        return 1\n")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "first"]):
        subprocess.run(["git", *args], cwd=repo, env={**os.environ, **GIT_ENV}, check=True, capture_output=True)
    return str(repo)


# An agent's edit left half-written: `later` follows an unclosed call.
MID_EDIT = "class Shop:\n    def open(self):\n        return compute(1,\n\n    def later(self):\n        return 2\n"


def test_a_worktree_answer_after_writing_a_broken_file_says_it_may_miss_what_follows(tmp_path):
    repo = _checkout(tmp_path)
    with open(os.path.join(repo, "pkg", "shop.py"), "w") as f:
        f.write(MID_EDIT)
    client = context_tools.Client(store=str(tmp_path / "store"))
    found = client.envelope("context.symbol", repo=repo, name="open", worktree=True)
    assert found["freshness"]["reason"].endswith(
        "; 1 of the changed files does not parse cleanly, so an answer may miss or misread what is defined in or after "
        "them: pkg/shop.py at lines 3-6"), found["freshness"]
    missed = client.envelope("context.symbol", repo=repo, name="later", worktree=True)
    assert missed["error"]["code"] == "not_found"
    assert missed["error"]["message"].endswith("pkg/shop.py at lines 3-6; `rev: HEAD` reads the last commit instead"), missed


def test_a_worktree_servers_agent_is_told_of_the_broken_file_over_mcp(worktree_server, tmp_path):
    """Through the MCP SDK client, whose structured content is checked against the tools' output schemas."""
    from tests.mcp_clients import text_of

    repo = _checkout(tmp_path)  # under the temporary folder the server serves
    with open(os.path.join(repo, "pkg", "shop.py"), "w") as f:
        f.write(MID_EDIT)

    async def work(client):
        return [text_of(await client.call_tool(name, args)) for name, args in (
            ("context_file", {"repo": repo, "path": "pkg/shop.py", "content": False}),
            ("context_symbol", {"repo": repo, "name": "later", "fuzzy": False}),
            ("context_references", {"repo": repo, "name": "later"}))]

    shown, missed, sites = worktree_server.run(work)
    assert shown["freshness"]["status"] == "worktree", shown
    assert shown["data"]["meta"]["parse_errors"]["regions"] == [{"line": 3, "end_line": 6}], shown
    assert missed["error"]["code"] == "not_found" and "pkg/shop.py at lines 3-6" in \
        missed["error"]["message"], missed
    assert sites["data"]["parse_errors"]["paths"] == ["pkg/shop.py"], sites


def test_a_delta_packet_says_the_head_side_of_a_changed_file_does_not_parse(tmp_path):
    builder = RepoBuilder(tmp_path / "repo")
    base = builder.commit({"app/shop.py": "class Shop:\n    def open(self):\n        return 1\n",
                           "app/util.py": "def helper():\n    return 1\n"})
    head = builder.commit({"app/shop.py": SHOP, "app/util.py": "def helper():\n    return 2\n"})
    with Store.open(tmp_path / "store") as store:
        packet = build_delta_packet(str(builder.path), base, head, store=store, write=False).packet
        files = {f.path: f for f in packet.files}
        errors = files["app/shop.py"].parse_errors
        assert errors is not None and errors.total == 1 and [(r.line, r.end_line) for r in errors.regions] == [(6, 9)]
        assert errors.note.startswith("the head side does not parse at lines 6-9 (a syntax error, or syntax its grammar does not know), so its element changes may")
        assert files["app/util.py"].parse_errors is None
        # the head fixed, the base broken: the head side parses, and nothing is said
        fixed = builder.commit({"app/shop.py": SHOP.replace("compute(1, 2", "compute(1, 2)")})
        again = build_delta_packet(str(builder.path), head, fixed, store=store, write=False).packet
        assert [f.parse_errors for f in again.files] == [None]


def test_a_worktree_servers_novelty_against_an_unindexed_base_says_so_before_indexing_the_working_tree(
        worktree_server, tmp_path):
    """Was: the working tree was indexed first, then the base's `not_indexed` answered; and once the
    base was indexed, its freshness (`dirty`, the checkout being on it) told the agent to pass
    `worktree: true`, which it had: the base is read from its commit, as the comparison asks. A
    changed file that does not parse is named, as the symbols it lost are in no section."""
    from tests.mcp_clients import text_of

    repo = _checkout(tmp_path)
    with open(os.path.join(repo, "pkg", "later.py"), "w") as f:
        f.write("def later():\n    return 2\n")
    with open(os.path.join(repo, "pkg", "shop.py"), "w") as f:
        f.write(MID_EDIT)

    async def work(client):
        return [text_of(await client.call_tool(name, args)) for name, args in (
            ("context_novelty", {"repo": repo, "base": "main"}), ("repo_snapshots", {"repo": repo}),
            ("repo_index", {"repo": repo, "rev": "main"}), ("context_novelty", {"repo": repo, "base": "main"}))]

    refused, listed, _, compared = worktree_server.run(work)
    assert refused["error"]["code"] == "not_indexed" and "`repo_index` tool" in refused["error"]["message"], refused
    assert "WORKTREE" not in str(listed["data"]), listed  # nothing indexed for an answer refused
    assert compared["freshness"]["status"] == "worktree", compared
    assert [s["qualified"] for s in compared["data"]["symbols"]["items"]] == ["later"], compared
    assert compared["data"]["parse_errors"] == ["pkg/shop.py"], compared  # its `later` is in no section
    base = compared["data"]["base_freshness"]
    assert base["status"] == "dirty" and "worktree: true" not in str(base), base
    assert base["reason"].endswith("the base is read from its commit, as the comparison asks; the head is the "
                                   "working tree"), base


def test_novelty_lists_no_word_of_a_failed_parse_as_a_new_identifier_and_says_where(scratch_server):
    """Was: `context_novelty` over a head whose changed file does not parse listed the words
    tree-sitter's recovery read in the failed region as new identifiers (`class`, `const`,
    `return`: keywords), beside the bare list of such files. Now a name seen only in a region (or
    past the regions kept) is left out, and so is a keyword of the file's grammar; what parsed
    (`kept`, `value` before the error) and a clean file's names are still listed, and a note says
    where each file does not parse, as `context_file` does. Through the SDK's client."""
    from tests.mcp_clients import text_of

    builder = RepoBuilder(scratch_server.place("novelty-broken") / "repo")
    base = builder.commit({"a.py": "def f():\n    return 1\n"})
    builder.commit({"a.py": "def kept(value):\n    return value\n\ndef g(x:\n    for y in x if\n        return lambda z: z\n",
                    "b.js": "function h( { return class }\nconst q = function (\n",
                    "c.py": "def fresh_name():\n    return 1\n"})

    async def work(client):
        for rev in (base, "HEAD"):
            assert not (await client.call_tool("repo_index", {"repo": str(builder.path), "rev": rev})).is_error
        return text_of(await client.call_tool("context_novelty", {"repo": str(builder.path), "base": base}))

    novelty = scratch_server.run(work)["data"]
    assert novelty["identifiers"]["items"] == ["fresh_name", "kept", "value"], novelty["identifiers"]
    assert novelty["parse_errors"] == ["a.py", "b.js"]
    assert novelty["parse_errors_note"] == (
        "2 changed files do not parse at head: a.py at lines 4-6, b.js at lines 1-2; a symbol in or after an error may "
        "read as removed or be misread, and no word of those lines is listed as a new identifier"), novelty


def test_a_broken_files_identifiers_leave_out_its_grammars_keywords_and_what_lies_past_the_regions_kept():
    """The rule `context.novelty` reads a broken file's names by: a keyword of its grammar is no
    identifier wherever the recovery put it, and past the last region kept (more regions than
    `BlobFacts.parse_errors` holds) the parse is not known to have held."""
    from context_tools.query.novelty import _parsed_names_in
    from indexer.model import BlobFacts, Occurrence

    facts = BlobFacts(language="python", lines=9, parse_errors=[ParseError(1, 1), ParseError(5, 5)], parse_error_total=3,
                      occurrences=[Occurrence("inside", 1, 0, "identifier"), Occurrence("return", 3, 0, "identifier"),
                                   Occurrence("ok", 3, 7, "identifier"), Occurrence("late", 9, 0, "identifier")])
    assert _parsed_names_in(facts) == {"ok"}
    whole = msgspec.structs.replace(facts, parse_error_total=2)  # every region kept: line 9 parsed
    assert _parsed_names_in(whole) == {"ok", "late"}


def test_the_next_page_reads_no_broken_files_text_again(tmp_path, monkeypatch):
    """Was: every call of `context.references` or `context.symbol` read the text of up to 32
    files with parse errors, each page of one answer again. What a file's text holds is now kept
    by its blob: page 1 reads each broken file once, page 2 and a lookup of another name none."""
    from indexer.store.snapshot import Snapshot

    monkeypatch.setattr(parse_errors_module, "_WORDS", parse_errors_module._Words(parse_errors_module.WORDS_BYTES))
    builder = RepoBuilder(tmp_path / "repo")
    broken = {f"b{i}.py": f"def f{i}(:\n    return helper()\n" for i in range(3)}
    builder.commit({"lib.py": "def helper():\n    return 1\n", **broken,
                    **{f"use{i}.py": "from lib import helper\n\n\nhelper()\n" for i in range(3)}})
    client = context_tools.Client(store=str(tmp_path / "store"))
    client.call("repo.index", repo=str(builder.path))
    reads: list[str] = []
    real = Snapshot.blob_bytes

    def counted(self, path):
        if sys._getframe(1).f_code is parse_errors_module.unseen_holders.__code__:  # the notes' reads alone
            reads.append(path)
        return real(self, path)

    monkeypatch.setattr(Snapshot, "blob_bytes", counted)
    first = client.call("context.references", repo=str(builder.path), name="helper", limit=2)
    assert first.data.parse_errors is not None and first.data.parse_errors.paths == sorted(broken)
    assert first.page.cursor is not None
    assert sorted(reads) == sorted(broken)
    reads.clear()
    second = client.call("context.references", repo=str(builder.path), name="helper", limit=2,
                         cursor=first.page.cursor)
    assert second.data.parse_errors is not None and second.data.parse_errors.paths == sorted(broken)
    other = client.envelope("context.symbol", repo=str(builder.path), name="f1", fuzzy=False)
    assert other["data"]["parse_errors"]["paths"] == ["b1.py"], other
    assert reads == []


@pytest.mark.parametrize(("language", "source", "regions"), [
    # the parser gave up on the file as a whole: one region, its lines and no line past them
    ("python", b"def f():\n    x = [1,\n\n", [(1, 3, "")]),
    ("ruby", b"def f\n  x = (\nend\n", [(1, 3, "")]),
])
def test_a_file_whose_root_is_an_error_is_one_region_of_its_own_lines(language, source, regions):
    tree = grammars._parse(language, source)
    assert tree is not None and tree.root_node.is_error
    assert grammars.error_regions(tree.root_node) == (regions, 1)


def test_the_regions_text_says_line_only_for_one_line_of_one_region_and_marks_those_not_kept():
    from indexer.contract.parse_errors import regions_text

    assert regions_text([ParseError(3, 3)], 1) == "line 3"
    assert regions_text([ParseError(6, 7)], 1) == "lines 6-7"
    assert regions_text([ParseError(3, 3)], 2) == "lines 3, ..."  # one kept of two
    assert regions_text([ParseError(1, 1, ")"), ParseError(4, 9)], 2) == "lines 1 (missing ')'), 4-9"


def test_a_files_parse_errors_count_every_region_and_keep_the_missing_token():
    from indexer.contract.parse_errors import file_parse_errors

    source = "".join(f"def f{i}(:\n    pass\n\n" for i in range(40)).encode()
    facts = extract_blob(source, "many.py", "python")
    found = file_parse_errors(facts, "many.py", "its outline")
    assert found is not None and found.total == facts.parse_error_total > len(found.regions) == grammars.PARSE_ERROR_REGIONS
    assert ", ...) (a syntax error" not in found.note and "(missing ')'), ... (a syntax error" in found.note
    assert [r.missing for r in found.regions] == [")"] * grammars.PARSE_ERROR_REGIONS


@pytest.mark.parametrize(("language", "source", "regions"), [
    # an ERROR whose end is the start of a line ends on the line before
    ("python", b"fr ze,or\n \"\n", [(1, 2, "")]),
    # a token assumed at the end of a file, past its last line break: a region of that one line
    ("bash", b"if x; then\n  y\n", [(3, 3, "fi")]),
])
def test_a_region_ends_on_the_last_line_it_holds(language, source, regions):
    tree = grammars._parse(language, source)
    assert tree is not None and not tree.root_node.is_error
    assert grammars.error_regions(tree.root_node) == (regions, 1)


def test_a_name_is_held_as_a_word_of_a_broken_files_text(broken):
    builder, oid, client = broken
    for part in ("comput", "ompute"):  # SHOP's `compute(1, 2`
        with pytest.raises(RennetError) as missed:
            client.call("context.symbol", repo=str(builder.path), name=part, fuzzy=False)
        assert missed.value.message == f"no definition of {part!r} in {oid[:12]}"


def test_the_holders_shown_are_bounded_and_counted_all(tmp_path):
    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({f"m{i}.py": f"def f{i}(:\n    later = {i}\n" for i in range(parse_errors_module.HOLDERS_SHOWN + 1)})
    client = context_tools.Client(store=str(tmp_path / "store"))
    found = client.envelope("context.references", repo=str(builder.path), name="later")["data"]["parse_errors"]
    shown = [f"m{i}.py" for i in range(parse_errors_module.HOLDERS_SHOWN)]
    assert found["paths"] == shown and found["total"] == parse_errors_module.HOLDERS_SHOWN + 1
    assert found["note"].endswith(f"{shown[-1]} at line 1 (missing ')'), ...")


def test_broken_files_not_read_are_said_alone_and_one_is_one_file(tmp_path, monkeypatch):
    monkeypatch.setattr(parse_errors_module, "ERROR_READS", 2)
    builder = RepoBuilder(tmp_path / "repo")
    oid = builder.commit({"a.py": "def a(:\n", "b.py": "def b(:\n", "c.py": "def c(:\n    later = 1\n"})
    client = context_tools.Client(store=str(tmp_path / "store"))
    with pytest.raises(RennetError) as missed:
        client.call("context.symbol", repo=str(builder.path), name="later", fuzzy=False)
    assert missed.value.message == (f"no definition of 'later' in {oid[:12]}; 1 more file that does not parse cleanly "
                                    "was not read for it")


def test_a_broken_file_whose_blob_is_gone_is_counted_not_read(tmp_path):
    builder = RepoBuilder(tmp_path / "repo")
    oid = builder.commit({"a.py": "def a(:\n    later = 1\n", "b.py": "def b(:\n    later = 2\n"})
    client = context_tools.Client(store=str(tmp_path / "store"))
    client.call("context.overview", repo=str(builder.path))
    blob = subprocess.run(["git", "rev-parse", f"{oid}:b.py"], cwd=builder.path, capture_output=True, text=True,
                          check=True).stdout.strip()
    loose = builder.path / ".git" / "objects" / blob[:2] / blob[2:]
    loose.unlink()
    with pytest.raises(RennetError) as missed:
        client.call("context.symbol", repo=str(builder.path), name="later", fuzzy=False)
    assert missed.value.message.endswith("a.py at line 1 (missing ')'); 1 more file that does not parse cleanly was "
                                         "not read for it"), missed.value.message
