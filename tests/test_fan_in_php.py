"""PHP includes and `use` imports as fan-in, each tree indexed for real: the cases hand-made
mutants of indexer/lang/php/resolve.py got past, asserted as PHP and Composer find the files
and docs/languages.md says."""

from __future__ import annotations

import json

from indexer.lang.php import resolve as php_resolve
from indexer.resolve import imports as resolve_imports
from tests.indexed import import_graph


def composer(**sections: dict[str, str]) -> str:
    return json.dumps({section.replace("_", "-"): {"psr-4": psr4} for section, psr4 in sections.items()})


def test_an_include_from_dir_is_beside_the_file_before_the_root(tmp_path):
    # `__DIR__ . "/config.php"` is the including file's folder, whatever the root holds
    graph = import_graph(tmp_path, {
        "src/boot.php": '<?php\nrequire __DIR__ . "/config.php";\n',
        "src/config.php": "<?php\nreturn [];\n",
        "config.php": "<?php\nreturn [];\n",
    })
    assert graph.edges == {("src/boot.php", "src/config.php")}
    assert graph.fan_in == {"src/config.php": 1}


def test_each_app_of_a_tree_imports_its_own_copy_of_a_class(tmp_path):
    # two apps declare App\Kernel (no composer.json maps them): each `use` takes the
    # declaring file nearest the importer
    graph = import_graph(tmp_path, {
        f"apps/{app}/{path}": text
        for app in ("api", "web")
        for path, text in {
            "src/Kernel.php": "<?php\nnamespace App;\n\nclass Kernel {}\n",
            "public/index.php": "<?php\nuse App\\Kernel;\n\n$k = new Kernel();\n",
        }.items()
    })
    assert graph.edges == {("apps/api/public/index.php", "apps/api/src/Kernel.php"),
                           ("apps/web/public/index.php", "apps/web/src/Kernel.php")}
    assert graph.fan_in == {"apps/api/src/Kernel.php": 1, "apps/web/src/Kernel.php": 1}


def test_use_function_is_never_autoloaded_by_psr4(tmp_path):
    # PSR-4 maps classes; the function App\Http\response lives where it is declared, not in
    # the file PSR-4 would give a class of that name (PHP keeps functions and classes apart)
    graph = import_graph(tmp_path, {
        "composer.json": composer(autoload={"App\\": "src/"}),
        "src/Http/response.php": "<?php\nnamespace App\\Http;\n\nclass response {}\n",
        "src/helpers.php": "<?php\nnamespace App\\Http;\n\nfunction response() { return 1; }\n",
        "src/Controller.php": "<?php\nnamespace App;\n\nuse function App\\Http\\response;\n\n$r = response();\n",
    })
    assert graph.edges == {("src/Controller.php", "src/helpers.php")}
    assert graph.fan_in == {"src/helpers.php": 1}


def test_use_function_imports_no_namespace(tmp_path):
    # `use function App\Text\pad;` names a function (here one outside the tree), never the
    # namespace App\Text\Pad, whose Left.php the file uses from its own namespace
    graph = import_graph(tmp_path, {
        "src/Text/Pad/Left.php": "<?php\nnamespace App\\Text\\Pad;\n\nclass Left {}\n",
        "src/Text/Pad/Use.php": "<?php\nnamespace App\\Text\\Pad;\n\nuse function App\\Text\\pad;\n\n"
                                "$l = new Left();\n$p = pad();\n",
    })
    assert graph.edges == set()
    assert graph.unresolved == {("src/Text/Pad/Use.php", "App\\Text\\pad", "external")}


def test_a_namespace_import_reaches_no_file_by_a_class_constant_it_declares(tmp_path):
    # `use App\Models;` then `Models\User::ACTIVE`: Post.php declares a class constant ACTIVE
    # too, no name of the namespace, so the import reaches User.php alone
    graph = import_graph(tmp_path, {
        "src/Models/User.php": "<?php\nnamespace App\\Models;\n\nclass User { const ACTIVE = 1; }\n",
        "src/Models/Post.php": "<?php\nnamespace App\\Models;\n\nclass Post { const ACTIVE = 2; }\n",
        "src/Report.php": "<?php\nnamespace App;\n\nuse App\\Models;\n\n$a = Models\\User::ACTIVE;\n",
    })
    assert graph.edges == {("src/Report.php", "src/Models/User.php")}
    assert graph.fan_in == {"src/Models/User.php": 1}


