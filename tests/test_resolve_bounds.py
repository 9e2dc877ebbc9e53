"""Import resolution over trees drawn to make it costly: many roots, include directories,
packages or names. Each resolver's work stays proportional to what the tree holds and what
its imports reach, counted in lines run (no machine's speed changes that), and its answers
are those a plain scan of the tree gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.lang.python import resolve as python_resolve
from indexer.lang.python.stdlib import STDLIB_MODULES
from indexer.model import BlobFacts, ImportSpec
from indexer.resolve.tree import EXTERNAL, TreePaths, join, parent
from tests.examples import examples
from tests.lines_run import module_lines


def _python_roots(n: int) -> tuple[TreePaths, list[ImportSpec]]:
    """n roots each holding a package, and a script importing n names none of them holds
    and the n packages."""
    paths = [f"r{i}/pkg{i}/__init__.py" for i in range(n)] + ["main.py"]
    imports = [ImportSpec("python", f"name{i}", i + 1) for i in range(n)]
    imports += [ImportSpec("python", f"pkg{i}", n + i + 1) for i in range(n)]
    return TreePaths(paths), imports


def test_many_python_roots_and_names_cost_work_linear_in_them():
    """Which roots hold a top-level name was asked of every root for each name imported (n
    roots and n names: 16 s at 2,000, 66 s at 4,000); now only of the roots holding a file
    or folder of that name."""

    def run(n: int) -> int:
        tree, imports = _python_roots(n)
        resolver = python_resolve.PythonResolver(tree)
        outcomes, lines = module_lines(python_resolve.__file__,
                                    lambda: [resolver.resolve("main.py", imp) for imp in imports])
        assert outcomes == [EXTERNAL] * n + [(f"r{i}/pkg{i}/__init__.py",) for i in range(n)]
        return lines

    assert run(400) <= 2.2 * run(200)


SEGMENTS = ["a", "b", "io", "c"]
ENTRIES = st.lists(st.tuples(st.lists(st.sampled_from(SEGMENTS), max_size=3),
                             st.sampled_from(["x.py", "x.pyi", "__init__.py", "__init__.pyi", "a.py", "io.py",
                                              "b/README", "c.txt"])), max_size=12)


@settings(max_examples=examples(200), deadline=None)
@given(ENTRIES, st.lists(st.sampled_from([*SEGMENTS, "x", "a/b", ".", ".."]), max_size=6))
def test_the_roots_holding_a_name_are_those_a_scan_of_every_root_finds(entries, names):
    tree = TreePaths({join(*folders, name) for folders, name in entries})
    modules = python_resolve.PythonModules(tree)
    for name in names:
        scanned = [root for root in modules.roots
                   if modules.module_file(root, [name])
                   or (name not in STDLIB_MODULES and tree.is_dir(join(root, name)))]
        assert modules.roots_for(name) == scanned


def _includes(n: int) -> tuple[TreePaths, list[ImportSpec]]:
    """n include folders each holding its header and `x.h`, and a file including n headers
    none of them holds, then `x.h` under n spellings, and n files including `x.h`."""
    paths = [f"d{i}/include/h{i}.h" for i in range(n)] + [f"d{i}/include/x.h" for i in range(n)]
    paths += [f"d{i}/include/q/x.h" for i in range(n)] + ["main.c"]
    imports = [ImportSpec("c_system_include", f"<z{i}.h>", i + 1) for i in range(n)]
    imports += [ImportSpec("c_system_include", f"<q{i}/x.h>", n + i + 1) for i in range(n)]
    return TreePaths(paths), imports


def test_many_include_folders_and_includes_cost_work_linear_in_them():
    """Each include was tried under every include folder, and a header many folders hold was
    weighed against each of them for each file including it (n folders and n includes: 4 s
    at 2,000, 16 s at 4,000). Now the files an include names are found once a spelling, from
    the files of its name, and the nearest of them by a search in path order."""
    from indexer.lang.c import resolve as c_resolve
    from indexer.resolve import tree as tree_module

    def run(n: int) -> int:
        tree, imports = _includes(n)
        resolver = c_resolve.CResolver(tree)
        others = [(f"d{i}/include/h{i}.h", ImportSpec("c_system_include", "<x.h>", 1)) for i in range(n)]

        def resolve() -> list[object]:
            return ([resolver.resolve("main.c", imp) for imp in imports]
                    + [resolver.resolve(path, imp) for path, imp in others])

        outcomes, lines = module_lines((c_resolve.__file__, tree_module.__file__), resolve)
        assert outcomes == [EXTERNAL] * 2 * n + [(f"d{i}/include/x.h",) for i in range(n)]
        return lines

    assert run(400) <= 2.2 * run(200)


PATHS = st.lists(st.lists(st.sampled_from(["a", "b", "include", "x.h", "y.h"]), min_size=1, max_size=4)
                 .map("/".join), max_size=50)


@settings(max_examples=examples(200), deadline=None)
@given(PATHS, st.lists(st.sampled_from(["x.h", "y.h", "a/x.h", "include/x.h", "b/a/y.h", "/x.h", "a/"]),
                       max_size=4), st.sampled_from(["a/b/c.c", "include/m.c", "m.c", "b/include/a/q.c"]))
def test_what_ends_in_a_spelling_and_the_nearest_are_those_a_scan_finds(paths, suffixes, importer):
    """Files of one name are searched by their reversed paths past a few, and the nearest of
    candidates in path order by a search a folder of the importer: the same answers as a scan."""
    from indexer.resolve import tree as tree_module
    from indexer.resolve.tree import nearest, nearest_sorted

    tree = TreePaths(paths)
    for suffix in suffixes:
        scanned = [p for p in sorted(set(paths)) if p == suffix or p.endswith("/" + suffix)]
        assert tree.ending_with(suffix) == scanned
        original = tree_module._SCANNED
        tree_module._SCANNED = 0  # every name searched
        try:
            assert TreePaths(paths).ending_with(suffix) == scanned
        finally:
            tree_module._SCANNED = original
        for skip in (None, importer, *scanned[:1]):
            left = [p for p in scanned if p != skip]
            assert nearest_sorted(importer, scanned, skip) == (nearest(importer, left) if left else None)


def test_many_java_packages_folders_and_spellings_cost_work_linear_in_them():
    """A wildcard import looked for its package's folders among every source folder (n
    folders and n packages: 1.2 s at 2,000, 4.7 s at 4,000), a class of a declared package
    among every file of it, the nearest of a class many roots hold was weighed against each,
    and a spelling of many segments tried every prefix. Now the folders ending in a
    package's path are searched for, the files of a package by name, the nearest in path
    order, and no spelling longer than a path or declared package can be."""
    from indexer.lang.java import resolve as java_resolve
    from indexer.resolve import tree as tree_module

    def run(n: int) -> int:
        paths = [f"d{i}/x/A{i}.java" for i in range(n)] + [f"r{i}/a/b/C.java" for i in range(n)] + ["Main.java"]
        tree = TreePaths(paths)
        facts = {p: BlobFacts(language="java", lines=1, package_name="x") for p in paths if "/x/" in p}
        resolver = java_resolve.JavaResolver(tree, facts)
        imports = [ImportSpec("java", f"p{i}.q.*", i + 1) for i in range(n)]
        imports += [ImportSpec("java", f"x.Missing{i}", i + 1) for i in range(n)]
        imports += [ImportSpec("java", "a" + ".a" * n, 1)]
        importers = [("Main.java", imp) for imp in imports]
        importers += [(f"r{i}/a/Use.java", ImportSpec("java", "a.b.C", 1)) for i in range(n)]
        outcomes, lines = module_lines((java_resolve.__file__, tree_module.__file__),
                                    lambda: [resolver.resolve(path, imp) for path, imp in importers])
        assert outcomes == [EXTERNAL] * (2 * n + 1) + [(f"r{i}/a/b/C.java",) for i in range(n)]
        return lines

    assert run(400) <= 2.2 * run(200)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.lists(st.sampled_from(["a", "b", "x"]), max_size=3),
                          st.sampled_from(["C.java", "D.java", "E.kt", "b.kt"]),
                          st.sampled_from(["", "a", "a.b", "x.a.b.c"])), max_size=12),
       st.lists(st.sampled_from(["a.b.C", "a.C", "b.*", "a.b.*", "C", "x.a.b.c.D", "a.b.C.Inner", "a.*", "*"]),
                max_size=5),
       st.sampled_from(["Main.java", "a/b/Z.java", "x/a/Q.java"]))
def test_java_imports_resolve_as_a_scan_of_the_tree_finds(files, specs, importer):
    """Package folders found by a search of reversed paths, a package's files by name, the
    nearest in path order and the longest spelling bounded: the answers a scan gives."""
    from indexer.lang.java import resolve as java_resolve
    from indexer.resolve.tree import nearest

    paths = {join(*folders, name): package for folders, name, package in files}
    tree = TreePaths(paths)
    facts = {p: BlobFacts(language="java", lines=1, package_name=pkg) for p, pkg in paths.items() if pkg}
    resolver = java_resolve.JavaResolver(tree, facts)

    def package(segments: list[str]) -> set[str]:
        pkg_path = "/".join(segments)
        found = {p for p in tree.paths if p.endswith((".java", ".kt"))
                 and (p.rpartition("/")[0] == pkg_path or p.rpartition("/")[0].endswith("/" + pkg_path))}
        return found | {p for p, pkg in paths.items() if pkg and pkg == ".".join(segments) and p.endswith(".java")}

    def scanned(spec: str) -> object:
        segments = [s for s in spec.split(".") if s]
        if not segments:
            return EXTERNAL
        if segments[-1] == "*":
            found = package(segments[:-1])
            if found:
                return tuple(sorted(found))
            segments = segments[:-1]
        for k in range(len(segments), 1, -1):
            suffix = "/".join(segments[:k])
            hits = [p for p in sorted(tree.paths) if p == suffix + ".java" or p.endswith("/" + suffix + ".java")]
            hits = hits or [p for p in sorted(paths) if p.endswith(".java") and paths[p] == ".".join(segments[:k - 1])
                            and p.rsplit("/", 1)[-1] == segments[k - 1] + ".java"]
            # a Kotlin file by its path, unless the spelling is a package of the tree
            hits = hits or ([] if package(segments[:k]) else
                            [p for p in sorted(tree.paths) if p == suffix + ".kt" or p.endswith("/" + suffix + ".kt")])
            if hits:
                return (nearest(importer, hits),)
        return EXTERNAL

    for spec in specs:
        assert resolver.resolve(importer, ImportSpec("java", spec, 1)) == scanned(spec)


def _go_workspace(n: int) -> tuple[dict[str, bytes], list[tuple[str, ImportSpec]]]:
    """A go.work using n modules and replacing n module paths; each module importing a path
    none replaces and one the go.work replaces."""
    files = {"go.work": ("go 1.21\nuse (\n" + "".join(f"\t./m{i}\n" for i in range(n)) + ")\n"
                         + "".join(f"replace ex.com/r{i} => ./m{i}\n" for i in range(n))).encode()}
    for i in range(n):
        files[f"m{i}/go.mod"] = f"module ex.com/m{i}\n\nreplace ex.com/own{i} => ./own\n".encode()
        files[f"m{i}/a.go"] = b"package a\n"
    imports = [(f"m{i}/a.go", ImportSpec("go", f"other.com/x{i}", 1)) for i in range(n)]
    imports += [(f"m{i}/a.go", ImportSpec("go", f"ex.com/r{(i + 1) % n}", 1)) for i in range(n)]
    return files, imports


def test_a_go_workspace_of_many_modules_and_replacements_costs_memory_linear_in_them():
    """Each module's replacements were merged with its go.work's into a table of its own (n
    modules and n replacements: 26 MB traced at 1,000, 104 MB at 2,000). Now the two tables
    are asked as they are."""
    import tracemalloc

    from indexer.lang.go import resolve as go_resolve

    def run(n: int) -> tuple[int, int]:
        files, imports = _go_workspace(n)
        resolver = go_resolve.GoResolver(TreePaths(files), {}, files.__getitem__)
        tracemalloc.start()
        try:
            outcomes, lines = module_lines(go_resolve.__file__, lambda: [resolver.resolve(p, imp) for p, imp in imports])
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert outcomes == [EXTERNAL] * n + [(f"m{(i + 1) % n}/a.go",) for i in range(n)]
        return lines, peak

    (small_lines, small_peak), (large_lines, large_peak) = run(300), run(600)
    assert large_lines <= 2.2 * small_lines
    assert large_peak <= 2.5 * small_peak


def test_an_import_path_of_many_segments_is_not_copied_out_a_segment_at_a_time(monkeypatch):
    """Every prefix of an import path was copied out to be looked up among module paths (20
    paths of 20,000 segments: 6 s); now only prefixes as long as a module path or
    replacement is."""
    from indexer.lang.go import resolve as go_resolve

    files = {"go.mod": b"module ex.com/m\n\nreplace x.com/s0 => ./v\n", "a.go": b"package a\n",
             "v/b.go": b"package b\n"}
    resolver = go_resolve.GoResolver(TreePaths(files), {}, files.__getitem__)
    made = []
    original = go_resolve.prefixes

    def counted(spec, *lengths):
        for prefix in original(spec, *lengths):
            made.append(len(prefix))
            yield prefix

    monkeypatch.setattr(go_resolve, "prefixes", counted)
    deep = "x.com/" + "s0/" * 5_000 + "end"
    assert resolver.resolve("a.go", ImportSpec("go", deep, 1)) == "unresolved"  # under the replacement
    assert resolver.resolve("a.go", ImportSpec("go", "y.com/" + "s/" * 5_000, 1)) == EXTERNAL
    assert sum(made) <= 100  # characters copied out: was about 37 million
    assert resolver.resolve("a.go", ImportSpec("go", "x.com/s0", 1)) == ("v/b.go",)


@settings(max_examples=examples(200), deadline=None)
@given(st.dictionaries(st.sampled_from(["a.com/x", "a.com/x/y", "a.com", "b.com/z"]), st.sampled_from(["", "d"]),
                       max_size=3),
       st.dictionaries(st.sampled_from(["a.com/x", "a.com/x/y", "b.com", "b.com/z/w"]), st.sampled_from(["", "e"]),
                       max_size=3),
       st.sampled_from(["a.com/x/y/z", "a.com/x", "b.com/z/w/v", "c.com/q", "a.com"]))
def test_a_replacement_is_what_the_merged_tables_give(mine, theirs, spec):
    """A module's replacements and its workspace's, asked in turn: the longest prefix either
    replaces, the workspace's winning, as one table merged from both gives."""
    from indexer.lang.go import resolve as go_resolve
    from indexer.lang.go.resolve import Module, Workspace

    resolver = go_resolve.GoResolver(TreePaths([]), {}, lambda p: b"")
    resolver.roots["m"] = Module("ex.com/m", mine)
    resolver.workspace_memo["m"] = Workspace("", frozenset({"m"}), theirs) if theirs else None
    merged = {**mine, **theirs}
    longest = next((m for m in go_resolve.prefixes(spec) if m in merged), None)
    assert resolver.replaced("m", spec) == (None if longest is None else (longest, merged[longest]))


