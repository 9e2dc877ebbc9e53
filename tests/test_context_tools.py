"""The context.* tools against real indexed repositories, through the Python face."""

from __future__ import annotations

from pathlib import Path

import pytest

import context_tools
from context_tools.faces.errors import BadCursor, Unavailable
from indexer.contract.errors import BadInput, NotFound
from tests.test_context_world import World, big, world  # noqa: F401 - fixtures

pytestmark = pytest.mark.usefixtures("world")


@pytest.fixture(scope="module")
def client(world: World) -> context_tools.Client:
    return context_tools.Client(store=world.store)


def defs(result) -> list[tuple[str, str, int, str]]:
    return [(d.path, d.qualified, d.line, d.match) for d in result.data.definitions]


# --- freshness -----------------------------------------------------------------------

def test_freshness_current_names_the_pinned_commit(client, world):
    r = client.call("context.symbol", repo=world.repo, rev="main", name="Flask")
    f = r.freshness
    assert (f.rev, f.pinned_oid, f.current_oid, f.status) == ("main", world.head, world.head, "current")
    assert f.repo == world.repo and f.indexed_at and f.fingerprint


def test_moved_branch_is_stale_and_still_served_from_the_pin(client, world):
    """Its reason says how to refresh in the words of the face asked: a Python caller or the
    CLI's user runs `rennet index` (an agent calls `repo_index`: test_mcp_agent_slips.py)."""
    r = client.call("context.file", repo=world.repo, rev="feature", path="src/webapp/feature.py")
    f = r.freshness
    assert f.status == "stale"
    assert f.pinned_oid == world.feature_pinned and f.current_oid == world.feature_now
    assert "moved" in f.reason
    assert "run `rennet index --rev feature` to refresh" in f.reason and "repo_index" not in f.reason, f.reason
    # the content is the pinned one (True), not what the branch holds now (False)
    assert r.data.content.lines == ["def feature_flag():", "    return True"]


def test_deleted_branch_is_unknown_and_still_served(client, world):
    """Its reason says where to find a rev that resolves, in the words of the face asked (was:
    none): the CLI's command to a Python caller, the `repo_snapshots` tool to an agent."""
    r = client.call("context.symbol", repo=world.repo, rev="gone", name="X")
    assert r.freshness.status == "unknown" and r.freshness.current_oid.unknown == "not_applicable"
    assert r.freshness.reason == ("gone no longer resolves in the repository; served from the pinned snapshot; "
                                  "ask with a rev that resolves: `rennet snapshots` lists the revs indexed")
    assert r.data.definitions[0].path == "src/webapp/gone.py"
    from context_tools.faces.dispatch import Executor
    from context_tools.faces.roots import Roots

    agent = Executor("mcp", store=world.store, roots=Roots.of([str(Path(world.repo).parent)]))
    told = agent.run("context.symbol", {"repo": world.repo, "rev": "gone", "name": "X"}).envelope["freshness"]
    assert told["status"] == "unknown" and told["reason"].endswith(
        "; ask with a rev that resolves: the `repo_snapshots` tool lists the revs indexed")


def test_a_pruned_commit_named_by_its_oid_is_served_from_its_snapshot_as_a_pin_to_it_is(tmp_path):
    """A commit indexed under a branch, then deleted and pruned (`git gc --prune=now`), named by
    its full OID or a start of it: the store still holds its snapshot, so the answer is read from
    it and its freshness says the rev no longer resolves, as for a rev pinned to it (was:
    `unknown_rev`). An OID this repository never indexed stays `unknown_rev`."""
    import subprocess

    from corpora.gitbuild import RepoBuilder
    from indexer import api
    from indexer.contract.errors import UnknownRev

    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({"a.py": "def kept():\n    return 1\n"})
    side = builder.commit({"gone.py": "def pruned():\n    return 2\n"}, branch="side")
    home = str(tmp_path / "store")
    store = api.open_store(home)
    api.index(str(builder.path), "side", store=store)
    store.close()
    for args in (["branch", "-D", "side"], ["reflog", "expire", "--expire-unreachable=now", "--all"],
                 ["gc", "-q", "--prune=now"]):
        subprocess.run(["git", "-C", str(builder.path), *args], check=True, capture_output=True)
    assert subprocess.run(["git", "-C", str(builder.path), "cat-file", "-e", side]).returncode != 0  # pruned
    client = context_tools.Client(store=home)
    for rev in (side, side[:10], side.upper()):
        r = client.call("context.symbol", repo=str(builder.path), rev=rev, name="pruned")
        assert [d.path for d in r.data.definitions] == ["gone.py"], rev
        f = r.freshness
        assert (f.pinned_oid, f.status, f.current_oid.unknown) == (side, "unknown", "not_applicable"), f
        assert f.reason.startswith(f"{rev} no longer resolves in the repository"), f.reason
    with pytest.raises(UnknownRev):
        client.call("context.symbol", repo=str(builder.path), rev="0" * 40, name="pruned")


