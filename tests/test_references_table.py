"""The reference table: commit subjects, bodies, PR text and branch names of the kinds seen in
real projects, each with the references a reviewer would expect, traps included.

Expected entries: `#12` (this repository), `owner/repo#12`, `ABC-12`; a leading `!` marks a
reference recorded as closing. Configured prefixes are PROJ, ENG and CORE; this repository is
acme/widgets. A case whose text is a list is read as several commit subjects.
"""

from __future__ import annotations

import pytest

from delta.dossier.refs import BRANCH, COMMIT_BODY, COMMIT_SUBJECT, PR_BODY, Source, extract_references

PREFIXES = ("PROJ", "ENG", "CORE")
THIS_REPO = "acme/widgets"

S, B, P, BR = COMMIT_SUBJECT, COMMIT_BODY, PR_BODY, BRANCH

TABLE = [
    # --- GitHub short forms in subjects -------------------------------------------------
    (S, "Fix crash on empty config (#123)", ["#123"]),
    (S, "Merge pull request #4521 from alice/feature-x", ["#4521"]),
    (S, "fixes #12", ["!#12"]),
    (S, "Fixes #12", ["!#12"]),
    (S, "FIXED #12", ["!#12"]),
    (S, "close #7", ["!#7"]),
    (S, "Closes #7", ["!#7"]),
    (S, "closed #7", ["!#7"]),
    (S, "resolve #99", ["!#99"]),
    (S, "Resolves #99", ["!#99"]),
    (S, "resolved #99", ["!#99"]),
    (S, "Fixes: #31", ["!#31"]),
    (S, "fix #1, fix #2", ["!#1", "!#2"]),
    (S, "Fixes #1 and #2", ["!#1", "#2"]),
    (S, "Refs #88", ["#88"]),
    (S, "See #88 for context", ["#88"]),
    (S, "Revert \"Add retry (#301)\"", ["#301"]),
    (S, "Bump version (#1)", ["#1"]),
    (S, "#42: handle nil pointer", ["#42"]),
    (S, "Address review on #9876543", ["#9876543"]),
    (S, "Part of #5; follow-up to #6", ["#5", "#6"]),
    (S, "[#77] tidy imports", ["#77"]),
    (S, "(#78) tidy imports", ["#78"]),
    (S, "Fix #12.", ["!#12"]),
    (S, "fix typo in README", []),
    (S, "Update dependencies", []),
    (S, "prefix#12 is not a reference", []),
    (S, "GH-123: widget alignment", ["#123"]),
    (S, "gh-104584: Fix the asyncio REPL", ["#104584"]),
    (S, "Fixes GH-9", ["!#9"]),
    (S, "closes gh-10", ["!#10"]),
    (S, "sync with upstream (GH-5, GH-6)", ["#5", "#6"]),
    # --- owner/repo#N -------------------------------------------------------------------
    (S, "Port fix from django/django#17000", ["django/django#17000"]),
    (S, "Fixes acme/other#3", ["!acme/other#3"]),
    (S, "closes my-org/my_repo.js#45", ["!my-org/my_repo.js#45"]),
    (S, "see foo.bar/baz-qux#1", ["foo.bar/baz-qux#1"]),
    (S, "acme/widgets#12 is this repository", ["#12"]),
    (S, "Fix #12 (acme/widgets#12)", ["!#12"]),
    (S, "ACME/Widgets#12 differs only in case", ["#12"]),
    (S, "vendor lib from pallets/click#2000 and #3", ["pallets/click#2000", "#3"]),
    (S, "src/app.py#L12 is a line anchor", []),
    (S, "a/b/c#1 is a path, not a repository", []),
    (S, "mail me at dev@acme/widgets#1", []),
    # --- URLs ---------------------------------------------------------------------------
    (S, "See https://github.com/acme/widgets/issues/55", ["#55"]),
    (S, "Port https://github.com/psf/requests/pull/6000", ["psf/requests#6000"]),
    (S, "Fixes https://github.com/psf/requests/issues/6001", ["!psf/requests#6001"]),
    (S, "https://github.com/o-r.g/re_po/issues/7#issuecomment-1234", ["o-r.g/re_po#7"]),
    (S, "review: https://github.com/acme/other/pull/8/files", ["acme/other#8"]),
    (S, "(https://github.com/acme/other/issues/9).", ["acme/other#9"]),
    (S, "docs at https://example.com/a/b#1", []),
    (S, "anchor https://docs.python.org/3/library/re.html#123", []),
    (S, "https://github.com/acme/widgets/blob/main/x.py#L10", []),
    (S, "https://github.com/acme/widgets/commit/abc123", []),
    (S, "see https://gitlab.com/acme/widgets/-/issues/5", []),
    (S, "Jira: https://acme.atlassian.net/browse/OPS-17", ["OPS-17"]),
    (S, "fixes https://jira.example.org/jira/browse/SEC-4", ["!SEC-4"]),
    (S, "https://linear.app/acme/issue/ENG-12/rate-limit-the-api", ["ENG-12"]),
    (S, "https://linear.app/acme/issue/DES-3", ["DES-3"]),
    (S, "<https://github.com/acme/other/issues/10>", ["acme/other#10"]),
    (S, "[issue](https://github.com/acme/other/issues/11)", ["acme/other#11"]),
    (S, "see www.github.com/acme/other/issues/12", ["acme/other#12"]),
    (S, "https://x.org/a/b#1 and then #2", ["#2"]),
    # --- tracker keys -------------------------------------------------------------------
    (S, "PROJ-123: add export", ["PROJ-123"]),
    (S, "[PROJ-7] fix the thing", ["PROJ-7"]),
    (S, "ENG-1 ENG-2", ["ENG-1", "ENG-2"]),
    (S, "Fixes CORE-99", ["!CORE-99"]),
    (S, "proj-123 lower case in a subject is no key", []),
    (S, "OPS-5 seen once is no key", []),
    (S, ["OPS-5 deploy", "OPS-6 rollback"], ["OPS-5", "OPS-6"]),
    (S, ["OPS-5 deploy", "OPS-5 again"], ["OPS-5"]),
    (S, "PROJ-0123 has a leading zero", ["PROJ-123"]),
    (S, "PROJ-1234567890", ["PROJ-1234567890"]),
    (S, "PROJ-12-followup", ["PROJ-12"]),
    (S, "PROJ2-5 digits in a prefix", []),
    (S, ["A1B-5 first", "A1B-6 second"], ["A1B-5", "A1B-6"]),
    (S, "X-1 single letter", []),
    (S, ["X-1", "X-2"], []),
    # --- traps: standards, encodings, versions, dates, colors, headings --------------------
    (S, "Read files as UTF-8", []),
    (S, ["Read files as UTF-8", "Write UTF-8 too", "and UTF-16"], []),
    (S, ["Switch to SHA-256", "Drop SHA-1 from SHA-256 list"], []),
    (S, ["Decode ISO-8859-1", "also ISO-8859-15"], []),
    (S, ["Use ISO-8601 dates", "ISO-8601 everywhere"], []),
    (S, ["Implement RFC-7231", "RFC-7231 section 6"], []),
    (S, ["PEP-8 cleanup", "PEP-8 more"], []),
    (S, ["Patch CVE-2024-3094", "CVE-2024-3094 follow-up"], []),
    (S, ["Fix for COVID-19 dashboard", "COVID-19 data"], []),
    (S, "Release v1.2.3", []),
    (S, "Bump lodash from 4.17.20 to 4.17.21", []),
    (S, "Bump actions/checkout from 3 to 4", []),
    (S, "chore(deps): bump golang.org/x/net from 0.17.0 to 0.23.0", []),
    (S, "Release 2024-05-01", []),
    (S, "Prepare 2.0.0-rc.1", []),
    (S, "Set color to #fff", []),
    (S, "Use #00ff00 for success", []),
    (S, "background #abc123", []),
    (S, "HTML entity &#123; in template", []),
    (S, "C# support", []),
    (S, "Python-3.11 support", []),
    (S, "Support Python 3.12", []),
    (S, "x86-64 build", []),
    (S, "Use base-64 encoding", []),
    (S, "Update to TLS-1 removal", []),
    (S, "Windows-1252 decoding", []),
    # --- code spans -----------------------------------------------------------------------
    (S, "Document `#123` placeholder", []),
    (S, "Rename `fixes #4` example", []),
    (S, "Explain ``a `#5` b`` quoting", []),
    (S, "Parse `PROJ-1` keys, fixes #6", ["!#6"]),
    (S, "use `https://github.com/acme/other/issues/1` as an example", []),
    (B, "Steps:\n```\ngit log #1\nfixes #2\n```\nFixes #3", ["!#3"]),
    (B, "~~~\nPROJ-4\n~~~\nPROJ-5", ["PROJ-5"]),
    (B, "```python\ncolor = '#123'\n```", []),
    # --- bodies and PR text ---------------------------------------------------------------
    (B, "# Summary\n\nThis fixes the crash.\n\nFixes #10\nRefs #11", ["!#10", "#11"]),
    (B, "## Changes\n- thing\n\n### Testing\nran it", []),
    (B, "# 1. First heading", []),
    (B, "Co-authored-by: Ann <ann@example.com>\nSigned-off-by: Bob <bob@example.com>", []),
    (B, "Change-Id: I8a7c3b2e1f0d9e8c7b6a5f4e3d2c1b0a9f8e7d6c", []),
    (B, "Reviewed-on: https://review.example.org/c/project/+/12345", []),
    (B, "Closes: #200\nCloses: acme/other#201", ["!#200", "!acme/other#201"]),
    (B, "This PR resolves PROJ-9 and relates to ENG-10.", ["!PROJ-9", "ENG-10"]),
    (B, "Depends on #1\nBlocked by #2", ["#1", "#2"]),
    (B, "fixes\n#3", ["!#3"]),
    (B, "Follow-up:\n- #4\n- #5", ["#4", "#5"]),
    (B, "(cherry picked from commit 3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a)", []),
    (P, "## Related issues\n\nCloses #51\n\n## Checklist\n- [x] tests\n- [ ] docs", ["!#51"]),
    (P, "Implements PROJ-100.\n\nSee https://acme.atlassian.net/browse/PROJ-101", ["PROJ-100", "PROJ-101"]),
    (P, "<!-- template: link the issue, e.g. #123 -->\nFixes #52", ["#123", "!#52"]),
    (P, "Ticket: https://linear.app/acme/issue/ENG-77/fix-login", ["ENG-77"]),
    (P, "| id | note |\n|---|---|\n| #60 | first |", ["#60"]),
    # --- branch names ---------------------------------------------------------------------
    (BR, "main", []),
    (BR, "develop", []),
    (BR, "123-fix-login", ["#123"]),
    (BR, "123_fix_login", ["#123"]),
    (BR, "fix/123", ["#123"]),
    (BR, "fix/123-login", ["#123"]),
    (BR, "bugfix/456", ["#456"]),
    (BR, "feature/789-new-api", ["#789"]),
    (BR, "issue-45", ["#45"]),
    (BR, "issues/45", ["#45"]),
    (BR, "issue_45_crash", ["#45"]),
    (BR, "gh-12-docs", ["#12"]),
    (BR, "GH-12", ["#12"]),
    (BR, "bug-77", ["#77"]),
    (BR, "fix-77-crash", ["#77"]),
    (BR, "pr-88", ["#88"]),
    (BR, "feature/#45-foo", ["#45"]),
    (BR, "alice/123-fix", ["#123"]),
    (BR, "users/alice/123", ["#123"]),
    (BR, "1", ["#1"]),
    (BR, "9999999", ["#9999999"]),
    (BR, "release/2024-05", []),
    (BR, "release/2024-05-01", []),
    (BR, "2024-05-01-cleanup", []),
    (BR, "hotfix/2024-05-01", []),
    (BR, "release/123", []),
    (BR, "releases/7", []),
    (BR, "v1.2.3", []),
    (BR, "release/v1.2.3", []),
    (BR, "release-1.2", []),
    (BR, "1.2.3", []),
    (BR, "dependabot/npm_and_yarn/lodash-4.17.21", []),
    (BR, "dependabot/github_actions/actions/checkout-4", []),
    (BR, "renovate/node-20.x", []),
    (BR, "renovate/major-react-monorepo", []),
    (BR, "feature/oauth2-login", []),
    (BR, "feature/PROJ-42-login", ["PROJ-42"]),
    (BR, "PROJ-42", ["PROJ-42"]),
    (BR, "proj-42-login", ["PROJ-42"]),
    (BR, "alice/eng-123-fix-login", ["ENG-123"]),
    (BR, "bob/core-7_refactor", ["CORE-7"]),
    (BR, "ops-5-deploy", []),
    (BR, "feature/utf-8-names", []),
    (BR, "sha-256-hashes", []),
    (BR, "fix/iso-8859-1", []),
    (BR, "upgrade-python-3", []),
    (BR, "wip", []),
    (BR, "HEAD", []),
]


def _expected_set(expected):
    return [(e.lstrip("!"), e.startswith("!")) for e in expected]


@pytest.mark.parametrize("kind, text, expected", TABLE, ids=[f"{i:03d}" for i in range(len(TABLE))])
def test_reference_table(kind, text, expected):
    texts = text if isinstance(text, list) else [text]
    sources = [Source(kind, f"src{i}", t) for i, t in enumerate(texts)]
    refs = extract_references(sources, PREFIXES, THIS_REPO)
    assert [(r.id, r.closing) for r in refs] == _expected_set(expected)


def test_table_is_large_enough_and_has_its_traps():
    assert len(TABLE) >= 150
    texts = " ".join(t if isinstance(t, str) else " ".join(t) for _, t, _ in TABLE)
    for trap in ("UTF-8", "SHA-256", "ISO-8859-1", "release/2024-05", "https://example.com/a/b#1", "`#123`",
                 "v1.2.3", "2024-05-01", "# Summary", "#fff"):
        assert trap in texts
