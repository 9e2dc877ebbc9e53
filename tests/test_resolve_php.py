"""PHP `use` resolution: composer.json PSR-4 maps, then the namespace and name a file
declares; never a file whose path merely ends like the name. The cases of one import each are
annotated trees, tests/fixtures/resolve/php_*.txt."""

from __future__ import annotations

import msgspec

from corpora.gitbuild import make_repo
from indexer.api import open_store
from indexer.build import index
from indexer.extract.blob import extract_blob
from indexer.resolve import imports as resolve_module
from indexer.store.records import load_record
from tests.annotated import FIXTURES, load
from tests.test_resolve import entry, resolve_extracted, spy_to_resolve  # noqa: F401 - a fixture

# The PSR-4 and declaration cases, each import with its outcome beside it; the index tests
# below index the same tree.
TREE = load(FIXTURES / "resolve" / "php_psr4_and_declarations.txt").files


def resolve_tree(tree: dict[str, str]):
    """Every file extracted for real, then resolved: edges and unresolved imports as sets."""
    edges, unresolved = resolve_extracted(tree)
    return ({(e.source, e.spec, e.target) for e in edges},
            {(u.path, u.spec, u.status) for u in unresolved})


def test_bad_composer_json_degrades_to_declarations():
    base = {
        "src/Post.php": "<?php\nnamespace Acme\\Blog;\n\nclass Post {}\n",
        "a.php": "<?php\nuse Acme\\Blog\\Post;\n",
    }
    for composer in ['{"autoload": {"psr-4": ', '[1, 2]', '{"autoload": "src"}', '{"autoload": {"psr-4": ["src/"]}}',
                     '{"autoload": {"psr-4": {"Acme\\\\Blog\\\\": 7}}}', '{"autoload": {"psr-4": {"Acme\\\\": [null, "../x"]}}}',
                     '\xff\xfe']:
        edges, unresolved = resolve_tree({**base, "composer.json": composer})
        assert edges == {("a.php", "Acme\\Blog\\Post", "src/Post.php")}, composer
        assert unresolved == set()


def test_extractor_records_use_function_and_const():
    facts = extract_blob(b"<?php\nuse function A\\f;\nuse const A\\K;\nuse A\\{B, function g, const L};\n"
                         b"use function A\\{h};\n", "x.php", "php")
    # the kind says what is imported; `names` hold nothing (the spec is the whole name), not
    # the kind's keyword as if it were a name
    assert [(i.kind, i.spec, i.names) for i in facts.imports] == [
        ("php_use_function", "A\\f", ()), ("php_use_const", "A\\K", ()),
        ("php_use", "A\\B", ()), ("php_use_const", "A\\L", ()), ("php_use_function", "A\\g", ()),
        ("php_use_function", "A\\h", ())]
    facts = extract_blob(b"<?php\nuse function a\\f, a\\g;\nuse const a\\X, a\\Y;\n", "y.php", "php")
    assert [(i.kind, i.spec, i.names) for i in facts.imports] == [
        ("php_use_function", "a\\f", ()), ("php_use_function", "a\\g", ()),
        ("php_use_const", "a\\X", ()), ("php_use_const", "a\\Y", ())]


def _index_all(tmp_path, commits, name):
    oids = make_repo(tmp_path / "repo", commits)
    store = open_store(tmp_path / name)
    try:
        for oid in oids:  # each commit after the first starts from its parent's snapshot
            index(str(tmp_path / "repo"), oid, store=store, workers=1)
        return oids, [load_record(store, oid) for oid in oids]
    finally:
        store.close()


def _targets(record, source: str) -> set[tuple[str, str]]:
    return {(e.spec, e.target) for e in record.edges if e.source == source}


def test_end_to_end_index(tmp_path):
    _, [record] = _index_all(tmp_path, [TREE], "store")
    assert _targets(record, "src/Post.php") == {
        ("Acme\\Blog\\Model\\Author", "src/Model/Author.php"), ("Acme\\Blog\\Model\\Tag", "src/Model/Tag.php"),
        ("Acme\\Blog\\slugify", "src/functions.php"), ("Acme\\Blog\\LIMIT", "src/functions.php")}
    statuses = {(u.path, u.spec): u.status for u in record.unresolved}
    assert statuses[("lib/app.php", "Symfony\\Component\\DependencyInjection\\Exception\\InvalidArgumentException")] \
        == "external"


