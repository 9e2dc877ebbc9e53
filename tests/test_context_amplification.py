"""What a commit under review can make an agent's query spend. Git stores a file once however
many paths hold it, so a commit of kilobytes can put one module at hundreds of paths, or a
name's thousand uses at a hundred thousand: a query reads a blob's facts once, and a
references answer reads a bounded number of sites, the defining files and their importers
first, counting the files it leaves unread."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pygit2

import context_tools
from corpora.gitbuild import RepoBuilder
from tests.test_context_world import ROOT
from tests.test_hostile_trees import BLOB, TREE, blob, raw_commit, raw_tree


def _many_paths(tmp_path: Path, files: dict[str, str], shared: str, folders: int, per_folder: int) -> str:
    """A commit of `files` and `folders` folders of `per_folder` paths each holding the one blob
    of `shared`; returns the repository's path (its `main` branch is the commit)."""
    b = RepoBuilder(tmp_path / "repo")
    first = b.commit(files)
    repo = b.repo
    one = blob(repo, shared)
    folder = raw_tree(repo, [(BLOB, f"u{i:04d}.py".encode(), one) for i in range(per_folder)])
    base = repo[first].peel(pygit2.Tree)
    entries = [(BLOB, e.name.encode(), e.id) for e in base]
    entries += [(TREE, f"d{i:03d}".encode(), folder) for i in range(folders)]
    head = raw_commit(repo, raw_tree(repo, sorted(entries, key=lambda e: e[1])), pygit2.Oid(hex=first), branch=None)
    repo.references.create("refs/heads/main", pygit2.Oid(hex=head), force=True)
    return str(tmp_path / "repo")


def test_one_module_at_many_paths_has_its_facts_decoded_once(tmp_path, monkeypatch):
    """300 paths of one module of 2,000 definitions: `context.symbol` answers each path's
    definition, and `context.references` each path's own site, with the module's facts
    decoded once for the definitions and once more, whole, for the sites (was: once a path, each kept: 335 paths of a module of 50,000 definitions,
    a repository of kilobytes, took 23 s and 9.5 GB for `context symbol`, 86 s and 21 GB for
    `context references`; now 0.5 s and 100 MB)."""
    from indexer.store import records, snapshot

    module = "".join(f"def f{i}():\n    pass\n\n\n" for i in range(2000))
    repo = _many_paths(tmp_path, {"ok.py": "x = 1\n"}, module, 3, 100)
    client = context_tools.Client(store=str(tmp_path / "home"))
    client.call("repo.index", repo=repo, rev="main")
    decoded: Counter[int] = Counter()
    for module_of in (snapshot, records):
        if hasattr(module_of, "decode_facts"):
            original = module_of.decode_facts

            def counting(raw, original=original):
                facts = original(raw)
                decoded[len(facts.symbols)] += 1
                return facts

            monkeypatch.setattr(module_of, "decode_facts", counting)
    found = client.call("context.symbol", repo=repo, rev="main", name="f123", limit=50)
    assert found.page.total == 300
    assert [d.path for d in found.data.definitions] == [f"d000/u{j:04d}.py" for j in range(50)]
    assert decoded[2000] == 1
    used = client.call("context.references", repo=repo, rev="main", name="f77", include_definitions=True)
    assert used.page.total == 300 and used.data.files_unread == 0
    assert decoded[2000] == 2  # the whole facts once more, occurrences and all: never once a path


def _references_with_sites_bound(repo: str, home: Path, bound: int, name: str) -> dict:
    """`context.references` of NAME as `rennet call` prints it, asked with REFERENCE_SITES at
    `bound` by a client of its own (an answer another client kept is never this one's)."""
    from unittest import mock

    from context_tools.query.symbols import sites

    with mock.patch.object(sites, "REFERENCE_SITES", bound):
        return context_tools.Client(store=str(home)).envelope("context.references", repo=repo, rev="main",
                                                              name=name, limit=200)


