"""C/C++ include resolution: bare system headers, the includer never its own target,
ancestor directories as include roots, nearest first."""

from __future__ import annotations

from indexer.extract.blob import extract_blob

# Where an include lands (bare system headers, the includer never its own target, ancestor
# folders as include roots, nearest first): annotated trees, tests/fixtures/resolve/c_*.txt.


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
