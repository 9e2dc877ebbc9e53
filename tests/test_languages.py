"""Language detection by file name, extension and shebang."""

from __future__ import annotations

import pytest

from indexer.lang.registry import GRAMMAR_LANGUAGES, detect_language


@pytest.mark.parametrize("path,expected", [
    ("a.py", "python"), ("stubs/a.pyi", "python"),
    ("a.js", "javascript"), ("a.jsx", "javascript"), ("a.mjs", "javascript"), ("a.cjs", "javascript"),
    ("a.ts", "typescript"), ("a.mts", "typescript"), ("a.tsx", "tsx"),
    ("a.go", "go"), ("a.rs", "rust"), ("A.java", "java"),
    ("a.c", "c"), ("a.cc", "cpp"), ("a.cpp", "cpp"), ("a.hpp", "cpp"), ("A.CPP", "cpp"),
    ("a.cs", "csharp"), ("a.rb", "ruby"), ("Rakefile", "ruby"), ("Gemfile", "ruby"),
    ("a.php", "php"), ("a.sh", "bash"), ("a.bash", "bash"),
    ("README.md", "markdown"), ("a.json", "json"), ("pyproject.toml", "toml"),
    ("a.yaml", "yaml"), ("a.yml", "yaml"), ("a.html", "html"), ("a.css", "css"),
    ("Makefile", "make"), ("Dockerfile", "dockerfile"), ("CMakeLists.txt", "cmake"),
    ("notes.txt", "text"), ("LICENSE", "text"), ("weird.unknownext", "text"),
    (".gitignore", "gitignore"), ("go.mod", "go-mod"),
])
def test_by_name_and_extension(path, expected):
    assert detect_language(path, b"") == expected


@pytest.mark.parametrize("head,expected", [
    (b"#!/usr/bin/env python3\nprint(1)\n", "python"),
    (b"#!/usr/bin/python3.11 -u\n", "python"),
    (b"#!/bin/bash\necho hi\n", "bash"),
    (b"#!/bin/sh\n", "bash"),
    (b"#!/usr/bin/env node\n", "javascript"),
    (b"#!/usr/bin/env -S node --no-warnings\n", "javascript"),
    (b"#!/usr/bin/env ruby\n", "ruby"),
    (b"#!/usr/bin/php\n", "php"),
    (b"#!/usr/bin/env PYTHONPATH=. python\n", "python"),
    (b"#!/usr/bin/env perl\n", "perl"),
    (b"#!/usr/bin/env\n", "text"),
    (b"no shebang\n", "text"),
    # a shebang is its first line alone
    (b"#!/usr/bin/env\npython3 run.py\n", "text"),  # env with no program: the next line is no argument
    (b"#!/usr/bin/env -S\nnode\n", "text"),
    (b"#!\npython\n", "text"),
    (b"#!/usr/bin/env -S PATH=/x python3 -u\n", "python"),
    (b"#! /usr/bin/python3.11\n", "python"),
])
def test_shebang_without_extension(head, expected):
    assert detect_language("bin/tool", head) == expected


def test_extension_wins_over_shebang():
    assert detect_language("tool.py", b"#!/bin/bash\n") == "python"


def test_header_h_is_c_unless_cpp_constructs():
    assert detect_language("inc/x.h", b"#include <stdio.h>\nstruct point { int x; };\nint f(void);\n") == "c"
    assert detect_language("inc/x.h", b"#pragma once\nnamespace gfx {\nclass W;\n}\n") == "cpp"
    assert detect_language("inc/x.h", b"template <typename T>\nT max(T a, T b);\n") == "cpp"
    assert detect_language("inc/x.h", b"class Widget : public Base {\npublic:\n  int n;\n};\n") == "cpp"
    assert detect_language("inc/x.h", b"#include <vector>\n") == "cpp"
    assert detect_language("inc/x.h", b"") == "c"
    # fmt's color.h: eight KiB of `enum class` constants before any template or namespace brace
    assert detect_language("inc/x.h", b"FMT_BEGIN_NAMESPACE\nenum class color : uint32_t {\n  blue,\n};\n") == "cpp"
    assert detect_language("inc/x.h", b"static constexpr int N = 3;\n") == "cpp"
    assert detect_language("inc/x.h", b"using namespace std;\n") == "cpp"
    assert detect_language("inc/x.h", b"enum color { RED };\nstruct enum_class { int typename_len; };\n") == "c"


# a licence of more than the eight KiB a header's code is read over, naming C++ words itself
_LICENCE = b"/*" + b" * Permission is granted to use std::vector, class templates <T> and the rest.\n" * 120 + b" */\n"
_LINE_LICENCE = b"// Copyright the authors; namespace { } and public: are words here.\n" * 150


