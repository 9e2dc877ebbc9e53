"""Task functions the Dask tests send to workers in place of `dask_engine.index_task`: importable
by name from worker processes, which is how Dask ships a function."""

from __future__ import annotations

import dataclasses
import os
import signal
from pathlib import Path

from indexer.contract.limits import Limits
from indexer.fleet.dask_engine import Shipped, TaskFailure, index_task
from indexer.fleet.signing import TRAILER_BYTES

Chain = tuple[int, int] | None


def dies_once(marker: str):
    """A task that kills its own worker the first time any worker runs it (the marker file says
    it happened), then indexes as usual."""
    def task(repo: str, revs: list[str], key: bytes, held: bytes, chain: Chain, limits: Limits) -> list[Shipped | TaskFailure]:
        _die_the_first_time(marker)
        return index_task(repo, revs, key, held, chain, limits)
    return task


def dies_at(rev: str, marker: str):
    """A task that kills its worker when it reaches `rev`, the first time any worker does (the
    marker file says it happened), having indexed the revs before it; then indexes as usual."""
    def task(repo: str, revs: list[str], key: bytes, held: bytes, chain: Chain, limits: Limits) -> list[Shipped | TaskFailure]:
        if rev in revs:
            index_task(repo, revs[:revs.index(rev)], key, held, chain, limits)
            _die_the_first_time(marker)
        return index_task(repo, revs, key, held, chain, limits)
    return task


def _die_the_first_time(marker: str) -> None:
    """Kill this worker process if no worker has been here before (the marker file says so)."""
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return
    os.close(fd)
    os.kill(os.getpid(), signal.SIGKILL)


def always_dies(repo: str, revs: list[str], key: bytes, held: bytes, chain: Chain, limits: Limits) -> list[Shipped | TaskFailure]:
    os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError("unreachable")


def tampers(repo: str, revs: list[str], key: bytes, held: bytes, chain: Chain, limits: Limits) -> list[Shipped | TaskFailure]:
    """Index honestly, then change one byte of each bundle after it was signed (the last byte
    before its signature trailer)."""
    out: list[Shipped | TaskFailure] = []
    for shipped in index_task(repo, revs, key, held, chain, limits):
        assert isinstance(shipped, Shipped)
        data = bytearray(shipped.bundle)
        data[-TRAILER_BYTES - 1] ^= 0x01
        out.append(dataclasses.replace(shipped, bundle=bytes(data)))
    return out


def marker_path(tmp: Path) -> str:
    return str(tmp / "died-once")


def records_carried(log: str):
    """Index as usual, and write a line per bundle to `log`: its commit, the facts it carries,
    how many keys the driver listed as held for the task, and the task's first commit."""
    def task(repo: str, revs: list[str], key: bytes, held: bytes, chain: Chain, limits: Limits) -> list[Shipped | TaskFailure]:
        from indexer.fleet.bundle import parse_header

        out = index_task(repo, revs, key, held, chain, limits)
        listed = len(held.splitlines())
        with open(log, "a") as fh:
            for shipped in out:
                if isinstance(shipped, Shipped):
                    header, _ = parse_header(shipped.bundle)
                    fh.write(f"{header.oid} {header.facts} {listed} {revs[0]}\n")
        return out
    return task


def records_workers(log: str):
    """Index as usual, and write a line per task to `log`: the worker that ran it and its revs."""
    def task(repo: str, revs: list[str], key: bytes, held: bytes, chain: Chain, limits: Limits) -> list[Shipped | TaskFailure]:
        from distributed import get_worker

        out = index_task(repo, revs, key, held, chain, limits)
        with open(log, "a") as fh:
            fh.write(f"{get_worker().address} {' '.join(revs)}\n")
        return out
    return task
