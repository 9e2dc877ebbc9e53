"""Rust `use` trees and re-exports as reference resolution sees them: a crate whose files
import the root's `Socket` with `use crate::{Socket}`, `use crate::Socket`, `use super::Socket`
and groups, a `Conn` and a `Wire` re-exported by `pub use` (in lib.rs, and in proto/mod.rs
on the way to proto/wire.rs) and imported through the re-exports, and nested groups that
reach modules two levels down; and a second crate whose lib.rs re-exports an item of a nested
group under its alias; names qualified by the crate's name (`demo::net::Conn`, `demo::Conn`),
and a workspace whose crates are named by `[package] name` with a hyphen and by `[lib]`.
Exact edges and exact site resolutions, from a real index."""

from __future__ import annotations

from tests.indexed import Indexed, definitions, sites

FILES = {
    "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": "pub mod net;\npub mod proto;\nmod util;\nmod a;\nmod b;\nmod c;\nmod d;\n"
                  "pub use net::Conn;\npub use proto::Wire;\n\npub struct Socket;\n",
    "src/net.rs": "use crate::{Socket};\n\npub struct Conn(Socket);\n",
    "src/util.rs": "use crate::Socket;\n\npub fn wrap(s: Socket) -> Socket { s }\n",
    "src/a.rs": "use super::Socket;\nuse crate::net::{self, Conn};\n\npub fn a(s: Socket, c: Conn) {}\n",
    "src/b.rs": "use crate::{net::Conn, Socket};\n\npub fn b(s: Socket, c: Conn) {}\n",
    # only through the re-exports: Conn one away (lib.rs), Wire two (lib.rs, proto/mod.rs)
    "src/c.rs": "use crate::Conn;\nuse crate::{Wire};\n\npub fn c(c: Conn, w: Wire) {}\n",
    # nested groups: proto/wire.rs is two modules down
    "src/d.rs": "use crate::{proto::{self, wire::{Wire}}, net::{Conn}};\n\npub fn d(w: Wire, c: Conn) {}\n",
    "src/proto/mod.rs": "pub mod wire;\npub use self::wire::Wire;\n",
    "src/proto/wire.rs": "pub struct Wire;\n",
    # another crate (a bin target) naming Conn without importing it
    "src/bin/tool.rs": "fn main() { let c: Option<Conn> = None; }\n",
}


CRATE_REPO = Indexed(FILES, "rennet-ctx-rust-uses-", message="rust uses")


crate = CRATE_REPO.fixture()


def test_use_edges_of_groups_nested_groups_and_reexports():
    edges = [(e.source, e.line, e.target) for e in CRATE_REPO.record().edges]
    assert edges == [
        ("src/a.rs", 1, "src/lib.rs"),  # use super::Socket
        ("src/a.rs", 2, "src/net.rs"),  # use crate::net::{self, Conn}
        ("src/b.rs", 1, "src/lib.rs"),  # use crate::{net::Conn, Socket}
        ("src/b.rs", 1, "src/net.rs"),
        ("src/c.rs", 1, "src/lib.rs"),
        ("src/c.rs", 2, "src/lib.rs"),
        ("src/d.rs", 1, "src/net.rs"),
        ("src/d.rs", 1, "src/proto/mod.rs"),
        ("src/d.rs", 1, "src/proto/wire.rs"),  # was lost in the nested group: d.rs stopped at proto
        ("src/lib.rs", 4, "src/a.rs"),
        ("src/lib.rs", 5, "src/b.rs"),
        ("src/lib.rs", 6, "src/c.rs"),
        ("src/lib.rs", 7, "src/d.rs"),
        ("src/lib.rs", 1, "src/net.rs"),
        ("src/lib.rs", 8, "src/net.rs"),  # pub use net::Conn
        ("src/lib.rs", 2, "src/proto/mod.rs"),
        ("src/lib.rs", 9, "src/proto/mod.rs"),  # pub use proto::Wire
        ("src/lib.rs", 3, "src/util.rs"),
        ("src/net.rs", 1, "src/lib.rs"),  # use crate::{Socket}
        ("src/proto/mod.rs", 1, "src/proto/wire.rs"),
        ("src/proto/mod.rs", 2, "src/proto/wire.rs"),  # pub use self::wire::Wire
        ("src/util.rs", 1, "src/lib.rs"),  # use crate::Socket
    ]


def test_the_crate_roots_name_through_every_form_of_use(crate):
    # `use crate::{Socket}`, `use crate::Socket`, `use super::Socket`, `use crate::{net::Conn, Socket}`
    assert sites(crate, "Socket") == [
        ("src/a.rs", 1, "import"), ("src/a.rs", 4, "import"),
        ("src/b.rs", 1, "import"), ("src/b.rs", 3, "import"),
        ("src/net.rs", 1, "import"), ("src/net.rs", 3, "import"),
        ("src/util.rs", 1, "import"), ("src/util.rs", 3, "import"), ("src/util.rs", 3, "import")]