@pytest.mark.parametrize(("head", "expected"), [
    (_LICENCE + b"#pragma once\nclass Window {\npublic:\n  int x;\n};\n", "cpp"),
    (_LINE_LICENCE + b"\n\n" + _LICENCE + b"namespace gfx {\n}\n", "cpp"),
    (_LICENCE + b"#ifndef X_H\n#define X_H\nstruct point { int x; };\nint f(void);\n#endif\n", "c"),
    (_LINE_LICENCE + b"enum color { RED };\n", "c"),
])
def test_a_header_is_judged_by_its_code_past_its_leading_comments(head, expected):
    assert len(head) > 8192
    assert detect_language("inc/x.h", head) == expected


def test_leading_comments_are_skipped_up_to_a_bound():
    from indexer.lang.c.header import HEAD_BYTES

    endless = b"/*" + b"x" * HEAD_BYTES + b"*/\nclass Window {\npublic:\n};\n"
    assert detect_language("inc/x.h", endless) == "c"  # its code is past what is read


@pytest.mark.parametrize(("head", "expected"), [
    # ncurses' cursesw.h: the C library included inside `extern "C"`, no `#ifdef __cplusplus`
    (b'#ifndef W_H\n#define W_H\nextern "C" {\n#  include <curses.h>\n}\n#endif\n', "cpp"),
    (b'extern "C" int f(void);\n', "cpp"),
    (b'#ifdef __cplusplus\nextern "C" {\n#endif\nint f(void);\n#ifdef __cplusplus\n}\n#endif\n', "c"),
    (b'#if defined(HAVE_X) && defined(__cplusplus)\n/* C++ */\nextern "C" {\n#endif\n', "c"),
    (b'#ifndef __cplusplus\n#define EXTERN_C\n#else\nextern "C" {\n#endif\n', "c"),
    (b'#ifdef A\n#elif defined(__cplusplus)\nextern "C" {\n#endif\n', "c"),
    (b'#ifdef __cplusplus\n#endif\nextern "C" {\n', "cpp"),  # the group ended before it
    (b'#define BEGIN_C extern "C" {\n', "c"),  # a macro's body
    (b'#define BEGIN_C \\\n  extern "C" {\n', "c"),
    (b'/* wrap in extern "C" for C++ */\nint f(void);\n', "c"),
])
def test_an_extern_c_no_cplusplus_condition_guards_is_cpp(head, expected):
    assert detect_language("inc/x.h", head) == expected


def test_an_index_reads_a_header_past_a_long_licence(indexed_files):
    asked = indexed_files({"inc/window.h": (_LICENCE + b"class Window {\npublic:\n  int x;\n};\n").decode(),
                           "inc/point.h": (_LICENCE + b"struct point { int x; };\n").decode()})
    languages = {p: asked.call("context.file", path=p).data.meta.language for p in ("inc/window.h", "inc/point.h")}
    assert languages == {"inc/window.h": "cpp", "inc/point.h": "c"}


def test_binary():
    assert detect_language("img/logo.png", b"") == "binary"
    assert detect_language("data.bin", b"abc") == "binary"
    assert detect_language("x.py", b"abc\x00def") == "binary"
    # UTF-16 text has NULs but is not binary
    assert detect_language("notes.txt", "hello".encode("utf-16")) == "text"


def test_grammar_languages():
    assert GRAMMAR_LANGUAGES == {"python", "javascript", "typescript", "tsx", "go", "rust", "java", "c",
                                 "cpp", "csharp", "ruby", "php", "bash", "zsh"}


@pytest.mark.parametrize("head,expected", [
    (b"// The standard vector -*- C++ -*-\n", "cpp"),
    (b"# -*- mode: python; coding: utf-8 -*-\n", "python"),
    (b"#!/bin/foo\n# vim: set ft=ruby:\n", "ruby"),
    (b"// -*- unknownmode -*-\n", "text"),
])
def test_mode_lines_for_extensionless_files(head, expected):
    assert detect_language("include/vector", head) == expected


def test_the_name_alone_decides_or_says_the_content_must():
    from indexer.lang.registry import CONTENT, CONTENT_H, name_language

    assert name_language("src/a.py") == "python"
    assert name_language("docs/notes.txt") == "text"  # a known text extension: no blob read
    assert name_language("logo.png") == "binary"
    assert name_language("Makefile") == "make"
    assert name_language("include/vec.h") == CONTENT_H
    assert name_language("bin/run") == CONTENT
    assert name_language("locale/fr/django.po") == CONTENT  # unknown extension: a shebang could name one
    # where the name decides, the content cannot change it, except to binary
    for path in ("src/a.py", "docs/notes.txt", "Makefile"):
        assert detect_language(path, b"#!/usr/bin/env ruby\n") == name_language(path)
        assert detect_language(path, b"\x00\x01") == "binary"
    assert detect_language("include/vec.h", b"class Vec {\n};\n") == "cpp"
    assert detect_language("bin/run", b"#!/usr/bin/env ruby\n") == "ruby"
