"""A Python caller names a store by its folder, as the CLI's `--store` does: `api.index` and
`api.snapshot` take the folder (a string or a path) as they take an open store (was: an
AttributeError, `'str' object has no attribute 'env'`, from deep inside the build)."""

from __future__ import annotations

from corpora.gitbuild import RepoBuilder
from indexer import api
from indexer.store.database import Store


def test_a_store_named_by_its_folder_is_indexed_into_and_read_back(tmp_path):
    RepoBuilder(tmp_path / "repo").commit({"shop/cart.py": "class Cart:\n    pass\n"}, message="cart")
    report = api.index(str(tmp_path / "repo"), "main", store=str(tmp_path / "store"), workers=1)
    assert (report.files, report.symbols) == (1, 1)
    with Store.open(tmp_path / "store") as opened:  # the very store, written and closed again
        assert api.snapshot(str(tmp_path / "repo"), "main", store=opened, index_if_absent=False).fingerprint == \
            report.fingerprint
    snap = api.snapshot(str(tmp_path / "repo"), "main", store=tmp_path / "store", index_if_absent=False)
    assert snap.fingerprint == report.fingerprint
    assert [(p, s.qualified) for p, s in snap.definitions("Cart")] == [("shop/cart.py", "Cart")]