def test_many_tsconfig_path_patterns_and_imports_cost_work_linear_in_them():
    """Each bare import was matched against every `paths` pattern of its tsconfig (n patterns
    and n imports: 2.1 s at 2,000, 7.0 s at 4,000); now the patterns are kept by what comes
    before their `*`, and an import asks the parts of its own length."""
    import json

    from indexer.lang.javascript import resolve as js_resolve

    def run(n: int) -> int:
        config = {"compilerOptions": {"baseUrl": ".", "paths": {f"@a{i}/*": [f"src/a{i}/*"] for i in range(n)}}}
        files = {"tsconfig.json": json.dumps(config).encode(), "src/m.ts": b"", "src/a7/x.ts": b""}
        resolver = js_resolve.JsResolver(TreePaths(files), files.__getitem__)
        imports = [ImportSpec("es_import", f"lib{i}/x", 1) for i in range(n)] + [ImportSpec("es_import", "@a7/x", 1)]
        outcomes, lines = module_lines(js_resolve.__file__, lambda: [resolver.resolve("src/m.ts", imp) for imp in imports])
        assert outcomes == [EXTERNAL] * n + [("src/a7/x.ts",)]
        return lines

    assert run(400) <= 2.2 * run(200)


def _matched_by_scan(paths: dict[str, list[str]], spec: str) -> tuple[str, str] | None:
    """TypeScript's reading, a pattern at a time: the exact pattern, else the wildcard one with
    the longest part before its `*` (the first of those), and what the `*` stands for."""
    best: tuple[int, str, str] | None = None
    for pattern in paths:
        if "*" in pattern:
            pre, _, post = pattern.partition("*")
            if spec.startswith(pre) and spec.endswith(post) and len(spec) >= len(pre) + len(post):
                if best is None or len(pre) > best[0]:
                    best = (len(pre), pattern, spec[len(pre) : len(spec) - len(post)])
        elif pattern == spec:
            return pattern, ""
    return None if best is None else (best[1], best[2])


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.text("ab*/", max_size=5), max_size=8, unique=True), st.lists(st.text("ab*/", max_size=6), max_size=6))
def test_a_specifier_takes_the_pattern_a_scan_of_the_patterns_gives(patterns, specs):
    from indexer.lang.javascript.resolve import TsConfig
    from indexer.resolve.tree import normalize

    paths = {p: [f"t{i}/*"] for i, p in enumerate(patterns)}
    config = TsConfig(None, paths, "")
    for spec in specs:
        found = _matched_by_scan(paths, spec)
        expected = None if found is None else [
            t for t in (normalize(target.replace("*", found[1], 1)) for target in paths[found[0]]) if t is not None]
        assert config.path_candidates(spec) == expected


