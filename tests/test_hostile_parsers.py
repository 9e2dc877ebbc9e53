"""Property tests of every parser of outside input: arbitrary, deep or huge input ends in the
value or in the typed error of its boundary, never another exception. Manifests (a file
marked `bad_manifest`), `.rennet.toml` (a `bad_config` fact), cursors (`bad_cursor`), `rennet call`
JSON (one `bad_input` envelope), tracker answers (a `malformed_response` fact, the dossier
goes on) and rich text (bounded text). Bounded examples: the suite stays quick."""

from __future__ import annotations

import base64
import contextlib
import io
import json
import sys

import pygit2
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from context_tools.faces.errors import BadCursor
from context_tools.faces.pages import _mac, decode_cursor, encode_cursor
from delta.dossier.items import RICH_TEXT_CHARS, TRUNCATED, acceptance_criteria
from indexer.contract.decode import JSON_MAX_DEPTH, TOML_MAX_DEPTH, Undecodable, decode_json, decode_toml
from indexer.manifests.read import ECOSYSTEM, parse_manifests
from indexer.model import FileEntry
from tests.examples import examples

BOUNDED = settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12)
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=20)
PIECES = ["[", "]", "{", "}", '{"a":', '"k": ', ",", "1", '"', '"[', "\\", " ", "\n", "x = ", "a.b.", "=", "#",
          "'''", '"""', "[[t]]\n", "{a=", "\x00", "\ud800", "é"]


@st.composite
def deep_text(draw) -> str:
    """A few pieces, each repeated up to thousands of times: nesting far past every limit,
    unbalanced brackets, brackets inside strings and comments, dotted keys."""
    parts = draw(st.lists(st.tuples(st.sampled_from(PIECES), st.integers(1, 5000)), min_size=1, max_size=5))
    return "".join(piece * times for piece, times in parts)


hostile_text = st.one_of(st.text(max_size=200), deep_text(), json_values.map(json.dumps))
hostile_bytes = st.one_of(st.binary(max_size=200), hostile_text.map(lambda t: t.encode("utf-8", "surrogatepass")))


# --- the decoders every boundary shares -------------------------------------------------

@BOUNDED
@given(hostile_bytes)
def test_json_decoding_gives_a_value_or_undecodable(data):
    try:
        decode_json(data)
    except Undecodable as exc:
        assert "\n" not in str(exc)


def test_a_text_holding_a_lone_surrogate_is_undecodable_and_a_call_of_it_one_envelope():
    """A str may hold a lone surrogate: Python reads a command line's bytes that are no UTF-8 so
    (`\\udcff` for 0xff). Decoding it is `Undecodable`, never the codec's own error, so `rennet
    call` answers it in its envelope, `bad_input`, not `internal_error`."""
    for text in ("\udcff", '{"name": "\udcff"', '["\ud800"'):
        with pytest.raises(Undecodable) as raised:
            decode_json(text)
        assert "\n" not in str(raised.value)
    code, out, err = run_call(["call", "context.symbol", "\udcff"])
    assert code == 1 and len(out.splitlines()) == 1, (out, err)
    assert json.loads(out)["error"]["code"] == "bad_input" and "Traceback" not in err


def test_a_recursion_error_a_decoder_meets_near_the_stack_s_end_is_undecodable():
    """Counted first, a text within the limit may still meet the end of the interpreter's stack
    when the caller's own stack is nearly spent; the decoder's RecursionError is reported as
    the depth limit is, a one-line `Undecodable`, never the RecursionError itself."""
    import sys

    json_text, toml_text = "[" * 100 + "]" * 100, "x = " + "[" * 30 + "]" * 30
    for decoder, text in ((decode_json, json_text), (decode_toml, toml_text)):
        depth = 0
        frame = sys._getframe()
        while frame is not None:
            depth, frame = depth + 1, frame.f_back
        met = False
        for left in range(2, 200, 2):  # some stack left, but not enough for the text's levels
            try:
                at_stack_depth(sys.getrecursionlimit() - depth - left, lambda: decoder(text))
            except Undecodable as exc:
                assert "more than" in str(exc)
                met = True
            except RecursionError:  # our frames, before the decoder ran: too close yet
                continue
            else:
                break
        assert met, decoder


@BOUNDED
@given(json_values)
def test_json_within_the_limit_decodes_as_json_does(value):
    text = json.dumps(value)
    assert decode_json(text) == json.loads(text)
    assert decode_json(text.encode()) == json.loads(text)