def test_file_lines_are_numbered_as_git_counts_them(client, world):
    # a form feed is not a line break and a CRLF ending is one break
    r = client.call("context.file", repo=world.repo, rev="gone", path="src/webapp/gone.py")
    assert r.data.content.lines == ["X = 1", "\x0c", "Y = 2"]
    y = client.call("context.symbol", repo=world.repo, rev="gone", name="Y").data.definitions[0]
    assert r.data.content.lines[y.line - 1] == "Y = 2"


def test_every_context_reply_carries_freshness(client, world):
    calls = {
        "context.overview": {}, "context.map": {}, "context.file": {"path": "src/webapp/app.py"},
        "context.symbol": {"name": "Flask"}, "context.references": {"name": "Flask"},
        "context.novelty": {"base": "v1"},
    }
    for command, extra in calls.items():
        r = client.call(command, repo=world.repo, **extra)
        assert r.freshness is not None and r.freshness.status == "current", command


# --- context.symbol ------------------------------------------------------------------

def test_symbol_simple_and_qualified_names(client, world):
    assert defs(client.call("context.symbol", repo=world.repo, name="Flask")) == [
        ("src/webapp/app.py", "Flask", 1, "exact")]
    assert defs(client.call("context.symbol", repo=world.repo, name="Flask.route")) == [
        ("src/webapp/app.py", "Flask.route", 5, "exact")]
    # module-qualified: `app` is the module path of src/webapp/app.py
    assert defs(client.call("context.symbol", repo=world.repo, name="app.Flask.route")) == [
        ("src/webapp/app.py", "Flask.route", 5, "qualified")]
    assert defs(client.call("context.symbol", repo=world.repo, name="webapp.app.Flask.route")) == [
        ("src/webapp/app.py", "Flask.route", 5, "qualified")]


def test_symbol_simple_name_finds_every_language_and_filters_narrow(client, world):
    r = client.call("context.symbol", repo=world.repo, name="route")
    assert {(p, q) for p, q, _, _ in defs(r)} == {
        ("src/webapp/app.py", "Flask.route"), ("web/router.js", "route"), ("web/router.js", "Router.route")}
    assert not r.data.fuzzy
    only_js = client.call("context.symbol", repo=world.repo, name="route", path="web/")
    assert {p for p, *_ in defs(only_js)} == {"web/router.js"}
    functions = client.call("context.symbol", repo=world.repo, name="route", kind="function")
    assert [(p, q) for p, q, _, _ in defs(functions)] == [("web/router.js", "route")]


def test_symbol_wrong_qualifier_does_not_match(client, world):
    with pytest.raises(NotFound):
        client.call("context.symbol", repo=world.repo, name="Router.run", fuzzy=False)


def test_symbol_fuzzy_fallback_only_when_nothing_exact_and_marked(client, world):
    r = client.call("context.symbol", repo=world.repo, name="flsk")
    assert r.data.fuzzy and "near names" in r.data.note
    assert r.data.definitions and all(d.match == "fuzzy" for d in r.data.definitions)
    assert r.data.definitions[0].qualified == "Flask"
    exact = client.call("context.symbol", repo=world.repo, name="Flask")
    assert not exact.data.fuzzy and all(d.match != "fuzzy" for d in exact.data.definitions)
    with pytest.raises(NotFound):
        client.call("context.symbol", repo=world.repo, name="flsk", fuzzy=False)


def test_symbol_reads_the_pinned_rev(client, world):
    assert defs(client.call("context.symbol", repo=world.repo, rev="v1", name="Flask.run"))
    with pytest.raises(NotFound):
        client.call("context.symbol", repo=world.repo, rev="main", name="Flask.run", fuzzy=False)


# --- context.references --------------------------------------------------------------

def test_references_are_tagged_with_how_they_were_resolved(client, world):
    r = client.call("context.references", repo=world.repo, name="route")
    sites = {(s.path, s.line, s.resolution) for s in r.data.sites}
    assert ("src/webapp/cli.py", 6, "import") in sites  # app.route("/") in a file importing app.py
    assert ("src/webapp/views.py", 6, "import") in sites  # @app.route
    assert ("tools/other.py", 2, "name_match") in sites  # table.route: nothing ties it to a definition
    assert ("web/router.js", 6, "same_file") in sites  # route(p) beside its definition
    assert r.data.by_resolution["name_match"] >= 1
    # each definition's resolved sites together, in the definitions' order, same-file sites
    # before import-resolved ones; then the name matches
    order = [(s.resolution == "name_match", s.definition or 0, s.resolution != "same_file") for s in r.data.sites]
    assert order == sorted(order)
    assert [s.definition is None for s in r.data.sites] == [s.resolution == "name_match" for s in r.data.sites]
    # each definition counts the sites that reach it: route(p) is router.js's function's
    assert [(d.qualified, d.path, d.sites) for d in r.data.definitions] == [
        ("Flask.route", "src/webapp/app.py", 2), ("route", "web/router.js", 1), ("Router.route", "web/router.js", 0)]


