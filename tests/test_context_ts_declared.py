"""TypeScript receivers typed by what the code declares (context_tools/query/symbols/script_types.py):
a parameter's or local's annotation, `this: T`, a cast, a block's narrowing by `instanceof` or a
declared type predicate, a field's declared type, a function's declared return type. Exact
sites, from a real index of tests/fixtures/sites/ts_declared.txt, where a comment beside each
line says which sites it holds; each says which declaration decided it (`rule`)."""

from __future__ import annotations

import pytest

from context_tools.query.symbols.script_annotations import named_type
from context_tools.query.symbols.script_casts import cast_type
from tests.indexed import NotedSites

SITES = NotedSites("ts_declared.txt", "rennet-ctx-ts-declared-", "ts declared")
app = SITES.app()
test_each_site_is_where_its_comment_says = SITES.each_site_test()


def test_each_site_says_which_declaration_typed_it(app):
    rules = {(s.path, s.line, s.col): s.rule for s in app.call("context.references", name="Box.open").data.sites
             if s.path == "src/use.ts"}
    assert rules == {
        ("src/use.ts", 5, 6): "annotation `Box` of parameter `box`",
        ("src/use.ts", 16, 13): "annotation `Box` of `box`",
        ("src/use.ts", 16, 37): "cast to `Box`",
        ("src/use.ts", 16, 72): "cast to `Box`",
        ("src/use.ts", 24, 13): "annotation `Bin` of parameter `bin`",
        ("src/use.ts", 29, 17): "`thing instanceof Box`",
        ("src/use.ts", 32, 17): "`isBox(other)`, a type predicate of Box",
        ("src/use.ts", 37, 19): "import",  # `makeBox()`, declared `: Box`: the file's import decides
    }
    lid = {(s.line, s.col): s.rule for s in app.call("context.references", name="Lid.open").data.sites
           if s.path == "src/use.ts"}
    assert lid == {(6, 7): "annotation `Lid` of parameter `lid`", (10, 14): "annotation `Lid` of parameter `flag`",
                   (10, 31): "annotation `Box` of parameter `box`, field `lid: Lid`"}
    turn = app.call("context.references", name="Handle.turn").data.sites
    assert [(s.path, s.line, s.rule) for s in turn] == [
        ("src/make.ts", 12, "an object makeHandle returns, declared `Handle`"),
        ("src/make.ts", 15, "an object makeHandle returns, declared `Handle`"),
        ("src/make.ts", 19, "an object declared `Handle`"), ("src/use.ts", 41, "`this: Handle` of turnIt")]


def test_an_untyped_or_other_receiver_is_a_name_match_with_its_reason(app):
    rules = {(s.line, s.col): (s.resolution, s.rule) for s in app.call("context.references", name="open").data.sites
             if s.path == "src/use.ts" and s.line in (20, 24, 35, 45)}
    assert rules[(20, 30)] == ("name_match", "attribute of an untyped receiver `box`")  # the arrow's own box
    assert rules[(35, 17)] == ("name_match", "attribute of an untyped receiver `other`")  # no `x is T`
    assert rules[(24, 28)] == ("import", "annotation `Crate` of parameter `crate`")  # Crate's own open, not Box's
    turn = {(s.line, s.col): (s.resolution, s.rule) for s in app.call("context.references", name="turn").data.sites
            if s.path == "src/use.ts"}
    assert turn == {(41, 14): ("import", "`this: Handle` of turnIt"),
                    (45, 15): ("name_match", "attribute of an untyped receiver `thing`")}  # `any`


@pytest.mark.parametrize(("text", "name"), [
    (b"Box", "Box"), (b"Box, next: T)", "Box"), (b"ns.Box<K, V> = make()", "Box"), (b"Box | undefined)", "Box"),
    (b"Lid | boolean,", "Lid"), (b"unknown", None), (b"null | Box | void {", "Box"), (b"any", None), (b"Box[]", None), (b"A | B", None),
    (b"{ open(): number }", None), (b"(x: Box) => void", None), (b"string | Box", None), (b"Map<K, Box>", "Map"),
])
def test_the_one_class_a_type_annotation_names(text, name):
    assert named_type(text) == name


@pytest.mark.parametrize(("before", "name"), [
    (b"return (thing as Box).", "Box"), (b"(x as unknown as ns.Box<T>).", "Box"), (b"f(thing as Box).", None),
    (b"(thing).", None), (b"(a as Box) + (b).", None), (b"(thing as Box | Lid).", None),
])
def test_a_cast_before_the_dot(before, name):
    assert cast_type(before) == name


def test_javascript_receivers_typed_by_jsdoc_and_this_of_an_object(app):
    rules = {(s.path, s.line): (s.resolution, s.rule) for s in app.call("context.references", name="match").data.sites}
    assert rules[("lib/router.js", 10)] == ("import", "JSDoc `@param {Layer} layer`")
    assert rules[("lib/router.js", 17)] == ("name_match", "attribute of an untyped receiver `layer`")  # {Object}
    assert rules[("lib/router.js", 21)] == ("name_match", "attribute of an untyped receiver `layer`")  # no JSDoc
    assert rules[("lib/router.js", 27)] == ("same_file", "defining file")  # `self` of proto.handle: proto's match
    assert rules[("lib/router.js", 37)] == ("name_match", "attribute of this in a function of helpers, which has no member match")


def test_a_declaration_s_value_types_it_where_the_file_imports_no_name_of_the_class(app):
    rules = {(s.line, s.col): (s.resolution, s.rule) for s in app.call("context.references", name="open").data.sites
             if s.path == "src/more.ts"}
    assert rules == {
        (14, 19): ("import", "`isBox(thing)`, a type predicate of Box"),
        (14, 33): ("import", "`made = makeBox(...)`, declared to return Box"),
        (14, 48): ("import", "`local = makeBox(...)`, declared to return Box"),
        (16, 19): ("name_match", "name")}  # `makeBox().lid`: no call alone, and nothing else ties it


def test_this_in_an_object_literal_s_method_is_that_object_s_member(app):
    assert [(s.line, s.resolution) for s in app.call("context.references", name="Growable.grow").data.sites] == []
    rules = {(s.line, s.col): (s.resolution, s.rule) for s in app.call("context.references", name="grow").data.sites
             if s.path == "src/extensions.ts"}
    assert rules == {(12, 16): ("same_file", "defining file")}
    shrink = [(s.line, s.rule) for s in app.call("context.references", name="shrink").data.sites]
    assert shrink == [(12, "name")]  # no definition: nothing to tie