@BOUNDED
@given(hostile_text)
def test_toml_decoding_gives_a_table_or_undecodable(text):
    try:
        assert isinstance(decode_toml(text), dict)
    except Undecodable as exc:
        assert "\n" not in str(exc)


def at_stack_depth(frames: int, fn):
    """`fn()` called under `frames` more Python frames than here."""
    return fn() if frames == 0 else at_stack_depth(frames - 1, fn)


@pytest.mark.parametrize("frames", [0, 600])
def test_the_depth_limit_is_the_same_wherever_the_call_is_made(frames):
    at_limit, over = "[" * JSON_MAX_DEPTH + "]" * JSON_MAX_DEPTH, "[" * (JSON_MAX_DEPTH + 1) + "]" * (JSON_MAX_DEPTH + 1)
    assert at_stack_depth(frames, lambda: decode_json(at_limit)) is not None
    with pytest.raises(Undecodable, match="more than 128"):
        at_stack_depth(frames, lambda: decode_json(over))
    toml = "x = " + "[" * (TOML_MAX_DEPTH - 1) + "]" * (TOML_MAX_DEPTH - 1)
    assert at_stack_depth(frames, lambda: decode_toml(toml))["x"] is not None
    with pytest.raises(Undecodable):
        decode_toml("[" + ".".join(["a"] * (TOML_MAX_DEPTH + 1)) + "]")  # tables of dotted keys count too


def test_the_limits_are_the_documented_ones_to_the_level_and_the_byte():
    """docs/security.md: JSON 128 levels, TOML 32, 16 MB unless the boundary sets less; a
    manifest one level or one byte past is bad_manifest, one at the limit is read."""
    from indexer.contract.decode import MAX_BYTES

    assert (JSON_MAX_DEPTH, TOML_MAX_DEPTH, MAX_BYTES) == (128, 32, 16 * 1024 * 1024)
    # the document's own table is the first level: 31 arrays below it make 32
    at_limit, over = ("x = " + "[" * n + "]" * n + "\n" for n in (TOML_MAX_DEPTH - 1, TOML_MAX_DEPTH))
    assert decode_toml(at_limit)["x"] is not None
    with pytest.raises(Undecodable, match="more than 32 levels"):
        decode_toml(over)
    files = [FileEntry(f"{d}/Cargo.toml", "0" * 40, 0o100644, 9, 1, "toml") for d in ("at", "over")]
    blobs = {"at/Cargo.toml": (at_limit + "[package]\nname = 'a'\n").encode(),
             "over/Cargo.toml": (over + "[package]\nname = 'o'\n").encode()}
    found = parse_manifests(files, blobs.__getitem__)
    assert [m.path for m in found.manifests] == ["at/Cargo.toml"]
    assert [(p.path, p.reason) for p in found.problems] == [("over/Cargo.toml", "bad_manifest")]
    text = b'"' + b"a" * (MAX_BYTES - 2) + b'"'
    assert len(decode_json(text)) == MAX_BYTES - 2
    with pytest.raises(Undecodable, match=f"larger than {MAX_BYTES} bytes"):
        decode_json(text + b" ")
    toml = "x = '" + "a" * (MAX_BYTES - 6) + "'"
    assert len(decode_toml(toml)["x"]) == MAX_BYTES - 6
    with pytest.raises(Undecodable, match=f"larger than {MAX_BYTES} bytes"):
        decode_toml(toml + " ")
    assert len(decode_toml(toml.encode())["x"]) == MAX_BYTES - 6  # read from a file: bytes
    with pytest.raises(Undecodable, match=f"larger than {MAX_BYTES} bytes"):
        decode_toml(toml.encode() + b" ")


