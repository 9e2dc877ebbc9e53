"""How precise `context.references` is on TypeScript and JavaScript, against the TypeScript
language service (issue 26, item 5; the Python half, against Jedi, is benchmarks/precision.py).

The same measure as the Python half, on npm registry corpora: for a sample of symbols of each
kind (class, function, method, variable) chosen by the same fixed rule over the tree's
JavaScript and TypeScript files (the package's own sources: not `dist/`, `build/`, tests, nor
`.d.ts` declarations), but for methods, of which the most written four are too few to judge
(a method's name is written mostly on receivers, and most of the four had no reference at all):
every method of those files (`precision.every_method`: a member of a named container, neither
private nor a constructor, one definition a qualified name), whatever its references, in the
order of the SHA-256 of its qualified name, the first `--methods N` when capped; `--methods
written` measures the methods of the earlier pages (the four most written). Rennet's resolved sites (rule neither `name` nor `text file`, attributed
to the definition) are compared with what the language service's `findReferences` answers from
the definition's name:

- precision: the share of Rennet's resolved sites the service confirms: among its references,
  or its go-to-definition from the site lands on the definition's line; a site from which its
  go-to-definition names no definition at all (a receiver it types `any`) is undecided, counted
  apart, and precision is over the decided sites, the strict figure beside it (as the Python half);
- recall: the share of the service's references that Rennet lists as resolved.

The service's references are those of the definition's own symbol, less its declarations (its
name, an overload's other signatures, a setter beside its getter), and of its aliases (an
import or export specifier, a `require` binding) with their uses; a symbol the service relates
to it but is another (the interface member a class implements, a base's member, a property of
a contextual type such as the default library's `PropertyDescriptor.get`) is left out, as
Rennet answers for such a member on its own.

The service (TypeScript `TS_VERSION`, the JavaScript API; TypeScript 7 is a port without it)
reads every JavaScript and TypeScript file of the checked-out tree as one program, `allowJs`
and `checkJs` on, `noImplicitThis` on (part of the `strict` that `tsc --init` writes: `this` in an object
literal's methods is then the literal's type, so the service can judge a `this.m()` there), CommonJS `require` and Node's resolution, the ES2022 and DOM libraries and no
`@types`: a package's imports of itself are read from the tree, its dependencies are absent.
A declaration file beside the JavaScript it declares is left out (the service would
read it for the code), and so is a reference in a comment (a JSDoc `{@link name}`). It runs in
Node (`benchmarks/ts_references.cjs`, one JSON request, one answer). Node and the
TypeScript package are benchmark dependencies, never runtime ones: TypeScript is fetched once
with `npm pack` into the corpora cache (`$RENNET_CORPORA_CACHE`) and unpacked there (it has no
dependencies of its own), then the benchmark runs offline.

    python -m benchmarks.precision_ts --corpus /tmp/corp/mobx.git --corpus /tmp/corp/express.git
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from dataclasses import asdict
from pathlib import Path

from benchmarks import precision
from benchmarks.precision import Measured, Spot
from indexer.contract.errors import RennetError

TS_VERSION = "5.9.3"
DRIVER = Path(__file__).resolve().parent / "ts_references.cjs"
CODE = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")  # what the program reads
ANALYZER = f"TypeScript {TS_VERSION} language service"
DECLARED = ((".d.ts", ".js"), (".d.mts", ".mjs"), (".d.cts", ".cjs"))  # a declaration and its code
DRIVER_TIMEOUT = 3600


class AnalyzerUnavailable(RennetError):
    code = "analyzer_unavailable"


def node() -> str:
    found = shutil.which("node")
    if not found:
        raise AnalyzerUnavailable("node is not on PATH: the TypeScript precision benchmark needs Node.js")
    return found


def typescript(cache: Path | None = None, fetch_missing: bool = True) -> Path:
    """typescript.js of the pinned release, unpacked once in the corpora cache from its npm
    tarball. Without `fetch_missing`, from the cache alone (unpacked, or its tarball there): the
    registry is never asked."""
    from corpora.registry_corpus import CorpusSpec, RegistryUnavailable, cache_dir, cached_archive, fetch

    cache = cache or cache_dir()
    home = cache / "precision-ts" / f"typescript-{TS_VERSION}"
    lib = home / "package" / "lib" / "typescript.js"
    if lib.is_file():
        return lib
    spec = CorpusSpec("typescript", "npm", "typescript", (TS_VERSION,))
    if not fetch_missing and cached_archive(spec, TS_VERSION, cache) is None:
        raise AnalyzerUnavailable(f"TypeScript {TS_VERSION} is not in the cache ({home}); "
                                  f"python -m benchmarks.precision_ts fetches it")
    if shutil.which("npm") is None and not any((cache / "npm" / "typescript").glob(f"typescript-{TS_VERSION}.*")):
        raise AnalyzerUnavailable(f"npm is not on PATH and TypeScript {TS_VERSION} is not in the cache ({cache})")
    try:
        tarball = fetch(spec, TS_VERSION, cache)
    except RegistryUnavailable as exc:
        raise AnalyzerUnavailable(str(exc)) from None
    partial = home.with_name(home.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    try:
        with tarfile.open(tarball) as tar:
            tar.extractall(partial, filter="data")
    except (tarfile.TarError, OSError) as exc:
        raise AnalyzerUnavailable(f"{tarball.name} could not be unpacked: {exc}") from None
    shutil.rmtree(home, ignore_errors=True)
    partial.rename(home)
    if not lib.is_file():
        raise AnalyzerUnavailable(f"{tarball.name} holds no lib/typescript.js")
    return lib


def ask(lib: Path, tree: Path, files: list[str], references: list[Spot], goto: list[Spot]) -> dict:
    """One request to the driver: the references from each position, the definitions each goes to."""
    request = {"typescript": str(lib), "root": str(tree), "files": files,
               "references": [list(s) for s in references], "goto": [list(s) for s in goto]}
    try:
        run = subprocess.run([node(), str(DRIVER)], input=json.dumps(request), capture_output=True, text=True,
                             timeout=DRIVER_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise AnalyzerUnavailable(f"the TypeScript driver could not run: {exc}") from None
    if run.returncode != 0:
        last = (run.stderr.strip().splitlines() or ["no output"])[-1][:200]
        raise AnalyzerUnavailable(f"the TypeScript driver failed: {last}")
    return json.loads(run.stdout)


def program_files(tree: Path) -> list[str]:
    """Every JavaScript and TypeScript file of the tree, relative, sorted, but a declaration
    beside the JavaScript it declares (date-fns' addDays.d.ts by addDays.js): the service would
    read it for the code (`require("./addDays.js")` finds addDays.d.ts first), Node runs the code."""
    found = {p.relative_to(tree).as_posix() for p in tree.rglob("*")
             if p.is_file() and p.name.endswith(CODE) and "node_modules" not in p.parts}
    return sorted(f for f in found if not any(
        f.endswith(d) and f[: -len(d)] + js in found for d, js in DECLARED))


def name_col(line: bytes, name: str) -> int:
    """The byte column of the definition's name on its line: its first occurrence as a whole
    word past a declaring keyword (`class Atom`, `function get(`, `app.use = function use(`
    names the property first, which is the symbol)."""
    found = re.search(rb"(?<![\w$])" + re.escape(name.encode()) + rb"(?![\w$])", line)
    return found.start() if found else 0


def measure_corpus(repo: Path, work: Path, per_kind: int, lib: Path, log=print,
                   methods: int | None = 0) -> list[Measured]:
    """One corpus' rows; `methods` as `precision.sample`'s (None: the methods most written)."""
    label, rev, tree, snap, client = precision.open_corpus(repo, work, "precision-ts")
    lines: dict[str, list[bytes]] = {}
    chosen = precision.sample(snap, per_kind, CODE, methods)
    files = program_files(tree)
    ours: list[dict[Spot, str]] = []
    defs: list[Spot] = []
    for _, path, sym in chosen:
        sites = precision.rennet_sites(client, str(repo), rev, sym.qualified, path, sym.line)
        ours.append({(p, ln, precision._char_col(lines, tree, p, ln, c, utf16=True)): rule
                     for p, ln, c, rule in sites})
        text = (tree / path).read_bytes().splitlines()[sym.line - 1]
        defs.append((path, sym.line, precision._char_col(lines, tree, path, sym.line, name_col(text, sym.name),
                                                         utf16=True)))
    started = time.perf_counter()
    found = ask(lib, tree, files, defs, [])
    theirs = [{(p, ln, c) for p, ln, c in refs} - {d} for refs, d in zip(found["references"], defs)]
    unconfirmed = sorted({s for mine, refs in zip(ours, theirs) for s in mine if s not in refs})
    gone = dict(zip(unconfirmed, ask(lib, tree, files, [], unconfirmed)["goto"])) if unconfirmed else {}
    for err in found.get("errors", []):
        log(f"[{label}] the service: {err}")
    out = []
    for (kind, path, sym), mine, refs in zip(chosen, ours, theirs):
        m = precision.compare(label, kind, sym.qualified, path, sym.line, mine, refs,
                              lambda site: precision.verdict([tuple(d) for d in gone.get(site, [])], (path, sym.line)),
                              ANALYZER)
        m.tree = str(tree)
        log(f"[{label}] {kind} {sym.qualified} ({path}:{sym.line}): rennet {m.rennet}, typescript {m.theirs}, "
            f"confirmed {m.confirmed}, undecided {len(m.undecided)}, listed {m.listed}")
        out.append(m)
    if out:
        out[0].seconds = time.perf_counter() - started
    return out


def run_precision(corpora: list[Path], work: Path, per_kind: int = precision.PER_KIND,
                  fetch_missing: bool = True, methods: int | None = 0) -> list[dict]:
    """Every npm corpus measured (benchmarks.run calls this for its report, `fetch_missing`
    False: offline): rows as plain data."""
    node()
    lib = typescript(fetch_missing=fetch_missing)
    rows = []
    for repo in corpora:
        meta = json.loads((repo / "corpus.json").read_text())
        if meta.get("ecosystem") != "npm":
            continue
        rows += [asdict(m) for m in measure_corpus(repo, work, per_kind, lib,
                                                   log=lambda s: print(s, file=sys.stderr), methods=methods)]
    return rows


def method_sample(value: str) -> int | None:
    """`--methods`: every (0, no cap), a cap N, or written (None: the methods most written)."""
    if value == "every":
        return 0
    if value == "written":
        return None
    if value.isdigit() and int(value) > 0:
        return int(value)
    raise BadMethodSample(f"--methods takes every, written or a positive number, not {value!r}")


class BadMethodSample(RennetError):
    code = "bad_argument"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.precision_ts", description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", action="append", required=True, help="an npm registry corpus repository; repeatable")
    ap.add_argument("--per-kind", type=int, default=precision.PER_KIND)
    ap.add_argument("--methods", default="every", metavar="every|N|written",
                    help="the methods measured: every method (the default), the first N by the hash of the "
                         "qualified name, or the --per-kind most written (the sample of the earlier pages)")
    ap.add_argument("--work", default=os.environ.get("RENNET_BENCH_WORK", "/tmp/rennet-bench"))
    ap.add_argument("--out", default=str(precision.RESULTS / "precision-ts-latest.json"))
    ap.add_argument("--wrong", type=int, default=0, help="list this many wrong and missed sites per symbol")
    args = ap.parse_args(argv)
    from benchmarks.host import machine

    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    try:
        methods = method_sample(args.methods)
        data = run_precision([Path(c) for c in args.corpus], Path(args.work), args.per_kind, methods)
    except RennetError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    info = machine()
    rows = precision.rows_of(data)
    how = "" if methods is None else (" (methods: every method of the package's own files" + (
        f", the first {methods} by the SHA-256 of the qualified name)" if methods else ")"))
    lines = precision.table(rows, how)
    if args.wrong:
        lines += precision.listing(rows, args.wrong)
    print("\n".join(lines))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"machine": info, "started": started, "typescript": TS_VERSION,
                                          "methods": args.methods, "rows": data, "summary": precision.summary(rows)}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
