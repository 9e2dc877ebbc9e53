"""Test and implementation counterparts across ecosystems: found at head, flagged when
they changed too, and named at their conventional place when they do not exist."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpora.gitbuild import RepoBuilder
from delta.counterparts import CounterpartIndex
from delta.packet import build_delta_packet
from indexer.contract.result import Unknown
from tests.examples import examples
from tests.lines_run import counted

HEAD_FILES = [
    "src/pkg/foo.py", "tests/unit/test_foo.py", "pkg/bar.py", "pkg/bar_test.py", "lonely.py",
    "server/handler.go", "server/handler_test.go", "client/handler_test.go",
    "web/x.ts", "web/x.test.ts", "web/y.tsx", "web/__tests__/y.tsx", "web/z.js", "web/z.spec.js",
    "src/main/java/com/acme/App.java", "src/test/java/com/acme/AppTest.java",
    "lib/acme/widget.rb", "spec/acme/widget_spec.rb",
    "src/parser.rs", "tests/parser.rs",
    "Acme/Thing.cs", "Acme.Tests/ThingTests.cs",
    "app/Models/User.php", "tests/Unit/UserTest.php",
    "core/buf.c", "core/buf_test.c",
    "README.md", "Tester.java",
]


@pytest.fixture()
def index():
    return CounterpartIndex(HEAD_FILES, changed_paths={"src/pkg/foo.py", "web/x.test.ts", "lib/acme/widget.rb"})


@pytest.mark.parametrize("path,expected,role", [
    ("src/pkg/foo.py", "tests/unit/test_foo.py", "test"),
    ("tests/unit/test_foo.py", "src/pkg/foo.py", "implementation"),
    ("pkg/bar.py", "pkg/bar_test.py", "test"),
    ("server/handler.go", "server/handler_test.go", "test"),  # not client/handler_test.go: Go pairs in-folder
    ("web/x.ts", "web/x.test.ts", "test"),
    ("web/y.tsx", "web/__tests__/y.tsx", "test"),
    ("web/z.spec.js", "web/z.js", "implementation"),
    ("src/main/java/com/acme/App.java", "src/test/java/com/acme/AppTest.java", "test"),
    ("src/test/java/com/acme/AppTest.java", "src/main/java/com/acme/App.java", "implementation"),
    ("lib/acme/widget.rb", "spec/acme/widget_spec.rb", "test"),
    ("src/parser.rs", "tests/parser.rs", "test"),
    ("Acme/Thing.cs", "Acme.Tests/ThingTests.cs", "test"),
    ("app/Models/User.php", "tests/Unit/UserTest.php", "test"),
    ("core/buf.c", "core/buf_test.c", "test"),
])
def test_counterpart_found_at_head(index, path, expected, role):
    found = index.counterparts(path)
    assert not isinstance(found, Unknown)
    assert found[0].path == expected and found[0].role == role and found[0].exists_at_head


def test_go_pairs_only_in_the_same_folder(index):
    assert [c.path for c in index.counterparts("server/handler.go")] == ["server/handler_test.go"]


def test_changed_flag_and_conventional_place_when_missing(index):
    assert index.counterparts("web/x.ts")[0].changed is True
    assert index.counterparts("lib/acme/widget.rb")[0].changed is False  # the spec did not change
    [missing] = index.counterparts("lonely.py")
    assert (missing.path, missing.exists_at_head, missing.rule) == ("tests/test_lonely.py", False,
                                                                    "python:conventional")
    [missing_go] = index.counterparts("server/new.go")
    assert missing_go.path == "server/new_test.go" and not missing_go.exists_at_head


def test_files_without_a_convention_are_not_applicable(index):
    mark = index.counterparts("README.md")
    assert isinstance(mark, Unknown) and mark.unknown == "not_applicable"
    assert isinstance(index.counterparts("pkg/__init__.py"), Unknown)
    # "Tester" is not the Test-prefix convention: it is an implementation
    assert index.counterparts("Tester.java")[0].role == "test"


def test_packet_reports_counterparts_of_changed_files(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"calc/ops.py": "def add(a, b):\n    return a + b\n",
                     "tests/test_ops.py": "from calc.ops import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
                     "calc/util.go": "package calc\n", "calc/util_test.go": "package calc\n"})
    head = b.commit({"calc/ops.py": "def add(a, b):\n    return b + a\n",
                     "calc/util_test.go": None,
                     "calc/util.go": "package calc\n\nfunc X() {}\n"})
    files = {f.path: f for f in build_delta_packet(tmp_path / "r", base, head, index=False, write=False).packet.files}
    [ops] = files["calc/ops.py"].counterparts.items
    assert (ops.path, ops.exists_at_head, ops.changed) == ("tests/test_ops.py", True, False)
    [util] = files["calc/util.go"].counterparts.items
    assert (util.path, util.exists_at_head, util.changed) == ("calc/util_test.go", False, True)  # deleted here


def test_a_rust_file_holding_its_own_test_module_is_its_own_test(tmp_path):
    # a Rust unit test lives in the file it tests (`#[cfg(test)] mod tests`): the packet said
    # "tests/parse.rs, missing" for every such file, and nothing for lib.rs
    lib = "pub mod parse;\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n"
    parse = "pub fn parse() {}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n"
    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"Cargo.toml": '[package]\nname = "p"\n', "src/lib.rs": lib, "src/parse.rs": parse,
                     "src/emit.rs": "pub fn emit() {}\n", "src/walk.rs": "pub fn walk() {}\n",
                     "tests/walk.rs": "#[test]\nfn w() {}\n"})
    head = b.commit({"src/lib.rs": lib + "// edited\n", "src/parse.rs": parse + "// edited\n",
                     "src/emit.rs": "pub fn emit() { }\n",
                     "src/walk.rs": "pub fn walk() { }\n\n#[cfg(test)]\nmod unit {}\n"})
    files = {f.path: f for f in build_delta_packet(tmp_path / "r", base, head, index=False, write=False).packet.files}
    inline = "rust:#[cfg(test)] in the file"
    assert [(c.path, c.role, c.exists_at_head, c.changed, c.rule) for c in files["src/lib.rs"].counterparts.items] == [
        ("src/lib.rs", "test", True, True, inline)]
    assert [(c.path, c.rule) for c in files["src/parse.rs"].counterparts.items] == [("src/parse.rs", inline)]
    # both kinds: the unit tests in the file first, then the integration test named for it
    assert [(c.path, c.rule) for c in files["src/walk.rs"].counterparts.items] == [
        ("src/walk.rs", inline), ("tests/walk.rs", "rust:tests/<stem>.rs")]
    # no test module: the place one would have, as before
    assert [(c.path, c.exists_at_head) for c in files["src/emit.rs"].counterparts.items] == [("tests/emit.rs", False)]


def test_a_python_tests_module_is_a_test_not_an_implementation_missing_its_test():
    # django's tests/admin_filters/tests.py (5.0.2..5.0.3) read as the implementation "tests"
    # and was paired with a test expected at tests/test_tests.py
    index = CounterpartIndex(["tests/admin_filters/tests.py", "django/contrib/admin/filters.py", "app/test.py"],
                             changed_paths={"tests/admin_filters/tests.py"})
    for path in ("tests/admin_filters/tests.py", "app/test.py"):
        mark = index.counterparts(path)
        assert isinstance(mark, Unknown) and mark.unknown == "not_applicable", path
        assert "names no implementation" in mark.reason


def _first(index: CounterpartIndex, path: str) -> str:
    found = index.counterparts(path)
    assert not isinstance(found, Unknown), found
    return found[0].path


def test_a_test_folder_named_x_tests_names_the_folder_x():
    # django 5.0.2..5.0.3: tests/utils_tests/test_text.py ranked django/db/models/functions/text.py
    # first (no shared leading folder either way, so the tie went alphabetically)
    index = CounterpartIndex(["django/db/models/functions/text.py", "django/utils/text.py",
                              "tests/utils_tests/test_text.py", "tests/db_functions/text/test_text.py"],
                             changed_paths=set())
    assert _first(index, "tests/utils_tests/test_text.py") == "django/utils/text.py"
    assert _first(index, "django/utils/text.py") == "tests/utils_tests/test_text.py"
    assert _first(index, "django/db/models/functions/text.py") == "tests/db_functions/text/test_text.py"


def test_package_relative_mirror_pairs_src_pkg_a_with_tests_a():
    index = CounterpartIndex(["src/pkg/a/b.py", "src/pkg/c/b.py", "tests/a/test_b.py", "tests/c/test_b.py"],
                             changed_paths=set())
    assert _first(index, "tests/c/test_b.py") == "src/pkg/c/b.py"
    assert _first(index, "src/pkg/c/b.py") == "tests/c/test_b.py"
    assert _first(index, "src/pkg/a/b.py") == "tests/a/test_b.py"
    # both mirror tests/backends/; the one with fewer folders left over is nearer
    index = CounterpartIndex(["django/contrib/gis/db/backends/utils.py", "django/db/backends/utils.py",
                              "tests/backends/test_utils.py"], changed_paths=set())
    assert _first(index, "tests/backends/test_utils.py") == "django/db/backends/utils.py"


def test_a_counterpart_that_exists_at_head_beats_a_deleted_one():
    index = CounterpartIndex(["b/foo.py", "tests/test_foo.py"], changed_paths={"a/foo.py"},
                             deleted_paths=["a/foo.py"])
    found = index.counterparts("tests/test_foo.py")
    assert [(c.path, c.exists_at_head) for c in found] == [("b/foo.py", True), ("a/foo.py", False)]


@pytest.mark.parametrize("path", [
    "tests/backends/models.py",  # django 5.0.2..5.0.3: paired with tests/auth_tests/test_models.py
    "tests/typing/typing_app_decorators.py",  # flask: "needed" tests/test_typing_app_decorators.py
    "tests/base.py",  # marshmallow's shared schemas
    "src/test/java/com/acme/Fixtures.java",
    "test/helpers.js",
    "Acme.Tests/Builders.cs",
])
def test_a_helper_in_a_test_folder_is_test_support_not_an_implementation(path):
    index = CounterpartIndex([path, "tests/auth_tests/test_models.py", "django/db/models/base.py",
                              "tests/test_base.py"], changed_paths={path})
    mark = index.counterparts(path)
    assert isinstance(mark, Unknown) and mark.unknown == "not_applicable", mark
    assert "test support" in mark.reason
    # and it is no implementation of anyone's test either
    assert _first(index, "tests/test_base.py") != "tests/base.py"


def test_a_package_folder_named_test_is_still_an_implementation():
    # django/test/client.py is Django's test client, tested by tests/test_client/
    index = CounterpartIndex(["django/test/client.py", "tests/test_client/test_client.py",
                              "pkg/testing/util.py"], changed_paths=set())
    assert _first(index, "django/test/client.py") == "tests/test_client/test_client.py"
    assert index.counterparts("pkg/testing/util.py")[0].role == "test"


@pytest.mark.parametrize("path,stem", [
    ("tests/test_appctx.py", "appctx"),  # flask: was "appctx.py" at the root, which no one wrote
    ("tests/x509/verification/test_limbo.py", "limbo"),  # cryptography 42.0.4..42.0.5
    ("server/integration_test.go", "integration"),
    ("web/flows.test.ts", "flows"),
])
def test_a_test_naming_no_existing_file_says_so_instead_of_guessing_a_path(path, stem):
    index = CounterpartIndex([path, "src/flask/ctx.py", "server/handler.go"], changed_paths={path})
    mark = index.counterparts(path)
    assert isinstance(mark, Unknown) and mark.unknown == "not_applicable", mark
    assert f"no implementation named {stem}" in mark.reason


def test_a_django_tests_module_in_a_folder_named_for_the_module_is_its_test():
    # django 5.0.2..5.0.3: admin/filters.py was paired with a template i18n test_filters.py only
    index = CounterpartIndex([
        "django/contrib/admin/filters.py", "tests/admin_filters/tests.py",
        "tests/template_tests/syntax_tests/i18n/test_filters.py",
        "django/contrib/humanize/templatetags/humanize.py", "tests/humanize_tests/tests.py",
        "django/contrib/auth/models.py", "tests/proxy_models/tests.py",
    ], changed_paths={"tests/admin_filters/tests.py"})
    found = index.counterparts("django/contrib/admin/filters.py")
    assert [c.path for c in found] == ["tests/admin_filters/tests.py",
                                       "tests/template_tests/syntax_tests/i18n/test_filters.py"]
    assert (found[0].rule, found[0].changed) == ("python:<folder naming stem>/tests.py", True)
    assert _first(index, "django/contrib/humanize/templatetags/humanize.py") == "tests/humanize_tests/tests.py"
    # "proxy" is no folder of auth/models.py: proxy_models/ tests something else
    [missing] = index.counterparts("django/contrib/auth/models.py")
    assert not missing.exists_at_head


def test_a_tests_module_is_offered_only_where_its_folder_shares_the_implementations_folders():
    index = CounterpartIndex(["django/contrib/auth/backends.py", "tests/backends/tests.py",
                              "django/contrib/auth/admin.py", "django/contrib/admin/tests.py"], changed_paths=set())
    for path in ("django/contrib/auth/backends.py", "django/contrib/auth/admin.py"):
        [missing] = index.counterparts(path)
        assert not missing.exists_at_head, path


def test_a_private_module_is_tested_under_its_public_name():
    # click 8.1.6..8.1.7: src/click/_compat.py was sent to a missing tests/test__compat.py
    index = CounterpartIndex(["src/click/_compat.py", "tests/test_compat.py", "src/cryptography/__about__.py"],
                             changed_paths=set())
    assert _first(index, "src/click/_compat.py") == "tests/test_compat.py"
    assert _first(index, "tests/test_compat.py") == "src/click/_compat.py"
    mark = index.counterparts("src/cryptography/__about__.py")  # dunder modules name no test convention
    assert isinstance(mark, Unknown) and mark.unknown == "not_applicable"


def test_a_trailing_version_digit_does_not_break_a_mirror():
    # django 5.0.4..5.0.5: tests/backends/sqlite/test_functions.py ranked oracle/functions.py first
    index = CounterpartIndex(["django/db/backends/oracle/functions.py", "django/db/backends/sqlite3/_functions.py",
                              "tests/backends/sqlite/test_functions.py"], changed_paths=set())
    assert _first(index, "tests/backends/sqlite/test_functions.py") == "django/db/backends/sqlite3/_functions.py"


# -- name-only matches: a generic stem, or a test another implementation's folders claim --

DJANGO_BASES = [
    "django/core/management/base.py", "django/db/models/base.py", "django/views/generic/base.py",
    "django/template/base.py", "tests/generic_views/test_base.py", "tests/template_tests/test_base.py",
    "tests/order_with_respect_to/base_tests.py", "tests/user_commands/tests.py",
]


def test_a_generic_stem_in_unrelated_folders_is_not_offered():
    # django 5.0.1..5.0.2: django/core/management/base.py was given tests/generic_views/test_base.py,
    # tests/template_tests/test_base.py and tests/order_with_respect_to/base_tests.py
    index = CounterpartIndex(DJANGO_BASES, changed_paths=set())
    [missing] = index.counterparts("django/core/management/base.py")
    # no test of its own: the place one would go, by the tested neighbours' layout (django/<app> ->
    # tests/<app>_tests), instead of three other modules' tests
    assert (missing.path, missing.exists_at_head, missing.rule) == (
        "tests/core_tests/test_base.py", False,
        "python:layout of django/template/base.py -> tests/template_tests/test_base.py")
    # a related folder still pairs: generic_views names django/views/generic, template_tests django/template
    assert [c.path for c in index.counterparts("django/views/generic/base.py")] == ["tests/generic_views/test_base.py"]
    assert [c.path for c in index.counterparts("tests/template_tests/test_base.py")] == ["django/template/base.py"]
    mark = index.counterparts("tests/order_with_respect_to/base_tests.py")
    assert isinstance(mark, Unknown) and mark.unknown == "not_applicable"
    assert mark.reason.startswith("4 implementation(s) named base at head, none in a folder related to "
                                  "tests/order_with_respect_to/")


def test_a_test_another_implementation_claims_is_not_offered_by_name_alone():
    # django 5.0.1..5.0.2: django/db/models/sql/datastructures.py was given
    # tests/utils_tests/test_datastructures.py, which is django/utils/datastructures.py's
    index = CounterpartIndex(["django/utils/datastructures.py", "django/db/models/sql/datastructures.py",
                              "tests/utils_tests/test_datastructures.py"], changed_paths=set())
    [missing] = index.counterparts("django/db/models/sql/datastructures.py")
    assert not missing.exists_at_head
    assert [c.path for c in index.counterparts("tests/utils_tests/test_datastructures.py")] == [
        "django/utils/datastructures.py"]
    # with no related claimant, a distinctive name still pairs across folders (src/ and tests/unit/)
    assert _first(CounterpartIndex(["src/pkg/foo.py", "tests/unit/test_foo.py"], set()),
                  "src/pkg/foo.py") == "tests/unit/test_foo.py"


def test_related_folders_read_plurals_and_joined_words():
    index = CounterpartIndex([
        "django/views/static.py", "django/templatetags/static.py", "django/conf/urls/static.py",
        "tests/view_tests/tests/test_static.py", "tests/template_tests/syntax_tests/test_static.py",
        "django/contrib/admindocs/views.py", "django/contrib/auth/views.py", "django/views/generic/views.py",
        "tests/admin_docs/test_views.py",
        "django/db/models/lookups.py", "django/contrib/postgres/lookups.py", "django/contrib/gis/db/models/lookups.py",
        "tests/lookup/test_lookups.py",
    ], changed_paths=set())
    assert [c.path for c in index.counterparts("django/views/static.py")] == ["tests/view_tests/tests/test_static.py"]
    assert [c.path for c in index.counterparts("django/templatetags/static.py")] == [
        "tests/template_tests/syntax_tests/test_static.py"]
    assert [c.path for c in index.counterparts("django/contrib/admindocs/views.py")] == ["tests/admin_docs/test_views.py"]
    # tests/lookup/ is named for lookups.py itself, wherever it lives
    assert _first(index, "django/db/models/lookups.py") == "tests/lookup/test_lookups.py"


# -- a missing test is placed the way the repository's tested neighbours place theirs --

@pytest.mark.parametrize("paths,path,expected,source", [
    # Django: tests/<app>_tests/test_<stem>.py, as deep as the neighbour's mirror went
    (["django/utils/text.py", "tests/utils_tests/test_text.py"], "django/utils/html.py",
     "tests/utils_tests/test_html.py", "django/utils/text.py -> tests/utils_tests/test_text.py"),
    (["django/contrib/gis/gdal/driver.py", "tests/gis_tests/gdal_tests/test_driver.py"],
     "django/contrib/gis/gdal/raster/const.py", "tests/gis_tests/gdal_tests/test_const.py",
     "django/contrib/gis/gdal/driver.py -> tests/gis_tests/gdal_tests/test_driver.py"),
    (["django/contrib/gis/gdal/driver.py", "tests/gis_tests/gdal_tests/test_driver.py"],
     "django/contrib/gis/geos/point.py", "tests/gis_tests/geos_tests/test_point.py",
     "django/contrib/gis/gdal/driver.py -> tests/gis_tests/gdal_tests/test_driver.py"),
    # pytest keeps its tests in testing/
    (["src/_pytest/fixtures.py", "testing/test_fixtures.py"], "src/_pytest/mark/structures.py",
     "testing/test_structures.py", "src/_pytest/fixtures.py -> testing/test_fixtures.py"),
    # tests beside the module, by suffix
    (["pkg/bar.py", "pkg/bar_test.py"], "pkg/baz.py", "pkg/baz_test.py", "pkg/bar.py -> pkg/bar_test.py"),
    # TanStack Query: src/__tests__/<stem>.test.tsx, even for a .ts module
    (["src/query.ts", "src/__tests__/query.test.tsx"], "src/mutation.ts", "src/__tests__/mutation.test.tsx",
     "src/query.ts -> src/__tests__/query.test.tsx"),
    (["lib/a.js", "lib/a.spec.js"], "lib/sub/b.js", "lib/sub/b.spec.js", "lib/a.js -> lib/a.spec.js"),
    # minitest: test/<mirror>/test_<stem>.rb, not RSpec's spec/
    (["lib/acme/widget.rb", "test/acme/test_widget.rb"], "lib/acme/deep/gear.rb", "test/acme/deep/test_gear.rb",
     "lib/acme/widget.rb -> test/acme/test_widget.rb"),
    (["src/main/java/com/acme/App.java", "src/test/java/com/acme/AppTests.java"], "src/main/java/com/acme/io/Reader.java",
     "src/test/java/com/acme/io/ReaderTests.java",
     "src/main/java/com/acme/App.java -> src/test/java/com/acme/AppTests.java"),
])
def test_a_missing_test_follows_the_layout_of_the_nearest_tested_neighbour(paths, path, expected, source):
    index = CounterpartIndex(paths + [path], changed_paths={path})
    [missing] = index.counterparts(path)
    family = missing.rule.split(":", 1)[0]
    assert (missing.path, missing.exists_at_head, missing.role) == (expected, False, "test")
    assert missing.rule == f"{family}:layout of {source}"


def test_the_nearest_neighbours_vote_and_an_existing_folder_wins():
    index = CounterpartIndex([
        "django/utils/text.py", "tests/utils_tests/test_text.py",  # django/<x> -> tests/<x>_tests
        "django/template/base.py", "tests/template_tests/test_base.py",
        "django/middleware/security.py", "tests/middleware/test_security.py",  # django/<x> -> tests/<x>
        "django/dispatch/dispatcher.py", "tests/dispatch/tests.py",
        "django/utils/html.py",
    ], changed_paths=set())
    # two neighbours say tests/dispatch_tests/, one tests/dispatch/, and tests/dispatch/ exists
    assert _first(index, "django/dispatch/dispatcher.py") == "tests/dispatch/test_dispatcher.py"
    # a tested module in the same folder is nearer than any vote
    assert _first(index, "django/utils/html.py") == "tests/utils_tests/test_html.py"


def test_a_neighbour_under_another_top_level_folder_is_no_guide():
    # black: scripts/release_tests.py sat beside scripts/release.py, and docs/conf.py was sent to docs/conf_tests.py
    index = CounterpartIndex(["scripts/release.py", "scripts/release_tests.py", "docs/conf.py",
                              "scripts/fuzz.py"], changed_paths=set())
    assert [(c.path, c.rule) for c in index.counterparts("docs/conf.py")] == [("tests/test_conf.py",
                                                                              "python:conventional")]
    assert _first(index, "scripts/fuzz.py") == "scripts/fuzz_tests.py"


def test_a_layout_is_learned_only_from_pairs_the_folders_bear_out():
    # django: admin/templatetags/log.py pairs by name with tests/db_functions/math/test_log.py;
    # that says nothing about where the admin's tests go
    index = CounterpartIndex([
        "django/contrib/admin/templatetags/log.py", "tests/db_functions/math/test_log.py",
        "django/contrib/admin/actions.py", "tests/admin_views/test_actions.py",
        "django/contrib/admin/templatetags/admin_list.py",
    ], changed_paths=set())
    [missing] = index.counterparts("django/contrib/admin/templatetags/admin_list.py")
    assert (missing.path, missing.rule) == (
        "tests/admin_views/test_admin_list.py",
        "python:layout of django/contrib/admin/actions.py -> tests/admin_views/test_actions.py")


def test_packet_counterparts_follow_the_repository_layout(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    files = {p: "x = 1\n" for p in DJANGO_BASES + ["django/utils/text.py", "tests/utils_tests/test_text.py"]}
    base = b.commit(files)
    head = b.commit({"django/core/management/base.py": "x = 2\n", "django/utils/html.py": "y = 1\n"})
    packet = build_delta_packet(tmp_path / "r", base, head, index=False, write=False).packet
    got = {f.path: [(c.path, c.exists_at_head, c.rule) for c in f.counterparts.items] for f in packet.files}
    assert got == {
        "django/core/management/base.py": [("tests/core_tests/test_base.py", False,
                                            "python:layout of django/template/base.py -> tests/template_tests/test_base.py")],
        "django/utils/html.py": [("tests/utils_tests/test_html.py", False,
                                  "python:layout of django/utils/text.py -> tests/utils_tests/test_text.py")],
    }


def test_up_to_three_counterparts_closest_first():
    index = CounterpartIndex(["pkg/foo.py", "pkg/test_foo.py", "pkg/foo_test.py", "tests/pkg/test_foo.py",
                              "tests/test_foo.py"], {"tests/test_foo.py"})
    # beside it first (same folder, by path), then the mirrored tree; the bare tests/ is the fourth
    assert [c.path for c in index.counterparts("pkg/foo.py")] == [
        "pkg/foo_test.py", "pkg/test_foo.py", "tests/pkg/test_foo.py"]


def test_a_test_module_attribute_however_spaced_holds_the_files_tests():
    index = CounterpartIndex(["src/scan.rs"], set(),
                             read_head=lambda p: b"pub fn scan() {}\n\n#[cfg( test )]\nmod t {}\n")
    assert [(c.path, c.rule) for c in index.counterparts("src/scan.rs")] == [
        ("src/scan.rs", "rust:#[cfg(test)] in the file")]


# STEM_CANDIDATES as the bound tests past it set it: a quarter of the shipped cap
_CAP = 16


def _pairs(n: int) -> list[str]:
    return [p for k in range(n) for p in (f"pkg{k}/utils.py", f"tests/pkg{k}/test_utils.py")] + ["lone/thing.py"]


def test_a_stem_many_files_carry_costs_each_file_a_bounded_ranking(monkeypatch):
    """A thousand utils.py beside a thousand test_utils.py (a commit under review may hold them;
    about 40 kB) made `rennet delta` rank every test of the stem for each implementation, and
    again for each while learning where the repository puts tests: the square of them, 51 s.
    Past STEM_CANDIDATES files of the other role, a file's candidates are the nearest in path
    order and by folder tail. Each utils.py still gets its own test first, the lone file (whose
    place is looked for in the layout the pairs show) its conventional one, and twice the pairs
    cost about twice the work (the lines of Rennet's code run): from STEM_CANDIDATES pairs, where
    ranking every test of the stem cost four times as much at twice the pairs."""
    from delta import counterparts

    # the bound holds past any cap: a smaller one crosses it at fewer pairs, each traced
    monkeypatch.setattr(counterparts, "STEM_CANDIDATES", _CAP)

    def ask(n: int) -> list:
        paths = _pairs(n)
        index = CounterpartIndex(paths, changed_paths=set(paths))
        return [index.counterparts(p) for p in paths]

    small, large = _CAP, 2 * _CAP
    # the answers checked are those counted; the larger is counted first, so any work done once
    # a process (about 2,000 lines) falls on it, not on the smaller it is held to
    answers, ran = counted(lambda: ask(large))
    lines = {large: ran, small: counted(lambda: ask(small))[1]}
    for k in (0, large // 2, large - 1):
        first = answers[2 * k][0]
        assert (first.path, first.exists_at_head) == (f"tests/pkg{k}/test_utils.py", True), answers[2 * k]
    lone = answers[-1][0]  # its place: no tested neighbour shows one, so the convention's
    assert (lone.path, lone.exists_at_head, lone.rule) == ("tests/test_thing.py", False, "python:conventional"), lone
    assert lines[large] <= 2.5 * lines[small], lines


_words = st.sets(st.text(alphabet="abs", min_size=1, max_size=8), max_size=5)


@settings(max_examples=examples(250), deadline=None)
@given(_words, _words)
def test_words_are_akin_where_some_pair_of_them_is(a, b):
    """Whether two folders' words are akin is found by a search, as trying each pair finds it."""
    from delta.testdirs import _akin, _any_akin

    assert _any_akin(a, b) == any(_akin(x, y) for x in a for y in b)


def test_related_folders_of_deep_paths_cost_work_linear_in_their_depth():
    """Whether a test's folders relate to an implementation's tried each word of one path's
    folders against each of the other's: a pair of paths 1,000 folders deep (4 kB each, within
    PATH_CHARS) ran 4 million lines, and a packet weighs each changed file against up to 64
    candidates. The lines run at n and 2n folders grow as the folders do."""
    import itertools

    from delta import testdirs

    def chain(letters: str, depth: int) -> str:
        return "/".join(itertools.islice(("".join(p) for p in itertools.product(letters, repeat=3)), depth))

    def work(depth: int) -> int:
        impl, test = chain("abcdefghijklm", depth) + "/foo.py", chain("nopqrstuvwxyz", depth) + "/test_foo.py"
        if hasattr(testdirs, "_folder_words"):  # each run reads its folders afresh
            testdirs._folder_words.cache_clear()
        found, ran = counted(lambda: testdirs.related(impl, test), [testdirs.__file__])
        assert found is False
        return ran

    small, large = work(300), work(600)
    assert large <= 2.5 * small, (small, large)


def _nameless_as_every_folder_is_tried(paths: list[str], path: str, stem: str) -> list[str]:
    """Django's folder-named tests.py a file is offered, each tests.py folder holding the stem's
    first word tried in turn: what the search must still find."""
    import posixpath

    from delta.counterparts import NAMELESS_TESTS
    from delta.testdirs import all_words, folder_words, in_test_dir

    want = set(stem.split("_")) - {""}
    if not want:
        return []
    own = all_words(path)
    out = []
    for p in sorted(set(paths)):
        if posixpath.basename(p) in NAMELESS_TESTS and in_test_dir(posixpath.dirname(p)) and _read_role(p) is None:
            words = folder_words(p)
            if min(want) in words and want <= words and words - want <= own and words & own:
                out.append(p)
    return out


def _read_role(path: str) -> str | None:
    from delta.counterparts import _read

    found = _read(path)
    return None if found is None else found[1].role


_folder = st.lists(st.sampled_from(["admin", "filters", "auth", "models", "contrib", "x1", "utils"]),
                   min_size=1, max_size=3).map("_".join)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["tests", "django/tests", "pkg"]), _folder), max_size=10),
       st.lists(st.tuples(st.sampled_from(["django/contrib", "django", "src/admin"]), _folder,
                          st.sampled_from(["filters", "models", "admin_filters", "utils"])), min_size=1, max_size=5))
