"""The summary of a built Delta packet that `delta.packet` answers with (the packet itself is on disk)."""

from __future__ import annotations

import msgspec

from delta.packet import NoiseClassSummary, Totals
from delta.range import RangeIdentity
from indexer.contract.result import Unknown


class SummaryFile(msgspec.Struct, omit_defaults=True):
    path: str
    status: str
    hunks: int
    additions: int | Unknown
    deletions: int | Unknown
    fan_in: int | Unknown
    # the path it came from, for a renamed or copied file alone: absent where it is `path`, so
    # that a page of the summary spends its bytes on files, not on each path twice
    old_path: str | None = None
    noise: str | None = None  # the noise class, when the file is noise; absent for a signal file
    # of a signal file, its hunks that are noise on their own (a whitespace-only hunk beside a
    # real change), which the noise classes' `hunks` count: absent when none
    noise_hunks: int = 0
    # the head side's parse had errors: where, and that its element changes may be misread
    # (the packet file's `parse_errors`); absent when it parsed cleanly or was not assessed
    parse_errors: str | None = None


class SuccessorSummary(msgspec.Struct):
    """The successor account in counts, for a packet that compared a previous patchset: the five
    lists' counts, the previous patchset's files whose hunks were not read (`unread`), and the
    current hunks compared with none of theirs (`uncompared`); the lists are in the packet."""

    counts: dict[str, int]
    unread: int
    uncompared: int


class PacketSummary(msgspec.Struct):
    """What an agent gets back for a built packet: where it is, and enough to decide what to read."""

    untrusted: str  # the packet's own sentence (`delta.untrusted.PACKET`): its paths and names are the change's
    range: RangeIdentity
    totals: Totals
    truncated: bool
    files: list[SummaryFile]  # the first of the packet's files, signal first
    noise: list[NoiseClassSummary]
    drops: int
    packet_path: str
    offer_path: str | None
    # not_assessed when no inexact rename or copy was looked for (a bound): renamed files then
    # read as added and deleted; absent when they were. `previous_renames`: the same of the
    # previous patchset's inventory, when the packet compared one; `previous_unscored`: its
    # successor account's pairs of hunks left unscored past a bound (`successor.unscored`)
    renames: Unknown | None = None
    previous_renames: Unknown | None = None
    previous_unscored: Unknown | None = None
    successor: SuccessorSummary | None = None  # absent when no previous patchset was given
    # where the files `files` leaves out are, when it leaves some out: the page has no cursor, as
    # no call of this tool pages them (absent when every file is listed here)
    files_elsewhere: str | None = None
