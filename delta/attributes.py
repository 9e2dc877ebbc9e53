"""`.gitattributes` read from the tree at a commit (never the working tree), for the
linguist marks the noise rules start from.

A minimal reader behind one method, `value(path, name)`, so it can give way to
`indexer.marks.GitAttributes` when that lands. Semantics follow gitattributes(5):
files nearer the path win over outer ones, later lines win over earlier ones; a
pattern without a slash matches the basename at any depth below its file, one with a
slash is anchored to its file's folder; `name` is true, `-name` false, `name=v` the
string v ("false" meaning false), `!name` unspecified.
"""

from __future__ import annotations

import posixpath
import re

import pygit2

Value = bool | str | None


def _glob_regex(pattern: str) -> re.Pattern[str]:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.append("/.*")
            i += 3
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[":
            end = pattern.find("]", i + 1)
            if end < 0:
                out.append(re.escape("["))
                i += 1
            else:
                body = pattern[i + 1:end].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


class _Rule:
    __slots__ = ("anchored", "regex", "attrs", "source")

    def __init__(self, pattern: str, attrs: dict[str, Value], source: str) -> None:
        self.anchored = "/" in pattern.rstrip("/")
        self.regex = _glob_regex(pattern.lstrip("/"))
        self.attrs = attrs
        self.source = source

    def matches(self, rel: str) -> bool:
        return bool(self.regex.match(rel if self.anchored else posixpath.basename(rel)))


def _parse(text: str, source: str) -> list[_Rule]:
    rules: list[_Rule] = []
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields or fields[0].startswith("#") or fields[0].startswith("[attr]"):
            continue
        attrs: dict[str, Value] = {}
        for item in fields[1:]:
            if item.startswith("-"):
                attrs[item[1:]] = False
            elif item.startswith("!"):
                attrs[item[1:]] = None
            elif "=" in item:
                key, _, val = item.partition("=")
                attrs[key] = val
            else:
                attrs[item] = True
        rules.append(_Rule(fields[0], attrs, f"{source}:{number}"))
    return rules


class TreeAttributes:
    """Attributes of paths in one commit's tree."""

    def __init__(self, repo: pygit2.Repository, commit_oid: str) -> None:
        self._tree = repo[commit_oid].peel(pygit2.Tree)
        self._files: dict[str, list[_Rule]] = {}

    def _rules(self, folder: str) -> list[_Rule]:
        if folder not in self._files:
            path = f"{folder}/.gitattributes" if folder else ".gitattributes"
            rules: list[_Rule] = []
            try:
                entry = self._tree[path]
                if entry.type_str == "blob" and entry.filemode != pygit2.GIT_FILEMODE_LINK:
                    rules = _parse(entry.data.decode("utf-8", "replace"), path)
            except KeyError:
                pass
            self._files[folder] = rules
        return self._files[folder]

    def lookup(self, path: str, name: str) -> tuple[Value, str]:
        """(value, "<file>:<line>" of the deciding rule) or (None, "") when unspecified."""
        parts = path.split("/")
        folders = [""] + ["/".join(parts[:i]) for i in range(1, len(parts))]
        for folder in reversed(folders):  # nearest file first; within it, last line first
            rel = path[len(folder) + 1:] if folder else path
            for rule in reversed(self._rules(folder)):
                if name in rule.attrs and rule.matches(rel):
                    value = rule.attrs[name]
                    if value is None:
                        return None, rule.source
                    return value, rule.source
        return None, ""

    def value(self, path: str, name: str) -> Value:
        return self.lookup(path, name)[0]


def truthy(value: Value) -> bool | None:
    """linguist's reading of an attribute: true / false / unspecified."""
    if value is True:
        return True
    if value is False:
        return False
    if isinstance(value, str):
        low = value.lower()
        if low in ("false", "0", "no", "off"):
            return False
        return True
    return None
