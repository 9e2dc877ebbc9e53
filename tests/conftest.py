"""Fixtures shared by the test modules."""

from __future__ import annotations

import itertools
from typing import Any, Callable

import pytest

from tests import examples  # noqa: F401  # registers and loads the Hypothesis profile first
from tests.indexed import Asked, index_files


@pytest.fixture
def indexed_files(tmp_path) -> Callable[..., Asked]:
    """Commit a file table at main and index it: `indexed_files(files)` -> the client and the
    repository to ask (each call a repository and a store of its own, under tmp_path)."""
    made = itertools.count()

    def make(files: dict[str, Any], message: str = "files") -> Asked:
        return index_files(tmp_path / f"indexed-{next(made)}", files, message)

    return make