def test_references_exclude_definitions_unless_asked(client, world):
    plain = client.call("context.references", repo=world.repo, name="Flask")
    assert all(s.role != "definition" for s in plain.data.sites)
    assert ("src/webapp/app.py", 1) not in {(s.path, s.line) for s in plain.data.sites}
    with_defs = client.call("context.references", repo=world.repo, name="Flask", include_definitions=True)
    assert ("src/webapp/app.py", 1) in {(s.path, s.line) for s in with_defs.data.sites}
    assert with_defs.page.total > plain.page.total


def test_references_through_a_package_reexport_are_import_resolved(client, world):
    # relayed.py imports Flask from the package; webapp/__init__.py re-exports it from app.py
    r = client.call("context.references", repo=world.repo, rev="gone", name="Flask")
    relayed = {(s.line, s.resolution) for s in r.data.sites if s.path == "src/webapp/relayed.py"}
    assert relayed == {(1, "import"), (3, "import")}


def test_qualified_references_keep_only_tied_sites(client, world):
    r = client.call("context.references", repo=world.repo, name="Flask.route", text=True)
    assert {s.resolution for s in r.data.sites} <= {"import", "same_file"}
    assert "tools/other.py" not in {s.path for s in r.data.sites}
    cli_site = next(s for s in r.data.sites if s.path == "src/webapp/cli.py")
    assert cli_site.text == 'app.route("/")'


def test_references_filter_by_resolution(client, world):
    r = client.call("context.references", repo=world.repo, name="route", resolution="name_match")
    assert [s.path for s in r.data.sites] == ["tools/other.py"]


# --- context.file ---------------------------------------------------------------------

def test_file_metadata_outline_and_paged_lines(client, world):
    r = client.call("context.file", repo=world.repo, path="src/webapp/app.py", limit=4)
    d = r.data
    assert (d.meta.language, d.meta.mode, d.meta.lines) == ("python", "100644", 13)
    assert d.meta.fan_in == 4 and "src/webapp/cli.py" in d.meta.importers.items
    assert [o.qualified for o in d.outline.items] == [
        "Flask", "Flask.__init__", "Flask.route", "Flask.add_url_rule", "_private_helper"]
    assert d.content.lines == ["class Flask:", "    def __init__(self, name):", "        self.name = name", ""]
    assert (d.content.first_line, d.content.last_line) == (1, 4)
    assert (r.page.total, r.page.returned, r.page.truncated) == (13, 4, True)
    nxt = client.call("context.file", repo=world.repo, path="src/webapp/app.py", limit=4, cursor=r.page.cursor)
    assert nxt.data.content.first_line == 5
    assert nxt.data.content.lines[0] == "    def route(self, rule, methods=None):"


def test_file_start_line_and_binary(client, world):
    r = client.call("context.file", repo=world.repo, path="src/webapp/app.py", start_line=12)
    assert r.data.content.lines == ["def _private_helper():", "    return 1"]
    assert r.page.truncated is False and r.page.cursor is None
    b = client.call("context.file", repo=world.repo, path="assets/logo.png")
    assert b.data.content.unknown == "not_applicable"
    assert b.data.meta.lines.unknown == "not_applicable"
    with pytest.raises(NotFound):
        client.call("context.file", repo=world.repo, path="src/webapp/nope.py")
    with pytest.raises(BadInput):
        client.call("context.file", repo=world.repo, path="src/webapp/app.py", start_line=99)
    last = client.call("context.file", repo=world.repo, path="src/webapp/app.py", start_line=13).data.content
    assert (last.first_line, last.lines) == (13, ["    return 1"])
    with pytest.raises(BadInput, match="13 lines; start_line 14 is past the end"):  # one past the last line
        client.call("context.file", repo=world.repo, path="src/webapp/app.py", start_line=14)


