"""Python manifests: pyproject.toml (PEP 621 `[project]`, PEP 735 `[dependency-groups]`,
Poetry `[tool.poetry]`), setup.cfg, and setup.py read through `ast` (literal keyword
arguments of the `setup(...)` call only; the file is never executed)."""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from indexer.manifests.base import Collector, ManifestError, split_requirement, table_or_none, toml_manifest

if TYPE_CHECKING:
    import configparser

SCRIPT_KINDS = {"console_scripts": "console_script", "gui_scripts": "gui_script"}


def _group_scope(group: str) -> str:
    return "test" if "test" in group.lower() else "dev"


def _requirements(c: Collector, items: object, scope: str) -> None:
    if not isinstance(items, list):
        raise ManifestError(f"expected a list of requirements, got {type(items).__name__}")
    for item in items:
        if isinstance(item, str):
            name, spec = split_requirement(item)
            c.dependency(name, spec, scope)


def _scripts(c: Collector, table: object, kind: str) -> None:
    if isinstance(table, dict):
        for name, target in sorted(table.items()):
            if isinstance(target, str):
                c.declare(name, kind, target)
            elif isinstance(target, dict) and isinstance(target.get("reference"), str):
                c.declare(name, kind, target["reference"])  # poetry's long form


def read_pyproject(c: Collector, data: bytes) -> None:
    doc = toml_manifest(data)
    # each table present must be a table (as for Cargo.toml); absent ones are no fault
    project = table_or_none(doc, "project")
    poetry = table_or_none(table_or_none(doc, "tool") or {}, "poetry")
    if project is not None:
        c.package(project.get("name"), project.get("version", ""))
        _requirements(c, project.get("dependencies", []), "runtime")
        for _extra, reqs in sorted((table_or_none(project, "optional-dependencies") or {}).items()):
            _requirements(c, reqs, "optional")
        _scripts(c, table_or_none(project, "scripts"), "console_script")
        _scripts(c, table_or_none(project, "gui-scripts"), "gui_script")
    for group, reqs in sorted((table_or_none(doc, "dependency-groups") or {}).items()):
        if not isinstance(reqs, list):
            raise ManifestError(f"dependency group {group} is a {type(reqs).__name__}, not a list")
        _requirements(c, [r for r in reqs if isinstance(r, str)], _group_scope(group))  # tables include groups
    if poetry is not None:
        if c.m.package is None:
            c.package(poetry.get("name"), poetry.get("version", ""))
        _poetry_deps(c, table_or_none(poetry, "dependencies"), "runtime")
        _poetry_deps(c, table_or_none(poetry, "dev-dependencies"), "dev")
        for group, table in sorted((table_or_none(poetry, "group") or {}).items()):
            if isinstance(table, dict):
                _poetry_deps(c, table_or_none(table, "dependencies"), _group_scope(group))
        _scripts(c, table_or_none(poetry, "scripts"), "console_script")


def _poetry_deps(c: Collector, table: dict | None, scope: str) -> None:
    for name, value in sorted((table or {}).items()):
        if name.lower() == "python":
            continue  # the interpreter constraint, not a package
        if isinstance(value, str):
            c.dependency(name, value, scope)
        elif isinstance(value, dict):
            spec = value.get("version", "")
            c.dependency(name, spec if isinstance(spec, str) else "", "optional" if value.get("optional") else scope)
        elif isinstance(value, list):  # multiple-constraint form
            specs = [v.get("version", "") for v in value if isinstance(v, dict)]
            c.dependency(name, " || ".join(s for s in specs if isinstance(s, str) and s), scope)


def _lines(value: str) -> list[str]:
    return [line.split("#", 1)[0].strip() for line in value.splitlines() if line.split("#", 1)[0].strip()]


def _literal_or_empty(value: str) -> str:
    # `attr:` and `file:` directives are resolved by setuptools at build time: not literal
    return "" if value.strip().startswith(("attr:", "file:")) else value.strip()


# An option line's name up to its delimiter, as configparser's own pattern reads a line (it
# meets lines split at `\n` and stripped) but with no lazy name before `\s*`: that one tried
# each place in a run of blank space again, a square in the run's length.
OPTION_LINE = r"(?P<option>(?:[^=:\n]*[^=:\s])?)\s*(?P<vi>=|:)\s*(?P<value>.*)$"
# The lines a setup.cfg is read in, at most, far above real ones: a bound on the reading's work
# whatever configparser does with the lines it is given.
SETUP_CFG_LINES = 10_000


