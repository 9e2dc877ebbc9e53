"""Synthetic mixed-language repositories of a chosen size, with an import graph of known fan-in.

The generator writes blobs and trees straight into a bare Git repository with pygit2 (no
working tree), from a seeded RNG, so the same arguments give the same commit OIDs. Each
"unit" is a realistic-looking module (a class with methods, functions, constants, calls into
the units it imports) in one of Python, TypeScript, JavaScript, Go, Rust, Java or C (a C unit
is a .c file and its header). Imports are chosen with a skewed popularity, so a few hub
files have a large fan-in, as in real code; every import is written the way the indexer's
resolvers resolve it, and the expected edges and fan-in are returned and stored beside the
repository (`synthetic.json` in the bare repository directory).

Follow-up commits change a chosen share of the units (bodies only, imports kept, so the
fan-in stays the same): the "1% change" the incremental benchmark re-indexes.

    python -m corpora.synthetic --files 10000 --out DIR [--change-share 0.01] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from corpora.gitbuild import Content, RepoBuilder

# share of units per language (C units are two files each)
SHARES = {"python": 0.25, "typescript": 0.15, "javascript": 0.08, "go": 0.12, "rust": 0.12, "java": 0.16, "c": 0.12}
PACKAGE_SIZE = {"python": 40, "typescript": 40, "javascript": 40, "go": 8, "rust": 250, "java": 40, "c": 40}
MAX_IMPORTS = 4

NOUNS = ("Account", "Order", "Cache", "Index", "Parser", "Token", "Router", "Session", "Record", "Buffer",
         "Stream", "Config", "Metric", "Report", "Queue", "Batch", "Policy", "Schema", "Client", "Worker")
VERBS = ("load", "save", "merge", "split", "render", "validate", "apply", "flush", "resolve", "encode",
         "decode", "update", "reset", "compute", "collect", "publish")
WORDS = ("count", "limit", "offset", "name", "value", "total", "items", "state", "key", "size")


@dataclass
class Unit:
    language: str
    index: int  # global unit number
    package: int  # package (or crate) number within the language
    path: str  # the unit's main file
    header: str = ""  # C only
    imports: list[int] = field(default_factory=list)  # indices into the same language's unit list
    revision: int = 0  # bumped by follow-up commits

    @property
    def cls(self) -> str:
        return f"{NOUNS[self.index % len(NOUNS)]}{self.index:05d}"

    @property
    def fn(self) -> str:
        return f"{VERBS[self.index % len(VERBS)]}_{self.index:05d}"


@dataclass
class SyntheticCorpus:
    path: Path
    files: int
    commits: list[str]
    changed: list[list[str]]  # per follow-up commit, the paths it modified
    edges: set[tuple[str, str]]
    fan_in: dict[str, int]  # every code file, zeros included
    symbols: int  # definitions the units declare (see `_defs`), at the head
    languages: dict[str, int]  # files per language
    query_names: list[str]  # class names of the most imported units, for lookups
    query_functions: list[str]  # function names of the same units (called by every importer)
    seconds: float = 0.0

    def summary(self) -> dict:
        return {
            "path": str(self.path), "files": self.files, "commits": self.commits, "changed": self.changed,
            "symbols": self.symbols, "edges": len(self.edges), "languages": self.languages,
            "query_names": self.query_names,
            "query_functions": self.query_functions, "max_fan_in": max(self.fan_in.values(), default=0),
            "seconds": round(self.seconds, 2),
        }


# --- layout -------------------------------------------------------------------------------

def _plan(files: int) -> dict[str, int]:
    """Units per language so that units plus per-package overhead files come to `files`."""
    units = {lang: max(1, int(files * share / (2 if lang == "c" else 1))) for lang, share in SHARES.items()}
    while _count_files(units) > files and units["python"] > 1:
        units["python"] -= 1
    while _count_files(units) < files:
        units["python"] += 1
    return units


def _packages(lang: str, n: int) -> int:
    return -(-n // PACKAGE_SIZE[lang])


def _overhead(lang: str, n: int) -> int:
    if lang == "python":
        return 1 + _packages(lang, n)  # synth/__init__.py + one per package
    if lang in ("typescript", "javascript", "go"):
        return 2 if lang == "typescript" else 1  # package.json (+ tsconfig.json) / go.mod
    if lang == "rust":
        return 2 * _packages(lang, n)  # Cargo.toml + src/lib.rs per crate
    return 0


def _count_files(units: dict[str, int]) -> int:
    return sum(n * (2 if lang == "c" else 1) + _overhead(lang, n) for lang, n in units.items())


def _unit_path(lang: str, i: int, pkg: int) -> tuple[str, str]:
    if lang == "python":
        return f"python/src/synth/p{pkg:03d}/m{i:05d}.py", ""
    if lang == "typescript":
        return f"ts/src/p{pkg:03d}/m{i:05d}.ts", ""
    if lang == "javascript":
        return f"js/lib/p{pkg:03d}/m{i:05d}.js", ""
    if lang == "go":
        return f"go/p{pkg:04d}/m{i:05d}.go", ""
    if lang == "rust":
        return f"rust/crate{pkg:02d}/src/m{i:05d}.rs", ""
    if lang == "java":
        return f"java/src/main/java/com/synth/p{pkg:03d}/{NOUNS[i % len(NOUNS)]}{i:05d}.java", ""
    return f"c/src/p{pkg:03d}/u{i:05d}.c", f"c/include/synth/p{pkg:03d}/u{i:05d}.h"


def _choose_imports(rng: random.Random, units: list[Unit], lang: str) -> None:
    """Skewed popularity: unit k of a language is picked with weight 1/(rank+1) over a shuffled order."""
    order = list(range(len(units)))
    rng.shuffle(order)
    weights = [0.0] * len(units)
    for rank, k in enumerate(order):
        weights[k] = 1.0 / (rank + 1)
    cum: list[float] = []
    total = 0.0
    for w in weights:
        total += w
        cum.append(total)
    for pos, u in enumerate(units):
        want = rng.randint(0, MAX_IMPORTS)
        chosen: list[int] = []
        for _ in range(want * 3):
            if len(chosen) == want:
                break
            k = rng.choices(range(len(units)), cum_weights=cum, k=1)[0]
            t = units[k]
            if k == pos or k in chosen:
                continue
            if lang == "go" and t.package == u.package:
                continue  # a Go file cannot import its own package
            if lang == "rust" and t.package != u.package:
                continue  # `use crate::` stays inside the crate
            chosen.append(k)
        u.imports = sorted(chosen)


# --- sources ------------------------------------------------------------------------------

def _words(rng: random.Random, n: int) -> list[str]:
    return [rng.choice(WORDS) for _ in range(n)]


def _python(u: Unit, deps: list[Unit], rng: random.Random) -> str:
    lines = [f'"""{u.cls}: {rng.choice(VERBS)}s {u.cls.lower()} records (revision {u.revision})."""', ""]
    for d in deps:
        lines.append(f"from synth.p{d.package:03d} import m{d.index:05d}")
    lines += ["", f"LIMIT_{u.index:05d} = {rng.randint(10, 9999)}", "", ""]
    lines += [f"class {u.cls}:", f'    """Holds {", ".join(_words(rng, 3))}."""', "",
              "    def __init__(self, items=None):", "        self.items = list(items or [])", ""]
    for verb in rng.sample(VERBS, 3):
        a, b = _words(rng, 2)
        lines += [f"    def {verb}(self, {a}):", f"        {b} = len(self.items) + {rng.randint(1, 99)}",
                  f"        return {a} if {b} > LIMIT_{u.index:05d} else {b}", ""]
    lines += ["", f"def {u.fn}(value):", "    result = value"]
    for d in deps:
        lines.append(f"    result = m{d.index:05d}.{d.fn}(result)")
    lines += [f"    return {u.cls}([result]).items", ""]
    if u.revision:
        lines += ["", f"def revised_{u.index:05d}_{u.revision}():", f"    return {u.revision}", ""]
    return "\n".join(lines)


def _typescript(u: Unit, deps: list[Unit], rng: random.Random, js: bool = False) -> str:
    lines = [f"// {u.cls}: {rng.choice(VERBS)}s {u.cls.lower()} records (revision {u.revision})."]
    for d in deps:
        rel = f"./m{d.index:05d}" if d.package == u.package else f"../p{d.package:03d}/m{d.index:05d}"
        lines.append(f'import {{ {d.fn} }} from "{rel}{".js" if js else ""}";')
    t = "" if js else ": number"
    lines += ["", f"export const LIMIT_{u.index:05d} = {rng.randint(10, 9999)};", ""]
    if not js:
        lines += [f"export interface {u.cls}Options {{", f"  {rng.choice(WORDS)}: number;", "}", ""]
    lines += [f"export class {u.cls} {{", f"  items{'' if js else ': number[]'} = [];", ""]
    for verb in rng.sample(VERBS, 3):
        a, b = _words(rng, 2)
        lines += [f"  {verb}({a}{t}){t} {{", f"    const {b} = this.items.length + {rng.randint(1, 99)};",
                  f"    return {b} > LIMIT_{u.index:05d} ? {a} : {b};", "  }", ""]
    lines += ["}", "", f"export function {u.fn}(value{t}){t} {{", "  let result = value;"]
    for d in deps:
        lines.append(f"  result = {d.fn}(result);")
    lines += ["  return result;", "}", ""]
    if u.revision:
        lines += [f"export function revised{u.index:05d}R{u.revision}(){t} {{", f"  return {u.revision};", "}", ""]
    return "\n".join(lines)


def _go(u: Unit, deps: list[Unit], rng: random.Random) -> str:
    lines = [f"// Package p{u.package:04d}: {u.cls} (revision {u.revision}).", f"package p{u.package:04d}", ""]
    pkgs = sorted({d.package for d in deps})
    if pkgs:
        lines.append("import (")
        lines += [f'\t"example.com/synth/p{p:04d}"' for p in pkgs]
        lines += [")", ""]
    lines += [f"const Limit{u.index:05d} = {rng.randint(10, 9999)}", "",
              f"type {u.cls} struct {{", "\tItems []int", f"\t{rng.choice(WORDS).title()} int", "}", ""]
    for verb in rng.sample(VERBS, 3):
        a = rng.choice(WORDS)
        lines += [f"func (x *{u.cls}) {verb.title()}({a} int) int {{",
                  f"\tif len(x.Items)+{rng.randint(1, 99)} > Limit{u.index:05d} {{", f"\t\treturn {a}", "\t}",
                  "\treturn len(x.Items)", "}", ""]
    name = u.fn.title().replace("_", "")
    lines += [f"func {name}(value int) int {{", "\tresult := value"]
    for d in deps:
        lines.append(f"\tresult = p{d.package:04d}.{d.fn.title().replace('_', '')}(result)")
    lines += ["\treturn result", "}", ""]
    if u.revision:
        lines += [f"func Revised{u.index:05d}R{u.revision}() int {{", f"\treturn {u.revision}", "}", ""]
    return "\n".join(lines)


def _rust(u: Unit, deps: list[Unit], rng: random.Random) -> str:
    lines = [f"//! {u.cls} (revision {u.revision})."]
    for d in deps:
        lines.append(f"use crate::m{d.index:05d}::{d.fn};")
    lines += ["", f"pub const LIMIT_{u.index:05d}: usize = {rng.randint(10, 9999)};", "",
              f"pub struct {u.cls} {{", "    pub items: Vec<usize>,", "}", "", f"impl {u.cls} {{"]
    for verb in rng.sample(VERBS, 3):
        a = rng.choice(WORDS)
        lines += [f"    pub fn {verb}(&self, {a}: usize) -> usize {{",
                  f"        if self.items.len() + {rng.randint(1, 99)} > LIMIT_{u.index:05d} {{ {a} }} "
                  "else { self.items.len() }", "    }", ""]
    lines += ["}", "", f"pub fn {u.fn}(value: usize) -> usize {{", "    let mut result = value;"]
    for d in deps:
        lines.append(f"    result = {d.fn}(result);")
    lines += ["    result", "}", ""]
    if u.revision:
        lines += [f"pub fn revised_{u.index:05d}_{u.revision}() -> usize {{", f"    {u.revision}", "}", ""]
    return "\n".join(lines)


def _java(u: Unit, deps: list[Unit], rng: random.Random) -> str:
    lines = [f"package com.synth.p{u.package:03d};", ""]
    for d in deps:
        lines.append(f"import com.synth.p{d.package:03d}.{d.cls};")
    lines += ["import java.util.ArrayList;", "import java.util.List;", "",
              f"/** {u.cls} (revision {u.revision}). */", f"public class {u.cls} {{",
              f"    public static final int LIMIT = {rng.randint(10, 9999)};",
              "    private final List<Integer> items = new ArrayList<>();", ""]
    for verb in rng.sample(VERBS, 3):
        a = rng.choice(WORDS)
        lines += [f"    public int {verb}(int {a}) {{",
                  f"        return items.size() + {rng.randint(1, 99)} > LIMIT ? {a} : items.size();", "    }", ""]
    lines += [f"    public static int {u.fn}(int value) {{", "        int result = value;"]
    for d in deps:
        lines.append(f"        result = {d.cls}.{d.fn}(result);")
    lines += ["        return result;", "    }"]
    if u.revision:
        lines += ["", f"    public static int revised{u.revision}() {{", f"        return {u.revision};", "    }"]
    lines += ["}", ""]
    return "\n".join(lines)


def _c(u: Unit, deps: list[Unit], rng: random.Random) -> tuple[str, str]:
    guard = f"SYNTH_U{u.index:05d}_H"
    header = "\n".join([
        f"#ifndef {guard}", f"#define {guard}", "", "#include <stddef.h>", "",
        f"#define LIMIT_{u.index:05d} {rng.randint(10, 9999)}", "",
        f"struct {u.cls.lower()} {{", "    size_t count;", "    int *items;", "};", "",
        f"int {u.fn}(int value);", f"size_t {u.cls.lower()}_size(const struct {u.cls.lower()} *x);", "",
        "#endif", ""])
    lines = [f"/* {u.cls} (revision {u.revision}). */", "#include <stdlib.h>", "",
             f'#include "synth/p{u.package:03d}/u{u.index:05d}.h"']
    for d in deps:
        lines.append(f'#include "synth/p{d.package:03d}/u{d.index:05d}.h"')
    lines += ["", f"static int clamp_{u.index:05d}(int v) {{",
              f"    return v > LIMIT_{u.index:05d} ? LIMIT_{u.index:05d} : v;", "}", "",
              f"size_t {u.cls.lower()}_size(const struct {u.cls.lower()} *x) {{", "    return x ? x->count : 0;", "}",
              "", f"int {u.fn}(int value) {{", "    int result = value;"]
    for d in deps:
        lines.append(f"    result = {d.fn}(result);")
    lines += [f"    return clamp_{u.index:05d}(result);", "}", ""]
    if u.revision:
        lines += [f"int revised_{u.index:05d}_{u.revision}(void) {{", f"    return {u.revision};", "}", ""]
    return "\n".join(lines), header


def _defs(u: Unit) -> int:
    """Definitions a unit declares under the fixture conventions (classes, methods, functions, constants)."""
    extra = 1 if u.revision else 0
    return {
        "python": 1 + 1 + 4 + 1,  # constant, class, __init__ + 3 methods, function
        "typescript": 1 + 1 + 1 + 3 + 1,  # constant, interface, class, 3 methods, function
        "javascript": 1 + 1 + 3 + 1,
        "go": 1 + 1 + 3 + 1,
        "rust": 1 + 1 + 3 + 1,
        "java": 1 + 3 + 1,  # class, 3 methods, static function (fields are not counted)
        "c": 2 + 1 + 2 + 3,  # header: guard + LIMIT macros, struct, 2 prototypes; .c: 3 functions
    }[u.language] + extra


def _render(u: Unit, deps: list[Unit], seed: int) -> dict[str, Content]:
    rng = random.Random(f"{seed}:{u.language}:{u.index}:{u.revision}")
    if u.language == "python":
        return {u.path: _python(u, deps, rng)}
    if u.language in ("typescript", "javascript"):
        return {u.path: _typescript(u, deps, rng, js=u.language == "javascript")}
    if u.language == "go":
        return {u.path: _go(u, deps, rng)}
    if u.language == "rust":
        return {u.path: _rust(u, deps, rng)}
    if u.language == "java":
        return {u.path: _java(u, deps, rng)}
    source, header = _c(u, deps, rng)
    return {u.path: source, u.header: header}


def _manifests(units: dict[str, list[Unit]]) -> dict[str, Content]:
    out: dict[str, Content] = {"python/src/synth/__init__.py": '"""Synthetic corpus."""\n'}
    for pkg in sorted({u.package for u in units["python"]}):
        out[f"python/src/synth/p{pkg:03d}/__init__.py"] = ""
    out["ts/package.json"] = json.dumps({"name": "synth-ts", "version": "1.0.0", "main": "dist/index.js"}, indent=2) + "\n"
    out["ts/tsconfig.json"] = json.dumps({"compilerOptions": {"target": "ES2020", "outDir": "dist"},
                                          "include": ["src"]}, indent=2) + "\n"
    out["js/package.json"] = json.dumps({"name": "synth-js", "version": "1.0.0", "type": "module"}, indent=2) + "\n"
    out["go/go.mod"] = "module example.com/synth\n\ngo 1.22\n"
    for crate in sorted({u.package for u in units["rust"]}):
        out[f"rust/crate{crate:02d}/Cargo.toml"] = (
            f'[package]\nname = "synth-crate{crate:02d}"\nversion = "0.1.0"\nedition = "2021"\n')
        mods = [f"pub mod m{u.index:05d};" for u in units["rust"] if u.package == crate]
        out[f"rust/crate{crate:02d}/src/lib.rs"] = f"//! Crate {crate}.\n\n" + "\n".join(mods) + "\n"
    return out


# --- the generator ------------------------------------------------------------------------

def _layout(files: int, seed: int) -> dict[str, list[Unit]]:
    rng = random.Random(seed)
    plan = _plan(files)
    units: dict[str, list[Unit]] = {}
    n = 0
    for lang in SHARES:
        lst = []
        for k in range(plan[lang]):
            pkg = k // PACKAGE_SIZE[lang]
            path, header = _unit_path(lang, n, pkg)
            lst.append(Unit(lang, n, pkg, path, header))
            n += 1
        _choose_imports(rng, lst, lang)
        units[lang] = lst
    return units


def _edges(units: dict[str, list[Unit]]) -> set[tuple[str, str]]:
    edges: set[tuple[str, str]] = set()
    for lang, lst in units.items():
        by_pkg: dict[int, list[str]] = {}
        for u in lst:
            by_pkg.setdefault(u.package, []).append(u.path)
        for u in lst:
            deps = [lst[k] for k in u.imports]
            if lang == "go":  # an import names a package: every file of its directory
                for p in {d.package for d in deps}:
                    edges.update((u.path, t) for t in by_pkg[p])
            elif lang == "c":
                edges.add((u.path, u.header))
                edges.update((u.path, d.header) for d in deps)
            else:
                edges.update((u.path, d.path) for d in deps)
        if lang == "rust":  # lib.rs declares every module of its crate
            for u in lst:
                edges.add((f"rust/crate{u.package:02d}/src/lib.rs", u.path))
    return edges


def generate(out: str | Path, files: int = 1000, seed: int = 0, change_share: float = 0.01,
             follow_ups: int = 1) -> SyntheticCorpus:
    """Write a bare repository at `out`: one base commit of about `files` files, then `follow_ups`
    commits each changing `change_share` of the units (at least one)."""
    started = time.perf_counter()
    out = Path(out)
    units = _layout(files, seed)
    flat = [u for lst in units.values() for u in lst]
    tree: dict[str, Content] = _manifests(units)
    for _lang, lst in units.items():
        for u in lst:
            tree.update(_render(u, [lst[k] for k in u.imports], seed))
    builder = RepoBuilder(out, bare=True)
    commits = [builder.commit(tree, message=f"synthetic corpus: {len(tree)} files (seed {seed})")]
    builder.tag("base", commits[0])
    changed: list[list[str]] = []
    rng = random.Random(f"{seed}:changes")
    for step in range(1, follow_ups + 1):
        pick = rng.sample(flat, max(1, round(len(flat) * change_share)))
        change: dict[str, Content] = {}
        for u in sorted(pick, key=lambda u: u.index):
            u.revision = step
            lst = units[u.language]
            rendered = _render(u, [lst[k] for k in u.imports], seed)
            change[u.path] = rendered[u.path]  # a C header keeps its text: only the .c body changes
        commits.append(builder.commit(change, message=f"change {len(change)} files ({change_share:.1%})"))
        changed.append(sorted(change))
    edges = _edges(units)
    code_files = [u.path for u in flat] + [u.header for u in flat if u.header]
    code_files += [p for p in tree if p.endswith((".py", ".rs"))]
    fan_in = {p: 0 for p in code_files}
    for _s, t in edges:
        fan_in[t] += 1
    langs = Counter(u.language for u in flat)
    langs["c"] *= 2
    top = sorted(flat, key=lambda u: (-fan_in[u.header or u.path], u.index))[:10]
    corpus = SyntheticCorpus(
        path=out, files=len(tree), commits=commits, changed=changed, edges=edges, fan_in=fan_in,
        symbols=sum(_defs(u) for u in flat), languages=dict(sorted(langs.items())),
        query_names=[u.cls for u in top],
        query_functions=[u.fn.title().replace("_", "") if u.language == "go" else u.fn for u in top], seconds=time.perf_counter() - started)
    expected = corpus.summary() | {"fan_in": fan_in}
    if len(edges) <= 50_000:
        expected["edge_list"] = sorted(edges)
    (out / "synthetic.json").write_text(json.dumps(expected, indent=1, sort_keys=True))
    return corpus


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m corpora.synthetic", description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=10_000, help="files in the base commit (default 10000)")
    ap.add_argument("--out", required=True, help="directory for the bare repository (must not exist)")
    ap.add_argument("--change-share", type=float, default=0.01, help="share of units each follow-up changes")
    ap.add_argument("--follow-ups", type=int, default=1, help="follow-up commits (default 1)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if Path(args.out).exists():
        print(f"bad_input: {args.out} already exists; choose a new --out directory", file=sys.stderr)
        return 1
    if args.files < 50 or not 0 < args.change_share <= 1:
        print("bad_input: --files must be >= 50 and --change-share in (0, 1]", file=sys.stderr)
        return 1
    corpus = generate(args.out, args.files, args.seed, args.change_share, args.follow_ups)
    summary = corpus.summary() | {"changed": [len(c) for c in corpus.changed]}
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
