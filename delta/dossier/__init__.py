"""The related-context dossier: issue references of a change, fetched, bounded and persisted.

`build_dossier(repo_path, base, head, title=None, body=None, store=None, refresh=False,
config=None) -> Dossier` is the entry point (see `delta.dossier.build`). This package
module stays light so the registry pack can import it without pygit2; the builder and
its types load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import os
    from typing import Mapping

    import pygit2

    from delta.dossier.build import Dossier
    from delta.dossier.config import DossierConfig
    from indexer.store.database import Store


def build_dossier(repo_path: str | os.PathLike[str] | pygit2.Repository, base: str, head: str,
                  title: str | None = None, body: str | None = None, store: Store | None = None,
                  refresh: bool = False, config: Mapping[str, Any] | DossierConfig | None = None,
                  **kwargs: Any) -> Dossier:
    from delta.dossier.build import build_dossier as _build

    return _build(repo_path, base, head, title=title, body=body, store=store, refresh=refresh, config=config,
                  **kwargs)


def __getattr__(name: str) -> Any:
    if name in ("Dossier", "ReviewTarget", "Patchset"):
        from delta.dossier import build

        return getattr(build, name)
    raise AttributeError(name)


__all__ = ["Dossier", "build_dossier"]
