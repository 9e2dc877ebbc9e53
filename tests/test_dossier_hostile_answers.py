"""A tracker's answer as its readers take it, the JSON bytes a hostile or broken tracker sends:
nested past the depth bound, lists of hundreds of thousands of elements, every field of any
type, strings past the rich-text bound and integers past what Python reads. Each reader gives
a ticket within its bounds or a typed failure, never a traceback; and what it holds while
reading is a small multiple of the answer's bytes, not the tens of times a whole decoding
held."""

from __future__ import annotations

import json
import tracemalloc
from typing import Callable

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from delta.dossier import github, jira, linear
from delta.dossier.build import redact_fetched
from delta.dossier.items import MAX_COMMENTS, RICH_TEXT_CHARS, TRUNCATED, Fetched
from delta.dossier.transport import TrackerFailure
from indexer.contract.encode import encode_json
from tests.examples import examples

BOUND = RICH_TEXT_CHARS + len(TRUNCATED.format(chars=RICH_TEXT_CHARS))
FAILURES = {"malformed_response", "not_found", "unauthorized", "tracker_unavailable"}

# Every field name a reader looks for, so that drawn objects reach each of them with any value.
FIELDS = ["key", "fields", "summary", "status", "name", "description", "comment", "comments", "author",
          "displayName", "created", "body", "issuelinks", "outwardIssue", "inwardIssue", "type", "text",
          "content", "attrs", "level", "state", "data", "issue", "errors", "message", "extensions", "code",
          "identifier", "title", "url", "nodes", "user", "createdAt", "relations", "relatedIssue", "html_url",
          "pull_request", "merged_at", "login", "created_at", "x"]
NODE_TYPES = ["doc", "text", "paragraph", "heading", "listItem", "taskItem", "hardBreak", "codeBlock", "DONE"]

scalar = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8), st.sampled_from(NODE_TYPES + ["PROJ-2", "ENG-2", "AUTHENTICATION", "NOT_FOUND"]),
).map(lambda v: json.dumps(v).encode())
oddities = st.one_of(
    st.integers(1, 6000).map(lambda n: b"7" * n),  # an integer past what Python reads, past 4300 digits
    st.integers(0, 3000).map(lambda d: b"[" * d + b"]" * d),  # nested past the depth bound, and the stack's
    st.sampled_from([b'"\\ud800"', b'"\xff"', b"NaN", b"1e999", b'"\\u0000"']),  # no text, or no JSON
    st.sampled_from([RICH_TEXT_CHARS + 1, 100_000]).map(lambda n: b'"' + b"t" * n + b'"'),  # past the text bound
    st.tuples(st.sampled_from([b"{}", b"[]", b"0", b'"a"', b'{"type":"text","text":"ab"}',
                               b'{"outwardIssue":{"key":"PROJ-2"}}', b'{"body":"c"}']),
              st.integers(0, 50_000)).map(lambda u: b"[" + b",".join([u[0]] * u[1]) + b"]"),  # wide
)


def json_object(pairs: list[tuple[str, bytes]]) -> bytes:
    return b"{" + b",".join(json.dumps(k).encode() + b":" + v for k, v in pairs) + b"}"


values = st.recursive(
    st.one_of(scalar, oddities),
    lambda inner: st.one_of(st.lists(inner, max_size=4).map(lambda vs: b"[" + b",".join(vs) + b"]"),
                            st.lists(st.tuples(st.sampled_from(FIELDS), inner), max_size=5).map(json_object)),
    max_leaves=12)


def obj(**fields: st.SearchStrategy[bytes]) -> st.SearchStrategy[bytes]:
    """A JSON object of any of `fields`, each of its own values."""
    return st.lists(st.sampled_from(sorted(fields)), unique=True).flatmap(
        lambda keys: st.tuples(*[fields[k] for k in keys]).map(lambda vs: json_object(list(zip(keys, vs)))))


def listed(element: st.SearchStrategy[bytes]) -> st.SearchStrategy[bytes]:
    return st.lists(element, max_size=4).map(lambda vs: b"[" + b",".join(vs) + b"]")


def either(shape: st.SearchStrategy[bytes]) -> st.SearchStrategy[bytes]:
    """A field's value: of the shape its reader looks for, an oddity, or anything at all."""
    return st.one_of(shape, oddities, values)


text = st.text(max_size=8).map(lambda t: json.dumps(t).encode())
number = st.integers(-3, 10**30).map(lambda n: str(n).encode())
adf = st.recursive(
    values, lambda inner: obj(type=either(st.sampled_from(NODE_TYPES).map(lambda t: json.dumps(t).encode())),
                              text=values, content=either(listed(inner)),
                              attrs=either(obj(level=either(number), state=values))), max_leaves=8)
