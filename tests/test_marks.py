"""Generated / vendored marks: gitattributes semantics first, then path rules, then headers."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from corpora.gitbuild import make_repo
from indexer.git.attributes import GitAttributes, mark_files
from indexer.model import BlobFacts, FileEntry


def entry(path: str) -> FileEntry:
    return FileEntry(path=path, blob="0" * 40, mode=0o100644, size=1, lines=1, language="x")


def marks(tree: dict[str, str], facts: dict[str, BlobFacts] | None = None) -> dict[str, tuple[str, str]]:
    files = [entry(p) for p in sorted(tree)]
    return mark_files(files, facts or {}, lambda p: tree[p].encode())


ATTRS = """
# comments and blank lines are ignored

*.gen.go linguist-generated
/api/client/** linguist-generated=true
docs/* linguist-vendored
build/ linguist-generated
**/fixtures/** linguist-vendored
vendor/** -linguist-vendored
vendor/keep/** linguist-vendored=false
proto/*.pb.go -linguist-generated
"quoted name.txt" linguist-generated
special.txt linguist-generated
special.txt !linguist-generated
"""

ATTR_CASES = [
    # (path, attr, expected value)
    ("x.gen.go", "linguist-generated", True),
    ("deep/down/x.gen.go", "linguist-generated", True),  # no slash: basename at any depth
    ("api/client/a/b.py", "linguist-generated", True),  # anchored ** subtree
    ("sub/api/client/b.py", "linguist-generated", None),  # anchored: not at depth
    ("docs/readme.md", "linguist-vendored", True),
    ("docs/deep/readme.md", "linguist-vendored", None),  # * does not cross /
    ("build/out.js", "linguist-generated", None),  # a directory pattern does not reach files inside
    ("fixtures/a.json", "linguist-vendored", True),  # leading **/ matches zero dirs
    ("a/b/fixtures/c/d.json", "linguist-vendored", True),
    ("vendor/lib.go", "linguist-vendored", False),
    ("vendor/keep/x.go", "linguist-vendored", False),
    ("proto/a.pb.go", "linguist-generated", False),
    ("quoted name.txt", "linguist-generated", True),
    ("special.txt", "linguist-generated", None),  # !attr: back to unspecified
    ("other.py", "linguist-generated", None),
]


@pytest.mark.parametrize("path,attr,expected", ATTR_CASES)
def test_gitattributes_value(path, attr, expected):
    ga = GitAttributes([(".gitattributes", ATTRS.encode())])
    assert ga.value(path, attr) == expected


def test_later_lines_and_deeper_files_win():
    ga = GitAttributes([
        (".gitattributes", b"*.js linguist-generated\n*.js -linguist-generated\nlib/*.py linguist-generated\n"),
        ("lib/.gitattributes", b"*.py -linguist-generated\nsub/*.txt linguist-vendored\n"),
        ("lib/inner/.gitattributes", b"*.js linguist-generated=true\n"),
    ])
    assert ga.value("a.js", "linguist-generated") is False  # later line wins
    assert ga.value("lib/inner/a.js", "linguist-generated") is True  # deeper file wins
    assert ga.value("lib/a.py", "linguist-generated") is False  # lib/.gitattributes overrides root's lib/*.py
    assert ga.value("lib/sub/a.txt", "linguist-vendored") is True  # pattern relative to its own directory
    assert ga.value("sub/a.txt", "linguist-vendored") is None  # nested file applies only to its subtree


def test_glob_character_classes_and_middle_double_star():
    ga = GitAttributes([(".gitattributes", b"src/**/gen/*.[ch] linguist-generated\nfile?.txt linguist-vendored\n")])
    assert ga.value("src/gen/a.c", "linguist-generated") is True
    assert ga.value("src/x/y/gen/a.h", "linguist-generated") is True
    assert ga.value("src/x/gen/a.cc", "linguist-generated") is None
    assert ga.value("file1.txt", "linguist-vendored") is True
    assert ga.value("file12.txt", "linguist-vendored") is None


def test_matches_git_check_attr(tmp_path):
    """Our reading agrees with git's own on every case above."""
    paths = [p for p, _, _ in ATTR_CASES]
    make_repo(tmp_path / "r", [{".gitattributes": ATTRS, **{p: "x" for p in paths}}])
    repo_dir = tmp_path / "r"
    subprocess.run(["git", "-C", str(repo_dir), "read-tree", "HEAD"], check=True)
    out = subprocess.run(
        ["git", "-C", str(repo_dir), "check-attr", "--cached", "linguist-generated", "linguist-vendored", "--", *paths],
        capture_output=True, text=True, check=True,
    ).stdout
    git_says = {}
    for line in out.splitlines():
        path, attr, value = line.rsplit(": ", 2)
        git_says[(path, attr)] = {"set": True, "unset": False, "unspecified": None, "true": True, "false": False}.get(value, value)
    ga = GitAttributes([(".gitattributes", ATTRS.encode())])
    for path in paths:
        for attr in ("linguist-generated", "linguist-vendored"):
            assert ga.value(path, attr) == git_says[(path, attr)], (path, attr)


