"""Java imports as fan-in, each tree indexed for real: the cases hand-made mutants of
indexer/lang/java/resolve.py got past, asserted as javac resolves them and
docs/languages.md says."""

from __future__ import annotations

from tests.indexed import import_graph


def test_a_class_spelling_is_its_deepest_file_not_a_kotlin_file_named_like_its_package(tmp_path):
    # util.kt holds top-level functions (class UtilKt to Java) beside the package com.acme.util:
    # com.acme.util.Helper is Helper.java, found before the shorter spelling com/acme/util
    graph = import_graph(tmp_path, {
        "src/main/java/com/acme/App.java": "package com.acme;\n\nimport com.acme.util.Helper;\n\n"
                                           "class App { Helper h; }\n",
        "src/main/java/com/acme/util/Helper.java": "package com.acme.util;\n\npublic class Helper {}\n",
        "src/main/java/com/acme/util.kt": "package com.acme\n\nfun twice(x: Int) = 2 * x\n",
    })
    assert graph.edges == {("src/main/java/com/acme/App.java", "src/main/java/com/acme/util/Helper.java")}
    assert graph.fan_in == {"src/main/java/com/acme/util/Helper.java": 1}


def test_a_static_import_on_demand_is_its_class(tmp_path):
    # `import static a.b.C.*;` names the members of the class C, whose file is a/b/C.java
    graph = import_graph(tmp_path, {
        "src/com/acme/App.java": "package com.acme;\n\nimport static com.acme.text.Strings.*;\n\n"
                                 "class App { String s = upper(\"x\"); }\n",
        "src/com/acme/text/Strings.java": "package com.acme.text;\n\npublic final class Strings {\n"
                                          "    public static String upper(String s) { return s; }\n}\n",
    })
    assert graph.edges == {("src/com/acme/App.java", "src/com/acme/text/Strings.java")}
    assert graph.fan_in == {"src/com/acme/text/Strings.java": 1}


def test_a_class_whose_package_clause_is_unread_is_found_by_its_path_at_the_root(tmp_path):
    # a UTF-16 source is not parsed (undecodable): no package clause is read, so its path,
    # rooted at the tree's root, is all that names it, and as deep as any spelling goes
    source = "package com.acme.gen;\n\npublic class Parser {}\n"
    graph = import_graph(tmp_path, {
        "com/acme/App.java": "package com.acme;\n\nimport com.acme.gen.Parser;\n\nclass App { Parser p; }\n",
        "com/acme/gen/Parser.java": b"\xff\xfe" + source.encode("utf-16-le"),
    })
    assert graph.edges == {("com/acme/App.java", "com/acme/gen/Parser.java")}
    assert graph.fan_in == {"com/acme/gen/Parser.java": 1}


def test_a_kotlin_file_named_like_a_package_is_no_class_of_it(tmp_path):
    # util.kt (class UtilKt to Java) beside the package com.acme.util: a class of that
    # package the tree does not hold (one generated at build time) is no import of util.kt
    graph = import_graph(tmp_path, {
        "src/main/java/com/acme/App.java": "package com.acme;\n\nimport com.acme.util.Generated;\n"
                                           "import com.acme.util.Helper;\n\nclass App { Helper h; Generated g; }\n",
        "src/main/java/com/acme/util/Helper.java": "package com.acme.util;\n\npublic class Helper {}\n",
        "src/main/java/com/acme/util.kt": "package com.acme\n\nfun twice(x: Int) = 2 * x\n",
    })
    assert graph.edges == {("src/main/java/com/acme/App.java", "src/main/java/com/acme/util/Helper.java")}
    assert graph.fan_in == {"src/main/java/com/acme/util/Helper.java": 1}
    assert graph.unresolved == {("src/main/java/com/acme/App.java", "com.acme.util.Generated", "external")}
