"""Small fixture repositories with their expected facts, the spec the indexer is tested against.

`build_polyglot(path)` makes one repository holding a small, realistic project in each
language the Repo Map reads, plus the awkward entries a real tree has (binary, symlink,
submodule gitlink, vendored and generated files, a lockfile, a 2 MB file, minified JS).
`build_history(path)` makes a short linear history for incremental indexing (a 1% style
change, an addition, a rename and a deletion).

The expectations below were written by hand from the sources in this module; only the line
numbers are located mechanically, by finding a unique marker in the source text (`_at`).

Conventions the expectations follow (the indexer's contract, stated once):
- A symbol's `line` is the 1-based line of its name: for a decorated Python def or an
  annotated Java method, the `def` / signature line, not the decorator's (as ctags and
  GitHub code navigation report it; the byte span may still cover the decorators). `container` is the dotted chain of
  enclosing named definitions inside the file ("" at top level): namespaces, modules,
  classes, structs, interfaces, traits, impl targets (`impl Shape for Circle` -> "Circle").
- Expected symbols are complete for the kinds in `SYMBOL_KINDS`: compare the indexer's
  symbols filtered to those kinds. Fields, enum variants, parameters and locals are not
  part of the expectation (the indexer may record them under other kinds).
- Python: classes `class`, top-level defs `function`, defs in a class `method` (decorated
  ones too), module-level assignments `constant`. JS/TS: `function`, `class`, `method`
  (also interface method signatures), `interface`, `type` (type alias). Go: `function`,
  `method` (receiver type as container), `struct`, `interface`, `type`, `constant`.
  Rust: `function`, `method` (in impl or trait), `struct`, `enum`, `trait`, `module`
  (`mod x;`), `constant`, `macro`. Java/C#: `class`, `interface`, `enum`, `method`
  (interface methods too), C# `namespace`. C/C++: `function` (prototypes too, as the
  grammar's tags.scm captures them), `struct`, `type` (typedef), `macro` (`#define`),
  C++ `class`, `namespace`, `method` (defined inside a class body). Ruby: `module`,
  `class`, `method` (`def self.x` too). PHP: `function`, `class`, `method`. Bash: `function`.
- Edges are distinct (source, target) file pairs; an import that resolves to several
  files gives one edge each. Fan-in of a file = number of distinct other files with an
  edge to it; `fan_in` lists every code file of the fixture, zeros included.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from corpora.gitbuild import Content, Exec, Link, RepoBuilder, Submodule
from indexer.model import Dependency, EntryPoint, Package

SYMBOL_KINDS = frozenset({
    "class", "function", "method", "interface", "struct", "enum", "trait", "type",
    "module", "constant", "macro", "namespace",
})

SUBMODULE_COMMIT = "5b3f2c1a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b"
TWO_MB = 2 * 1024 * 1024


@dataclass(frozen=True, order=True)
class ExpectedSymbol:
    path: str
    name: str
    kind: str
    container: str
    line: int


@dataclass
class FixtureRepo:
    """A built fixture repository and what indexing its head must find."""

    path: Path
    commits: list[str]
    symbols: list[ExpectedSymbol] = field(default_factory=list)
    edges: set[tuple[str, str]] = field(default_factory=set)
    fan_in: dict[str, int] = field(default_factory=dict)
    entry_points: list[EntryPoint] = field(default_factory=list)
    packages: list[Package] = field(default_factory=list)
    dependencies: list[Dependency] = field(default_factory=list)
    languages: dict[str, str] = field(default_factory=dict)  # path -> language of every code file
    marks: dict[str, str] = field(default_factory=dict)  # path -> "generated" | "vendored"
    skipped: dict[str, str] = field(default_factory=dict)  # path -> reason
    files: list[str] = field(default_factory=list)  # every path of the head tree, sorted
    # history fixtures: per commit (index into `commits`), what changed against its parent
    changes: list[dict[str, str]] = field(default_factory=list)  # path -> "A" | "M" | "D"

    @property
    def head(self) -> str:
        return self.commits[-1]


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _at(files: dict[str, Content], path: str, marker: str) -> int:
    """1-based line of the only line of `path` containing `marker`."""
    content = files[path]
    text = content.data if isinstance(content, Exec) else content
    if isinstance(text, bytes):
        text = text.decode()
    if not isinstance(text, str):
        raise AssertionError(f"{path} holds no text to find {marker!r} in")
    hits = [i for i, line in enumerate(text.splitlines(), 1) if marker in line]
    if len(hits) != 1:
        raise AssertionError(f"marker {marker!r} found {len(hits)} times in {path}")
    return hits[0]


# --- the polyglot repository ------------------------------------------------------------

POLYGLOT = Path(__file__).with_name("polyglot")  # the tree's source files, as committed

# The sources under corpora/polyglot/, by folder:
# - python: src layout, relative imports, console script, __main__.py, a script with a main block
# - js: package.json bin + main, tsconfig paths, index files, a lockfile
# - go: a module with a main package and two subpackages, one generated
# - rust: a library crate with mod/use crate, a directory module and a bin target
# - java: package directories, an interface, an enum, a test
# - c: an include dir found in the tree, a relative include, system includes
# - csharp, ruby, php, scripts (Bash): one small file each (no cross-file imports to resolve)
# - vendor: a vendored package
# What a folder of files cannot hold (modes, links, gitlinks, binary and generated content)
# is added here.
_EXECUTABLE = frozenset({"js/bin/cli.js", "python/scripts/migrate.py", "scripts/deploy", "scripts/release.sh"})


def _polyglot_files() -> dict[str, Content]:
    f: dict[str, Content] = {}
    for file in sorted(POLYGLOT.rglob("*")):
        if not file.is_file() or "__pycache__" in file.parts:
            continue
        path = file.relative_to(POLYGLOT).as_posix()
        text = file.read_bytes().decode()  # the bytes as they are: no newline translation
        f[path] = Exec(text) if path in _EXECUTABLE else text
    f[".gitattributes"] = "js/src/schema.ts linguist-generated=true\n*.png binary\n"
    f[".gitmodules"] = _src("""
        [submodule "external/libfoo"]
        \tpath = external/libfoo
        \turl = https://example.invalid/libfoo.git
        """)
    f["external/libfoo"] = Submodule(SUBMODULE_COMMIT)
    f["docs/README.md"] = Link("../README.md")
    f["docs/logo.png"] = bytes.fromhex("89504e470d0a1a0a0000000d49484452") + bytes(range(256)) * 4
    f["data/words.txt"] = "".join(f"word-{i:07d}\n" for i in range(TWO_MB // 13 + 1))
    f["js/public/app.min.js"] = (  # minified: one long line
        "!function(){" + "".join(
            f"var a{i}=function(n){{return n*{i}+a{max(i - 1, 0)}.length}};" for i in range(400)
        ) + "}();"
    )
    return f


def _polyglot_expected(f: dict[str, Content]) -> dict:
    S = ExpectedSymbol

    def sym(path: str, name: str, kind: str, container: str, marker: str) -> ExpectedSymbol:
        return S(path, name, kind, container, _at(f, path, marker))

    py = "python/src/app"
    jb = "java/src/main/java/com/example/poly"
    symbols = [
        # python
        sym(f"{py}/__init__.py", "VERSION", "constant", "", "VERSION ="),
        sym(f"{py}/models.py", "MAX_NAME", "constant", "", "MAX_NAME ="),
        sym(f"{py}/models.py", "User", "class", "", "class User"),
        sym(f"{py}/models.py", "__init__", "method", "User", "def __init__"),
        sym(f"{py}/models.py", "display", "method", "User", "def display"),
        sym(f"{py}/models.py", "Meta", "class", "User", "class Meta"),
        sym(f"{py}/models.py", "table", "method", "User.Meta", "def table"),
        sym(f"{py}/service.py", "UserService", "class", "", "class UserService"),
        sym(f"{py}/service.py", "__init__", "method", "UserService", "def __init__"),
        sym(f"{py}/service.py", "create", "method", "UserService", "def create"),
        sym(f"{py}/service.py", "normalize", "method", "UserService", "def normalize"),
        sym(f"{py}/storage/db.py", "Database", "class", "", "class Database"),
        sym(f"{py}/storage/db.py", "__init__", "method", "Database", "def __init__"),
        sym(f"{py}/storage/db.py", "_connect", "method", "Database", "def _connect"),
        sym(f"{py}/storage/db.py", "save", "method", "Database", "def save"),
        sym(f"{py}/cli.py", "build_parser", "function", "", "def build_parser"),
        sym(f"{py}/cli.py", "main", "function", "", "def main"),
        sym("python/scripts/migrate.py", "migrate", "function", "", "def migrate"),
        sym("python/tests/test_service.py", "test_create_normalizes_name", "function", "", "def test_"),
        # js / ts
        sym("vendor/leftpad/index.js", "leftPad", "function", "", "function leftPad"),
        sym("js/src/index.ts", "run", "function", "", "export function run"),
        sym("js/src/index.ts", "App", "class", "", "class App"),
        sym("js/src/index.ts", "start", "method", "App", "start(): void"),
        sym("js/src/util.ts", "Named", "interface", "", "interface Named"),
        sym("js/src/util.ts", "display", "method", "Named", "display(): string"),
        sym("js/src/util.ts", "formatName", "function", "", "function formatName"),
        sym("js/src/core/store.ts", "Key", "type", "", "type Key"),
        sym("js/src/core/store.ts", "Store", "class", "", "class Store"),
        sym("js/src/core/store.ts", "get", "method", "Store", "get(key: Key)"),
        sym("js/src/core/store.ts", "put", "method", "Store", "put(key: Key"),
        sym("js/src/core/store.ts", "size", "method", "Store", "size(): number"),
        sym("js/src/widgets/Button.tsx", "Button", "function", "", "function Button"),
        sym("js/src/schema.ts", "Schema", "interface", "", "interface Schema"),
        sym("js/src/schema.ts", "version", "method", "Schema", "version(): number"),
        sym("js/scripts/clean.js", "clean", "function", "", "function clean"),
        # go
        sym("go/cmd/polygo/main.go", "main", "function", "", "func main"),
        sym("go/internal/store/store.go", "MaxItems", "constant", "", "const MaxItems"),
        sym("go/internal/store/store.go", "Item", "struct", "", "type Item struct"),
        sym("go/internal/store/store.go", "Reader", "interface", "", "type Reader interface"),
        sym("go/internal/store/store.go", "Get", "method", "Reader", "\tGet(id string)"),
        sym("go/internal/store/store.go", "Store", "struct", "", "type Store struct"),
        sym("go/internal/store/store.go", "New", "function", "", "func New"),
        sym("go/internal/store/store.go", "Put", "method", "Store", "func (s *Store) Put"),
        sym("go/internal/store/store.go", "Get", "method", "Store", "func (s *Store) Get"),
        sym("go/internal/version/version_gen.go", "Version", "constant", "", "const Version"),
        sym("go/internal/version/version_gen.go", "String", "function", "", "func String"),
        # rust
        sym("rust/src/lib.rs", "shapes", "module", "", "pub mod shapes"),
        sym("rust/src/lib.rs", "util", "module", "", "pub mod util"),
        sym("rust/src/lib.rs", "MAX_SIDES", "constant", "", "MAX_SIDES"),
        sym("rust/src/lib.rs", "describe", "function", "", "fn describe"),
        sym("rust/src/util.rs", "square", "macro", "", "macro_rules! square"),
        sym("rust/src/util.rs", "clamp", "function", "", "fn clamp"),
        sym("rust/src/shapes/mod.rs", "Shape", "trait", "", "pub trait Shape"),
        sym("rust/src/shapes/mod.rs", "area", "method", "Shape", "fn area(&self) -> f64;"),
        sym("rust/src/shapes/mod.rs", "name", "method", "Shape", "fn name(&self)"),
        sym("rust/src/shapes/mod.rs", "Kind", "enum", "", "pub enum Kind"),
        sym("rust/src/shapes/mod.rs", "Circle", "struct", "", "pub struct Circle"),
        sym("rust/src/shapes/mod.rs", "new", "method", "Circle", "pub fn new"),
        sym("rust/src/shapes/mod.rs", "area", "method", "Circle", "fn area(&self) -> f64 {"),
        sym("rust/src/bin/tool.rs", "main", "function", "", "fn main"),
        # java
        sym(f"{jb}/App.java", "App", "class", "", "public class App"),
        sym(f"{jb}/App.java", "main", "method", "App", "void main("),
        sym(f"{jb}/MemoryRepository.java", "MemoryRepository", "class", "", "class MemoryRepository"),
        sym(f"{jb}/MemoryRepository.java", "findAll", "method", "MemoryRepository", "findAll()"),
        sym(f"{jb}/MemoryRepository.java", "save", "method", "MemoryRepository", "void save("),
        sym(f"{jb}/Status.java", "Status", "enum", "", "enum Status"),
        sym(f"{jb}/model/User.java", "User", "class", "", "public class User"),
        sym(f"{jb}/model/User.java", "of", "method", "User", "User of("),
        sym(f"{jb}/model/User.java", "getName", "method", "User", "getName()"),
        sym(f"{jb}/model/Repository.java", "Repository", "interface", "", "interface Repository"),
        sym(f"{jb}/model/Repository.java", "findAll", "method", "Repository", "findAll()"),
        sym(f"{jb}/model/Repository.java", "save", "method", "Repository", "void save("),
        sym("java/src/test/java/com/example/poly/AppTest.java", "AppTest", "class", "", "class AppTest"),
        sym("java/src/test/java/com/example/poly/AppTest.java", "userKeepsName", "method", "AppTest", "userKeepsName"),
        # c / c++
        sym("c/include/poly/vec.h", "VEC_EPSILON", "macro", "", "#define VEC_EPSILON"),
        sym("c/include/poly/vec.h", "Vec", "struct", "", "struct Vec {"),
        sym("c/include/poly/vec.h", "vec_t", "type", "", "typedef"),
        sym("c/include/poly/vec.h", "vec_len", "function", "", "vec_len"),
        sym("c/src/config.h", "POLY_VERSION", "macro", "", "#define POLY_VERSION"),
        sym("c/src/vec.c", "square", "function", "", "static double square"),
        sym("c/src/vec.c", "vec_len", "function", "", "double vec_len"),
        sym("c/src/main.c", "main", "function", "", "int main"),
        sym("c/src/polygon.cpp", "poly", "namespace", "", "namespace poly {"),
        sym("c/src/polygon.cpp", "Polygon", "class", "poly", "class Polygon"),
        sym("c/src/polygon.cpp", "add", "method", "poly.Polygon", "void add("),
        sym("c/src/polygon.cpp", "perimeter", "method", "poly.Polygon", "double perimeter()"),
        # c#
        sym("csharp/Poly/Greeter.cs", "Poly", "namespace", "", "namespace Poly"),
        sym("csharp/Poly/Greeter.cs", "IGreeter", "interface", "Poly", "interface IGreeter"),
        sym("csharp/Poly/Greeter.cs", "Greet", "method", "Poly.IGreeter", "string Greet(string name);"),
        sym("csharp/Poly/Greeter.cs", "Greeter", "class", "Poly", "public class Greeter"),
        sym("csharp/Poly/Greeter.cs", "Greet", "method", "Poly.Greeter", "public string Greet("),
        sym("csharp/Poly/Greeter.cs", "Main", "method", "Poly.Greeter", "static void Main"),
        # ruby
        sym("ruby/lib/poly/formatter.rb", "Poly", "module", "", "module Poly"),
        sym("ruby/lib/poly/formatter.rb", "Formatter", "class", "Poly", "class Formatter"),
        sym("ruby/lib/poly/formatter.rb", "initialize", "method", "Poly.Formatter", "def initialize"),
        sym("ruby/lib/poly/formatter.rb", "format", "method", "Poly.Formatter", "def format"),
        sym("ruby/lib/poly/formatter.rb", "default", "method", "Poly.Formatter", "def self.default"),
        # php
        sym("php/src/Greeter.php", "greet", "function", "", "function greet"),
        sym("php/src/Greeter.php", "Greeter", "class", "", "class Greeter"),
        sym("php/src/Greeter.php", "hello", "method", "Greeter", "function hello"),
        # bash
        sym("scripts/release.sh", "log", "function", "", "log() {"),
        sym("scripts/release.sh", "build_all", "function", "", "build_all() {"),
        sym("scripts/deploy", "deploy_main", "function", "", "function deploy_main"),
        # zsh (the Bash grammar)
        sym("scripts/prompt.zsh", "set_prompt", "function", "", "set_prompt() {"),
    ]

    edges = {
        # python
        (f"{py}/__init__.py", f"{py}/models.py"),            # from .models import User
        (f"{py}/__main__.py", f"{py}/cli.py"),               # from app.cli import main (src layout)
        (f"{py}/service.py", f"{py}/models.py"),             # from .models import ...
        (f"{py}/service.py", f"{py}/storage/db.py"),         # from .storage.db import Database
        (f"{py}/storage/db.py", f"{py}/models.py"),          # from ..models import User
        (f"{py}/cli.py", f"{py}/__init__.py"),               # from app import VERSION (a name, not a module)
        (f"{py}/cli.py", f"{py}/service.py"),                # from .service import UserService
        ("python/scripts/migrate.py", f"{py}/storage/db.py"),
        ("python/tests/test_service.py", f"{py}/service.py"),
        # ts
        ("js/src/index.ts", "js/src/util.ts"),               # ./util -> .ts
        ("js/src/index.ts", "js/src/core/store.ts"),         # @core/* via tsconfig paths
        ("js/src/index.ts", "js/src/widgets/index.ts"),      # ./widgets -> index file
        ("js/src/index.ts", "js/src/schema.ts"),             # import type
        ("js/src/core/store.ts", "js/src/util.ts"),          # ../util
        ("js/src/widgets/index.ts", "js/src/widgets/Button.tsx"),
        # go: module path from go.mod, package dirs
        ("go/cmd/polygo/main.go", "go/internal/store/store.go"),
        ("go/cmd/polygo/main.go", "go/internal/version/version_gen.go"),
        # rust
        ("rust/src/lib.rs", "rust/src/shapes/mod.rs"),       # mod shapes; + use crate::shapes::Shape
        ("rust/src/lib.rs", "rust/src/util.rs"),             # mod util;
        ("rust/src/shapes/mod.rs", "rust/src/util.rs"),      # use crate::util::clamp
        # java
        (f"{jb}/App.java", f"{jb}/model/Repository.java"),
        (f"{jb}/App.java", f"{jb}/model/User.java"),
        (f"{jb}/MemoryRepository.java", f"{jb}/model/Repository.java"),
        (f"{jb}/MemoryRepository.java", f"{jb}/model/User.java"),
        ("java/src/test/java/com/example/poly/AppTest.java", f"{jb}/model/User.java"),
        # c / c++
        ("c/src/vec.c", "c/include/poly/vec.h"),             # include dir found in the tree
        ("c/src/main.c", "c/include/poly/vec.h"),
        ("c/src/main.c", "c/src/config.h"),                  # relative to the including file
        ("c/src/polygon.cpp", "c/include/poly/vec.h"),
    }

    languages = {
        f"{py}/__init__.py": "python", f"{py}/__main__.py": "python", f"{py}/models.py": "python",
        f"{py}/service.py": "python", f"{py}/storage/__init__.py": "python",
        f"{py}/storage/db.py": "python", f"{py}/cli.py": "python",
        "python/scripts/migrate.py": "python", "python/tests/test_service.py": "python",
        "vendor/leftpad/index.js": "javascript", "js/bin/cli.js": "javascript",
        "js/scripts/clean.js": "javascript", "js/public/app.min.js": "javascript",
        "js/src/index.ts": "typescript", "js/src/util.ts": "typescript",
        "js/src/core/store.ts": "typescript", "js/src/widgets/index.ts": "typescript",
        "js/src/schema.ts": "typescript", "js/src/widgets/Button.tsx": "tsx",
        "go/cmd/polygo/main.go": "go", "go/internal/store/store.go": "go",
        "go/internal/version/version_gen.go": "go",
        "rust/src/lib.rs": "rust", "rust/src/util.rs": "rust", "rust/src/shapes/mod.rs": "rust",
        "rust/src/bin/tool.rs": "rust",
        f"{jb}/App.java": "java", f"{jb}/MemoryRepository.java": "java", f"{jb}/Status.java": "java",
        f"{jb}/model/User.java": "java", f"{jb}/model/Repository.java": "java",
        "java/src/test/java/com/example/poly/AppTest.java": "java",
        "c/include/poly/vec.h": "c", "c/src/config.h": "c", "c/src/vec.c": "c", "c/src/main.c": "c",
        "c/src/polygon.cpp": "cpp",
        "csharp/Poly/Greeter.cs": "csharp",
        "ruby/lib/poly/formatter.rb": "ruby",
        "php/src/Greeter.php": "php",
        "scripts/release.sh": "bash", "scripts/deploy": "bash",  # the latter by its shebang
        "scripts/prompt.zsh": "zsh",
    }
    fan_in = {p: 0 for p in languages}
    for target in {t for _, t in edges}:
        fan_in[target] = len({s for s, t in edges if t == target and s != target})

    entry_points = [
        EntryPoint("polyapp", "console_script", f"{py}/cli.py", "app.cli:main", "python/pyproject.toml"),
        EntryPoint("app", "python_main_file", f"{py}/__main__.py", "", ""),
        EntryPoint("migrate", "python_main_block", "python/scripts/migrate.py", "", ""),
        EntryPoint("polyjs", "npm_bin", "js/bin/cli.js", "./bin/cli.js", "js/package.json"),
        # main names build output that is not in the tree: declared, resolves to no file
        EntryPoint("polyjs", "npm_main", "", "dist/index.js", "js/package.json"),
        EntryPoint("polygo", "go_main", "go/cmd/polygo/main.go", "", ""),
        EntryPoint("polytool", "rust_bin", "rust/src/bin/tool.rs", "src/bin/tool.rs", "rust/Cargo.toml"),
    ]
    packages = [
        Package("polyapp", "0.3.0", "pypi", "python/pyproject.toml"),
        Package("polyjs", "1.2.0", "npm", "js/package.json"),
        Package("example.com/polygo", "", "go", "go/go.mod"),
        Package("polycrate", "0.5.1", "cargo", "rust/Cargo.toml"),
        Package("com.example:polyjava", "2.0.0", "maven", "java/pom.xml"),
    ]
    dependencies = [
        Dependency("requests", ">=2.31", "runtime", "pypi", "python/pyproject.toml", "polyapp"),
        Dependency("click", "", "runtime", "pypi", "python/pyproject.toml", "polyapp"),
        Dependency("pytest", ">=8", "optional", "pypi", "python/pyproject.toml", "polyapp"),
        Dependency("chalk", "^5.3.0", "runtime", "npm", "js/package.json", "polyjs"),
        Dependency("react", "^18.2.0", "runtime", "npm", "js/package.json", "polyjs"),
        Dependency("typescript", "^5.4.0", "dev", "npm", "js/package.json", "polyjs"),
        Dependency("github.com/google/uuid", "v1.6.0", "runtime", "go", "go/go.mod", "example.com/polygo"),
        Dependency("go", "1.22", "toolchain", "go", "go/go.mod", "example.com/polygo"),  # the `go` line
        Dependency("serde", "1.0", "runtime", "cargo", "rust/Cargo.toml", "polycrate"),
        Dependency("proptest", "1.4", "dev", "cargo", "rust/Cargo.toml", "polycrate"),
        Dependency("com.google.guava:guava", "33.0.0-jre", "runtime", "maven", "java/pom.xml",
                   "com.example:polyjava"),
        Dependency("junit:junit", "4.13.2", "test", "maven", "java/pom.xml", "com.example:polyjava"),
    ]
    marks = {
        "vendor/leftpad/index.js": "vendored",
        "js/public/app.min.js": "vendored",  # linguist's vendor rule for *.min.js (it is also skipped: minified)
        "go/internal/version/version_gen.go": "generated",  # header: Code generated ... DO NOT EDIT
        "js/src/schema.ts": "generated",  # .gitattributes linguist-generated
        "js/package-lock.json": "generated",  # lockfile
        "rust/Cargo.lock": "generated",  # lockfile (and its @generated header)
    }
    skipped = {
        "docs/logo.png": "binary",
        "data/words.txt": "too_large",
        "js/public/app.min.js": "minified",
        "docs/README.md": "symlink",
        "external/libfoo": "submodule",
    }
    return dict(symbols=sorted(symbols), edges=edges, fan_in=fan_in, entry_points=entry_points,
                packages=packages, dependencies=dependencies, languages=languages, marks=marks,
                skipped=skipped)


def polyglot_files() -> dict[str, Content]:
    """The polyglot tree as path -> content (for tests that want to vary it)."""
    return _polyglot_files()


def build_polyglot(path: str | Path) -> FixtureRepo:
    """One commit holding the polyglot tree, on `main`, tagged `v1`."""
    files = _polyglot_files()
    builder = RepoBuilder(path)
    oid = builder.commit(files, message="polyglot fixture")
    builder.tag("v1", oid)
    return FixtureRepo(path=Path(path), commits=[oid], files=sorted(files), **_polyglot_expected(files))


# --- the history repository ----------------------------------------------------------------

HISTORY_MODULES = 100


def _history_module(i: int, styled: bool = False) -> str:
    """A module using the shared core; `styled` is the same code after a formatter pass."""
    if styled:
        return _src(f'''
            """Handler number {i}."""
            from pkg import core


            def handle_{i:03d}(request):
                """Handle one request."""
                return core.dispatch(request, {i})


            class Handler{i:03d}:
                def run(self, request):
                    return handle_{i:03d}(request)
            ''')
    return _src(f"""
        from pkg import core

        def handle_{i:03d}(request):
            return core.dispatch(request,{i})

        class Handler{i:03d}:
            def run(self,request):
                return handle_{i:03d}(request)
        """)


def _history_core(extra: bool = False) -> str:
    text = _src("""
        ROUTES = {}


        def dispatch(request, number):
            return ROUTES.get(number, request)
        """)
    if extra:
        text += _src("""


            def register(number, handler):
                ROUTES[number] = handler
            """)
    return text


def build_history(path: str | Path) -> FixtureRepo:
    """A 100-module Python package and four follow-up commits:

    c1: a 1% style change (`pkg/mod_007.py` reformatted: docstrings, blank lines; same symbols)
    c2: `pkg/core.py` gains `register`, `pkg/extra.py` is added (imports core)
    c3: `pkg/mod_050.py` renamed to `pkg/handlers/mod_050.py` (+ `pkg/handlers/__init__.py`),
        `pkg/mod_099.py` deleted
    c4: nothing but README.md changes (an unchanged code tree: every blob reused)

    `changes[k]` is the change of commit k against its parent; `fan_in` is at the head.
    """
    builder = RepoBuilder(path)
    base: dict[str, Content] = {"README.md": "# history fixture\n", "pkg/__init__.py": "",
                                "pkg/core.py": _history_core()}
    for i in range(HISTORY_MODULES):
        base[f"pkg/mod_{i:03d}.py"] = _history_module(i)
    steps: list[tuple[dict[str, Content], dict[str, str], str]] = [
        (base, {p: "A" for p in base}, "initial: 100 handler modules"),
        ({"pkg/mod_007.py": _history_module(7, styled=True)}, {"pkg/mod_007.py": "M"},
         "style: reformat mod_007"),
        ({"pkg/core.py": _history_core(extra=True),
          "pkg/extra.py": "from pkg.core import register\n\n\ndef setup():\n    register(0, print)\n"},
         {"pkg/core.py": "M", "pkg/extra.py": "A"}, "core: add register; extra module"),
        ({"pkg/mod_050.py": None, "pkg/handlers/__init__.py": "",
          "pkg/handlers/mod_050.py": _history_module(50), "pkg/mod_099.py": None},
         {"pkg/mod_050.py": "D", "pkg/handlers/__init__.py": "A", "pkg/handlers/mod_050.py": "A",
          "pkg/mod_099.py": "D"}, "move mod_050 into handlers; drop mod_099"),
        ({"README.md": "# history fixture\n\nFour commits after the first.\n"}, {"README.md": "M"},
         "docs: readme"),
    ]
    commits: list[str] = []
    changes: list[dict[str, str]] = []
    files: dict[str, Content] = {}
    for change, status, message in steps:
        commits.append(builder.commit(change, message=message))
        changes.append(status)
        for p, c in change.items():
            if c is None:
                files.pop(p, None)
            else:
                files[p] = c
    builder.tag("v0", commits[0])
    edges = {(p, "pkg/core.py") for p in files if "mod_" in p}
    edges.add(("pkg/extra.py", "pkg/core.py"))
    fan_in = {p: 0 for p in files if p.endswith(".py")}
    fan_in["pkg/core.py"] = len(edges)
    symbols = [
        ExpectedSymbol("pkg/core.py", "ROUTES", "constant", "", _at(files, "pkg/core.py", "ROUTES = ")),
        ExpectedSymbol("pkg/core.py", "dispatch", "function", "", _at(files, "pkg/core.py", "def dispatch")),
        ExpectedSymbol("pkg/core.py", "register", "function", "", _at(files, "pkg/core.py", "def register")),
        ExpectedSymbol("pkg/extra.py", "setup", "function", "", _at(files, "pkg/extra.py", "def setup")),
    ]
    for p in sorted(files):
        if "mod_" not in p:
            continue
        i = int(p[-6:-3])
        symbols += [
            ExpectedSymbol(p, f"handle_{i:03d}", "function", "", _at(files, p, f"def handle_{i:03d}")),
            ExpectedSymbol(p, f"Handler{i:03d}", "class", "", _at(files, p, f"class Handler{i:03d}")),
            ExpectedSymbol(p, "run", "method", f"Handler{i:03d}", _at(files, p, "def run")),
        ]
    return FixtureRepo(path=Path(path), commits=commits, symbols=sorted(symbols), edges=edges,
                       fan_in=fan_in, changes=changes, files=sorted(files),
                       languages={p: "python" for p in files if p.endswith(".py")})