def _bins_crate(n: int) -> dict[str, bytes]:
    """A Cargo.toml placing n binaries, each in its folder under bins/, and n modules under
    a binary's folder."""
    manifest = '[package]\nname = "p"\nversion = "0.1.0"\n' + "".join(
        f'[[bin]]\nname = "b{i}"\npath = "bins/b{i}/main.rs"\n' for i in range(n))
    files = {"Cargo.toml": manifest.encode(), "src/lib.rs": b""}
    files.update({f"bins/b{i}/main.rs": b"" for i in range(n)})
    files.update({f"bins/b0/m{i}.rs": b"" for i in range(n)})
    return files


def test_a_crate_of_many_binaries_finds_each_files_root_from_the_folders_above_it():
    """A file's `[[bin]]` root was looked for among every binary its manifest lists (n
    binaries and n files: n^2 path comparisons); now among those of the folders above it."""
    from indexer.lang.rust import resolve as rust_resolve

    def run(n: int) -> int:
        files = _bins_crate(n)
        resolver = rust_resolve.RustResolver(TreePaths(files), {}, files.__getitem__)
        paths = sorted(p for p in files if p.endswith(".rs"))
        roots, lines = module_lines(rust_resolve.__file__, lambda: [resolver.crate_root(p) for p in paths])
        expected = {p: "src/lib.rs" if p == "src/lib.rs" else p if p.endswith("main.rs") else "bins/b0/main.rs"
                    for p in paths}
        assert dict(zip(paths, roots)) == expected
        return lines

    assert run(400) <= 2.2 * run(200)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.sampled_from(["a/m.rs", "a/long.rs", "a/b/m.rs", "b/m.rs", "m.rs", "src/x.rs", "ab/m.rs"]),
                unique=True, max_size=5),
       st.sampled_from(["a/b/c/f.rs", "a/f.rs", "ab/f.rs", "b/f.rs", "f.rs", "src/f.rs"]))
