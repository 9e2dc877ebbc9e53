"""C/C++ include resolution: bare system headers, the includer never its own target,
ancestor directories as include roots, nearest first."""

from __future__ import annotations

import pytest

from indexer.extract.blob import extract_blob
from indexer.model import ImportSpec
from tests.test_resolve import run, statuses


def inc(spec: str, system: bool = False) -> ImportSpec:
    return ImportSpec(kind="c_system_include" if system else "c_include", spec=spec, line=1)


def outcome(tree: dict[str, str], importer: str, imp: ImportSpec) -> str:
    edges, unresolved = run(tree, {importer: [imp]})
    assert len(edges) + len(unresolved) == 1, (edges, unresolved)  # never dropped
    return edges[0].target if edges else unresolved[0].status


BROTLI = {
    "c/common/shared_dictionary.c": "",
    "c/enc/memory.h": "",
    "c/include/brotli/types.h": "",
    "c/enc/encode.c": "",
    "c/enc/string.h": "",
}


@pytest.mark.parametrize("importer,imp,expected", [
    # Brotli c/common/shared_dictionary.c:11: libc's memory.h, not the encoder's
    ("c/common/shared_dictionary.c", inc("memory.h", system=True), "external"),
    ("c/enc/encode.c", inc("memory.h", system=True), "c/enc/memory.h"),  # an ancestor dir holds it
    ("c/common/shared_dictionary.c", inc("brotli/types.h", system=True), "c/include/brotli/types.h"),
    ("c/common/shared_dictionary.c", inc("string.h", system=True), "external"),
    ("c/common/shared_dictionary.c", inc("enc/memory.h", system=True), "c/enc/memory.h"),  # ancestor c/
])
def test_bare_system_header_needs_an_include_root(importer, imp, expected):
    assert outcome(BROTLI, importer, imp) == expected


def test_bare_library_header_may_match_anywhere():
    # python-zstandard c-ext/python-zstandard.h `#include <zstd.h>`: its bundled zstd/
    tree = {"c-ext/python-zstandard.h": "", "zstd/zstd.h": "", "zstd/memory.h": ""}
    assert outcome(tree, "c-ext/python-zstandard.h", inc("zstd.h", system=True)) == "zstd/zstd.h"
    assert outcome(tree, "c-ext/python-zstandard.h", inc("memory.h", system=True)) == "external"


def test_system_header_with_a_directory_may_match_anywhere():
    # boost/spdlog style: <lib/x.h> resolving into the library's own tree by suffix
    tree = {"src/a.cpp": "", "third/spdlog/include/spdlog/common.h": "", "libs/boost/config.hpp": ""}
    assert outcome(tree, "src/a.cpp", inc("spdlog/common.h", system=True)) == "third/spdlog/include/spdlog/common.h"
    assert outcome(tree, "src/a.cpp", inc("boost/config.hpp", system=True)) == "libs/boost/config.hpp"


def test_include_of_own_suffix_is_external_not_dropped():
    # spdlog include/spdlog/fmt/chrono.h:20 `#include <fmt/chrono.h>`: libfmt's header
    tree = {"include/spdlog/fmt/chrono.h": "", "include/spdlog/common.h": ""}
    edges, unresolved = run(tree, {"include/spdlog/fmt/chrono.h": [inc("fmt/chrono.h", system=True)]})
    assert edges == []
    assert statuses(unresolved) == [("include/spdlog/fmt/chrono.h", "fmt/chrono.h", "external")]


def test_include_of_own_suffix_finds_another_file():
    tree = {"include/wrap/fmt/core.h": "", "vendor/fmt/core.h": ""}
    assert outcome(tree, "include/wrap/fmt/core.h", inc("fmt/core.h", system=True)) == "vendor/fmt/core.h"


def test_nearest_ancestor_directory_before_suffix_search():
    # cpython include/python3.11/internal/pycore_list.h `#include "listobject.h"`
    tree = {"inc/lib/list.h": "", "inc/lib/a/list.h": "", "inc/lib/internal/core.h": ""}
    assert outcome(tree, "inc/lib/internal/core.h", inc("list.h")) == "inc/lib/list.h"
    assert outcome(tree, "inc/lib/internal/core.h", inc("list.h", system=True)) == "inc/lib/list.h"


def test_nearer_ancestor_wins():
    tree = {"a/b/c/x.c": "", "a/b/util.h": "", "a/util.h": "", "util.h": ""}
    assert outcome(tree, "a/b/c/x.c", inc("util.h")) == "a/b/util.h"
    assert outcome(tree, "a/b/c/x.c", inc("b/util.h")) == "a/b/util.h"  # root a/ of the spec


# --- includes the C/C++ grammar does not see as directives ------------------------------

def includes(source: str, language: str = "cpp") -> list[tuple[int, str, str]]:
    facts = extract_blob(source.encode(), "x.hpp", language)
    return [(i.line, i.kind, i.spec) for i in facts.imports]


def test_include_inside_class_body():
    # boost smart_ptr/scoped_ptr.hpp:115, an opaque preproc_call in the field list
    src = ('#include <a.hpp>\nclass P {\n  T* get() const { return px; }\n'
           '#include <boost/smart_ptr/detail/operator_bool.hpp>\n  void swap(P&);\n};\n')
    assert includes(src) == [(1, "c_system_include", "a.hpp"),
                             (4, "c_system_include", "boost/smart_ptr/detail/operator_bool.hpp")]


def test_include_after_define_with_commented_continuation():
    # boost type_traits/has_bit_and.hpp: `/* ... */\` lines inside a multi-line #define
    src = ('#define F\\\n   (\\\n      /* a */\\\n      (\\\n         ::b::f< L >::value && \\\n'
           '         ::b::f< R >::value\\\n      )||\\\n      /* b */\\\n      (\\\n'
           '         ::b::p< R >::value\\\n      )\\\n      )\n\n#include <h.hpp>\n')
    assert includes(src) == [(14, "c_system_include", "h.hpp")]


def test_include_after_has_include_condition():
    src = ('#if defined(__has_include) && __has_include(<version>)\n#    include <version>\n#else\n'
           '#include "ciso.h"\n#endif\n')
    assert includes(src, "c") == [(2, "c_system_include", "version"), (4, "c_include", "ciso.h")]


def test_include_in_comment_or_string_is_not_a_directive():
    src = ('/* Example::\n\n    #include <fmt/color.h>\n*/\n#include "real.h"\n'
           'const char* s = R"(\n#include <raw.h>\n)";\n')
    assert includes(src) == [(5, "c_include", "real.h")]
