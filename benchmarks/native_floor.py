"""The native floor: tree-sitter's parse plus the grammar's shipped tags query, in C.

The issue asks for definitions and references from each grammar's shipped `queries/tags.scm`;
that query, run by tree-sitter's own C runtime over tree-sitter's own parse, with nothing
built for Python (no node objects, no captures handed over, no text predicate evaluated),
is less work than any indexer reading those tags must do. `probe tags` times it over every
blob the cold index parses, on the same workers, to say what of the cold-index budget is
left for everything else. `probe compiled` times a compiled extraction's floor the same way:
the indexer's own whole tags query (identifier leaves included) in C, every match and
capture visited, the text predicates evaluated, no Python object made (`NativeExtraction`):
the least an extraction path compiled to C would still do.

The library is `benchmarks/native_floor.c` compiled with the runtime source of the installed
tree-sitter release (its PyPI sdist, fetched once into the corpora cache by pip), with the
flags and allocator of the Python binding, so that its parse costs what the indexer's does.
It is built once per (release, source) under the cache; building needs a C compiler and the
Python headers. Nothing here is used by the indexer.
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib
import importlib.metadata
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "native_floor.c"
# as tree-sitter's own setup.py compiles its runtime into the binding (plus setuptools' -O3 -DNDEBUG)
CFLAGS = ["-O3", "-DNDEBUG", "-std=c11", "-fPIC", "-fvisibility=hidden", "-DTREE_SITTER_HIDE_SYMBOLS",
          "-D_POSIX_C_SOURCE=200112L", "-D_DEFAULT_SOURCE", "-Wno-cast-function-type"]


class NativeUnavailable(Exception):
    """The floor cannot be built here (no compiler, no headers, the sdist out of reach)."""


def runtime_version() -> str:
    return importlib.metadata.version("tree-sitter")


def build(cache: Path | None = None) -> Path:
    """The compiled library, built on first use."""
    from corpora.registry_corpus import CorpusSpec, RegistryUnavailable, cache_dir, fetch

    version = runtime_version()
    cache = cache or cache_dir()
    digest = hashlib.sha256(SOURCE.read_bytes() + " ".join(CFLAGS).encode()).hexdigest()[:12]
    lib = cache / "native-floor" / f"tree-sitter-{version}-{digest}.so"
    if lib.is_file():
        return lib
    compiler = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if compiler is None:
        raise NativeUnavailable("no C compiler on PATH")
    try:
        sdist = fetch(CorpusSpec("tree-sitter", "pypi", "tree-sitter", (version,)), version, cache)
    except RegistryUnavailable as exc:
        raise NativeUnavailable(str(exc)) from None
    runtime = cache / "native-floor" / f"tree-sitter-{version}"
    if not (runtime / "lib" / "src" / "lib.c").is_file():
        _unpack_runtime(sdist, runtime)
    lib.parent.mkdir(parents=True, exist_ok=True)
    partial = lib.with_suffix(f".{os.getpid()}.tmp")
    cmd = [compiler, *CFLAGS, "-shared", f"-I{sysconfig.get_paths()['include']}",
           f"-I{runtime / 'lib' / 'include'}", f"-I{runtime / 'lib' / 'src'}",
           str(SOURCE), str(runtime / "lib" / "src" / "lib.c"), "-o", str(partial)]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        partial.unlink(missing_ok=True)
        last = (run.stderr.strip().splitlines() or ["no output"])[-1][:300]
        raise NativeUnavailable(f"compiling the native floor failed: {last}")
    partial.replace(lib)  # whole or not at all: a killed build leaves no library to load
    return lib


def _unpack_runtime(sdist: Path, dest: Path) -> None:
    """The runtime's `lib/` (sources and headers) out of the binding's sdist."""
    partial = dest.with_name(dest.name + f".{os.getpid()}.tmp")
    shutil.rmtree(partial, ignore_errors=True)
    with tarfile.open(sdist) as tar:
        for member in tar.getmembers():
            _, _, inner = member.name.partition("/tree_sitter/core/")
            if not inner.startswith("lib/") or not member.isfile() or ".." in inner.split("/"):
                continue
            target = partial / inner
            target.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            assert source is not None
            target.write_bytes(source.read())
    if not (partial / "lib" / "src" / "lib.c").is_file():
        shutil.rmtree(partial, ignore_errors=True)
        raise NativeUnavailable(f"{sdist.name} holds no tree-sitter runtime source")
    shutil.rmtree(dest, ignore_errors=True)
    partial.rename(dest)


def _grammar(name: str) -> int:
    """The address of the language's TSLanguage, as the indexer loads its grammar."""
    from indexer.lang.registry import LANGUAGES

    module, factory = LANGUAGES[name].grammar
    capsule = getattr(importlib.import_module(module), factory)()
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return get(capsule, b"tree_sitter.Language")