@pytest.mark.parametrize("path", ["src/webapp", "src/webapp/", "src"])
def test_a_folder_asked_for_as_a_file_is_named_a_folder_with_its_first_files(client, world, path):
    """An agent that asks for a folder learns it is one and which files to ask for (was: only
    `not a file`, with no hint)."""
    with pytest.raises(NotFound) as caught:
        client.call("context.file", repo=world.repo, path=path)
    message = caught.value.message
    # the world at main holds five files under src/webapp, all of src: named in path order
    assert message.endswith("it is a folder holding 5 files: src/webapp/__init__.py, src/webapp/app.py, "
                            "src/webapp/auth.py, src/webapp/cli.py, src/webapp/views.py"), message
    with pytest.raises(NotFound) as caught:
        client.call("context.file", repo=world.repo, path="src/web")  # a prefix of a folder's name is none
    assert "folder" not in caught.value.message


def test_file_neighbours_and_outline_over_their_cap_page_through_a_section(big):
    # django/utils/text.py at 5.0.2 has 23 importers: 20 were shown, truncated, with no cursor
    c = context_tools.Client(store=big.store)
    d = c.call("context.file", repo=big.repo, rev=big.head, path="src/bigpkg/core.py", content=False).data
    first = d.meta.importers
    assert (first.total, first.returned, first.truncated) == (100, 20, True) and first.cursor
    seen, cursor = list(first.items), first.cursor
    while cursor:
        r = c.call("context.file", repo=big.repo, rev=big.head, path="src/bigpkg/core.py", content=False,
                   section="importers", cursor=cursor)
        assert r.data.section == "importers" and r.page.total == 100
        seen += r.data.items
        cursor = r.page.cursor
    assert seen == sorted(set(seen)) and len(seen) == 100
    # a collection within its cap says so: nothing more to fetch
    assert d.meta.imports.truncated is False and d.meta.imports.cursor is None
    outline = c.call("context.file", repo=big.repo, rev=big.head, path="src/bigpkg/long_module.py",
                     content=False).data.outline
    assert (outline.total, outline.returned, outline.truncated) == (1500, 200, True) and outline.cursor
    rest = c.call("context.file", repo=big.repo, rev=big.head, path="src/bigpkg/long_module.py", content=False,
                  section="outline", cursor=outline.cursor)
    assert rest.data.items[0].qualified == "VALUE_200"


def test_embedded_cursor_pages_its_section_whatever_the_file_call_asked_for(big):
    # a cursor shown in `context file X --start-line 40 --no-outline` was bound to those options,
    # so the section call it offers (`--section importers --cursor C`) refused it as another query
    c = context_tools.Client(store=big.store)
    path = "src/bigpkg/core.py"
    shown = c.call("context.file", repo=big.repo, rev=big.head, path=path, start_line=2, limit=1,
                   outline=False).data.meta.importers
    plain = c.call("context.file", repo=big.repo, rev=big.head, path=path).data.meta.importers
    assert shown.cursor == plain.cursor
    rest = c.call("context.file", repo=big.repo, rev=big.head, path=path, section="importers", cursor=shown.cursor)
    assert rest.data.items[0] not in shown.items and rest.page.returned == 20
    # the section call's own whole-file options do not matter either, nor a `./` before the path
    again = c.call("context.file", repo=big.repo, rev=big.head, path="./" + path, section="importers",
                   cursor=shown.cursor, start_line=2, content=False)
    assert again.data.items == rest.data.items and again.page.cursor == rest.page.cursor


# --- context.overview and context.map ----------------------------------------------------

def test_overview_identity_languages_packages_dependencies(client, world):
    d = client.call("context.overview", repo=world.repo).data
    assert (d.identity.oid, d.identity.rev) == (world.head, "HEAD")
    langs = {x.language: (x.files, x.lines) for x in d.languages.items}
    assert langs["python"] == (6, 37) and langs["javascript"] == (1, 7)
    assert [p.name for p in d.packages.items] == ["webapp"]
    assert {x.name for x in d.dependencies.items} == {"click", "itsdangerous"}
    assert d.top_files.items[0].path == "src/webapp/app.py"
    assert d.totals.files == 9 and d.totals.symbols >= 10
    # the total stored with the snapshot is the count of its symbols
    from indexer import api
    from indexer.store.database import Store
    with Store.open(world.store) as store:
        snap = api.snapshot(world.repo, "HEAD", store=store, index_if_absent=False)
        assert d.totals.symbols == sum(1 for _ in snap.symbols()) == snap.symbol_count


def test_overview_section_pages_with_cursor(client, world):
    first = client.call("context.overview", repo=world.repo, section="dependencies", limit=1)
    assert (first.page.total, first.page.returned, first.page.truncated) == (2, 1, True)
    second = client.call("context.overview", repo=world.repo, section="dependencies", limit=1,
                         cursor=first.page.cursor)
    assert {first.data.items[0].name, second.data.items[0].name} == {"click", "itsdangerous"}
    assert second.page.truncated is False and second.page.cursor is None


