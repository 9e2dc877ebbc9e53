"""Acceptance criteria from ticket bodies, and the two bounds on items."""

from __future__ import annotations

import msgspec

from delta.dossier.items import (
    CRITERIA_LINE_CHARS,
    MAX_CRITERIA,
    RICH_TEXT_CHARS,
    TRUNCATED,
    Bounds,
    Fetched,
    acceptance_criteria,
    bounded_text,
    fit,
    make_item,
)
from delta.dossier.refs import Provenance, Reference


def texts(body):
    return [(c.text, c.done, c.source) for c in acceptance_criteria(body)]


def test_markdown_section_until_the_next_heading():
    body = "Intro\n\n## Acceptance Criteria\n- user can log in\n* session persists\n1. logout works\n\n## Notes\n- not one"
    assert texts(body) == [("user can log in", None, "section"), ("session persists", None, "section"),
                           ("logout works", None, "section")]


def test_jira_wiki_section_with_numbered_hashes():
    body = "h2. Acceptance criteria\n# first\n# second\nh2. Out of scope\n# nope"
    assert texts(body) == [("first", None, "section"), ("second", None, "section")]


def test_bold_and_plain_labels_and_inline_criterion():
    assert texts("**Acceptance criteria**\n- a\n- b\n**Design**\n- c") == [("a", None, "section"), ("b", None, "section")]
    assert texts("Acceptance criteria: the report is a CSV") == [("the report is a CSV", None, "section")]
    assert texts("acceptance criteria:\nGiven a user\nWhen they log in\n") == [
        ("Given a user", None, "section"), ("When they log in", None, "section")]


def test_checklists_anywhere_with_their_state_and_no_duplicates():
    body = "Tasks\n- [ ] write docs\n- [x] add tests\n* [X] ship\n\n## Acceptance criteria\n- [ ] write docs\n"
    assert texts(body) == [("write docs", False, "section"), ("add tests", True, "checklist"),
                           ("ship", True, "checklist")]


def test_no_criteria_in_plain_prose_or_headings_alone():
    assert acceptance_criteria("Just a description.\n# Heading\n- a bullet") == []
    assert acceptance_criteria("") == []


def _ref(rid, closing=False):
    return Reference(id=rid, tracker="jira", key=rid, closing=closing,
                     provenance=[Provenance("commit_subject", f"c{i}", rid) for i in range(15)], provenance_total=15)


def _item(rid, body, closing=False, bounds=Bounds(100, 4000, 10_000)):
    f = Fetched(id=rid, tracker="jira", title="t" * 500, state="Open", body=body, url="u")
    return make_item(f, _ref(rid, closing), "2026-01-01T00:00:00Z", bounds, f"projects/x/{rid}.json")


def test_an_item_is_bounded_on_its_own():
    item = _item("A-1", "b" * 1000 + "\n- [ ] " + "c" * 1000)
    assert len(item.title) == 300 and len(item.body) == 100 and item.body_truncated and item.body_chars == 1007 + 1000
    assert len(item.acceptance_criteria[0].text) == 300 and item.criteria_total == 1
    assert len(item.provenance) == 10 and item.provenance_total == 15



def test_a_bound_met_exactly_is_within_it():
    """A body of exactly item_body_chars is whole; an item of exactly item_bytes, and items
    filling dossier_bytes exactly, are kept."""
    item = _item("A-1", "y" * 100)
    assert item.body == "y" * 100 and not item.body_truncated and item.body_chars == 100
    items = [_item(f"A-{n}", "x" * 90) for n in (1, 2)]
    size = len(msgspec.json.encode(items[0]))
    kept, omitted = fit(items, Bounds(100, size, 2 * size))
    assert [i.id for i in kept] == ["A-1", "A-2"] and omitted == []


def test_fit_drops_whole_items_closing_first_and_records_each_omission():
    items = [_item(f"A-{n}", "x" * 90, closing=(n == 4)) for n in range(1, 5)]
    size = len(msgspec.json.encode(items[0]))
    kept, omitted = fit(items, Bounds(100, 4000, 2 * size + 10))
    assert [i.id for i in kept] == ["A-1", "A-4"]  # the closing one first, then reference order; order kept
    assert [(o.id, o.reason, o.payload) for o in omitted] == [
        ("A-2", "dossier_bytes", "projects/x/A-2.json"), ("A-3", "dossier_bytes", "projects/x/A-3.json")]
    smallest = min(len(msgspec.json.encode(i)) for i in items)
    kept, omitted = fit(items, Bounds(100, smallest - 1, 10_000_000))
    assert kept == [] and {o.reason for o in omitted} == {"item_bytes"}


