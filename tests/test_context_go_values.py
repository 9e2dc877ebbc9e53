"""Go values the references query types beyond a constructor's: a method's result bound to a
variable (`w := o.Wrap()`), a call whose `(` is on a line above the method (`}).Get()` after a
function literal), a field of a field (`s.cfg.Client.Do()`), also one a type has through what
it embeds, an element of a slice or map a loop ranges over (`for _, r := range routes` with
`routes []*Route`), a type assertion's (`a := s.Any().(*store.Route)`), and a value that is a
chain of calls (`x := store.New().Sub()` is what Sub returns; `.Name` after a call types
nothing). A loop's binding types its variable only in the function holding the loop. Was:
each of these a `name_match`. Exact sites, from a real index."""

from __future__ import annotations

from tests.indexed import Indexed, sites

# each site with the qualified name of the definition it was resolved to
OWNED = ("path", "line", "resolution", "qualified")

FILES = {
    "go.mod": "module example.com/shop\n\ngo 1.21\n",
    "store/store.go": ("package store\n\ntype Store struct{ Name string }\n\n"
                       "type Config struct {\n\tClient *Client\n}\n\n"
                       "type Client struct{}\n\n"
                       "type Route struct{}\n\n"
                       "type Other struct{}\n\n"
                       "func New(name string) *Store { return &Store{Name: name} }\n\n"
                       "func (s *Store) Wrap() *Route { return nil }\n\n"
                       "func (s *Store) Handle(f func()) *Route { return nil }\n\n"
                       "func (s *Store) Any() any { return nil }\n\n"
                       "func (c *Client) Do() {}\n\n"
                       "func (r *Route) Get() {}\n\n"
                       "func (o *Other) Get() {}\n"),
    "store/server.go": ("package store\n\n"
                        "type Server struct {\n\tBase\n\troutes map[string]*Route\n}\n\n"
                        "func (s *Server) Run(routes []*Route, others []*Other) {\n"  # 8
                        "\ts.cfg.Client.Do()\n"  # 9: a field of a field (cfg: Base's, which Server embeds)
                        "\tfor _, r := range routes {\n"
                        "\t\tr.Get()\n"  # 11: an element of a parameter's slice
                        "\t}\n"
                        "\tfor _, v := range s.routes {\n"
                        "\t\tv.Get()\n"  # 14: an element of a field's map
                        "\t}\n"
                        "}\n\n"
                        "func (s *Server) Other(others []*Other) {\n"
                        "\tfor _, v := range others {\n"
                        "\t\tv.Get()\n"  # 20: this function's v is an Other
                        "\t}\n"
                        "\tfor _, t := range s.tables {\n"
                        "\t\tt.Get()\n"  # 23: an element of Base's slice, which Server embeds
                        "\t}\n"
                        "}\n\n"
                        "type Base struct {\n\tcfg    Config\n\ttables []*Route\n}\n"),
    "cmd/main.go": ("package main\n\nimport \"example.com/shop/store\"\n\n"
                    "func main() {\n"
                    "\ts := store.New(\"a\")\n"
                    "\tw := s.Wrap()\n"
                    "\tw.Get()\n"  # 8: a method's result
                    "\ts.Handle(func() {\n"
                    "\t\tprintln(1)\n"
                    "\t}).Get()\n"  # 11: the call's `(` two lines above
                    "\tx := store.New(\"b\").Wrap()\n"
                    "\tx.Get()\n"  # 13: what the chain's last call returns
                    "\ty := store.New(\"c\").Name\n"
                    "\ty.Get()\n"  # 15: a field after the call: untyped
                    "\t// z := s.Wrap()\n"
                    "\tz.Get()\n"  # 17: a comment's line types nothing
                    "\ta := s.Any().(*store.Route)\n"
                    "\ta.Get()\n"  # 19: a type assertion's type
                    "\tswitch b := s.Any().(type) {\n"
                    "\tdefault:\n"
                    "\t\tb.Get()\n"  # 22: a type switch's value: untyped
                    "\t}\n"
                    "}\n"),
}

REPO = Indexed(FILES, "rennet-ctx-go-values-", message="go values")


shop = REPO.fixture()


def test_method_results_chains_and_calls_opened_above(shop):
    assert [s for s in sorted(sites(shop, "Get", *OWNED)) if s[0] == "cmd/main.go"] == [
        ("cmd/main.go", 8, "import", "Route.Get"),  # w := s.Wrap()
        ("cmd/main.go", 11, "import", "Route.Get"),  # }).Get(): what Handle returns
        ("cmd/main.go", 13, "import", "Route.Get"),  # x := store.New("b").Wrap()
        ("cmd/main.go", 15, "name_match", None),  # y := store.New("c").Name: no call's value
        ("cmd/main.go", 17, "name_match", None),  # z typed only in a comment
        ("cmd/main.go", 19, "import", "Route.Get"),  # a := s.Any().(*store.Route)
        ("cmd/main.go", 22, "name_match", None),  # switch b := s.Any().(type)
    ]


def test_fields_of_fields_and_elements_of_containers(shop):
    assert [s for s in sorted(sites(shop, "Get", *OWNED)) if s[0] == "store/server.go"] == [
        ("store/server.go", 11, "same_package", "Route.Get"),  # range over routes []*Route
        ("store/server.go", 14, "same_package", "Route.Get"),  # range over s.routes map[string]*Route
        ("store/server.go", 20, "same_package", "Other.Get"),  # its own function's loop: an Other
        ("store/server.go", 23, "same_package", "Route.Get"),  # range over s.tables, a field of Base
    ]
    assert sorted(sites(shop, "Do", *OWNED)) == [("store/server.go", 9, "same_package", "Client.Do")]
