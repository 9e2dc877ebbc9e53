"""Reading folders the way test layouts use them: which folders hold tests, what a test
folder names once its test words are set aside, and how close two paths' folders are.

Shared by the counterpart pairing (delta/counterparts.py) and the layout a missing test
is suggested by (delta/layout.py).
"""

from __future__ import annotations

import posixpath
import re
from bisect import bisect_left
from functools import lru_cache

TEST_DIRS = frozenset({"test", "tests", "spec", "specs", "__tests__", "testing", "unittests", "Tests", "Test"})

# Words that mark a folder as holding tests, not what it tests: utils_tests, test_utils,
# tests/utils and utils/tests all name "utils".
TEST_WORDS = frozenset({"test", "tests", "spec", "specs", "testing", "unittest", "unittests"})

# A folder is a test folder when its name says tests in the plural (tests, __tests__,
# utils_tests, Acme.Tests), or it is a singular test/spec/testing at the top or right under
# src/ (Maven's src/test). A singular one deeper down is often a package: django/test/ is
# Django's test client, numpy/testing/ a library.
PLURAL_TEST_WORDS = frozenset({"tests", "specs", "unittests"})
SINGULAR_TEST_DIRS = frozenset({"test", "spec", "testing"})


def words(segment: str) -> list[str]:
    """Lower-case words of a name; a version digit trails off (tests/backends/sqlite mirrors
    django/db/backends/sqlite3, oauth2 is oauth) unless the word is all digits."""
    return [w.rstrip("0123456789") or w for w in re.split(r"[^0-9a-z]+", segment.lower()) if w]


@lru_cache(maxsize=1 << 16)  # a packet asks it of the same folder names again and again
def subject(segment: str) -> str:
    """What a folder name names once its test words are set aside ("utils_tests" -> "utils")."""
    return "_".join(w for w in words(segment) if w not in TEST_WORDS)


def in_test_dir(folder: str) -> bool:
    parts = [p for p in folder.split("/") if p]
    for i, part in enumerate(parts):
        if PLURAL_TEST_WORDS & set(words(part)):
            return True
        if part.lower() in SINGULAR_TEST_DIRS and (i == 0 or parts[i - 1] == "src"):
            return True
    return False


def impl_folder(folder: str) -> str:
    """The implementation-side folder a test folder mirrors (src/test/java -> src/main/java)."""
    parts = [p for p in folder.split("/") if p]
    return _maven_swapped(parts, "test", "main") or "/".join(p for p in parts if p not in TEST_DIRS)


def tests_folder_for(folder: str) -> str:
    """The test-side folder of an implementation folder (src/main/java -> src/test/java)."""
    return _maven_swapped([p for p in folder.split("/") if p], "main", "test") or folder


def _maven_swapped(parts: list[str], side: str, other: str) -> str:
    """`parts` with the folder after `src` turned from `side` to `other`, "" when it is not `side`."""
    if "src" in parts:
        i = parts.index("src")
        if i + 1 < len(parts) and parts[i + 1] == side:
            return "/".join(parts[:i + 1] + [other] + parts[i + 2:])
    return ""


def join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def subjects(path: str) -> list[str]:
    return [s for s in (subject(p) for p in posixpath.dirname(path).split("/")) if s]


def folder_words(path: str) -> frozenset[str]:
    """The words the innermost folder names, test words aside: tests/admin_filters/tests.py -> admin, filters."""
    found = subjects(path)
    return frozenset(found[-1].split("_")) if found else frozenset()


def all_words(path: str) -> set[str]:
    """Every word of every folder of the path, test words aside."""
    return {w for s in subjects(path) for w in s.split("_")}


def mirror(a: str, b: str) -> int:
    """Trailing folders the two paths share by subject: src/pkg/a/b.py and tests/a/test_b.py share "a",
    src/main/java/com/acme and src/test/java/com/acme share "java/com/acme"."""
    n = 0
    for x, y in zip(reversed(subjects(a)), reversed(subjects(b))):
        if x != y:
            break
        n += 1
    return n


def overlap(a: str, b: str) -> int:
    """Folder words the two paths share anywhere (tests/admin_filters and django/contrib/admin share "admin")."""
    return len(all_words(a) & all_words(b))