key = st.sampled_from(["PROJ-2", "ENG-2", "#2", "x/../y"]).map(lambda k: json.dumps(k).encode())
jira_answer = obj(key=either(key), fields=either(obj(
    summary=either(text), status=either(obj(name=values)), description=either(adf),
    comment=either(obj(comments=either(listed(either(obj(author=either(obj(displayName=values)), created=values,
                                                         body=either(adf))))))),
    issuelinks=either(listed(either(obj(outwardIssue=either(obj(key=either(key))),
                                        inwardIssue=either(obj(key=either(key))))))))))
linear_answer = obj(
    errors=either(listed(either(obj(message=values, extensions=either(obj(code=values, type=values)))))),
    data=either(obj(issue=either(obj(
        title=either(text), identifier=either(key), description=values, url=values, state=either(obj(name=values)),
        comments=either(obj(nodes=either(listed(either(obj(body=values, createdAt=values,
                                                           user=either(obj(name=values)))))))),
        relations=either(obj(nodes=either(listed(either(obj(relatedIssue=either(obj(identifier=either(key))))))))))))))
github_answer = obj(title=either(text), state=values, body=values, html_url=values, comments=either(number),
                    pull_request=either(obj(merged_at=values)))
github_thread = either(listed(either(obj(user=either(obj(login=values)), created_at=values, body=values))))
ANSWERS = {"jira": jira_answer, "linear": linear_answer, "github": github_answer, "github thread": github_thread}


def readers() -> dict[str, Callable[[bytes], object]]:
    return {
        "jira": lambda data: jira.parse_issue("PROJ-1", data, "https://jira.example"),
        "linear": lambda data: linear.parse_issue("ENG-1", data),
        "github": lambda data: github.parse_issue("#1", data, "acme/widgets#1", "acme/widgets", "acme/widgets")[0],
        "github thread": lambda data: github.parse_thread(data, "acme/widgets#1"),
    }


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                            HealthCheck.data_too_large])
@given(st.data())
@pytest.mark.parametrize("name", ANSWERS)
def test_any_answer_is_a_bounded_ticket_or_a_typed_failure(name, data):
    answer = data.draw(st.one_of(ANSWERS[name], values, st.binary(max_size=64)))
    try:
        got = readers()[name](answer)
    except TrackerFailure as failure:
        assert failure.code in FAILURES and "\n" not in failure.message, failure.message
        return
    for ticket in got if isinstance(got, list) else [got]:
        assert len(ticket.body) <= BOUND
        if isinstance(ticket, Fetched):
            assert len(ticket.comments) <= MAX_COMMENTS and all(len(c.body) <= BOUND for c in ticket.comments)
            # what is kept of it (the raw answer too) is JSON that reads back, the token taken out
            kept, _ = redact_fetched(ticket, ["tok"])
            msgspec.json.decode(encode_json(kept))


def fill(prefix: bytes, unit: bytes, suffix: bytes, size: int) -> bytes:
    n = (size - len(prefix) - len(suffix)) // (len(unit) + 1)
    return prefix + (unit + b",") * (n - 1) + unit + suffix


# Past 262,144 brackets, as these are, the depth check streams (`indexer.contract.decode`): under
# it, taking the text's brackets out whole holds up to about 18 MB, whatever the text's size.
SIZE = 512 * 1024
HOSTILE = {  # each tracker's answer, filled with empty objects where each reader skips or reads them
    "jira, a field not read": ("jira", fill(b'{"fields":{"summary":"t","junk":[', b"{}", b"]}}", SIZE)),
    "jira, a thread": ("jira", fill(b'{"fields":{"summary":"t","comment":{"comments":[', b"{}", b"]}}}", SIZE)),
    "jira, links": ("jira", fill(b'{"fields":{"summary":"t","issuelinks":[', b"{}", b"]}}", SIZE)),
    "jira, rich text": ("jira", fill(b'{"fields":{"summary":"t","description":{"type":"doc","content":[', b"{}",
                                     b"]}}}", SIZE)),
    "linear, a field not read": ("linear", fill(b'{"data":{"issue":{"title":"t","junk":[', b"{}", b"]}}}", SIZE)),
    "linear, relations": ("linear", fill(b'{"data":{"issue":{"title":"t","relations":{"nodes":[', b"{}", b"]}}}}",
                                         SIZE)),
    "github, a field not read": ("github", fill(b'{"title":"t","junk":[', b"{}", b"]}", SIZE)),
    "github thread": ("github thread", fill(b"[", b"{}", b"]", SIZE)),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_an_answer_of_many_small_values_holds_a_small_multiple_of_its_bytes(case):
    """Each reader's peak traced memory, for an answer of tens of thousands of `{}`: at most
    three times its bytes (was: decoded whole, about 27 times, 220 MiB for an 8 MiB answer)."""
    name, data = HOSTILE[case]
    read = readers()[name]
    with pytest.raises(TrackerFailure):
        read(b"0")  # what a first call imports and compiles is not the answer's
    tracemalloc.start()
    try:
        read(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * len(data), (peak, len(data))
