"""The roots an agent face serves: a path an MCP client names (a repository, an output
folder, a file to read) must lie under one of them, or the call is a typed `forbidden`.

Roots are the folders the server was started with (`rennet mcp --root DIR...`, default the
current folder) and the ones the client declared as MCP roots. A path is compared after
resolving symlinks and `..`, so neither can step outside.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Collection, Iterable

import msgspec

from context_tools.faces.errors import Forbidden

# Input fields that name a place on the server's machine, in any command's input.
PATH_FIELDS = ("repo", "out", "file", "body_file")


def _real(path: str | os.PathLike[str]) -> str:
    return os.path.realpath(os.path.abspath(os.fspath(path)))


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class Roots(msgspec.Struct, frozen=True):
    dirs: tuple[str, ...]

    @classmethod
    def of(cls, dirs: Iterable[str | os.PathLike[str]]) -> "Roots":
        return cls(tuple(dict.fromkeys(_real(d) for d in dirs)))

    def admits(self, path: str, extra: Iterable[str] = ()) -> bool:
        try:
            real = _real(path)
        except ValueError:  # a NUL: no path at all (decoding the input refuses it as bad_input)
            return False
        return any(_under(real, root) for root in (*self.dirs, *(_real(e) for e in extra)))

    def outside(self, value: Any) -> list[tuple[str, str]]:
        """(field, path) of every place a decoded input names that no server root admits."""
        named = named_paths(type(value).__struct_fields__, lambda name: getattr(value, name, None))
        return [(name, path) for name, path in named if not self.admits(path)]

    def check(self, command_id: str, value: Any, extra: Iterable[str] = ()) -> None:
        extra = tuple(extra)
        for name, path in self.outside(value):
            if not self.admits(path, extra):
                raise Forbidden(f"{command_id}: `{name}` {path!r} is outside the roots this server serves "
                                f"({', '.join(self.dirs)}); pass a path under one of them")

    def describe(self) -> str:
        return ", ".join(self.dirs)


def named_paths(fields: Collection[str], get: Callable[[str], Any]) -> list[tuple[str, str]]:
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
    return path if path and "\x00" not in path else None
