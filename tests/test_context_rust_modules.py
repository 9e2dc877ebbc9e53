"""Rust module trees as `mod` declarations lay them out, beyond name.rs and name/mod.rs: a
module placed by `#[path = "..."]` (whose own children are then its siblings, as rustc
reads a `#[path]` file as a mod.rs), inline `mod m { ... }` modules (items in them, and a
file module declared inside one), binary crates (src/main.rs, src/bin/x.rs, src/bin/y/main.rs
and a `[[bin]] path`) whose `crate::` is their own module tree and which name the library by
the package's name, and a workspace whose crate depends on another by path. Exact edges and
exact lookups, from a real index."""

from __future__ import annotations

from tests.indexed import Indexed, definitions, sites

FILES = {
    "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n\n'
                  '[[bin]]\nname = "demo-admin"\npath = "admin/run.rs"\n',
    "src/lib.rs": '#[path = "transport/tcp.rs"]\npub mod net;\n'
                  "pub mod proto {\n    pub struct Frame;\n    pub mod wire;\n}\n"
                  "pub struct Socket;\n",
    # module `net` (by #[path]): its `mod pool;` is transport/pool.rs, beside it
    "src/transport/tcp.rs": "pub mod pool;\nuse self::pool::Pool;\n\npub struct Conn(Pool);\n",
    "src/transport/pool.rs": "pub struct Pool;\n",
    # no module: what a lookup by path alone would take for `crate::net`
    "src/net.rs": "pub struct Conn;\n",
    # module `proto::wire`, declared inside the inline module `proto`
    "src/proto/wire.rs": "use crate::net::pool::Pool;\n\npub struct Wire(Pool);\n",
    "src/user.rs": "use crate::net::Conn;\nuse crate::proto::wire::Wire;\n",
    # the binary `demo`: its own modules beside it, the library by the package's name
    "src/main.rs": "mod cli;\nuse crate::cli::Args;\nuse demo::net::Conn;\n\npub struct Opts;\nfn main() {}\n",
    "src/cli.rs": "use crate::Opts;\n\npub struct Args;\n",
    # the binary `tool`, and `multi` (a folder with main.rs)
    "src/bin/tool.rs": "use demo::Socket;\n\npub struct Tool;\nfn main() { let _ = crate::Tool; }\n",
    "src/bin/multi/main.rs": "mod helper;\nuse crate::helper::Helper;\n\nfn main() {}\n",
    "src/bin/multi/helper.rs": "pub struct Helper;\n",
    # the `[[bin]]` named demo-admin at admin/run.rs: its `mod jobs;` beside it
    "admin/run.rs": "mod jobs;\nuse crate::jobs::Job;\nuse demo::Socket;\n\npub struct Config;\nfn main() {}\n",
    "admin/jobs.rs": "use super::Config;\n\npub struct Job;\n",
}


REPO = Indexed(FILES, "rennet-ctx-rust-modules-", message="rust modules")


crate = REPO.fixture()


def _edges_from(path: str) -> list[tuple[int, str]]:
    return [(e.line, e.target) for e in REPO.record().edges if e.source == path]


def test_a_path_attribute_places_a_module_and_its_children_beside_it():
    assert _edges_from("src/lib.rs") == [(5, "src/proto/wire.rs"), (2, "src/transport/tcp.rs")]
    assert _edges_from("src/transport/tcp.rs") == [(1, "src/transport/pool.rs"), (2, "src/transport/pool.rs")]
    # `crate::net` is transport/tcp.rs, `crate::net::pool` transport/pool.rs: not src/net.rs
    assert _edges_from("src/user.rs") == [(2, "src/proto/wire.rs"), (1, "src/transport/tcp.rs")]
    assert _edges_from("src/proto/wire.rs") == [(1, "src/transport/pool.rs")]
    assert REPO.record().unresolved == []


def test_qualified_names_through_a_path_attribute(crate):
    conn = [("src/transport/tcp.rs", "Conn", 4, "qualified")]
    for name in ("demo::net::Conn", "crate::net::Conn"):
        assert definitions(crate, name) == conn, name
    assert definitions(crate, "demo::net::pool::Pool") == [("src/transport/pool.rs", "Pool", 1, "qualified")]
    # references through `crate::net::Conn` (user.rs) and `demo::net::Conn` (main.rs)
    assert sites(crate, "demo::net::Conn") == [("src/main.rs", 3, "import"), ("src/user.rs", 1, "import")]


