"""The layers of docs/architecture.md hold: each package imports only those below it, and no
two modules import each other, directly or around a loop. Imports inside functions count (a
lazy import is still a dependency); those under `if TYPE_CHECKING:` do not (the type checker
reads them, nothing runs them)."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("indexer", "delta", "context_tools")  # lowest first


def _modules() -> dict[str, Path]:
    found = {}
    for package in LAYERS:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project's modules `name` imports (a `from pkg import mod` names the module)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    tree = ast.parse(path.read_bytes(), str(path))
    typing_only = {id(inner) for node in ast.walk(tree) if isinstance(node, ast.If) and _is_type_checking(node.test)
                   for stmt in node.body for inner in ast.walk(stmt)}
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:  # `import a.b.c` of a name inside a module
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


@cache  # both tests read the same graph: parse the packages once a process
def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def test_each_layer_imports_only_the_layers_below_it():
    upward = [f"{name} -> {target}" for name, targets in _graph().items() for target in targets
              if LAYERS.index(target.partition(".")[0]) > LAYERS.index(name.partition(".")[0])]
    assert upward == []


def test_no_import_cycle_between_modules():
    import networkx

    graph = networkx.DiGraph((name, target) for name, targets in _graph().items() for target in targets)
    cycles = sorted(sorted(c) for c in networkx.strongly_connected_components(graph) if len(c) > 1)
    assert cycles == []
