"""Manifests of every supported kind -> packages, dependencies, declared entry points;
malformed ones are reported, never fatal."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from indexer.manifests.base import Declared
from indexer.manifests.read import parse_manifests, read_manifests
from indexer.model import Dependency, FileEntry, Package, Skipped
from tests.examples import examples


def entry(path: str, mark: str = "", skipped: str = "") -> FileEntry:
    return FileEntry(path=path, blob="0" * 40, mode=0o100644, size=1, lines=1, language="x", mark=mark, skipped=skipped)


def parse(tree: dict[str, str], **entry_kw):
    files = [entry(p, **entry_kw.get(p, {})) for p in sorted(tree)]
    return parse_manifests(files, lambda p: tree[p].encode())


def deps(found, manifest: str) -> list[tuple[str, str, str]]:
    return [(d.name, d.spec, d.scope) for d in found.dependencies if d.manifest == manifest]


PYPROJECT = """
[project]
name = "shop"
version = "1.2.0"
dependencies = ["requests>=2.31", "attrs", "tomli; python_version < '3.11'", "pkg[extra] ==1.0"]
[project.optional-dependencies]
fast = ["orjson>=3"]
[project.scripts]
shop = "shop.cli:main"
[project.gui-scripts]
shop-gui = "shop.gui:run"
[dependency-groups]
test = ["pytest>=8"]
lint = ["ruff"]
"""

POETRY = """
[tool.poetry]
name = "poet"
version = "0.3.0"
[tool.poetry.dependencies]
python = "^3.11"
httpx = "^0.27"
rich = { version = "^13", optional = true }
[tool.poetry.group.dev.dependencies]
black = "*"
[tool.poetry.scripts]
poet = "poet.main:app"
"""


def test_pyproject_pep621_and_dependency_groups():
    found = parse({"pyproject.toml": PYPROJECT})
    assert found.packages == [Package("shop", "1.2.0", "pypi", "pyproject.toml")]
    assert deps(found, "pyproject.toml") == [
        ("ruff", "", "dev"),
        ("orjson", ">=3", "optional"),
        ("attrs", "", "runtime"),
        ("pkg", "==1.0", "runtime"),
        ("requests", ">=2.31", "runtime"),
        ("tomli", "; python_version < '3.11'", "runtime"),
        ("pytest", ">=8", "test"),
    ]
    assert all(d.package == "shop" and d.ecosystem == "pypi" for d in found.dependencies)
    assert found.manifests[0].declared == [
        Declared("shop", "console_script", "shop.cli:main"),
        Declared("shop-gui", "gui_script", "shop.gui:run"),
    ]
    assert found.problems == []


def test_poetry():
    found = parse({"sub/pyproject.toml": POETRY})
    assert found.packages == [Package("poet", "0.3.0", "pypi", "sub/pyproject.toml")]
    assert deps(found, "sub/pyproject.toml") == [
        ("black", "*", "dev"),
        ("rich", "^13", "optional"),
        ("httpx", "^0.27", "runtime"),
    ]
    assert found.manifests[0].declared == [Declared("poet", "console_script", "poet.main:app")]


def test_setup_cfg():
    cfg = """
[metadata]
name = legacy
version = attr: legacy.__version__

[options]
install_requires =
    click>=8  # the CLI
    six
tests_require = pytest

[options.extras_require]
yaml = pyyaml>=6

[options.entry_points]
console_scripts =
    legacy = legacy.cli:main
"""
    found = parse({"setup.cfg": cfg})
    assert found.packages == [Package("legacy", "", "pypi", "setup.cfg")]  # attr: is not a literal
    assert deps(found, "setup.cfg") == [
        ("pyyaml", ">=6", "optional"),
        ("click", ">=8", "runtime"),
        ("six", "", "runtime"),
        ("pytest", "", "test"),
    ]
    assert found.manifests[0].declared == [Declared("legacy", "console_script", "legacy.cli:main")]


def test_setup_py_literals_only_never_executed(tmp_path):
    marker = tmp_path / "executed"
    src = f"""
import setuptools
open({str(marker)!r}, "w").write("x")
VERSION = compute()
setuptools.setup(
    name="oldpkg",
    version=VERSION,
    install_requires=["numpy>=1.20", "scipy"],
    extras_require={{"plot": ["matplotlib"]}},
    entry_points={{"console_scripts": ["oldpkg = oldpkg.__main__:main"]}},
)
"""
    found = parse({"setup.py": src})
    assert not marker.exists()
    assert found.packages == [Package("oldpkg", "", "pypi", "setup.py")]  # version is computed: not claimed
    assert deps(found, "setup.py") == [("matplotlib", "", "optional"), ("numpy", ">=1.20", "runtime"), ("scipy", "", "runtime")]
    assert found.manifests[0].declared == [Declared("oldpkg", "console_script", "oldpkg.__main__:main")]


def test_package_json():
    pj = """{
  "name": "@acme/tool", "version": "2.0.0",
  "main": "lib/index.js",
  "bin": "./bin/tool.js",
  "dependencies": {"lodash": "^4.17.21"},
  "devDependencies": {"jest": "29"},
  "peerDependencies": {"react": ">=18"},
  "optionalDependencies": {"fsevents": "*"}
}"""
    found = parse({"package.json": pj, "node_modules/x/package.json": '{"name": "x"}'})
    assert found.packages == [Package("@acme/tool", "2.0.0", "npm", "package.json")]  # node_modules not read
    assert deps(found, "package.json") == [
        ("jest", "29", "dev"),
        ("fsevents", "*", "optional"),
        ("react", ">=18", "peer"),
        ("lodash", "^4.17.21", "runtime"),
    ]
    assert found.manifests[0].declared == [
        Declared("tool", "npm_bin", "./bin/tool.js"),
        Declared("@acme/tool", "npm_main", "lib/index.js"),
    ]


def test_package_json_bin_map():
    found = parse({"package.json": '{"name": "multi", "bin": {"b": "cli/b.js", "a": "cli/a.js"}}'})
    assert found.manifests[0].declared == [Declared("a", "npm_bin", "cli/a.js"), Declared("b", "npm_bin", "cli/b.js")]


def test_go_mod():
    gomod = """module example.com/shop // the shop

