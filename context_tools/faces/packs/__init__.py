"""The one list of command packs the registry merges, in load order.

A pack module exposes `ROWS` or `register()` (see `context_tools.faces.registry`).
A listed module that does not exist yet is skipped; one that exists but fails
to import is an error.
"""

PACKS: tuple[str, ...] = (
    "context_tools.faces.packs.index",          # repo.index -> `rennet index`, snapshot.dump -> `rennet snapshot dump`
    "context_tools.faces.packs.context",  # context.* retrieval tools
    "context_tools.faces.packs.ledger",   # ledger.read -> `rennet ledger`
    "context_tools.faces.packs.delta",            # delta.build -> `rennet delta`
    "context_tools.faces.packs.dossier",    # dossier.build -> `rennet dossier`
    "context_tools.faces.packs.fleet",    # workspaces, batch, export/import
    "context_tools.faces.packs.store",    # store.info, store.list, store.gc -> `rennet store ...`
)