STEPS = [
    ("body edit", {"src/Model/Author.php": "<?php\nnamespace Acme\\Blog\\Model;\n\nclass Author { public $n; }\n"}),
    ("psr-4 changed", {"composer.json": '{"autoload": {"psr-4": {"Other\\\\": "src/"}}}\n'}),
    ("namespace changed", {"lib/Legacy/Things.php": "<?php\nnamespace Legacy\\Moved {\n  class Box {}\n}\n"}),
]


def test_reindex_follows_composer_and_declarations(tmp_path, spy_to_resolve):
    oids, warm = _index_all(tmp_path, [TREE] + [change for _, change in STEPS], "warm")
    redone = dict(zip([name for name, _ in STEPS], spy_to_resolve))
    assert redone["body edit"] == {"src/Model/Author.php"}  # declarations unchanged: no one else
    assert "src/Post.php" in redone["psr-4 changed"] and "lib/app.php" in redone["namespace changed"]
    for i, oid in enumerate(oids):
        store = open_store(tmp_path / f"cold{i}")
        try:
            index(str(tmp_path / "repo"), oid, store=store, workers=1)
            cold = load_record(store, oid)
        finally:
            store.close()
        assert warm[i].edges == cold.edges and warm[i].unresolved == cold.unresolved
        assert warm[i].fingerprint == cold.fingerprint
    # the steps did change other files' resolution: the comparison above was not vacuous
    missing = [{u.status for u in r.unresolved if u.spec == "Acme\\Blog\\Missing"} for r in warm]
    assert missing[1] == {"unresolved"} and missing[2] == {"external"}  # no longer the tree's own prefix
    box = ("Legacy\\Util\\Box", "lib/Legacy/Things.php")
    assert box in _targets(warm[2], "lib/app.php") and box not in _targets(warm[3], "lib/app.php")


def test_prior_facts_missing_marks_php_dirty():
    """Without the earlier facts of a changed PHP file nothing proves its declarations held."""
    files = [entry("a.php"), entry("b.php")]
    facts = {p: extract_blob(b"<?php\nuse X\\Y;\n", p, "php") for p in ("a.php", "b.php")}
    before = [files[0], msgspec.structs.replace(files[1], blob="1" * 40)]
    prior = resolve_module.Prior(before, [], [], lambda p: None)
    assert resolve_module.to_resolve(files, facts, resolve_module.tree_of(files), prior) == {"a.php", "b.php"}


def test_names_match_in_any_case_but_a_constants_own():
    """PHP matches namespaces, classes and functions in any case: `use acme\\blog\\model\\AUTHOR;`
    is Author's file and `use function ACME\\BLOG\\Slugify;` slugify's; `acme\\blog\\Gone` is the
    tree's own (missing), not an external package's; `use const acme\\blog\\limit;` is no LIMIT."""
    edges, unresolved = resolve_tree({**TREE, "src/Lower.php": (
        "<?php\nuse acme\\blog\\model\\AUTHOR;\nuse function ACME\\BLOG\\Slugify;\nuse acme\\blog\\Gone;\n"
        "use const acme\\blog\\limit;\nuse const ACME\\BLOG\\LIMIT;\n")})
    assert {e for e in edges if e[0] == "src/Lower.php"} == {
        ("src/Lower.php", "acme\\blog\\model\\AUTHOR", "src/Model/Author.php"),
        ("src/Lower.php", "ACME\\BLOG\\Slugify", "src/functions.php"),
        ("src/Lower.php", "ACME\\BLOG\\LIMIT", "src/functions.php")}
    assert {u for u in unresolved if u[0] == "src/Lower.php"} == {
        ("src/Lower.php", "acme\\blog\\Gone", "unresolved"), ("src/Lower.php", "acme\\blog\\limit", "unresolved")}