def test_autoload_dev_maps_the_test_classes(tmp_path):
    # tests/ is mapped by autoload-dev alone: its Factory is the PSR-4 file, not the stray
    # copy declared beside the importer, and a class missing under Tests\ is the tree's own,
    # unresolved
    graph = import_graph(tmp_path, {
        "composer.json": composer(autoload={"App\\": "src/"}, autoload_dev={"Tests\\": "tests/"}),
        "tests/Support/Factory.php": "<?php\nnamespace Tests\\Support;\n\nclass Factory {}\n",
        "tests/Feature/Factory.php": "<?php\nnamespace Tests\\Support;\n\nclass Factory {}\n",
        "tests/Feature/UserTest.php": "<?php\nnamespace Tests\\Feature;\n\nuse Tests\\Support\\Factory;\n"
                                      "use Tests\\Support\\Gone;\n\n$f = new Factory();\n",
    })
    assert graph.edges == {("tests/Feature/UserTest.php", "tests/Support/Factory.php")}
    assert graph.unresolved == {("tests/Feature/UserTest.php", "Tests\\Support\\Gone", "unresolved")}


def test_an_include_of_a_template_is_a_path_not_a_name(tmp_path):
    # `include "templates/header.phtml"` names a file, though it does not end in .php
    graph = import_graph(tmp_path, {
        "index.php": '<?php\ninclude "templates/header.phtml";\n',
        "templates/header.phtml": "<header><?= $title ?></header>\n",
    })
    assert graph.edges == {("index.php", "templates/header.phtml")}
    assert graph.fan_in == {"templates/header.phtml": 1}


def test_a_class_declared_in_an_inc_file_is_imported_there(tmp_path):
    # a PHP .inc file (here named PHP by its mode line) is one Composer's classmap scans too
    graph = import_graph(tmp_path, {
        "lib/Legacy.inc": "<?php // -*- mode: php -*-\nnamespace App;\n\nclass Legacy {}\n",
        "src/Job.php": "<?php\nnamespace App\\Jobs;\n\nuse App\\Legacy;\n\n$l = new Legacy();\n",
    })
    assert graph.edges == {("src/Job.php", "lib/Legacy.inc")}
    assert graph.fan_in == {"lib/Legacy.inc": 1}


def test_a_namespace_import_from_inside_the_namespace_says_when_it_lost_files(tmp_path, monkeypatch):
    # with the cap at two, All.php (first in path order) reaching B, C and D of its own
    # namespace keeps B and C and is marked: the importer itself takes no place
    for module in (php_resolve, resolve_imports):
        monkeypatch.setattr(module, "TARGETS_CAP", 2)
    graph = import_graph(tmp_path, {
        **{f"src/Models/{c}.php": f"<?php\nnamespace App\\Models;\n\nclass {c} {{}}\n" for c in "BCD"},
        "src/Models/All.php": "<?php\nnamespace App\\Models;\n\nuse App\\Models;\n\nclass All {\n"
                              "    function each() { return [new Models\\B, new Models\\C, new Models\\D, new All]; }\n}\n",
    })
    assert graph.edges == {("src/Models/All.php", "src/Models/B.php"), ("src/Models/All.php", "src/Models/C.php")}
    assert graph.unresolved == {("src/Models/All.php", "App\\Models", "targets_capped")}


def test_an_include_from_dirname_file_levels_up(tmp_path):
    # dirname(__FILE__, 2) of app/src/boot.php is app/: its vendor/autoload.php, not the root's
    graph = import_graph(tmp_path, {
        "app/src/boot.php": '<?php\nrequire dirname(__FILE__, 2) . "/vendor/autoload.php";\n',
        "app/vendor/autoload.php": "<?php\n",
        "vendor/autoload.php": "<?php\n",
    })
    assert graph.edges == {("app/src/boot.php", "app/vendor/autoload.php")}
    assert graph.fan_in == {"app/vendor/autoload.php": 1}
