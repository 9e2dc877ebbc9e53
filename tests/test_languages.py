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