go 1.22
toolchain go1.22.3

require github.com/google/uuid v1.6.0

require (
\tgolang.org/x/sync v0.7.0
\tgithub.com/pkg/errors v0.9.1 // indirect
)

replace github.com/pkg/errors => ../errors
"""
    found = parse({"go.mod": gomod})
    assert found.packages == [Package("example.com/shop", "", "go", "go.mod")]
    assert deps(found, "go.mod") == [
        ("github.com/pkg/errors", "v0.9.1", "indirect"),
        ("github.com/google/uuid", "v1.6.0", "runtime"),
        ("golang.org/x/sync", "v0.7.0", "runtime"),
        ("go", "1.22", "toolchain"),
        ("toolchain", "go1.22.3", "toolchain"),
    ]


def test_cargo_toml():
    cargo = """
[package]
name = "engine"
version = "0.4.1"

[dependencies]
serde = { version = "1", features = ["derive"] }
anyhow = "1.0"
local = { path = "../local" }
fancy = { version = "2", optional = true }
rng = { package = "rand", version = "0.8" }

[dev-dependencies]
proptest = "1"

[build-dependencies]
cc = "1.0"

[target.'cfg(unix)'.dependencies]
libc = "0.2"

[[bin]]
name = "engine-cli"
path = "src/cli.rs"

[[bin]]
name = "other"
"""
    ws = '[workspace]\nmembers = ["engine", "crates/*"]\n'
    found = parse({"engine/Cargo.toml": cargo, "Cargo.toml": ws})
    assert found.packages == [Package("engine", "0.4.1", "cargo", "engine/Cargo.toml")]
    assert deps(found, "engine/Cargo.toml") == [
        ("cc", "1.0", "build"),
        ("proptest", "1", "dev"),
        ("fancy", "2", "optional"),
        ("anyhow", "1.0", "runtime"),
        ("libc", "0.2", "runtime"),
        ("local", "", "runtime"),
        ("rand", "0.8", "runtime"),
        ("serde", "1", "runtime"),
    ]
    by_path = {m.path: m for m in found.manifests}
    assert by_path["Cargo.toml"].members == ["engine", "crates/*"]
    assert by_path["engine/Cargo.toml"].declared == [
        Declared("engine-cli", "rust_bin", "src/cli.rs"),
        Declared("other", "rust_bin", "src/bin/other.rs"),
    ]


POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <parent><groupId>com.acme</groupId><artifactId>parent</artifactId><version>3.1</version></parent>
  <artifactId>shop-core</artifactId>
  <dependencies>
    <dependency><groupId>com.google.guava</groupId><artifactId>guava</artifactId><version>33.0</version></dependency>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13</version><scope>test</scope></dependency>
    <dependency><groupId>javax.servlet</groupId><artifactId>servlet-api</artifactId><scope>provided</scope></dependency>
  </dependencies>
  <dependencyManagement><dependencies>
    <dependency><groupId>not</groupId><artifactId>declared</artifactId></dependency>
  </dependencies></dependencyManagement>
</project>"""


def test_pom_xml_namespaces_and_parent_inheritance():
    found = parse({"core/pom.xml": POM})
    assert found.packages == [Package("com.acme:shop-core", "3.1", "maven", "core/pom.xml")]
    assert deps(found, "core/pom.xml") == [
        ("javax.servlet:servlet-api", "", "provided"),
        ("com.google.guava:guava", "33.0", "runtime"),
        ("junit:junit", "4.13", "test"),
    ]


def test_pom_with_entities_is_refused():
    evil = """<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>
<project><artifactId>&lol2;</artifactId></project>"""
    found = parse({"pom.xml": evil})
    assert found.packages == [] and found.problems == [Skipped("pom.xml", "bad_manifest")]


def test_a_pom_with_a_dtd_in_any_encoding_is_refused():
    """The DTD is refused as the parser meets it: a byte search for `<!DOCTYPE` missed one
    spelled in UTF-16, and its entities were expanded into the package's name."""
    dtd = ('<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE project [<!ENTITY a "from-the-dtd">]>'
           "<project><artifactId>&a;</artifactId></project>")
    plain = '<?xml version="1.0" encoding="UTF-16"?><project><artifactId>plain</artifactId></project>'
    files = [entry("a/pom.xml"), entry("b/pom.xml")]
    blobs = {"a/pom.xml": dtd.encode("utf-16"), "b/pom.xml": plain.encode("utf-16")}
    found = parse_manifests(files, blobs.__getitem__)
    assert found.problems == [Skipped("a/pom.xml", "bad_manifest")]
    assert found.packages == [Package("plain", "", "maven", "b/pom.xml")]


