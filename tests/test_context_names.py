"""How a caller names things to the context tools: `::` qualified names (Rust, C++), paths
written `./src/x` as a shell gives them, and reference sites in a defining file's Go or Java
package, which see its names without an import. A real repository built with pygit2 and
indexed into a real store."""

from __future__ import annotations

import pytest

from indexer.contract.errors import NotFound
from tests.indexed import Indexed

FILES = {
    "go.mod": "module example.com/shop\n\ngo 1.21\n",
    "cart/cart.go": "package cart\n\ntype Cart struct{}\n\nfunc (c *Cart) Total() int {\n\treturn 0\n}\n",
    "cart/checkout.go": "package cart\n\nfunc Checkout(c *Cart) int {\n\treturn c.Total()\n}\n",
    "cart/cart_test.go": "package cart\n\nfunc TestTotal() {\n\tvar c Cart\n\tc.Total()\n}\n",
    # an external test package is another package: it sees Cart only through an import
    "cart/ext_test.go": "package cart_test\n\nfunc ExampleTotal(c T) {\n\tc.Total()\n}\n",
    "main.go": ('package main\n\nimport "example.com/shop/cart"\n\n'
                "func main() {\n\tvar c cart.Cart\n\tc.Total()\n}\n"),
    "other/other.go": "package other\n\nfunc F(x T) {\n\tx.Total()\n}\n",
    "src/main/java/shop/Till.java": "package shop;\n\npublic class Till {\n    public int open() { return 0; }\n}\n",
    "src/test/java/shop/TillTest.java": ("package shop;\n\nclass TillTest {\n"
                                         "    void t() { new Till().open(); }\n}\n"),
    "src/main/java/bank/Vault.java": ("package bank;\n\nclass Vault {\n"
                                      "    void v(Object t) { t.open(); }\n}\n"),
    "tools/a_forms.py": "class Post:\n    pass\n",
    "tools/z_ledger.py": "def post():\n    pass\n",
    "pkg/__init__.py": "",
    "pkg/models/__init__.py": "from pkg.models.base import Model\n",
    "pkg/models/base.py": "class Model:\n    def save(self):\n        pass\n",
    "pkg/forms.py": "class Form:\n    pass\n",
    "Cargo.toml": '[package]\nname = "ledger"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": ("pub mod book;\n\npub struct Ledger;\n\nimpl Ledger {\n    pub fn post(&self) {}\n}\n\n"
                   "pub fn run(l: &Ledger) {\n    l.post();\n}\n"),
    "src/book.rs": "pub struct Book;\n\nimpl Book {\n    pub fn post(&self) {}\n}\n",
}


SHOP_REPO = Indexed(FILES, "rennet-ctx-names-", message="shop")


shop = SHOP_REPO.fixture()


def _defs(result) -> list[tuple[str, str, int, str]]:
    return [(d.path, d.qualified, d.line, d.match) for d in result.data.definitions]


def _exact(shop, name: str) -> list[tuple[str, str, int, str]]:
    """The definitions of `name` with no near-name fallback."""
    client, repo = shop
    return _defs(client.call("context.symbol", repo=repo, name=name, fuzzy=False))


def test_double_colon_qualifies_as_a_dot_does(shop):
    # `Ledger::post` was not found at all (no exact match, and no near name either)
    client, repo = shop
    dotted = client.call("context.symbol", repo=repo, name="Ledger.post")
    colons = client.call("context.symbol", repo=repo, name="Ledger::post", fuzzy=False)
    assert _defs(colons) == _defs(dotted) == [("src/lib.rs", "Ledger.post", 6, "exact")]
    assert _exact(shop, "book::Book::post") == [
        ("src/book.rs", "Book.post", 4, "qualified")]
    refs = client.call("context.references", repo=repo, name="Ledger::post")
    assert [(s.path, s.line, s.resolution) for s in refs.data.sites] == [("src/lib.rs", 10, "same_file")]
    # a near name is looked for by the last part, as for a dotted name
    near = client.call("context.symbol", repo=repo, name="Ledger::pst")
    assert near.data.fuzzy and ("src/lib.rs", "Ledger.post", 6, "fuzzy") in _defs(near)


def test_a_go_package_sees_its_names_without_an_import(shop):
    # files of the defining file's package were `name_match`, and a qualified query dropped them
    client, repo = shop
    refs = client.call("context.references", repo=repo, name="Total")
    sites = {(s.path, s.resolution) for s in refs.data.sites}
    assert sites == {("cart/checkout.go", "same_package"), ("cart/cart_test.go", "same_package"),
                     ("main.go", "import"), ("cart/ext_test.go", "name_match"), ("other/other.go", "name_match")}
    assert refs.data.by_resolution == {"import": 1, "same_file": 0, "same_package": 2, "name_match": 2, "text": 0}
    order = [s.resolution for s in refs.data.sites]
    assert order == ["same_package", "same_package", "import", "name_match", "name_match"]
    qualified = client.call("context.references", repo=repo, name="Cart.Total")
    assert {s.path for s in qualified.data.sites} == {"cart/checkout.go", "cart/cart_test.go", "main.go"}
    only = client.call("context.references", repo=repo, name="Total", resolution="same_package")
    assert [s.path for s in only.data.sites] == ["cart/cart_test.go", "cart/checkout.go"]


