"""The shop: a small Git repository in several languages, with the odd entries a real one
holds (a binary file, Latin-1 text, a symlink, a submodule, an executable, a merge, an orphan
branch, annotated and non-commit tags, a branch named as a sha, a deleted and a moved branch,
an edited checkout), for tests that drive commands with drawn input (`tests/test_agent_tool_inputs.py`,
`tests/test_command_inputs.py`), and the names and odd text those draw from.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from corpora.gitbuild import Exec, Link, RepoBuilder, Submodule

BASE = {
    "pyproject.toml": '[project]\nname = "shop"\nversion = "1.0"\ndependencies = ["click>=8"]\n',
    "src/shop/__init__.py": "from .cart import Cart\n",
    "src/shop/cart.py": ("class Cart:\n    def __init__(self):\n        self.items = []\n\n"
                         "    def add(self, item):\n        self.items.append(item)\n        return total(self.items)\n\n\n"
                         "def total(items):\n    return sum(i.price for i in items)\n"),
    "web/package.json": '{"name": "shop-web", "version": "1.0.0"}',
    "web/cart.js": "import { price } from './price';\nexport function render(cart) {\n  return price(cart);\n}\n",
    "web/price.js": "export function price(cart) {\n  return cart.length;\n}\n",
    "go.mod": "module example.com/shop\n\ngo 1.21\n",
    "docs/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00" + bytes(range(256)),
    "src/shop/latin1.py": "# caf\xe9\nNAME = 'caf\xe9'\n".encode("latin-1"),
    "src/shop/long.py": "X = '" + "x" * 5000 + "'\n",
    "src/shop/link.py": Link("cart.py"),
    "vendor/lib": Submodule("1" * 40),
    "bin/run.sh": Exec("#!/bin/sh\necho run\n"),
    "cmd/main.go": 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println(Total(1)) }\n\nfunc Total(n int) int { return n }\n',
}
HEAD_CHANGES = {
    "src/shop/cart.py": BASE["src/shop/cart.py"] + "\n\ndef discount(items, rate):\n    return total(items) * rate\n",
    "src/shop/checkout.py": "from shop.cart import Cart, discount\n\n\ndef checkout(cart: Cart):\n    return discount(cart.items, 0.9)\n",
    "crates/tax/src/lib.rs": "pub struct Tax { pub rate: f64 }\n\nimpl Tax {\n    pub fn apply(&self, v: f64) -> f64 { v * self.rate }\n}\n",
    "crates/tax/Cargo.toml": '[package]\nname = "tax"\nversion = "0.1.0"\n',
}
FEATURE_CHANGES = {
    "src/shop/feature.py": "from shop.cart import total\n\n\ndef flag(items):  # fixes #12, see SHOP-7\n    return total(items) > 0\n",
    "web/price.js": "export function price(cart) {\n  return cart.length * 2;\n}\n",
}
SYMBOLS = ("Cart", "Cart.add", "shop.cart.Cart", "total", "discount", "checkout", "render", "price", "main",
           "Total", "Tax", "Tax.apply", "apply", "flag", "items", "__init__")
PATHS = (*BASE, *HEAD_CHANGES, *FEATURE_CHANGES, "src", "src/shop", "web/", "crates/tax/src", "vendor/lib/x.py",
         "notes.py")



def build(root: Path) -> tuple[str, tuple[str, ...], str]:
    import pygit2

    builder = RepoBuilder(root / "repo")
    base = builder.commit(BASE, message="base\n\nSHOP-1: the first cart")
    builder.tag("v1", base)
    head = builder.commit(HEAD_CHANGES, message="head: discount and tax (#3)")
    builder.checkout(base)
    feature = builder.commit(FEATURE_CHANGES, message="feature flag", branch="feature", parents=[base])
    builder.commit({"orphan.py": "def lone():\n    return 1\n"}, message="orphan", branch="orphan", replace=True)
    builder.checkout(head)
    builder.commit(FEATURE_CHANGES, message="merge feature", parents=[head, feature])
    merge = str(builder.repo.references["refs/heads/main"].target)
    repo = builder.repo
    repo.checkout_head(strategy=pygit2.GIT_CHECKOUT_FORCE)  # a checkout, with an edit and a new file
    (root / "repo" / "src/shop/cart.py").write_text(HEAD_CHANGES["src/shop/cart.py"] + "\nVAT = 0.2\n")
    (root / "repo" / "notes.py").write_text("def note():\n    return 'n'\n")
    blob = str(repo.revparse_single("v1:go.mod").id)
    repo.references.create("refs/tags/blobtag", pygit2.Oid(hex=blob))
    repo.references.create("refs/tags/treetag", repo.revparse_single("v1^{tree}").id)
    sig = pygit2.Signature("Tagger", "t@example.invalid", 1_700_000_000, 0)
    repo.create_tag("v2", pygit2.Oid(hex=head), pygit2.enums.ObjectType.COMMIT, sig, "annotated\n")
    for name in ("gone", "ü-branch", "a/b", head):  # the last a branch named as another commit's sha
        repo.references.create(f"refs/heads/{name}", pygit2.Oid(hex=feature))
    return str(root / "repo"), (base, head, feature, merge), blob


def after_indexing(repo_path: str) -> None:
    """`gone` indexed then deleted (its freshness unknown), `feature` moved on (stale)."""
    import pygit2

    repo = pygit2.Repository(repo_path)
    repo.references.delete("refs/heads/gone")
    feature = repo.references["refs/heads/feature"].peel(pygit2.Commit)
    sig = pygit2.Signature("Rennet Fixture", "fixture@example.invalid", 1_700_000_100, 0)
    repo.create_commit("refs/heads/feature", sig, sig, "feature 2", feature.tree.id, [feature.id])


def index_shop(root: Path) -> tuple[str, tuple[str, ...], str, str]:
    """The shop built under `root` and indexed at v1, main, feature and gone into `root/store`
    (then `gone` deleted and `feature` moved on): (repo, shas, blob, store)."""
    from indexer import api

    repo, shas, blob = build(root)
    store = str(root / "store")
    with api.open_store(store) as opened:
        for rev in ("v1", "main", "feature", "gone"):
            api.index(repo, rev, store=opened, workers=1)
    after_indexing(repo)
    return repo, shas, blob, store


UNSET = ("RENNET_JIRA_URL", "RENNET_JIRA_TOKEN_ENV", "RENNET_JIRA_PROJECTS", "RENNET_LINEAR_URL",
         "RENNET_LINEAR_TOKEN_ENV", "RENNET_LINEAR_TEAMS", "RENNET_GITHUB_ALLOW", "RENNET_DEBUG",
         "RENNET_CEILING", "RENNET_CACHE_BYTES", "https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY")


@contextmanager
def offline(root: Path, store: str, cwd: str) -> Iterator[pytest.MonkeyPatch]:
    """An environment that configures no tracker and has no `gh` (a GitHub reference is a fact,
    never a request), with the store as RENNET_HOME, stdin the null device and `cwd` the folder
    commands run in."""
    empty = root / "bin"
    empty.mkdir(exist_ok=True)
    with pytest.MonkeyPatch.context() as mp, open(os.devnull, encoding="utf-8") as null:
        for name in UNSET:
            mp.delenv(name, raising=False)
        mp.setenv("RENNET_HOME", store)  # the user's config file would be here: there is none
        mp.setenv("XDG_CONFIG_HOME", str(root / "config"))
        mp.setenv("PATH", str(empty))
        mp.setattr("sys.stdin", null)  # as `rennet mcp` serves: `body_file: "-"` is an empty body
        mp.chdir(cwd)
        assert shutil.which("gh") is None
        yield mp


ODD = ("..", ".", "^{}", "@{-1}", "@{u}", ":/x", ":/", "HEAD^{tree}", "HEAD:src", "main..feature", "main...feature",
       "-h", "--output=/tmp/x", "~", "^", "HEAD~99", "HEAD^3", "HEAD@{0}", "HEAD@{99}", "refs/heads/nope", "WORKTREE",
       "worktree", "stash", "FETCH_HEAD", " HEAD", "HEAD\n", "a\x1bb", "\x7f", "\u202e", "\\udcff", "\udcff",
       "a\x00b", "%00", "*", "**", "[", "\\", "'", '"', "$(id)", "ü", "日本", "\U0001f600", "a" * 300, "~0" * 2000,
       "@" * 4096, "/" * 4096)
