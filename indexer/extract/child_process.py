"""What a process the indexer starts (an extraction worker, the facts writer) does first."""

from __future__ import annotations

import ctypes  # here, not in each child: the indexer imports this module before it forks them
import signal


def start_as_child() -> None:
    """Have the kernel kill this process when its parent dies, so a child never outlives a
    killed indexer (Linux; elsewhere a no-op), and leave a Ctrl-C to the parent: the terminal
    sends it to every process of the group, and the indexer alone decides what it stops."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # as a pool's fork left it
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
