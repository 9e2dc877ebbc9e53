"""Registry pack of the Delta packet: `delta.build` -> `rennet delta --repo R --base B --head H`.

Top-level imports stay light (msgspec and the registry); the builder, pygit2 and the
indexer load inside the handler.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from context_tools.faces.registry import CliShape, Command, Exposure
from indexer.contract.result import Freshness, Page, Result, WorktreeState, not_assessed

CAPS = {"files": 1000, "hunks": 5000, "capture_bytes": 2 * 1024 * 1024}


class DeltaBuildInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    base: Annotated[str, msgspec.Meta(description="base of the reviewed range (branch, tag or sha)")]
    head: Annotated[str, msgspec.Meta(description="head of the reviewed range; reviewed as merge-base..head "
                                                  "(WORKTREE: the checkout's working tree)")] = ""
    worktree: Annotated[bool, msgspec.Meta(
        description="the head is the checkout's working tree as it is now (same as head WORKTREE): review an "
                    "uncommitted change")] = False
    repo: Annotated[str, msgspec.Meta(description="repository path")] = "."
    previous_base: Annotated[str | None, msgspec.Meta(
        description="base of the previous patchset, for the successor account")] = None
    previous_head: Annotated[str | None, msgspec.Meta(
        description="head of the previous patchset (e.g. the branch before a force-push)")] = None
    out: Annotated[str | None, msgspec.Meta(
        description="folder for packet.json and noise-offer.json (default <store>/delta/<merge-base>..<head>)")] = None
    paths: Annotated[list[str] | None, msgspec.Meta(
        description="limit the packet to these paths (files or folders inside the repository)")] = None
    index: Annotated[bool, msgspec.Meta(
        description="index the base/head snapshots when absent (off: fan-in and elements are not assessed)")] = True
    elements: Annotated[bool, msgspec.Meta(description="run the element differ (symbols per file)")] = True
    dossier: Annotated[bool, msgspec.Meta(description="carry the related-context dossier of the range")] = False


def build_handler(input: DeltaBuildInput, ctx: Any) -> Result:
    from delta.packet import build_delta_packet
    from indexer.contract.errors import BadInput
    from indexer.git.worktree import WORKTREE

    head = input.head
    if input.worktree:
        if head not in ("", WORKTREE):
            raise BadInput(f"pass either --worktree or --head ({head}), not both")
        head = WORKTREE
    elif not head:
        raise BadInput("delta needs --head REV (or --worktree for the working tree)")
    caps = {**CAPS, **dict(ctx.command.caps)}
    built = build_delta_packet(
        input.repo, input.base, head, previous_base=input.previous_base, previous_head=input.previous_head,
        paths=input.paths, out=input.out, store=ctx.store, index=input.index, elements=input.elements,
        dossier=input.dossier or None, capture_cap=caps["capture_bytes"], max_files=caps["files"], max_hunks=caps["hunks"])
    p = built.packet
    indexed_at = getattr(p.blast, "indexed_at", None) or not_assessed("no base snapshot was read for this packet")
    if p.range.worktree_base_oid is not None:
        state = WorktreeState("snapshot", p.range.worktree_base_oid, p.range.head_oid, p.totals.files)
        freshness = Freshness(repo=p.range.repo, rev=head, pinned_oid=p.range.head_oid,
                              current_oid=p.range.head_oid, status="worktree",
                              reason="built from the working tree as it is now", indexed_at=indexed_at,
                              worktree=state)
    else:
        freshness = Freshness(repo=p.range.repo, rev=head, pinned_oid=p.range.head_oid,
                              current_oid=p.range.head_oid, status="current",
                              reason="built from the commit the head resolves to now", indexed_at=indexed_at)
    page = Page(total=p.totals.files, returned=p.totals.files_listed, truncated=p.truncated)
    return Result(data=p, freshness=freshness, page=page)


def render_packet(result: Result) -> str:
    from context_tools.faces.sanitize import shown_lines
    from delta.successor import SuccessorAccount

    p = result.data
    t = p.totals
    r = p.range
    lines = [f"delta {r.merge_base_oid[:12]}..{r.head_oid[:12]}  (base {r.base_ref} {r.base_oid[:12]})",
             f"  files {t.files_listed}/{t.files}  hunks {t.hunks_listed}/{t.hunks}  +{t.additions} -{t.deletions}"
             f"  noise files {t.noise_files}  diff {t.diff_bytes_captured}/{t.diff_bytes} bytes captured"]
    for f in p.files:
        noise = f"  [{f.noise.cls}: {f.noise.rule}]" if f.noise else ""
        fan = f.fan_in if isinstance(f.fan_in, int) else "?"
        moved = f" <- {f.old_path}" if f.status in ("renamed", "copied") else ""
        lines.append(f"  {f.status:<12} {f.path}{moved}  hunks {f.hunk_count}  fan-in {fan}{noise}")
    for d in p.drops:
        lines.append(f"  dropped {d.what} of {d.path}: {d.reason} ({d.hunks} hunks, {d.bytes} bytes)")
    successor = p.successor
    if isinstance(successor, SuccessorAccount):
        prev = successor.previous
        counts = "  ".join(f"{k} {successor.counts.get(k, 0)}"
                           for k in ("carried", "moved", "changed", "dropped", "new"))
        lines.append(f"  successor of {prev.merge_base_oid[:12]}..{prev.head_oid[:12]}: {counts}")
        for u in successor.unread:
            lines.append(f"  unread in the previous patchset: {u.path} ({u.reason})")
    lines += _unassessed(p) + _summary(p)
    if p.offer:  # the packet is written beside its noise offer
        from pathlib import Path

        lines += [f"packet: {Path(p.offer).with_name('packet.json')}", f"noise offer: {p.offer}"]
    return shown_lines(lines)


def _unassessed(p: Any) -> list[str]:
    """What `fan-in ?` means: one line per reason, with the files it holds for."""
    reasons: dict[str, int] = {}
    for f in p.files:
        if not isinstance(f.fan_in, int):
            reasons[f"{f.fan_in.unknown.replace('_', ' ')}: {f.fan_in.reason}"] = \
                reasons.get(f"{f.fan_in.unknown.replace('_', ' ')}: {f.fan_in.reason}", 0) + 1
    return [f"fan-in ? ({n} file{'s' if n > 1 else ''}): {why}" for why, n in reasons.items()]


def _summary(p: Any) -> list[str]:
    """Files by status and by noise class, counterparts, and the largest blast radius."""
    from collections import Counter

    status = Counter(f.status for f in p.files)
    out = ["summary: " + ", ".join(f"{n} {s}" for s, n in sorted(status.items(), key=lambda kv: (-kv[1], kv[0])))
           + f" of {p.totals.files} files listed" if p.files else "summary: no files changed"]
    signal = sum(1 for f in p.files if f.noise is None)
    out.append(f"  noise: {signal} signal" + "".join(f", {c.files} {c.cls}" for c in p.noise))
    paired = [f for f in p.files if isinstance(f.counterparts, list) and f.counterparts]
    unchanged = sum(1 for f in paired for c in f.counterparts if c.exists_at_head and not c.changed)
    missing = sum(1 for f in paired for c in f.counterparts if not c.exists_at_head)
    out.append(f"  counterparts: {len(paired)} files have some; {unchanged} of them not changed by the range, "
               f"{missing} expected but missing at head" if paired else "  counterparts: none found")
    assessed = [f for f in p.files if isinstance(f.fan_in, int)]
    if assessed:
        top = max(assessed, key=lambda f: (f.fan_in, f.path))
        out.append(f"  largest blast radius: {top.path} (fan-in {top.fan_in}: files of the base importing it)")
    else:
        out.append("  largest blast radius: not assessed (no changed file has a fan-in)")
    return out


ROWS = (
    Command(
        id="delta.build",
        examples=("rennet delta --base HEAD~1 --head HEAD", "rennet delta --base HEAD~1 --head HEAD --no-elements --json"),
        summary="Build the Delta packet of a range: inventory, hunk ids, fan-in, noise, counterparts, successor.",
        description="The packet is an inventory, not the diff: hunk ids, headers and spans travel, bodies do "
                    "not. Writes packet.json and noise-offer.json to --out (default under the store home).",
        input=DeltaBuildInput,
        handler=build_handler,
        authority="write",  # writes the output folder and may index snapshots
        exposure=Exposure(cli=True, agent=False),  # the runner hands the packet to a drafter; not a tool
        maturity="stable",
        caps=CAPS,
        cli=CliShape(path=("delta",)),
        render=render_packet,
    ),
)
