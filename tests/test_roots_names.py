"""What the roots check reads from a call and from a client (`context_tools.faces.roots`): the
paths an input names, and the local folder of each root a client declares."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from context_tools.faces.argument_bounds import PATH_CHARS
from context_tools.faces.roots import PATH_FIELDS, Roots, file_uri_path, named_paths


@pytest.mark.parametrize("uri, path", [
    ("file:///home/me/work", "/home/me/work"),
    ("file://localhost/home/me/work", "/home/me/work"),  # RFC 8089: the local host, named
    ("file:///home/me/a%20b", "/home/me/a b"),  # a declared root is a URI: its path is percent-decoded
    ("file://otherhost/home/me/work", None),  # a folder of another machine is none of this one's
    ("http://localhost/home/me/work", None),
    ("file:///x%00y", None),  # no file system holds a NUL
    ("file://", None),
    ("file:///" + "a" * PATH_CHARS, None),  # longer than any path: not resolved against every call
    ("file:///" + "a" * (PATH_CHARS - 1), "/" + "a" * (PATH_CHARS - 1)),  # as long as a path may be
])
def test_a_declared_root_is_a_local_file_uri_or_none(uri, path):
    assert file_uri_path(uri) == path


def test_every_field_naming_a_place_is_checked_and_a_repo_left_out_is_the_current_folder():
    """docs/security.md, paths in arguments: `repo`, `out`, `file`, `body_file` of any tool; a
    `repo` left out is the folder the server runs in, unless a workspace is named."""
    assert PATH_FIELDS == ("repo", "out", "file", "body_file")
    given = {"repo": "/r", "out": "/o", "file": "/f", "body_file": "/b", "path": "src/a.py"}
    assert named_paths(tuple(given), given.get) == [("repo", "/r"), ("out", "/o"), ("file", "/f"),
                                                    ("body_file", "/b")]
    assert named_paths(("repo", "rev"), {}.get) == [("repo", ".")]
    assert named_paths(("repo", "workspace"), {"workspace": "w"}.get) == []
    assert named_paths(("rev",), {"repo": "/r"}.get) == []  # a field the input has not is not read
    # an empty string names no place (no folder is opened for it); nor does a value that is no string
    assert named_paths(("repo", "body_file"), {"repo": "", "body_file": ""}.get) == []
    assert named_paths(("repo", "out"), {"repo": "/r", "out": 5}.get) == [("repo", "/r")]
    assert named_paths(("repo", "out"), {"repo": "/r"}.get) == [("repo", "/r")]  # only `repo` has a default


@pytest.mark.parametrize("command, field", [("delta.build", "out"), ("dossier.build", "body_file")])
def test_a_place_outside_the_roots_in_any_field_is_forbidden(tmp_path, command, field):
    """The agent packet tool lists no `out`, but a client may send one anyway: it is held to the
    roots as `repo` is, and so is the file `dossier_build` reads its body from."""
    from context_tools.faces.dispatch import Executor
    from context_tools.faces.roots import Roots

    served = tmp_path / "served"
    served.mkdir()
    agent = Executor("mcp", store=str(tmp_path / "store"), roots=Roots.of([served]), receipts=False)
    given = {"repo": str(served), "base": "HEAD", "head": "HEAD", field: str(tmp_path / "elsewhere")}
    reply = agent.run(command, given)
    assert reply.wire["error"]["code"] == "forbidden", reply.wire
    assert reply.wire["error"]["message"].startswith(f"{command}: `{field}` "), reply.wire


def test_a_repository_made_between_a_path_and_the_one_found_before_is_found(tmp_path):
    """git finds the repository holding a folder by climbing from it, the nearest first: a
    repository made in a folder between a `repo` path and the repository found for it before
    is the one it opens now, and the roots check weighs that one, not the one kept."""
    import subprocess

    from context_tools.faces.roots import repository_of
    from corpora.gitbuild import RepoBuilder

    outer = RepoBuilder(tmp_path / "outer")
    outer.commit({"a/b/x.py": "X = 1\n"})
    deep = outer.path / "a" / "b"
    deep.mkdir(parents=True)  # the builder writes objects only: the folders of its checkout
    first = repository_of(str(deep))
    assert first is not None and first.folder == str(outer.path)
    subprocess.run(["git", "init", "-q", str(outer.path / "a")], check=True)
    now = repository_of(str(deep))
    assert now is not None and now.folder == str(outer.path / "a")


def test_the_repositories_kept_for_the_roots_check_are_bounded(tmp_path, monkeypatch):
    """Each `repo` path a client names keeps the places of its repository until it changes: a
    client naming ever new paths must not grow that table without end."""
    from context_tools.faces import roots
    from corpora.gitbuild import RepoBuilder

    RepoBuilder(tmp_path / "r").commit({"a.py": "A = 1\n"})
    monkeypatch.setattr(roots, "_FOUND", {})
    monkeypatch.setattr(roots, "_FOUND_PATHS", 3)
    for n in range(8):
        folder = tmp_path / "r" / f"d{n}"
        folder.mkdir()
        assert roots.repository_of(str(folder)) is not None
        assert len(roots._FOUND) <= 3


def test_a_root_given_through_a_link_or_relative_serves_the_folder_it_names(tmp_path, monkeypatch):
    """The roots are resolved as the paths a call names are, so a root given through a link, or
    relative to the folder the server starts in, serves that folder and no other."""
    from context_tools.faces.roots import Roots

    served = tmp_path / "served"
    (served / "r").mkdir(parents=True)
    (tmp_path / "other").mkdir()
    (tmp_path / "link").symlink_to(served)
    monkeypatch.chdir(tmp_path)
    for given in (tmp_path / "link", "served", "./link/../served"):
        roots = Roots.of([given])
        assert roots.refusal("out", str(served / "r")) is None, given
        assert roots.refusal("out", str(tmp_path / "link" / "r")) is None, given
        assert roots.refusal("out", str(tmp_path / "other")) is not None, given


def _checkout_naming_a_bare_repository(tmp_path: Path) -> tuple[Roots, Path, Path]:
    """Roots over `ws`, holding a checkout whose `.git` file names the bare `ws/inside.git`, and
    a bare `outside.git` beside `ws`; the checkout is served."""
    from corpora.gitbuild import RepoBuilder

    ws = tmp_path / "ws"
    RepoBuilder(ws / "inside.git", bare=True).commit({"a.py": "A = 1\n"})
    RepoBuilder(tmp_path / "outside.git", bare=True).commit({"a.py": "B = 1\n"})
    checkout = ws / "checkout"
    checkout.mkdir()
    dot_git = checkout / ".git"
    dot_git.write_text(f"gitdir: {ws / 'inside.git'}\n")
    roots = Roots.of([ws])
    assert roots.refusal("repo", str(checkout)) is None
    return roots, checkout, dot_git


@pytest.mark.parametrize("how", ["renamed over", "written in place"])
def test_a_git_file_replaced_is_read_again_whatever_its_time(tmp_path, how):
    """A checkout's `.git` file names its git directory. Whoever may write under a root may
    replace it by one naming a directory outside the roots, and set the times of the file and
    its folder back to what they were (was: the places found before were kept, their stamps
    the inode and modification time, and the outside repository was served). The change time,
    which no one can set, tells the roots check to read the new one."""
    roots, checkout, dot_git = _checkout_naming_a_bare_repository(tmp_path)
    before, folder = os.stat(dot_git), os.stat(checkout)
    if how == "renamed over":
        (checkout / "next").write_text(f"gitdir: {tmp_path / 'outside.git'}\n")
        os.replace(checkout / "next", dot_git)
    else:
        dot_git.write_text(f"gitdir: {tmp_path / 'outside.git'}\n")
    os.utime(dot_git, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.utime(checkout, ns=(folder.st_atime_ns, folder.st_mtime_ns))
    why = roots.refusal("repo", str(checkout))
    assert why is not None and "outside.git" in why, why


def test_a_path_is_resolved_up_to_4096_characters_and_refused_past_them(tmp_path):
    """docs/security.md: a path over 4,096 characters is not resolved at all (resolving costs time
    quadratic in its parts); one of 4,096 is resolved and weighed as any other."""
    from context_tools.faces.roots import Roots

    roots = Roots.of([tmp_path])
    at = str(tmp_path) + "/" + "a/" * ((PATH_CHARS - len(str(tmp_path)) - 1) // 2)
    at += "b" * (PATH_CHARS - len(at))
    assert len(at) == PATH_CHARS and roots.refusal("out", at) is None
    assert roots.refusal("out", at + "c") == "`out` is no path on this machine"


def test_only_a_repo_is_weighed_by_the_repository_it_opens(tmp_path):
    """An output folder inside a checkout whose git directory lies outside the roots is served:
    only `repo` opens that repository, and is refused for it."""
    from context_tools.faces.roots import Roots
    from corpora.gitbuild import RepoBuilder

    RepoBuilder(tmp_path / "outside.git", bare=True).commit({"a.py": "B = 1\n"})
    checkout = tmp_path / "ws" / "checkout"
    checkout.mkdir(parents=True)
    (checkout / ".git").write_text(f"gitdir: {tmp_path / 'outside.git'}\n")
    roots = Roots.of([tmp_path / "ws"])
    assert roots.refusal("out", str(checkout)) is None
    why = roots.refusal("repo", str(checkout))
    assert why is not None and "outside.git" in why, why


def test_a_repo_read_from_a_place_outside_the_roots_is_told_which(tmp_path):
    """A checkout under a root whose git directory lies elsewhere (`git init --separate-git-dir`)
    is read from there: the refusal names that place, and that it is not under the roots."""
    import subprocess

    from context_tools.faces.roots import Roots

    checkout = tmp_path / "ws" / "checkout"
    checkout.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "--separate-git-dir", str(tmp_path / "outside"), str(checkout)], check=True)
    why = Roots.of([tmp_path / "ws"]).refusal("repo", str(checkout))
    place = os.path.realpath(tmp_path / "outside")
    assert why == (f"`repo` {str(checkout)!r} is a repository read from {place!r}, which is not under the roots "
                   f"this server serves ({os.path.realpath(tmp_path / 'ws')}); that place must be under a root too"), why


def test_a_repo_inside_a_repository_above_the_roots_is_told_whose_root_would_serve_it(tmp_path):
    """The refusal says what would serve the repository: the server's `--root` when the
    server's roots leave it out, a root the client declares when only the client's do."""
    from context_tools.faces.roots import Roots
    from corpora.gitbuild import RepoBuilder

    outer = RepoBuilder(tmp_path / "ws" / "outer").path
    (outer / "sub").mkdir()
    by_server = Roots.of([outer / "sub"]).refusal("repo", str(outer / "sub"))
    assert by_server is not None and by_server.endswith(f"start the server with `--root {outer}` to serve it")
    by_client = Roots.of([tmp_path / "ws"]).refusal("repo", str(outer / "sub"), (str(outer / "sub"),))
    assert by_client is not None and by_client.endswith("the client must declare a root that holds it")
    assert "is not under the roots the client declared" in by_client


@pytest.mark.parametrize("count", [1, 4, 5, 6])
def test_a_refusal_by_the_clients_roots_names_four_of_them_and_how_many_more(tmp_path, count):
    """docs/security.md: the refusal says whose roots leave the path out; of the roots a client
    declared (up to 64 read), it names the first four as the client gave them and counts the rest,
    so the one line stays short whatever the client declared."""
    from context_tools.faces.roots import Roots

    declared = tuple(str(tmp_path / f"declared{n}") for n in range(count))
    why = Roots.of([tmp_path]).refusal("out", str(tmp_path / "elsewhere"), declared)
    named = ", ".join(declared[:4])
    more = f" and {count - 4} more" if count > 4 else ""
    assert why == (f"`out` {str(tmp_path / 'elsewhere')!r} is outside the roots the client declared "
                   f"({named}{more}), which narrow the server's; pass a path under one of them"), why


def test_a_path_holding_a_roots_path_further_in_is_not_under_it(tmp_path):
    """A path lies under a root only where it starts with the root's path and a separator: one
    naming the root's path further in (`/elsewhere/<root>/x`), or a sibling whose name the root's
    starts (`<root>-other`), is outside it, for the server's roots and for those a client declares."""
    from context_tools.faces.roots import Roots

    served = tmp_path / "served"
    (served / "x").mkdir(parents=True)
    inner = tmp_path / "elsewhere" / str(served).lstrip("/") / "x"
    inner.mkdir(parents=True)
    (tmp_path / "served-other").mkdir()
    roots = Roots.of([served])
    assert roots.refusal("out", str(served / "x")) is None
    for outside in (inner, tmp_path / "served-other"):
        assert roots.refusal("out", str(outside)) is not None, outside
        wide = Roots.of([tmp_path])
        assert wide.refusal("out", str(outside), (str(served),)) is not None, outside
        assert wide.refusal("out", str(served / "x"), (str(served),)) is None