def _load(library: Path) -> ctypes.PyDLL:
    # PyDLL: calls keep the interpreter lock, which pymalloc (the binding's allocator) needs
    lib = ctypes.PyDLL(str(library))
    counts = [ctypes.POINTER(ctypes.c_uint64)]
    lib.compile_query.restype = ctypes.c_void_p
    lib.compile_query.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint32]
    lib.parse_and_match.restype = ctypes.c_int
    lib.parse_and_match.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint32, ctypes.c_void_p, *counts * 2]
    lib.compile_extraction.restype = ctypes.c_void_p
    lib.compile_extraction.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint32, ctypes.c_uint32,
                                       ctypes.POINTER(ctypes.c_uint32), ctypes.c_uint32]
    lib.extraction_patterns.restype = ctypes.c_uint32
    lib.extraction_patterns.argtypes = [ctypes.c_void_p]
    lib.delete_extraction.restype = None
    lib.delete_extraction.argtypes = [ctypes.c_void_p]
    lib.parse_and_extract.restype = ctypes.c_int
    lib.parse_and_extract.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint32, ctypes.c_void_p, *counts * 3]
    lib.use_python_allocator()
    return lib


class NativeTags:
    """The loaded library: per language its grammar and compiled shipped tags query."""

    def __init__(self, library: Path) -> None:
        self._lib = _load(library)
        self._languages: dict[str, tuple[int, int | None]] = {}
        self._nodes, self._matches = ctypes.c_uint64(), ctypes.c_uint64()

    def _language(self, name: str) -> tuple[int, int | None]:
        found = self._languages.get(name)
        if found is None:
            from indexer.lang import grammars

            pointer = _grammar(name)
            # the shipped patterns the extraction reads, compiled in the indexer's cheaper form
            shipped = grammars.shipped_source(name)
            compact = grammars.compact_patterns(shipped, grammars.language(name))
            text = "\n".join(compact[0] if compact is not None else [shipped]).encode()
            query = self._lib.compile_query(pointer, text, len(text)) if text else None
            if text and not query:
                raise NativeUnavailable(f"the shipped tags query of {name} does not compile natively")
            found = self._languages[name] = (pointer, query)
        return found

    def parse_and_match(self, language: str, data: bytes) -> tuple[int, int] | None:
        """(nodes of the tree, matches of the shipped tags query), None when no tree came."""
        pointer, query = self._language(language)
        if self._lib.parse_and_match(pointer, data, len(data), query, ctypes.byref(self._nodes),
                                     ctypes.byref(self._matches)) != 0:
            return None
        return self._nodes.value, self._matches.value


class NativeExtraction:
    """The loaded library: per language its grammar and the indexer's whole tags query
    (`grammars.tags_query`: its own patterns and identifier leaves too), compiled in C from
    the same text with the same patterns off, run with the indexer's match limit and its
    text predicates evaluated as the binding evaluates them: the floor of an extraction
    compiled to C, which must visit every match and capture the indexer's extraction reads."""

    def __init__(self, library: Path) -> None:
        self._lib = _load(library)
        self._languages: dict[str, tuple[int, int]] = {}
        self._nodes, self._matches, self._captures = ctypes.c_uint64(), ctypes.c_uint64(), ctypes.c_uint64()

    def _language(self, name: str) -> tuple[int, int]:
        found = self._languages.get(name)
        if found is None:
            from indexer.lang import grammars

            pointer = _grammar(name)
            # as grammars._tags decides, without compiling the query in Python too: its compact
            # form when that compiles whole, else its whole source with the unsupported patterns off
            compact = grammars.compact_patterns(grammars.tags_source(name), grammars.language(name))
            extraction = None
            if compact is not None:
                extraction = self._compile(pointer, "\n".join(compact[0]), [])
                if extraction and self._lib.extraction_patterns(extraction) != len(compact[0]):
                    self._lib.delete_extraction(extraction)
                    extraction = None
            if not extraction:
                text = grammars.tags_text(name)
                extraction = self._compile(pointer, text, grammars.unsupported_patterns(grammars.tags_query(name), text))
            if not extraction:
                raise NativeUnavailable(f"the tags query of {name} does not compile natively")
            found = self._languages[name] = (pointer, extraction)
        return found

    def _compile(self, pointer: int, text: str, off: list[int]) -> int | None:
        from indexer.extract.tags import MATCH_LIMIT

        encoded = text.encode()
        return self._lib.compile_extraction(pointer, encoded, len(encoded), MATCH_LIMIT,
                                            (ctypes.c_uint32 * len(off))(*off), len(off))

    def parse_and_extract(self, language: str, data: bytes) -> tuple[int, int, int] | None:
        """(nodes of the tree, matches of the whole query, their captures), None when no tree came."""
        pointer, extraction = self._language(language)
        if self._lib.parse_and_extract(pointer, data, len(data), extraction, ctypes.byref(self._nodes),
                                       ctypes.byref(self._matches), ctypes.byref(self._captures)) != 0:
            return None
        return self._nodes.value, self._matches.value, self._captures.value


if __name__ == "__main__":  # build it ahead: python -m benchmarks.native_floor
    try:
        print(build())
    except NativeUnavailable as exc:
        print(f"native_unavailable: {exc}", file=sys.stderr)
        sys.exit(1)