def test_a_files_binary_root_is_the_one_a_scan_of_the_binaries_finds(bins, path):
    from indexer.lang.rust import resolve as rust_resolve

    resolver = rust_resolve.RustResolver(TreePaths([]), {}, lambda p: b"")
    lib = "src/lib.rs"
    scanned = max((b for b in bins if parent(b) != parent(lib) and path.startswith(parent(b) + "/")),
                  key=len, default=None)
    assert resolver._bin_owner("", tuple(bins), lib, path) == scanned


def test_many_psr4_prefixes_and_uses_cost_work_linear_in_them():
    """Each `use` of a class was tried under every PSR-4 prefix of the tree, and a name none
    maps was asked of every prefix whether the tree owns it (n prefixes and n uses: 2.9 s at
    2,000, 10.4 s at 4,000); now a name asks its own beginnings of the prefixes' lengths."""
    import json

    from indexer.lang.php import resolve as php_resolve

    def run(n: int) -> int:
        composer = {"autoload": {"psr-4": {f"P{i}\\": f"src{i}/" for i in range(n)}}}
        files = {"composer.json": json.dumps(composer).encode(), "m.php": b"", "src7/Thing.php": b""}
        resolver = php_resolve.PhpResolver(TreePaths(files), {}, files.__getitem__)
        uses = [ImportSpec("php_use", f"Other{i}\\Thing", 1) for i in range(n)]
        uses += [ImportSpec("php_use", f"P{i}\\Gone", 1) for i in range(n)] + [ImportSpec("php_use", "P7\\Thing", 1)]
        outcomes, lines = module_lines(php_resolve.__file__, lambda: [resolver.resolve("m.php", imp) for imp in uses])
        assert outcomes == [EXTERNAL] * n + ["unresolved"] * n + [("src7/Thing.php",)]
        return lines

    assert run(400) <= 2.2 * run(200)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["", "A\\", "A\\B\\", "a\\", "AB\\", "A"]), st.sampled_from(["s", "t", "s/u"])),
                max_size=6, unique=True),
       st.sampled_from(["A\\B\\C", "A\\C", "AB\\C", "a\\b\\C", "C", "A\\B"]))