def test_items_of_inline_modules_and_a_file_module_inside_one(crate):
    frame = [("src/lib.rs", "proto.Frame", 4, "qualified")]
    for name in ("demo::proto::Frame", "crate::proto::Frame"):
        assert definitions(crate, name) == frame, name
    wire = [("src/proto/wire.rs", "Wire", 3, "qualified")]
    for name in ("demo::proto::wire::Wire", "crate::proto::wire::Wire"):
        assert definitions(crate, name) == wire, name
    assert definitions(crate, "demo::Frame") == [] and definitions(crate, "demo::wire::Wire") == []


def test_binary_crates_have_their_own_crate_root():
    # main.rs's `crate::cli` is its own src/cli.rs (whose `crate::` is main.rs); `demo::` from
    # a binary is the library
    assert _edges_from("src/main.rs") == [(1, "src/cli.rs"), (2, "src/cli.rs"), (3, "src/transport/tcp.rs")]
    assert _edges_from("src/cli.rs") == [(1, "src/main.rs")]
    assert _edges_from("src/bin/tool.rs") == [(1, "src/lib.rs")]
    assert _edges_from("src/bin/multi/main.rs") == [(1, "src/bin/multi/helper.rs"), (2, "src/bin/multi/helper.rs")]
    # a `[[bin]] path` root keeps its modules beside it, and `super::` in them climbs to it
    assert _edges_from("admin/run.rs") == [(1, "admin/jobs.rs"), (2, "admin/jobs.rs"), (3, "src/lib.rs")]
    assert _edges_from("admin/jobs.rs") == [(1, "admin/run.rs")]


def test_binary_crates_by_name(crate):
    # a binary's crate name: `[[bin]] name` (demo-admin is demo_admin), the file stem of
    # src/bin/x.rs, the folder of src/bin/y/main.rs, the package's name for src/main.rs
    assert definitions(crate, "tool::Tool") == [("src/bin/tool.rs", "Tool", 3, "qualified")]
    assert definitions(crate, "multi::helper::Helper") == [("src/bin/multi/helper.rs", "Helper", 1, "qualified")]
    assert definitions(crate, "demo_admin::jobs::Job") == [("admin/jobs.rs", "Job", 3, "qualified")]
    assert definitions(crate, "demo::cli::Args") == [("src/cli.rs", "Args", 3, "qualified")]
    # `crate::` is each crate's root: the library's and each binary's
    assert definitions(crate, "crate::Tool") == [("src/bin/tool.rs", "Tool", 3, "qualified")]
    assert definitions(crate, "crate::helper::Helper") == [("src/bin/multi/helper.rs", "Helper", 1, "qualified")]
    assert definitions(crate, "tool::helper::Helper") == [] and definitions(crate, "multi::Tool") == []


def test_the_module_shown_for_a_rust_definition(crate):
    client, repo = crate

    def module(name: str) -> list[tuple[str, str]]:
        found = client.call("context.symbol", repo=repo, name=name, fuzzy=False).data.definitions
        return [(d.path, d.module) for d in found]

    # a file no `mod` declares keeps its path's module name
    assert sorted(module("Conn")) == [("src/net.rs", "net"), ("src/transport/tcp.rs", "demo::net")]
    assert module("Pool") == [("src/transport/pool.rs", "demo::net::pool")]
    assert module("Frame") == [("src/lib.rs", "demo")]
    assert module("Wire") == [("src/proto/wire.rs", "demo::proto::wire")]
    assert module("Args") == [("src/cli.rs", "demo::cli")]
    assert module("Tool") == [("src/bin/tool.rs", "tool")]
    assert module("Helper") == [("src/bin/multi/helper.rs", "multi::helper")]
    assert module("Job") == [("admin/jobs.rs", "demo_admin::jobs")]