def test_a_java_package_spans_its_source_folders(shop):
    client, repo = shop
    refs = client.call("context.references", repo=repo, name="Till.open")
    assert [(s.path, s.resolution) for s in refs.data.sites] == [("src/test/java/shop/TillTest.java", "same_package")]
    plain = client.call("context.references", repo=repo, name="open")
    assert ("src/main/java/bank/Vault.java", "name_match") in {(s.path, s.resolution) for s in plain.data.sites}


def test_paths_written_from_the_shell_name_the_same_files(shop):
    client, repo = shop
    f = client.call("context.file", repo=repo, path="./cart/cart.go", limit=1)
    assert f.data.meta.path == "cart/cart.go" and f.data.content.lines == ["package cart"]
    assert _defs(client.call("context.symbol", repo=repo, name="Total", path="./cart/")) == [
        ("cart/cart.go", "Cart.Total", 5, "exact")]
    assert _defs(client.call("context.symbol", repo=repo, name="post", path="./src/*.rs")) == _defs(
        client.call("context.symbol", repo=repo, name="post", path="src/*.rs"))
    m = client.call("context.map", repo=repo, focus=["./cart/cart.go", "./other/"])
    assert m.data.focus_files == ["cart/cart.go", "other/other.go"] and m.data.unmatched_focus == []


def test_a_near_name_spelled_as_asked_comes_before_its_other_cases(shop):
    # `nowhere.post` listed the class `Post` first (names of one spelling in any case kept
    # their sorted order, capitals first)
    client, repo = shop
    near = client.call("context.symbol", repo=repo, name="nowhere.post", path="tools/")
    assert near.data.fuzzy and [d.qualified for d in near.data.definitions] == ["post", "Post"]
    near = client.call("context.symbol", repo=repo, name="nowhere.Post", path="tools/")
    assert [d.qualified for d in near.data.definitions] == ["Post", "post"]


def test_a_name_qualified_by_the_module_that_reexports_it(shop):
    # `models.Model` (Django's own spelling; base.py defines it, models/__init__.py imports it)
    # matched nothing exactly: the qualification was read against the defining file alone
    client, repo = shop
    assert _exact(shop, "models.Model") == [
        ("pkg/models/base.py", "Model", 1, "qualified")]
    assert _exact(shop, "pkg.models.Model.save") == [
        ("pkg/models/base.py", "Model.save", 2, "qualified")]
    assert _exact(shop, "models.base.Model") == [
        ("pkg/models/base.py", "Model", 1, "qualified")]
    for name in ("forms.Model", "models.Form", "models.Model.delete", "models.save"):
        with pytest.raises(NotFound):
            client.call("context.symbol", repo=repo, name=name, fuzzy=False)


def test_an_empty_path_repo_or_rev_is_bad_input_not_a_blank_name(shop):
    # `context file ""` said "not_found:  is not a file of snapshot ..." and `repo: ""`
    # "not_a_repository: does not exist", naming nothing
    from indexer.contract.errors import RennetError

    client, repo = shop
    for tool, args in (("context.file", {"repo": repo, "path": ""}), ("context.symbol", {"repo": "", "name": "x"}),
                       ("context.map", {"repo": repo, "rev": ""}), ("context.overview", {"workspace": ""}),
                       ("context.novelty", {"repo": repo, "base": "HEAD", "head": ""})):
        with pytest.raises(RennetError) as raised:
            client.call(tool, **args)
        assert raised.value.code == "bad_input", (tool, raised.value)


def test_a_kind_filter_that_misses_says_what_the_name_is_defined_as(shop):
    # `--kind classes` found nothing and said only that: kinds are the extraction's words
    client, repo = shop
    for tool in ("context.symbol", "context.references"):
        with pytest.raises(NotFound) as raised:
            client.call(tool, repo=repo, name="Model", kind="classes")
        assert str(raised.value).endswith("'Model' is defined as: class"), raised.value
    with pytest.raises(NotFound) as raised:
        client.call("context.symbol", repo=repo, name="Nowhere", kind="class", fuzzy=False)
    assert "defined as" not in str(raised.value)


def test_a_go_name_qualified_by_its_package_as_code_writes_it(shop):
    # `cobra.Command` fell back to near names: a Go package is a folder named by its package
    # clause, not a file (cart/checkout.go's Checkout is `cart.Checkout`)
    client, repo = shop
    assert _exact(shop, "cart.Checkout") == [
        ("cart/checkout.go", "Checkout", 3, "qualified")]
    assert _exact(shop, "cart.Cart.Total") == [
        ("cart/cart.go", "Cart.Total", 5, "qualified")]
    refs = client.call("context.references", repo=repo, name="cart.Cart.Total")
    assert {s.path for s in refs.data.sites} == {"cart/checkout.go", "cart/cart_test.go", "main.go"}
    with pytest.raises(NotFound):
        client.call("context.symbol", repo=repo, name="other.Checkout", fuzzy=False)
    with pytest.raises(NotFound):  # the package, then a type that is not the method's
        client.call("context.symbol", repo=repo, name="cart.Wrong.Total", fuzzy=False)
