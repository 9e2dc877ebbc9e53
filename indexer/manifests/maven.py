"""pom.xml: groupId:artifactId, version (inherited from <parent> when absent) and
<dependencies> with their scope. Documents with a DTD or entity declarations are
refused before parsing (no entity expansion, no external fetches)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from indexer.manifests.base import Collector, ManifestError

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

SCOPES = {"": "runtime", "compile": "runtime", "runtime": "runtime", "test": "test", "provided": "provided",
          "system": "system", "import": "import"}


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _child(el: Element | None, name: str) -> Element | None:
    if el is None:
        return None
    for ch in el:
        if isinstance(ch.tag, str) and _local(ch.tag) == name:
            return ch
    return None


def _text(el: Element | None, name: str) -> str:
    ch = _child(el, name)
    return (ch.text or "").strip() if ch is not None else ""


def read_pom(c: Collector, data: bytes) -> None:
    # imported here: the XML parser is for a tree with a pom.xml, not every index that reads manifests
    from xml.etree import ElementTree as ET

    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise ManifestError("DTD or entity declarations are refused")
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        raise ManifestError(str(e)) from e
    if _local(root.tag) != "project":
        raise ManifestError("root element is not <project>")
    parent = _child(root, "parent")
    group = _text(root, "groupId") or _text(parent, "groupId")
    artifact = _text(root, "artifactId")
    if artifact:
        c.package(f"{group}:{artifact}" if group else artifact, _text(root, "version") or _text(parent, "version"))
    deps = _child(root, "dependencies")
    for dep in list(deps) if deps is not None else []:
        if not isinstance(dep.tag, str) or _local(dep.tag) != "dependency":
            continue
        g, a = _text(dep, "groupId"), _text(dep, "artifactId")
        if not a:
            continue
        scope = SCOPES.get(_text(dep, "scope"), _text(dep, "scope"))
        if _text(dep, "optional") == "true":
            scope = "optional"
        c.dependency(f"{g}:{a}" if g else a, _text(dep, "version"), scope)
    modules = _child(root, "modules")
    if modules is not None:
        c.m.members = [(m.text or "").strip() for m in modules if isinstance(m.tag, str) and _local(m.tag) == "module"]
