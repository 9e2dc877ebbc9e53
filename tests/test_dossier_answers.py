"""What a Jira or Linear answer becomes, read without a server: rich text to its depth and size
bounds, both sides of Jira's links, comments as text, and the typed fact of a Linear answer
holding no issue. The answers are a tracker's, so each case is one a broken or hostile tracker
may send."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from delta.dossier import jira, linear
from delta.dossier.items import RICH_TEXT_CHARS, RICH_TEXT_DEPTH, TRUNCATED, Fetched, acceptance_criteria
from delta.dossier.transport import TrackerFailure
from tests.examples import examples

MARKED = TRUNCATED.format(chars=RICH_TEXT_CHARS)


# Each reader reads the JSON a tracker sends: the cases are written as the values it encodes.
def adf_text(node: object) -> str:
    return jira.adf_text(json.dumps(node).encode())


def parse_jira(key: str, answer: object, base: str) -> Fetched:
    return jira.parse_issue(key, json.dumps(answer).encode(), base)


def parse_linear(key: str, answer: object) -> Fetched:
    return linear.parse_issue(key, json.dumps(answer).encode())


def text(t: str) -> dict:
    return {"type": "text", "text": t}


def nested(levels: int, node: dict) -> dict:
    """`node` under `levels` paragraphs: each paragraph and its content list are two levels of JSON."""
    for _ in range(levels):
        node = {"type": "paragraph", "content": [node]}
    return node


def test_adf_keeps_its_structure_to_the_depth_bound_and_gives_text_only_past_it():
    heading = {"type": "heading", "attrs": {"level": 2}, "content": [text("x")]}
    # a doc is at depth 0 and its content list at 1: the heading is at 2 + 2 * levels
    within = (RICH_TEXT_DEPTH - 4) // 2
    assert adf_text({"type": "doc", "content": [nested(within, heading)]}).startswith("## x")
    assert adf_text({"type": "doc", "content": [nested(within + 1, heading)]}).startswith("x")


@settings(max_examples=examples(50), deadline=None)
@given(st.lists(st.text(alphabet="abc", min_size=1, max_size=5), min_size=1, max_size=6),
       st.integers(RICH_TEXT_DEPTH // 2 - 2, RICH_TEXT_DEPTH + 10))
def test_text_about_the_depth_bound_is_every_leaf_in_document_order(leaves, levels):
    node = nested(levels, {"type": "paragraph", "content": [{"type": "listItem", "content": [text(leaf)]}
                                                             for leaf in leaves]})
    assert "".join(leaves) in adf_text(node).replace("- ", "").replace("\n", "")


def test_a_task_list_gives_checkboxes_with_their_state():
    doc = {"type": "doc", "content": [
        {"type": "paragraph", "content": [text("Acceptance criteria")]},
        {"type": "taskList", "content": [
            {"type": "taskItem", "attrs": {"state": "DONE"}, "content": [text("exports csv")]},
            {"type": "taskItem", "attrs": {"state": "TODO"}, "content": [text("keeps columns")]}]}]}
    body = adf_text(doc)
    assert "- [x] exports csv\n- [ ] keeps columns\n" in body
    assert [(c.text, c.done) for c in acceptance_criteria(body)] == [("exports csv", True), ("keeps columns", False)]


def test_a_task_is_one_line_of_its_list_whatever_blanks_or_breaks_its_text_holds():
    doc = {"type": "taskList", "content": [
        {"type": "taskItem", "attrs": {"state": "DONE"}, "content": [{"type": "hardBreak"}, text("exports csv ")]},
        {"type": "taskItem", "attrs": {"state": "TODO"}, "content": [text("  keeps columns")]}]}
    body = adf_text(doc)
    assert body == "- [x] exports csv\n- [ ] keeps columns\n"
    assert [(c.text, c.done) for c in acceptance_criteria(body)] == [("exports csv", True), ("keeps columns", False)]


def test_a_text_past_the_size_bound_is_cut_and_marked_at_any_depth():
    """A leaf of one character more than the bound, above the depth bound or below it (under
    lists, which add no text of their own)."""
    for levels in (0, RICH_TEXT_DEPTH + 1):
        node: object = text("t" * (RICH_TEXT_CHARS + 1))
        for _ in range(levels):
            node = [node]
        assert adf_text(node) == "t" * RICH_TEXT_CHARS + MARKED, levels


def test_the_text_of_a_list_past_the_size_bound_is_not_made():
    """Rich text stops being rendered once the bound is filled: a document of twice as many
    paragraphs past it costs no more work."""
    from tests.lines_run import module_lines

    def doc(n: int) -> dict:
        return {"type": "doc", "content": [{"type": "paragraph", "content": [text("p" * 1000)]}] * n}

    paragraphs = RICH_TEXT_CHARS // 1000 + 10
    for deep in (False, True):  # below the depth bound the text is read by `_flat_text`
        wrap = (lambda node: nested(RICH_TEXT_DEPTH, node)) if deep else (lambda node: node)
        once = module_lines(jira.__file__, lambda: adf_text(wrap(doc(paragraphs))))
        twice = module_lines(jira.__file__, lambda: adf_text(wrap(doc(2 * paragraphs))))
        assert once[0] == twice[0] and twice[1] == once[1], deep


def test_a_hard_break_is_a_new_line_of_the_text():
    doc = {"type": "doc", "content": [{"type": "paragraph", "content": [
        text("Acceptance criteria"), {"type": "hardBreak"}, text("- [ ] one"), {"type": "hardBreak"}, text("- [x] two")]}]}
    body = adf_text(doc)
    assert body == "Acceptance criteria\n- [ ] one\n- [x] two\n"
    assert [(c.text, c.done) for c in acceptance_criteria(body)] == [("one", False), ("two", True)]


@pytest.mark.parametrize("level", ["2", 2.5, None, [2], -1, 0, 7])
def test_a_heading_level_outside_one_to_six_or_of_no_number_is_one(level):
    assert adf_text({"type": "heading", "attrs": {"level": level}, "content": [text("t")]}) == "# t\n"


def test_a_jira_answer_gives_links_of_both_sides_and_comments_as_text():
    answer = {"key": "PROJ-1", "fields": {
        "summary": "t",
        "issuelinks": [{"outwardIssue": {"key": "PROJ-2"}}, {"inwardIssue": {"key": "PROJ-3"}}],
        "comment": {"comments": [{"author": {"displayName": "Ann"}, "created": "c",
                                  "body": {"type": "doc", "content": [{"type": "paragraph", "content": [text("v3")]}]}}]}}}
    got = parse_jira("PROJ-1", answer, "https://jira.example")
    assert got.links == ["PROJ-2", "PROJ-3"]
    assert [(c.author, c.body) for c in got.comments] == [("Ann", "v3\n")]


def test_a_plain_jira_description_and_comment_are_cut_and_marked():
    long = "d" * (RICH_TEXT_CHARS + 1)
    got = parse_jira("PROJ-1", {"fields": {"summary": "t", "description": long, "comment": {"comments": [{"body": long}]}}},
                     "https://jira.example")
    assert got.body == "d" * RICH_TEXT_CHARS + MARKED
    assert [c.body for c in got.comments] == ["d" * RICH_TEXT_CHARS + MARKED]


@pytest.mark.parametrize("answer", [[], {"fields": []}, {"fields": "x"}, {"fields": {"summary": 5}}, {"key": "PROJ-1"}])
def test_a_jira_answer_without_a_fields_object_or_summary_is_malformed(answer):
    with pytest.raises(TrackerFailure) as failure:
        parse_jira("PROJ-1", answer, "https://jira.example")
    assert failure.value.code == "malformed_response"


def test_a_linear_body_and_comment_are_cut_and_marked():
    long = "d" * (RICH_TEXT_CHARS + 1)
    got = parse_linear("ENG-1", {"data": {"issue": {"identifier": "ENG-1", "title": "t", "description": long,
                                                    "comments": {"nodes": [{"body": long}]}}}})
    assert got.body == "d" * RICH_TEXT_CHARS + MARKED
    assert [c.body for c in got.comments] == ["d" * RICH_TEXT_CHARS + MARKED]


def test_a_linear_comment_of_no_body_or_user_is_blank():
    got = parse_linear("ENG-1", {"data": {"issue": {"title": "t", "comments": {"nodes": [
        {"body": None, "user": None, "createdAt": "c"}, {"user": {"name": "Ann"}}]}}}})
    assert [(c.author, c.body) for c in got.comments] == [("", ""), ("Ann", "")]


def test_a_linear_relation_without_an_identifier_is_no_link():
    relations = [{"relatedIssue": {"identifier": 5}}, {"relatedIssue": {}}, {"relatedIssue": None},
                 {"relatedIssue": {"identifier": None}}, {"relatedIssue": {"identifier": "ENG-2"}}]
    got = parse_linear("ENG-1", {"data": {"issue": {"title": "t", "relations": {"nodes": relations}}}})
    assert got.links == ["ENG-2"]


@pytest.mark.parametrize("answer, code", [
    ({"data": {"issue": None}}, "not_found"),
    ({"data": {"issue": None}, "errors": [{"message": "Issue not found"}]}, "not_found"),
    ({"errors": [{"message": "Forbidden: this team is private"}]}, "unauthorized"),
    ({"errors": [{"message": "boom", "extensions": {"code": "INTERNAL"}}]}, "tracker_unavailable"),
    ({"errors": [{"message": "x", "extensions": {"type": "authentication error"}}]}, "unauthorized"),
    ({"data": {}}, "malformed_response"),
    ({"data": None}, "malformed_response"),
    ({"data": ["issue"]}, "malformed_response"),
    ([], "malformed_response"),
])
def test_a_linear_answer_without_an_issue_is_its_typed_fact(answer, code):
    with pytest.raises(TrackerFailure) as failure:
        parse_linear("ENG-1", answer)
    assert failure.value.code == code
