"""A name a broken parse leaves out: tree-sitter puts a MISSING node of no bytes where the
grammar wants one (`void A::() {}`), which the tags query captures as any other name. It
names no symbol and is no site: the definition is dropped, as one the query found no name
for, and what it holds belongs to what holds it."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexer.extract.blob import extract_blob
from tests.examples import examples

# (language, path, broken source, its symbols (name, kind, container, line))
BROKEN = [
    ("cpp", "a.cpp", b"void A::() {}\nvoid A::f() {}\n", [("f", "method", "A", 2)]),
    ("cpp", "k.cpp", b"class K { K& =(const K&); int x; };\n", [("K", "class", "", 1), ("x", "field", "K", 1)]),
    ("c", "t.c", b"typedef struct {\n    int w;\n} ;\n", [("w", "field", "", 2)]),
    ("javascript", "w.js", b"class W {\n  (x) {}\n  run() {}\n}\n", [("W", "class", "", 1), ("run", "method", "W", 3)]),
    ("typescript", "b.ts", b"abstract class B {\n  abstract (): number;\n  name = 1;\n}\n",
     [("B", "class", "", 1), ("name", "field", "B", 3)]),
    ("tsx", "p.tsx", b"class P {\n  () { return <span />; }\n}\n", [("P", "class", "", 1)]),
    ("java", "App.java", b"class App {\n    public static final intMAX = 10;\n}\n", [("App", "class", "", 1)]),
    # an interface, struct and enum of no name: their members are the namespace's, not of "N."
    ("csharp", "n.cs", b"namespace N {\n    public interface \n    {\n        void Serve();\n    }\n"
                       b"    struct  { public int A; }\n    enum  { On }\n"
                       b"    class P { private const intMax = 1; public stringName { get; set; } }\n}\n",
     [("N", "namespace", "", 1), ("Serve", "method", "N", 4), ("A", "field", "N", 6), ("On", "enumerator", "N", 7),
      ("P", "class", "N", 8)]),
    ("php", "k.php", b"<?php\nclass K {\n    private $;\n    const X = ;\n    public function f() {}\n}\n",
     [("K", "class", "", 2), ("X", "constant", "K", 4), ("f", "method", "K", 5)]),
    # a call left without its method: no site (was one of no name, a call)
    ("ruby", "c.rb", b"def run; end\nitems.\n", [("run", "function", "", 1)]),
]


@pytest.mark.parametrize("language,path,src,symbols", BROKEN, ids=[f"{c[0]}-{c[1]}" for c in BROKEN])
def test_a_name_left_out_makes_no_symbol_and_no_site(language, path, src, symbols):
    facts = extract_blob(src, path, language)
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == symbols
    assert all(o.name for o in facts.occurrences)


# A source of each language with definitions of most kinds, for the property below to break.
SOURCES = {
    "python": ("m.py", "import os\nclass A(B):\n    x: int = 1\n    def f(self, y):\n        return y\n"
                       "@dec\ndef g():\n    pass\nX = 1\n"),
    "javascript": ("a.js", "import { a } from './a';\nexport class W extends B {\n  run(x) { return a(x); }\n}\n"
                           "function f() {}\nconst g = () => 1;\nobj.h = function () {};\n"),
    "typescript": ("a.ts", "interface S { area(): number; }\nabstract class B implements S {\n"
                           "  abstract area(): number;\n  name = 'b';\n}\nenum C { R }\ntype T = S;\nnamespace N { export const k = 1; }\n"),
    "tsx": ("a.tsx", "class P extends C<Props> {\n  render() { return <span />; }\n}\nexport function Q() { return <P />; }\n"),
    "go": ("a.go", "package p\n\nimport \"fmt\"\n\ntype S struct { A int }\n\nfunc (s *S) M() { fmt.Println(s.A) }\n"
                   "func F() {}\nconst K = 1\nvar V = 2\n"),
    "rust": ("a.rs", "use a::{b, c::d};\nstruct S { a: i32 }\nimpl T for S { fn m(&self) {} }\nenum E { A }\n"
                     "mod m { pub fn f() {} }\nconst K: i32 = 1;\n"),
    "java": ("A.java", "package a;\nimport b.C;\nclass App extends B implements R {\n    static final int MAX = 10;\n"
                       "    private String name;\n    public App(String n) { this.name = n; }\n    void run() {}\n}\n"),
    "c": ("a.c", "#include \"a.h\"\n#define M 1\nstruct point { int x; };\ntypedef struct { int w; } T;\n"
                 "enum color { RED };\nstatic int f(int a) { return a; }\n"),
    "cpp": ("a.cpp", "namespace N { class K : public B { public: void f(); int x; K& operator=(const K&); ~K(); };\n"
                     "void K::f() {} }\nvoid A::B::g() {}\ntemplate <class T> struct S { T t; };\n"),
    "csharp": ("a.cs", "using System;\nnamespace N {\n    public interface I { void Serve(); }\n"
                       "    public class P : I {\n        private const int Max = 1;\n        public string Name { get; set; }\n"
                       "        public void Serve() {}\n    }\n    struct Q { public int A; }\n    enum E { On }\n}\n"),
    "ruby": ("a.rb", "require 'x'\nmodule A\n  class Foo::Bar < Base\n    attr_reader :a\n    def m; end\n  end\n"
                     "  X = Struct.new(:a) do\n    def to_s; end\n  end\nend\n"),
    "php": ("a.php", "<?php\nnamespace A\\B;\nuse C\\D;\nclass K extends L {\n    private $p;\n    const X = 1;\n"
                     "    public function f() {}\n}\nfunction g() {}\ndefine('Y', 2);\n"),
    "bash": ("a.sh", "source ./lib.sh\nf() { echo; }\nfunction g { f; }\nalias a=b\n"),
}


@pytest.mark.parametrize("language", sorted(SOURCES))
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_broken_source_gives_a_name_of_no_text(language, data):
    # what an edit in progress leaves: the source cut short, or a piece of it taken out or
    # replaced by a bracket
    path, source = SOURCES[language]
    src = source.encode()
    start = data.draw(st.integers(0, len(src)), label="start")
    end = data.draw(st.integers(start, min(len(src), start + 12)), label="end")
    filler = data.draw(st.sampled_from([b"", b"(", b"{", b"}", b" "]), label="filler")
    cut = data.draw(st.booleans(), label="cut")
    broken = src[:start] if cut else src[:start] + filler + src[end:]
    facts = extract_blob(broken, path, language)
    assert all(s.name for s in facts.symbols), [s for s in facts.symbols if not s.name]
    assert all(o.name for o in facts.occurrences), [o for o in facts.occurrences if not o.name]