def test_a_pom_nested_deeper_than_any_is_bad_manifest():
    from indexer.manifests.maven import MAX_DEPTH

    def nested(depth: int) -> str:  # the project element is the first level
        inner = depth - 1
        return "<project><artifactId>x</artifactId>" + "<a>" * inner + "</a>" * inner + "</project>"

    found = parse({"a/pom.xml": nested(MAX_DEPTH), "b/pom.xml": nested(MAX_DEPTH + 1)})
    assert found.packages == [Package("x", "", "maven", "a/pom.xml")]
    assert found.problems == [Skipped("b/pom.xml", "bad_manifest")]


_TAGS = st.sampled_from(["project", "parent", "groupId", "artifactId", "version", "dependencies", "dependency",
                         "scope", "optional", "modules", "module", "other"])
_TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=8)


@st.composite
def _element(draw, depth: int = 0):
    from xml.etree.ElementTree import Element

    el = Element(draw(_TAGS) if depth else "project")
    el.text = draw(_TEXT)
    el.tail = draw(_TEXT) if depth else None
    if depth < 4:
        el.extend(draw(st.lists(_element(depth + 1), max_size=4)))
    return el


@settings(max_examples=examples(100), deadline=None)
@given(_element(), st.sampled_from(["", "http://maven.apache.org/POM/4.0.0"]), st.sampled_from(["utf-8", "utf-16"]))
def test_a_pom_reads_as_elementtree_reads_it(root, namespace, encoding):
    """Whatever the document holds, what it declares is what ElementTree's own parse of it
    declares (the reader before DTDs and depth were refused as parsed)."""
    from xml.etree import ElementTree as ET

    from indexer.manifests import maven
    from indexer.manifests.base import Collector, ManifestError

    if namespace:
        root.set("xmlns", namespace)
    data = ET.tostring(root, encoding=encoding)
    ours = parse_manifests([entry("pom.xml")], lambda _: data)
    theirs = Collector("pom.xml", "maven")
    try:
        maven.read_project(theirs, ET.fromstring(data))
    except (ET.ParseError, ManifestError):
        assert ours.problems == [Skipped("pom.xml", "bad_manifest")]
    else:
        assert ours.manifests == [theirs.m]


def test_malformed_manifests_are_reported_and_the_rest_still_read():
    tree = {
        "a/pyproject.toml": "[project\nname = ",
        "b/package.json": "{not json",
        "c/package.json": "[1, 2]",
        "d/go.mod": "go 1.21\n",  # no module directive
        "e/Cargo.toml": "[package]\nname = 'x'\nname = 'y'\n",  # duplicate key
        "f/pom.xml": "<project><artifactId>x</project>",
        "g/setup.py": "def broken(:\n",
        "h/setup.cfg": "[metadata\nname = x",
        "i/pyproject.toml": '[project]\nname = "ok"\ndependencies = "not-a-list"\n',
        "j/go.mod": "module x\nrequire (\n a v1\n",  # unclosed block
        # well-formed, but a field is not of its type: the ecosystem's own tools refuse these too
        "k/package.json": '{"name": 5, "dependencies": {"left-pad": "1.0.0"}}',
        "l/package.json": '{"name": "x", "version": ["1"]}',
        "m/package.json": '{"name": "x", "dependencies": ["left-pad"]}',
        "n/package.json": '{"name": "x", "devDependencies": {"jest": 29}}',
        "o/Cargo.toml": "[package]\nname = 5\n",
        "p/Cargo.toml": '[package]\nname = "x"\n[dependencies]\nserde = 1\n',
        "q/Cargo.toml": 'package = "x"\n',
        "r/pyproject.toml": "[project]\nname = \"x\"\nversion = 1\n",
        "s/pyproject.toml": '[tool.poetry]\nname = "x"\ndependencies = ["requests"]\n',
        "t/pyproject.toml": 'project = "x"\n',
        "u/pyproject.toml": 'tool = {poetry = "x"}\n',
        "v/pyproject.toml": '[project]\nname = "x"\nscripts = ["run"]\n',
        "w/pyproject.toml": '[dependency-groups]\ntest = "pytest"\n',
        "x/package.json": '{"name": "x", "bin": ["cli.js"]}',
        "y/package.json": '{"name": "x", "bin": {"x": 1}}',
        "z/package.json": '{"name": "x", "main": false}',
        "ok/package.json": '{"name": "fine", "version": "1.0.0"}',
        "ok/setup.py": "print('no setup call here')\n",
        # absent fields are no fault: an app's package.json may have no name, a workspace
        # member's Cargo.toml its version from the workspace
        "ok/app/package.json": '{"private": true, "dependencies": {"left-pad": "1.0.0"}}',
        "ok/crate/Cargo.toml": '[package]\nname = "member"\nversion = {workspace = true}\n',
    }
    found = parse(tree)
    assert found.packages == [Package("member", "", "cargo", "ok/crate/Cargo.toml"),
                              Package("fine", "1.0.0", "npm", "ok/package.json")]
    assert deps(found, "ok/app/package.json") == [("left-pad", "1.0.0", "runtime")]
    assert found.problems == [
        Skipped(p, "bad_manifest")
        for p in [
            "a/pyproject.toml", "b/package.json", "c/package.json", "d/go.mod", "e/Cargo.toml",
            "f/pom.xml", "g/setup.py", "h/setup.cfg", "i/pyproject.toml", "j/go.mod",
            "k/package.json", "l/package.json", "m/package.json", "n/package.json", "o/Cargo.toml",
            "p/Cargo.toml", "q/Cargo.toml", "r/pyproject.toml", "s/pyproject.toml", "t/pyproject.toml",
            "u/pyproject.toml", "v/pyproject.toml", "w/pyproject.toml", "x/package.json", "y/package.json",
            "z/package.json",
        ]
    ]


