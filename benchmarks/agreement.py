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
