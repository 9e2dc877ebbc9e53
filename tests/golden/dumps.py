"""The canonical dumps of the fixture repositories, as digests: what a refactor must not change.

`python -m tests.golden.dumps` writes `dumps.json` beside this file from the code as it is;
`test_golden_dumps.py` indexes the same repositories again and compares. A change that is
meant to alter the Repo Map (a new fact, a fixed extraction) rewrites the file in the same
commit, so the diff of `dumps.json` shows which repositories it touched.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path

from corpora.fixtures import build_history, build_polyglot
from corpora.synthetic import generate

GOLDEN = Path(__file__).with_name("dumps.json")
SYNTHETIC_FILES = 400


def _repos(root: Path) -> dict[str, tuple[str, list[str]]]:
    poly = build_polyglot(root / "polyglot")
    hist = build_history(root / "history")
    generate(root / "synthetic", files=SYNTHETIC_FILES, seed=7, follow_ups=1)
    return {
        "polyglot": (str(poly.path), poly.commits),
        "history": (str(hist.path), hist.commits),
        "synthetic": (str(root / "synthetic"), _commits(root / "synthetic")),
    }


def _commits(repo: Path) -> list[str]:
    import pygit2

    r = pygit2.Repository(str(repo))
    return [str(c.id) for c in r.walk(r.head.target, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)]


def digests(root: Path) -> dict[str, dict[str, str]]:
    """{repo name: {commit: sha256 of the canonical dump}} for every fixture commit, indexed cold
    into one store in commit order (so later commits are re-indexes, as users run them)."""
    from indexer.api import index, open_store, snapshot

    store = open_store(root / "store")
    out: dict[str, dict[str, str]] = {}
    for name, (path, commits) in _repos(root).items():
        out[name] = {}
        for oid in commits:
            index(path, oid, store=store, workers=1)
            snap = snapshot(path, oid, store=store, index_if_absent=False)
            out[name][oid] = hashlib.sha256(b"".join(snap.canonical_lines())).hexdigest()
    return out


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        GOLDEN.write_text(json.dumps(digests(Path(tmp)), indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