def test_a_folder_named_tests_module_is_found_as_trying_each_folder_finds_it(tests, impls):
    tests_ = [f"{top}/{folder}/tests.py" for top, folder in tests]
    impls_ = [f"{top}/{folder}/{stem}.py" for top, folder, stem in impls]
    index = CounterpartIndex(tests_ + impls_, set())
    for path, (_, _, stem) in zip(impls_, impls):
        assert index._nameless_naming(path, stem) == _nameless_as_every_folder_is_tried(tests_ + impls_, path, stem)


def test_many_folder_named_tests_modules_of_one_stem_cost_work_linear_in_them():
    """n implementations named foo.py and n `tests/foo_x/tests.py` whose folders name the stem
    and nothing of the implementations' folders: each implementation tried every such folder
    as the packet learned the layout for a file with no test (1,000 of each: 12 million lines
    run, the square of n); each is now looked for under its rarest word. Lines run at n and 2n."""
    from delta import counterparts

    letters = str.maketrans("0123456789", "abcdefghij")

    def work(n: int) -> int:
        head = [f"p{i:05d}/foo.py".translate(letters) for i in range(n)]
        head += [f"tests/foo_q{i:05d}/tests.py".translate(letters) for i in range(n)]
        head.append("zzz/bar.py")
        index = CounterpartIndex(head, {"zzz/bar.py"})
        found, ran = counted(lambda: index.counterparts("zzz/bar.py"), [counterparts.__file__])
        assert [(c.path, c.rule) for c in found] == [("tests/test_bar.py", "python:conventional")]  # type: ignore[union-attr]
        return ran

    small, large = work(300), work(600)
    assert large <= 2.5 * small, (small, large)


