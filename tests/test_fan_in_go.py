"""Go imports as fan-in, each tree indexed for real: the cases hand-made mutants of
indexer/lang/go/resolve.py got past (which module owns a path, which copy a workspace reads,
which files make a package), asserted as the go tool resolves them and docs/languages.md
says."""

from __future__ import annotations

from tests.indexed import import_graph

MOD = "module example.com/m\n\ngo 1.22\n"
MAIN = 'package main\n\nimport "{}"\n\nfunc main() {{}}\n'


def test_a_directory_whose_files_disagree_is_the_package_its_name_says(tmp_path):
    # a tie between two package clauses: the directory's own name decides, though `alpha`
    # sorts before `lib`
    graph = import_graph(tmp_path, {
        "go.mod": MOD,
        "lib/a.go": "package alpha\n\nfunc A() {}\n",
        "lib/b.go": "package lib\n\nfunc B() {}\n",
        "cmd/main.go": MAIN.format("example.com/m/lib"),
    })
    assert graph.edges == {("cmd/main.go", "lib/b.go")}
    assert graph.fan_in == {"lib/b.go": 1}


def test_a_nested_module_takes_its_path_wherever_its_folder_is(tmp_path):
    # example.com/shop/tools lives in tooling/, not tools/: the longest module path owns the
    # import, and the main module's replace directive points there
    graph = import_graph(tmp_path, {
        "go.mod": "module example.com/shop\n\ngo 1.22\n\nrequire example.com/shop/tools v0.0.0\n\n"
                  "replace example.com/shop/tools => ./tooling\n",
        "tooling/go.mod": "module example.com/shop/tools\n\ngo 1.22\n",
        "tooling/gen/gen.go": "package gen\n\nfunc Gen() {}\n",
        "cmd/shop/main.go": MAIN.format("example.com/shop/tools/gen"),
    })
    assert graph.edges == {("cmd/shop/main.go", "tooling/gen/gen.go")}
    assert graph.fan_in == {"tooling/gen/gen.go": 1}


def test_a_module_the_workspace_does_not_use_is_read_from_its_vendor_copy(tmp_path):
    # go.work uses ./app alone: lib/ is a module of the tree but no member, so `go work
    # vendor`'s copy is what app builds against
    graph = import_graph(tmp_path, {
        "go.work": "go 1.22\n\nuse ./app\n",
        "app/go.mod": "module example.com/app\n\ngo 1.22\n\nrequire example.com/lib v1.0.0\n",
        "app/main.go": MAIN.format("example.com/lib"),
        "lib/go.mod": "module example.com/lib\n\ngo 1.22\n",
        "lib/l.go": "package lib\n\nfunc L() {}\n",
        "vendor/modules.txt": "# example.com/lib v1.0.0\n## explicit\nexample.com/lib\n",
        "vendor/example.com/lib/l.go": "package lib\n\nfunc L() {}\n",
    })
    assert graph.edges == {("app/main.go", "vendor/example.com/lib/l.go")}
    assert graph.fan_in == {"vendor/example.com/lib/l.go": 1}


def test_a_fixture_module_under_testdata_never_owns_another_modules_imports(tmp_path):
    # a/testdata/go.mod repeats the real module's path; tools/, another module of the tree,
    # finds example.com/m's package in the real module
    graph = import_graph(tmp_path, {
        "a/testdata/go.mod": MOD,
        "a/testdata/lib/x.go": "package lib\n\nfunc X() {}\n",
        "go.mod": MOD,
        "lib/a.go": "package lib\n\nfunc A() {}\n",
        "tools/go.mod": "module example.com/tools\n\ngo 1.22\n",
        "tools/main.go": MAIN.format("example.com/m/lib"),
    })
    assert graph.edges == {("tools/main.go", "lib/a.go")}
    assert graph.fan_in == {"lib/a.go": 1}


def test_an_import_naming_testdata_in_a_vendor_copy_or_a_gopath_reaches_it(tmp_path):
    # as in the module's own folders: a vendored or GOPATH folder named testdata, or starting
    # with `_`, is the package an import naming it finds (was: external)
    graph = import_graph(tmp_path, {
        "mod/go.mod": MOD,
        "mod/main.go": MAIN.format("example.com/dep/testdata"),
        "mod/vendor/example.com/dep/testdata/t.go": "package testdata\n",
        "gopath/src/app/main.go": MAIN.format("example.com/lib/_old"),
        "gopath/src/example.com/lib/_old/o.go": "package old\n",
    })
    assert graph.edges == {("mod/main.go", "mod/vendor/example.com/dep/testdata/t.go"),
                           ("gopath/src/app/main.go", "gopath/src/example.com/lib/_old/o.go")}
    assert graph.unresolved == set()


def test_a_go_mod_in_a_nested_modules_vendor_copy_claims_no_module_path(tmp_path):
    # app/'s hand-vendored example.com/lib carries its go.mod: it serves app's build alone,
    # so tools/, which neither vendors nor replaces example.com/lib, finds it outside the tree
    graph = import_graph(tmp_path, {
        "app/go.mod": "module example.com/app\n\ngo 1.22\n",
        "app/main.go": MAIN.format("example.com/lib"),
        "app/vendor/modules.txt": "# example.com/lib v1.0.0\nexample.com/lib\n",
        "app/vendor/example.com/lib/go.mod": "module example.com/lib\n",
        "app/vendor/example.com/lib/l.go": "package lib\n\nfunc L() {}\n",
        "tools/go.mod": "module example.com/tools\n\ngo 1.22\n",
        "tools/main.go": MAIN.format("example.com/lib"),
    })
    assert graph.edges == {("app/main.go", "app/vendor/example.com/lib/l.go")}
    assert graph.fan_in == {"app/vendor/example.com/lib/l.go": 1}
    assert graph.unresolved == {("tools/main.go", "example.com/lib", "external")}
