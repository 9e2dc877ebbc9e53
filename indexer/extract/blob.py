"""Per-blob extraction: a pure function of (bytes, path, language, extractor version).

`extract_blob` never raises. A blob it does not parse gets `skipped` set to the reason:
binary, too_large, lfs_pointer, undecodable, minified (rules in indexer/lang/content.py); unparseable (the
parse ran over its deterministic step budget, or produced an ERROR node too wide or a tree too
deep to query, or the source is one its grammar is known to crash on and was never parsed:
`Language.unsafe`; symbols are then not claimed and occurrences come from the plain tokenizer);
extract_error (a bug of ours; never expected). A lack of memory is raised, never a reason: the
facts are cached by content, and a blob skipped for the room one run had would stay so.
Languages without a grammar get lines, the generated mark and plain-tokenizer occurrences.
"""

from __future__ import annotations

import gc
from typing import Iterable

from indexer.contract.memory_limit import lack_of_memory
from indexer.extract.tags import extract_tree
from indexer.extract.tokens import OCCURRENCE_CAP, plain_occurrences, plain_uses
from indexer.lang import grammars
from indexer.lang.content import count_lines, generated_rule, skip_reason
from indexer.lang.registry import GRAMMAR_LANGUAGES, LANGUAGES
from indexer.model import BlobFacts, ParseError

DEFAULT_SIZE_CAP = 1 << 20


def extract_blob(data: bytes, path: str, language: str, size_cap: int = DEFAULT_SIZE_CAP,
                 sites: bool = True) -> BlobFacts:
    """The blob facts of `data` (the blob at `path`, of `language` from `detect_language`).
    Without `sites`, facts whose sites are the plain tokenizer's (`plain_sites`) hold only what
    they sum to, as the store keeps them (the indexer's way: a reader makes them again)."""
    # A query makes a tuple, a dict and a list per match, all acyclic, often a million on a
    # large file: collecting cycles among them is wasted work (about a tenth of extraction).
    collecting = gc.isenabled()
    gc.disable()
    try:
        facts = _extract(bytes(data), path, language, size_cap, sites)
        # At the cap the list may have been cut: say so rather than pass it off as complete.
        facts.occurrences_capped = (facts.occurrences_capped  # the query dropped matches: sites too
                                    or max(len(facts.occurrences), facts.occurrence_count) >= OCCURRENCE_CAP)
        return facts
    except Exception as exc:
        if lack_of_memory(exc):
            raise
        try:
            lines = count_lines(data)
        except Exception:
            lines = -1
        return BlobFacts(language=language, lines=lines, skipped="extract_error")
    finally:
        if collecting:
            gc.enable()


def prepare(languages: Iterable[str]) -> None:
    """Set each language's extraction up as its first blob would (its tags query compiled,
    its parser made, the modules its hooks read imported), so that the processes forked
    from this one after it start with that done."""
    for language in languages:
        try:
            extract_blob(b"x\n", "prepared", language, sites=False)
        except Exception as exc:  # a head start only: short of room, a worker sets a language up as it meets it
            if not lack_of_memory(exc):
                raise
            return


def _extract(data: bytes, path: str, language: str, size_cap: int, sites: bool) -> BlobFacts:
    reason, lines = skip_reason(data, path, language, size_cap)
    if reason == "binary":
        return BlobFacts(language="binary", lines=-1, skipped=reason)
    if reason:
        return BlobFacts(language=language, lines=lines, generated=generated_rule(data), skipped=reason)
    generated = generated_rule(data)
    if language not in GRAMMAR_LANGUAGES:
        return _plain(data, sites, language=language, lines=lines, generated=generated)
    tree = grammars.parse(language, data)
    root = tree.root_node if tree is not None else None
    if root is not None and not grammars.has_wide_error(root) and not grammars.is_too_deep(root) and not (
            root.has_error and LANGUAGES[language].strict):
        facts = extract_tree(language, root, data)
        regions, error_total = grammars.error_regions(root)
        return BlobFacts(
            language=language,
            lines=lines,
            symbols=facts.symbols,
            occurrences=facts.occurrences,
            imports=facts.imports,
            main_block=facts.main_block,
            dunder_all=facts.dunder_all,
            bases=facts.bases,
            exported_as=facts.exported_as,
            es_module=facts.es_module,
            package_name=facts.package_name,
            symbols_capped=facts.symbols_capped,
            occurrences_capped=facts.match_limit_hit,
            build_ignored=facts.build_ignored,
            generated=generated,
            parse_errors=[ParseError(*region) for region in regions],
            parse_error_total=error_total,
        )
    return _plain(data, sites, language=language, lines=lines, generated=generated, skipped="unparseable")


def _plain(data: bytes, sites: bool, **fields) -> BlobFacts:
    """Facts whose sites are the plain tokenizer's: the sites themselves, or what they sum to."""
    if sites:
        return BlobFacts(occurrences=plain_occurrences(data), plain_sites=True, **fields)
    uses, count = plain_uses(data)
    return BlobFacts(uses=uses, occurrence_count=count, plain_sites=True, **fields)
