"""The roots an agent face serves: a path an MCP client names (a repository, an output
folder, a file to read) must lie under one of them, or the call is a typed `forbidden`.

Roots are the folders the server was started with (`rennet mcp --root DIR...`, default the
current folder). The user grants those; a client is not trusted to grant more, so the MCP
roots a client declares only narrow them: a path must then lie under one of the client's
roots as well. A path is compared after resolving symlinks and `..`, so neither can step
outside. A `repo` is served only when the repository it opens lies under a root too: git
finds the repository holding a folder by climbing from it, so a root inside a repository (a
home folder kept in git, one folder of a monorepo) would otherwise serve every file of that
repository. So must every place that repository is read from (its git directory,
`commondir`, objects, refs, alternates, and where links among its objects lead): whoever
may write under a root could otherwise point a repository there at any other.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Callable, Collection, Iterable

import msgspec

from context_tools.faces.argument_bounds import PATH_CHARS
from context_tools.faces.errors import Forbidden

if TYPE_CHECKING:
    from indexer.git.read import RepositoryPlaces

# Input fields that name a place on the server's machine, in any command's input.
PATH_FIELDS = ("repo", "out", "file", "body_file")


def _real(path: str | os.PathLike[str]) -> str:
    """`path` resolved; ValueError for one longer than any path (resolving costs time quadratic in
    its parts: a client's path of megabytes would hold the server's event loop for good)."""
    text = os.fspath(path)
    if len(text) > PATH_CHARS:
        raise ValueError(f"a path over {PATH_CHARS} characters")
    return os.path.realpath(os.path.abspath(text))


def _real_or_none(path: str) -> str | None:
    try:
        return _real(path)
    except ValueError:  # a NUL, an overlong path: no folder at all
        return None


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class Roots(msgspec.Struct, frozen=True):
    dirs: tuple[str, ...]

    @classmethod
    def of(cls, dirs: Iterable[str | os.PathLike[str]]) -> "Roots":
        return cls(tuple(dict.fromkeys(_real(d) for d in dirs)))

    def _why_not(self, real: str, extra: tuple[str, ...]) -> str | None:
        """Whose roots leave `real` out ("server" or "client"), or None when it is served. A
        declared root no file system holds narrows to nothing it names: it is still a root the
        client declared, so it does not lift the narrowing."""
        if not any(_under(real, root) for root in self.dirs):
            return "server"
        if not extra:
            return None
        declared = (root for root in map(_real_or_none, extra) if root is not None)
        return None if any(_under(real, root) for root in declared) else "client"

    def refusal(self, name: str, path: str, extra: tuple[str, ...] = ()) -> str | None:
        """Why the place a field names is not served (the path, and for `repo` the repository
        it opens), or None when it is."""
        try:
            real = _real(path)
        except ValueError:  # a NUL, an overlong path: no path at all (decoding the input refuses it as bad_input)
            return f"`{name}` is no path on this machine"
        whose = self._why_not(real, extra)
        if whose is not None:
            return f"`{name}` {path!r} is outside {self._describe(whose, extra)}; pass a path under one of them"
        if name != "repo":
            return None
        places = repository_of(path)
        if places is None:  # no repository: opening it says so
            return None
        whose = self._why_not(places.folder, extra)
        if whose is not None:
            fix = (f"start the server with `--root {places.folder}` to serve it" if whose == "server" else
                   "the client must declare a root that holds it")
            return (f"`repo` {path!r} is inside the repository at {places.folder!r}, which is not under "
                    f"{self._describe(whose, extra)}; {fix}")
        for place in places.reads:  # a `.git` file, `commondir`, alternates or a link inside the git directory
            whose = self._why_not(place, extra)
            if whose is not None:
                return (f"`repo` {path!r} is a repository read from {place!r}, which is not under "
                        f"{self._describe(whose, extra)}; that place must be under a root too")
        return None

    def member_refusal(self, path: str, extra: tuple[str, ...] = ()) -> str | None:
        """Why a workspace member's repository at `path` is not read on this face, or None when it
        is: said as what the user does, since the agent named the workspace, not the path, and no
        agent tool widens the roots."""
        if self.refusal("repo", path, extra) is None:
            return None
        if self.refusal("repo", path) is not None:
            return (f"its repository {path!r} is outside {self._describe('server', extra)}; no agent tool widens "
                    f"them: the user serves it with a root that holds it (`rennet mcp --root {path}`)")
        return (f"its repository {path!r} is outside {self._describe('client', extra)}; no agent tool widens "
                "them: the user's client declares a root that holds it")

    def _describe(self, whose: str, extra: tuple[str, ...]) -> str:
        if whose == "server":
            return f"the roots this server serves ({self.describe()})"
        shown = ", ".join(extra[:4]) + (f" and {len(extra) - 4} more" if len(extra) > 4 else "")
        return f"the roots the client declared ({shown}), which narrow the server's"

    def check(self, command_id: str, value: msgspec.Struct, extra: Iterable[str] = ()) -> None:
        extra = tuple(extra)
        for name, path in named_paths(type(value).__struct_fields__, lambda name: getattr(value, name, None)):
            why = self.refusal(name, path, extra)
            if why is not None:
                raise Forbidden(f"{command_id}: {why}")

    def describe(self) -> str:
        return ", ".join(self.dirs)


# path -> the places of the repository found from it, and the state of the entries that name them
# (`RepositoryPlaces.watched`, and the `.git` entry of its folder, which may be a file naming its
# git directory) and of the folders discovery climbed (a `.git` made in one of them is found
# first): kept while none of those changes. A state holds the change time, which no one under a
# root can set back, as they can an entry's modification time.
_FOUND: dict[str, tuple[RepositoryPlaces, tuple[tuple[int, int, int] | None, ...]]] = {}
_FOUND_PATHS = 4096


def _stamp(paths: tuple[str, ...]) -> tuple[tuple[int, int, int] | None, ...]:
    def one(path: str) -> tuple[int, int, int] | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return st.st_ino, st.st_mtime_ns, st.st_ctime_ns

    return tuple(one(path) for path in paths)


def repository_of(path: str) -> RepositoryPlaces | None:
    """Where the repository a `repo` path opens is read from, or None when it opens none."""
    from indexer.git.read import loose_unchanged, repository_places

    real = _real(path)
    found = _FOUND.get(real)
    if found is not None and _stamp(_watched(real, found[0])) == found[1] and loose_unchanged(found[0]):
        return found[0]
    places = repository_places(real)
    if places is None:
        return None
    if len(_FOUND) >= _FOUND_PATHS:
        _FOUND.clear()
    _FOUND[real] = (places, _stamp(_watched(real, places)))
    return places


def _watched(real: str, places: RepositoryPlaces) -> tuple[str, ...]:
    """What discovery read: the folders it climbed from `real` and the `.git` entry of each, up to
    the repository's folder or the first folder holding a `.git` (a file naming a bare repository,
    or one whose work tree is elsewhere, lies outside the repository's folder, and may be written
    over in place, leaving its folder's stamp as it was)."""
    climbed = [real]
    while (climbed[-1] != places.folder and not os.path.lexists(os.path.join(climbed[-1], ".git"))
           and os.path.dirname(climbed[-1]) != climbed[-1]):
        climbed.append(os.path.dirname(climbed[-1]))
    return (*places.watched, os.path.join(places.folder, ".git"), *(os.path.join(c, ".git") for c in climbed),
            *climbed)


def named_paths(fields: Collection[str], get: Callable[[str], object]) -> list[tuple[str, str]]:
    """(field, path) of each place an input with these fields names; `get` reads a field. A
    `repo` left out is the current folder (`workspace_scope.repo_of`) unless a workspace is named."""
    found = []
    for name in PATH_FIELDS:
        if name not in fields:
            continue
        path = get(name)
        if name == "repo" and path is None and get("workspace") is None:
            path = "."
        if isinstance(path, str) and path:
            found.append((name, path))
    return found


def file_uri_path(uri: str) -> str | None:
    """The local path of a `file://` root a client declared, or None for any other scheme or a
    path no file system holds (a NUL, `%00`)."""
    from urllib.parse import unquote, urlparse

    parsed = urlparse(uri)
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
        return None
    path = unquote(parsed.path)
    return path if path and "\x00" not in path and len(path) <= PATH_CHARS else None