def test_folder_named_tests_modules_naming_every_implementation_cost_each_a_bounded_ranking(monkeypatch):
    """n implementations lib/<w>/foo.py and n tests/<w>/foo_lib_tests/tests.py: each module's
    folder names the stem and a folder of every implementation, so each implementation was
    offered every module and ranked them all (2,000 of each: 82 s, the square of n). Past
    STEM_CANDIDATES modules, an implementation's are those nearest it, as among a stem's
    files. Each still gets its three counterparts by that rule, and lines run at n and 2n."""
    from delta import counterparts
    from delta.counterparts import NAMELESS_RULE

    monkeypatch.setattr(counterparts, "STEM_CANDIDATES", _CAP)  # as above: crossed at fewer modules

    letters = str.maketrans("0123456789", "abcdefghij")

    def work(n: int) -> int:
        impls = [f"lib/w{i:05d}/foo.py".translate(letters) for i in range(n)]
        tests = [f"tests/w{i:05d}/foo_lib_tests/tests.py".translate(letters) for i in range(n)]
        index = CounterpartIndex(impls + tests, set(impls))
        found, ran = counted(lambda: [index.counterparts(p) for p in impls], [counterparts.__file__])
        for answer in found:
            assert [c.rule for c in answer] == [NAMELESS_RULE] * 3, answer  # type: ignore[union-attr]
        return ran

    small, large = work(2 * _CAP), work(4 * _CAP)
    assert large <= 2.5 * small, (small, large)

