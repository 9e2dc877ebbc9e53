"""Extraction across sources: provenance, deduplication, order, the seen-twice gate, determinism."""

from __future__ import annotations

import random
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from delta.dossier.refs import (
    BRANCH,
    COMMIT_BODY,
    COMMIT_SUBJECT,
    MAX_KEPT_PROVENANCE,
    PR_BODY,
    PR_TITLE,
    PROVENANCE_CHARS,
    Provenance,
    Source,
    extract_references,
)
from delta.dossier.web_link import link_refusal
from tests.examples import examples
from tests.lines_run import lines_run


def test_every_provenance_is_kept_and_the_reference_deduplicated():
    sources = [
        Source(BRANCH, "fix/12-crash", "fix/12-crash"),
        Source(PR_TITLE, "pr.title", "Fix crash (#12)"),
        Source(COMMIT_SUBJECT, "c1" * 20, "fixes #12"),
        Source(COMMIT_BODY, "c1" * 20, "See https://github.com/acme/widgets/issues/12"),
    ]
    [ref] = extract_references(sources, (), "acme/widgets")
    assert ref.id == "#12" and ref.closing and ref.number == 12 and ref.repo is None  # this repository: no repo field
    assert ref.url == "https://github.com/acme/widgets/issues/12"
    assert ref.provenance == [
        Provenance(BRANCH, "fix/12-crash", "12-crash"),
        Provenance(PR_TITLE, "pr.title", "#12"),
        Provenance(COMMIT_SUBJECT, "c1" * 20, "#12"),
        Provenance(COMMIT_BODY, "c1" * 20, "https://github.com/acme/widgets/issues/12"),
    ]
    assert ref.provenance_total == 4


def test_without_this_repo_a_full_reference_stays_apart_from_a_local_number():
    refs = extract_references([Source(COMMIT_SUBJECT, "c", "#3 and acme/widgets#3")])
    assert [r.id for r in refs] == ["#3", "acme/widgets#3"]


def test_another_repositorys_reference_is_one_in_any_case_and_kept_as_first_written():
    """GitHub reads owner and repository names in any case. Was: `Up/Lib#1` and `up/lib#1` were
    two references, each asked of GitHub."""
    refs = extract_references([Source(COMMIT_SUBJECT, "c", "see Up/Lib#1"),
                               Source(COMMIT_BODY, "c", "and up/lib#1, https://github.com/UP/LIB/issues/1, up/lib#2")],
                              (), "acme/widgets")
    assert [(r.id, r.repo, r.provenance_total) for r in refs] == [("Up/Lib#1", "Up/Lib", 3), ("up/lib#2", "up/lib", 1)]


def test_order_is_first_appearance_in_source_order():
    sources = [Source(COMMIT_SUBJECT, "a", "#9 then #2"), Source(COMMIT_SUBJECT, "b", "#1 and #9")]
    assert [r.id for r in extract_references(sources)] == ["#9", "#2", "#1"]


def test_seen_twice_counts_across_branch_and_commits():
    one = [Source(BRANCH, "ops-5-deploy", "ops-5-deploy")]
    assert extract_references(one) == []
    two = one + [Source(COMMIT_SUBJECT, "c", "OPS-5: deploy")]
    [ref] = extract_references(two)
    assert (ref.id, ref.tracker) == ("OPS-5", "tracker")
    assert [p.source for p in ref.provenance] == [BRANCH, COMMIT_SUBJECT]


def test_a_tracker_url_names_the_tracker_and_lets_its_prefix_count():
    sources = [Source(PR_BODY, "pr.body", "https://acme.atlassian.net/browse/OPS-1 and OPS-2")]
    refs = extract_references(sources)
    assert [(r.id, r.tracker) for r in refs] == [("OPS-1", "jira"), ("OPS-2", "tracker")]
    refs = extract_references([Source(COMMIT_SUBJECT, "c", "ENG-4"),
                               Source(COMMIT_BODY, "c", "https://linear.app/acme/issue/ENG-4/x")], ["ENG"])
    assert [(r.id, r.tracker, r.url) for r in refs] == [("ENG-4", "linear", "https://linear.app/acme/issue/ENG-4/x")]


