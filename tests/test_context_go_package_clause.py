"""A Go selector `pkg.Name` on an unaliased import is bound by the package clause of the files
the import reaches in the tree (`GoBindings.binds_local_in`), as Go code names it: a folder
internal/go-utils of `package gutils` is `gutils`, not the `utils` goimports would assume of
its path; an external test package (`gutils_test`) is never its name; an import outside the
tree keeps the assumed name, an alias its written one. Real repositories, indexed and asked
through the public API."""

from __future__ import annotations

import pytest

from indexer.lang.go.bases import import_clause
from tests.indexed import Asked, Indexed, sites
from tests.lines_run import lines_run

_MOD = "module example.com/m\n\ngo 1.21\n"
FILES = {
    "go.mod": _MOD,
    # folders whose name is not their package clause
    "internal/go-utils/gutils.go": "package gutils\n\nfunc Do() {}\n",
    "internal/go-utils/more.go": "package gutils\n\nfunc More() {}\n",
    # its external test package, importing the folder it sits in
    "internal/go-utils/gutils_test.go": (
        'package gutils_test\n\nimport (\n\t"testing"\n\n\t"example.com/m/internal/go-utils"\n)\n\n'
        "func TestDo(t *testing.T) {\n\tgutils.Do()\n}\n"),
    "pkg/v1beta/types.go": "package api\n\nfunc Make() {}\n",
    "cmd-helpers/helpers.go": "package helpers\n\nfunc Run() {}\n",
    # an external test package in a file ahead of the package's own
    "cmd-helpers/a_test.go": "package helpers_test\n\nfunc Run() {}\n",
    # another package defining the same names, so that a site no import binds stays a name match
    "other/other.go": "package other\n\nfunc Do() {}\n\nfunc Make() {}\n\nfunc Run() {}\n",
    "app/main.go": (
        'package main\n\nimport (\n\t"example.com/m/cmd-helpers"\n\t"example.com/m/internal/go-utils"\n'
        '\t"example.com/m/pkg/v1beta"\n)\n\n'
        "func main() {\n\tgutils.Do()\n\tapi.Make()\n\thelpers.Run()\n}\n"),
    # the names the paths imply bind nothing here: `utils` is a value of the file's own
    "app/implied.go": (
        'package main\n\nimport (\n\t"example.com/m/internal/go-utils"\n)\n\n'
        "type box struct{}\n\nfunc (box) Do() {}\n\n"
        "func implied(utils box) {\n\tutils.Do()\n\tgutils.More()\n}\n"),
    # an aliased import binds its alias alone
    "app/aliased.go": (
        'package main\n\nimport (\n\tu "example.com/m/internal/go-utils"\n)\n\n'
        "func aliased() {\n\tu.Do()\n\tgutils.Do()\n}\n"),
    # an import outside the tree whose real clause (`client`) is not its last segment: the
    # index knows no clause of it, so it binds the name goimports assumes (`influxdb1`)
    "app/external.go": (
        'package main\n\nimport (\n\t"github.com/influxdata/influxdb1-client/v2"\n)\n\n'
        "func external() {\n\tclient.Do()\n\tinfluxdb1.Do()\n}\n"),
}
REPO = Indexed(FILES, "rennet-go-clause-", message="go package clauses")


go = REPO.fixture()


def _rules(asked: Asked, name: str, **more) -> dict[tuple[str, int], tuple[str, str]]:
    r = asked.call("context.references", name=name, **more)
    return {(s.path, s.line): (s.resolution, s.rule) for s in r.data.sites}


def test_a_folder_named_otherwise_binds_its_package_clause(go):
    # `gutils.Do()`, `api.Make()`, `helpers.Run()`: their imports' paths imply utils, v1beta, cmd
    assert _rules(go, "Do", path="internal/")[("app/main.go", 10)] == ("import", "import")
    assert _rules(go, "Make", path="pkg/") == {("app/main.go", 11): ("import", "import")}
    assert _rules(go, "Run", path="cmd-helpers/") == {("app/main.go", 12): ("import", "import")}
    assert _rules(go, "More") == {("app/implied.go", 13): ("import", "import")}
    # asked by the package's own name, as code writes it
    assert sorted(sites(go, "api.Make")) == [("app/main.go", 11, "import")]


