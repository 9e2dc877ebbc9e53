"""Entry points of every kind, resolved to files of the tree."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.manifests.entrypoints import find_entry_points
from indexer.model import BlobFacts, EntryPoint, FileEntry, Symbol
from tests.examples import examples


def entry(path: str) -> FileEntry:
    return FileEntry(path=path, blob="0" * 40, mode=0o100644, size=1, lines=1, language="x")


def func(name: str, container: str = "") -> Symbol:
    return Symbol(name, "function", container, 1, 2, 0, 10, f"func {name}()")


def run(tree: dict[str, str], facts: dict[str, BlobFacts] | None = None) -> list[EntryPoint]:
    files = [entry(p) for p in sorted(tree)]
    return find_entry_points(files, facts or {}, lambda p: tree[p].encode())


def test_python_scripts_from_every_manifest_kind():
    tree = {
        "pyproject.toml": '[project]\nname = "shop"\n[project.scripts]\nshop = "shop.cli:main"\n'
                          '[project.gui-scripts]\nshop-gui = "shop.gui:run [gui]"\n',
        "src/shop/__init__.py": "",
        "src/shop/cli.py": "",
        "src/shop/gui/__init__.py": "",
        "tools/setup.cfg": "[metadata]\nname = tools\n[options.entry_points]\nconsole_scripts =\n    tl = tools_pkg.main:run\n",
        "tools/tools_pkg/__init__.py": "",
        "tools/tools_pkg/main.py": "",
        "old/setup.py": "from setuptools import setup\nsetup(name='old', entry_points={'console_scripts': ['old=oldpkg:main']})\n",
        "old/oldpkg.py": "",
        "poet/pyproject.toml": '[tool.poetry]\nname = "poet"\n[tool.poetry.scripts]\npoet = "poet.app:go"\nghost = "nowhere.mod:x"\n',
        "poet/poet/__init__.py": "",
        "poet/poet/app.py": "",
    }
    assert run(tree) == [
        EntryPoint("ghost", "console_script", "", "nowhere.mod:x", "poet/pyproject.toml"),  # declared, not in tree
        EntryPoint("old", "console_script", "old/oldpkg.py", "oldpkg:main", "old/setup.py"),
        EntryPoint("poet", "console_script", "poet/poet/app.py", "poet.app:go", "poet/pyproject.toml"),
        EntryPoint("shop", "console_script", "src/shop/cli.py", "shop.cli:main", "pyproject.toml"),
        EntryPoint("shop-gui", "gui_script", "src/shop/gui/__init__.py", "shop.gui:run [gui]", "pyproject.toml"),
        EntryPoint("tl", "console_script", "tools/tools_pkg/main.py", "tools_pkg.main:run", "tools/setup.cfg"),
    ]


def test_package_json_bin_string_map_and_main():
    tree = {
        "cli/package.json": '{"name": "@acme/cli", "bin": "./bin/run", "main": "lib/index"}',
        "cli/bin/run.js": "",
        "cli/lib/index.ts": "",
        "multi/package.json": '{"name": "multi", "bin": {"m1": "one.js", "m2": "missing.js"}}',
        "multi/one.js": "",
    }
    assert run(tree) == [
        EntryPoint("m2", "npm_bin", "", "missing.js", "multi/package.json"),
        EntryPoint("cli", "npm_bin", "cli/bin/run.js", "./bin/run", "cli/package.json"),
        EntryPoint("@acme/cli", "npm_main", "cli/lib/index.ts", "lib/index", "cli/package.json"),
        EntryPoint("m1", "npm_bin", "multi/one.js", "one.js", "multi/package.json"),
    ]


def test_go_main_packages():
    tree = {"cmd/server/main.go": "", "cmd/server/flags.go": "", "lib/lib.go": "", "main_test.go": "", "tool.go": ""}
    facts = {
        "cmd/server/main.go": BlobFacts(language="go", lines=9, package_name="main", symbols=[func("main")]),
        "cmd/server/flags.go": BlobFacts(language="go", lines=9, package_name="main", symbols=[func("parse")]),
        "lib/lib.go": BlobFacts(language="go", lines=9, package_name="lib", symbols=[func("main")]),
        "main_test.go": BlobFacts(language="go", lines=9, package_name="main", symbols=[func("main")]),
        "tool.go": BlobFacts(language="go", lines=9, package_name="main", symbols=[func("main", container="T")]),
    }
    assert run(tree, facts) == [EntryPoint("server", "go_main", "cmd/server/main.go", "", "")]


def test_go_build_ignored_program_is_named_after_its_file():
    # client_golang's prometheus/gen_go_collector_metrics_set.go: `go run` it; it is not a
    # program called "prometheus"
    tree = {"prometheus/gen_metrics.go": "", "prometheus/registry.go": ""}
    facts = {
        "prometheus/gen_metrics.go": BlobFacts(language="go", lines=9, package_name="main", build_ignored=True,
                                               symbols=[func("main")]),
        "prometheus/registry.go": BlobFacts(language="go", lines=9, package_name="prometheus", symbols=[func("New")]),
    }
    assert run(tree, facts) == [EntryPoint("gen_metrics", "go_main", "prometheus/gen_metrics.go", "", "")]


def test_rust_bins_declared_and_automatic():
    tree = {
        "Cargo.toml": '[package]\nname = "eng"\n[[bin]]\nname = "eng-cli"\npath = "src/cli.rs"\n[[bin]]\nname = "gone"\npath = "src/gone.rs"\n',
        "src/main.rs": "",
        "src/lib.rs": "",
        "src/cli.rs": "",
        "src/bin/extra.rs": "",
        "src/bin/big/main.rs": "",
        "src/bin/big/util.rs": "",
        "nolib/src/main.rs": "",  # no Cargo.toml of its own: not a crate of the tree
    }
    assert run(tree) == [
        EntryPoint("gone", "rust_bin", "", "src/gone.rs", "Cargo.toml"),
        EntryPoint("big", "rust_bin", "src/bin/big/main.rs", "", "Cargo.toml"),
        EntryPoint("extra", "rust_bin", "src/bin/extra.rs", "", "Cargo.toml"),
        EntryPoint("eng-cli", "rust_bin", "src/cli.rs", "src/cli.rs", "Cargo.toml"),
        EntryPoint("eng", "rust_bin", "src/main.rs", "", "Cargo.toml"),
    ]


def test_python_main_files_and_blocks():
    tree = {"pkg/__init__.py": "", "pkg/__main__.py": "", "scripts/report.py": "", "lib.py": ""}
    facts = {
        "pkg/__main__.py": BlobFacts(language="python", lines=3, main_block=True),
        "scripts/report.py": BlobFacts(language="python", lines=3, main_block=True),
        "lib.py": BlobFacts(language="python", lines=3),
    }
    assert run(tree, facts) == [
        EntryPoint("pkg", "python_main_file", "pkg/__main__.py", "", ""),
        EntryPoint("report", "python_main_block", "scripts/report.py", "", ""),
    ]


def test_malformed_manifest_does_not_stop_other_entry_points():
    tree = {"package.json": "{oops", "app/__main__.py": ""}
    assert run(tree) == [EntryPoint("app", "python_main_file", "app/__main__.py", "", "")]


def test_composer_bin():
    tree = {"composer.json": '{"name": "acme/blog", "bin": ["bin/blog", "bin/gone"]}', "bin/blog": ""}
    assert run(tree) == [
        EntryPoint("gone", "composer_bin", "", "bin/gone", "composer.json"),
        EntryPoint("blog", "composer_bin", "bin/blog", "bin/blog", "composer.json"),
    ]


def test_rust_bins_declared_at_an_automatic_path_are_listed_once():
    tree = {
        "Cargo.toml": '[package]\nname = "eng"\n[[bin]]\nname = "eng-main"\npath = "src/main.rs"\n'
                      '[[bin]]\nname = "tool"\npath = "src/bin/t.rs"\n',
        "src/main.rs": "", "src/bin/t.rs": "", "src/bin/README.md": "", "src/bin/deep/inner/main.rs": "",
        "ws/Cargo.toml": '[workspace]\nmembers = ["x"]\n', "ws/src/main.rs": "",  # a virtual workspace: no crate
    }
    assert run(tree) == [
        EntryPoint("tool", "rust_bin", "src/bin/t.rs", "src/bin/t.rs", "Cargo.toml"),
        EntryPoint("eng-main", "rust_bin", "src/main.rs", "src/main.rs", "Cargo.toml"),
    ]


def test_a_script_resolves_beside_its_manifest_first_and_extras_without_a_colon():
    tree = {
        "tools/pyproject.toml": '[project]\nname = "t"\n[project.scripts]\nt = "app.cli:main"\nm = "app.cli [fast]"\n',
        "tools/src/app/__init__.py": "", "tools/src/app/cli.py": "",
        "app/__init__.py": "", "app/cli.py": "",  # another package of the same name, elsewhere in the tree
    }
    assert run(tree) == [
        EntryPoint("m", "console_script", "tools/src/app/cli.py", "app.cli [fast]", "tools/pyproject.toml"),
        EntryPoint("t", "console_script", "tools/src/app/cli.py", "app.cli:main", "tools/pyproject.toml"),
    ]


def test_a_symlink_named_main_is_no_entry_point():
    files = [entry("pkg/__init__.py"),
             FileEntry(path="pkg/__main__.py", blob="1" * 40, mode=0o120000, size=9, lines=-1, language="symlink",
                       skipped="symlink")]
    assert find_entry_points(files, {}, lambda p: b"") == []


def _crates(n: int) -> dict[str, str]:
    tree: dict[str, str] = {}
    for i in range(n):
        tree[f"c{i}/Cargo.toml"] = f'[package]\nname = "c{i}"\n'
        tree[f"c{i}/src/main.rs"] = tree[f"c{i}/src/bin/a.rs"] = tree[f"c{i}/src/bin/sub/main.rs"] = ""
    return tree


def test_many_crates_with_binary_folders_find_their_bins_in_linear_work():
    """Each crate with a src/bin walked every folder of the tree for its subfolders (n crates:
    n² folders; 2,000 crates in 42 s); the `bin` folders' subfolders are now found in one walk
    (0.4 s). Lines run double with the crates (were 3.9 times)."""
    from tests.lines_run import counted

    small, big = _crates(100), _crates(200)
    (found, lines_small), (found_big, lines_big) = counted(lambda: run(small)), counted(lambda: run(big))
    assert len(found_big) == 2 * len(found) == 600
    assert EntryPoint("sub", "rust_bin", "c7/src/bin/sub/main.rs", "", "c7/Cargo.toml") in found
    assert lines_big < 2.5 * lines_small


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.lists(st.sampled_from(["bin", "src", "x", "y"]), min_size=1, max_size=5), max_size=12))
def test_the_bin_folders_subfolders_are_those_a_walk_of_every_folder_finds(parts):
    """`_bin_subdirs` gives each `bin` folder the subfolders a scan of every folder gives it."""
    from indexer.manifests.entrypoints import _bin_subdirs
    from indexer.resolve.tree import TreePaths, parent

    tree = TreePaths(sorted({"/".join(p) + "/f.rs" for p in parts}))
    found = _bin_subdirs(tree)
    for d in tree.dirs:
        want = sorted(s for s in tree.dirs if parent(s) == d) if d.rpartition("/")[2] == "bin" else []
        assert found.get(d, []) == want