def test_configured_prefix_overrides_the_deny_list():
    src = [Source(COMMIT_SUBJECT, "c", "SHA-12 landed")]
    assert extract_references(src) == []
    assert [r.id for r in extract_references(src, ["SHA"])] == ["SHA-12"]


def test_closing_is_recorded_when_any_mention_closes():
    sources = [Source(COMMIT_SUBJECT, "a", "see #4"), Source(COMMIT_SUBJECT, "b", "closes #4")]
    [ref] = extract_references(sources)
    assert ref.closing


def test_any_digit_count():
    for digits in ("1", "12", "12345", "123456789012"):
        refs = extract_references([Source(COMMIT_SUBJECT, "c", f"#{digits} and PROJ-{digits}")], ["PROJ"])
        assert [r.id for r in refs] == [f"#{digits}", f"PROJ-{digits}"]


def test_a_number_too_long_for_any_issue_is_no_reference():
    """A commit under review writes a run of digits no tracker numbers an issue with (past 4,300
    digits `int` refuses it): that run is no reference, and the others are still found."""
    long = "9" * 5000
    text = (f"#{long} GH-{long} acme/x#{long} PROJ-{long} https://github.com/a/b/issues/{long} "
            f"https://jira.example.org/browse/PROJ-{long} #{'1' * 19} then #5 and PROJ-6")
    refs = extract_references([Source(COMMIT_SUBJECT, "c", text), Source(BRANCH, "b", f"fix/{long}-x/proj-{long}")],
                              ["PROJ"])
    assert [r.id for r in refs] == ["#5", "PROJ-6"]


pieces = st.sampled_from(["#", "GH-", "acme/x#", "PROJ-", "fix/", "issue-", "https://github.com/a/b/issues/",
                          "https://jira.example.org/browse/PROJ-", "https://linear.app/t/issue/ENG-", "closes ", " ",
                          "\n", "/", "`", "1", "12", "9" * 19, "9" * 5000, "x", "r" * 101, "P" * 70, "?q=" + "u" * 600,
                          "\u0663", "\uff13", "https://github.com/", "https://linear.app/t/issue/",
                          "https://x@jira.example.org/browse/PROJ-", "\u202e", "\x07", "www.github.com/a/b/issues/",
                          "{", "|"])


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(pieces, max_size=12).map("".join))
def test_any_text_gives_references_of_issue_sized_numbers(text):
    """Whatever the change writes, a reference is short: an issue-sized number in ASCII digits,
    names no longer than the trackers allow, provenance and URL bounded."""
    for kind in (COMMIT_BODY, BRANCH):
        for ref in extract_references([Source(kind, "w", text)], ["PROJ"], "acme/widgets"):
            assert ref.number is None or 0 <= ref.number < 10 ** 18
            assert len(ref.id) <= 160 and ref.id.isascii()
            assert all(len(p.text) <= PROVENANCE_CHARS for p in ref.provenance)
            assert ref.url is None or len(ref.url) <= 2048
            shown = ref.url and ("http://" + ref.url if ref.url[:4].lower() == "www." else ref.url)
            assert not shown or link_refusal(shown) is None  # a link the dossier shows is a plain web link


def test_a_url_the_change_writes_is_shown_only_as_a_plain_web_link():
    """The change under review is untrusted and the dossier shows a reference's `url` as a link:
    one with user info before its host, a control, bidi or zero-width character, or a character
    a URL never holds unescaped is not kept (the reference is still found); a later plain
    spelling of the same reference gives its `url`; a `www.` link is kept as written."""
    hostile = ["https://github.com@evil.example/browse/PROJ-1", "https://jira.example.org/browse/PROJ-2/\u202egpj.exe",
               "https://jira.example.org/browse/PROJ-3?\x07", "https://linear.app/t/issue/ENG-4/\u200b",
               "https://u:p@jira.example.org/browse/PROJ-5", "https://jira.example.org/browse/PROJ-6?{x}"]
    refs = extract_references([Source(COMMIT_BODY, "c", " ".join(hostile))], ["PROJ", "ENG"])
    assert sorted((r.id, r.url) for r in refs) == [("ENG-4", None), *((f"PROJ-{n}", None) for n in (1, 2, 3, 5, 6))]
    refs = extract_references([Source(COMMIT_BODY, "c", "https://x@jira.example.org/browse/PROJ-7 and "
                                      "https://jira.example.org/browse/PROJ-7 and www.github.com/acme/w/issues/8")],
                              ["PROJ"])
    assert sorted((r.id, r.url) for r in refs) == [("PROJ-7", "https://jira.example.org/browse/PROJ-7"),
                                                   ("acme/w#8", "www.github.com/acme/w/issues/8")]


