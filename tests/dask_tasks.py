"""Task functions the Dask tests send to workers in place of `dask_engine.index_task`: importable
by name from worker processes, which is how Dask ships a function."""

from __future__ import annotations

import dataclasses
import os
import signal
from pathlib import Path

from indexer.fleet.dask_engine import Shipped, TaskFailure, index_task
from indexer.fleet.signing import TRAILER_BYTES


def dies_once(marker: str):
    """A task that kills its own worker the first time any worker runs it (the marker file says
    it happened), then indexes as usual."""
    def task(repo: str, rev: str, key: bytes, held: bytes) -> Shipped | TaskFailure:
        try:
            fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return index_task(repo, rev, key, held)
        os.close(fd)
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("unreachable")
    return task


def always_dies(repo: str, rev: str, key: bytes, held: bytes) -> Shipped | TaskFailure:
    os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError("unreachable")


def tampers(repo: str, rev: str, key: bytes, held: bytes) -> Shipped | TaskFailure:
    """Index honestly, then change one byte of the bundle after it was signed (the last
    byte before its signature trailer)."""
    shipped = index_task(repo, rev, key, held)
    assert isinstance(shipped, Shipped)
    data = bytearray(shipped.bundle)
    data[-TRAILER_BYTES - 1] ^= 0x01
    return dataclasses.replace(shipped, bundle=bytes(data))


def marker_path(tmp: Path) -> str:
    return str(tmp / "died-once")


def records_carried(log: str):
    """Index as usual, and write a line per bundle to `log`: the facts it carries and how many
    keys the driver listed as held."""
    def task(repo: str, rev: str, key: bytes, held: bytes) -> Shipped | TaskFailure:
        from indexer.fleet.bundle import parse_header

        shipped = index_task(repo, rev, key, held)
        if isinstance(shipped, Shipped):
            header, _ = parse_header(shipped.bundle)
            listed = len(held.splitlines())
            with open(log, "a") as fh:
                fh.write(f"{header.facts} {listed}\n")
        return shipped
    return task