def test_a_name_reexported_by_pub_use_in_the_crate_root(crate):
    # c.rs imports Conn from lib.rs, whose `pub use net::Conn;` passes it on: c.rs was name_match
    assert sites(crate, "Conn") == [
        ("src/a.rs", 2, "import"), ("src/a.rs", 4, "import"),
        ("src/b.rs", 1, "import"), ("src/b.rs", 3, "import"),
        ("src/c.rs", 1, "import"), ("src/c.rs", 4, "import"),
        ("src/d.rs", 1, "import"), ("src/d.rs", 3, "import"),
        ("src/lib.rs", 8, "import"),
        ("src/bin/tool.rs", 1, "name_match")]
    assert sites(crate, "net::Conn", resolution="name_match") == []


def test_a_chain_of_pub_use_through_a_mod_rs_and_a_nested_group(crate):
    # lib.rs re-exports proto's Wire, which proto/mod.rs re-exports from proto/wire.rs; d.rs
    # reaches wire.rs through `proto::{self, wire::{Wire}}`
    assert sites(crate, "Wire") == [
        ("src/c.rs", 2, "import"), ("src/c.rs", 4, "import"),
        ("src/d.rs", 1, "import"), ("src/d.rs", 3, "import"),
        ("src/lib.rs", 9, "import"),
        ("src/proto/mod.rs", 2, "import")]


# Aliases in use trees: lib.rs re-exports conn.rs's Conn as `Link` from a group nested in
# another, beside Pool (not renamed) and net.rs's Socket as `Sock`
ALIASED = {
    "Cargo.toml": '[package]\nname = "links"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": "pub mod net;\nmod e;\nmod f;\n"
                  "pub use net::{conn::{Conn as Link, Pool}, Socket as Sock};\n",
    "src/net.rs": "pub mod conn;\n\npub struct Socket;\n",
    "src/net/conn.rs": "pub struct Conn;\npub struct Pool;\n",
    # through the re-exports, under the names lib.rs offers
    "src/e.rs": "use crate::{Link, Pool, Sock};\n\npub fn e(l: Link, p: Pool, s: Sock) {}\n",
    # lib.rs offers Conn only as Link: `crate::Conn` is no Conn of conn.rs
    "src/f.rs": "use crate::Conn;\n\npub fn f(c: Conn) {}\n",
}


ALIASED_REPO = Indexed(ALIASED, "rennet-ctx-rust-aliases-", message="rust aliases")


aliased = ALIASED_REPO.fixture()


def test_an_aliased_item_of_a_nested_group_is_reexported_under_its_alias(aliased):
    record = ALIASED_REPO.record()
    assert [(e.source, e.line, e.target) for e in record.edges if e.source == "src/lib.rs" and e.line == 4] == [
        ("src/lib.rs", 4, "src/net.rs"), ("src/lib.rs", 4, "src/net/conn.rs")]
    # the crate root's module path offers conn.rs's Conn as Link, Pool as is, net.rs's Socket as Sock
    assert definitions(aliased, "src::Link") == [("src/net/conn.rs", "Conn", 1, "qualified")]
    assert definitions(aliased, "src::Pool") == [("src/net/conn.rs", "Pool", 2, "qualified")]
    assert definitions(aliased, "src::Sock") == [("src/net.rs", "Socket", 3, "qualified")]
    assert definitions(aliased, "src::Conn") == [] and definitions(aliased, "src::Socket") == []
    assert definitions(aliased, "Link") == []  # an alias is no definition of its own
    # sites: e.rs reaches Link and Pool through lib.rs; f.rs's Conn is not lib.rs's (it offers Link)
    assert sites(aliased, "src::Link") == [
        ("src/e.rs", 1, "import"), ("src/e.rs", 3, "import"), ("src/lib.rs", 4, "import")]
    assert sites(aliased, "Pool") == [
        ("src/e.rs", 1, "import"), ("src/e.rs", 3, "import"), ("src/lib.rs", 4, "import")]
    # Conn by its own name: also under the name lib.rs offers it as, `Link`, there (line 4 holds
    # `Conn` and `Link`) and in e.rs, which imports it so; likewise Socket, offered as `Sock`
    assert sites(aliased, "Conn") == [("src/e.rs", 1, "import"), ("src/e.rs", 3, "import"),
                                      ("src/lib.rs", 4, "import"), ("src/lib.rs", 4, "import"),
                                      ("src/f.rs", 1, "name_match"), ("src/f.rs", 3, "name_match")]
    assert sites(aliased, "Socket") == [("src/e.rs", 1, "import"), ("src/e.rs", 3, "import"),
                                        ("src/lib.rs", 4, "import"), ("src/lib.rs", 4, "import")]