def test_mark_precedence_and_rules():
    tree = {
        ".gitattributes": "vendor/ours/** -linguist-vendored\nsrc/models.py linguist-generated\nlib/jquery.js linguist-vendored\n"
                          "dist/** -linguist-generated\n",
        "vendor/github.com/x/y.go": "",
        "vendor/ours/z.go": "",
        "third_party/lib/a.c": "",
        "web/node_modules/react/index.js": "",
        "web/static/app.min.js": "",
        "web/package-lock.json": "",
        "yarn.lock": "",
        "go.sum": "",
        "api/service_pb2.py": "",
        "api/service.pb.go": "",
        "ui/dist/bundle.js": "",
        "dist/keep.js": "",
        "src/models.py": "",
        "lib/jquery.js": "",
        "src/handwritten.py": "",
        "src/header_gen.py": "",
        "vendor/ours/parser_pb2.py": "",
    }
    facts = {
        "src/header_gen.py": BlobFacts(language="python", lines=1, generated="header:DO NOT EDIT"),
        "src/handwritten.py": BlobFacts(language="python", lines=1),
    }
    assert marks(tree, facts) == {
        "vendor/github.com/x/y.go": ("vendored", "path:vendor/"),
        "third_party/lib/a.c": ("vendored", "path:third_party/"),
        "web/node_modules/react/index.js": ("vendored", "path:node_modules/"),
        "web/static/app.min.js": ("vendored", "path:*.min.js"),
        "web/package-lock.json": ("generated", "lockfile"),
        "yarn.lock": ("generated", "lockfile"),
        "go.sum": ("generated", "lockfile"),
        "api/service_pb2.py": ("generated", "path:*_pb2.py"),
        "api/service.pb.go": ("generated", "path:*.pb.go"),
        "ui/dist/bundle.js": ("generated", "path:dist/"),
        "src/models.py": ("generated", "gitattributes:linguist-generated"),
        "lib/jquery.js": ("vendored", "gitattributes:linguist-vendored"),
        "src/header_gen.py": ("generated", "header:DO NOT EDIT"),
        "vendor/ours/parser_pb2.py": ("generated", "path:*_pb2.py"),  # not vendored by attr, still generated
    }


def test_gitattributes_false_beats_header():
    tree = {".gitattributes": "keep.py -linguist-generated\n", "keep.py": "", "other.py": ""}
    facts = {p: BlobFacts(language="python", lines=1, generated="do-not-edit") for p in ("keep.py", "other.py")}
    assert marks(tree, facts) == {"other.py": ("generated", "header:do-not-edit")}


def test_gitattributes_from_a_file_table():
    tree = {".gitattributes": "*.snap linguist-generated\n", "sub/.gitattributes": "*.snap -linguist-generated\n",
            "a.snap": "", "sub/b.snap": ""}
    ga = GitAttributes.from_files([entry(p) for p in sorted(tree)], lambda p: tree[p].encode())
    assert ga.value("a.snap", "linguist-generated") is True
    assert ga.value("sub/b.snap", "linguist-generated") is False
    assert not GitAttributes.from_files([entry("x.py")], lambda p: b"")


ODD_CLASSES = b"[z-a]x.txt linguist-vendored\n[z-ab]y.txt linguist-vendored\n[a&&b]z.txt linguist-vendored\n" \
              b"a[!x]b linguist-generated\n[[:alpha:]]w.txt linguist-vendored\n"


