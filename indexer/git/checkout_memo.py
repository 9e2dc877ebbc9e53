"""What reads of a checkout keep between them, per checkout (its working tree's folder): a
file's blob by its stat data, a folder's listing by its stamp. Kept for the newest checkouts
alone, and dropped whole past a bound of paths, so a server reading many checkouts holds a
bounded amount; kept only for what changed longer ago than a racy change could follow unseen."""

from __future__ import annotations

import os
import time
from collections import OrderedDict
from typing import Generic, TypeVar

V = TypeVar("V")

MEMO_CHECKOUTS = 16
MEMO_PATHS = 100_000
RACY_NS = 2_000_000_000  # a file changed within this much of being read may change again unseen


class CheckoutMemos(Generic[V]):
    """checkout -> path -> what was kept of it, for the newest `MEMO_CHECKOUTS` checkouts."""

    def __init__(self) -> None:
        self._memos: OrderedDict[str, dict[str, V]] = OrderedDict()

    def of(self, workdir: str) -> dict[str, V]:
        """The memo of `workdir`, made if absent (the oldest let go past the bound), emptied once
        it holds more than `MEMO_PATHS` paths."""
        memo = self._memos.get(workdir)
        if memo is None:
            memo = self._memos[workdir] = {}
            while len(self._memos) > MEMO_CHECKOUTS:
                self._memos.popitem(last=False)
        self._memos.move_to_end(workdir)
        if len(memo) > MEMO_PATHS:
            memo.clear()
        return memo


def now_ns() -> int:
    return time.time_ns()


def settled(st: os.stat_result) -> bool:
    """Did the file or folder `st` describes last change long enough ago to be kept by its stat
    data? One changed within `RACY_NS` may change again within the same stamp."""
    return now_ns() - max(st.st_mtime_ns, st.st_ctime_ns) > RACY_NS