def test_a_summary_refuses_a_page_size_without_a_section(client, world):
    # `context overview --limit 3` answered the usual summary (10 a section) as if asked for it
    for command, extra in (("context.overview", {}), ("context.novelty", {"base": "v1"})):
        with pytest.raises(BadInput, match="`limit` pages one section"):
            client.call(command, repo=world.repo, limit=3, **extra)
        with pytest.raises(BadInput, match="`cursor` pages one section"):
            client.call(command, repo=world.repo, cursor="eyJvIjoxfQ.x", **extra)
        assert client.call(command, repo=world.repo, cursor="", **extra).page is None  # an empty cursor is none


def test_an_empty_cursor_is_none_the_first_page(client, world):
    """docs/tools.md: an empty cursor (what some clients send for an argument left out) is no
    cursor at all: the first page, on every command that pages, never `bad_cursor`."""
    import msgspec

    for command, args in (("context.file", dict(path="src/webapp/app.py", limit=2)),
                          ("context.file", dict(path="src/webapp/app.py", start_line=3, limit=2)),
                          ("context.file", dict(path="src/webapp/app.py", section="outline", limit=1)),
                          ("context.symbol", dict(name="route", limit=1)),
                          ("context.references", dict(name="Flask", limit=1)),
                          ("context.map", dict(budget=700))):
        plain = client.call(command, repo=world.repo, **args)
        empty = client.call(command, repo=world.repo, cursor="", **args)
        assert plain.page is not None and plain.page.truncated, (command, args)
        assert msgspec.to_builtins((empty.data, empty.page)) == msgspec.to_builtins((plain.data, plain.page))


def test_a_map_cursor_past_the_end_of_the_map_is_bad_cursor(client, world):
    """A cursor that verifies but points past the map's last file is refused, not answered
    with an empty page (made here as the server makes its own, from the query's digest)."""
    from context_tools.faces.dispatch import decode_input
    from context_tools.faces.pages import encode_cursor, input_digest
    from context_tools.faces.registry import registry

    first = client.call("context.map", repo=world.repo, budget=700)
    assert first.page.truncated
    digest = input_digest(decode_input(registry().get("context.map"), {"repo": world.repo, "budget": 700}))
    at = dict(command="context.map", input_digest=digest, binding=first.freshness.fingerprint)
    assert client.call("context.map", repo=world.repo, budget=700, cursor=encode_cursor(1, **at)).page.returned
    with pytest.raises(BadCursor, match="past the end of the map"):
        client.call("context.map", repo=world.repo, budget=700, cursor=encode_cursor(first.page.total + 1, **at))


def test_map_is_ranked_and_fits_the_budget(client, world):
    import msgspec

    r = client.call("context.map", repo=world.repo, budget=400)
    files = r.data.files
    assert files[0].path == "src/webapp/app.py"  # most imported file ranks first
    # signature lines, a method indented under its class
    assert files[0].symbols[:3] == ["class Flask:", "  def __init__(self, name):", "  def route(self, rule, methods=None):"]
    assert len(msgspec.json.encode(files)) <= 400
    assert r.page.truncated and r.page.returned == len(files) < r.page.total
    rest = client.call("context.map", repo=world.repo, budget=400, cursor=r.page.cursor)
    assert not {f.path for f in files} & {f.path for f in rest.data.files}


def test_map_personalized_to_focus(client, world):
    plain = client.call("context.map", repo=world.repo)
    focused = client.call("context.map", repo=world.repo, focus=["tools/other.py", "NoSuchThing"])
    assert focused.data.ranking == "personalized_pagerank"
    assert focused.data.focus_files == ["tools/other.py"]
    assert focused.data.unmatched_focus == ["NoSuchThing"]
    assert focused.data.files[0].path == "tools/other.py"
    assert plain.data.files[0].path != "tools/other.py"
    by_symbol = client.call("context.map", repo=world.repo, focus=["Router"])
    assert by_symbol.data.focus_files == ["web/router.js"]


# --- context.novelty ------------------------------------------------------------------

def test_novelty_against_base(client, world):
    d = client.call("context.novelty", repo=world.repo, base="v1", head="main").data
    assert (d.base.oid, d.head.oid) == (world.base, world.head)
    assert {(c.path, c.change) for c in d.files.items} == {
        ("pyproject.toml", "modified"), ("src/webapp/app.py", "modified"), ("src/webapp/auth.py", "added")}
    symbols = {(s.qualified, s.change) for s in d.symbols.items}
    assert {("Flask.route", "changed"), ("Flask.add_url_rule", "added"), ("Flask.run", "removed"),
            ("SignedToken", "added"), ("SignedToken.verify", "added")} <= symbols
    changed = next(s for s in d.symbols.items if s.qualified == "Flask.route")
    assert changed.previous_signature == "def route(self, rule):"
    assert [(x.name, x.change) for x in d.dependencies.items] == [("itsdangerous", "added")]
    assert "zanzibar_secret" in d.identifiers.items and "SignedToken" in d.identifiers.items
    assert "Flask" not in d.identifiers.items  # defined in base
    assert "self" not in d.identifiers.items and "name" not in d.identifiers.items  # used in base
    api = {(a.qualified, a.change) for a in d.public_api.items}
    assert ("Flask.add_url_rule", "added") in api