def _suggest_weighing_every_placement(placements, folder: str, stem: str, ext: str, folders: frozenset[str]):
    """The layout a missing test follows, every placement weighed for the file: what the
    search down the folders must still find."""
    import posixpath
    from collections import Counter

    from delta.testdirs import closeness

    best: list = []
    best_score = -1
    for pl in placements:
        path = pl.path_for(folder, stem, ext)
        if path is None:
            continue
        source = posixpath.dirname(pl.source)
        score = closeness([p for p in folder.split("/") if p], [p for p in source.split("/") if p], folder == source)
        if score == 0:
            continue
        if score > best_score:
            best, best_score = [], score
        if score == best_score:
            best.append((path, pl))
    if not best:
        return None
    votes = Counter(path for path, _ in best)
    chosen = min(votes, key=lambda p: (posixpath.dirname(p) not in folders, -votes[p], p))
    return chosen, min((pl for path, pl in best if path == chosen), key=lambda pl: pl.source)


_place = st.lists(st.sampled_from(["src", "lib", "acme", "utils", "tests", "spec", "a_tests", "b"]), max_size=3)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(_place, _place, st.sampled_from(["x", "y", "z"]),
                          st.sampled_from(["python:test_<stem>.py", "python:<stem>_test.py", "js:<stem>.test.ts"])),
                max_size=12),
       st.lists(_place, min_size=1, max_size=4), st.sampled_from(["x", "new"]))
