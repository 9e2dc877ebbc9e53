"""A Go or Rust receiver that is a field of a typed value, `c.conn.Send()` or
`self.cmd.get_name()`, is of the type the field is declared of (Go's `conn *Conn`, Rust's `cmd:
&'a Command`, behind a `Box`, `Arc` or `Rc` too); Rust's `self` is the type of the impl the
site is in. Was: a `name_match`, the chain untyped: client_golang's `c.base.Describe(ch)` and
clap's `self.cmd.get_name()`, its help and usage writers' every call on their Command. A
slice's element (`c.conns[0]`) is not typed. Exact sites, from a real index."""

from __future__ import annotations

from tests.indexed import Indexed

FILES = {
    "go.mod": "module example.com/app\n\ngo 1.21\n",
    "app/app.go": ("package app\n\ntype Conn struct{}\n\nfunc (c *Conn) Send() {}\n\ntype Other struct{}\n\n"
                   "func (o *Other) Send() {}\n\ntype Client struct {\n\tconn  *Conn\n\tother Other\n"
                   "\tconns []Conn\n}\n\nfunc (c *Client) Run() {\n"
                   "\tc.conn.Send()\n"  # 18
                   "\tc.other.Send()\n"  # 19
                   "\tc.conns[0].Send()\n"  # 20
                   "}\n"),
    "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": ("pub struct Conn;\n\nimpl Conn {\n    pub fn send(&self) {}\n}\n\n"
                   "pub struct Client<'a> {\n    conn: &'a Conn,\n    boxed: Box<Conn>,\n}\n\n"
                   "impl<'a> Client<'a> {\n    pub fn run(&self) {\n"
                   "        self.conn.send();\n"  # 14
                   "        self.boxed.send();\n"  # 15
                   "    }\n}\n\n"
                   "pub fn free(c: &Client) {\n"
                   "    c.conn.send();\n"  # 20
                   "}\n"),
}

REPO = Indexed(FILES, "rennet-ctx-field-receivers-", message="field receivers")


app = REPO.fixture()


def _owners(app, name: str) -> list[tuple[str, int, str | None]]:
    r = app.call("context.references", name=name)
    return sorted((s.path, s.line, r.data.definitions[s.definition].qualified if s.definition is not None
                   else s.resolution) for s in r.data.sites)


def test_a_go_field_of_a_typed_receiver_is_of_its_declared_type(app):
    assert _owners(app, "Send") == [("app/app.go", 18, "Conn.Send"), ("app/app.go", 19, "Other.Send"),
                                    ("app/app.go", 20, "name_match")]


def test_a_rust_field_of_self_or_of_a_typed_variable_is_of_its_declared_type(app):
    assert _owners(app, "send") == [("src/lib.rs", 14, "Conn.send"), ("src/lib.rs", 15, "Conn.send"),
                                    ("src/lib.rs", 20, "Conn.send")]
