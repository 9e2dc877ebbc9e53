"""What context.symbol and context.references reply: definitions, reference sites and their
answers, one snapshot's or a workspace's (each item then tagged with its member)."""

from __future__ import annotations

from msgspec import Struct

from context_tools.query.parse_errors import UnseenHolders
from context_tools.query.workspace_scope import MemberFreshnessPage
from indexer.contract.result import Unknown


class ClassRef(Struct):
    """A class, or a member of one, where the map defines it."""

    qualified: str
    path: str
    line: int


class Definition(Struct, omit_defaults=True):
    name: str
    qualified: str
    kind: str
    path: str
    line: int
    end_line: int
    signature: str
    module: str  # the file's module: a Rust crate path (`demo::net`), else dotted from the path
    match: str  # "exact" | "qualified" | "fuzzy" | "inherited"
    # a member asked on a class that inherits it (`App.handle` defined on Base): the class
    # defining it, and the classes from the one asked to it in method resolution order
    inherited_from: ClassRef | None = None
    chain: list[ClassRef] | None = None
    overrides: ClassRef | None = None  # the member of a base class this one overrides
    condition: str = ""  # C/C++: the preprocessor conditions it is written under (Symbol.condition)
    sites: int | None = None  # references: the resolved sites that reach this definition


class Relative(Struct, omit_defaults=True):
    """A class's base or known subclass (`context.symbol --hierarchy`)."""

    relation: str  # "base" (in method resolution order) | "subclass" | "implementation" (a Go interface's)
    spec: str  # the base as its class declares it; a subclass's qualified name
    status: str  # resolved external unresolved (as an `inherits` edge's)
    qualified: str = ""  # where resolved: its qualified name, file and line
    path: str = ""
    line: int = 0


class SymbolAnswer(Struct, omit_defaults=True):
    query: str
    fuzzy: bool  # true when nothing matched exactly and these are near names
    note: str
    definitions: list[Definition]
    hierarchy: list[Relative] | None = None  # with `hierarchy`: the class's bases, then its known subclasses
    # files with parse errors whose text holds the name: what they define of it may be missing here
    parse_errors: UnseenHolders | None = None


class Site(Struct, omit_defaults=True):
    """`text` (the line, when asked) and `definition` (a resolved site's) are absent otherwise."""

    path: str
    line: int
    col: int
    role: str  # definition call reference module local identifier (model.Occurrence)
    resolution: str  # same_file same_package import name_match text
    text: str | None = None
    rule: str = ""  # the binding that decided the resolution (`import`, `attribute of an untyped receiver`, ...)
    # the definition a resolved site reaches: its index in the answer's definitions (in their
    # order, before any cap); absent for a name match or text
    definition: int | None = None


class ReferencesAnswer(Struct):
    query: str
    # what the sites were resolved against; a page after the first carries them no more
    # (`EARLIER_PAGE`): each page sent them again, up to 40% of its bytes
    definitions: list[Definition] | Unknown
    definitions_total: int
    by_resolution: dict[str, int]  # over every site, not just this page
    sites: list[Site]
    # the sites in code and in prose, markup or data (`text`), over every site, filter or not
    code_sites: int = 0
    text_sites: int = 0
    # the definitions, first in order (of each member's, in a workspace), whose resolved sites
    # carry their `definition`: a later one's are resolved with the rest together and carry none
    definitions_attributed: int = 0
    # files holding the name whose sites were not read: one answer reads at most REFERENCE_SITES
    # sites, the defining files and their importers first; their sites are in no count
    files_unread: int = 0
    # a qualified query (`Response.json`): the sites of its last name no resolution ties to its
    # definitions (an untyped `r.json()`, a text file's), left out of `sites` and every count;
    # the bare name lists them as `name_match` and `text`
    same_name_left_out: int = 0
    # files with parse errors whose text holds the name: their sites of it may be missing or misread
    parse_errors: UnseenHolders | None = None


class WorkspaceSymbolAnswer(SymbolAnswer, kw_only=True):
    """Definitions across a workspace: each tagged with its `member`."""

    workspace: str
    member_freshness: MemberFreshnessPage


class WorkspaceReferencesAnswer(ReferencesAnswer, kw_only=True):
    """Reference sites across a workspace: sites and definitions tagged with their `member`. A site
    importing, from another member, the package that member declares and defines the name in is
    import-resolved."""

    workspace: str
    member_freshness: MemberFreshnessPage


# `definitions` of a page of sites after the first, which carried them
EARLIER_PAGE = Unknown("not_recorded", "the definitions are on the first page, which each site's `definition` "
                                       "indexes")

RESOLUTIONS = ("import", "same_file", "same_package", "name_match", "text")  # as by_resolution lists them


def code_and_text(counts: dict[str, int]) -> tuple[int, int]:
    """(code sites, text sites) of an answer's counts by resolution."""
    text = counts.get("text", 0)
    return sum(counts.values()) - text, text