def test_a_missing_test_follows_the_nearest_placements_as_weighing_each_finds(pairs, asked, stem):
    from delta.layout import Layouts, placement

    placements = []
    for impl_parts, test_parts, name, rule in pairs:
        ext = ".ts" if rule.startswith("js") else ".py"
        test_name = {"python:test_<stem>.py": f"test_{name}.py", "python:<stem>_test.py": f"{name}_test.py",
                     "js:<stem>.test.ts": f"{name}.test.ts"}[rule]
        made = placement("/".join([*impl_parts, name + ext]), "/".join([*test_parts, test_name]), rule, ext)
        if made is not None and made.source not in {p.source for p in placements}:
            placements.append(made)
    folders = frozenset("/".join(parts) for parts in asked[1:])
    layouts = Layouts(placements)
    for parts in asked:
        folder = "/".join(parts)
        for ext in (".py", ".ts"):
            assert layouts.suggest(folder, stem, ext, folders) == \
                _suggest_weighing_every_placement(placements, folder, stem, ext, folders)


def test_files_missing_a_test_find_their_layout_in_work_linear_in_the_tested_ones():
    """Each changed file missing a test weighed every tested implementation's placement: 1,000
    such files beside 10,000 tested ones (a repository of kilobytes: files may be empty) took
    38 s. The placements are kept by their folders and a file looks down its own path. Lines run
    at n and 2n tested implementations, for 200 files missing a test."""
    from delta import counterparts, layout

    letters = str.maketrans("0123456789", "abcdefghij")

    def work(n: int) -> int:
        head = []
        for i in range(n):
            s = f"{i:05d}".translate(letters)
            head += [f"src/{s}/m{s}.py", f"src/{s}/test_m{s}.py"]
        changed = [f"src/new/u{f'{i:05d}'.translate(letters)}.py" for i in range(200)]
        index = CounterpartIndex(head + changed, set(changed))
        index._placements(next(f for f in counterparts.FAMILIES if f.name == "python"))  # learned once, in n
        found, ran = counted(lambda: [index.counterparts(c) for c in changed], [layout.__file__])
        assert found[0] == [counterparts.Counterpart("src/new/test_uaaaaa.py", "test", False, False,
                                                     "python:layout of src/aaaaa/maaaaa.py -> src/aaaaa/test_maaaaa.py")]
        return ran

    small, large = work(500), work(1_000)
    assert large <= 1.3 * small, (small, large)


