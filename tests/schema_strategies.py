"""Hypothesis strategies for the values a JSON Schema admits, for the subset the agent tools'
input schemas use (`Command.input_schema`): objects of named properties (`required`,
`additionalProperties: false`), strings (`minLength`, `maxLength`, `pattern`), integers
(`minimum`, `maximum`), booleans, null, arrays (`items`, `maxItems`), `enum`, `const` and
`anyOf`. A key left out of `required` is drawn present or absent, so defaults are exercised.

`hint(name)` may give a strategy of strings for a property named `name` (the repository's
path, a rev, a symbol's name): its values are mixed with arbitrary text and kept to the
string's bounds, so a drawn value still fits the schema. Strings and lists are drawn short,
and now and then exactly at their upper bound, so the bounds are reached without every
example costing a megabyte.
"""

from __future__ import annotations

from typing import Any, Callable

from hypothesis import strategies as st

Hint = Callable[[str], "st.SearchStrategy[str] | None"]

SHORT = 40  # arbitrary text and lists are drawn up to this long; bounds are reached by `_at_bound`


def no_hint(name: str) -> st.SearchStrategy[str] | None:
    return None


def values_of(schema: dict[str, Any], hint: Hint = no_hint, name: str = "") -> st.SearchStrategy[Any]:
    """The values `schema` admits; `name` is the property the schema is of ("" at the top)."""
    if "anyOf" in schema:
        return st.one_of([values_of(branch, hint, name) for branch in schema["anyOf"]])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "const" in schema:
        return st.just(schema["const"])
    kind = schema.get("type")
    if kind == "object":
        return _object(schema, hint)
    if kind == "string":
        return _string(schema, hint(name) if name else None)
    if kind == "integer":
        return _integer(schema)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        return _array(schema, hint, name)
    raise ValueError(f"no strategy for the schema {schema!r}")


def _object(schema: dict[str, Any], hint: Hint) -> st.SearchStrategy[dict[str, Any]]:
    properties = schema.get("properties", {})
    required = set(schema.get("required", ()))
    return st.fixed_dictionaries(
        {key: values_of(sub, hint, key) for key, sub in properties.items() if key in required},
        optional={key: values_of(sub, hint, key) for key, sub in properties.items() if key not in required})


def _string(schema: dict[str, Any], hinted: st.SearchStrategy[str] | None) -> st.SearchStrategy[str]:
    low = schema.get("minLength", 0)
    high = schema.get("maxLength")
    if "pattern" in schema:
        fits = st.from_regex(schema["pattern"], fullmatch=True)
    else:
        fits = st.text(min_size=low, max_size=min(high if high is not None else SHORT, max(SHORT, low)))
        if high is not None and high > SHORT:
            fits = st.one_of(fits, _at_bound(high))
    if hinted is None:
        return fits
    hinted = hinted.map(lambda s: (s + "x" * low if len(s) < low else s)[:high])
    return st.one_of(hinted, hinted, hinted, fits)  # mostly what reaches deep code


def _at_bound(high: int) -> st.SearchStrategy[str]:
    """A string exactly `high` characters long: one character repeated, or a short text repeated to it."""
    return st.text(min_size=1, max_size=8).map(lambda s: (s * (high // len(s) + 1))[:high])


def _integer(schema: dict[str, Any]) -> st.SearchStrategy[int]:
    low, high = schema.get("minimum"), schema.get("maximum")
    bounds = [b for b in (low, high) if b is not None]
    anywhere = st.integers(min_value=low, max_value=high)
    return st.one_of(st.sampled_from(bounds), anywhere) if bounds else anywhere


def _array(schema: dict[str, Any], hint: Hint, name: str) -> st.SearchStrategy[list[Any]]:
    items = values_of(schema.get("items", {}), hint, name)
    high = schema.get("maxItems")
    short = st.lists(items, max_size=min(high if high is not None else 8, 8))
    if high is None or high <= 8:
        return short
    # as many items as the bound allows: a few drawn values repeated
    full = st.lists(items, min_size=1, max_size=4).map(lambda xs: (xs * (high // len(xs) + 1))[:high])
    return st.one_of(short, short, short, full)
