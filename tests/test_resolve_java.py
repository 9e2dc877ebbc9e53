"""Java import resolution: the tree before the platform prefixes, Kotlin classes."""

from __future__ import annotations

from indexer.model import BlobFacts, ImportSpec
from tests.test_resolve import pairs, run, statuses

APP = "src/main/java/com/acme/App.java"


def jimp(spec: str) -> ImportSpec:
    return ImportSpec(kind="java", spec=spec, line=1)


def test_platform_prefixed_package_of_the_tree_resolves():
    # JNA owns com.sun.jna; the JDK's own sources own java.*: the tree decides, not the prefix
    tree = {APP: "", "src/main/java/com/sun/jna/Native.java": "", "jdk/java/util/List.java": ""}
    edges, unresolved = run(tree, {APP: [jimp("com.sun.jna.Native"), jimp("java.util.List"),
                                         jimp("javax.swing.JFrame"), jimp("com.sun.jna.*")]})
    assert sorted(set(pairs(edges))) == [(APP, "jdk/java/util/List.java"), (APP, "src/main/java/com/sun/jna/Native.java")]
    assert statuses(unresolved) == [(APP, "javax.swing.JFrame", "external")]


def test_platform_package_by_package_clause():
    tree = {APP: "", "odd/Native.java": ""}
    extra = {"odd/Native.java": BlobFacts(language="java", lines=1, package_name="com.sun.jna")}
    edges, _ = run(tree, {APP: [jimp("com.sun.jna.Native")]}, extra)
    assert pairs(edges) == [(APP, "odd/Native.java")]


def test_kotlin_class_imported_from_java():
    tree = {
        APP: "",
        "src/main/java/com/x/MapBuffer.kt": "",
        "src/main/java/com/x/Both.kt": "",
        "src/main/java/com/x/Both.java": "",
    }
    edges, unresolved = run(tree, {APP: [jimp("com.x.MapBuffer"), jimp("com.x.Both"),
                                         jimp("static com.x.MapBuffer.Companion.of")]})
    assert unresolved == []
    assert sorted(set(pairs(edges))) == [(APP, "src/main/java/com/x/Both.java"), (APP, "src/main/java/com/x/MapBuffer.kt")]


def test_wildcard_import_takes_kotlin_files_of_the_package():
    tree = {APP: "", "lib/com/x/A.java": "", "lib/com/x/B.kt": "", "lib/com/x/notes.txt": ""}
    edges, _ = run(tree, {APP: [jimp("com.x.*")]})
    assert [e.target for e in edges] == ["lib/com/x/A.java", "lib/com/x/B.kt"]
