"""TypeScript receivers that are elements of a standard container the code declares
(context_tools/query/symbols/script_annotations.py, script_types.py): `map.get(k)!.m`,
`arr[i].m`, a callback's parameter and `for (const x of arr)`. Exact sites, from a real index of
tests/fixtures/sites/ts_containers.txt, where a comment beside each line says which sites it
holds; each says which binding decided it (`rule`)."""

from __future__ import annotations

import pytest

from context_tools.query.symbols.script_annotations import (
    CALLBACKS,
    INDEXED,
    ITERATED,
    MAP_VALUE,
    callback_of,
    element_before,
    iterated_by,
)
from tests.indexed import NotedSites

SITES = NotedSites("ts_containers.txt", "rennet-ctx-ts-containers-", "ts containers")
app = SITES.app()
test_each_site_is_where_its_comment_says = SITES.each_site_test()


def test_each_site_says_which_binding_decided_it(app):
    rules = {(s.line, s.col): s.rule for s in app.call("context.references", name="Box.open").data.sites}
    assert rules == {
        (15, 34): "`this.byName.get(...)`, this in Shelf, field `byName: Map<string, Box>`",
        (15, 57): "`this.boxes[...]`, this in Shelf, field `boxes: Box[]`",
        (19, 34): "`this.byName.get(...)`, this in Shelf, field `byName: Map<string, Box>`",
        (24, 28): "`map.get(...)`, annotation `Map<string, Box>` of parameter `map`",
        (24, 45): "`list[...]`, annotation `Array<Box>` of parameter `list`",
        (26, 28): "`b` of `map.forEach(...)`, annotation `Map<string, Box>` of parameter `map`",
        (28, 15): "`b` of `list.forEach(...)`, annotation `Array<Box>` of parameter `list`",
        (30, 39): "`b` of `list.reduce(...)`, annotation `Array<Box>` of parameter `list`",
        (31, 30): "`b` of `list.filter(...)`, annotation `Array<Box>` of parameter `list`",
        (67, 36): "`this.pending.get(...)`, this in Pending, field `pending: undefined | Map<string, Box>`",
        (67, 71): "`this.waiting.get(...)`, this in Pending, field `waiting: Map<string, Box> | null`",
    }
    runs = {(s.line, s.col): s.rule for s in app.call("context.references", name="Runner.run").data.sites}
    assert runs == {
        (25, 23): "`r` of `set.forEach(...)`, annotation `Set<Runner>` of parameter `set`",
        (33, 15): "`for (const r of runners)`, annotation `readonly Runner[]` of parameter `runners`",
    }
    crates = {(s.line, s.col): s.rule for s in app.call("context.references", name="Crate.open").data.sites}
    assert crates == {
        (15, 81): "`this.crates[...]`, this in Shelf, field `crates: ReadonlyArray<Crate>`",
        (19, 70): "`c` of `this.crates.find(...)`, this in Shelf, field `crates: ReadonlyArray<Crate>`",
    }


def test_an_untyped_container_or_element_leaves_the_receiver_untyped(app):
    rules = {(s.line, s.col): s.rule for s in app.call("context.references", name="open").data.sites
             if s.resolution == "name_match"}
    untyped = "attribute of an untyped receiver"
    assert rules == {
        (19, 83): "attribute of what `this.crates.find(...)` returns",  # `find(...)!`: no rule of find's
        (40, 23): untyped, (40, 40): untyped, (40, 58): untyped,  # an inferred array, `any[]`, `Array<Box | Crate>`
        (41, 25): f"{untyped} `b`", (42, 25): f"{untyped} `b`",  # their callbacks' parameters
        (43, 31): f"{untyped} `b`",  # annotated otherwise
        (44, 27): f"{untyped} `i`",  # forEach's second parameter: an index
        (45, 24): f"{untyped} `b`",  # a callback passed by name
        (48, 15): f"{untyped} `b`",  # iterating `any[]`
        (54, 22): "attribute of what `map.get(...)` returns",  # `map` has no type
        (58, 45): untyped, (59, 37): untyped,  # `list` bound again by the arrows: not the parameter
    }


@pytest.mark.parametrize(("before", "taken"), [
    (b"  return this.byName.get(name)!.", (("this", "byName"), ".get(...)", MAP_VALUE)),
    (b"x = map.get(k)?.", (("map",), ".get(...)", MAP_VALUE)),
    (b"list[i + 1].", (("list",), "[...]", INDEXED)),
    (b"this.items_![i]!.", (("this", "items_"), "[...]", INDEXED)),
    (b"f().list[0].", None), (b"list[0][1].", None), (b"map.got(k).", None), (b"[a, b][0].", None),
    (b"new Map().get(k).", None), (b"list[0]", None),
])
def test_the_element_a_receiver_takes_out_of_a_container(before, taken):
    assert element_before(before) == taken


@pytest.mark.parametrize(("text", "name", "taken"), [
    (b"xs.forEach((x) => x.go());", "x", (("xs",), "`x` of `xs.forEach(...)`", CALLBACKS["forEach"])),
    (b"this.xs.map(async x => x.go())", "x", (("this", "xs"), "`x` of `this.xs.map(...)`", INDEXED)),
    (b"xs.reduce(function (acc, x) {", "x", (("xs",), "`x` of `xs.reduce(...)`", INDEXED)),
    (b"xs.reduce((x, y) => x + y.go())", "x", None),  # the accumulator
    (b"xs.some((x = d) => x.go())", "x", None), (b"xs.some(({ x }) => x.go())", "x", None),
    (b"xs.some((x: Other) => x.go())", "x", None), (b"f(xs).some((x) => x.go())", "x", None),
    (b"xs.some((y) => y.go())", "x", None),
])
def test_the_callback_a_parameter_belongs_to(text, name, taken):
    assert callback_of(text, name) == taken


def test_what_a_for_of_iterates():
    assert iterated_by(b" of this.items) {") == ("this", "items")
    assert iterated_by(b" in items) {") is None
    assert iterated_by(b" of items.values()) {") is None
    assert ITERATED(b"Set<Box>") == ("Box", "Set<Box>") and ITERATED(b"Map<K, Box>") is None
    assert CALLBACKS["forEach"](b"Map<K, Box>)") == ("Box", "Map<K, Box>")
    assert CALLBACKS["map"](b"Set<Box>") is None and INDEXED(b"readonly Box[] = []") == ("Box", "readonly Box[]")
    assert INDEXED(b"Box[][]") is None and INDEXED(b"(Box | Crate)[]") is None and INDEXED(b"any[]") is None
    assert MAP_VALUE(b"Map<string, Box | undefined>;") == ("Box", "Map<string, Box | undefined>")
    assert MAP_VALUE(b"Map<Box>") is None and MAP_VALUE(b"WeakMap<K, Box>") is None
    assert MAP_VALUE(b"Map<K, Box> // keyed by name") == ("Box", "Map<K, Box>")
    assert MAP_VALUE(b"undefined | Map<K, Box>") == ("Box", "undefined | Map<K, Box>")
    assert MAP_VALUE(b"Map<K, Box> | Map<K, Crate>") is None and INDEXED(b"Box[] | Crate") is None
