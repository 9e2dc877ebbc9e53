"""Generated / vendored marks: gitattributes semantics first, then path rules, then headers."""

from __future__ import annotations

import subprocess

import pygit2
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from corpora.gitbuild import make_repo
from indexer.git.attributes import GitAttributes, mark_files
from indexer.model import BlobFacts, FileEntry
from tests.examples import examples


def entry(path: str, text: str | None = None) -> FileEntry:
    """A file table's row; with `text`, under the blob OID git gives that text."""
    blob = str(pygit2.hash(text.encode())) if text is not None else "0" * 40
    return FileEntry(path=path, blob=blob, mode=0o100644, size=1, lines=1, language="x")


def marks(tree: dict[str, str], facts: dict[str, BlobFacts] | None = None) -> dict[str, tuple[str, str]]:
    files = [entry(p, tree[p]) for p in sorted(tree)]
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


def test_a_file_named_as_a_vendored_or_generated_folder_is_no_such_folder():
    """The path rules name folders (`vendor/`, `dist/`): a file of that name is not inside one."""
    tree = {"src/vendor": "x\n", "lib/node_modules": "x\n", "dist": "x\n", "vendor/a.js": "x\n", "lib/dist/b.js": "x\n"}
    assert marks(tree) == {"vendor/a.js": ("vendored", "path:vendor/"), "lib/dist/b.js": ("generated", "path:dist/")}


def test_a_file_both_vendored_and_generated_by_gitattributes_is_vendored():
    """The module's rule: at one level of evidence, vendored wins over generated."""
    tree = {".gitattributes": "both.js linguist-generated linguist-vendored\n", "both.js": "x\n"}
    assert marks(tree)["both.js"] == ("vendored", "gitattributes:linguist-vendored")


def test_an_earlier_snapshots_mark_is_kept_only_for_the_same_blob():
    """mark_files takes an earlier snapshot's mark for a file whose path and blob it shares (the
    `.gitattributes` files the same): a file whose blob changed is judged again, here losing the
    header mark the earlier blob had."""
    import msgspec

    before = msgspec.structs.replace(entry("gen.py", "# generated\n"), mark="generated", mark_rule="header:gen")
    same = entry("gen.py", "# generated\n")
    changed = entry("gen.py", "x = 1\n")
    read = {"gen.py": b"x = 1\n"}.__getitem__
    assert mark_files([same], {}, read, earlier=[before]) == {"gen.py": ("generated", "header:gen")}
    assert mark_files([changed], {}, read, earlier=[before]) == {}


def test_gitattributes_false_beats_header():
    tree = {".gitattributes": "keep.py -linguist-generated\n", "keep.py": "", "other.py": ""}
    facts = {p: BlobFacts(language="python", lines=1, generated="do-not-edit") for p in ("keep.py", "other.py")}
    assert marks(tree, facts) == {"other.py": ("generated", "header:do-not-edit")}


def test_gitattributes_from_a_file_table():
    tree = {".gitattributes": "*.snap linguist-generated\n", "sub/.gitattributes": "*.snap -linguist-generated\n",
            "a.snap": "", "sub/b.snap": ""}
    ga = GitAttributes.from_files([entry(p, tree[p]) for p in sorted(tree)], lambda p: tree[p].encode())
    assert ga.value("a.snap", "linguist-generated") is True
    assert ga.value("sub/b.snap", "linguist-generated") is False
    assert not GitAttributes.from_files([entry("x.py")], lambda p: b"")


ODD_CLASSES = b"[z-a]x.txt linguist-vendored\n[z-ab]y.txt linguist-vendored\n[a&&b]z.txt linguist-vendored\n" \
              b"a[!x]b linguist-generated\n[[:alpha:]]w.txt linguist-vendored\n" \
              b"d/a[!x]b linguist-generated\nd/c[+-0]d linguist-vendored\ne\\*f linguist-vendored\n"


def test_odd_character_classes_match_as_git_does(tmp_path):
    """A reversed range matches its first character (was: re.error, the whole index
    internal_error), a class
    never matches a slash, and set-operator look-alikes are plain characters, as in git (a POSIX class is read
    as it was, without the warning Python's regex compiler printed for it)."""
    ga = GitAttributes([(".gitattributes", ODD_CLASSES)])
    # in a path pattern too, neither a negated class nor a range over `/` (`+` to `0`) matches the
    # slash; an escaped star is a star, no wildcard
    paths = ["zx.txt", "ax.txt", "by.txt", "zy.txt", "&z.txt", "az.txt", "a/b", "aab", "d/a/b", "d/ayb", "d/c/d",
             "d/c+d", "d/c0d", "e*f", "eXf"]
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


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
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