def test_odd_character_classes_match_as_git_does(tmp_path):
    """A reversed range matches its first character (was: re.error, the whole index
    internal_error), a class
    never matches a slash, and set-operator look-alikes are plain characters, as in git (a POSIX class is read
    as it was, without the warning Python's regex compiler printed for it)."""
    ga = GitAttributes([(".gitattributes", ODD_CLASSES)])
    paths = ["zx.txt", "ax.txt", "by.txt", "zy.txt", "&z.txt", "az.txt", "a/b", "aab"]
    make_repo(tmp_path / "r", [{".gitattributes": ODD_CLASSES, **{p: "x" for p in paths}}])
    subprocess.run(["git", "-C", str(tmp_path / "r"), "read-tree", "HEAD"], check=True)
    out = subprocess.run(["git", "-C", str(tmp_path / "r"), "check-attr", "--cached", "linguist-generated",
                          "linguist-vendored", "--", *paths], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        path, attr, value = line.rsplit(": ", 2)
        assert ga.value(path, attr) == {"set": True, "unspecified": None}[value], (path, attr)


@pytest.mark.parametrize("pattern, path", [
    ("*a*a*a*a*a*a*a*a*a*a*b", "a" * 3000),
    ("**/a*a*a*a/**/a*a*a*a/**/a*a*a*a/**/b", "aaaa/" * 1500 + "c"),
    ("*a*/*a*/*a*/*a*/*a*/*a*/b", ("a" * 400 + "/") * 6 + "c"),
], ids=["stars", "double-stars", "components"])
def test_matching_a_pattern_costs_polynomial_time(pattern, path):
    """A hostile pattern against a long name: was exponential in its stars (backtracking), so a
    one-line .gitattributes and a 43-character name held an index for 100 s; these names would
    never end. Matched in a child process, stopped after 120 s, so such a regression fails
    rather than hangs the suite."""
    import sys
    from pathlib import Path

    code = ("import sys; from indexer.git.attributes import GitAttributes\n"
            "pattern, path = sys.argv[1], sys.argv[2]\n"
            "ga = GitAttributes([('.gitattributes', f'{pattern} linguist-vendored\\n'.encode())])\n"
            "print(ga.value(path, 'linguist-vendored'), ga.value(path[:-1] + 'b', 'linguist-vendored'))\n")
    out = subprocess.run([sys.executable, "-c", code, pattern, path], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.stdout.split() == ["None", "True"], out.stderr


_PIECES = ["a", "b", "ab", ".", "*", "**", "?", "/", "[ab]", "[!a]", "[a-b]", "[b-a]", "[]a]", "\\*", "x"]
_NAMES = ["a", "b", "ab", "ba", "x", "a.b", "d", "aa"]
_SAYS = ["linguist-vendored", "-linguist-vendored", "!linguist-vendored", "linguist-vendored=v1",
         "linguist-vendored=false", "linguist-vendored=true"]


def _pattern(pieces: list[str], lead: bool, trail: bool, quoted: bool) -> str:
    body = ("/" if lead else "") + "".join(pieces) + ("/" if trail else "")
    return f'"{body.replace(chr(34), chr(92) + chr(34))}"' if quoted else body


_rule = st.builds(lambda pieces, lead, trail, quoted, says: f"{_pattern(pieces, lead, trail, quoted)} {says}",
                  st.lists(st.sampled_from(_PIECES), min_size=1, max_size=5),
                  st.booleans(), st.booleans(), st.booleans(), st.sampled_from(_SAYS))


@pytest.fixture(scope="module")
def attr_repo(tmp_path_factory):
    path = tmp_path_factory.mktemp("attrs")
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    (path / "d").mkdir()
    return path


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(top=st.lists(_rule, min_size=1, max_size=4), deep=st.lists(_rule, max_size=2),
       paths=st.lists(st.lists(st.sampled_from(_NAMES), min_size=1, max_size=3).map("/".join), min_size=1,
                      max_size=6, unique=True))
@example(top=["/a** linguist-vendored", "b**/x -linguist-vendored", "/x/*** linguist-vendored=v"], deep=[],
         paths=["ab/x", "ab", "a/b", "b/x", "ba/x", "x/y/z"])
@example(top=["/*a** linguist-vendored", "a/b** -linguist-vendored"], deep=[], paths=["ab/x", "a/bc/d", "a/b"])
def test_any_rules_read_as_git_check_attr_reads_them(attr_repo, top, deep, paths):
    """Any `.gitattributes` lines (wildcards, classes, escapes, anchors, folder-only patterns,
    quoted patterns, set, unset, unspecified and valued attributes, in the root and a folder)
    give each path the value `git check-attr` gives it. Was: a run of three stars was read as
    a plain `*` (git reads it as `**`), and a path pattern whose text before its first
    wildcard is followed by `**` (`/a**`, `src/gen**`) did not match across folders as git's
    does, git matching what follows that text as a pattern of its own."""
    files = {".gitattributes": "\n".join(top) + "\n", "d/.gitattributes": "\n".join(deep) + "\n"}
    for name, text in files.items():
        (attr_repo / name).write_text(text)
    out = subprocess.run(["git", "-C", str(attr_repo), "check-attr", "-z", "linguist-vendored", "--", *paths],
                         capture_output=True, text=True, check=True).stdout.split("\0")
    said = {out[i]: out[i + 2] for i in range(0, len(out) - 2, 3)}
    ga = GitAttributes([(name, text.encode()) for name, text in files.items()])
    for path in paths:
        want = {"set": True, "unset": False, "unspecified": None}.get(said[path], said[path])
        want = {"true": True, "false": False}.get(want, want) if isinstance(want, str) else want
        assert ga.value(path, "linguist-vendored") == want, (path, files)