def test_a_pairing_that_is_not_each_others_closest_teaches_no_layout():
    # tests/backends/base/test_base.py is gis/db/backends/oracle/base.py's closest test, but its
    # own closest implementation is django/db/backends/base/base.py: the oracle backend's tests
    # are not shown to live in tests/backends/base/
    index = CounterpartIndex(["django/db/backends/base/base.py", "tests/backends/base/test_base.py",
                              "django/contrib/gis/db/backends/oracle/base.py",
                              "django/contrib/gis/db/backends/oracle/features.py"], changed_paths=set())
    assert _first(index, "django/contrib/gis/db/backends/oracle/base.py") == "tests/backends/base/test_base.py"
    [missing] = index.counterparts("django/contrib/gis/db/backends/oracle/features.py")
    assert "oracle/base.py" not in missing.rule and missing.path != "tests/backends/base/test_features.py"


def test_a_stem_three_implementations_carry_is_generic():
    # "3 or more implementations": three base.py in folders unrelated to the test's, none offered it
    bases = ["acme/core/base.py", "acme/util/base.py", "acme/misc/base.py"]
    index = CounterpartIndex(bases + ["tests/generic_views/test_base.py"], changed_paths=set())
    for path in bases:
        assert all(c.path != "tests/generic_views/test_base.py" for c in index.counterparts(path)), path
    two = CounterpartIndex(bases[:2] + ["tests/generic_views/test_base.py"], changed_paths=set())
    assert _first(two, "acme/core/base.py") == "tests/generic_views/test_base.py"