def test_vendored_and_skipped_manifests_are_not_read():
    tree = {"vendor/x/go.mod": "module vendored\n", "big/package.json": '{"name": "big"}', "go.mod": "module mine\n"}
    found = parse(tree, **{"vendor/x/go.mod": {"mark": "vendored"}, "big/package.json": {"skipped": "too_large"}})
    assert [p.name for p in found.packages] == ["mine"]


def test_read_manifests_returns_packages_and_dependencies():
    tree = {"pyproject.toml": PYPROJECT, "package.json": '{"name": "web", "dependencies": {"vue": "3"}}'}
    files = [entry(p) for p in sorted(tree)]
    packages, dependencies = read_manifests(files, lambda p: tree[p].encode())
    assert [p.name for p in packages] == ["web", "shop"]  # sorted by manifest path
    assert Dependency("vue", "3", "runtime", "npm", "package.json", "web") in dependencies
    assert len(dependencies) == 8


def test_composer_json():
    tree = {
        "composer.json": """{
            "name": "acme/blog", "version": "2.1.0",
            "require": {"php": ">=8.1", "ext-json": "*", "symfony/console": "^6.4"},
            "require-dev": {"phpunit/phpunit": "^10"},
            "bin": ["bin/blog", "bin/blog-admin"],
            "autoload": {"psr-4": {"Acme\\\\Blog\\\\": "src/"}}
        }""",
        "tools/composer.json": '{"name": "acme/tools", "bin": "run.php"}',
        "app/composer.json": '{"require": {"monolog/monolog": "^3"}}',  # a project: no name
        "bad/a/composer.json": '{"name": "x", "require": {"y": 1}}',
        "bad/b/composer.json": '{"name": "x", "bin": {"a": "b"}}',
        "bad/c/composer.json": '["x"]',
        "vendor/other/lib/composer.json": '{"name": "other/lib"}',
    }
    found = parse(tree, **{"vendor/other/lib/composer.json": {"mark": "vendored"}})
    assert found.packages == [Package("acme/blog", "2.1.0", "composer", "composer.json"),
                              Package("acme/tools", "", "composer", "tools/composer.json")]
    assert deps(found, "composer.json") == [("phpunit/phpunit", "^10", "dev"), ("ext-json", "*", "runtime"),
                                            ("symfony/console", "^6.4", "runtime"), ("php", ">=8.1", "toolchain")]
    assert deps(found, "app/composer.json") == [("monolog/monolog", "^3", "runtime")]
    by_path = {m.path: m for m in found.manifests}
    assert by_path["composer.json"].declared == [Declared("blog", "composer_bin", "bin/blog"),
                                                 Declared("blog-admin", "composer_bin", "bin/blog-admin")]
    assert by_path["tools/composer.json"].declared == [Declared("run.php", "composer_bin", "run.php")]
    assert found.problems == [Skipped(p, "bad_manifest") for p in
                              ["bad/a/composer.json", "bad/b/composer.json", "bad/c/composer.json"]]


def test_a_name_or_version_there_but_not_text_is_bad_manifest_and_a_blank_name_declares_none():
    """A falsy value of the wrong type (0, false) is still there: as for the ecosystem's tools,
    the manifest is bad, not a package without a version. A blank name declares no package;
    specs are kept as written, less surrounding blanks."""
    found = parse({
        "a/package.json": '{"name": "x", "version": 0}',
        "b/package.json": '{"name": false}',
        "c/package.json": '{"name": "   ", "dependencies": {"left-pad": "  ^1.0 "}}',
    })
    assert found.problems == [Skipped("a/package.json", "bad_manifest"), Skipped("b/package.json", "bad_manifest")]
    assert found.packages == []
    assert found.dependencies == [Dependency("left-pad", "^1.0", "runtime", "npm", "c/package.json", "")]


def test_cargo_workspace_inherited_and_target_tables():
    cargo = """
[package]
name = "eng"
version.workspace = true

[dependencies]
serde = { workspace = true }
libc = "0.2"

[target.'cfg(unix)'.dependencies]
libc = "0.2"

[target.'cfg(windows)'.dev-dependencies]
wintest = "1"

[target.'cfg(windows)'.build-dependencies]
winres = "0.1"

[workspace]
members = ["a", 1]
"""
    found = parse({"Cargo.toml": cargo})
    assert found.problems == []
    assert found.packages == [Package("eng", "", "cargo", "Cargo.toml")]
    # the same dependency in two tables is one fact; an inherited one says where its version is
    assert deps(found, "Cargo.toml") == [("winres", "0.1", "build"), ("wintest", "1", "dev"),
                                         ("libc", "0.2", "runtime"), ("serde", "workspace", "runtime")]
    assert found.manifests[0].members == ["a"]


