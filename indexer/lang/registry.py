"""Language detection by file name, extension and shebang.

`detect_language(path, head)` names the language of a blob from its path and its first
bytes. Languages in `GRAMMAR_LANGUAGES` are parsed with tree-sitter; every other name is
a guess for the file table, and those files get identifier occurrences from the plain
tokenizer.

Rules, in order:
1. NUL in `head` (and no UTF-16/32 byte-order mark) or a well-known binary extension -> "binary".
2. An exact file name (`Makefile`, `Dockerfile`, `Gemfile`, ...).
3. The extension, case-insensitive. `.h` is C unless its code, past the leading comments,
   shows a C++ construct (`class X {`, `namespace`, `template
   <`, `public:`, `std::`, `#include <iostream>`-style headers without `.h`, an `extern "C"`
   no `#ifdef __cplusplus` guards: indexer/lang/c/header.py), then "cpp".
4. A shebang (`#!/usr/bin/env python3`, `#!/bin/bash`, `#!/usr/bin/env -S node --flag`)
   when the extension did not name a language.
5. An Emacs or Vim mode line in the first two lines (`-*- C++ -*-`, `-*- mode: python -*-`,
   `vim: set ft=ruby:`), for extensionless files such as the C++ standard headers.
6. "text".
"""

from __future__ import annotations

import importlib
import re

from indexer.lang.c.header import HEAD_BYTES, header_language
from indexer.lang.content import is_binary
from indexer.lang.language import Language

# The packages of the languages with a grammar, each making its `Language` records once
# (indexer.lang.language): adding a language is its package and one line here.
_PACKAGES = (
    "python",
    "javascript",
    "typescript",  # and tsx
    "go",
    "rust",
    "java",
    "c",
    "cpp",
    "csharp",
    "ruby",
    "php",
    "bash",
)
LANGUAGES: dict[str, Language] = {
    language.name: language
    for package in _PACKAGES
    for language in importlib.import_module(f"indexer.lang.{package}").LANGUAGES
}
GRAMMAR_LANGUAGES: frozenset[str] = frozenset(LANGUAGES)

# Languages whose words are prose, markup or data rather than code: their occurrences are
# kept (references find them), but they do not say what the code depends on, so they cast no
# vote in the rank (weights.arcs_of). A release note or a file list that says "django" is not
# a use of a method named django.
PROSE_AND_DATA: frozenset[str] = frozenset(
    {"text", "markdown", "rst", "asciidoc", "latex", "bibtex", "csv", "tsv", "diff",
     "json", "toml", "yaml", "ini", "properties", "dotenv", "xml", "svg", "gitignore",
     "gitattributes", "go-mod"}
)

# JavaScript and TypeScript: one module system (the `js` imports, indexer.lang.javascript.resolve).
JS_FAMILY: frozenset[str] = frozenset(name for name, language in LANGUAGES.items() if language.family == "js")

_EXTENSIONS: dict[str, str] = {
    # guesses for the file table (the languages with a grammar name their own, below)
    "md": "markdown", "markdown": "markdown", "mdx": "markdown",
    "rst": "rst", "txt": "text", "adoc": "asciidoc",
    "json": "json", "jsonc": "json", "json5": "json", "jsonl": "json", "ndjson": "json",
    "toml": "toml", "yaml": "yaml", "yml": "yaml",
    "ini": "ini", "cfg": "ini", "conf": "ini", "properties": "properties", "env": "dotenv",
    "html": "html", "htm": "html", "xhtml": "html",
    "css": "css", "scss": "scss", "sass": "sass", "less": "less",
    "xml": "xml", "xsd": "xml", "xsl": "xml", "plist": "xml", "svg": "svg",
    "csproj": "xml", "vbproj": "xml", "props": "xml", "targets": "xml", "pom": "xml",
    "sql": "sql", "proto": "protobuf", "graphql": "graphql", "gql": "graphql",
    "kt": "kotlin", "kts": "kotlin", "swift": "swift", "scala": "scala", "sc": "scala",
    "groovy": "groovy", "gradle": "groovy", "lua": "lua", "pl": "perl", "pm": "perl",
    "r": "r", "dart": "dart", "ex": "elixir", "exs": "elixir", "erl": "erlang", "hrl": "erlang",
    "hs": "haskell", "ml": "ocaml", "mli": "ocaml", "clj": "clojure", "cljs": "clojure",
    "fs": "fsharp", "fsx": "fsharp", "vb": "vbnet", "m": "objective-c", "mm": "objective-cpp",
    "zig": "zig", "nim": "nim", "jl": "julia", "elm": "elm", "vue": "vue", "svelte": "svelte",
    "tf": "hcl", "hcl": "hcl", "nix": "nix", "cmake": "cmake", "mk": "make",
    "zsh": "zsh", "fish": "fish", "ps1": "powershell", "bat": "batch", "cmd": "batch",
    "csv": "csv", "tsv": "tsv", "tex": "latex", "bib": "bibtex",
    "lock": "text", "log": "text", "diff": "diff", "patch": "diff",
    "dockerfile": "dockerfile", "tmpl": "template", "j2": "template", "jinja": "template",
    "mustache": "template", "hbs": "template", "erb": "erb", "ejs": "template",
    "asm": "assembly", "s": "assembly", "v": "verilog", "vhd": "vhdl",
    "cu": "cuda", "cuh": "cuda", "glsl": "glsl", "wgsl": "wgsl", "sol": "solidity",
}

