"""A `.h`'s language by its constructs and its `extern "C"` guards (indexer/lang/c/header.py), and
the `#include` lines the query does not see, read by line (indexer/lang/c/imports.py): the
kind each is, where a line is a directive, and where it is text."""

from __future__ import annotations

import pytest

from indexer.extract.blob import extract_blob
from indexer.lang.c.header import header_language


def test_std_qualified_names_make_a_header_cpp():
    assert header_language(b"#pragma once\nvoid f(const std::string &s);\n") == "cpp"


def test_enum_class_makes_a_header_cpp():
    assert header_language(b"#pragma once\nenum class Color { red, green };\n") == "cpp"


@pytest.mark.parametrize(("head", "language"), [
    # an `#elif` naming __cplusplus guards what follows it in its group, after an inner group closed
    (b"#if A\n#if B\n#elif defined(__cplusplus)\n#endif\nextern \"C\" int f(void);\n#endif\n", "cpp"),
    # a group whose `#if` names __cplusplus guards all its branches, an `#elif` naming it or not
    (b"#if A\n#if defined(__cplusplus)\n#elif B\nextern \"C\" int f(void);\n#endif\n#endif\n", "c"),
    (b"#ifdef __cplusplus\n#elif B\nextern \"C\" int f(void);\n#endif\n", "c"),
])
def test_extern_c_guards_by_group(head, language):
    """An `extern "C"` stands guarded inside a group any of whose conditions names __cplusplus
    (docs/languages.md), and unguarded once that group closes."""
    assert header_language(head) == language


SOURCE = (b"class K {\n"
          b"  #include <inner.h>\n"  # 2: inside a class body, indented: a preproc_call the query does not read
          b"  # include \"quoted.h\"\n"  # 3
          b"};\n"
          b"/*\n#include \"commented.h\"\n*/\n"  # 6: in a comment
          b"const char *s = \"a\\\n#include <in_string.h>\\\n\";\n"  # 9: in a string continued over lines
          b"#define X \\\n#include \"in_define.h\"\n"  # 12: in a macro's definition
          b"int y;\n")


def test_includes_the_query_does_not_see_are_read_by_line_with_their_kinds():
    facts = extract_blob(SOURCE, "k.cpp", "cpp")
    assert [(i.kind, i.spec, i.line) for i in facts.imports] == [
        ("c_system_include", "inner.h", 2), ("c_include", "quoted.h", 3)]