def test_lines_and_files_git_ignores_are_ignored_as_git_check_attr_ignores_them(attr_repo, monkeypatch):
    """git (since 2.39) ignores a `.gitattributes` line of 2,048 bytes or more, its line ending
    aside (LF or CRLF), and a file of 100 MiB or more: a pattern of such a line marks nothing
    (was: read like any other line)."""
    from indexer.git import attributes
    from indexer.git.attributes import FILE_BYTES, LINE_BYTES, _rules

    lines, paths = [], []
    for length in (2046, 2047, 2048, 2049):
        pattern = "p" * (length - len(" linguist-vendored") - 4) + f"{length}"
        lines.append(pattern + " linguist-vendored")
        paths.append(pattern)
    for ending in ("\n", "\r\n"):
        text = ending.join(lines) + ending
        (attr_repo / ".gitattributes").write_bytes(text.encode())
        (attr_repo / "d" / ".gitattributes").write_text("")
        out = subprocess.run(["git", "-C", str(attr_repo), "check-attr", "-z", "linguist-vendored", "--", *paths],
                             capture_output=True, text=True, check=True).stdout.split("\0")
        said = {out[i]: out[i + 2] for i in range(0, len(out) - 2, 3)}
        assert [said[p] for p in paths] == ["set", "set", "unspecified", "unspecified"]
        ga = GitAttributes([(".gitattributes", text.encode())])
        assert [ga.value(p, "linguist-vendored") for p in paths] == [True, True, None, None]
    assert FILE_BYTES == 100 << 20  # git's bound; the reading of a file at it is checked at a smaller one
    monkeypatch.setattr(attributes, "FILE_BYTES", LINE_BYTES + 64)  # its last line is still one git ignores
    one = b"x linguist-generated\n"
    assert len(_rules(one + b"#" * (attributes.FILE_BYTES - len(one) - 1), 10)) == 1
    assert _rules(one + b"#" * (attributes.FILE_BYTES - len(one)), 10) == []


def test_macro_negative_and_quoted_lines_read_as_git_check_attr_reads_them(attr_repo):
    """A macro definition (`[attr]gen ...`) is no pattern, a negative pattern (`!neg`) is ignored,
    and a quoted pattern may hold an escaped quote, as `git check-attr` reads them."""
    text = '[attr]gen linguist-generated\n!neg linguist-vendored\n"q\\"t" linguist-vendored\n'
    paths = ["agen", "tgen", "gen", "!neg", "neg", 'q"t', "q"]
    (attr_repo / ".gitattributes").write_text(text)
    (attr_repo / "d" / ".gitattributes").write_text("")
    out = subprocess.run(["git", "-C", str(attr_repo), "check-attr", "-z", "linguist-generated", "linguist-vendored",
                          "--", *paths], capture_output=True, text=True, check=True).stdout.split("\0")
    said = {(out[i], out[i + 1]): {"set": True, "unspecified": None}[out[i + 2]] for i in range(0, len(out) - 2, 3)}
    assert said[('q"t', "linguist-vendored")] is True  # git reads the escaped quote
    ga = GitAttributes([(".gitattributes", text.encode())])
    assert {(p, a): ga.value(p, a) for p, a in said} == said


def test_a_gitattributes_that_is_a_link_marks_nothing():
    """Only a regular `.gitattributes` is read (git reads none through a symbolic link): a link's
    target text, here naming every file generated, marks nothing."""
    files = [FileEntry(path=".gitattributes", blob="1" * 40, mode=0o120000, size=20, lines=1, language="x"),
             entry("a.py", "x = 1\n")]
    read = {".gitattributes": b"* linguist-generated\n", "a.py": b"x = 1\n"}
    assert mark_files(files, {}, lambda p: read[p]) == {}
    files[0] = FileEntry(path=".gitattributes", blob="1" * 40, mode=0o100644, size=20, lines=1, language="x")
    assert mark_files(files, {}, lambda p: read[p])["a.py"] == ("generated", "gitattributes:linguist-generated")