def test_qualified_names_from_the_crate_name(crate):
    # `demo` is the crate Cargo.toml names: lib.rs is `demo`, net.rs `demo::net`, proto/mod.rs
    # `demo::proto`; `demo::Conn` over lib.rs's `pub use net::Conn;`, `demo::Wire` over lib.rs
    # and proto/mod.rs; `crate::` as code inside the crate writes it
    conn, wire = [("src/net.rs", "Conn", 3, "qualified")], [("src/proto/wire.rs", "Wire", 1, "qualified")]
    for name in ("demo::Conn", "demo::net::Conn", "crate::Conn", "crate::net::Conn"):
        assert definitions(crate, name) == conn, name
    # a crate's name qualifies a path written as Rust writes one: a dotted query is read as
    # module paths only (src/net.rs is `net`), so no dotted query pays for reading manifests
    assert definitions(crate, "demo.net.Conn") == [] and definitions(crate, "net.Conn") == conn
    for name in ("demo::Wire", "demo::proto::Wire", "demo::proto::wire::Wire", "crate::proto::Wire"):
        assert definitions(crate, name) == wire, name
    assert definitions(crate, "demo::Socket") == [("src/lib.rs", "Socket", 11, "qualified")]
    # no such module, no such re-export, no such crate
    assert definitions(crate, "demo::proto::Conn") == [] and definitions(crate, "demo::util::Conn") == []
    assert definitions(crate, "other::Conn") == [] and definitions(crate, "demo::net::wire::Wire") == []
    # references of the crate-qualified name: every import-resolved site of Conn, no name_match
    assert sites(crate, "demo::Conn") == [
        ("src/a.rs", 2, "import"), ("src/a.rs", 4, "import"),
        ("src/b.rs", 1, "import"), ("src/b.rs", 3, "import"),
        ("src/c.rs", 1, "import"), ("src/c.rs", 4, "import"),
        ("src/d.rs", 1, "import"), ("src/d.rs", 3, "import"),
        ("src/lib.rs", 8, "import")]


def test_an_aliased_reexport_under_the_crate_name(aliased):
    assert definitions(aliased, "links::Link") == [("src/net/conn.rs", "Conn", 1, "qualified")]
    assert definitions(aliased, "links::net::conn::Conn") == [("src/net/conn.rs", "Conn", 1, "qualified")]
    assert definitions(aliased, "links::Conn") == []  # lib.rs offers it only as Link


# A workspace: a virtual root manifest, a package named with a hyphen (code calls it net_kit)
# and one whose library is named and placed by `[lib]` (`wire` at lib/wire.rs), which the
# first one's lib.rs re-exports Frame from
WORKSPACE = {
    "Cargo.toml": '[workspace]\nmembers = ["net-kit", "codec"]\n',
    "net-kit/Cargo.toml": '[package]\nname = "net-kit"\nversion = "0.1.0"\nedition = "2021"\n\n'
                          '[dependencies]\ncodec-pkg = { path = "../codec" }\n',
    "net-kit/src/lib.rs": "pub mod conn;\npub use conn::Conn;\npub use wire::Frame;\n",
    "net-kit/src/conn.rs": "use wire::Frame;\n\npub struct Conn(Frame);\n",
    "codec/Cargo.toml": '[package]\nname = "codec-pkg"\nversion = "0.1.0"\nedition = "2021"\n\n'
                        '[lib]\nname = "wire"\npath = "lib/wire.rs"\n',
    "codec/lib/wire.rs": "pub mod frame;\npub use frame::Frame;\n",
    "codec/lib/frame.rs": "pub struct Frame;\n",
}


WORKSPACE_REPO = Indexed(WORKSPACE, "rennet-ctx-rust-crates-", message="rust crates")


workspace = WORKSPACE_REPO.fixture()


def test_a_lib_named_and_placed_by_its_manifest_is_the_crate_code_names():
    record = WORKSPACE_REPO.record()
    # `use wire::...` reaches the `[lib] name`d crate (it was external: only "codec_pkg" was
    # known), and lib/wire.rs, its `[lib] path` root, keeps its modules beside it
    assert [(e.source, e.line, e.target) for e in record.edges] == [
        ("codec/lib/wire.rs", 1, "codec/lib/frame.rs"),  # mod frame;
        ("codec/lib/wire.rs", 2, "codec/lib/frame.rs"),  # pub use frame::Frame;
        ("net-kit/src/conn.rs", 1, "codec/lib/wire.rs"),
        ("net-kit/src/lib.rs", 3, "codec/lib/wire.rs"),
        ("net-kit/src/lib.rs", 1, "net-kit/src/conn.rs"),
        ("net-kit/src/lib.rs", 2, "net-kit/src/conn.rs")]
    assert record.unresolved == []


def test_crate_names_of_a_workspace(workspace):
    conn, frame = [("net-kit/src/conn.rs", "Conn", 3, "qualified")], [("codec/lib/frame.rs", "Frame", 1, "qualified")]
    assert definitions(workspace, "net_kit::Conn") == conn and definitions(workspace, "net_kit::conn::Conn") == conn
    # the library's own name, its module beside its root; and Frame through two crates' re-exports
    for name in ("wire::Frame", "wire::frame::Frame", "net_kit::Frame", "crate::Frame"):
        assert definitions(workspace, name) == frame, name
    assert definitions(workspace, "codec_pkg::Frame") == []  # `[lib] name` renames the crate
    assert sites(workspace, "net_kit::Frame") == [
        ("codec/lib/wire.rs", 2, "import"),
        ("net-kit/src/conn.rs", 1, "import"), ("net-kit/src/conn.rs", 3, "import"),
        ("net-kit/src/lib.rs", 3, "import")]