_FILENAMES: dict[str, str] = {
    "makefile": "make", "gnumakefile": "make", "dockerfile": "dockerfile",
    "containerfile": "dockerfile", "cmakelists.txt": "cmake",
    "jenkinsfile": "groovy", "build": "starlark", "build.bazel": "starlark",
    "workspace": "starlark", ".zshrc": "zsh", "go.mod": "go-mod",
    "go.sum": "text", ".gitignore": "gitignore", ".gitattributes": "gitattributes",
    ".editorconfig": "ini", "license": "text", "copying": "text", "readme": "text",
}

for _language in LANGUAGES.values():
    _EXTENSIONS.update(dict.fromkeys(_language.extensions, _language.name))
    _FILENAMES.update(dict.fromkeys(_language.filenames, _language.name))

_BINARY_EXTENSIONS = frozenset(
    "png jpg jpeg gif bmp ico icns webp tiff tif psd avif heic "
    "zip gz tgz bz2 xz zst 7z rar tar jar war ear whl egg apk ipa dmg iso "
    "pdf doc docx xls xlsx ppt pptx odt ods "
    "so dylib dll exe o a lib obj class pyc pyo pyd wasm bin dat db sqlite sqlite3 "
    "woff woff2 ttf otf eot mp3 mp4 m4a wav ogg flac mov avi mkv webm "
    "pack idx npy npz pkl pickle parquet h5 onnx pt pth".split()
)

# Interpreter (basename of the shebang program, or the argument of `env`) -> language.
_INTERPRETERS: dict[str, str] = {"zsh": "zsh", "fish": "fish", "perl": "perl", "lua": "lua", "rscript": "r"}

for _language in LANGUAGES.values():
    _INTERPRETERS.update(dict.fromkeys(_language.interpreters, _language.name))

_VERSION_SUFFIX = re.compile(r"[\d.]+$")
def _shebang_language(head: bytes) -> str:
    if not head.startswith(b"#!"):
        return ""
    line = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    words = line.split()
    if not words:
        return ""
    prog = words[0].rsplit("/", 1)[-1]
    if prog == "env":
        # `env -S node --flag`, `env PYTHONPATH=x python3`: the first word that is a program.
        args = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        if not args:
            return ""
        prog = args[0].rsplit("/", 1)[-1]
    prog = _VERSION_SUFFIX.sub("", prog.lower()) or prog.lower()
    return _INTERPRETERS.get(prog, "")


_EMACS_MODE = re.compile(rb"-\*-\s*(?:.*?\bmode:\s*)?([\w+#-]+)\s*[;-]", re.IGNORECASE)
_VIM_MODE = re.compile(rb"\bvim?:.*?\b(?:ft|filetype)=([\w+#-]+)", re.IGNORECASE)
_MODE_NAMES: dict[str, str] = {"perl": "perl", "makefile": "make", "make": "make"}

for _language in LANGUAGES.values():
    _MODE_NAMES.update(dict.fromkeys(_language.mode_names, _language.name))


def _mode_line_language(head: bytes) -> str:
    lines = head[:512].split(b"\n", 2)[:2]
    for line in lines:
        found = _EMACS_MODE.search(line) or _VIM_MODE.search(line)
        if found:
            return _MODE_NAMES.get(found.group(1).decode("ascii", "replace").lower(), "")
    return ""


# What `name_language` answers when the name leaves the language to the blob's first bytes.
CONTENT_H = "?h"  # a `.h` header: C, or C++ when its head shows a C++ construct (rule 3)
CONTENT = "?"  # no name rule applies: a shebang or a mode line may name one (rules 4-5), else text
CONTENT_DECIDES = frozenset({CONTENT_H, CONTENT})
HEADER_LANGUAGES = ("c", "cpp")  # what CONTENT_H turns out to be


def name_language(path: str) -> str:
    """What the name alone says (rules 1-3 without the content): a language, "binary", or
    CONTENT_H / CONTENT. Indexing keys a blob's facts by this, so no blob is read before its
    extraction; the extraction reads the head where the name leaves it open."""
    name = path.rsplit("/", 1)[-1]
    lower = name.lower()
    ext = lower.rsplit(".", 1)[-1] if "." in lower.lstrip(".") else ""
    if ext in _BINARY_EXTENSIONS:
        return "binary"
    by_name = _FILENAMES.get(lower)
    if by_name:
        return by_name
    if lower.startswith("dockerfile.") or lower.endswith(".dockerfile"):
        return "dockerfile"
    if ext == "h":
        return CONTENT_H
    return _EXTENSIONS.get(ext) or CONTENT


def detect_language(path: str, head: bytes) -> str:
    """Language name of the blob at `path` whose first bytes are `head` (`HEAD_BYTES` of it
    are read at most: a `.h` header's leading comments are skipped, rule 3)."""
    head = head[:HEAD_BYTES]
    if is_binary(head):
        return "binary"
    found = name_language(path)
    if found == CONTENT_H:
        return header_language(head)
    if found == CONTENT:
        return _shebang_language(head) or _mode_line_language(head) or "text"
    return found