def test_rules_past_what_a_lookup_may_cost_are_too_large_and_a_file_is_read_once(monkeypatch):
    """A lookup tries the rules of each folder above a file: past the `attribute_tries`
    limit over the files (40 here, as a user sets it), or `attribute_rules` rules made from the
    distinct files (6 here), the marks are
    refused `too_large`; at the caps they are made. Only rules naming the linguist attributes
    count, and a blob many folders hold is read once (was: every line of every file kept and
    tried for every file)."""
    from indexer.contract.errors import TooLarge

    monkeypatch.setenv("RENNET_LIMITS", "attribute_tries=40,attribute_rules=6")
    rules = "*.a linguist-generated\n*.b linguist-vendored\n*.c text eol=lf\n*.d diff\n"  # two kept
    tree = {".gitattributes": rules, **{f"f{i:02d}.py": "" for i in range(19)}}  # 20 files, 2 rules each
    read: list[str] = []

    def marked(tree):
        files = [entry(p, tree[p]) for p in sorted(tree)]
        return mark_files(files, {}, lambda p: read.append(p) or tree[p].encode())

    assert marked(tree) == {}
    with pytest.raises(TooLarge, match="give its 21 files 42 rules to try together, over the 40"):
        marked({**tree, "g.py": ""})
    # tries counted file by file where folders hold rules of their own: 2 + 4 + 9 x 2 + 4 x 4, at the cap
    nested = {".gitattributes": rules, "d/.gitattributes": rules, **{f"r{i}.py": "" for i in range(9)},
              **{f"d/s{i}.py": "" for i in range(4)}}
    assert marked(nested) == {}
    with pytest.raises(TooLarge, match="give its 16 files 42 rules to try together, over the 40"):
        marked({**nested, "r9.py": ""})
    folders = {f"d{i}/.gitattributes": "x linguist-generated\n" for i in range(4)}  # one blob, 4 folders
    read.clear()
    assert marked({".gitattributes": rules, **folders, "d0/x": ""}) == {"d0/x": ("generated",
                                                                             "gitattributes:linguist-generated")}
    assert sum(read.count(f"d{i}/.gitattributes") for i in range(4)) == 1
    distinct = {f"d{i}/.gitattributes": f"x{i} linguist-generated\n" for i in range(4)}
    assert marked({".gitattributes": rules, **distinct}) == {}  # 2 + 4 rules made
    with pytest.raises(TooLarge, match="hold over 6 rules"):
        marked({".gitattributes": rules, **distinct, "d4/.gitattributes": "x4 linguist-generated\n"})


def test_a_commit_whose_attributes_cost_past_the_cap_is_refused_in_one_line(tmp_path):
    """1,000 rules naming `linguist-generated` over 17,001 files, from a repository of
    kilobytes: 17 million tries, past the 16,777,216 a lookup may cost. `rennet index` refuses
    it in one line at once (was: each file tried against each rule: 10,001 files and 2,000
    rules indexed in 27 s)."""
    from tests.test_hostile_inputs import one_typed_line, rennet
    from tests.test_hostile_trees import BLOB, TREE, blob, raw_commit, raw_tree

    make_repo(tmp_path / "repo", [{"ok.py": "x = 1\n"}])
    repo = pygit2.Repository(str(tmp_path / "repo"))
    empty = blob(repo, "")
    folder = raw_tree(repo, [(BLOB, f"f{i:04d}.py".encode(), empty) for i in range(1000)])
    rules = "".join(f"q{i}*z linguist-generated\n" for i in range(1000))
    entries = [(BLOB, b".gitattributes", blob(repo, rules))]
    entries += [(TREE, f"d{i:02d}".encode(), folder) for i in range(17)]
    entries += [(BLOB, b"ok.py", blob(repo, "x = 1\n"))]
    head = raw_commit(repo, raw_tree(repo, entries), repo.head.target, branch=None)
    out = rennet("index", str(tmp_path / "repo"), "--rev", head, home=tmp_path / "home")
    one_typed_line(out, "too_large")
    assert "give its 17,002 files 17,002,000 rules to try together, over the 16,777,216" in out.stderr
    assert "($RENNET_LIMITS=attribute_tries=32M raises it); not read" in out.stderr


def test_the_folders_above_a_path_holding_rules_are_found_a_part_at_a_time():
    """A lookup finds the folders above a path that hold rules by walking the path's parts
    once, deepest rules first (was: every folder above it spelled out in full, the square of
    its depth: 22 ms a lookup at 2,040 folders deep, and a tree may hold 32,000 such paths;
    now 0.003 ms). The answers are those of asking each folder by its whole name."""
    import random

    rng = random.Random(3)
    for _ in range(200):
        folders = {"/".join(rng.choice("ab") for _ in range(rng.randint(0, 4))) for _ in range(rng.randint(1, 5))}
        ga = GitAttributes([(f"{d}/.gitattributes" if d else ".gitattributes", f"*.{i} linguist-generated\n".encode())
                            for i, d in enumerate(sorted(folders))])
        path = "/".join(rng.choice("ab") for _ in range(rng.randint(1, 6)))
        parts = path.split("/")
        named = [("/".join(parts[:depth]), len("/".join(parts[:depth])) + (1 if depth else 0))
                 for depth in range(len(parts)) if "/".join(parts[:depth]) in ga.by_dir]
        assert ga._levels(path) == [(start, ga.by_dir[d]) for d, start in named], (folders, path)