def test_the_name_a_path_implies_binds_no_package_of_another_clause(go):
    # `utils` is a parameter: no import binds it, since the folder's package is gutils
    assert _rules(go, "Do", path="internal/")[("app/implied.go", 12)] == (
        "name_match", "attribute of an untyped receiver `utils`")


def test_an_external_test_package_names_the_folder_it_imports_by_its_clause(go):
    # gutils_test imports its own folder: `gutils` is the folder's package, not gutils_test
    assert _rules(go, "Do", path="internal/")[("internal/go-utils/gutils_test.go", 10)] == ("import", "import")


def test_an_aliased_import_binds_its_alias_alone(go):
    # where the unaliased import of the folder binds its clause, an aliased one binds `u` alone
    do = _rules(go, "Do", path="internal/")
    assert do[("app/main.go", 10)] == ("import", "import")
    assert {k: v for k, v in do.items() if k[0] == "app/aliased.go"} == {
        ("app/aliased.go", 8): ("import", "import"),
        ("app/aliased.go", 9): ("name_match", "attribute of an untyped receiver `gutils`")}


def test_an_import_outside_the_tree_binds_the_name_its_path_implies(go):
    # the index reads no clause of it: `influxdb1` binds it (reaching no definition of the
    # tree), `client` nothing; while an import of the tree binds its clause
    do = _rules(go, "Do")
    assert {k: v for k, v in do.items() if k[0] == "app/external.go"} == {
        ("app/external.go", 8): ("name_match", "attribute of an untyped receiver `client`"),
        ("app/external.go", 9): ("name_match", "attribute of module `influxdb1`, which does not reach it")}
    assert do[("app/main.go", 10)] == ("import", "import")


def test_every_site_of_the_package_function(go):
    # the whole answer, a site of each case above: every one the package's import binds
    assert sorted(sites(go, "Do", path="internal/")) == [
        ("app/aliased.go", 8, "import"), ("app/aliased.go", 9, "name_match"),
        ("app/external.go", 8, "name_match"), ("app/external.go", 9, "name_match"),
        ("app/implied.go", 12, "name_match"), ("app/main.go", 10, "import"),
        ("internal/go-utils/gutils_test.go", 10, "import")]


@pytest.mark.parametrize(("clauses", "clause"), [
    (["gutils", "gutils"], "gutils"),
    (["", "gutils"], "gutils"),  # a file whose clause was not read says nothing
    (["gutils_test", "gutils"], "gutils"),  # an external test package is no importable one
    (["gutils_test"], ""),
    (["gutils", "other"], ""),  # files that disagree: no clause, not a guess
    (["gutils", "gutils_test", "other"], ""),
    ([], ""),
    ([""], ""),
])
def test_the_clause_the_files_an_import_reaches_agree_on(clauses, clause):
    assert import_clause(clauses) == clause


SMALL, LARGE = 60, 120


def _wide(n: int) -> dict[str, str]:
    """A package of n+1 files in a folder named otherwise, and n files each calling it once."""
    files = {"go.mod": "module x\n\ngo 1.21\n", "internal/go-utils/do.go": "package gutils\n\nfunc Do() {}\n"}
    files |= {f"internal/go-utils/f{k}.go": f"package gutils\n\nfunc F{k}() {{}}\n" for k in range(n)}
    files |= {f"c/c{k}.go": f'package c\n\nimport "x/internal/go-utils"\n\nfunc c{k}() {{\n\tgutils.Do()\n}}\n'
              for k in range(n)}
    return files


WIDE = {n: Indexed(_wide(n), f"rennet-go-clause-{n}-", message="wide") for n in (SMALL, LARGE)}


def test_a_package_clause_is_read_once_a_query_not_once_an_importer():
    # the Go binding rules' lines run: with twice the importers of a package twice the size,
    # about twice the work; reading the package's clauses again for each importer made it
    # four times
    from indexer.lang.go import bases, bindings

    lines = {}
    for n in (SMALL, LARGE):
        def ask(n: int = n):
            return WIDE[n].asked().call("context.references", name="Do", limit=1).data

        assert ask().by_resolution["import"] == n
        lines[n] = lines_run(ask, (bases.__file__, bindings.__file__))
    assert lines[LARGE] <= 2.5 * lines[SMALL], lines