def test_a_references_answer_reads_a_bounded_number_of_sites_its_importers_first(tmp_path):
    """`f` is defined in m.py, imported and used three times by each of 40 paths of one blob
    (`d000/...`), and named three times by each of 40 paths of another that does not import it
    (`a000/...`, before them in path order). With room for 91 sites the answer reads m.py's own
    (its definition) and then its importers': every site it gives is an import, and the files it could not read
    are counted, never guessed at; with one fewer, m.py, after the importers in path order, is
    still read first. With room for all, nothing is left unread and the counts cover every site."""
    b = RepoBuilder(tmp_path / "repo")
    first = b.commit({"m.py": "def f():\n    pass\n"})
    repo = b.repo
    user = raw_tree(repo, [(BLOB, f"u{i:02d}.py".encode(), blob(repo, "from m import f\nf()\nf()\n"))
                           for i in range(40)])
    stranger = raw_tree(repo, [(BLOB, f"s{i:02d}.py".encode(), blob(repo, "print(f)\nprint(f)\nprint(f)\n"))
                               for i in range(40)])
    base = repo[first].peel(pygit2.Tree)
    entries = [(BLOB, e.name.encode(), e.id) for e in base] + [(TREE, b"a000", stranger), (TREE, b"d000", user)]
    head = raw_commit(repo, raw_tree(repo, sorted(entries, key=lambda e: e[1])), pygit2.Oid(hex=first), branch=None)
    repo.references.create("refs/heads/main", pygit2.Oid(hex=head), force=True)
    home = tmp_path / "home"
    context_tools.Client(store=str(home)).call("repo.index", repo=str(tmp_path / "repo"), rev="main")

    whole = _references_with_sites_bound(str(tmp_path / "repo"), home, 1 << 18, "f")["data"]
    assert whole["files_unread"] == 0
    assert whole["by_resolution"]["import"] == 40 * 3  # each importer's import and two calls
    assert whole["by_resolution"]["name_match"] == 40 * 3
    bounded = _references_with_sites_bound(str(tmp_path / "repo"), home, 91, "f")["data"]
    assert bounded["by_resolution"] == {"import": 90, "same_file": 0, "same_package": 0, "name_match": 0, "text": 0}
    assert bounded["files_unread"] == 80 - 30  # m.py and 30 importers read whole; 10 importers and 40 strangers not
    assert {s["path"] for s in bounded["sites"]} == {f"d000/u{i:02d}.py" for i in range(30)}
    # one fewer: m.py, though after its importers in path order, is still read first, and the
    # 30th importer no longer fits
    tighter = _references_with_sites_bound(str(tmp_path / "repo"), home, 90, "f")["data"]
    assert tighter["by_resolution"]["import"] == 87 and tighter["files_unread"] == 80 - 29
    assert {s["path"] for s in tighter["sites"]} == {f"d000/u{i:02d}.py" for i in range(29)}


