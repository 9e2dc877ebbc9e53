"""Rust re-exports by visibility: a `use` passes a name on as far as its visibility reaches (a
`pub use` to every crate, `pub(crate) use` within the crate, a private `use` to its own module
and the modules inside it), so qualified lookups, relays and alias sites follow a `use` only
when the path reaching it sees it; a `pub use` of an item of the file's own inline module;
and `super::` in a `#[path]` file, which is the module declaring it. Exact lookups and sites,
from a real index."""

from __future__ import annotations

from tests.indexed import Indexed, definitions, sites

FILES = {
    "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": "pub mod net;\npub mod shelf;\nmod util;\npub mod de;\n"
                  "use net::Pool;\npub(crate) use net::Conn as Link;\npub use net::Socket;\n",
    "src/net.rs": "pub struct Pool;\npub struct Conn;\npub struct Socket;\n",
    # crate-visible Conn, private Pool (seen by shelf/inner.rs, inside shelf)
    "src/shelf.rs": "pub mod inner;\npub(crate) use crate::net::Conn;\nuse crate::net::Pool;\n",
    "src/shelf/inner.rs": "use super::Pool;\n\npub fn f(p: Pool) {}\n",
    # the root's private `use net::Pool;` is seen by every module of the crate
    "src/util.rs": "use crate::{Pool, Link};\n\npub fn u(p: Pool, l: Link) {}\n",
    # an item of an inline module, re-exported by its own file
    "src/de.rs": "pub use self::content::{Content as Buffered, Seed};\n\n"
                 "mod content {\n    pub enum Content { Unit }\n    pub struct Seed;\n}\n",
    # another crate (a bin target): it sees only what `pub use` passes on
    "src/bin/tool.rs": "use demo::Socket;\nuse demo::Pool;\nuse demo::Link as L;\n\n"
                       "fn main() { let _: (Socket, Pool, L) = todo!(); }\n",
}


REPO = Indexed(FILES, "rennet-ctx-rust-visibility-", message="rust visibility")


crate = REPO.fixture()


def test_a_use_is_recorded_with_its_visibility():
    from indexer.extract.blob import extract_blob

    source = (b"use a::X;\npub use b::{Y, Z as W};\npub(crate) use c::*;\npub(in crate::m) use d as e;\n"
              b"pub(self) use f::G;\nmod m { pub(super) use self::n::Q; }\n")
    found = [(i.spec, i.visibility) for i in extract_blob(source, "src/x.rs", "rust").imports if i.kind == "rust_use"]
    assert found == [("a::X", ""), ("b", "pub"), ("c", "pub(crate)"), ("d", "pub(in crate::m)"), ("f::G", ""),
                     ("self::n::Q", "pub(super)")]


def test_only_a_pub_use_re_exports_to_another_crate(crate):
    pool, conn = [("src/net.rs", "Pool", 1, "qualified")], [("src/net.rs", "Conn", 2, "qualified")]
    assert definitions(crate, "demo::Socket") == [("src/net.rs", "Socket", 3, "qualified")]
    # lib.rs's private `use net::Pool;` and `pub(crate) use net::Conn as Link;`: not from outside
    assert definitions(crate, "demo::Pool") == [] and definitions(crate, "demo::Link") == []
    # tool.rs's own `use demo::Socket;` is private: `tool::Socket` is nothing
    assert definitions(crate, "tool::Socket") == []
    # within the crate: the root's private use is every module's, a pub(crate) one the crate's
    assert definitions(crate, "crate::Pool") == pool and definitions(crate, "crate::Link") == conn
    assert definitions(crate, "crate::shelf::Conn") == conn and definitions(crate, "demo::shelf::Conn") == []
    assert definitions(crate, "crate::shelf::Pool") == []  # private to shelf and what is inside it


def test_references_through_a_use_its_importer_sees(crate):
    # util.rs (root's private use, `crate::`) and shelf/inner.rs (`super::` into shelf's private
    # use) are import sites; tool.rs's `use demo::Pool` reaches lib.rs, whose use it does not see
    assert sites(crate, "demo::net::Pool") == [
        ("src/lib.rs", 5, "import"), ("src/shelf.rs", 3, "import"),
        ("src/shelf/inner.rs", 1, "import"), ("src/shelf/inner.rs", 3, "import"),
        ("src/util.rs", 1, "import"), ("src/util.rs", 3, "import")]
    assert ("src/bin/tool.rs", 2, "name_match") in sites(crate, "Pool")
    # Conn under lib.rs's crate-only name Link (line 6 holds `Conn` and `Link`): util.rs's, not
    # tool.rs's `use demo::Link as L`
    assert sites(crate, "demo::net::Conn") == [
        ("src/lib.rs", 6, "import"), ("src/lib.rs", 6, "import"), ("src/shelf.rs", 2, "import"),
        ("src/util.rs", 1, "import"), ("src/util.rs", 3, "import")]