def test_lib_crate_and_bin_targets_are_lenient_about_types():
    from indexer.manifests.cargo import bin_targets, lib_crate

    assert lib_crate({"package": {"name": "my-crate"}}) == ("my_crate", "src/lib.rs")
    assert lib_crate({"package": {"name": "x"}, "lib": {"name": "core_lib", "path": "lib.rs"}}) == ("core_lib", "lib.rs")
    assert lib_crate({"package": {"name": "x"}, "lib": {"name": 5, "path": 6}}) == ("x", "src/lib.rs")
    assert lib_crate({"workspace": {"members": ["a"]}, "lib": {"name": "stray"}}) is None  # no package: virtual
    assert bin_targets({"bin": [{"name": "a", "path": "src/a.rs"}, {"name": "b"}, {"name": "c", "path": 3},
                                {"path": "nameless.rs"}, "x"]}) == [("a", "src/a.rs"), ("b", ""), ("c", "")]


def test_package_json_workspaces_in_either_form():
    found = parse({"a/package.json": '{"name": "a", "workspaces": ["packages/*", 3]}',
                   "b/package.json": '{"name": "b", "workspaces": {"packages": ["libs/*"], "nohoist": ["x"]}}'})
    assert {m.path: m.members for m in found.manifests} == {"a/package.json": ["packages/*"],
                                                            "b/package.json": ["libs/*"]}


def test_composer_platform_constraints_are_toolchain():
    found = parse({"composer.json": '{"name": "a/b", "require": {"PHP": "^8.2", "composer-runtime-api": "^2.2", '
                                    '"composer-plugin-api": "^2", "ext-mbstring": "*"}}'})
    assert deps(found, "composer.json") == [("ext-mbstring", "*", "runtime"), ("PHP", "^8.2", "toolchain"),
                                            ("composer-plugin-api", "^2", "toolchain"),
                                            ("composer-runtime-api", "^2.2", "toolchain")]


def test_go_mod_comments_after_a_block_and_local_replacements():
    from indexer.manifests.go import parse_go_mod

    gomod = "module m\n\nrequire (\n\ta v1.0.0\n) // end of requires\n\nrequire b v2.0.0\n"
    found = parse({"go.mod": gomod})
    assert found.problems == [] and deps(found, "go.mod") == [("a", "v1.0.0", "runtime"), ("b", "v2.0.0", "runtime")]
    parsed = parse_go_mod("module m\nreplace x => ..\nreplace y v1.0.0 => ./y\nreplace z => .\n"
                          "replace w => example.com/w v1.2.0\nreplace v => ../v\n")
    assert [(r.module, r.target, r.local) for r in parsed.replacements()] == [
        ("x", "..", True), ("y", "./y", True), ("z", ".", True), ("w", "example.com/w", False), ("v", "../v", True)]


def test_go_mod_and_go_work_strings_are_read_whole():
    # Go's modfile lexer: an interpreted string up to its closing quote, escapes undone; a raw
    # string as written; a `//` inside either no comment (was: `"../my` and `dir"`, a target
    # cut at `//`, backquotes kept, escapes as written)
    from indexer.manifests.go import parse_go_mod

    gomod = ('module "example.com/m" // the module\n'
             'replace example.com/x => "../my dir"\n'
             'replace example.com/y v1.0.0 => `../raw // dir` // pinned\n'
             'replace example.com/z => "./\\x7a\\u00e9\\101\\"q\\"\\t"\n'
             'require (\n\t"example.com/a b" v1.2.0 // indirect\n\t`example.com/c` v1.0.0\n)\n'
             'require example.com/d(v1)\n')
    parsed = parse_go_mod(gomod)
    assert parsed.module == "example.com/m"
    assert [(r.module, r.target, r.local) for r in parsed.replacements()] == [
        ("example.com/x", "../my dir", True), ("example.com/y", "../raw // dir", True),
        ("example.com/z", './zéA"q"\t', True)]
    found = parse({"go.mod": gomod})
    assert found.problems == [] and deps(found, "go.mod") == [
        ("example.com/a b", "v1.2.0", "indirect"), ("example.com/c", "v1.0.0", "runtime")]
    assert parsed.words("require")[-1] == ["example.com/c", "v1.0.0"]  # `d(v1)`: a parenthesis there is malformed
    work = parse_go_mod('go 1.22\nuse (\n\t"./my app" // the app\n\t`./tools`\n)\nuse ./lib//x\n')
    assert parsed.unclosed == "" and work.words("use") == [["./my app"], ["./tools"], ["./lib"]]
    assert parse_go_mod("require(\n\ta v1\n)\nretract [v1.0.0, v1.1.0]\n").words("require") == [["a", "v1"]]
    assert parse_go_mod("retract [v1.0.0, v1.1.0]\n").words("retract") == [["[", "v1.0.0", ",", "v1.1.0", "]"]]


def test_a_go_mod_line_with_a_string_left_open_or_a_bad_escape_is_skipped():
    # the go command refuses such a file; read as a line of too few words is, the rest stays read
    from indexer.manifests.go import parse_go_mod, tokens

    for line in ('replace a => "../open', "replace a => `../open", 'replace a => "\\q"', 'replace a => "\\400"',
                 'replace a => "\\ud800"', 'replace a => "\\U00110000"', 'replace a => "x\\"'):
        assert tokens(line) is None, line
        parsed = parse_go_mod(f"module m\n{line}\nreplace b => ./b\nrequire (\n\t{line[8:]}\n\tc v1\n)\n")
        assert [(r.module, r.target) for r in parsed.replacements()] == [("b", "./b")]
        assert parsed.words("require") == [["c", "v1"]] and parsed.unclosed == ""
    found = parse({"go.mod": 'module m\nrequire "a v1\nrequire b v2\n'})
    assert found.problems == [] and deps(found, "go.mod") == [("b", "v2", "runtime")]


