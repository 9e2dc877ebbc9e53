"""What a process the indexer starts (an extraction worker, the facts writer) does first."""

from __future__ import annotations

import ctypes  # here, not in each child: the indexer imports this module before it forks them
import signal

# What the indexer forks its children with blocked (`fork_pool`): a Ctrl-C, and the SIGTERM or
# SIGHUP a CLI host takes as one, each of whose handlers a forked child inherits from its host
HELD = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGHUP})


def start_as_child(pool_worker: bool = False) -> None:
    """Have the kernel kill this process when its parent dies, so a child never outlives a
    killed indexer (Linux; elsewhere a no-op), and leave a Ctrl-C to the parent: the terminal
    sends it to every process of the group, and the indexer alone decides what it stops; a
    SIGTERM or SIGHUP too, which a CLI host takes as a Ctrl-C. A `pool_worker` ends on those
    two at once, without a word, as a process with no handler of its own does: a signal to
    the group reaches it, and a forked worker would otherwise run the host's handler, which
    raises (`Stopped`), and print its traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    stop = signal.SIG_DFL if pool_worker else signal.SIG_IGN
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD)  # as a pool's fork left them
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
