"""Test and implementation counterparts across ecosystems: found at head, flagged when
they changed too, and named at their conventional place when they do not exist."""

from __future__ import annotations

import pytest

from context_tools.result import Unknown
from corpora.gitbuild import RepoBuilder
from delta.counterparts import CounterpartIndex
from delta.packet import build_delta_packet

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
    [ops] = files["calc/ops.py"].counterparts
    assert (ops.path, ops.exists_at_head, ops.changed) == ("tests/test_ops.py", True, False)
    [util] = files["calc/util.go"].counterparts
    assert (util.path, util.exists_at_head, util.changed) == ("calc/util_test.go", False, True)  # deleted here


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