def test_a_text_of_exactly_the_rich_text_bound_is_whole_and_one_more_is_cut():
    assert bounded_text("r" * RICH_TEXT_CHARS) == "r" * RICH_TEXT_CHARS
    assert bounded_text("r" * (RICH_TEXT_CHARS + 1)) == "r" * RICH_TEXT_CHARS + TRUNCATED.format(chars=RICH_TEXT_CHARS)


def test_a_long_line_is_looked_at_up_to_its_bound():
    [criterion] = acceptance_criteria("Acceptance criteria\n- " + "a" * (3 * CRITERIA_LINE_CHARS) + "\n")
    assert criterion.text == "a" * (CRITERIA_LINE_CHARS - 2)


def test_an_item_keeps_the_first_criteria_and_links_and_counts_every_criterion():
    body = "\n".join(f"- [ ] criterion {n}" for n in range(MAX_CRITERIA + 10))
    fetched = Fetched(id="A-1", tracker="jira", title="t", state="Open", body=body, url="",
                      links=[f"A-{n}" for n in range(2, 40)])
    item = make_item(fetched, Reference(id="A-1", tracker="jira", key="A-1"), "2026-01-01T00:00:00Z",
                     Bounds(100_000, 100_000, 100_000), "p")
    assert [c.text for c in item.acceptance_criteria] == [f"criterion {n}" for n in range(30)]  # docs' figure
    assert item.criteria_total == MAX_CRITERIA + 10
    assert item.links == [f"A-{n}" for n in range(2, 22)]


def test_criteria_are_looked_for_in_a_body_up_to_the_rich_text_bound():
    """A reader keeps RICH_TEXT_CHARS of a body (docs/security.md): its criteria are looked for
    in all of that, to its last character, and in no more."""
    last = "\n- [x] the last criterion"
    body = "b" * (RICH_TEXT_CHARS - len(last)) + last
    assert texts(body) == [("the last criterion", True, "checklist")]
    assert texts(body + "!") == [("the last criterion", True, "checklist")]


def test_a_section_ends_at_the_next_acceptance_criteria_label_in_any_case():
    body = "## Acceptance criteria\n- one\nAcceptance Criteria: two\n- three\nACCEPTANCE CRITERIA\n- four"
    assert [t for t, _, _ in texts(body)] == ["one", "two", "three", "four"]
    # a criterion that only speaks of acceptance is one, and the section goes on
    body = "## Acceptance criteria\n- the user acceptance test passes\n- Acceptance is logged\n- five"
    assert [t for t, _, _ in texts(body)] == ["the user acceptance test passes", "Acceptance is logged", "five"]


def test_a_section_under_a_heading_of_any_level_and_a_bullet_of_any_kind():
    """Markdown and Jira wiki headings run from level 1 to 6: any of them opens a section, and
    ends one; a `•` bullet is a list item as `-`, `*` and `+` are."""
    for level in range(1, 7):
        markdown = f"{'#' * level} Acceptance criteria\n- a\n\u2022 b\n{'#' * level} Notes\n- not one"
        wiki = f"h{level}. Acceptance criteria\n* a\n\u2022 b\nh{level}. Notes\n* not one"
        for body in (markdown, wiki):
            assert texts(body) == [("a", None, "section"), ("b", None, "section")], body


def test_a_sections_checkboxes_in_either_case_and_jira_lists_of_any_depth():
    assert texts("## Acceptance criteria\n- [X] upper\n- [x] lower\n- [ ] open") == [
        ("upper", True, "section"), ("lower", True, "section"), ("open", False, "section")]
    assert texts("h2. Acceptance criteria\n# first\n## nested\n### deeper") == [
        ("first", None, "section"), ("nested", None, "section"), ("deeper", None, "section")]


def test_a_label_spelled_with_a_non_breaking_or_doubled_space_is_the_label():
    """Rich-text editors put a non-breaking space between words; the label is the same."""
    for label in ("Acceptance\u00a0criteria", "Acceptance  Criteria", "acceptance\tcriteria"):
        assert texts(f"### {label}\n- a") == [("a", None, "section")], label
