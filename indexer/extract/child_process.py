"""What a process the indexer starts (an extraction worker, the facts writer) does first."""

from __future__ import annotations

import ctypes  # here, not in each child: the indexer imports this module before it forks them
import signal


def die_with_parent() -> None:
    """Have the kernel kill this process when its parent dies: a child must not outlive a
    killed indexer (Linux; elsewhere a no-op)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