def test_a_pub_use_of_an_item_of_the_files_own_inline_module(crate):
    content = [("src/de.rs", "content.Content", 4, "qualified")]
    for name in ("demo::de::Buffered", "crate::de::Buffered", "demo::de::content::Content"):
        assert definitions(crate, name) == content, name
    assert definitions(crate, "demo::de::Seed") == [("src/de.rs", "content.Seed", 5, "qualified")]
    assert definitions(crate, "demo::de::Content") == []  # offered only as Buffered


# A 2015 crate (no `edition`): a bare path starts at the crate root, and user.rs's `use Conn;`
# is the root's private import, which the whole crate sees; `old::Conn` is nothing
OLD = {
    "Cargo.toml": '[package]\nname = "old"\nversion = "0.1.0"\n',
    "src/lib.rs": "mod net;\nmod user;\nuse net::Conn;\n",
    "src/net.rs": "pub struct Conn;\n",
    "src/user.rs": "use Conn;\n\npub fn f(c: Conn) {}\n",
}


def test_a_bare_path_of_a_2015_crate_is_inside_it():
    asked = Indexed(OLD, "rennet-ctx-rust-2015-", message="rust 2015").asked()
    assert sites(asked, "Conn") == [("src/lib.rs", 3, "import"), ("src/user.rs", 1, "import"),
                                    ("src/user.rs", 3, "import")]
    assert definitions(asked, "old::Conn") == []
    assert definitions(asked, "crate::Conn") == [("src/net.rs", "Conn", 1, "qualified")]


PATHS = {
    "Cargo.toml": '[package]\nname = "paths"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": '#[path = "sys/unix/tcp.rs"]\npub mod tcp;\npub mod sys;\npub struct Root;\n',
    # super:: of a #[path] file is lib.rs, the module declaring it, not the folders above
    "src/sys/unix/tcp.rs": "use super::Root;\nuse super::sys::Flag;\n",
    "src/sys/mod.rs": "pub struct Flag;\n",
    # what climbing folders from sys/unix/tcp.rs would take for its parent
    "src/sys/unix.rs": "pub struct Root;\n",
}


def test_super_of_a_path_file_is_the_module_declaring_it():
    record = Indexed(PATHS, "rennet-ctx-rust-super-", message="rust super").record()
    assert [(e.source, e.line, e.target) for e in record.edges if e.source == "src/sys/unix/tcp.rs"] == [
        ("src/sys/unix/tcp.rs", 1, "src/lib.rs"), ("src/sys/unix/tcp.rs", 2, "src/sys/mod.rs")]
    assert record.unresolved == []


def test_a_re_index_follows_the_module_declaring_a_path_file(tmp_path):
    """tcp.rs does not change, the module declaring it does (lib.rs, then sys/mod.rs): its
    `super::` must be resolved anew, to the bytes a cold index gives."""
    from corpora.gitbuild import RepoBuilder
    from indexer import api
    from indexer.store.database import Store

    builder = RepoBuilder(tmp_path / "repo")
    commits = [builder.commit(PATHS, message="base")]
    commits.append(builder.commit({"src/lib.rs": "pub mod sys;\npub struct Root;\n",
                                   "src/sys/mod.rs": '#[path = "unix/tcp.rs"]\npub mod tcp;\npub struct Flag;\n'},
                                  message="moved"))
    warm_store = Store.open(tmp_path / "warm")
    try:
        targets = []
        for i, oid in enumerate(commits):
            warm = api.index(str(builder.path), oid, store=warm_store, workers=1)
            cold_store = Store.open(tmp_path / f"cold{i}")
            try:
                assert warm.fingerprint == api.index(str(builder.path), oid, store=cold_store, workers=1).fingerprint
            finally:
                cold_store.close()
            targets.append([(e.line, e.target) for e in
                            api.snapshot(str(builder.path), oid, store=warm_store).imports("src/sys/unix/tcp.rs")])
        assert targets == [[(1, "src/lib.rs"), (2, "src/sys/mod.rs")], [(1, "src/sys/mod.rs"), (2, "src/sys/mod.rs")]]
    finally:
        warm_store.close()