def test_novelty_sections_page(client, world):
    r = client.call("context.novelty", repo=world.repo, base="v1", section="identifiers", limit=1)
    assert r.page.total >= 2 and r.page.returned == 1 and r.page.cursor
    r2 = client.call("context.novelty", repo=world.repo, base="v1", section="identifiers", limit=1,
                     cursor=r.page.cursor)
    assert r2.data.items != r.data.items


def test_embedded_section_cursor_continues_through_the_section_call(big):
    c = context_tools.Client(store=big.store)
    summary = c.call("context.novelty", repo=big.repo, base=big.base, head=big.head).data
    files = summary.files
    assert files.truncated and files.total == 41 and files.returned == 20  # 40 modules + pyproject.toml
    rest = c.call("context.novelty", repo=big.repo, base=big.base, head=big.head, section="files",
                  cursor=files.cursor)
    assert rest.data.items[0].path not in {f.path for f in files.items}
    assert (rest.page.total, rest.page.returned, rest.page.truncated) == (41, 21, False)


# --- pages and cursors ---------------------------------------------------------------

def test_per_command_caps_bound_pages(big):
    c = context_tools.Client(store=big.store)
    refs = c.call("context.references", repo=big.repo, rev=big.head, name="handle")
    assert refs.page.total > 200 and refs.page.returned == 200 and refs.page.truncated
    lines = c.call("context.file", repo=big.repo, rev=big.head, path="src/bigpkg/long_module.py")
    assert lines.page.returned == 400 and lines.page.total == 1500
    with pytest.raises(BadInput):
        c.call("context.references", repo=big.repo, rev=big.head, name="handle", limit=201)


def test_cursor_walks_every_site_once(big):
    c = context_tools.Client(store=big.store)
    seen, cursor = [], None
    while True:
        r = c.call("context.references", repo=big.repo, rev=big.head, name="handle", limit=150, cursor=cursor)
        seen += [(s.path, s.line, s.col) for s in r.data.sites]
        cursor = r.page.cursor
        if not cursor:
            break
    assert len(seen) == len(set(seen)) == r.page.total


def test_a_page_size_may_change_between_pages_and_never_passes_the_cap(big):
    """pages.py: the query binds a cursor, its page size does not; a section's page is held to
    the section's own cap whatever `limit` the file call allows."""
    c = context_tools.Client(store=big.store)
    seen, cursor, sizes = [], None, iter([150, 60])
    while True:
        r = c.call("context.references", repo=big.repo, rev=big.head, name="handle", limit=next(sizes, 200),
                   cursor=cursor)
        seen += [(s.path, s.line, s.col) for s in r.data.sites]
        cursor = r.page.cursor
        if not cursor:
            break
    assert len(seen) == len(set(seen)) == r.page.total
    section = c.call("context.file", repo=big.repo, rev=big.head, path="src/bigpkg/core.py", section="importers",
                     limit=400)
    assert (section.page.total, section.page.returned, section.page.truncated) == (100, 20, True)


def test_a_warm_client_answers_from_the_new_pin_once_the_rev_is_indexed_again(tmp_path):
    from corpora.gitbuild import RepoBuilder

    repo = RepoBuilder(tmp_path / "repo")
    first = repo.commit({"m.py": "def before():\n    return 1\n"})
    c = context_tools.Client(store=str(tmp_path / "store"))
    c.call("repo.index", repo=str(repo.path), rev="main")
    assert c.call("context.symbol", repo=str(repo.path), rev="main", name="before").freshness.pinned_oid == first
    moved = repo.commit({"m.py": "def after():\n    return 2\n"})
    assert c.call("context.symbol", repo=str(repo.path), rev="main", name="before").freshness.status == "stale"
    c.call("repo.index", repo=str(repo.path), rev="main")
    r = c.call("context.symbol", repo=str(repo.path), rev="main", name="after")
    assert (r.freshness.pinned_oid, r.freshness.status) == (moved, "current")
    assert [d.path for d in r.data.definitions] == ["m.py"]