def test_a_psr4_lookup_is_what_a_scan_of_the_prefixes_gives(roots, name):
    from indexer.lang.php import resolve as php_resolve
    from indexer.lang.php.resolve import Psr4
    from indexer.resolve.tree import nearest

    files = [join(d, f) for _, d in roots for f in ("C.php", "B/C.php", "b/C.php", "B.php")]
    resolver = php_resolve.PhpResolver(TreePaths(files), {}, lambda p: b"")
    resolver.psr4 = sorted((Psr4(p, d) for p, d in roots), key=lambda r: (-len(r.prefix), r.prefix, r.directory))
    namespace, _, last = name.rpartition("\\")
    hits: list[str] = []
    for i, root in enumerate(resolver.psr4):  # the old reading, a prefix at a time
        if hits and len(root.prefix) < len(resolver.psr4[i - 1].prefix):
            break
        if name.startswith(root.prefix):
            path = join(root.directory, name[len(root.prefix):].replace("\\", "/") + ".php")
            if path in resolver.tree:
                hits.append(path)
    assert resolver._by_psr4("m.php", namespace, last) == ((nearest("m.php", hits),) if hits else ())
    owned = any(r.prefix and name.lower().startswith(r.prefix.lower()) for r in resolver.psr4)
    assert resolver._owned(name) == owned


