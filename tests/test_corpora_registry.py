"""The registry corpus builder, offline: cached release archives -> one commit per version."""

from __future__ import annotations

import io
import tarfile

import pygit2
import pytest

from corpora import registry_corpus as rc


def make_sdist(folder, package: str, version: str, files: dict[str, bytes]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with tarfile.open(folder / f"{package}-{version}.tar.gz", "w:gz") as tf:
        for path, data in files.items():
            info = tarfile.TarInfo(f"{package}-{version}/{path}")
            info.size = len(data)
            info.mode = 0o755 if path.endswith(".sh") else 0o644
            tf.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo(f"{package}-{version}/docs/latest")
        link.type = tarfile.SYMTYPE
        link.linkname = "../README"
        tf.addfile(link)


def tree_files(repo: pygit2.Repository, ref: str) -> dict[str, tuple[int, bytes]]:
    out: dict[str, tuple[int, bytes]] = {}

    def walk(tree, prefix):
        for e in tree:
            if e.filemode == pygit2.GIT_FILEMODE_TREE:
                walk(repo[e.id], prefix + e.name + "/")
            else:
                out[prefix + e.name] = (e.filemode, repo[e.id].data)
    walk(repo.revparse_single(ref).peel(pygit2.Tree), "")
    return out


def test_cached_sdists_become_one_tagged_commit_per_version(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    folder = cache / "pypi" / "django"
    make_sdist(folder, "Django", "5.0.1", {"README": b"v1\n", "django/__init__.py": b"VERSION = 1\n",
                                           "django/old.py": b"x = 1\n", "tools/run.sh": b"#!/bin/sh\n"})
    make_sdist(folder, "django", "5.0.2", {"README": b"v2\n", "django/__init__.py": b"VERSION = 2\n",
                                           "django/new.py": b"y = 2\n", "tools/run.sh": b"#!/bin/sh\n"})
    monkeypatch.setenv("RENNET_CORPORA_CACHE", str(cache))
    corpus = rc.build("django", tmp_path / "out.git", versions=("5.0.1", "5.0.2"))
    repo = pygit2.Repository(str(corpus.path))
    assert corpus.tags == ["v5.0.1", "v5.0.2"] and corpus.files == [5, 5]
    assert str(repo.revparse_single("refs/heads/releases").id) == corpus.commits[-1]
    assert [str(p) for p in repo[corpus.commits[1]].parent_ids] == [corpus.commits[0]]
    first, second = tree_files(repo, "v5.0.1"), tree_files(repo, "v5.0.2")
    assert "django/old.py" in first and "django/old.py" not in second  # tree replaced, not merged
    assert second["django/new.py"][1] == b"y = 2\n"
    assert second["tools/run.sh"][0] == pygit2.GIT_FILEMODE_BLOB_EXECUTABLE
    assert second["docs/latest"] == (pygit2.GIT_FILEMODE_LINK, b"../README")
    again = rc.build("django", tmp_path / "again.git", versions=("5.0.1", "5.0.2"))
    assert again.commits == corpus.commits


def test_empty_cache_and_unreachable_registry_is_a_typed_error(tmp_path, monkeypatch):
    monkeypatch.setenv("RENNET_CORPORA_CACHE", str(tmp_path / "empty"))
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")  # nothing listens on the discard port
    monkeypatch.setenv("PIP_RETRIES", "0")
    monkeypatch.setenv("PIP_TIMEOUT", "3")
    with pytest.raises(rc.RegistryUnavailable) as err:
        rc.build("django", tmp_path / "out.git", versions=("5.0.1",))
    assert err.value.code == "registry_unavailable"
    assert not (tmp_path / "out.git").exists()  # nothing written


def test_unknown_corpus_and_bad_archive(tmp_path, monkeypatch):
    with pytest.raises(rc.BadInput):
        rc.build("nope", tmp_path / "x")
    cache = tmp_path / "cache"
    (cache / "npm" / "date-fns").mkdir(parents=True)
    (cache / "npm" / "date-fns" / "date-fns-3.0.0.tgz").write_bytes(b"not a tarball")
    monkeypatch.setenv("RENNET_CORPORA_CACHE", str(cache))
    with pytest.raises(rc.ArchiveError):
        rc.build("npm-pkg", tmp_path / "y.git", versions=("3.0.0",))


def test_cli_reports_a_one_line_error(tmp_path, monkeypatch, capsys):
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "f").write_text("x")
    assert rc.main(["django", "--out", str(tmp_path / "busy")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("bad_input:") and "\n" not in err
