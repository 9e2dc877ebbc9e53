"""Where a repository is read from (`indexer.git.read.repository_places`), as the MCP face's
roots check sees it (`context_tools.faces.roots`): links among its objects, followed to where
they lead, at a cost that does not grow with the entries of its object folders."""

from __future__ import annotations

import hashlib
import os
import subprocess
import zlib
from pathlib import Path

import pytest

from context_tools.faces.roots import Roots
from corpora.gitbuild import RepoBuilder
from indexer.git import read
from indexer.git.loose import object_dir_chain, object_dirs
from indexer.git.read import OBJECT_LINKS, UNCHECKED, repository_places


def _packed(path: Path) -> Path:
    RepoBuilder(path).commit({"a.py": "def a():\n    return 1\n"})
    subprocess.run(["git", "-C", str(path), "repack", "-adq"], check=True)
    return path / ".git" / "objects"


@pytest.fixture
def listings(monkeypatch) -> list[str]:
    """The folders `os.scandir` lists from here on."""
    listed: list[str] = []
    scandir = os.scandir

    def counted(path):
        listed.append(os.fspath(path))
        return scandir(path)

    monkeypatch.setattr(read.os, "scandir", counted)
    return listed


def test_an_object_folder_of_many_entries_is_listed_again_only_once_it_changed(tmp_path, listings):
    objects = _packed(tmp_path / "r")
    for i in range(3000):  # kept as git keeps none: a folder a writer under a root filled
        (objects / "pack" / f"junk-{i}").touch()
    first = repository_places(tmp_path / "r")
    assert first is not None and str(objects / "pack") in listings
    listings.clear()
    for _ in range(5):
        assert repository_places(tmp_path / "r") == first
    assert listings == []  # was listed (each entry looked at) on every call
    (tmp_path / "outside").mkdir()
    os.symlink(tmp_path / "outside", objects / "pack" / "linked.pack")
    again = repository_places(tmp_path / "r")
    assert listings == [str(objects / "pack")]
    assert again is not None and str((tmp_path / "outside").resolve()) in again.reads


def test_a_loose_object_linked_from_a_fan_out_folder_is_seen_listing_that_folder_alone(tmp_path, listings):
    """libgit2 reads a loose object through a link wherever it leads: a link inside a fan-out
    folder that is itself no link is followed, and the roots check names where it leads. Each
    fan-out folder is listed once, then again only once its own stamp changed: a call after a
    loose object was linked lists that folder, not the others nor their objects."""
    import pygit2

    ws = tmp_path / "ws"
    RepoBuilder(ws / "r").commit({"a.py": "def a():\n    return 1\n"})
    repo = pygit2.Repository(str(ws / "r"))
    oids = [str(repo.create_blob(f"blob {i}\n".encode())) for i in range(600)]  # loose, over most fan-out folders
    objects = ws / "r" / ".git" / "objects"
    fan_outs = {str(p) for p in objects.iterdir() if len(p.name) == 2}
    first = repository_places(ws / "r")
    assert first is not None and fan_outs <= set(listings) and len(fan_outs) > 200
    assert first.loose == ((str(objects), max(read._LINKED[f].serial for f in fan_outs)),)
    listings.clear()
    for _ in range(3):
        assert repository_places(ws / "r") == first
    assert listings == []  # a stat of each fan-out folder, no listing
    roots = Roots.of([ws])
    assert roots.refusal("repo", str(ws / "r")) is None
    (tmp_path / "outside").mkdir()
    loose = objects / oids[0][:2] / oids[0][2:]
    copy = tmp_path / "outside" / loose.name
    os.rename(loose, copy)  # the same object: libgit2 reads it there as gladly
    os.symlink(copy, loose)
    assert pygit2.Repository(str(ws / "r")).get(oids[0]).data == b"blob 0\n"
    again = repository_places(ws / "r")
    assert listings == [str(loose.parent)]
    assert again is not None and str(copy.resolve()) in again.reads
    why = roots.refusal("repo", str(ws / "r"))  # was: None, the object read from outside
    assert why is not None and f"read from {str(copy.resolve())!r}" in why


def test_a_link_replaced_along_the_chain_it_starts_is_seen(tmp_path):
    """A pack file links to a link under the root, which links to a file under the root: served.
    The middle link is then pointed at another repository's pack, outside: nothing in the
    repository changed, yet it is now read from there, and the roots check says so."""
    ws = tmp_path / "ws"
    objects = _packed(ws / "r")
    (secret,) = (_packed(tmp_path / "secret") / "pack").glob("*.pack")
    (pack,) = (objects / "pack").glob("*.pack")
    os.rename(pack, ws / "kept.pack")
    os.symlink(ws / "kept.pack", ws / "hop")
    os.symlink(ws / "hop", pack)
    roots = Roots.of([ws])
    assert roots.refusal("repo", str(ws / "r")) is None
    os.unlink(ws / "hop")
    os.symlink(secret, ws / "hop")
    why = roots.refusal("repo", str(ws / "r"))
    assert why is not None and f"read from {str(secret.resolve())!r}" in why


