"""Text files' identifier sites (the plain tokenizer's) are stored as what they sum to and made
again from the blob when read: the answers must be exactly those of the sites themselves."""

from __future__ import annotations

import keyword
import random
from collections import Counter

from corpora.gitbuild import RepoBuilder
from indexer import api
from indexer.extract.blob import extract_blob
from indexer.extract.tokens import OCCURRENCE_CAP, plain_occurrences, plain_sites_of, plain_uses
from indexer.fleet import bundle
from indexer.git import read as gitread
from indexer.store import canonical
from indexer.store.records import entry_facts_key

NOTES = (b"Call render_page (not xrender_page, 9render_page is one) to draw.\n"
         b"if render_page then return\n\trender_page_2 render_page\n")


def test_sums_and_one_names_sites_equal_the_sites_on_random_text():
    rnd = random.Random(7)
    pieces = [b"foo", b"bar", b"9", b"x9", b"_", b"if", b" ", b"\n", b"-", b"Foo", b"foo_bar", b"\xc3\xa9",
              b"0x1f", b"a", b"\r\n", b"\t", b"return"]
    for _ in range(2000):
        data = b"".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 60)))
        cap = rnd.choice([3, 5, OCCURRENCE_CAP])
        sites = plain_occurrences(data, cap)
        uses, count = plain_uses(data, cap)
        assert count == len(sites)
        assert uses == dict(sorted(Counter(o.name for o in sites).items()))
        assert list(uses) == sorted(uses)  # in name order, as the docstring says
        for name in ("foo", "x9", "_", "Foo", "foo_bar", "a", "if", "9", "x", ""):
            assert plain_sites_of(data, name, len(sites) >= cap, cap) == [o for o in sites if o.name == name]


def test_the_keywords_of_python_are_no_sites():
    # Code quoted in a text file: the keywords of a common language are skipped, its names kept.
    words = [k for k in keyword.kwlist if k.islower()]
    text = (" ".join(words) + " load_config\n").encode()
    assert [(o.name, o.col) for o in plain_occurrences(text)] == [("load_config", len(text) - 12)]
    assert plain_uses(text) == ({"load_config": 1}, 1)


def test_extraction_without_sites_stores_what_the_sites_sum_to():
    whole = extract_blob(NOTES, "notes.md", "markdown")
    summed = extract_blob(NOTES, "notes.md", "markdown", sites=False)
    assert whole.plain_sites and summed.plain_sites and summed.occurrences == []
    assert summed.occurrence_count == len(whole.occurrences) == 10
    assert summed.uses == dict(sorted(Counter(o.name for o in whole.occurrences).items()))
    from indexer.store.records import stored_facts
    assert stored_facts(b"k", whole) == stored_facts(b"k", summed)  # one stored form either way


def test_a_text_files_sites_come_from_its_blob(tmp_path):
    capped = b" ".join([b"render_page"] + [b"w%d" % i for i in range(OCCURRENCE_CAP)] + [b"render_page"]) + b"\n"
    RepoBuilder(tmp_path / "repo").commit({
        "app/pages.py": "def render_page():\n    return 1\n",
        "docs/notes.md": NOTES,
        "docs/big.txt": capped,
    })
    repo = str(tmp_path / "repo")
    store = api.open_store(tmp_path / "store")
    api.index(repo, "main", store=store)
    snap = api.snapshot(repo, "main", store=store)
    notes = snap.file("docs/notes.md")
    key = entry_facts_key(notes, snap.extractor_version)
    with store.env.begin() as txn:
        assert txn.get(key, db=store.facts) is not None
        assert txn.get(key, db=store.occurrences) is None  # no site stored: made from the blob
    expected = plain_occurrences(NOTES)
    assert snap.facts("docs/notes.md").occurrences == expected
    assert [(p, o.line, o.col) for p, o in snap.occurrences("render_page") if p.startswith("docs/")] == [
        ("docs/big.txt", 1, 0),  # not its last word: past the cap
        ("docs/notes.md", 1, 5), ("docs/notes.md", 1, 37), ("docs/notes.md", 2, 3), ("docs/notes.md", 3, 15)]
    lines = b"".join(canonical.lines(snap.record, snap.all_facts())).decode()
    assert '"path":"docs/notes.md"' in lines and f'"occurrences":{len(expected)}' in lines
    assert f'"occurrences":{OCCURRENCE_CAP},"occurrences_capped":true' in lines

    # a bundle carries the sums; the store it is loaded into answers the same
    out = tmp_path / "snap.rnb"
    bundle.export(snap, out)
    other = api.open_store(tmp_path / "other")
    bundle.import_bundle(other, out, repo)
    again = api.snapshot(repo, "main", store=other, index_if_absent=False)
    assert again.fingerprint == snap.fingerprint
    assert again.occurrences("render_page") == snap.occurrences("render_page")
    assert again.facts("docs/notes.md").occurrences == expected
    assert gitread.read_blob(gitread.open_repo(repo), notes.blob) == NOTES
