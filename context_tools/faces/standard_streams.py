"""Standard streams the process was started without, opened on the null device.

A process started with a standard descriptor closed (`rennet index >&-`, a service manager, a
careless parent) has no stream there: Python sets `sys.stdout` (or stdin, stderr) to None, so
the first answer written failed as an internal error. Worse, the next file opened takes the
lowest free descriptor: the store's lock or data file became descriptor 1 or 2, where
anything writing to the standard stream at the C level, or a child inheriting it, would write
into the store. As git does at its start, each closed one is opened on the null device first,
so no file of ours ever lands there, and what would be written to it is dropped.
"""

from __future__ import annotations

import os
import sys

_STREAMS = ((0, "stdin", os.O_RDONLY, "r"), (1, "stdout", os.O_WRONLY, "w"), (2, "stderr", os.O_WRONLY, "w"))


def reopen_closed() -> None:
    """Open each of descriptors 0, 1 and 2 that is closed on the null device, and give Python
    a stream on it. In order: the null device opened for 0 lands on 0, and so on."""
    for fd, name, flags, mode in _STREAMS:
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        null = os.open(os.devnull, flags)
        if null != fd:  # a lower one was free after all (closed since): put it where it belongs
            os.dup2(null, fd)
            os.close(null)
        errors = "backslashreplace" if fd == 2 else "strict"
        setattr(sys, name, open(fd, mode, encoding="utf-8", errors=errors, closefd=False))