def _php_facts(files: dict[str, str]) -> dict[str, BlobFacts]:
    from indexer.extract.blob import extract_blob

    return {p: extract_blob(t.encode(), p, "php") for p, t in files.items()}


def test_a_php_use_of_a_namespace_finds_its_files_by_a_search_not_a_scan():
    """A `use` of a namespace (to write `Ns\\Class` later) looked through every namespace of
    the tree, and every file of the one it named, for each `use` (n namespaces and n uses: n²
    lines); now the namespaces are one sorted index, searched once a namespace, and its files'
    names read once."""
    from indexer.lang.php import resolve as php_resolve

    def run(n: int) -> int:
        files = {f"lib/s{i}/Foo{i}.php": f"<?php\nnamespace Lib\\S{i};\nclass Foo{i} {{}}\n" for i in range(n)}
        files["app/m.php"] = "<?php\nnamespace App;\n" + "".join(f"use Lib\\S{i};\n" for i in range(n)) + \
            "class M { function f() { return [" + ", ".join(f"new S{i}\\Foo{i}()" for i in range(n)) + "]; } }\n"
        facts = _php_facts(files)
        resolver = php_resolve.PhpResolver(TreePaths(files), facts, files.__getitem__)
        uses = [imp for imp in facts["app/m.php"].imports if imp.kind == "php_use"]
        assert len(uses) == n
        outcomes, lines = module_lines(php_resolve.__file__, lambda: [resolver.resolve("app/m.php", imp) for imp in uses])
        assert outcomes == [(f"lib/s{i}/Foo{i}.php",) for i in range(n)]
        return lines

    assert run(400) <= 2.2 * run(200)