def test_a_typescript_declaration_file_has_no_test_convention():
    index = CounterpartIndex(["types/index.d.ts", "types/index.test.ts", "src/api.d.ts"], changed_paths=set())
    for path in ("types/index.d.ts", "src/api.d.ts"):
        mark = index.counterparts(path)
        assert isinstance(mark, Unknown) and mark.unknown == "not_applicable", path


def test_a_plural_in_ies_names_its_singular_folder():
    # tests/queries/ names a folder query/: related, so the test pairs though three compiler.py exist
    index = CounterpartIndex(["acme/query/compiler.py", "x/a/compiler.py", "y/b/compiler.py",
                              "tests/queries/test_compiler.py"], changed_paths=set())
    assert _first(index, "acme/query/compiler.py") == "tests/queries/test_compiler.py"
    assert _first(index, "tests/queries/test_compiler.py") == "acme/query/compiler.py"


def test_a_five_letter_folder_word_closing_a_longer_one_relates_them():
    # tests/modeladmin names django/contrib/admin: "admin" closes "modeladmin"
    index = CounterpartIndex(["django/contrib/admin/options.py", "x/a/options.py", "y/b/options.py",
                              "tests/modeladmin/test_options.py"], changed_paths=set())
    assert _first(index, "django/contrib/admin/options.py") == "tests/modeladmin/test_options.py"


def test_the_longest_extension_reads_a_file():
    # ".mts" and ".kts" are not ".ts": x.mts pairs with x.test.mts, a Kotlin script with its Test
    index = CounterpartIndex(["web/x.mts", "web/x.test.mts", "build/Deps.kts", "build/DepsTest.kts"], set())
    assert _first(index, "web/x.mts") == "web/x.test.mts"
    assert [(c.path, c.rule) for c in index.counterparts("build/Deps.kts")] == [
        ("build/DepsTest.kts", "jvm:<stem>Test.kts")]


def test_a_test_folder_inside_the_implementations_folder_relates_them():
    # src/sub/tests/ sits inside src/: related, so the test pairs though three helpers.py exist
    index = CounterpartIndex(["src/helpers.py", "a/helpers.py", "b/helpers.py", "src/sub/tests/test_helpers.py"],
                             changed_paths=set())
    assert _first(index, "src/helpers.py") == "src/sub/tests/test_helpers.py"


def test_the_mirrored_tail_is_the_folders_that_match_from_the_last():
    # tests/c/ mirrors src/a/b/c/; tests/a/b/q/ shares a and b, but not from the last folder
    index = CounterpartIndex(["src/a/b/c/foo.py", "tests/a/b/q/test_foo.py", "tests/c/test_foo.py"], set())
    assert _first(index, "src/a/b/c/foo.py") == "tests/c/test_foo.py"


def test_a_rust_file_holding_its_tests_and_named_by_many_lists_three_in_all():
    paths = ["src/parser.rs", "tests/parser.rs", "tests/a/parser.rs", "tests/b/parser.rs"]
    index = CounterpartIndex(paths, set(), read_head=lambda p: b"#[cfg(test)]\nmod tests {}\n" if p == paths[0] else b"")
    found = index.counterparts("src/parser.rs")
    assert [c.path for c in found] == ["src/parser.rs", "tests/parser.rs", "tests/a/parser.rs"]


def test_maven_reads_a_test_tree_as_the_main_tree_it_mirrors():
    # src/test/java mirrors src/main/java folder for folder: closer than a folder that only shares src/
    index = CounterpartIndex(["svc/src/main/java/App.java", "svc/src/test/java/AppTest.java",
                              "svc/src/java/AppTest.java"], set())
    assert _first(index, "svc/src/main/java/App.java") == "svc/src/test/java/AppTest.java"


def test_past_stem_candidates_the_nearest_on_either_side_are_ranked():
    # 201 test_utils.py: the one beside pkg/m/utils.py stands just before it in path order and by
    # folder tail, so each run around it must reach back as well as forward
    tests = [f"pkg/a{i:02d}/test_utils.py" for i in range(100)] + [f"pkg/z{i:02d}/test_utils.py" for i in range(100)]
    index = CounterpartIndex(tests + ["pkg/m/test_utils.py", "pkg/m/utils.py"], set())
    assert _first(index, "pkg/m/utils.py") == "pkg/m/test_utils.py"