def test_tampered_cursor_is_bad_cursor(client, world):
    r = client.call("context.file", repo=world.repo, path="src/webapp/app.py", limit=2)
    payload, mac = r.page.cursor.split(".")
    import base64
    import json

    body = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    body["o"] = 8
    forged = base64.urlsafe_b64encode(json.dumps(body, separators=(",", ":")).encode()).decode().rstrip("=")
    for bad in (f"{forged}.{mac}", r.page.cursor[:-1] + ("0" if r.page.cursor[-1] != "0" else "1"), "garbage"):
        with pytest.raises(BadCursor):
            client.call("context.file", repo=world.repo, path="src/webapp/app.py", limit=2, cursor=bad)


def test_cursor_from_another_snapshot_or_query_is_bad_cursor(client, world):
    r = client.call("context.file", repo=world.repo, rev="main", path="src/webapp/app.py", limit=2)
    with pytest.raises(BadCursor) as raised:
        client.call("context.file", repo=world.repo, rev="v1", path="src/webapp/app.py", limit=2,
                    cursor=r.page.cursor)
    # another rev is another query (that it read another snapshot follows): neither the working
    # tree nor a re-index is blamed (was: "issued for another snapshot", checked first)
    assert raised.value.message.startswith("cursor was issued for a different query: give it with the same inputs")
    with pytest.raises(BadCursor, match="different query"):
        client.call("context.file", repo=world.repo, rev="main", path="src/webapp/cli.py", limit=2,
                    cursor=r.page.cursor)
    with pytest.raises(BadCursor):
        client.call("context.symbol", repo=world.repo, name="route", cursor=r.page.cursor)


