"""A private `use` (or `extern crate`) of a crate root is seen by every module of its crate,
whichever file the root is: a `[[bin]] path` file (admin/run.rs) and a `[lib] path` file
(helper/lib/helper.rs) keep their modules beside them, as lib.rs and main.rs do, not in a
folder named after them. And where a file re-exports a name through several `use`s, the widest
visibility among them is what its importers see, in whichever order the uses are written.
Exact edges and sites, from a real index."""

from __future__ import annotations

from tests.indexed import Indexed, definitions, sites

FILES = {
    "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n\n'
                  '[[bin]]\nname = "admin"\npath = "admin/run.rs"\n\n'
                  '[dependencies]\nhelper = { path = "helper" }\n',
    "src/lib.rs": "pub mod net;\npub mod wide;\npub mod wider;\npub mod shelf;\npub mod shelfmate;\n",
    "src/net.rs": "pub struct Socket;\npub struct Pool;\npub struct Conn;\npub struct Link;\n",
    # Conn re-exported by a restricted glob and a `pub use`, Link by a `pub use` and a private glob
    "src/wide.rs": "pub(crate) use crate::net::*;\npub use crate::net::Conn;\n",
    "src/wider.rs": "pub use crate::net::Link;\nuse crate::net::*;\n",
    # shelf.rs's private use is its own: shelfmate.rs, whose name starts like it, is not inside it
    "src/shelf.rs": "use crate::net::Link;\n",
    "src/shelfmate.rs": "use crate::shelf::Link;\n\npub fn k(l: Link) {}\n",
    "admin/run.rs": "mod jobs;\nuse demo::net::Socket;\nextern crate helper as h;\n\nfn main() {}\n",
    "admin/jobs.rs": "use crate::Socket;\nuse crate::h::Tool;\n\npub fn f(s: Socket, t: Tool) {}\n",
    "helper/Cargo.toml": '[package]\nname = "helper"\nversion = "0.1.0"\nedition = "2021"\n\n'
                         '[lib]\npath = "lib/helper.rs"\n',
    "helper/lib/helper.rs": "pub mod inner;\nmod deep;\nuse crate::deep::Gem;\n\npub struct Tool;\n",
    "helper/lib/deep.rs": "pub struct Gem;\n",
    "helper/lib/inner.rs": "use crate::Gem;\n\npub fn g(p: Gem) {}\n",
    # another crate: sees what a `pub use` passes on
    "app/Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n\n'
                      '[dependencies]\ndemo = { path = ".." }\n',
    "app/src/main.rs": "use demo::wide::Conn;\nuse demo::wider::Link;\n\nfn main() { let _: (Conn, Link) = todo!(); }\n",
}
REPO = Indexed(FILES, "rennet-ctx-rust-root-visibility-", message="root visibility")


crate = REPO.fixture()


def test_a_private_use_of_a_root_is_seen_by_the_modules_beside_it(crate):
    assert sites(crate, "demo::net::Socket") == [
        ("admin/jobs.rs", 1, "import"), ("admin/jobs.rs", 4, "import"), ("admin/run.rs", 2, "import")]
    assert sites(crate, "helper::deep::Gem") == [
        ("helper/lib/helper.rs", 3, "import"), ("helper/lib/inner.rs", 1, "import"), ("helper/lib/inner.rs", 3, "import")]


def test_a_private_extern_crate_of_a_root_is_walked_from_the_modules_beside_it():
    edges = [(e.line, e.target) for e in REPO.record().edges if e.source == "admin/jobs.rs"]
    assert edges == [(1, "admin/run.rs"), (2, "helper/lib/helper.rs")]


def test_the_widest_of_a_files_uses_is_what_its_importers_see(crate):
    assert definitions(crate, "demo::wide::Conn") == [("src/net.rs", "Conn", 3, "qualified")]
    assert definitions(crate, "demo::wider::Link") == [("src/net.rs", "Link", 4, "qualified")]
    assert ("app/src/main.rs", 1, "import") in sites(crate, "demo::net::Conn")
    assert ("app/src/main.rs", 2, "import") in sites(crate, "demo::net::Link")


def test_a_private_use_is_not_seen_from_a_sibling_named_like_its_module(crate):
    assert [s for s in sites(crate, "demo::net::Link") if s[0].startswith("src/shelf")] == [("src/shelf.rs", 1, "import")]


# a crate whose root is lib.rs at the top of the tree: every file of the tree is inside it
TOP = Indexed({
    "Cargo.toml": '[package]\nname = "top"\nversion = "0.1.0"\nedition = "2021"\n\n[lib]\npath = "lib.rs"\n',
    "lib.rs": "mod net;\nmod util;\nuse net::Pool;\n",
    "net.rs": "pub struct Pool;\n",
    "util.rs": "use crate::Pool;\n\npub fn u(p: Pool) {}\n",
}, "rennet-ctx-rust-top-root-", message="top root")


def test_a_private_use_of_a_root_at_the_top_of_the_tree_is_seen_by_every_module():
    assert sites(TOP.asked(), "top::net::Pool") == [
        ("lib.rs", 3, "import"), ("util.rs", 1, "import"), ("util.rs", 3, "import")]