# A workspace whose crate b depends on crate a by path
WORKSPACE = {
    "Cargo.toml": '[workspace]\nmembers = ["crates/a", "crates/b"]\nresolver = "2"\n',
    "crates/a/Cargo.toml": '[package]\nname = "a"\nversion = "0.1.0"\nedition = "2021"\n',
    "crates/a/src/lib.rs": "pub mod thing;\npub use thing::Thing;\n",
    "crates/a/src/thing.rs": "pub struct Thing;\n",
    "crates/b/Cargo.toml": '[package]\nname = "b"\nversion = "0.1.0"\nedition = "2021"\n\n'
                           '[dependencies]\na = { path = "../a" }\n',
    "crates/b/src/lib.rs": "use a::Thing;\nuse a::thing;\n\npub fn b(t: Thing) {}\n",
}


WORKSPACE_REPO = Indexed(WORKSPACE, "rennet-ctx-rust-ws-", message="rust workspace")


def test_a_path_dependency_of_a_workspace():
    record = WORKSPACE_REPO.record()
    assert [(e.source, e.line, e.target) for e in record.edges] == [
        ("crates/a/src/lib.rs", 1, "crates/a/src/thing.rs"),
        ("crates/a/src/lib.rs", 2, "crates/a/src/thing.rs"),
        ("crates/b/src/lib.rs", 1, "crates/a/src/lib.rs"),
        ("crates/b/src/lib.rs", 2, "crates/a/src/thing.rs")]
    assert record.unresolved == []
    asked = WORKSPACE_REPO.asked()
    thing = [("crates/a/src/thing.rs", "Thing", 1, "qualified")]
    assert definitions(asked, "a::Thing") == thing and definitions(asked, "a::thing::Thing") == thing
    assert sites(asked, "a::Thing") == [
        ("crates/a/src/lib.rs", 2, "import"), ("crates/b/src/lib.rs", 1, "import"), ("crates/b/src/lib.rs", 4, "import")]


def test_a_private_use_of_another_crate_re_exports_nothing():
    # b's `use a::Thing;` is not `pub`: `b::Thing` names nothing (a's `pub use` does: `a::Thing`)
    asked = WORKSPACE_REPO.asked()
    assert definitions(asked, "b::Thing") == [] and definitions(asked, "b::thing::Thing") == []
    assert definitions(asked, "a::Thing") == [("crates/a/src/thing.rs", "Thing", 1, "qualified")]


# A workspace whose crate facade re-exports crate facade_inner under an alias
EXTERN = {
    "Cargo.toml": '[workspace]\nmembers = ["facade", "facade_inner", "app"]\n',
    "facade_inner/Cargo.toml": '[package]\nname = "facade_inner"\nversion = "0.1.0"\nedition = "2021"\n',
    "facade_inner/src/lib.rs": "pub mod build;\npub use build::Builder;\npub struct Thing;\n",
    "facade_inner/src/build.rs": "pub struct Builder;\n",
    "facade/Cargo.toml": '[package]\nname = "facade"\nversion = "0.1.0"\nedition = "2021"\n',
    "facade/src/lib.rs": "pub extern crate facade_inner as inner;\n",
    "app/Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n',
    "app/src/main.rs": "use facade::inner::Thing;\n\nfn main() { let _t: facade::inner::Thing = Thing; }\n",
}


EXTERN_REPO = Indexed(EXTERN, "rennet-ctx-rust-extern-", message="rust extern crate alias")


def test_a_qualified_name_through_an_extern_crate_alias():
    asked = EXTERN_REPO.asked()
    thing = [("facade_inner/src/lib.rs", "Thing", 3, "qualified")]
    for name in ("facade::inner::Thing", "facade_inner::Thing", "crate::inner::Thing"):
        assert definitions(asked, name) == thing, name
    # on through a module of the aliased crate, and through its `pub use`
    builder = [("facade_inner/src/build.rs", "Builder", 1, "qualified")]
    for name in ("facade::inner::build::Builder", "facade::inner::Builder"):
        assert definitions(asked, name) == builder, name
    # the alias is facade's: no crate and no module of facade_inner is called `inner`
    assert definitions(asked, "facade_inner::inner::Thing") == [] and definitions(asked, "facade::Thing") == []
    assert definitions(asked, "facade::inner::Missing") == []
    assert sites(asked, "facade::inner::Thing") == [("app/src/main.rs", 1, "import"), ("app/src/main.rs", 3, "import"),
                                                   ("app/src/main.rs", 3, "import")]


