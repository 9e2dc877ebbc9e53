"""A re-index of JavaScript and TypeScript after a change to a JSON file no importer names: a
tsconfig's `extends` target may be any .json (indexer/lang/javascript/resolve.py
`changes_others`), so a change to it re-resolves the files it maps, as a cold index does."""

from __future__ import annotations

import json

from corpora.gitbuild import make_repo
from indexer.api import open_store
from indexer.store.records import load_record
from tests.reindexed import reindexed_as_cold


def _paths(target: str) -> str:
    return json.dumps({"compilerOptions": {"baseUrl": ".", "paths": {"@lib/*": [target]}}})


def test_a_change_to_an_extended_config_not_named_tsconfig_re_resolves_its_importers(tmp_path):
    base = {
        "tsconfig.json": json.dumps({"extends": "./configs/shared.json"}),
        "configs/shared.json": _paths("../old/*"),
        "old/db.ts": "export const db = 1;\n",
        "new/db.ts": "export const db = 2;\n",
        "app.ts": 'import { db } from "@lib/db";\n',
    }
    oids = make_repo(tmp_path / "repo", [base, {"configs/shared.json": _paths("../new/*")}])
    reindexed_as_cold(str(tmp_path / "repo"), oids, tmp_path / "warm")
    store = open_store(tmp_path / "warm")
    try:
        pairs = [{(e.source, e.target) for e in load_record(store, oid).edges} for oid in oids]
    finally:
        store.close()
    # the change did move the import: the comparison with a cold index was not vacuous
    assert pairs == [{("app.ts", "old/db.ts")}, {("app.ts", "new/db.ts")}]