def test_a_path_under_any_declared_root_is_served_and_one_no_file_system_holds_serves_nothing(tmp_path):
    """The roots a client declares narrow the server's: a path under any one of them is served,
    whichever it is in the list; a declared root no file system holds (a NUL, longer than any
    path) holds nothing, and still narrows."""
    from context_tools.faces.roots import Roots

    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    (second / "x").mkdir(parents=True)
    roots = Roots.of([tmp_path])
    unheld = ("/a\x00b", "/" + "a" * (PATH_CHARS + 1))
    assert roots.refusal("out", str(second / "x"), (str(first), str(second))) is None
    assert roots.refusal("out", str(second / "x"), (*unheld, str(second))) is None
    why = roots.refusal("out", str(second / "x"), unheld)
    assert why is not None and "the roots the client declared" in why, why


def test_a_git_file_rewritten_in_place_is_read_again_though_its_folder_is_untouched(tmp_path):
    """A `.git` file written over in place leaves its folder's entries as they were: the roots check
    watches the file itself, so the repository it names now is weighed, not the one found before."""
    import time

    roots, checkout, dot_git = _checkout_naming_a_bare_repository(tmp_path)
    folder = os.stat(checkout)
    time.sleep(0.05)  # past the file system's timestamp granularity, a limit docs/security.md states
    dot_git.write_text(f"gitdir: {tmp_path / 'outside.git'}\n")
    assert os.stat(checkout) == folder
    why = roots.refusal("repo", str(checkout))
    assert why is not None and "outside.git" in why, why



def test_the_bounds_on_declared_roots_are_those_docs_security_names():
    """docs/security.md, paths in arguments: declared roots are asked with 10 s for an answer, the
    first 64 read. The functional test (`tests/test_mcp.py::test_only_the_first_roots_a_client_declares_are_read`)
    counts its roots by the module's constant, so the figures themselves are held here."""
    from context_tools.faces.declared_roots import LIST_SECONDS, MAX_DECLARED_ROOTS

    assert (MAX_DECLARED_ROOTS, LIST_SECONDS) == (64, 10)