# facade binds facade_inner as `inner` for every crate and as `hidden` for itself alone; its
# module m binds it as `deep` for m and the modules inside m alone
PRIVATE_EXTERN = dict(EXTERN, **{
    "facade/src/lib.rs": "pub extern crate facade_inner as inner;\nextern crate facade_inner as hidden;\n"
                         "pub mod m;\npub mod other;\npub mod elsewhere;\n",
    "facade/src/m.rs": "extern crate facade_inner as deep;\npub mod sub;\n",
    "facade/src/m/sub.rs": "use super::deep::Thing;\n",
    "facade/src/other.rs": "use crate::hidden::Thing;\n",
    "facade/src/elsewhere.rs": "use crate::m::deep::Thing;\n",
    "app/src/main.rs": "mod hidden;\nuse facade::inner::Thing;\n\nfn main() { let _t: Thing = Thing; }\n",
    "app/src/hidden.rs": "use facade::hidden::Thing;\n",
})

PRIVATE_EXTERN_REPO = Indexed(PRIVATE_EXTERN, "rennet-ctx-rust-private-extern-", message="rust private extern crate")


def test_a_private_extern_crate_alias_is_seen_inside_its_module_alone():
    asked = PRIVATE_EXTERN_REPO.asked()
    thing = [("facade_inner/src/lib.rs", "Thing", 3, "qualified")]
    # `pub extern crate` re-exports the crate under its alias; a private one binds it in facade alone
    assert definitions(asked, "facade::inner::Thing") == thing
    assert definitions(asked, "facade::hidden::Thing") == [] and definitions(asked, "facade::m::deep::Thing") == []
    assert definitions(asked, "crate::hidden::Thing") == thing  # from a crate root: inside facade
    edges = {(e.source, e.line): e.target for e in PRIVATE_EXTERN_REPO.record().edges}
    # another crate's path stops at the module whose private alias it cannot see
    assert edges[("app/src/main.rs", 2)] == "facade_inner/src/lib.rs"
    assert edges[("app/src/hidden.rs", 1)] == "facade/src/lib.rs"
    # inside facade: the root's alias from every module, m's from m's own modules alone
    assert [edges[(p, 1)] for p in ("facade/src/other.rs", "facade/src/m/sub.rs", "facade/src/elsewhere.rs")] == [
        "facade_inner/src/lib.rs", "facade_inner/src/lib.rs", "facade/src/m.rs"]
    assert sites(asked, "facade::inner::Thing") == [
        ("app/src/main.rs", 2, "import"), ("app/src/main.rs", 4, "import"), ("app/src/main.rs", 4, "import"),
        ("facade/src/m/sub.rs", 1, "import"), ("facade/src/other.rs", 1, "import")]  # not hidden.rs, elsewhere.rs


def test_a_re_index_follows_changed_mod_declarations_as_a_cold_index_does(tmp_path):
    """user.rs does not change, the `#[path]` that places `crate::net` does (and, next, a
    `mod` of main.rs that makes src/extra.rs the binary's): a re-index must resolve user.rs
    and extra.rs anew, to the bytes a cold index gives."""
    from corpora.gitbuild import RepoBuilder
    from indexer import api
    from indexer.store.database import Store
    from tests.reindexed import reindexed_as_cold

    builder = RepoBuilder(tmp_path / "repo")
    files = dict(FILES, **{"src/extra.rs": "use crate::cli::Args;\n"})
    commits = [builder.commit(files, message="base")]
    commits.append(builder.commit({"src/lib.rs": FILES["src/lib.rs"].replace("transport/tcp.rs", "net.rs")},
                                  message="path"))
    commits.append(builder.commit({"src/main.rs": "mod extra;\n" + FILES["src/main.rs"]}, message="mod"))
    reindexed_as_cold(str(builder.path), commits, tmp_path / "incremental")
    with Store.open(tmp_path / "incremental") as incremental:
        targets = [[e.target for e in api.snapshot(str(builder.path), oid, store=incremental).imports(path)]
                   for oid, path in ((commits[0], "src/user.rs"), (commits[1], "src/user.rs"),
                                     (commits[1], "src/extra.rs"), (commits[2], "src/extra.rs"))]
    assert targets == [["src/proto/wire.rs", "src/transport/tcp.rs"], ["src/net.rs", "src/proto/wire.rs"],
                       ["src/lib.rs"], ["src/cli.rs"]]