def test_a_cursor_of_a_rev_indexed_again_says_so_on_every_face(tmp_path):
    """A cursor handed out before its rev was indexed again at another commit: `bad_cursor`
    saying the rev was indexed again, that the cursor's pages are gone and to ask again without
    it, over the CLI, MCP (the executor of an agent face) and Python alike (was: "cursor was
    issued for another snapshot; repeat the query without a cursor")."""
    from context_tools.faces.dispatch import Executor
    from context_tools.faces.roots import Roots
    from corpora.gitbuild import RepoBuilder
    from tests.cli_runs import run_cli

    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({f"m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(3)})
    home, repo = str(tmp_path / "store"), str(builder.path)
    python = context_tools.Client(store=home)
    first = python.call("context.symbol", repo=repo, name="f", limit=1)
    assert first.page.cursor and first.page.truncated
    builder.commit({"m9.py": "def f9():\n    return 9\n"})
    python.call("repo.index", repo=repo)  # HEAD moved and indexed again: another snapshot
    said = ("cursor was issued for another snapshot: HEAD was indexed again since the page it came from (it names "
            "another commit now, or its snapshot was replaced), and this call read the snapshot HEAD names now; the "
            "pages the cursor was for are gone: repeat the query without a cursor to page what it holds now")
    with pytest.raises(BadCursor) as raised:
        python.call("context.symbol", repo=repo, name="f", limit=1, cursor=first.page.cursor)
    assert raised.value.message == said
    agent = Executor("mcp", store=home, roots=Roots.of([str(tmp_path)]))
    told = agent.run("context.symbol", {"repo": repo, "name": "f", "limit": 1, "cursor": first.page.cursor})
    assert told.envelope["error"] == {"code": "bad_cursor", "message": said}
    cli = run_cli("context", "symbol", "f", "--repo", repo, "--limit", "1", "--cursor", first.page.cursor, home=home)
    assert (cli.returncode, cli.stderr) == (1, f"rennet: bad_cursor: {said}\n")
    assert python.call("context.symbol", repo=repo, name="f", limit=1).page.total == 4


def test_a_cursor_given_without_the_options_of_its_query_says_to_give_them(client, world):
    """`context map --budget 300` printed `next: --cursor X`; `context map --cursor X`, as the hint
    read, is another query, and the error said to repeat it without a cursor (was both). The hint
    says the same command, the error to give the same inputs."""
    from context_tools.faces.render import footer

    r = client.call("context.map", repo=world.repo, budget=300)
    assert r.page.cursor and footer(r)[0].endswith(f"next: the same command with --cursor {r.page.cursor}")
    with pytest.raises(BadCursor) as err:
        client.call("context.map", repo=world.repo, cursor=r.page.cursor)
    assert err.value.message.startswith("cursor was issued for a different query: give it with the same inputs "
                                        "as the call that returned it")


# --- typed errors ----------------------------------------------------------------------

def test_unknown_input_fields_are_rejected_for_every_command(client, world):
    from context_tools.faces.registry import registry

    for row in registry().rows:
        if not row.runnable or "python" not in row.surfaces:
            continue
        with pytest.raises(BadInput, match="unknown field"):
            client.call(row.id, repo=world.repo, no_such_field=1)


def test_bad_repo_and_rev_are_typed(client, world, tmp_path):
    from indexer.contract.errors import RennetError

    with pytest.raises(RennetError) as err:
        client.call("context.symbol", repo=str(tmp_path), name="x")
    assert err.value.code == "not_a_repository"
    with pytest.raises(RennetError) as err:
        client.call("context.symbol", repo=world.repo, rev="no-such-branch", name="x")
    assert err.value.code == "unknown_rev"
    # not "... ('no-such-branch')"; then the branches it may have meant
    assert err.value.message == "unknown revision 'no-such-branch'; the repository's branches: feature, main"


def test_outside_any_repository_the_error_names_the_folder_and_what_to_do(client, tmp_path, monkeypatch):
    """Run with no repo from a folder in no repository (was: `. is not a git repository`, naming
    no folder, in the message and in the ledger, and no next step)."""
    from indexer.contract.errors import RennetError

    monkeypatch.chdir(tmp_path)
    with pytest.raises(RennetError) as err:
        client.call("context.overview")
    assert err.value.code == "not_a_repository"
    assert err.value.message == (f". ({tmp_path}) is not a git repository, nor is any folder above it: "
                                 "run inside one, or name one as repo (--repo PATH)")
    (tmp_path / "sub").mkdir()
    with pytest.raises(RennetError) as err:
        client.call("context.overview", repo="sub")
    assert err.value.message == f"sub ({tmp_path / 'sub'}) is not a git repository, nor is any folder above it"
    # an agent runs nothing inside a folder: its face says what to pass, and no CLI option
    from context_tools.faces.dispatch import Executor
    from context_tools.faces.roots import Roots

    agent = Executor("mcp", store=str(tmp_path / "home"), roots=Roots.of([str(tmp_path)])).run("context.overview", {})
    assert agent.envelope["error"]["message"] == (
        f". ({tmp_path}) is not a git repository, nor is any folder above it - pass `repo`: the path of a Git "
        f"repository on the server's machine, under one of its roots ({tmp_path})")


def test_python_face_refuses_commands_it_does_not_run(world):
    from context_tools.faces.registry import registry

    cli_only = [r for r in registry().rows if r.runnable and "python" not in r.surfaces]
    for row in cli_only:
        with pytest.raises(Unavailable) as err:
            context_tools.Client(store=world.store).call(row.id)
        assert err.value.reason == "surface_not_supported"


@pytest.mark.parametrize("language, qualified, kind, signature, public", [
    ("python", "Flask.route", "method", "def route(self):", True),
    ("python", "Flask._hidden", "method", "def _hidden(self):", False),
    ("python", "_Private.run", "method", "def run(self):", False),
    ("python", "Flask.__init__", "method", "def __init__(self):", True),
    ("go", "Server.Handle", "method", "func (s *Server) Handle()", True),
    ("go", "helper", "function", "func helper()", False),
    ("rust", "parse", "function", "pub fn parse()", True),
    ("rust", "inner", "function", "fn inner()", False),
    ("java", "Api.get", "method", "public String get()", True),
    ("java", "Api.secret", "method", "private String secret()", False),
    ("typescript", "route", "function", "export function route(p)", True),
    ("typescript", "local", "function", "function local()", False),
    ("c", "api_call", "function", "int api_call(void)", True),
    ("c", "helper", "function", "static int helper(void)", False),
])
def test_public_api_visibility_rules(language, qualified, kind, signature, public):
    from context_tools.query.novelty import visibility

    assert (visibility(language, qualified, kind, signature) is not None) is public


def test_a_face_settling_its_cache_later_lets_the_cache_and_its_thread_go_with_it(world: World):
    """A server's executor weighs its cache on a thread of the cache's own (`settle="later"`).
    That thread held the cache for good, so an executor let go kept every snapshot its cache
    held, up to its budget, and a thread, for the rest of the process (was: one more cache and
    thread alive for each executor made and dropped). Now both go with the executor."""
    import gc
    import weakref

    from context_tools.faces.dispatch import Executor

    executor = Executor("mcp", store=world.store, settle="later")
    assert executor.run("context.overview", {"repo": world.repo}).ok
    memo = weakref.ref(executor.handle.memo)
    settler = executor.handle.memo._settler
    assert settler is not None and settler.is_alive() and memo() is not None
    del executor
    gc.collect()
    assert memo() is None
    settler.join(timeout=60)
    assert not settler.is_alive()


def test_cached_snapshots_are_bounded_least_recently_used():
    from context_tools.faces.context import Memo

    memo = Memo(limit=2)
    memo["a"], memo["b"] = 1, 2
    assert memo.get("a") == 1  # touching a keeps it
    memo["c"] = 3
    assert (memo.get("a"), memo.get("b"), memo.get("c"), len(memo)) == (1, None, 3, 2)
