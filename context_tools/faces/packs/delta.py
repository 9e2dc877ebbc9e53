"""Registry pack of the Delta packet: `delta.build` -> `rennet delta --repo R --base B --head H`.

Top-level imports stay light (msgspec and the registry); the builder, pygit2 and the
indexer load inside the handler.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from context_tools.faces.registry import CliShape, Command, Exposure
from indexer.contract.result import Freshness, Page, Result, not_assessed

CAPS = {"files": 1000, "hunks": 5000, "capture_bytes": 2 * 1024 * 1024}


class DeltaBuildInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    base: Annotated[str, msgspec.Meta(description="base of the reviewed range (branch, tag or sha)")]
    head: Annotated[str, msgspec.Meta(description="head of the reviewed range; reviewed as merge-base..head")]
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

    caps = {**CAPS, **dict(ctx.command.caps)}
    built = build_delta_packet(
        input.repo, input.base, input.head, previous_base=input.previous_base, previous_head=input.previous_head,
        paths=input.paths, out=input.out, store=ctx.store, index=input.index, elements=input.elements,
        dossier=input.dossier or None, capture_cap=caps["capture_bytes"], max_files=caps["files"], max_hunks=caps["hunks"])
    p = built.packet
    indexed_at = getattr(p.blast, "indexed_at", None) or not_assessed("no base snapshot was read for this packet")
    freshness = Freshness(repo=p.range.repo, rev=input.head, pinned_oid=p.range.head_oid,
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
    if p.offer:
        lines.append(f"  noise offer: {p.offer}")
    return shown_lines(lines)


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