def test_a_word_in_ss_is_no_plural():
    # tests/classes/ names class/ ("classes" less its s reads "classe", which "class" opens)
    index = CounterpartIndex(["acme/class/loader.py", "x/a/loader.py", "y/b/loader.py", "tests/classes/test_loader.py"],
                             set())
    assert _first(index, "acme/class/loader.py") == "tests/classes/test_loader.py"


def test_at_stem_candidates_every_file_of_the_stem_is_ranked():
    # 64 test_utils.py alike in every key but the path: all are ranked, so the least path is first
    tests = [f"q{i:02d}/a/b/test_utils.py" for i in range(64)]
    index = CounterpartIndex(tests + ["zzz/a/b/utils.py"], set())
    assert _first(index, "zzz/a/b/utils.py") == "q00/a/b/test_utils.py"


def test_a_four_letter_word_inside_a_longer_one_relates_nothing():
    # "base" closes "database" as a fragment, not as a name: tests/database/ is not about base/
    index = CounterpartIndex(["acme/base/conn.py", "x/a/conn.py", "y/b/conn.py", "tests/database/test_conn.py"],
                             set())
    assert all(c.path != "tests/database/test_conn.py" for c in index.counterparts("acme/base/conn.py"))


def test_only_the_outermost_test_folder_names_a_stem():
    # tests/backends/base/ holds the backends' base.py tests, not every base.py's
    index = CounterpartIndex(["acme/core/base.py", "x/a/base.py", "y/b/base.py", "django/db/backends/base/base.py",
                              "tests/backends/base/test_base.py"], set())
    assert all(c.path != "tests/backends/base/test_base.py" for c in index.counterparts("acme/core/base.py"))
    assert _first(index, "django/db/backends/base/base.py") == "tests/backends/base/test_base.py"


def test_a_unittest_folder_is_a_test_word_set_aside():
    # unittest/x/ names x as tests/x/ does, with no folder left over: closer than tests/y/x/
    index = CounterpartIndex(["acme/x/foo.py", "unittest/x/test_foo.py", "tests/y/x/test_foo.py"], set())
    assert _first(index, "acme/x/foo.py") == "unittest/x/test_foo.py"


def test_the_most_agreed_path_wins_and_names_its_least_neighbour():
    # two neighbours (one way mirroring one folder deep, one two) say tests/dispatch_tests/, one
    # says tests/dispatch/, and neither folder exists: the most agreed path, by its least source
    index = CounterpartIndex([
        "django/utils/text.py", "tests/utils_tests/test_text.py",
        "django/db/models/base.py", "tests/db_tests/models_tests/test_base.py",
        "django/middleware/security.py", "tests/middleware/test_security.py",
        "django/dispatch/dispatcher.py",
    ], set())
    [missing] = index.counterparts("django/dispatch/dispatcher.py")
    assert (missing.path, missing.rule) == (
        "tests/dispatch_tests/test_dispatcher.py",
        "python:layout of django/db/models/base.py -> tests/db_tests/models_tests/test_base.py")


def test_a_missing_test_keeps_its_own_extension_in_the_neighbours_name():
    index = CounterpartIndex(["web/a.ts", "web/a.test.ts", "web/b.tsx"], set())
    assert _first(index, "web/b.tsx") == "web/b.test.tsx"


def test_a_test_folder_holding_a_named_folder_is_one_folder_for_the_subtree():
    # src/__tests__/unit/ is not a test folder below each folder: src/sub/c.ts's test goes there too
    index = CounterpartIndex(["src/a.ts", "src/__tests__/unit/a.test.ts", "src/sub/c.ts"], set())
    assert _first(index, "src/sub/c.ts") == "src/__tests__/unit/c.test.ts"


def test_folders_sharing_only_their_container_are_unrelated():
    # packages/alpha/ and packages/beta/ share only packages/: a name many files carry does not pair them
    index = CounterpartIndex(["packages/alpha/x.py", "packages/beta/x.py", "packages/gamma/x.py",
                              "packages/beta/tests/test_x.py"], set())
    assert all(c.path != "packages/beta/tests/test_x.py" for c in index.counterparts("packages/alpha/x.py"))
    assert _first(index, "packages/beta/x.py") == "packages/beta/tests/test_x.py"


def test_a_test_beside_its_module_places_a_subfolders_test_beside_it_too():
    # django/test/ (a package, test support's home) names nothing: the layout is "beside" still
    index = CounterpartIndex(["django/test/client.py", "django/test/test_client.py", "django/test/sub/x.py"], set())
    assert _first(index, "django/test/sub/x.py") == "django/test/sub/test_x.py"


def test_neighbours_mirroring_to_other_depths_vote_apart():
    # two neighbours name one folder of a mirror (django/utils -> tests/utils_tests), one two
    # (django/db/models -> tests/db_tests/models_tests): for django/contrib/foo/ they say two paths
    index = CounterpartIndex([
        "django/utils/text.py", "tests/utils_tests/test_text.py",
        "django/template/base.py", "tests/template_tests/test_base.py",
        "django/db/models/base.py", "tests/db_tests/models_tests/test_base.py",
        "django/contrib/foo/bar.py",
    ], set())
    [missing] = index.counterparts("django/contrib/foo/bar.py")
    assert (missing.path, missing.rule) == (
        "tests/contrib_tests/test_bar.py",
        "python:layout of django/template/base.py -> tests/template_tests/test_base.py")


def test_a_folder_of_short_words_names_them_joined():
    # tests/db_api/ names dbapi/: "db" and "api" are too short to open or close a word alone
    index = CounterpartIndex(["acme/dbapi/conn.py", "x/a/conn.py", "y/b/conn.py", "tests/db_api/test_conn.py"], set())
    assert _first(index, "acme/dbapi/conn.py") == "tests/db_api/test_conn.py"


@pytest.mark.parametrize("folder", ["specs", "unittests"])
def test_a_module_in_a_plural_test_folder_is_support(folder):
    mark = CounterpartIndex([f"{folder}/fixtures.py"], set()).counterparts(f"{folder}/fixtures.py")
    assert isinstance(mark, Unknown) and mark.unknown == "not_applicable" and "test support" in mark.reason