PHP_NAMESPACES = st.sampled_from(["A", "a", "A\\B", "a\\b\\c", "AB", "A1", "A\\B1", "B", "A\\b"])
PHP_NAMES = st.sampled_from(["Foo", "foo", "Bar", "B", "C", "bar"])


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.lists(st.tuples(PHP_NAMESPACES, st.lists(PHP_NAMES, max_size=3)), min_size=1, max_size=3),
                max_size=6),
       st.lists(PHP_NAMES, max_size=4), st.lists(PHP_NAMESPACES, min_size=1, max_size=4))
def test_the_files_a_php_namespace_use_reaches_are_those_a_scan_finds(declaring, used, spaces):
    """The index answers as the old scan did: the files declaring anything in the namespace or
    below it (in any case), of them those declaring (in any of their namespaces) a name the
    importer uses, not the name the `use` binds."""
    from indexer.lang.php import resolve as php_resolve

    files = {}
    for i, blocks in enumerate(declaring):
        body = "".join(f"namespace {ns} {{\n" + "".join(f"class {name} {{}}\n" for name in names) + "}\n"
                       for ns, names in blocks)
        files[f"f{i}.php"] = "<?php\n" + body
    files["m.php"] = "<?php\nnamespace M;\nfunction g() { return [" + ", ".join(f"new {u}()" for u in used) + "]; }\n"
    facts = _php_facts(files)
    resolver = php_resolve.PhpResolver(TreePaths(files), facts, files.__getitem__)
    resolver._index()
    own = {n.lower() for n in php_resolve.uses_of(facts["m.php"])}
    for space in spaces:
        segments = space.split("\\")
        namespace = space.lower()
        bound = {segments[-1]}
        scanned = sorted({p for p in files for d in resolver._declared_in(p) or ()  # the old reading
                          if d[1].lower() == namespace or d[1].lower().startswith(namespace + "\\")})
        wanted = own - {b.lower() for b in bound}
        expected = tuple(p for p in scanned if p != "m.php"
                         and any(d[2].lower() in wanted for d in resolver._declared_in(p) or ()))
        found = resolver._under(namespace)
        assert found.files == scanned
        assert resolver._defining_used("m.php", found, bound) == expected


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.sampled_from(["./a.ts", "./a.js", "./a.d.ts", "./*.ts", "./x/*", "a.ts", "*"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from([".", "./x", "./x/*", "./*", "types", "import", "default", "*"]), inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=examples(300), deadline=None)
@given(_JSON, st.sampled_from([".", "./x", "./x/y", "./a", "./x/a"]), st.booleans())
def test_any_package_exports_map_gives_a_file_of_the_tree_or_nothing(exports: object, subpath: str, typescript: bool):
    """A package.json's `exports` is the tree's to write: any JSON there (strings, arrays,
    conditions, subpaths, patterns, nested as it likes) maps a subpath to a file of the tree,
    never a declaration for a JavaScript importer, or to nothing, and never raises."""
    import json

    from indexer.lang.javascript import resolve as js_resolve

    files = {"p/package.json": json.dumps({"name": "p", "exports": exports}).encode(),
             "p/a.ts": b"", "p/a.js": b"", "p/a.d.ts": b"", "p/x/y.ts": b"", "p/x/a.ts": b""}
    resolver = js_resolve.JsResolver(TreePaths(files), files.__getitem__)
    got = resolver._exported("p", subpath, typescript)
    assert got is None or got in files
    assert typescript or got is None or not got.endswith(".d.ts")


def test_a_workspace_package_json_is_read_once_however_often_it_is_imported():
    """Each import of a workspace package asks its package.json for `exports` and its entry
    fields, and each `#` import its own package's `imports`: the file is read once, not once
    per import of it."""
    import json

    from indexer.lang.javascript import resolve as js_resolve

    files = {"p/package.json": json.dumps({"name": "p", "main": "lib/main.js", "imports": {"#x": "./x.js"}}).encode(),
             "p/lib/main.js": b"", "p/x.js": b"", "app/main.js": b""}
    reads: list[str] = []

    def read(path: str) -> bytes:
        reads.append(path)
        return files[path]

    resolver = js_resolve.JsResolver(TreePaths(files), read)
    outcomes = [resolver.resolve("app/main.js", ImportSpec("es_import", "p", i)) for i in range(50)]
    outcomes += [resolver.resolve("p/lib/main.js", ImportSpec("es_import", "#x", i)) for i in range(50)]
    assert outcomes == [("p/lib/main.js",)] * 50 + [("p/x.js",)] * 50
    assert reads.count("p/package.json") <= 2  # the name map's read, and the package's


def test_a_long_chain_of_tsconfig_extends_is_read_once_a_config():
    """Each folder's tsconfig extends the next one's, 300 deep, and each folder imports through
    the `paths` the deepest one sets: every config is read once, whatever number of configs
    extend it (each was the whole chain again, a square in the configs)."""
    import json

    from indexer.lang.javascript import resolve as js_resolve

    n = 300
    files: dict[str, bytes] = {}
    for i in range(n):
        config: dict[str, object] = {"extends": f"../p{i + 1}/tsconfig.json"} if i + 1 < n else \
            {"compilerOptions": {"paths": {"lib/*": ["./shared/*"]}}}
        files[f"p{i}/tsconfig.json"] = json.dumps(config).encode()
        files[f"p{i}/a.ts"] = b""
    files[f"p{n - 1}/shared/q.ts"] = b""
    reads: list[str] = []

    def read(path: str) -> bytes:
        reads.append(path)
        return files[path]

    resolver = js_resolve.JsResolver(TreePaths(files), read)
    outcomes = {resolver.resolve(f"p{i}/a.ts", ImportSpec("es_import", "lib/q", 1)) for i in range(n)}
    assert outcomes == {(f"p{n - 1}/shared/q.ts",)}
    configs = [r for r in reads if r.endswith("tsconfig.json")]
    assert len(configs) == len(set(configs)) == n


def test_an_extends_array_applies_each_config_whole_as_typescript_does():
    """`extends: [b, c]` applies b's config, then c's, each with all it extends: c extends d,
    so d's `paths` (relative to d's folder) come after b's and win, as TypeScript 5 reads it,
    though d is reached twice; a cycle back to the config adds nothing."""
    import json

    from indexer.lang.javascript import resolve as js_resolve

    files = {
        "app/tsconfig.json": json.dumps({"extends": ["../b/tsconfig.json", "../c/tsconfig.json"]}).encode(),
        "b/tsconfig.json": json.dumps({"extends": "../d/tsconfig.json",
                                       "compilerOptions": {"paths": {"x/*": ["./bx/*"]}}}).encode(),
        "c/tsconfig.json": json.dumps({"extends": ["../d/tsconfig.json", "../app/tsconfig.json"]}).encode(),
        "d/tsconfig.json": json.dumps({"compilerOptions": {"paths": {"x/*": ["./dx/*"]}}}).encode(),
        "app/main.ts": b"", "b/bx/m.ts": b"", "d/dx/m.ts": b"",
    }
    resolver = js_resolve.JsResolver(TreePaths(files), files.__getitem__)
    assert resolver.resolve("app/main.ts", ImportSpec("es_import", "x/m", 1)) == ("d/dx/m.ts",)
