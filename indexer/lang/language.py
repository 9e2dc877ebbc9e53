"""What the indexer knows about one language with a grammar, in one record.

Each package `indexer/lang/<language>/` makes its `Language` once, in its `__init__.py`, and
`indexer.lang.registry` lists the packages. The record itself is light: names of modules and
files, read by whoever needs that part (`part`), so that naming a file's language, or reading
a stored snapshot, never imports tree-sitter or a resolver.

The parts a language may supply, each a module of its package (see docs/architecture.md):
- `queries`: our query files, after the grammar wheel's shipped tags (and `tags_base`'s);
- `imports`: `HANDLERS`, the readers of its `@import.<kind>` captures into ImportSpecs;
- `scopes`: `SCOPES`, a `local_scopes.LocalScopes` (which sites are local bindings);
- `hooks`: `HOOKS`, a `tags_hooks.TagsHooks` (what its definitions need beyond the tables);
- `resolver`: `make_resolver(tree, facts, read)`, for the import family it owns (`family`);
- `retry`: `retry_view(data, root)`, a second view of a source whose parse has errors;
- `view`: `parser_view(name, data)`, what the parser is shown of a source (C's macros blanked, Rust's item macro bodies shown as items);
"""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import Path
from typing import NamedTuple

LANG_DIR = Path(__file__).parent


class Language(NamedTuple):
    """Immutable, and a NamedTuple rather than a dataclass: every read of a snapshot makes
    these records, and a NamedTuple class is several times cheaper to make."""

    name: str  # as the file table and the blob-facts key name it
    # The extractor version of this language's blob facts: part of their key, so bumping it
    # re-parses this language's blobs only. Its package keeps the log of what each changed.
    version: str
    grammar: tuple[str, str]  # (module, factory function) of the tree-sitter grammar wheel
    identifiers: str  # the identifier leaves: the occurrence sites (`@id`)
    queries: tuple[str, ...] = ()  # our query files, relative to indexer/lang
    tags_base: str = ""  # a grammar whose shipped tags this one's extend (TypeScript: JavaScript)
    extensions: tuple[str, ...] = ()  # file name extensions, lower case, without the dot
    filenames: tuple[str, ...] = ()  # whole file names, lower case (`gemfile`)
    interpreters: tuple[str, ...] = ()  # shebang programs, without a version suffix
    mode_names: tuple[str, ...] = ()  # Emacs and Vim mode names, lower case
    family: str = ""  # the import family (module system) whose resolution its imports take
    import_kinds: tuple[str, ...] = ()  # the ImportSpec kinds its imports have
    imports: str = ""  # module with HANDLERS
    scopes: str = ""  # module with SCOPES
    hooks: str = ""  # module with HOOKS
    resolver: str = ""  # module with make_resolver: set on the one language that owns `family`
    retry: str = ""  # module with retry_view
    view: str = ""  # module with parser_view
    # module with unsafe_source(data): sources its grammar is known to crash on, never parsed
    unsafe: str = ""
    # A grammar borrowed from a near language (zsh read with Bash's): a tree with any error is
    # not read, the file is skipped as `unparseable`, rather than half-read as its own would be
    strict: bool = False
    # The nodes whose bytes are the program's data, whitespace and all (strings, heredocs,
    # template and raw strings, regular expressions, characters): where the Delta tells a change
    # of whitespace alone from one of meaning, a space put into one is a change (delta.syntax)
    literals: tuple[str, ...] = ()
    # Of those, the ones whose line is data up to its ends: a heredoc's terminator indented,
    # or with a space after it, ends nothing in Bash, and the heredoc runs on
    literal_lines: tuple[str, ...] = ()
    # Whether a CRLF inside a literal is read as LF (Python's universal newlines, JavaScript's
    # template literals, Go's raw strings, Rust's and Java's sources, C compilers): then a line
    # end made LF inside one changes no data; elsewhere (Bash, PHP, C#) the CR is data
    literal_crlf_is_lf: bool = False
    # Of those, the ones read without the blanks at their ends: a C macro's body runs to its
    # line's end, trailing spaces and all, which change nothing it says
    literal_trimmed: tuple[str, ...] = ()
    # Whether the view (`view`) blanks only what no token's or literal's extent depends on
    # (Python's long comment runs): a tree of it then holds each token and literal where the
    # source does, read from the source's own bytes (delta.syntax); C's blanked macros do not
    view_keeps_tokens: bool = False

    def query_text(self) -> str:
        """Our query files' text, in order."""
        paths = [LANG_DIR / name for name in self.queries]
        return "\n".join(path.read_text(encoding="utf-8") for path in paths if path.is_file())


@cache
def part(module: str, attribute: str) -> object:
    """`attribute` of `module`, imported when first asked for."""
    return getattr(importlib.import_module(module), attribute)
