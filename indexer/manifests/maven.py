"""pom.xml: groupId:artifactId, version (inherited from <parent> when absent) and
<dependencies> with their scope. A document with a DTD is refused as the parser meets it,
in whatever encoding it is spelled (no entity expansion, no external fetches), and so is
one nested deeper than `MAX_DEPTH`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from indexer.manifests.base import Collector, ManifestError

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

# A POM nests a handful of elements deep; the commit under review chooses the file, and each
# level costs an element kept in memory.
MAX_DEPTH = 64

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


def _document(data: bytes) -> Element:
    """The element tree of `data`, built from expat's events so a DTD and depth are refused as
    they come. Tags keep their namespace as `ns}tag` (`_local` reads past the `}`)."""
    # imported here: the XML parser is for a tree with a pom.xml, not every index that reads manifests
    from xml.etree.ElementTree import TreeBuilder
    from xml.parsers import expat

    builder = TreeBuilder()
    depth = 0

    def start(tag: str, attrs: dict[str, str]) -> None:
        nonlocal depth
        depth += 1
        if depth > MAX_DEPTH:
            raise ManifestError(f"elements nested over {MAX_DEPTH} deep")
        builder.start(tag, attrs)

    def end(tag: str) -> None:
        nonlocal depth
        depth -= 1
        builder.end(tag)

    def doctype(*_: object) -> None:
        raise ManifestError("a DTD is refused")

    parser = expat.ParserCreate(namespace_separator="}")
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = doctype
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = builder.data
    try:
        parser.Parse(data, True)
    except expat.ExpatError as e:
        raise ManifestError(str(e)) from e
    return builder.close()


def read_pom(c: Collector, data: bytes) -> None:
    read_project(c, _document(data))


def read_project(c: Collector, root: Element) -> None:
    """What a POM's root element declares."""
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