def test_a_toml_str_is_held_to_the_bytes_of_its_utf8_text():
    """The size limit counts bytes (docs/security.md: 16 MiB): a TOML text handed over as a str
    (a Rust resolver's Cargo.toml) is held to its UTF-8 bytes as a JSON str is, not to its
    characters, of which 16 Mi may be four times as many bytes."""
    from indexer.contract.decode import MAX_BYTES

    wide = "x = '" + "é" * ((MAX_BYTES - 6) // 2) + "'"  # 2 bytes a character: MAX_BYTES in all
    assert len(wide.encode()) == MAX_BYTES and len(decode_toml(wide)["x"]) == (MAX_BYTES - 6) // 2
    for over in (wide + " ", "x = '" + "\U0001f600" * (MAX_BYTES // 4) + "'"):
        with pytest.raises(Undecodable, match=f"larger than {MAX_BYTES} bytes"):
            decode_toml(over)
    with pytest.raises(Undecodable, match="larger than 100 bytes"):
        decode_toml("x = '" + "é" * 48 + "'", max_bytes=100)  # 48 characters, 102 bytes


def test_toml_is_utf8_text_or_undecodable():
    """TOML is UTF-8: bytes that are not are refused, never read in another encoding."""
    assert decode_toml("x = 'é'".encode()) == {"x": "é"}
    for data in (b"x = '\xff'", "x = 'é'".encode("latin-1"), "x = 'é'".encode("utf-16")):
        with pytest.raises(Undecodable, match="^not UTF-8 text$"):
            decode_toml(data)


def test_toml_past_the_limit_is_refused_before_tomllib_reads_it(monkeypatch):
    """docs/security.md: nesting is counted before decoding and a key of more than 32 dots is
    refused before tomllib reads it (tomllib spends a square in a key's parts)."""
    import tomllib

    read: list[str] = []
    loads = tomllib.loads
    monkeypatch.setattr(tomllib, "loads", lambda text: read.append(text) or loads(text))
    key = ".".join(["a"] * 33)  # 32 dots: read, and refused by its tables after
    for text in (f"{key} = 1\n", f"[{key}]\n"):
        with pytest.raises(Undecodable, match="more than 32 levels"):
            decode_toml(text)
        assert read == [text]
        read.clear()
    for text in (f"{key}.a = 1\n", f"[{key}.a]\n", "x = " + "[" * 33 + "]" * 33 + "\n"):
        with pytest.raises(Undecodable, match="more than 32 levels"):
            decode_toml(text)
        assert read == [], text


def test_brackets_inside_strings_and_comments_are_text():
    assert decode_json('{"a": "' + "[" * 10_000 + '"}') == {"a": "[" * 10_000}
    assert decode_toml("a = '" + "[" * 500 + "' # " + "{" * 500 + "\n") == {"a": "[" * 500}


def _depth_as_before(text: str, toml: bool) -> int:
    """The depth counted as the decoders did before they streamed: text taken out whole, then
    every byte that is no bracket, then the brackets counted."""
    import re

    if toml:
        skipped = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|\'[^\'\n]*\'|#[^\n]*')
    else:
        skipped = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
    depth = deepest = 0
    for ch in re.sub(r"[^\[\]{}]+", "", skipped.sub("", text)):
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif depth:
            depth -= 1
    return deepest


@settings(max_examples=examples(200), deadline=None)
@given(st.text(alphabet=st.sampled_from(list('[]{}"\\\'#\nax ,')), max_size=80))
@example('"\\\n[[["')  # a backslash before a line break, inside a JSON string: text as any escape
def test_the_streamed_depth_is_the_depth_counted_whole(text):
    """Both ways of counting, the text taken out whole (few pieces) and streamed (many), give
    the depth the decoders always counted."""
    from indexer.contract import decode

    few = decode._FEW_PIECES
    try:
        for decode._FEW_PIECES in (few, 0):
            assert decode.json_depth(text.encode(), 10_000) == _depth_as_before(text, toml=False)
            assert decode.toml_depth(text, 10_000) == _depth_as_before(text, toml=True)
    finally:
        decode._FEW_PIECES = few


@pytest.mark.parametrize("unit", [b'"",', b"{},", b'"\\n",', b"[],"])
def test_counting_the_depth_holds_no_copy_of_the_input(unit, monkeypatch):
    """A tracker answer of many short strings or brackets: counting its depth held about 60
    times its size at once (a piece of what was left each: 476 to 572 MB for 8 MB); streamed,
    it holds next to nothing (under 3 kB, at any size). The pieces that turn counting to the
    stream lowered to 32,768 (the stream past them is the same, and a test under tracemalloc
    of twice the real number takes seconds a unit): twice that many, 192 to 320 kB, where a
    copy of the input would pass the bound six times over or more."""
    import tracemalloc

    from indexer.contract import decode

    monkeypatch.setattr(decode, "_FEW_PIECES", 1 << 15)
    data = b"[" + unit * (2 * decode._FEW_PIECES) + b"0]"
    text = "x = " + data.decode()
    tracemalloc.start()
    try:
        assert decode.json_depth(data) == (2 if unit in (b"{},", b"[],") else 1)
        assert decode.toml_depth(text) == (2 if unit in (b"{},", b"[],") else 1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 32 * 1024


def test_a_text_of_262144_pieces_or_more_is_streamed_and_one_of_fewer_counted_whole(monkeypatch):
    """docs/security.md: counting the depth holds no copy of a text of 262,144 strings, comments
    and brackets or more, read as a stream; a text of fewer pieces, however long, is taken out
    whole. Which way each was counted is seen in the stream's pattern being run or not."""
    from indexer.contract import decode

    streamed: list[str] = []

    class Watched:
        def __init__(self, name, pattern):
            self.name, self.pattern = name, pattern

        def finditer(self, text):
            streamed.append(self.name)
            return self.pattern.finditer(text)

    monkeypatch.setattr(decode, "_JSON_SCAN", Watched("json", decode._JSON_SCAN))
    monkeypatch.setattr(decode, "_TOML_SCAN", Watched("toml", decode._TOML_SCAN))
    pieces = 262_144
    for count, way in ((pieces - 1, []), (pieces, ["json", "toml"])):
        streamed.clear()
        assert decode.json_depth(b"[" * count) == decode.JSON_MAX_DEPTH + 1
        assert decode.toml_depth("[" * count) == decode.TOML_MAX_DEPTH + 1
        assert streamed == way, count
    streamed.clear()  # long, but of few pieces: whole
    assert decode.json_depth(b'["' + b"a" * (2 * pieces) + b'"]') == 1
    assert decode.toml_depth("x = ['" + "a" * (2 * pieces) + "']") == 1
    assert streamed == []


# --- manifests: bad_manifest on that file, the others read --------------------------------

@BOUNDED
@given(st.sampled_from(sorted(ECOSYSTEM)), hostile_bytes)
def test_a_manifest_is_read_or_marked_bad_manifest(name, data):
    files = [FileEntry(f"sub/{name}", "0" * 40, 0o100644, len(data), 1, "text"),
             FileEntry("package.json", "1" * 40, 0o100644, 20, 1, "json")]
    blobs = {f"sub/{name}": data, "package.json": b'{"name": "fine"}'}
    found = parse_manifests(files, blobs.__getitem__)
    read = {m.path for m in found.manifests}
    assert "package.json" in read
    assert (f"sub/{name}" in read) != any(p.path == f"sub/{name}" and p.reason == "bad_manifest"
                                          for p in found.problems)


# --- .rennet.toml: settings, or a one-line bad_config fact -----------------------------------------------------

@pytest.fixture(scope="module")
def bare_repo(tmp_path_factory):
    return pygit2.init_repository(str(tmp_path_factory.mktemp("config") / "r"), bare=True)


def commit_with(repo: pygit2.Repository, name: str, data: bytes) -> str:
    builder = repo.TreeBuilder()
    builder.insert(name, repo.create_blob(data), pygit2.GIT_FILEMODE_BLOB)
    sig = pygit2.Signature("t", "t@example.invalid", 1_700_000_000, 0)
    return str(repo.create_commit(None, sig, sig, "config", builder.write(), []))


@BOUNDED
@given(st.one_of(hostile_bytes, deep_text().map(lambda t: ("[dossier]\nx = " + t).encode("utf-8", "surrogatepass"))))
def test_rennet_toml_is_settings_or_a_one_line_bad_config_fact(bare_repo, data):
    from delta.dossier.config import DossierConfig, load_config

    head = commit_with(bare_repo, ".rennet.toml", data)
    cfg = load_config(bare_repo, head)  # the branch under review never stops the dossier
    assert isinstance(cfg, DossierConfig)
    assert all(f.code in ("bad_config", "untrusted_config") and "\n" not in f.message for f in cfg.refused)


# --- cursors: bad_cursor ------------------------------------------------------------------

BINDING, DIGEST, COMMAND = "f" * 64, "d" * 64, "context.file"


def forged(body: bytes) -> str:
    """A cursor over `body` whose mac verifies: only its payload can make it unusable."""
    payload = base64.urlsafe_b64encode(body).decode().rstrip("=")
    return f"{payload}.{_mac(payload, COMMAND, DIGEST, BINDING)}"


@BOUNDED
@given(st.one_of(st.text(max_size=400), hostile_bytes.map(forged),
                 st.integers(2, 80).map(lambda n: forged(b"[" * n + b"]" * n)),
                 st.integers(1, 60).map(lambda n: forged(b'{"o":' * n + b"0" + b"}" * n))))
@example(forged(b'{"o":-1,"s":"ffffffffffff","d":"dddddddddddd"}'))  # verifying, each field of another kind
@example(forged(b'{"o":"1","s":"ffffffffffff","d":"dddddddddddd"}'))
@example(forged(b'{"o":1.5,"s":"ffffffffffff","d":"dddddddddddd"}'))
@example(forged(b'{"o":null,"s":"ffffffffffff","d":"dddddddddddd"}'))
def test_a_cursor_is_an_offset_or_bad_cursor(cursor):
    try:
        offset = decode_cursor(cursor, command=COMMAND, input_digest=DIGEST, binding=BINDING)
    except BadCursor as exc:
        assert exc.code == "bad_cursor"
    else:
        assert type(offset) is int and offset >= 0


def _flat(offset: int, length: int) -> str:
    """A verifying cursor of `length` characters: its one object padded with blanks."""
    body = b'{"o":%d,"s":"ffffffffffff","d":"dddddddddddd"' % offset
    size = (length - 1 - 24) * 3 // 4  # the payload's bytes, its base64 unpadded, then `.` and the mac
    cursor = forged(body + b" " * (size - len(body) - 1) + b"}")
    assert len(cursor) == length
    return cursor


def test_a_cursor_of_256_characters_is_read_and_one_longer_is_bad_cursor():
    """docs/security.md: a cursor over 256 characters is `bad_cursor` whatever it holds."""
    assert decode_cursor(_flat(7, 256), command=COMMAND, input_digest=DIGEST, binding=BINDING) == 7
    with pytest.raises(BadCursor, match="malformed"):
        decode_cursor(_flat(7, 257), command=COMMAND, input_digest=DIGEST, binding=BINDING)


def test_a_payload_nested_past_its_one_object_is_bad_cursor():
    """docs/security.md: a payload nested deeper than its one object is `bad_cursor`, though
    its mac verifies and its fields are an offset and the prefixes."""
    head = b'{"o":3,"s":"ffffffffffff","d":"dddddddddddd"'
    assert decode_cursor(forged(head + b',"x":1}'), command=COMMAND, input_digest=DIGEST, binding=BINDING) == 3
    for deeper in (b',"x":[1]}', b',"x":{}}', b',"x":{"y":[1]}}'):
        with pytest.raises(BadCursor, match="malformed"):
            decode_cursor(forged(head + deeper), command=COMMAND, input_digest=DIGEST, binding=BINDING)


def test_a_cursor_of_another_query_or_snapshot_is_bad_cursor_past_the_prefixes_it_holds():
    """The payload holds 12 characters of the query's digest and of the snapshot's fingerprint;
    a query or snapshot that shares them is still another, and its cursor does not verify."""
    cursor = encode_cursor(40, command=COMMAND, input_digest=DIGEST, binding=BINDING)
    for digest, binding in ((DIGEST[:12] + "e" * 52, BINDING), (DIGEST, BINDING[:12] + "e" * 52)):
        with pytest.raises(BadCursor, match="does not verify"):
            decode_cursor(cursor, command=COMMAND, input_digest=digest, binding=binding)


def test_a_cursor_past_the_end_of_its_collection_is_bad_cursor():
    """A verifying cursor that points past the last item is refused, not answered with an
    empty page; one at an item is read from there."""
    from context_tools.faces.pages import cut_page

    items = list(range(5))
    at = dict(command=COMMAND, input_digest=DIGEST, binding=BINDING)
    page, _ = cut_page(items, size=2, cursor=encode_cursor(4, **at), **at)
    assert page == [4]
    assert cut_page(items, size=2, cursor=encode_cursor(0, **at), **at)[0] == [0, 1]  # offsets count from 0
    with pytest.raises(BadCursor, match="past the end"):
        cut_page(items, size=2, cursor=encode_cursor(6, **at), **at)


def test_a_cursor_issued_here_still_decodes():
    cursor = encode_cursor(400, command=COMMAND, input_digest=DIGEST, binding=BINDING)
    assert decode_cursor(cursor, command=COMMAND, input_digest=DIGEST, binding=BINDING) == 400


def test_a_cursor_of_another_command_is_bad_cursor_even_for_the_same_query_and_snapshot():
    """Two commands may take inputs that digest alike: the command is in the mac."""
    cursor = encode_cursor(40, command="context.references", input_digest=DIGEST, binding=BINDING)
    with pytest.raises(BadCursor, match="another command"):
        decode_cursor(cursor, command=COMMAND, input_digest=DIGEST, binding=BINDING)


# --- rennet call: exactly one envelope, never internal_error -------------------------------

def run_call(argv: list[str]) -> tuple[int, bytes, str]:
    from context_tools.faces.cli import main

    out, err = io.BytesIO(), io.StringIO()
    text = io.TextIOWrapper(out, encoding="utf-8")
    with contextlib.redirect_stdout(text), contextlib.redirect_stderr(err):
        code = main(argv)
        text.flush()
    return code, out.getvalue(), err.getvalue()


@BOUNDED
@given(st.one_of(hostile_text, json_values.map(lambda v: json.dumps({"name": v, "repo": "no/such/repo"})),
                 json_values.map(lambda v: json.dumps({"name": "A", "repo": "no/such/repo", "limit": v}))))
def test_rennet_call_prints_exactly_one_envelope(tmp_path_factory, text):
    home = tmp_path_factory.getbasetemp() / "call-home"
    code, out, err = run_call(["call", "--store", str(home), "context.symbol", text])
    lines = out.splitlines()
    assert len(lines) == 1, (out, err)
    envelope = json.loads(lines[0])
    assert envelope["ok"] is False and envelope["error"]["code"] != "internal_error", envelope
    assert code in (1, 2) and "Traceback" not in err and "internal_error" not in err


def test_rennet_call_reads_json_input_up_to_4_mib(tmp_path):
    """docs/security.md: `rennet call`'s JSON is read up to 4 MB (4 MiB): at the bound it is
    decoded and checked against the command's input, a byte more is refused unread."""
    bound = 4 * 1024 * 1024
    head = '{"repo": "no/such/repo", "name": "'
    at = head + "a" * (bound - len(head) - 2) + '"}'
    assert len(at.encode()) == bound
    for text, larger in ((at, False), (at + " ", True)):
        code, out, err = run_call(["call", "--store", str(tmp_path / "home"), "context.symbol", text])
        error = json.loads(out)["error"]
        assert code == 1 and error["code"] == "bad_input", error
        assert (f"larger than {bound} bytes" in error["message"]) is larger, error["message"]


# --- tracker answers: a fact, the dossier goes on --------------------------------------------

class RawJira:
    """A Jira server on loopback answering PROJ-1 with whatever bytes the test sets."""

    def __init__(self) -> None:
        from tests.fakes.trackers import FakeJira

        outer = self

        class Serving(FakeJira):
            def handle(self, req, method, body):
                if self.key_of(method, req.path, body) == "PROJ-1" and isinstance(outer.answer, bytes):
                    return self.send_raw(req, 200, outer.answer, "application/json")
                return super().handle(req, method, body)

        self.answer: bytes | None = None
        self.server = Serving(token="jira-token-for-tests").start()
        self.server.behaviours["PROJ-2"] = {"title": "the other one", "body": "fine"}


@pytest.fixture(scope="module")
def jira_world(tmp_path_factory):
    from indexer.store.database import Store
    from tests.fakes.world import make_change

    root = tmp_path_factory.mktemp("tracker")
    _, base, head = make_change(root / "r", ["PROJ-1: one", "PROJ-2: two"], remote=None)
    jira = RawJira()
    store = Store.open(root / "home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("JIRA_TOKEN", "jira-token-for-tests")
        yield jira, store, root / "r"
    store.close()
    jira.server.stop()


def adf(depth: int, text: str) -> dict:
    node: dict = {"type": "text", "text": text}
    for i in range(depth):
        node = {"type": ("bulletList", "listItem", "heading", "paragraph")[i % 4], "attrs": {"level": 10 ** 9},
                "content": [node]}
    return node


jira_answers = st.one_of(
    hostile_bytes,
    json_values.map(lambda v: json.dumps({"key": "PROJ-1", "fields": v}).encode()),
    st.tuples(st.integers(0, 200), st.text(max_size=20)).map(lambda dt: json.dumps(
        {"key": "PROJ-1", "fields": {"summary": "deep", "description": adf(*dt)}}).encode()),
)


@BOUNDED
@given(jira_answers)
def test_a_tracker_answer_is_an_item_or_a_fact_and_the_rest_go_on(jira_world, answer):
    from delta.dossier import build_dossier

    jira, store, repo = jira_world
    jira.answer = answer
    cfg = {"timeout_seconds": 5.0, "jira": {"base_url": jira.server.url, "token_env": "JIRA_TOKEN",
                                            "projects": ["PROJ"]}}
    dossier = build_dossier(repo, "main", "feature", store=store, config=cfg, refresh=True)
    items = {i.id: i for i in dossier.items}
    facts = {f.ref: f for f in dossier.facts}
    assert "PROJ-2" in items  # the other reference is fetched all the same
    assert ("PROJ-1" in items) != ("PROJ-1" in facts)
    if "PROJ-1" in facts:
        assert facts["PROJ-1"].code in ("malformed_response", "not_found")
    else:
        assert len(items["PROJ-1"].body) <= RICH_TEXT_CHARS + len(TRUNCATED.format(chars=RICH_TEXT_CHARS))


# --- rich text ---------------------------------------------------------------------------------

def deep_json(depth: int, leaf: object) -> bytes:
    """The JSON of `leaf` under `depth` levels, alternately list items and lists, written out
    (an encoder recurses once per level)."""
    opens = ["[" if i % 2 else '{"type": "listItem", "attrs": [], "content": ' for i in range(depth)]
    closes = ["]" if i % 2 else "}" for i in range(depth)]
    return ("".join(reversed(opens)) + json.dumps(leaf) + "".join(closes)).encode()


@BOUNDED
@given(st.one_of(json_values.map(lambda v: json.dumps(v).encode()),
                 st.tuples(st.integers(0, 20_000), json_values).map(lambda d: deep_json(*d))))
def test_adf_of_any_shape_or_depth_is_bounded_text(node):
    from delta.dossier.jira import adf_text

    text = adf_text(node)
    assert isinstance(text, str) and len(text) <= RICH_TEXT_CHARS + len(TRUNCATED.format(chars=RICH_TEXT_CHARS))


def test_adf_text_is_bounded_in_size():
    from delta.dossier.jira import adf_text

    many = {"type": "doc", "content": [{"type": "heading", "attrs": {"level": 10 ** 9},
                                        "content": [{"type": "text", "text": "x" * 1000}]}] * 5000}
    text = adf_text(json.dumps(many).encode())
    assert text.startswith("# " + "x" * 1000)  # a level out of 1..6 is 1, not 10^9 '#'
    assert len(text) == RICH_TEXT_CHARS + len(TRUNCATED.format(chars=RICH_TEXT_CHARS)) and text.endswith("characters]")


@BOUNDED
@given(st.one_of(hostile_text, st.tuples(st.sampled_from(["- a", "**a**", "Acceptance criteria", "# x"]),
                                         st.integers(0, 50_000)).map(lambda p: "Acceptance criteria\n" + p[0]
                                                                      + " " * p[1] + "b\n")))
def test_acceptance_criteria_of_any_text(body):
    for c in acceptance_criteria(body):
        assert c.text and c.text == c.text.strip()


def test_linear_bodies_are_bounded():
    from delta.dossier.linear import parse_issue

    issue = {"data": {"issue": {"identifier": "ENG-1", "title": "t", "description": "d" * (RICH_TEXT_CHARS + 10),
                                "comments": {"nodes": [{"body": "c" * (RICH_TEXT_CHARS + 10)}]}}}}
    got = parse_issue("ENG-1", json.dumps(issue).encode())
    assert got.body.endswith("characters]") and len(got.body) < RICH_TEXT_CHARS + 100
    assert len(got.comments[0].body) < RICH_TEXT_CHARS + 100


_THREAD_ENTRIES = st.one_of(st.integers(0, 10**6).map(lambda i: {"body": f"c{i}", "created": str(i)}),
                            st.integers(0, 10**6).map(lambda i: {"body": f"c{i}", "createdAt": str(i)}),
                            scalars, st.lists(scalars, max_size=2))


@BOUNDED
@given(st.lists(_THREAD_ENTRIES, max_size=40), st.integers(0, 300))
def test_a_thread_of_any_length_keeps_the_comments_among_its_first_entries(entries, more):
    """A tracker's thread is read to its first `MAX_COMMENTS` entries, the comments among them
    kept in order, whatever the answer holds (was: every entry, each made a comment and
    persisted: 2.7 million `{}` in an 8 MB Jira answer cost 13 s, 650 MB and a payload file of
    116 MB)."""
    from delta.dossier import jira, linear
    from delta.dossier.items import MAX_COMMENTS
    from delta.dossier.transport import TrackerFailure

    thread = entries + [{"body": f"m{i}"} for i in range(more)]
    want = [c["body"] for c in thread[:MAX_COMMENTS] if isinstance(c, dict)]
    for read, answer in ((lambda data: jira.parse_issue("PROJ-1", data, "https://j"),
                          {"fields": {"summary": "s", "comment": {"comments": thread}}}),
                         (lambda data: linear.parse_issue("ENG-1", data),
                          {"data": {"issue": {"title": "t", "comments": {"nodes": thread}}}})):
        try:
            json.dumps(answer, allow_nan=False)
        except ValueError:  # an infinity, which JSON has no spelling for: Python's is refused
            with pytest.raises(TrackerFailure) as failure:
                read(json.dumps(answer).encode())
            assert failure.value.code == "malformed_response"
            continue
        assert [c.body for c in read(json.dumps(answer).encode()).comments] == want


def test_a_thread_of_millions_costs_what_its_first_comments_cost():
    """The work of a thread is its first comments', however many the answer holds. Counted in
    the readers' modules: the shared decoder's checks of the answer's bytes (their size, UTF-8,
    depth) are linear in them, as reading any answer is."""
    from delta.dossier import answers, jira
    from tests.lines_run import counted

    def parsed(n: int) -> int:
        answer = json.dumps({"fields": {"summary": "s", "comment": {"comments": [{"body": "x"}] * n}}}).encode()
        return counted(lambda: jira.parse_issue("PROJ-1", answer, "https://j"), (jira.__file__, answers.__file__))[1]

    assert parsed(100_000) <= 2 * parsed(200)


# --- a file's lines, a page at a time ------------------------------------------------------------

line_bytes = st.lists(st.sampled_from([b"a", b"\n", b"\r", b"\xff", b"\xc3\xa9", b"\xf0\x9f\x98", b"\x80" * 3000,
                                       b"x" * 2500]), max_size=30).map(b"".join)


@BOUNDED
@given(line_bytes, st.integers(0, 40), st.integers(0, 40))
def test_blob_lines_are_the_files_lines_cut_where_they_are_long(data, start, size):
    from context_tools.query.file_view import LINE_CHARS, BlobLines, text_lines

    whole, lazy = text_lines(data), BlobLines(data)
    assert len(lazy) == len(whole)
    for got, want in zip(lazy[start:start + size], whole[start:start + size], strict=True):
        assert got[:LINE_CHARS] == want[:LINE_CHARS]
        assert (len(got) > LINE_CHARS) == (len(want) > LINE_CHARS)  # a cut line is marked as cut
    assert [line[:LINE_CHARS] for line in lazy] == [line[:LINE_CHARS] for line in whole]  # read one by one too


def test_a_quoted_string_ends_past_its_closing_quote_never_at_an_escaped_one():
    from indexer.contract.decode import string_end

    assert string_end('"ab" x', 0) == 4
    assert string_end('x "a\\"b" y', 2) == 8  # the escaped quote does not close it
    assert string_end('"a\\\\" y', 0) == 5  # an escaped backslash does not escape the quote
    assert string_end('"never closed', 0) == 13
    assert string_end('"ends in a backslash\\', 0) == 21  # never past the text


def test_an_integer_too_long_to_convert_is_undecodable_toml_and_json():
    digits = "1" * 5000  # over the interpreter's limit on integer string conversion
    # one line of what was wrong (was: Python's text, cut mid-word at 120 characters)
    told = f"an integer of more than {sys.get_int_max_str_digits()} digits, more than Python reads"
    with pytest.raises(Undecodable) as raised:
        decode_toml("[dossier]\nx = " + digits)
    assert str(raised.value) == told
    with pytest.raises(Undecodable) as raised:
        decode_json("[" + digits + "]")
    assert str(raised.value) == told
    assert decode_toml("x = " + "1" * 4000) == {"x": int("1" * 4000)}