def test_digits_of_other_scripts_and_overlong_names_are_no_reference():
    """`int` reads Arabic-Indic and full-width digits, and no tracker numbers an issue in them;
    an owner, repository or key longer than GitHub, Jira or Linear allow names no issue."""
    text = ("#\u0663 #\uff11\uff12 GH-\uff13 acme/x#\u0664 PROJ-\uff15 https://github.com/a/b/issues/\uff16 "
            f"{'o' * 40}/x#7 acme/{'r' * 101}#8 https://github.com/{'o' * 40}/x/issues/9 "
            f"https://jira.example.org/browse/{'P' * 65}-10 https://linear.app/t/issue/{'E' * 65}-11 "
            f"{'o' * 20}.{'p' * 19}/x#14 {'o' * 39}/{'r' * 100}#12 fixes #13")
    refs = extract_references([Source(COMMIT_SUBJECT, "c", text),
                               Source(BRANCH, "b", "fix/pro\u017f-14-x/\u0663-y")], ["PROJ", "PROS"])
    assert [r.id for r in refs] == [f"{'o' * 39}/{'r' * 100}#12", "#13"]


@settings(max_examples=examples(100), deadline=None)
@given(st.sampled_from(["fix", "fixes", "fixed", "close", "closes", "closed", "resolve", "resolves", "resolved"]),
       st.text("abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=6), st.sampled_from([" ", ": ", "\t"]),
       st.integers(0, 40))
def test_a_word_ending_in_a_closing_keyword_closes_nothing(keyword, start, sep, blanks):
    """docs/dossier.md: `fixes/closes/resolves` record a reference as closing; a word that only
    ends in one (`prefix`, `disclosed`, `unresolved`) does not, however many blanks follow it
    (was: at 21 blanks after `prefix` the keyword was looked for from inside the word)."""
    for text, closing in ((f"{start}{keyword}{sep}{' ' * blanks}#7", False), (f"{keyword}{sep}#7", True),
                          (f"see {start} {keyword.upper()}{sep}#7", True)):
        [ref] = extract_references([Source(COMMIT_SUBJECT, "c", text)])
        assert ref.closing is closing, text


def test_a_long_message_costs_work_linear_in_it():
    """A commit message of many links and many mentions of one issue: the masking spells the text
    out a bounded number of times (not once a link), and a reference keeps its first provenances
    while counting all."""
    import delta.dossier.refs as refs

    n = 2_000
    text = "".join(f"https://github.com/acme/x/issues/1#c{i} `code{i}` see acme/y#{i} GH-{i} " for i in range(n))
    spelled: list[int] = []
    blank = refs._blank

    def counting(text_: str, *rest: object) -> str:
        spelled.append(len(text_))
        return blank(text_, *rest)  # type: ignore[arg-type]

    refs._blank = counting  # type: ignore[assignment]
    try:
        found = extract_references([Source(COMMIT_BODY, "c", text)])
    finally:
        refs._blank = blank  # type: ignore[assignment]
    assert sum(spelled) <= 8 * len(text)
    by_id = {r.id: r for r in found}
    assert by_id["acme/x#1"].provenance_total == n
    assert len(by_id["acme/x#1"].provenance) == MAX_KEPT_PROVENANCE == 100  # docs/dossier.md's figure
    assert len(found) == 2 * n + 1  # acme/x#1, and acme/y#i and #i for each i


def test_deterministic_whatever_the_run():
    texts = ["Fix #1 (PROJ-2)", "closes acme/x#3", "https://github.com/a/b/pull/4", "ENG-5 ENG-6", "#1 again"]
    sources = [Source(COMMIT_SUBJECT, f"c{i}", t) for i, t in enumerate(texts)]
    first = extract_references(sources, ["PROJ"])
    for seed in range(5):
        random.seed(seed)
        assert extract_references(list(sources), ["PROJ"]) == first
    assert [r.id for r in first] == ["#1", "PROJ-2", "acme/x#3", "a/b#4", "ENG-5", "ENG-6"]


def test_a_reference_omits_what_does_not_apply_to_its_kind():
    import msgspec

    refs = extract_references([Source(COMMIT_SUBJECT, "c", "fixes #7, see ABC-12 and ABC-13")], ("ABC",))
    wire = {r["id"]: r for r in msgspec.to_builtins(refs)}
    assert set(wire) == {"#7", "ABC-12", "ABC-13"}
    assert wire["#7"]["number"] == 7 and not {"key", "repo", "url"} & set(wire["#7"])
    assert wire["ABC-12"]["key"] == "ABC-12" and not {"number", "repo", "url"} & set(wire["ABC-12"])
    assert "" not in [v for r in wire.values() for v in r.values()]


def _ids(text: str, kind: str = COMMIT_BODY, prefixes: tuple[str, ...] = (), this_repo: str = "") -> list[str]:
    return [r.id for r in extract_references([Source(kind, "w", text)], prefixes, this_repo)]


def test_each_form_is_found_and_its_near_misses_are_not():
    found = {
        "gh-12 fixed upstream": ["#12"],  # GH-123 in any case
        "(see https://github.com/acme/widgets/pull/5).": ["#5"],  # punctuation ends the URL
        "https://linear.app/acme/issue/eng-12/title": ["ENG-12"],  # a Linear key is upper case
        "Acme/Widgets#3 and #4": ["#3", "#4"],  # GitHub names are case-blind: this repository
        "HTTPS://Linear.App/acme/issue/ENG-7": ["ENG-7"],  # a URL's scheme and host in any case
    }
    for text, ids in found.items():
        assert _ids(text, this_repo="acme/widgets") == ids, text
    [ref] = extract_references([Source(COMMIT_BODY, "w", "(see https://github.com/acme/widgets/pull/5).")])
    assert ref.url == "https://github.com/acme/widgets/pull/5"
    none = [
        "colour &#123; and #123abc in the stylesheet",  # an HTML entity, a hex colour
        "see src/app/main#12 for the anchor",  # a path's anchor names no repository
        "https://example.com/search?q=GH-5&n=#6",  # inside a URL that is no issue URL
        "run `git log #3` and `GH-4`",  # code spans
        "```\nfixes #8\n```",  # a fenced block
        "ISO-8601 and ISO-8601 again",  # a standard, however often
        "bump MYLIB-1.2 to MYLIB-1.3",  # versions
        "bump GH-1.2 to GH-1.3",  # of the GH-N form too
        "acme/widgets#12abc and acme/widgets#7_",  # a number that runs on into a word
        "an escaped \\#12",  # Markdown's escape: GitHub shows `#12` and links nothing
        "UTF-8 and UTF-8, SHA-256 and SHA-256, ISO-8859-1",  # docs/dossier.md's examples
        "https://jira.example.org/browse/PROJ-12x and PROJ-13x",  # no Jira URL: masked, and no key
        "https://github.com/acme/widgets/issues/12x",  # nor a GitHub one
    ]
    for text in none:
        assert _ids(text) == [], text


def test_closing_keywords_and_their_spellings():
    for text in ("Resolves #7", "resolved #7", "Fixes: #7", "closes acme/widgets#7",
                 "fixes https://github.com/acme/widgets/issues/7"):
        [ref] = extract_references([Source(COMMIT_SUBJECT, "c", text)], (), "acme/widgets")
        assert ref.closing, text
    for text in ("fixes the crash reported in #7", "fixes a typo, see #7", "#7 fixes it", "prefixes #7"):
        [ref] = extract_references([Source(COMMIT_SUBJECT, "c", text)])
        assert not ref.closing, text


def test_a_configured_prefix_is_read_in_any_case():
    assert _ids("PROJ-5 once", prefixes=("proj",)) == ["PROJ-5"]


def test_branch_numbers_count_only_in_issue_like_positions():
    for branch, ids in {"release/123": [], "v/2": [], "fix-2fa-login": [], "feature/issue-42-login": ["#42"],
                        "fix/123": ["#123"], "123-fix-x": ["#123"], "fix-7-login": ["#7"], "bug_8": ["#8"],
                        "2024-01-05-notes": [], "notes/2024_01_05": [], "issue-42abc": [], "pr-3.1": [],
                        "docs/page#3": []}.items():  # an anchor, not an issue-like position
        assert _ids(branch, kind=BRANCH) == ids, branch
    # a configured key followed by more numbers is a date or version, as in a message (was: a
    # branch's `proj-2024-01-05` named PROJ-2024)
    for branch in ("bump/proj-1.2-to-proj-1.3", "notes/proj-2024-01-05", "proj-2024-01-05-notes"):
        assert _ids(branch, kind=BRANCH, prefixes=("PROJ",)) == [], branch
    assert _ids("feature/proj-12-export", kind=BRANCH, prefixes=("PROJ",)) == ["PROJ-12"]


def test_one_place_named_twice_is_one_provenance():
    [ref] = extract_references([Source(COMMIT_SUBJECT, "c", "#4, and again #4")])
    assert ref.provenance == [Provenance(COMMIT_SUBJECT, "c", "#4")] and ref.provenance_total == 1


def test_a_long_branch_segment_is_cut_in_its_provenance():
    """A branch names its issue in one segment however long; the provenance keeps 512
    characters of it, as of any text (was: the whole segment)."""
    segment = "x" * 600 + "-#12"
    [ref] = extract_references([Source(BRANCH, "b", f"fix/{segment}")])
    assert ref.id == "#12" and ref.provenance == [Provenance(BRANCH, "b", segment[:512])]


def test_a_long_url_reference_is_cut_in_its_provenance_and_kept_whole_as_its_url():
    url = "https://github.com/acme/widgets/issues/7?q=" + "u" * 1000
    [ref] = extract_references([Source(COMMIT_BODY, "c", f"see {url} please")], (), "acme/widgets")
    assert ref.id == "#7" and ref.url == url
    assert ref.provenance == [Provenance(COMMIT_BODY, "c", url[:512])]  # docs/dossier.md's figure


def test_a_number_of_eighteen_digits_is_a_reference_in_every_form():
    n = "9" * 18
    text = f"#{n} acme/x#{n} PROJ-{n} https://linear.app/t/issue/ENG-{n}"
    refs = extract_references([Source(COMMIT_BODY, "c", text)], ["PROJ"])
    assert [r.id for r in refs] == [f"#{n}", f"acme/x#{n}", f"PROJ-{n}", f"ENG-{n}"]
    assert refs[0].number == 10 ** 18 - 1


def test_a_key_shape_holds_a_prefix_of_at_most_64_characters():
    """The shape a linked ticket's id must have before it is asked for with the token."""
    from delta.dossier.links import is_ticket_id
    from delta.dossier.refs import TRACKER_KEY

    assert TRACKER_KEY.fullmatch("P" * 64 + "-1") and not TRACKER_KEY.fullmatch("P" * 65 + "-1")
    assert TRACKER_KEY.fullmatch("P-" + "9" * 18) and not TRACKER_KEY.fullmatch("P-" + "9" * 19)
    assert is_ticket_id("P" * 64 + "-1", "jira") and not is_ticket_id("P" * 65 + "-1", "linear")


def test_a_reference_keeps_the_url_it_was_first_written_as():
    text = "see https://github.com/acme/widgets/pull/7, then https://github.com/acme/widgets/issues/7"
    [ref] = extract_references([Source(COMMIT_BODY, "c", text)], (), "acme/widgets")
    assert ref.url == "https://github.com/acme/widgets/pull/7" and ref.provenance_total == 2


def test_a_github_url_naming_a_repository_longer_than_github_allows_is_no_reference():
    text = f"https://github.com/acme/{'r' * 101}/issues/9 and https://github.com/acme/{'r' * 100}/issues/10"
    assert [r.id for r in extract_references([Source(COMMIT_BODY, "c", text)])] == [f"acme/{'r' * 100}#10"]


def test_a_reference_after_a_masked_url_or_code_span_is_read_where_it_was_written():
    """URLs and code spans are blanked before the short forms are matched, keeping offsets: a
    closing keyword before a later reference is read there, and references keep their order."""
    text = "see https://example.com/a/long/path and `code span`, then fixes #12 after acme/x#3"
    refs = extract_references([Source(COMMIT_BODY, "c", text)])
    assert [(r.id, r.closing) for r in refs] == [("#12", True), ("acme/x#3", False)]


def test_an_owner_spelled_like_a_key_names_no_key():
    """`owner/repo#N` is blanked once read: an owner that looks like a key (`ABC-1`) is no key."""
    text = "port ABC-1/lib#3 and ABC-2"
    assert [r.id for r in extract_references([Source(COMMIT_BODY, "c", text)], ["ABC"])] == ["ABC-1/lib#3", "ABC-2"]


def test_a_key_followed_by_more_numbers_is_a_date_or_version_not_a_key():
    assert _ids("released PROJ-2024-01-05, see PROJ-7-2", prefixes=("PROJ",)) == []
    assert _ids("released PROJ-2024 and PROJ-7", prefixes=("PROJ",)) == ["PROJ-2024", "PROJ-7"]


def test_this_repositorys_reference_has_no_repo_however_it_was_first_written():
    import msgspec

    [ref] = extract_references([Source(COMMIT_BODY, "c", "Acme/Widgets#3, then #3")], (), "acme/widgets")
    assert (ref.id, ref.repo) == ("#3", None) and "repo" not in msgspec.to_builtins(ref)
    # this repository's name as the user's settings or the remote spell it, in any case
    [ref] = extract_references([Source(COMMIT_BODY, "c", "acme/widgets#3, then #3")], (), "Acme/Widgets")
    assert (ref.id, ref.repo) == ("#3", None)


# The patterns that masked code before they were made linear: what `_mask_code` must still find.
_FENCE_PATTERN = re.compile(r"(?ms)^[ \t]*(```+|~~~+)[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)")
_INLINE_PATTERN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)


