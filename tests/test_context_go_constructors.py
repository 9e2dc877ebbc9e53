"""A Go variable given a function's first result is of the type the function's signature says
it returns: `s := store.New("a")`, `t, err := store.Open("p")`, `s := New("a")` in the
package, so `s.Get()` is `Store.Get`'s site. Was: only a composite literal, a `var` or a
parameter typed a variable, so every value of a constructor (`logger := logrus.New()`,
`r := mux.NewRouter()`, `reg := prometheus.NewRegistry()`) was an untyped receiver and its
calls `name_match`es. A call on a value (`o.Wrap()`) is no package's function: the method's
result is (tests/test_context_go_values.py). An attribute
of a call's result is the method's of the type the call's signature says it returns
(`store.New("b").Get()`). Exact sites, from a real index."""

from __future__ import annotations

import pytest

from indexer.lang.bindings import of_language
from tests.indexed import Indexed, sites

# each site with the qualified name of the definition it was resolved to
OWNED = ("path", "line", "resolution", "qualified")

FILES = {
    "go.mod": "module example.com/shop\n\ngo 1.21\n",
    "store/store.go": ("package store\n\ntype Store struct{ Name string }\n\n"
                       "func New(name string) *Store { return &Store{Name: name} }\n\n"
                       "func Open(path string) (*Store, error) { return New(path), nil }\n\n"
                       "func Wrap() *Store { return nil }\n\n"
                       "func (s *Store) Get(k string) string { return k }\n\n"
                       "func (s *Store) Sub(name string,\n\tdeep bool) *Store { return s }\n"),
    "store/local.go": "package store\n\nfunc local() string {\n\ts := New(\"a\")\n\treturn s.Get(\"x\")\n}\n",
    "other/other.go": ("package other\n\ntype Cache struct{}\n\nfunc New() *Cache { return &Cache{} }\n\n"
                       "func (c *Cache) Get(k string) string { return k }\n\n"
                       "func (c *Cache) Wrap() *Cache { return c }\n\n"
                       "func (c *Cache) Peek() string { return \"\" }\n"),
    # a bare call names a function of its own folder's package: other's New is not tool's, though
    # the file imports other
    "cmd/tool/tool.go": ("package tool\n\nimport \"example.com/shop/other\"\n\ntype Tool struct{}\n\n"
                         "func New() *Tool { return &Tool{} }\n\nfunc run() string {\n\t_ = other.New()\n"
                         "\tc := New()\n\treturn c.Peek()\n}\n"),
    "cmd/main.go": ("package main\n\nimport (\n\t\"example.com/shop/other\"\n\t\"example.com/shop/store\"\n)\n\n"
                    "func main() {\n"
                    "\ts := store.New(\"a\")\n"  # 9
                    "\tt, err := store.Open(\"p\")\n"  # 10
                    "\t_ = err\n"
                    "\ts.Get(\"1\")\n"  # 12
                    "\tt.Get(\"2\")\n"  # 13
                    "\to := other.New()\n"
                    "\to.Get(\"3\")\n"  # 15
                    "\tw := o.Wrap()\n"  # a method's result, not store's Wrap
                    "\tw.Get(\"4\")\n"  # 17
                    "\ts.Sub(\"x\", true).Get(\"5\")\n"  # 18: a method's result, its signature over two lines
                    "\tstore.New(\"b\").Get(\"6\")\n"  # 19: a function's result
                    "\tstore.New(\"c\").Sub(\"y\", false).Get(\"7\")\n"  # 20: two calls deep
                    "\to.Wrap().Get(\"8\")\n"  # 21: Cache's Wrap returns a Cache
                    "\tstore.New(\"d\").\n"
                    "\t\tGet(\"9\")\n"  # 23: gofmt's break of the chain
                    "}\n"),
}

REPO = Indexed(FILES, "rennet-ctx-go-constructors-", message="go constructors")


shop = REPO.fixture()


def test_a_value_of_a_constructor_is_of_the_type_it_returns(shop):
    assert [s for s in sorted(sites(shop, "Get", *OWNED)) if s[0] != "cmd/main.go" or s[1] <= 17] == [
        ("cmd/main.go", 12, "import", "Store.Get"),  # s := store.New("a")
        ("cmd/main.go", 13, "import", "Store.Get"),  # t, err := store.Open("p"): its first result
        ("cmd/main.go", 15, "import", "Cache.Get"),  # o := other.New(): other's New, not store's
        ("cmd/main.go", 17, "import", "Cache.Get"),  # w := o.Wrap(): Cache's Wrap returns a Cache
        ("store/local.go", 5, "same_package", "Store.Get"),  # s := New("a"), the package's own
    ]


def test_a_call_s_result_is_of_the_type_its_signature_says(shop):
    """`s.Sub("x", true).Get()`, `store.New("b").Get()`, chains of calls: what each call returns,
    as the signature of the function or of the method of the receiver's type says, over lines
    too. Was: every attribute of a call's result a `name_match` (mux's `r.HandleFunc(p,
    h).Methods("GET")`)."""
    assert [s for s in sorted(sites(shop, "Get", *OWNED)) if s[0] == "cmd/main.go" and s[1] > 17] == [
        ("cmd/main.go", 18, "import", "Store.Get"),
        ("cmd/main.go", 19, "import", "Store.Get"),
        ("cmd/main.go", 20, "import", "Store.Get"),
        ("cmd/main.go", 21, "import", "Cache.Get"),
        ("cmd/main.go", 23, "import", "Store.Get"),
    ]


@pytest.mark.parametrize(("signature", "result"), [
    ("func New() *Logger {", "Logger"),
    ("func Dial(addr string) (*Conn, error) {", "Conn"),
    ("func Dial(f func(int) error) (c *Conn, err error) {", "Conn"),  # named results
    ("func Make[T any]() pkg.Box[T] {", "Box"),
    ("func NewCounter(opts CounterOpts) Counter {", "Counter"),
    ("func Run() {", None),
    ("func Many(a int,", None),  # its parameters go on past the line
    ("func (s *S) Clone() *S {", "S"),  # a method's, past its receiver
    ("func (r *Router) Get[T any](n string) (*Route, error) {", "Route"),
    ("func(x int) {", None),  # a literal's: no name
    ("func C() chan int {", None),
    ("func Many(a int, b Conn", None),  # cut inside its parameters, a type's name last
])
def test_the_result_a_go_signature_says(signature, result):
    assert of_language("go").result_type(signature) == result


def test_a_bare_call_is_of_a_function_of_the_files_own_package(shop):
    assert sorted(sites(shop, "Peek", *OWNED)) == [("cmd/tool/tool.go", 12, "name_match", None)]


@pytest.mark.parametrize(("line", "groups"), [
    (b"\tl, err := pkg.New()", (b"pkg", b"New")),
    (b"\tl = New()", (None, b"New")),
    (b"\tvar l = pkg.Open(p)", (b"pkg", b"Open")),
    (b"\tpl := New()", None),  # another variable, whose name ends as this one's
    (b"\tx.l = New()", None),  # a field of x
])
def test_the_call_a_go_variable_is_given(line, groups):
    found = [m for p in of_language("go").call_typings("l") if (m := p.search(line)) is not None]
    assert (found[0].groups() if found else None) == groups
