"""Definitions side by side with Universal Ctags: of the tags ctags writes for the files a
snapshot parsed, how many the snapshot holds too (same path, name and line), and what
each finds that the other does not.

Untimed, and no verdict: the two tools do not mean the same by a definition. ctags tags
imports (Python `import x` and `from m import y as z`, PHP `use`), package clauses, Rust
`impl` blocks and JavaScript object-literal keys, which the Repo Map keeps as imports,
scopes or occurrences, not symbols: those tags are counted apart (`not_definitions`), the
rest compared, and so are the names ctags makes up for what has none in the source
(`AnonymousFunction3f2a`, `__anon1b2c`). ctags' JavaScript parser also calls object literals
classes; the
snapshot holds methods in object literals and class fields ctags leaves out. The kinds of
either side's extras are listed so a reader sees which is which.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from pathlib import Path

TOP_KINDS = 4
ANONYMOUS = re.compile(r"(?:AnonymousFunction|__anon)[0-9a-f]+$")  # ctags' names for nameless things

# ctags kinds, per language of the file, that name no definition in the Repo Map's sense
NOT_DEFINITIONS: dict[str, frozenset[str]] = {
    "python": frozenset({"unknown", "namespace"}),  # import aliases and imported modules
    "go": frozenset({"package", "packageName"}),
    "java": frozenset({"package"}),
    "rust": frozenset({"implementation"}),
    "php": frozenset({"alias"}),
    "javascript": frozenset({"property"}),
}


def ctags_tags(tags_json: Path) -> dict[tuple[str, str, int], str]:
    """(path, name, line) -> kind, from `ctags --output-format=json --fields=+n` run in the
    tree's root."""
    out: dict[tuple[str, str, int], str] = {}
    with open(tags_json, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            try:
                tag = json.loads(line)
            except ValueError:
                continue
            if tag.get("_type") != "tag" or "line" not in tag:
                continue
            path = tag["path"][2:] if tag["path"].startswith("./") else tag["path"]
            out[(path, tag["name"], tag["line"])] = tag.get("kind", "?")
    return out


def compare(tags: dict[tuple[str, str, int], str], parsed: dict[str, str],
            symbols: dict[tuple[str, str, int], str]) -> dict:
    """`parsed`: path -> language of each file the snapshot parsed (not skipped); `symbols`:
    (path, name, line) -> kind of its symbols. Per language and in all."""
    Side = dict[tuple[str, str, int], str]
    theirs: dict[str, Side] = defaultdict(dict)  # by language, in one pass over each side
    ours: dict[str, Side] = defaultdict(dict)
    apart: Counter[str] = Counter()
    for k, kind in tags.items():
        language = parsed.get(k[0])
        if language is None:
            continue
        if ANONYMOUS.match(k[1]):
            apart["anonymous"] += 1
        elif kind in NOT_DEFINITIONS.get(language, ()):
            apart[kind] += 1
        else:
            theirs[language][k] = kind
    for k, kind in symbols.items():
        language = parsed.get(k[0])
        if language is not None:
            ours[language][k] = kind
    languages = sorted(theirs.keys() | ours.keys())
    return {"all": _side_by_side({k: v for x in theirs.values() for k, v in x.items()},
                                 {k: v for x in ours.values() for k, v in x.items()}),
            "languages": {language: _side_by_side(theirs.get(language, {}), ours.get(language, {}))
                          for language in languages},
            "not_definitions": sorted(apart.items())}


def _side_by_side(theirs: dict[tuple[str, str, int], str], ours: dict[tuple[str, str, int], str]) -> dict:
    both = theirs.keys() & ours.keys()
    only_ctags = Counter(theirs[k] for k in theirs.keys() - both)
    only_rennet = Counter(ours[k] for k in ours.keys() - both)
    return {"ctags": len(theirs), "rennet": len(ours), "both": len(both),
            "only_ctags": sum(only_ctags.values()), "only_rennet": sum(only_rennet.values()),
            "only_ctags_kinds": only_ctags.most_common(TOP_KINDS),
            "only_rennet_kinds": only_rennet.most_common(TOP_KINDS)}


# --- per-language agreement on source trees, straight from the extractor ------------------
#
# `python -m benchmarks.agreement [TREE ...]`: each file of each tree is extracted as the
# indexer extracts a blob (`extract_blob`, language from the name, then the content) and
# Universal Ctags is run over the same tree. ctags' artefacts are classified by rule, never
# by hand, and set apart; each remaining ctags definition the extraction lacks is listed.
# Without trees: the annotated definition fixtures, the polyglot corpus, and what is at hand
# (the cached registry archives, the system's C headers). No network.

# ctags' language names -> ours, for the languages both read
CTAGS_LANGUAGES = {"C": "c", "C++": "cpp", "CUDA": "cpp", "Java": "java", "TypeScript": "typescript",
                   "JavaScript": "javascript", "Python": "python", "Go": "go", "Rust": "rust", "C#": "csharp",
                   "Ruby": "ruby", "PHP": "php", "Sh": "bash", "Zsh": "zsh"}
# kinds ctags reports that are no definition of a name in a file: imports, package clauses,
# `impl` blocks, JS object-literal keys (as NOT_DEFINITIONS), and C/C++ `#undef`s
ARTEFACT_KINDS: dict[str, frozenset[str]] = {
    **NOT_DEFINITIONS,
    "c": frozenset({"header", "macroparam", "local", "parameter", "label"}),
    "cpp": frozenset({"header", "macroparam", "local", "parameter", "label", "using"}),
    "bash": frozenset({"heredoc", "script"}),
    "zsh": frozenset({"heredoc", "script"}),
}
_CALL_LINE = re.compile(r"^\s*([A-Za-z_]\w*)\s*\(.*\)\s*;?\s*(?://.*|/\*.*)?$")
_HAS_TYPE = re.compile(r"^\s*(?:[A-Za-z_][\w:<>,]*[\s*&]+)+[A-Za-z_~]")


_ALIAS_DEFINED = re.compile(r"\balias\b.*?[\s-](?P<name>[^\s=]+)=")
# a line ending in a type: `int`, `char *`, or an export macro wrapping one, `XMLPARSEAPI(void)`
_RETURN_TYPE_LINE = re.compile(r"[\w*&>]\s*$|^\s*[A-Z_][A-Z0-9_]*\s*\([^()]*\)\s*$")
_LOCAL_SCOPES = frozenset({"function", "method", "arrow", "constructor", "getter", "setter"})
# a macro as projects spell them (all capitals with an underscore: PYBIND11_MODULE, TEST_CASE)
_MACRO_CALL = re.compile(r"[A-Z][A-Z0-9]*_[A-Z0-9_]*\s*\(")
# a line of type words alone, a GNU-style return type (`static int`, `const char *`)
_TYPE_WORDS_LINE = re.compile(r"^\s*[A-Za-z_][\w:<>,]*(?:[\s*&]+[A-Za-z_][\w:<>,]*)*[\s*&]*$")  # no nested repeats
_INVOKED_KINDS = frozenset({"function", "prototype", "variable", "typedef", "member", "class", "struct"})
_MACRO_HEAD = re.compile(r"^\s*[A-Z][A-Z0-9]*_[A-Z0-9_]*\s*\(.*\)\s*\{?\s*(?://.*)?$")


def artefact(language: str, kind: str, name: str, line_text: str, end: int | None, scope_kind: str = "",
             previous: str = "", following: str = "", enclosing: tuple[str, ...] = (), quoted: bool = False) -> str:
    """Why a ctags tag is no definition, by rule ("" when it is one): a kind that names
    none; a name ctags made up (`AnonymousFunction3f2a`, `__anon1b2c`); a name not written on
    its line; in C and C++, a `function` whose line is a call or a macro invocation (a name and
    its arguments alone, no type: `free(m);`, `MOCK_METHOD(int, Foo, (int));`), a macro's name
    where it is invoked (`PYBIND11_MODULE(m, mod) {`), or a variable in the body a macro invocation
    opens (`enclosing`: the lines opening the brace blocks around the tag's line); in a shell
    script, a function inside a quoted string (`quoted`: an awk program passed to `awk '...'`)."""
    if kind in ARTEFACT_KINDS.get(language, ()):
        return kind
    if ANONYMOUS.match(name):
        return "anonymous"
    bare = name.rsplit("::", 1)[-1].rsplit(".", 1)[-1]
    if bare not in line_text:
        return "not_on_its_line"
    if scope_kind in _LOCAL_SCOPES and kind in ("constant", "variable", "local") and language in (
            "javascript", "typescript", "tsx"):
        return "local"  # a binding in a function body
    if language in ("bash", "zsh") and quoted:
        return "in_a_string"  # `awk 'function mark(p, s) {...}'`: another language's function, in a string
    if language in ("bash", "zsh") and kind == "alias" and f"{bare}=" not in line_text:
        return "alias_printed"  # `alias ll` prints an alias and defines none
    if language in ("typescript", "javascript"):
        why = _script_artefact(kind, bare, line_text)
        if why:
            return why
    if language in ("typescript", "javascript") and re.search(rf"[{{,]\s*{re.escape(bare)}\s*:", line_text) \
            and re.match(r"\s*(?:export\s+)?(?:const|let|var)\s*\{", line_text):
        return "destructured_key"  # `const { c: renamed } = x` binds `renamed`, not the key `c`
    if language in ("c", "cpp"):
        if previous.lstrip().startswith("#"):
            previous = ""  # a directive's line is no return type (`#include <x.h>` ends in `>`)
        at = line_text.find(bare)
        invoked = at >= 0 and _MACRO_CALL.match(line_text, at) is not None
        if invoked and kind in _INVOKED_KINDS and not line_text.lstrip().startswith("#") and (
                kind not in ("function", "prototype") or (
                    not line_text[:at].strip() and (previous.rstrip().endswith(":")  # `public:`
                                                    or not _TYPE_WORDS_LINE.match(previous)))):
            # `PYBIND11_MODULE(m, mod) {`, `TEST_CASE("x") {`, `typedef PNG_CALLBACK(void, *png_rw_ptr, ...)`:
            # the name of a macro invoked, which ctags takes for what the expansion defines
            return "macro_invocation"
        if kind in ("variable", "local") and scope_kind == "" and enclosing and any(
                _MACRO_HEAD.match(opener) for opener in enclosing):
            return "local"  # a binding in the body a macro invocation opens (Catch2's TEST_CASE("x") { ... })
    if language in ("c", "cpp") and kind in ("function", "prototype"):
        call = _CALL_LINE.match(line_text)
        if call is not None and call.group(1) == bare and not _HAS_TYPE.match(line_text) and \
                not _RETURN_TYPE_LINE.search(previous) and scope_kind not in ("class", "struct") and \
                not (not line_text.rstrip().endswith(";") and following.lstrip().startswith("{")):
            return "call_statement"  # (not a head whose return type is on the line before, nor a constructor,
            # nor a head whose body opens on the next line: a constructor whose class the parser lost)
    return ""


def _script_artefact(kind: str, bare: str, line_text: str) -> str:
    """Tags ctags makes of JavaScript that name no definition written there: a class inferred
    from an assignment to its prototype (`Foo.prototype.m = ...` where Foo is defined
    elsewhere), `exports` of `module.exports = function ...`, the own name of a function
    expression a variable holds (`var x = function y() {}` defines x), and a shorthand
    property (`module.exports = { clean }` names clean, defined above)."""
    name = re.escape(bare)
    line_text = line_text.split("//", 1)[0]  # a trailing comment is no code (roughly: not a URL's)
    if kind == "class" and re.search(rf"\b{name}\.prototype\b", line_text) \
            and not re.search(rf"\b(?:class|function)\s+{name}\b", line_text):
        return "prototype_class"
    if bare == "exports" and re.search(r"\bmodule\.exports\s*=", line_text):
        return "module_exports"
    held = re.search(rf"\b(?:var|let|const)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?function\s*\*?\s*{name}\b", line_text)
    if kind == "function" and held is not None and held.group(1) != bare:
        return "expression_name"
    if kind in ("field", "property") and re.search(rf"[{{,]\s*{name}\s*[,}}]", line_text) \
            and not re.search(rf"\b{name}\s*:", line_text):
        return "shorthand_property"
    return ""


def quoted_lines(lines: list[str]) -> list[bool]:
    """For each line of a shell script, does it begin inside a quoted string opened on an earlier
    line (`awk '` ... `'`)? Comments, escapes and `$'...'` read roughly, as the rest of these rules."""
    out: list[bool] = []
    quote = ""
    for line in lines:
        out.append(bool(quote))
        i = 0
        while i < len(line):
            c = line[i]
            if quote == "'":
                quote = "" if c == "'" else quote
            elif quote == '"':
                if c == "\\":
                    i += 1
                elif c == '"':
                    quote = ""
            elif c == "\\":
                i += 1
            elif c == "#" and (i == 0 or line[i - 1] in " \t;|&("):
                break  # a comment to the end of the line
            elif c in "'\"":
                quote = c
            i += 1
    return out


_NOT_CODE = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|//.*')


def block_openers(lines: list[str]) -> list[tuple[str, ...]]:
    """For each line of a C or C++ file, the lines that open the brace blocks it is inside,
    outermost first (strings, characters and `//` comments set aside; a rough reading, as the
    rest of these rules)."""
    out: list[tuple[str, ...]] = []
    stack: list[str] = []
    for line in lines:
        out.append(tuple(stack))
        for c in _NOT_CODE.sub("", line):
            if c == "{":
                stack.append(line)
            elif c == "}" and stack:
                stack.pop()
    return out


def run_ctags(tree: Path) -> list[dict]:
    import subprocess
    done = subprocess.run(["ctags", "-R", "--output-format=json", "--fields=+nKleZ", "--extras=-F", "-f", "-",
                           "."], cwd=tree, capture_output=True, text=True, errors="replace", check=False)
    tags = []
    for line in done.stdout.splitlines():
        try:
            tag = json.loads(line)
        except ValueError:
            continue
        if tag.get("_type") == "tag" and "line" in tag:
            tag["path"] = tag["path"][2:] if tag["path"].startswith("./") else tag["path"]
            tags.append(tag)
    return tags


def ours_of(tree: Path) -> tuple[dict[str, str], dict[tuple[str, str, int], str]]:
    """path -> language of each file extracted (not skipped), and (path, name, line) -> kind."""
    from indexer.extract.blob import extract_blob
    from indexer.lang.registry import CONTENT_DECIDES, GRAMMAR_LANGUAGES, detect_language, name_language
    languages: dict[str, str] = {}
    symbols: dict[tuple[str, str, int], str] = {}
    for file in sorted(tree.rglob("*")):
        if not file.is_file() or ".git" in file.parts:
            continue
        path = file.relative_to(tree).as_posix()
        data = file.read_bytes()
        language = name_language(path)
        if language in CONTENT_DECIDES:
            language = detect_language(path, data[:8192])
        if language not in GRAMMAR_LANGUAGES:
            continue
        facts = extract_blob(data, path, language, 1 << 20, sites=False)
        if facts.skipped:
            continue
        languages[path] = facts.language
        for s in facts.symbols:
            symbols[(path, s.name, s.line)] = s.kind
    return languages, symbols


def agreement(trees: list[Path], misses: int = 40) -> dict:
    """Per language: ctags' definitions (artefacts set apart, by rule), how many the
    extraction holds at the same path, name and line, and the misses listed."""
    table: dict[str, dict] = {}
    for tree in trees:
        languages, ours = ours_of(tree)
        names = {(p, n) for p, n, _ in ours}
        lines_of: dict[str, list[str]] = {}
        openers_of: dict[str, list[tuple[str, ...]]] = {}
        quoted_of: dict[str, list[bool]] = {}
        for (path, name, line), kind in ours.items():
            # our own symbols made of statements that declare nothing (the same rule as ctags')
            if kind in ("function", "method") and languages[path] in ("c", "cpp"):
                if path not in lines_of:
                    lines_of[path] = (tree / path).read_text(encoding="utf-8", errors="replace").splitlines()
                text = lines_of[path][line - 1] if line <= len(lines_of[path]) else ""
                before = lines_of[path][line - 2] if 2 <= line <= len(lines_of[path]) + 1 else ""
                after = lines_of[path][line] if line < len(lines_of[path]) else ""
                scope = "class" if kind == "method" else ""  # a method named alone is a constructor
                if artefact(languages[path], "function", name, text, None, scope, before, after) in (
                        "call_statement", "macro_invocation"):
                    row = table.setdefault(languages[path], {"ctags": 0, "matched": 0, "artefacts": Counter(),
                                                             "misses": []})
                    row.setdefault("statements", []).append(f"{tree.name}/{path}:{line} {kind} {name}")
        for tag in run_ctags(tree):
            path = tag["path"]
            language = languages.get(path)
            theirs = CTAGS_LANGUAGES.get(tag.get("language", ""))
            if language is None or theirs is None or (theirs != language and {theirs, language} != {"c", "cpp"}):
                continue  # a file both read, as the same language (a `.h` is C or C++ by its content)
            if path not in lines_of:
                lines_of[path] = (tree / path).read_text(encoding="utf-8", errors="replace").splitlines()
            text = lines_of[path][tag["line"] - 1] if tag["line"] <= len(lines_of[path]) else ""
            row = table.setdefault(language, {"ctags": 0, "matched": 0, "artefacts": Counter(), "misses": []})
            before = lines_of[path][tag["line"] - 2] if 2 <= tag["line"] <= len(lines_of[path]) + 1 else ""
            after = lines_of[path][tag["line"]] if tag["line"] < len(lines_of[path]) else ""
            enclosing: tuple[str, ...] = ()
            quoted = False
            if language in ("bash", "zsh"):
                if path not in quoted_of:
                    quoted_of[path] = quoted_lines(lines_of[path])
                quoted = tag["line"] <= len(lines_of[path]) and quoted_of[path][tag["line"] - 1]
            if language in ("c", "cpp") and tag.get("kind") == "variable" and not tag.get("scopeKind"):
                if path not in openers_of:
                    openers_of[path] = block_openers(lines_of[path])
                enclosing = openers_of[path][tag["line"] - 1] if tag["line"] <= len(lines_of[path]) else ()
            why = artefact(language, tag.get("kind", "?"), tag["name"], text, tag.get("end"), tag.get("scopeKind", ""),
                           before, after, enclosing, quoted)
            if why:
                row["artefacts"][why] += 1
                continue
            row["ctags"] += 1
            name = tag["name"].rsplit("::", 1)[-1] if language == "cpp" else tag["name"]
            if (path, name, tag["line"]) in ours or (path, tag["name"], tag["line"]) in ours:
                row["matched"] += 1
            elif len(row["misses"]) < misses:
                elsewhere = " (named on another line)" if (path, name) in names else ""
                row["misses"].append(f"{tree.name}/{path}:{tag['line']} {tag['kind']} {tag['name']}{elsewhere}")
    for row in table.values():
        row["percent"] = round(100 * row["matched"] / row["ctags"], 2) if row["ctags"] else None
        row["artefacts"] = dict(sorted(row["artefacts"].items()))
    return dict(sorted(table.items()))


def default_trees(work: Path) -> list[Path]:
    """The annotated definition fixtures (written out as files), the polyglot corpus, the
    cached registry archives unpacked, and the system's C headers (a copy)."""
    import shutil
    import tarfile

    from tests.annotated import FIXTURES, load
    root = Path(__file__).resolve().parent.parent
    trees = []
    fixtures = work / "fixtures"
    for case in sorted((FIXTURES / "definitions").glob("*.txt")):
        for path, text in load(case, keys=("def:",)).files.items():
            target = fixtures / case.stem / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    trees.append(fixtures)
    trees.append(root / "corpora" / "polyglot")
    from corpora.registry_corpus import cache_dir
    for archive in sorted(cache_dir().glob("*/*/*.tar.gz")):
        target = work / archive.name.removesuffix(".tar.gz")
        with tarfile.open(archive) as tar:
            tar.extractall(target, filter="data")
        trees.append(target)
    headers = Path("/usr/include")
    if headers.is_dir():
        target = work / "usr-include"
        target.mkdir()
        for header in sorted(headers.glob("*.h")):
            shutil.copy(header, target / header.name)
        trees.append(target)
    return trees


def main(argv: list[str] | None = None) -> None:
    import argparse
    import shutil
    import tempfile
    parser = argparse.ArgumentParser(prog="python -m benchmarks.agreement", description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", type=Path, help="source trees (default: fixtures and corpora at hand)")
    parser.add_argument("--misses", type=int, default=40, help="misses listed per language")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if shutil.which("ctags") is None:
        raise SystemExit("Universal Ctags is not installed (apt-get install -y universal-ctags)")
    with tempfile.TemporaryDirectory(prefix="rennet-agreement-") as work:
        trees = args.trees or default_trees(Path(work))
        table = agreement(trees, args.misses)
    if args.json:
        print(json.dumps(table, indent=1))
        return
    print("| language | ctags definitions | extracted | agreement | artefacts set apart | ours from statements |")
    print("| --- | ---: | ---: | ---: | --- | ---: |")
    for language, row in table.items():
        apart = ", ".join(f"{k} {v}" for k, v in row["artefacts"].items()) or "-"
        print(f"| {language} | {row['ctags']} | {row['matched']} | {row['percent']}% | {apart} "
              f"| {len(row.get('statements', ()))} |")
    for language, row in table.items():
        for title, listed in (("misses", row["misses"]), ("symbols from statements", row.get("statements", ()))):
            if listed:
                print(f"\n{language} {title}:")
                for item in listed[:args.misses]:
                    print(f"  {item}")


if __name__ == "__main__":
    main()
