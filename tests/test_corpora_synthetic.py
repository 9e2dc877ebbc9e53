"""The synthetic generator: deterministic, sized as asked, with a fan-in that matches its sources."""

from __future__ import annotations

import json
import re

import pygit2
import pytest

from corpora.synthetic import generate, main


def blobs(repo: pygit2.Repository, commit: str) -> dict[str, bytes]:
    out: dict[str, bytes] = {}

    def walk(tree: pygit2.Tree, prefix: str) -> None:
        for e in tree:
            if e.filemode == pygit2.GIT_FILEMODE_TREE:
                walk(repo[e.id], prefix + e.name + "/")
            else:
                out[prefix + e.name] = repo[e.id].data
    walk(repo[commit].peel(pygit2.Tree), "")
    return out


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return generate(tmp_path_factory.mktemp("syn") / "repo.git", files=400, seed=7, change_share=0.02)


def test_same_seed_same_commits(corpus, tmp_path):
    again = generate(tmp_path / "again.git", files=400, seed=7, change_share=0.02)
    assert again.commits == corpus.commits and again.fan_in == corpus.fan_in
    other = generate(tmp_path / "other.git", files=400, seed=8, change_share=0.02)
    assert other.commits[0] != corpus.commits[0]


def test_base_has_exactly_the_requested_files_in_every_language(corpus):
    repo = pygit2.Repository(str(corpus.path))
    assert repo.is_bare
    files = blobs(repo, corpus.commits[0])
    assert len(files) == corpus.files == 400
    exts = {p.rsplit(".", 1)[-1] for p in files}
    assert {"py", "ts", "js", "go", "rs", "java", "c", "h"} <= exts
    assert set(corpus.fan_in) <= set(files)


def test_follow_up_changes_the_chosen_share_and_keeps_imports(corpus):
    repo = pygit2.Repository(str(corpus.path))
    diff = repo.diff(repo[corpus.commits[0]], repo[corpus.commits[1]])
    changed = sorted(d.new_file.path for d in diff.deltas)
    assert changed == corpus.changed[0]
    assert 0.01 * corpus.files <= len(changed) <= 0.03 * corpus.files
    before, after = blobs(repo, corpus.commits[0]), blobs(repo, corpus.commits[1])
    import_line = re.compile(rb"^(from |import |use |#include|\t\")")
    for path in changed:
        assert [l for l in before[path].splitlines() if import_line.match(l)] == \
               [l for l in after[path].splitlines() if import_line.match(l)], path


def test_fan_in_matches_the_import_lines_in_the_sources(corpus):
    """Recount fan-in from the written text (per language import syntax), independent of the generator's bookkeeping."""
    repo = pygit2.Repository(str(corpus.path))
    files = blobs(repo, corpus.commits[0])
    importers: dict[str, set[str]] = {p: set() for p in corpus.fan_in}
    go_pkgs: dict[str, list[str]] = {}
    for p in files:
        if p.endswith(".go"):
            go_pkgs.setdefault(p.rsplit("/", 1)[0], []).append(p)
    for path, data in files.items():
        text = data.decode()
        d = path.rsplit("/", 1)[0]
        if path.endswith(".py"):
            for pkg, mod in re.findall(r"^from synth\.(\w+) import (\w+)$", text, re.M):
                importers[f"python/src/synth/{pkg}/{mod}.py"].add(path)
        elif path.endswith((".ts", ".js")):
            for rel in re.findall(r'from "(\.[^"]+)"', text):
                parts = (d + "/" + rel.removesuffix(".js")).split("/")
                stack: list[str] = []
                for s in parts:
                    if s == "..":
                        stack.pop()
                    elif s != ".":
                        stack.append(s)
                importers["/".join(stack) + path[-3:]].add(path)
        elif path.endswith(".go"):
            for pkg in re.findall(r'^\t"example\.com/synth/(\w+)"$', text, re.M):
                for t in go_pkgs["go/" + pkg]:
                    importers[t].add(path)
        elif path.endswith(".rs"):
            for mod in re.findall(r"^(?:pub mod|use crate::)\s*(\w+)", text, re.M):
                importers[f"{path.split('/src/')[0]}/src/{mod}.rs"].add(path)
        elif path.endswith(".java"):
            for pkg, cls in re.findall(r"^import com\.synth\.(\w+)\.(\w+);$", text, re.M):
                importers[f"java/src/main/java/com/synth/{pkg}/{cls}.java"].add(path)
        elif path.endswith(".c"):
            for h in re.findall(r'^#include "([^"]+)"$', text, re.M):
                importers["c/include/" + h].add(path)
    assert {p: len(s) for p, s in importers.items()} == corpus.fan_in
    assert max(corpus.fan_in.values()) >= 10  # skewed popularity: there are hubs
    stored = json.loads((corpus.path / "synthetic.json").read_text())
    assert stored["fan_in"] == corpus.fan_in


def test_cli_refuses_an_existing_directory(tmp_path, capsys):
    assert main(["--files", "100", "--out", str(tmp_path)]) == 1
    assert capsys.readouterr().err.startswith("bad_input:")
