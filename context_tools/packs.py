"""The one list of command packs the registry merges, in load order.

A pack module exposes `ROWS` or `register()` (see `context_tools.registry`).
A listed module that does not exist yet is skipped; one that exists but fails
to import is an error.
"""

PACKS: tuple[str, ...] = (
    "indexer.commands",          # repo.index -> `rennet index`, snapshot.dump -> `rennet snapshot dump`
    "context_tools.context_pack",  # context.* retrieval tools
    "context_tools.ledger_pack",   # ledger.read -> `rennet ledger`
    "delta.commands",            # delta.build -> `rennet delta`
    "delta.dossier.commands",    # dossier.build -> `rennet dossier`
    "indexer.fleet_commands",    # workspaces, batch, export/import
)