@settings(max_examples=examples(200), deadline=None)
@given(st.text(st.sampled_from('ab "`\\/()\t\nx7u0U{},=>') | st.characters(), max_size=200))
def test_any_text_is_a_go_mod_of_bounded_directives(text):
    # outside input: no exception, and never more characters out than in (an escape is never
    # shorter than what it stands for)
    from indexer.manifests.go import parse_go_mod, tokens

    parsed = parse_go_mod(text)
    assert sum(len(d.verb) + sum(map(len, d.words)) + len(d.comment) for d in parsed.directives) <= len(text)
    for line in text.split("\n"):
        read = tokens(line)
        assert read is None or sum(map(len, read[0])) + len(read[1]) <= len(line)


_SIMPLE_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
                   "\\": "\\\\", '"': '\\"'}


@st.composite
def _go_string(draw):
    """(value, a Go string literal of it): interpreted, each character as written or escaped
    any way Go allows, or raw when the value holds no backquote."""
    value = draw(st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\n\r"), max_size=12))
    if "`" not in value and draw(st.booleans()):
        return value, f"`{value}`"
    out = []
    for ch in value:
        code = ord(ch)
        ways = [f"\\U{code:08x}"]
        if code < 0x10000:
            ways.append(f"\\u{code:04X}")
        if code < 0x80:
            ways += [f"\\x{code:02x}", f"\\{code:03o}"]
        if ch in _SIMPLE_ESCAPES:
            ways.append(_SIMPLE_ESCAPES[ch])
        else:
            ways.append(ch)
        out.append(draw(st.sampled_from(ways)))
    return value, '"' + "".join(out) + '"'


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(_go_string(), min_size=1, max_size=5), st.sampled_from(["", "//", "// indirect // x"]))
def test_go_mod_string_tokens_read_back_as_their_values(strings, comment):
    from indexer.manifests.go import tokens

    line = "replace " + " ".join(literal for _, literal in strings) + (" " + comment if comment else "")
    assert tokens(line) == (["replace", *(value for value, _ in strings)], comment[2:])


def test_poetry_beside_project_and_its_long_forms():
    """[project] names the package when both tables do (Poetry 2 reads it so); Poetry's
    multiple-constraint dependencies keep every version, and a script's long form its reference."""
    doc = """
[project]
name = "real"
version = "2.0"
[tool.poetry]
name = "old-name"
version = "1.0"
[tool.poetry.dependencies]
numpy = [{version = "<2", python = "<3.9"}, {version = ">=2", python = ">=3.9"}]
[tool.poetry.scripts]
long = {reference = "real.cli:main", type = "console"}
"""
    found = parse({"pyproject.toml": doc})
    assert found.packages == [Package("real", "2.0", "pypi", "pyproject.toml")]
    assert deps(found, "pyproject.toml") == [("numpy", "<2 || >=2", "runtime")]
    assert found.manifests[0].declared == [Declared("long", "console_script", "real.cli:main")]


def test_setup_cfg_and_setup_py_corners():
    cfg = """
[metadata]
name = corner
version = file: VERSION
[options]
setup_requires = wheel
[options.entry_points]
console_scripts =
    lonely
    ok = corner.cli:main
"""
    found = parse({"setup.cfg": cfg, "py/setup.py": "from setuptools import setup\nsetup(name='num', version=1.0)\n",
                   "deep/setup.py": "-" * 100_000 + "1\n"})
    assert found.packages == [Package("num", "", "pypi", "py/setup.py"), Package("corner", "", "pypi", "setup.cfg")]
    assert deps(found, "setup.cfg") == [("wheel", "", "build")]
    assert found.manifests[1].declared == [Declared("ok", "console_script", "corner.cli:main")]  # no "=": nothing
    # CPython's parser gives up on such nesting with MemoryError, which nothing else would catch
    assert found.problems == [Skipped("deep/setup.py", "bad_manifest")]


def test_dependency_group_names_are_read_without_case():
    found = parse({"pyproject.toml": '[dependency-groups]\nTests = ["pytest"]\nDocs = ["sphinx"]\n'})
    assert deps(found, "pyproject.toml") == [("sphinx", "", "dev"), ("pytest", "", "test")]


def test_pom_scopes_optional_and_stray_elements():
    pom = """<project>
  <artifactId>p</artifactId>
  <dependencies>
    <dependency><groupId>g</groupId><artifactId>opt</artifactId><optional>true</optional></dependency>
    <dependency><groupId>g</groupId><artifactId>odd</artifactId><scope>custom</scope></dependency>
    <dependency><groupId>g</groupId><artifactId>bom</artifactId><scope>import</scope></dependency>
    <dependency><groupId>no-artifact</groupId></dependency>
    <exclusion><groupId>g</groupId><artifactId>not-a-dependency</artifactId></exclusion>
  </dependencies>
</project>"""
    found = parse({"pom.xml": pom, "other/pom.xml": "<settings><artifactId>s</artifactId></settings>"})
    assert deps(found, "pom.xml") == [("g:odd", "", "custom"), ("g:bom", "", "import"), ("g:opt", "", "optional")]
    assert found.problems == [Skipped("other/pom.xml", "bad_manifest")]  # the root is not <project>


