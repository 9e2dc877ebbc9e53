"""The fixture repositories are deterministic, and their expectations agree with the trees built."""

from __future__ import annotations

import pygit2
import pytest
from tree_sitter import Parser

from corpora.fixtures import (
    SUBMODULE_COMMIT,
    SYMBOL_KINDS,
    TWO_MB,
    build_history,
    build_polyglot,
    polyglot_files,
)
from corpora.gitbuild import Exec
from indexer.lang.grammars import language as grammar
from indexer.lang.registry import GRAMMAR_LANGUAGES

GRAMMARS = sorted(GRAMMAR_LANGUAGES)


def tree_entries(repo: pygit2.Repository, commit: str) -> dict[str, tuple[int, pygit2.Object | None]]:
    out: dict[str, tuple[int, pygit2.Object | None]] = {}

    def walk(tree: pygit2.Tree, prefix: str) -> None:
        for e in tree:
            if e.filemode == pygit2.GIT_FILEMODE_TREE:
                walk(repo[e.id], prefix + e.name + "/")
            elif e.filemode == pygit2.GIT_FILEMODE_COMMIT:
                out[prefix + e.name] = (e.filemode, None)
            else:
                out[prefix + e.name] = (e.filemode, repo[e.id])
    walk(repo[commit].peel(pygit2.Tree), "")
    return out


@pytest.fixture(scope="module")
def polyglot(tmp_path_factory):
    return build_polyglot(tmp_path_factory.mktemp("poly") / "repo")


def test_polyglot_builds_the_same_commit_twice(polyglot, tmp_path):
    again = build_polyglot(tmp_path / "again")
    assert again.commits == polyglot.commits
    assert again.symbols == polyglot.symbols and again.edges == polyglot.edges


def test_history_builds_the_same_commits_twice(tmp_path):
    first = build_history(tmp_path / "a")
    second = build_history(tmp_path / "b")
    assert first.commits == second.commits
    assert len(set(first.commits)) == 5


def test_polyglot_tree_holds_the_awkward_entries(polyglot):
    repo = pygit2.Repository(str(polyglot.path))
    entries = tree_entries(repo, polyglot.head)
    assert sorted(entries) == polyglot.files
    assert entries["docs/README.md"][0] == pygit2.GIT_FILEMODE_LINK
    assert entries["docs/README.md"][1].data == b"../README.md"
    assert entries["external/libfoo"][0] == pygit2.GIT_FILEMODE_COMMIT
    sub = repo[polyglot.head].peel(pygit2.Tree)["external"]
    assert str(repo[sub.id]["libfoo"].id) == SUBMODULE_COMMIT
    assert entries["scripts/deploy"][0] == pygit2.GIT_FILEMODE_BLOB_EXECUTABLE
    assert b"\0" in entries["docs/logo.png"][1].data
    assert entries["data/words.txt"][1].size > TWO_MB
    minified = entries["js/public/app.min.js"][1].data
    assert minified.count(b"\n") == 0 and len(minified) > 10_000
    assert b"DO NOT EDIT" in entries["go/internal/version/version_gen.go"][1].data.splitlines()[0]
    assert b"js/src/schema.ts linguist-generated" in entries[".gitattributes"][1].data
    assert repo.references["refs/tags/v1"].target == pygit2.Oid(hex=polyglot.head)


def test_polyglot_expectations_name_paths_of_the_tree(polyglot):
    files = set(polyglot.files)
    assert {s.path for s in polyglot.symbols} <= files
    assert {p for e in polyglot.edges for p in e} <= files
    assert set(polyglot.fan_in) == set(polyglot.languages) <= files
    assert set(polyglot.marks) <= files and set(polyglot.skipped) <= files
    for ep in polyglot.entry_points:
        assert ep.path == "" or ep.path in files, ep
    for pkg in polyglot.packages:
        assert pkg.manifest in files
    assert {d.manifest for d in polyglot.dependencies} <= {p.manifest for p in polyglot.packages}
    assert {s.kind for s in polyglot.symbols} <= SYMBOL_KINDS


def test_polyglot_covers_every_language_and_entry_point_kind(polyglot):
    assert set(polyglot.languages.values()) == set(GRAMMARS)
    assert {ep.kind for ep in polyglot.entry_points} == {
        "console_script", "python_main_file", "python_main_block", "npm_bin", "npm_main", "go_main", "rust_bin",
    }
    assert {p.ecosystem for p in polyglot.packages} == {"pypi", "npm", "go", "cargo", "maven"}


def test_polyglot_fan_in_counts_distinct_importers(polyglot):
    assert polyglot.fan_in["python/src/app/models.py"] == 3
    assert polyglot.fan_in["c/include/poly/vec.h"] == 3
    assert polyglot.fan_in["rust/src/shapes/mod.rs"] == 1  # `mod shapes;` and `use crate::shapes` are one importer
    assert polyglot.fan_in["python/src/app/cli.py"] == 1
    assert polyglot.fan_in["scripts/deploy"] == 0
    for path, n in polyglot.fan_in.items():
        assert n == len({s for s, t in polyglot.edges if t == path})


def test_polyglot_symbol_lines_point_at_their_names(polyglot):
    files = polyglot_files()
    for s in polyglot.symbols:
        content = files[s.path]
        text = content.data if isinstance(content, Exec) else content
        assert s.name in text.splitlines()[s.line - 1], s


@pytest.mark.parametrize("language", sorted(GRAMMARS))
def test_polyglot_sources_parse_without_errors(polyglot, language):
    parser = Parser(grammar(language))
    files = polyglot_files()
    paths = [p for p, lang in polyglot.languages.items() if lang == language]
    assert paths
    for p in paths:
        content = files[p]
        text = content.data if isinstance(content, Exec) else content
        assert not parser.parse(text.encode()).root_node.has_error, p


def test_history_changes_match_git_diffs(tmp_path):
    hist = build_history(tmp_path / "h")
    repo = pygit2.Repository(str(hist.path))
    letters = {pygit2.GIT_DELTA_ADDED: "A", pygit2.GIT_DELTA_MODIFIED: "M", pygit2.GIT_DELTA_DELETED: "D"}
    for k in range(1, len(hist.commits)):
        diff = repo.diff(repo[hist.commits[k - 1]], repo[hist.commits[k]])
        got = {d.new_file.path if d.status != pygit2.GIT_DELTA_DELETED else d.old_file.path: letters[d.status]
               for d in diff.deltas}
        assert got == hist.changes[k], k
    head = tree_entries(repo, hist.head)
    assert sorted(head) == hist.files
    assert len([p for p in head if "mod_" in p]) == 99
    assert hist.fan_in["pkg/core.py"] == 100  # 99 handler modules + extra.py
    style = hist.changes[1]
    assert list(style) == ["pkg/mod_007.py"]  # 1 file of 102: the "1% change"