def test_a_name_used_at_a_hundred_thousand_paths_is_answered_within_bounded_memory(tmp_path):
    """20 folders of 1,000 paths of one file using `f` 1,001 times: 20 million sites from a
    repository of kilobytes (was: every site read: 2 million took 42 s and 1.4 GB; 200 million
    ran the machine out of its 24 GB). Under a 2 GiB address-space limit the answer reads
    REFERENCE_SITES sites and counts the rest of the files as unread."""
    from context_tools.query.symbols.sites import REFERENCE_SITES

    user = "from m import f\n" + "f()\n" * 1000
    repo = _many_paths(tmp_path, {"m.py": "def f():\n    pass\n"}, user, 20, 1000)
    home = tmp_path / "home"
    context_tools.Client(store=str(home)).call("repo.index", repo=repo, rev="main")
    script = textwrap.dedent(f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
        from context_tools.faces.cli import main
        sys.exit(main(["context", "references", "f", "--repo", {repo!r}, "--rev", "main", "--json"]))
    """)
    env = {**os.environ, "RENNET_HOME": str(home), "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)["data"]
    read = sum(data["by_resolution"].values())
    assert REFERENCE_SITES - 1001 < read <= REFERENCE_SITES and read % 1001 == 0  # whole files
    assert data["files_unread"] == 20_000 - read // 1001



def test_novelty_compares_a_bounded_number_of_definitions_and_counts_the_files_past_it(tmp_path, monkeypatch):
    """300 paths of one module of 2,000 definitions added: 600,000 definitions to compare, from
    a repository of kilobytes. The answer compares whole files in path order up to
    NOVELTY_SYMBOLS and counts the others in `files_unassessed`, in the summary and in each
    section; every file is still in `files` (was: every definition compared: 335 paths of a
    module of 50,000 definitions took 70-90 s and 3.2 GB a call, whatever section was asked;
    now 1 s and 130 MB)."""
    from context_tools.query import novelty

    module = "".join(f"def f{i}():\n    pass\n\n\n" for i in range(2000))
    repo = _many_paths(tmp_path, {"ok.py": "x = 1\n"}, module, 3, 100)
    client = context_tools.Client(store=str(tmp_path / "home"))
    for rev in ("main~1", "main"):
        client.call("repo.index", repo=repo, rev=rev)
    # an eighth of the shipped bound, crossed as it is: a part of the definitions compared
    monkeypatch.setattr(novelty, "NOVELTY_SYMBOLS", novelty.NOVELTY_SYMBOLS // 8)
    compared = novelty.NOVELTY_SYMBOLS // 2000  # whole files only
    summary = client.call("context.novelty", repo=repo, base="main~1", head="main")
    assert summary.data.files_unassessed == 300 - compared
    assert summary.data.files.total == 300
    assert summary.data.symbols.total == compared * 2000 == summary.data.public_api.total
    assert summary.data.identifiers.total == 2000  # the module's names, taken once
    symbols = client.call("context.novelty", repo=repo, base="main~1", head="main", section="symbols", limit=200)
    assert symbols.data.files_unassessed == 300 - compared and symbols.page.total == compared * 2000
    assert symbols.data.items[0].path == "d000/u0000.py"


def test_a_class_subclassed_at_many_paths_is_walked_once_a_name(tmp_path, monkeypatch):
    """300 paths of one file subclassing `Base` and overriding `run`: `Base.run` and `C.run`
    ask the hierarchy of each of 300 classes, which read every definition of `C` and of `run`,
    and the files naming `C`, once a class: the square of the paths (was: 2,000 such paths
    took 17 s for `references Base.run` and 35 s for `C.run`, 10,000 paths 245 s; 100,000 did
    not end in 10 minutes). Each name's definitions are now read once, and the answers are
    the same."""
    from indexer.store.snapshot import Snapshot

    text = ("from m import Base\n\n\nclass C(Base):\n    def run(self):\n        super().run()\n\n\n"
            "def go(c: C):\n    c.run()\n")
    repo = _many_paths(tmp_path, {"m.py": "class Base:\n    def run(self):\n        pass\n"}, text, 3, 100)
    client = context_tools.Client(store=str(tmp_path / "home"))
    client.call("repo.index", repo=repo, rev="main")
    asked: Counter[str] = Counter()
    read = Snapshot.definitions_of
    monkeypatch.setattr(Snapshot, "definitions_of", lambda self, names: asked.update(names) or read(self, names))
    own = client.call("context.references", repo=repo, rev="main", name="C.run")
    assert own.data.definitions_total == 300 and own.data.definitions_attributed == 20
    assert own.data.by_resolution["same_file"] == 300 and own.page.total == 300
    assert asked["C"] <= 3 and asked["run"] <= 3, asked  # was: C 900 times, run 300
    asked.clear()
    inherited = client.call("context.references", repo=repo, rev="main", name="Base.run")
    assert inherited.data.definitions_total == 1 and [d.path for d in inherited.data.definitions] == ["m.py"]
    assert asked["C"] <= 3 and asked["run"] <= 3, asked


def test_definitions_told_apart_are_as_many_as_the_sites_allow(tmp_path, monkeypatch):
    """Each definition resolved on its own is a pass over every site: past SITE_RESOLUTIONS
    resolutions (4 x the 901 occurrences of `run` here) fewer are told apart, as
    `definitions_attributed` says, down to one where not even two passes fit, and the sites
    are the same (was: always 20 passes, so a
    name defined at 100,000 paths and used at each cost 20 passes of 200,000 sites)."""
    from context_tools.query.symbols import sites

    text = "from m import Base\n\n\nclass C(Base):\n    def run(self):\n        super().run()\n\n\ndef go(c: C):\n    c.run()\n"
    repo = _many_paths(tmp_path, {"m.py": "class Base:\n    def run(self):\n        pass\n"}, text, 3, 100)
    client = context_tools.Client(store=str(tmp_path / "home"))
    client.call("repo.index", repo=repo, rev="main")
    whole = client.call("context.references", repo=repo, rev="main", name="C.run", limit=200)
    monkeypatch.setattr(sites, "SITE_RESOLUTIONS", 4 * 901)
    fresh = context_tools.Client(store=str(tmp_path / "home"))  # not the first client's answer, kept
    fewer = fresh.call("context.references", repo=repo, rev="main", name="C.run", limit=200)
    monkeypatch.setattr(sites, "SITE_RESOLUTIONS", 901)  # not room for two passes: one is still made
    one = context_tools.Client(store=str(tmp_path / "home")).call("context.references", repo=repo, rev="main",
                                                                  name="C.run", limit=200)
    assert whole.data.definitions_attributed == 20
    assert fewer.data.definitions_attributed == 3
    assert one.data.definitions_attributed == 1
    assert fewer.data.by_resolution == whole.data.by_resolution == one.data.by_resolution


def test_a_file_read_by_every_definitions_pass_counts_once_against_the_bound(tmp_path):
    """`f` is defined twice in m.py (one definition a branch), and user.py imports it as `g`:
    each definition's pass reads user.py's sites of `g`, but they are read once, so a bound of
    exactly the 5 sites (m.py's two, user.py's `f` and its two `g`) leaves no file unread, and
    one fewer leaves user.py's `g` out, which every pass then goes without."""
    asked_repo = tmp_path / "repo"
    RepoBuilder(asked_repo).commit({
        "m.py": "import os\n\nif os.name:\n    def f():\n        return 1\nelse:\n    def f():\n        return 2\n",
        "user.py": "from m import f as g\n\ng()\n",
    })
    home = tmp_path / "home"
    context_tools.Client(store=str(home)).call("repo.index", repo=str(asked_repo), rev="main")
    exact = _references_with_sites_bound(str(asked_repo), home, 5, "f")["data"]
    assert exact["files_unread"] == 0 and exact["definitions_total"] == 2
    assert sorted((s["path"], s["line"]) for s in exact["sites"]) == [("user.py", 1), ("user.py", 1), ("user.py", 3)]
    short = _references_with_sites_bound(str(asked_repo), home, 4, "f")["data"]
    assert short["files_unread"] == 1
    assert sorted((s["path"], s["line"]) for s in short["sites"]) == [("user.py", 1)]


def test_one_blob_at_paths_of_two_languages_has_each_paths_facts(tmp_path):
    """The same bytes at m.py and m.md: what a query keeps of a file's facts is keyed by blob and
    language, never by blob alone, so m.py's sites are Python's (its definition, not the
    comment's `f`) and m.md's the plain tokenizer's (both words `f`); n.js and n.py, read in
    that order, each have their own language's sites; and novelty, reading m.md first, still
    finds m.py's `f` added."""
    text = "def f():\n    pass\n\n# f is g's\n"
    b = RepoBuilder(tmp_path / "repo")
    b.commit({"base.py": "x = 1\n"})
    # `//` is Python's floor division, a JavaScript comment: only n.py's `h` is a site
    b.commit({"base.py": "x = 1\n", "m.md": text, "m.py": text, "n.js": "y = 1 // h\n", "n.py": "y = 1 // h\n"})
    repo = str(tmp_path / "repo")
    client = context_tools.Client(store=str(tmp_path / "home"))
    for rev in ("main~1", "main"):
        client.call("repo.index", repo=repo, rev=rev)
    used = client.call("context.references", repo=repo, rev="main", name="f", include_definitions=True)
    assert [(s.path, s.line, s.resolution) for s in used.data.sites] == [
        ("m.py", 1, "same_file"), ("m.md", 1, "text"), ("m.md", 4, "text")]
    floor = client.call("context.references", repo=repo, rev="main", name="h")
    assert [(s.path, s.line, s.col) for s in floor.data.sites] == [("n.py", 1, 9)]
    added = client.call("context.novelty", repo=repo, base="main~1", head="main", section="symbols")
    assert [(s.path, s.qualified, s.change) for s in added.data.items] == [("m.py", "f", "added"), ("n.py", "y", "added")]


def test_a_file_moved_whole_costs_nothing_of_the_novelty_bound(tmp_path, monkeypatch):
    """A file renamed unchanged (the same blob) has the same symbols on both sides: none are
    compared, so it takes nothing of NOVELTY_SYMBOLS and is never `files_unassessed`; with room
    for exactly the 2 definitions of the file added, that file is compared whole."""
    from context_tools.query import novelty

    b = RepoBuilder(tmp_path / "repo")
    moved = "def one():\n    pass\n\n\ndef two():\n    pass\n\n\ndef three():\n    pass\n"
    b.commit({"r.py": moved})
    b.commit({"r.py": None, "s.py": moved, "a.py": "def new():\n    pass\n\n\ndef newer():\n    pass\n"})
    repo = str(tmp_path / "repo")
    client = context_tools.Client(store=str(tmp_path / "home"))
    for rev in ("main~1", "main"):
        client.call("repo.index", repo=repo, rev=rev)
    monkeypatch.setattr(novelty, "NOVELTY_SYMBOLS", 2)
    found = client.call("context.novelty", repo=repo, base="main~1", head="main")
    assert [(f.path, f.change) for f in found.data.files.items] == [("a.py", "added"), ("s.py", "renamed")]
    assert found.data.files_unassessed == 0
    assert [(s.path, s.qualified) for s in found.data.symbols.items] == [("a.py", "new"), ("a.py", "newer")]
    monkeypatch.setattr(novelty, "NOVELTY_SYMBOLS", 1)
    short = context_tools.Client(store=str(tmp_path / "home")).call("context.novelty", repo=repo, base="main~1",
                                                                   head="main")
    assert short.data.files_unassessed == 1 and short.data.symbols.total == 0


def test_a_references_pass_keeps_a_files_functions_by_blob_and_language(indexed_files):
    """The same bytes at m.py and m.js: m.py's function `f(c: Client)` types `c`, so its
    `c.get()` is Client.get's; read as JavaScript the file has no such function, and m.js's is
    a `name_match`, whichever of the two is read first."""
    text = "from client import Client\n\n\ndef f(c: Client):\n    return c.get()\n"
    app = indexed_files({"client.py": "class Client:\n    def get(self):\n        pass\n", "m.js": text, "m.py": text})
    r = app.call("context.references", name="get")
    assert [(s.path, s.line, s.resolution) for s in r.data.sites] == [("m.py", 5, "import"), ("m.js", 5, "name_match")]