class _OptionLines:
    """The parser's option pattern (`OPTCRE`, which configparser matches each line against
    that is neither a section nor a continuation): a line it splits into no name and value is
    bad, and the first ends the reading. configparser itself reads on past bad lines, joining
    each into one message copied whole at each (a square in them), and Python 3.13 dropped the
    `_handle_error` hook that stopped it: this pattern stops it on every version alike."""

    pattern = OPTION_LINE

    def __init__(self) -> None:
        self._line = re.compile(OPTION_LINE)

    def match(self, line: str) -> re.Match[str]:
        found = self._line.match(line)
        if found is None or not found.group("option"):
            raise ManifestError(f"{line[:60]!r} is neither a section, an option nor a continuation")
        return found


def _setup_cfg_parser() -> configparser.ConfigParser:
    import configparser  # here: only a tree with a setup.cfg reads one

    class SetupCfg(configparser.ConfigParser):
        OPTCRE = _OptionLines()  # type: ignore[assignment]  # a pattern's `match`, raising on a bad line

    return SetupCfg(interpolation=None)


def read_setup_cfg(c: Collector, data: bytes) -> None:
    import configparser

    cfg = _setup_cfg_parser()
    text = data.decode("utf-8")
    if text.count("\n") >= SETUP_CFG_LINES:
        raise ManifestError(f"more than {SETUP_CFG_LINES:,} lines")
    try:
        cfg.read_string(text)
    except configparser.Error as e:
        raise ManifestError(str(e).splitlines()[0]) from e
    if cfg.has_section("metadata"):
        c.package(cfg.get("metadata", "name", fallback=""), _literal_or_empty(cfg.get("metadata", "version", fallback="")))
    if cfg.has_section("options"):
        for key, scope in (("install_requires", "runtime"), ("tests_require", "test"), ("setup_requires", "build")):
            _requirements(c, _lines(cfg.get("options", key, fallback="")), scope)
    if cfg.has_section("options.extras_require"):
        for extra in sorted(cfg.options("options.extras_require")):
            _requirements(c, _lines(cfg.get("options.extras_require", extra)), "optional")
    if cfg.has_section("options.entry_points"):
        for group, kind in SCRIPT_KINDS.items():
            for line in _lines(cfg.get("options.entry_points", group, fallback="")):
                name, _, target = line.partition("=")
                c.declare(name, kind, target)


def _setup_call(tree: ast.Module) -> ast.Call | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            fn = node.func
            if (isinstance(fn, ast.Name) and fn.id == "setup") or (isinstance(fn, ast.Attribute) and fn.attr == "setup"):
                return node
    return None


def _literal(node: ast.expr) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None  # computed at run time: not something the tree proves


def read_setup_py(c: Collector, data: bytes) -> None:
    try:
        tree = ast.parse(data.decode("utf-8"))
    except (MemoryError, RecursionError):  # CPython's parser gives up on deep nesting with these
        raise ManifestError("setup.py is nested too deeply to read") from None
    call = _setup_call(tree)
    if call is None:
        return
    kw = {k.arg: _literal(k.value) for k in call.keywords if k.arg}
    c.package(kw.get("name"), kw.get("version") if isinstance(kw.get("version"), str) else "")
    for key, scope in (("install_requires", "runtime"), ("tests_require", "test"), ("setup_requires", "build")):
        reqs = kw.get(key)
        if isinstance(reqs, (list, tuple)):
            _requirements(c, list(reqs), scope)
    extras = kw.get("extras_require")
    if isinstance(extras, dict):
        for _extra, reqs in sorted(extras.items()):
            if isinstance(reqs, (list, tuple)):
                _requirements(c, list(reqs), "optional")
    entry_points = kw.get("entry_points")
    if isinstance(entry_points, dict):
        for group, kind in SCRIPT_KINDS.items():
            for line in entry_points.get(group, []) or []:
                if isinstance(line, str):
                    name, _, target = line.partition("=")
                    c.declare(name, kind, target)