def leading(a: str, b: str) -> int:
    """Shared leading folders once test folders are set aside, plus one when the folders are the same."""
    return closeness(impl_folder(posixpath.dirname(a)).split("/"), impl_folder(posixpath.dirname(b)).split("/"),
                     posixpath.dirname(a) == posixpath.dirname(b))


def closeness(pa: list[str], pb: list[str], same: bool) -> int:
    """Two for each leading folder the two lists share, plus one when the folders are the same."""
    n = 0
    for x, y in zip(pa, pb):
        if x != y:
            break
        n += 1
    return n * 2 + same


def _contains(outer: str, inner: str) -> bool:
    return outer == "" or inner == outer or inner.startswith(outer + "/")


def singular(word: str) -> str:
    """A folder word without its plural ending, so tests/view_tests names django/views and
    tests/queries names query: the folder and the module name the same thing either way."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def _rest_words(parts: list[str]) -> set[str]:
    """Folder words, singular, each folder's whole subject too: tests/admin_docs names admindocs."""
    return set().union(*map(_folder_words, parts))


@lru_cache(maxsize=1 << 16)  # a deep path's folders are read again for each file it is weighed against
def _folder_words(segment: str) -> frozenset[str]:
    """`_rest_words` of one folder."""
    named = [w for w in subject(segment).split("_") if w]
    return frozenset({singular(w) for w in named} | ({singular("".join(named))} if len(named) > 1 else set()))


def related(impl: str, test: str) -> bool:
    """Whether the test's folders say anything about the implementation's, beyond the name:
    the folder the test mirrors holds the implementation's folder or sits inside it (tests/
    at the root holds every folder; src/pkg/__tests__ is src/pkg), or, past the leading
    folders both share, the two still have a folder word in common, plural or not (tests/
    utils_tests and django/utils share "utils", tests/view_tests/tests and django/views
    "view"; see _akin). tests/generic_views shares nothing with django/core/management, and packages/a/
    and packages/b/ share only their container."""
    own, mirrored = posixpath.dirname(impl), impl_folder(posixpath.dirname(test))
    if _contains(mirrored, own) or _contains(own, mirrored):
        return True
    pa, pb = own.split("/"), mirrored.split("/")
    n = 0
    while n < min(len(pa), len(pb)) and pa[n] == pb[n]:
        n += 1
    wa, wb = _rest_words(pa[n:]), _rest_words(pb[n:])
    return _any_akin(wa, wb)


def _any_akin(wa: set[str], wb: set[str]) -> bool:
    """Whether a word of `wa` and one of `wb` are `_akin`: equal, or a word of one set, of
    AKIN_MIN characters at least, opens or closes a longer one of the other, found by a search
    of the other's words in order and read backwards. Each pair of words was tried, and a deep
    path's folders give a thousand words: the product of the two paths' depths for each pair of
    files a packet relates."""
    if wa & wb:
        return True
    for short, other in ((wa, wb), (wb, wa)):
        wanted = [w for w in short if len(w) >= AKIN_MIN]
        if not wanted:
            continue
        forwards = sorted(other)
        backwards = sorted(w[::-1] for w in other)
        for w in wanted:
            for words_, key in ((forwards, w), (backwards, w[::-1])):
                # the words opening with `key` follow it in order; one that is `key` itself is
                # no other set's word (the sets share none), so the first is longer when it opens so
                at = bisect_left(words_, key)
                if at < len(words_) and words_[at].startswith(key):
                    return True
    return False


def _akin(a: str, b: str) -> bool:
    """Two folder words naming the same thing: equal, or one opening or closing the other
    when the shorter is a word of its own length (tests/template_tests and django/templatetags,
    tests/modeladmin and django/contrib/admin), not a fragment like "base" in "database"."""
    if a == b:
        return True
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return len(short) >= AKIN_MIN and (long_.startswith(short) or long_.endswith(short))


AKIN_MIN = 5


def names_stem(test: str, stem: str) -> bool:
    """Whether the test's outermost subject folder is named for the stem itself, plural or not:
    tests/lookup/test_lookups.py is about lookups wherever lookups.py lives (django/db/models/).
    Only the outermost: in tests/backends/base/ "base" is a part of the backends, not of every
    base.py; and only the whole name: invalid_models_tests is not about every models.py."""
    found = subjects(test)
    return bool(found) and {singular(w) for w in found[0].split("_")} == {singular(w) for w in stem.split("_") if w}
