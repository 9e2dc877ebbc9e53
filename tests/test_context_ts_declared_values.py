"""TypeScript receivers typed by a declaration of a value (context_tools/query/symbols/script_types.py):
an imported `const`'s declaration in the file the import reaches, a conditional of typed names,
an intersection's member, an interface extending an object type alias, an object literal passed
to a declared parameter, a predicate a generic function builds narrowing the blocks its `if` holds. Exact sites, from a real index of
tests/fixtures/sites/ts_declared_values.txt, where a comment beside each line says which sites it
holds; each says which declaration decided it (`rule`)."""

from __future__ import annotations

import pytest

from context_tools.query.symbols.script_annotations import argument_of, branches, intersected
from tests.indexed import NotedSites

SITES = NotedSites("ts_declared_values.txt", "rennet-ctx-ts-values-", "ts declared values")
app = SITES.app()
test_each_site_is_where_its_comment_says = SITES.each_site_test()


def test_each_site_says_which_declaration_typed_it(app):
    rules = {(s.path, s.line): s.rule for s in app.call("context.references", name="Annotation.make_").data.sites
             if s.path in ("src/use.ts", "src/wrapped.ts")}
    assert rules == {
        ("src/use.ts", 4): "`factory` imported from src/api.ts, annotation `Factory` of `factory`",
        ("src/use.ts", 11): "`chosen` = a conditional of `factory.bound` (`factory` imported from src/api.ts, "
                            "annotation `Factory` of `factory`, field `bound: Annotation & Decorator`) or `factory` "
                            "(`factory` imported from src/api.ts, annotation `Factory` of `factory`)",
        ("src/wrapped.ts", 12): "an argument of wrap(...), its parameter declared `Annotation`",
        ("src/wrapped.ts", 18): "an argument of named(...), its parameter declared `Annotation`",
    }
    extend = {(s.path, s.line): s.rule for s in app.call("context.references", name="Annotation.extend_").data.sites
              if s.path == "src/use.ts"}
    assert extend == {
        ("src/use.ts", 5): "`annotation` imported from src/api.ts, `annotation = createAnnotation(...)`, "
                           "declared to return Annotation",
        ("src/use.ts", 16): "a conditional of `annotation` (`annotation` imported from src/api.ts, `annotation = "
                            "createAnnotation(...)`, declared to return Annotation) or `factory` (`factory` imported "
                            "from src/api.ts, annotation `Factory` of `factory`)",
    }


def test_an_untyped_or_split_receiver_is_a_name_match(app):
    resolved = {s.line: s.resolution for s in app.call("context.references", name="make_").data.sites
                if s.path == "src/use.ts"}
    assert resolved == {
        4: "import", 6: "import", 11: "import",
        7: "name_match",  # `undeclared = loose(...)`: no return type declared
        8: "name_match",  # `annotationFn`, a function, no const
        9: "name_match",  # `factory.clash`: Annotation's and Other's make_
        13: "name_match",  # `mixed`: Annotation's or Other's
        15: "name_match",  # `nested`: a nested conditional
        17: "name_match",  # `(bound ? annotation : other)`
    }


def test_a_predicate_a_generic_function_builds_narrows_the_blocks_its_if_holds(app):
    rules = {s.line: (s.resolution, s.rule) for s in app.call("context.references", name="make_").data.sites
             if s.path == "src/narrow.ts"}
    assert rules == {
        6: ("import", "`isOther(thing)`, a type predicate of Other"),
        9: ("import", "`isOther(thing)`, a type predicate of Other"),  # through `else {` and `try {`
        16: ("name_match", "name"),  # `createCheck` returns no predicate
        26: ("name_match", "name"),  # `thing = next` inside the narrowing block
        34: ("name_match", "name"),  # inside a function's body the block holds
        44: ("name_match", "name"),  # `const thing` again inside the narrowing block
    }


def test_an_interface_inherits_the_members_of_an_object_type_alias_it_extends(app):
    d, = app.call("context.symbol", name="Factory.make_", fuzzy=False).data.definitions
    assert (d.path, d.qualified, d.match) == ("src/annotation.ts", "Annotation.make_", "inherited")


@pytest.mark.parametrize(("text", "values"), [
    (b" bound ? flow.bound : flow", (("flow", "bound"), ("flow",))),
    (b"this.options_?.deep === false ? observable.ref : observable", (("observable", "ref"), ("observable",))),
    (b"a ?? b ? c : d", (("c",), ("d",))),
    (b"f(a ? b : c) ? d : e", (("d",), ("e",))),
    (b"a ? b : c ? d : e", None), (b"a ? b() : c", None), (b"a ? 'x' : c", None), (b"a.b", None),
    (b"{ x: 1 }", None),
])
def test_the_values_of_a_conditional(text, values):
    assert branches(text) == values


@pytest.mark.parametrize(("text", "parts"), [
    (b"Annotation & PropertyDecorator & ClassMethodDecorator", ("Annotation", "PropertyDecorator", "ClassMethodDecorator")),
    (b"ns.A<T> & B;", ("A", "B")), (b"A", None), (b"A & { m(): void }", None), (b"A & string", None),
    (b"A & B[]", None), (b"(A | B) & C", None),
])
def test_the_parts_of_an_intersection(text, parts):
    assert intersected(text) == parts


@pytest.mark.parametrize(("before", "argument"), [
    (b"    wrap(", ("wrap", 0)), (b"export const x = named(\"s\", ", ("named", 1)), (b"wrap<T>(", ("wrap", 0)),
    (b"f(g(a), ", ("f", 1)), (b"obj.wrap(", None), (b"if (", None), (b"new Wrap(", None),
    (b"function wrap(", None), (b"return ", None), (b"x = [", None),
])
def test_the_call_an_object_literal_is_an_argument_of(before, argument):
    assert argument_of(before) == argument