def test_manifests_past_the_bytes_or_declarations_a_tree_may_hold_are_too_large(monkeypatch):
    """Manifests are read up to the `manifest_bytes` limit together (800 here, set as a user
    sets it), judged from the file table before any is read, and declare up to `manifest_items`
    dependencies, entry points and members together (12 here), counted as they are read; past either, `too_large`. At both caps the
    manifests are read (was: every manifest read and each declaration kept, whatever they came
    to: 4,001 paths of one package.json of 300 dependencies indexed in 21 s and 936 MB, 10,001
    paths of one of 2,000 ran out of 7.8 GB)."""
    import pytest

    from indexer.contract.errors import TooLarge
    from indexer.manifests import read as manifests

    monkeypatch.setenv("RENNET_LIMITS", "manifest_bytes=800,manifest_items=12")
    pkg = '{"name": "p", "dependencies": {"a": "1", "b": "1", "c": "1"}, "bin": {"x": "x.js"}}'  # 4 declarations
    tree = {f"p{i}/package.json": pkg for i in range(3)}
    read: list[str] = []

    def parsed(tree, size):
        files = [FileEntry(path=p, blob="0" * 40, mode=0o100644, size=size, lines=1, language="json")
                 for p in sorted(tree)]
        return manifests.parse_manifests(files, lambda p: read.append(p) or tree[p].encode())

    assert len(parsed(tree, 800 // 3).dependencies) == 9
    with pytest.raises(TooLarge, match="declare over 12 dependencies"):
        parsed({**tree, "p3/package.json": pkg}, 1)
    read.clear()
    with pytest.raises(TooLarge, match="the 3 manifests of this tree hold 801 bytes together, over the 800"):
        parsed(tree, 267)
    assert read == []  # refused from the file table, before any is read


_LINE_TEXT = st.text(st.sampled_from("ab =:\t\x0b\x1c\u00a0\u3000#;[]"), max_size=40)


@settings(max_examples=examples(200), deadline=None)
@given(_LINE_TEXT)
def test_a_setup_cfg_option_line_splits_as_configparsers_own_pattern_splits_it(line):
    """The linear option pattern reads any line (configparser meets them split at `\\n` and
    stripped) as the standard library's lazy one does: the same name, delimiter and value, or
    no option."""
    import configparser
    import re

    from indexer.manifests.python import OPTION_LINE

    ours, theirs = re.compile(OPTION_LINE).match(line), configparser.ConfigParser.OPTCRE.match(line)
    assert (ours and ours.groupdict()) == (theirs and theirs.groupdict())
    stripped = line.strip()
    ours, theirs = re.compile(OPTION_LINE).match(stripped), configparser.ConfigParser.OPTCRE.match(stripped)
    assert (ours and ours.groupdict()) == (theirs and theirs.groupdict())


def test_a_setup_cfg_is_read_with_the_linear_option_pattern():
    """configparser's own pattern tried each place in a run of blank space before a delimiter
    again (a name padded by 20,000 spaces: 4.6 s, by 10,000: 1.1 s); the reader's parser splits
    option lines with the linear one, and reads such a name as before."""
    from indexer.manifests.python import OPTION_LINE, _setup_cfg_parser

    assert _setup_cfg_parser()._optcre.pattern == OPTION_LINE  # type: ignore[attr-defined]
    found = parse({"setup.cfg": "[metadata]\nname" + " " * 2_000 + "= padded\n"})
    assert found.packages == [Package("padded", "", "pypi", "setup.cfg")] and found.problems == []


def test_a_setup_cfgs_first_bad_line_ends_its_reading():
    """configparser read on past a bad line, adding each to a message copied whole each time (a
    square: 1 MB of bad lines in 21 s, 2 MB in 65 s); the first makes the manifest bad, and the
    lines configparser runs do not grow with the bad lines after it."""
    import configparser

    from tests.lines_run import counted

    def run(bad: int):
        return counted(lambda: parse({"setup.cfg": "[metadata]\nname = x\n" + "not an option\n" * bad}),
                       [configparser.__file__])

    (few, few_lines), (many, many_lines) = run(10), run(1_000)
    assert few.problems == many.problems == [Skipped("setup.cfg", "bad_manifest")]
    assert many_lines == few_lines


def _setup_cfg_outcome(text: str) -> tuple[str, object]:
    """What reading a setup.cfg came to: the error's message, or the manifest read."""
    from indexer.manifests.base import Collector, ManifestError
    from indexer.manifests.python import read_setup_cfg

    c = Collector("setup.cfg", "pypi")
    try:
        read_setup_cfg(c, text.encode())
    except ManifestError as e:
        return "error", str(e)
    return "read", (c.m.package, c.m.dependencies, c.m.declared)


# Lines of a setup.cfg: headers (some again, as a duplicate), options (some again, some
# without a name), continuations, comments, blank lines, and lines of no delimiter.
_CFG_LINES = st.lists(st.sampled_from([
    "[metadata]", "[options]", "[options.extras_require]", "name = x", "name = y", "version: 1",
    "install_requires =", "  a>=1", "\tb", "", "# c", "; c", "= v", ": v", "x", "x = [y]",
]), max_size=12)
# A line that is bad wherever it stands after a section: it starts at the margin (so continues
# nothing) and is no header, comment nor option (no delimiter, or none before it).
_BAD_CFG_LINE = st.sampled_from(["not an option", "x", "= v", ":", "]", "a]"])


@settings(max_examples=examples(300), deadline=None)
@given(_CFG_LINES, _BAD_CFG_LINE, _CFG_LINES)
def test_nothing_after_a_setup_cfgs_first_bad_line_changes_its_reading(before, bad, after):
    """The first bad line ends the reading on every Python: whatever lines follow it (a section
    or option again, more bad lines) the outcome is that of the file cut after it, an error.
    (On Python 3.13 configparser read on: a duplicate after the bad line was the error named.)"""
    head = "\n".join(["[metadata]", *before, bad]) + "\n"
    cut = _setup_cfg_outcome(head)
    assert cut[0] == "error"
    assert _setup_cfg_outcome(head + "\n".join(after) + "\n") == cut


def test_a_setup_cfgs_bad_line_is_named_before_a_duplicate_after_it():
    """A line of no delimiter, or of no name before its delimiter, ends the reading where it
    stands: the error names it, not a section or option given twice further on, and what the
    bad lines are does not change the lines configparser runs after the first."""
    import configparser

    from tests.lines_run import counted

    for bad in ("no delimiter", "= a value with no name"):
        text = f"[metadata]\nname = x\n{bad}\n[metadata]\nname = y\nname = y\n"
        assert _setup_cfg_outcome(text) == ("error", f"{bad!r} is neither a section, an option nor a continuation")

    def run(bad: int):
        return counted(lambda: _setup_cfg_outcome("[options]\n" + "= v\n" * bad), [configparser.__file__])

    (few, few_lines), (many, many_lines) = run(10), run(1_000)
    assert few == many and many_lines == few_lines


def test_a_setup_cfg_of_more_lines_than_any_real_one_is_bad_manifest():
    """Where configparser reads on past bad lines (Python 3.13 has no `_handle_error` to stop
    it), their message costs the square of them: a setup.cfg is read in SETUP_CFG_LINES lines
    at most, good or bad, and one past it is bad_manifest."""
    from indexer.manifests.python import SETUP_CFG_LINES

    head = "[metadata]\nname = x\n"
    fits = parse({"setup.cfg": head + "# c\n" * (SETUP_CFG_LINES - 3)})
    assert fits.packages == [Package("x", "", "pypi", "setup.cfg")] and fits.problems == []
    over = parse({"setup.cfg": head + "# c\n" * (SETUP_CFG_LINES - 2)})  # good lines, one too many
    assert over.packages == [] and over.problems == [Skipped("setup.cfg", "bad_manifest")]


def test_a_toml_key_of_thousands_of_parts_is_bad_manifest_in_linear_work():
    """tomllib spent a square in a dotted key's parts (a key of 10,000 parts in 2.4 s, 20,000 in
    7.5 s; a header of 20,000 parts over as many keys in 152 s) before its nesting was refused;
    a key of more parts than tables may nest is refused before decoding. (tomllib's square is in
    slicing the key at each part, a line each: counting its lines does not show it.)"""
    import tomllib._parser as toml_parser

    from tests.lines_run import counted

    def run(parts: int):
        key = ".".join(["a"] * parts)
        return counted(lambda: parse({"Cargo.toml": f"[package]\nname = 'x'\n{key} = 1\n",
                                      "pyproject.toml": f"[{key}]\n" + "k = 1\n" * 10,
                                      "sub/pyproject.toml": f"  \t[{key}]\n"}), [toml_parser.__file__])

    (small, small_lines), (big, big_lines) = run(1_000), run(2_000)
    assert small.problems == big.problems == [Skipped("Cargo.toml", "bad_manifest"), Skipped("pyproject.toml", "bad_manifest"),
                                              Skipped("sub/pyproject.toml", "bad_manifest")]
    assert small_lines == big_lines == 0  # an indented header too: TOML allows blanks before it


_KEY_PART = st.sampled_from(["a", "b-1", "_", '"x.y"', "'q'", '""', "1"])


@settings(max_examples=examples(200), deadline=None)
@given(st.one_of(
    st.text(st.sampled_from('ab.=" \'#[]{}\n\t1,'), max_size=80),
    st.builds(lambda parts, header, sp, tail: ("[" + (sp.join(parts)) + "]\n" if header else sp.join(parts) + " = 1\n") + tail,
              st.lists(_KEY_PART, min_size=1, max_size=40), st.booleans(), st.sampled_from([".", " . ", "\t.", ".."]),
              st.sampled_from(["", "k = 1.5\n", "x = '''\na.b.c = 1\n'''\n", "# a.b = 1\n"])),
))
# dots before a line's `=` that are no key's: floats of a multi-line array, then an inline table
@example("x = [\n" + "1.5, " * 40 + "{k = 1}]\n")
def test_a_toml_manifest_is_refused_before_decoding_only_as_decoding_refuses_it(text):
    """The key check before decoding (`decode.toml_key_dots`) refuses only what decoding would
    refuse after it: the same table as tomllib's, or an error for both."""
    import tomllib

    from indexer.contract.decode import TOML_MAX_DEPTH, decode_toml, nested_deeper, toml_depth

    def decoded_whole():  # decode_toml as it was, with no key check before tomllib
        if toml_depth(text) > TOML_MAX_DEPTH:
            return "refused"
        try:
            doc = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError, ValueError):
            return "refused"
        return "refused" if nested_deeper(doc, TOML_MAX_DEPTH) else doc

    try:
        checked = decode_toml(text.encode())
    except ValueError:
        checked = "refused"
    assert checked == decoded_whole()