def test_past_its_bound_of_links_a_repository_is_read_from_anywhere(tmp_path):
    """Each link is watched on every call, so they are bounded: past `OBJECT_LINKS` the links
    are not followed and the repository is refused as read from places not looked for, even
    when every link leads under the root."""
    ws = tmp_path / "ws"
    objects = _packed(ws / "r")
    (ws / "elsewhere").mkdir()
    for i in range(OBJECT_LINKS):
        os.symlink(ws / "elsewhere", objects / "pack" / f"link-{i}")
    places = repository_places(ws / "r")
    assert places is not None and UNCHECKED not in places.reads
    assert Roots.of([ws]).refusal("repo", str(ws / "r")) is None
    os.symlink(ws / "elsewhere", objects / "one-more")
    places = repository_places(ws / "r")
    assert places is not None and UNCHECKED in places.reads
    assert len(places.watched) < 16  # not one a link
    why = Roots.of([ws]).refusal("repo", str(ws / "r"))
    assert why is not None and f"read from {UNCHECKED!r}" in why


def test_alternates_are_followed_as_deep_as_git_follows_them(tmp_path):
    """`objects/info/alternates` naming an object directory under the root whose own alternates
    name one outside it: libgit2 reads the objects two hops away, and so the roots check looks
    there too (six hops, as git follows them), not only at the first hop."""
    import pygit2

    secret = tmp_path / "secret"
    RepoBuilder(secret).commit({"secret.py": "def outside_secret():\n    return 'key'\n"})
    head = str(pygit2.Repository(str(secret)).head.target)
    ws = tmp_path / "ws"
    RepoBuilder(ws / "r").commit({"a.py": "def a():\n    return 1\n"})
    hop = ws / "hop" / "objects"
    (hop / "info").mkdir(parents=True)
    (hop / "info" / "alternates").write_text(f"{secret / '.git' / 'objects'}\n")
    (ws / "r" / ".git" / "objects" / "info").mkdir(exist_ok=True)
    (ws / "r" / ".git" / "objects" / "info" / "alternates").write_text(f"{hop}\n")
    assert pygit2.Repository(str(ws / "r"))[head].peel(pygit2.Commit)  # read through both hops
    why = Roots.of([ws]).refusal("repo", str(ws / "r"))
    assert why is not None and f"read from {str((secret / '.git' / 'objects').resolve())!r}" in why, why


def _blob_in(objects: Path, text: str) -> str:
    """A loose blob written into the object directory `objects`; its OID."""
    raw = f"blob {len(text)}\0{text}".encode()
    oid = hashlib.sha1(raw).hexdigest()
    (objects / oid[:2]).mkdir(parents=True, exist_ok=True)
    (objects / oid[:2] / oid[2:]).write_bytes(zlib.compress(raw))
    return oid


def test_the_object_directories_read_are_those_libgit2_and_git_read(tmp_path):
    """A chain of alternates eight deep, each object directory naming the next, one blob in
    each: the object directories Rennet checks and the roots check looks at
    (`object_dir_chain`) are exactly those whose objects libgit2 and git read: six hops of
    alternates (was: five, so a loose object six hops away was read by libgit2 unchecked, and
    from outside the roots), each once though each names the first again, a relative one
    resolved from the object directory, and a `#` line of an alternates file naming none."""
    import pygit2

    RepoBuilder(tmp_path / "r").commit({"a.py": "A = 1\n"})
    own = tmp_path / "r" / ".git" / "objects"
    chain = [tmp_path / f"alt{k}" / "objects" for k in range(1, 9)]
    (own / "info").mkdir(exist_ok=True)
    # a relative one, from the object directory; a comment
    (own / "info" / "alternates").write_text(f"# {tmp_path / 'nowhere'}\n../../../alt1/objects\n")
    for here, there in zip(chain, chain[1:] + [own]):
        (here / "info").mkdir(parents=True)
        (here / "info" / "alternates").write_text(f"{there}\n{own}\n")  # each names the first again
    blobs = [_blob_in(objects, f"blob {k}\n") for k, objects in enumerate(chain, 1)]
    repo = pygit2.Repository(str(tmp_path / "r"))
    read_by_git = [subprocess.run(["git", "-C", str(tmp_path / "r"), "cat-file", "-e", oid],
                                  capture_output=True).returncode == 0 for oid in blobs]
    assert read_by_git == [oid in repo.odb for oid in blobs] == [True] * 6 + [False] * 2
    expected = [str(own.resolve())] + [str(objects.resolve()) for objects in chain[:6]]
    assert [real for _, real, _ in object_dir_chain(str(own))] == expected
    assert object_dirs(repo) == tuple(expected)
    places = repository_places(tmp_path / "r")
    assert places is not None and set(expected) <= set(places.reads)
    assert str(chain[6].resolve()) not in places.reads and str(tmp_path / "nowhere") not in places.reads
    # each alternates file read names places: a change to it changes them
    read_files = [str(objects.resolve() / "info" / "alternates") for objects in [own] + chain[:5]]
    assert set(read_files) <= set(places.watched)
