"""C and C++ includes as fan-in, each tree indexed for real: the cases hand-made mutants of
indexer/lang/c/resolve.py got past, asserted as gcc finds the headers (checked with `gcc -M`
and `-I` at the include folders and the root) and docs/languages.md says."""

from __future__ import annotations

from tests.indexed import import_graph


def test_an_include_folder_comes_before_the_includers_own_folder_and_its_ancestors(tmp_path):
    # gcc -Iinclude: `<util.h>` never looks beside src/main.c, and `"util.h"` from src/net/
    # finds include/util.h before src/util.h, which no -I names
    graph = import_graph(tmp_path, {
        "include/util.h": "int util(void);\n",
        "src/util.h": "int src_util(void);\n",
        "src/main.c": "#include <util.h>\n\nint main(void) { return util(); }\n",
        "src/net/sock.c": '#include "util.h"\n\nint sock(void) { return util(); }\n',
    })
    assert graph.edges == {("src/main.c", "include/util.h"), ("src/net/sock.c", "include/util.h")}
    assert graph.fan_in == {"include/util.h": 2}


def test_a_nested_include_folder_comes_before_an_ancestor(tmp_path):
    graph = import_graph(tmp_path, {
        "libs/proj/include/proj/api.h": "int api(void);\n",
        "src/proj/api.h": "int old_api(void);\n",
        "src/app/main.c": "#include <proj/api.h>\n\nint main(void) { return api(); }\n",
    })
    assert graph.edges == {("src/app/main.c", "libs/proj/include/proj/api.h")}
    assert graph.fan_in == {"libs/proj/include/proj/api.h": 1}


def test_the_root_is_the_last_ancestor_before_a_search_by_suffix(tmp_path):
    # autotools' config.h at the root (gcc -I.), not a test's config.h nearer by path
    graph = import_graph(tmp_path, {
        "config.h": "#define HAVE_POLL 1\n",
        "src/net/tests/config.h": "#define TESTING 1\n",
        "src/net/sock.c": '#include "config.h"\n\nint sock(void) { return HAVE_POLL; }\n',
    })
    assert graph.edges == {("src/net/sock.c", "config.h")}
    assert graph.fan_in == {"config.h": 1}


def test_a_quoted_header_named_like_libcs_is_still_found_by_suffix(tmp_path):
    # only a bare `<memory.h>` is never guessed; a test built with -Ic/enc writes "memory.h"
    graph = import_graph(tmp_path, {
        "c/enc/memory.h": "void *enc_alloc(int n);\n",
        "tests/enc_test.c": '#include "memory.h"\n\nint main(void) { return enc_alloc(1) != 0; }\n',
    })
    assert graph.edges == {("tests/enc_test.c", "c/enc/memory.h")}
    assert graph.fan_in == {"c/enc/memory.h": 1}


def test_a_shim_header_including_its_own_name_reaches_the_vendored_one(tmp_path):
    # include/zstd.h is never its own target: its `<zstd.h>` is the vendored library's
    graph = import_graph(tmp_path, {
        "include/zstd.h": "#include <zstd.h>\n#define ZSTD_SHIM 1\n",
        "vendor/zstd/include/zstd.h": "int ZSTD_compress(void);\n",
    })
    assert graph.edges == {("include/zstd.h", "vendor/zstd/include/zstd.h")}
    assert graph.fan_in == {"vendor/zstd/include/zstd.h": 1}


def test_a_dot_slash_include_is_looked_for_in_the_include_folders_too(tmp_path):
    # gcc -Iinclude finds "./config.h" from src/a.c as include/./config.h
    graph = import_graph(tmp_path, {
        "include/config.h": "#define LEVEL 3\n",
        "src/a.c": '#include "./config.h"\n\nint level(void) { return LEVEL; }\n',
    })
    assert graph.edges == {("src/a.c", "include/config.h")}
    assert graph.fan_in == {"include/config.h": 1}


def test_an_include_line_inside_a_macro_body_is_no_include(tmp_path):
    # the continuation line of a #define is the macro's text (`gcc -M` lists no gen.h)
    graph = import_graph(tmp_path, {
        "src/gen.h": "int gen;\n",
        "src/b.c": '#define INCLUDE_IT \\\n  #include "gen.h"\nint x;\n',
    })
    assert graph.edges == set()
    assert graph.fan_in == {}
