"""`.gitattributes` of a commit's tree (never the working tree), read with the indexer's
`indexer.git.attributes.GitAttributes`, so the noise classifier and the Repo Map's marks agree.

Only the `.gitattributes` files on the way to the asked paths are read.
"""

from __future__ import annotations

from typing import Iterable

import pygit2

from indexer.git.attributes import GitAttributes, read_once
from indexer.git.read import blob_oid_at, blob_size, read_blob

Value = bool | str | None


def _folders(path: str) -> list[str]:
    parts = path.split("/")
    return [""] + ["/".join(parts[:i]) for i in range(1, len(parts))]


class TreeAttributes:
    """Attributes of the given paths in one commit's tree."""

    def __init__(self, repo: pygit2.Repository, commit_oid: str, paths: Iterable[str]) -> None:
        paths = list(paths)
        named = []
        for folder in sorted({f for p in paths for f in _folders(p)}):
            name = f"{folder}/.gitattributes" if folder else ".gitattributes"
            if (oid := blob_oid_at(repo, commit_oid, name)) is not None:
                named.append((name, oid))
        self._attrs = GitAttributes(read_once(named, lambda _, oid: blob_size(repo, oid),
                                              lambda _, oid: read_blob(repo, oid)))
        self._attrs.check_cost(paths)

    def value(self, path: str, name: str) -> Value:
        return self._attrs.value(path, name) if self._attrs else None


def truthy(value: Value) -> bool | None:
    """linguist's reading of an attribute: true / false / unspecified."""
    if value is None:
        return None
    if isinstance(value, str):
        return value.lower() not in ("false", "0", "no", "off")
    return value
