"""The related-context dossier: issue references of a change, fetched, bounded and persisted.

`build_dossier(repo_path, base, head, title=None, body=None, store=None, refresh=False,
config=None) -> Dossier` is the entry point (see `delta.dossier.build`). This package
module stays light so the registry pack can import it without pygit2; the builder and
its types load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import os
    from typing import Mapping

    import pygit2

    from delta.dossier.build import Dossier, Patchset, ReviewTarget  # noqa: F401  (exported lazily below)
    from delta.dossier.config import DossierConfig
    from indexer.store.database import Store


def build_dossier(repo_path: str | os.PathLike[str] | pygit2.Repository, base: str, head: str,
                  title: str | None = None, body: str | None = None, store: Store | None = None,
                  refresh: bool = False, config: Mapping[str, object] | DossierConfig | None = None, *,
                  environ: Mapping[str, str] | None = None,
                  flags: Mapping[str, str | None] | None = None) -> Dossier:
    from delta.dossier.build import build_dossier as _build

    return _build(repo_path, base, head, title=title, body=body, store=store, refresh=refresh, config=config,
                  environ=environ, flags=flags)


def __getattr__(name: str) -> type:
    if name in ("Dossier", "ReviewTarget", "Patchset"):
        from delta.dossier import build

        return getattr(build, name)
    raise AttributeError(name)


__all__ = ["Dossier", "build_dossier"]