@settings(max_examples=examples(250), deadline=None)
@given(st.lists(st.sampled_from(["`", "``", "```", "~~~", "~", " ", "\t", "\n", "a", "#1"]), max_size=24).map("".join))
def test_code_is_masked_where_the_patterns_find_it(text):
    """Fenced blocks and inline code spans are those the patterns find: a span opens at any
    backtick of a run and closes at the next run of exactly its length; a fence opens on a line
    with a newline after it."""
    import delta.dossier.refs as refs

    assert [m.span() for m in refs._FENCE.finditer(text)] == [m.span() for m in _FENCE_PATTERN.finditer(text)]
    assert refs._code_spans(text) == [m.span() for m in _INLINE_PATTERN.finditer(text)]


def test_a_message_of_one_long_run_of_backticks_or_tildes_costs_work_linear_in_it():
    """A run of backticks never closed was read to the text's end from each of its backticks, and
    a last line opening a fence with no newline after it read again for each shorter opening: a
    commit message of 16 kB took 2 to 9 s, one of 1 MiB (the bound a text is read to) hours. Run
    in a child, so the old patterns fail the test at its timeout instead of hanging the run; the
    lines the masking runs are counted at n and 2n."""
    import subprocess
    import sys

    import delta.dossier.refs as refs

    code = ("from delta.dossier.refs import Source, extract_references\n"
            "n = 1 << 18\n"
            "for text in ('`' * n + ' fixes #7 ' + 'a' * n, '`' * (2 * n), '~' * (2 * n), 'x\\n   ' + '`' * (2 * n)):\n"
            "    found = [r.id for r in extract_references([Source('commit_body', 'c', text)])]\n"
            "    assert found == (['#7'] if '#7' in text else []), found\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[1], timeout=300,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr

    def work(n: int) -> int:
        text = "`" * n + " #7 " + "a" * n + "\n" + "~" * n
        return lines_run(lambda: refs._mask_code(text), [refs.__file__])

    small, large = work(4_000), work(8_000)
    assert large <= 2.2 * small, (small, large)
