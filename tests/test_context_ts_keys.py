"""TypeScript receivers reached through a computed key a class declares (`x[$mobx].m`), a cast
followed by fields, a value copied out of a declared container, a declaration below the closure
reading it, and a callback passed to a function declaring its type
(context_tools/query/symbols/script_chains.py, script_types.py). Exact sites, from a real index
of tests/fixtures/sites/ts_keys.txt, where a comment beside each line says which sites it holds;
each says which binding decided it (`rule`)."""

from __future__ import annotations

import pytest

from context_tools.query.symbols.script_casts import cast_type
from context_tools.query.symbols.script_chains import (
    Step,
    assignments,
    callback_parameter,
    chain_before,
    continued,
    copied_array,
    keyed_member,
    passed_to,
    value_alone,
)
from tests.indexed import NotedSites

SITES = NotedSites("ts_keys.txt", "rennet-ctx-ts-keys-", "ts keys")
app = SITES.app()
test_each_site_is_where_its_comment_says = SITES.each_site_test()


def _rules(app, name: str, resolved: bool = True) -> dict[tuple[str, int, int], str]:
    return {(s.path, s.line, s.col): s.rule for s in app.call("context.references", name=name).data.sites
            if (s.resolution != "name_match") == resolved}


def test_each_site_says_which_binding_decided_it(app):
    held = "cast to `Held`, `[$mobx]: Admin`"
    assert _rules(app, "Admin.set_") == {
        ("src/keys.ts", 4, 31): held,
        ("src/keys.ts", 26, 23): "this in Crate, `[$mobx]: Admin`",
        ("src/store.ts", 41, 19): "`kept[...]`, `kept = all.filter((a) => a.has_(\"b\"))`, `all = this.all`, this in "
                                  "Store, field `all: Admin[]`",
    }
    assert _rules(app, "Admin.has_") == {
        ("src/keys.ts", 13, 11): held,
        ("src/keys.ts", 20, 23): "this in Box, `[$mobx]: Admin`",
        ("src/store.ts", 17, 17): "`entry = this.byKey.get(...)`, this in Store, field `byKey: Map<string, Admin>`",
        ("src/store.ts", 25, 16): "`head = this.all[...]`, this in Store, field `all: Admin[]`",
        ("src/store.ts", 32, 14): "`rest[...]`, `rest = all.splice(0)`, `all = this.all`, this in Store, field "
                                  "`all: Admin[]`",
        ("src/store.ts", 34, 37): "`a` of `all.filter(...)`, `all = this.all`, this in Store, field `all: Admin[]`",
        # a `let` every assignment of which makes an Admin (`a = make()`, make declared `: Admin`)
        ("src/reassigned.ts", 20, 11): "`a = new Admin(...)`",
        # a `let` made a Local, then an Admin: no one class; a line of the file makes an Admin
        ("src/reassigned.ts", 28, 11): "import",
        ("src/reassigned.ts", 39, 11): "`d = make(...)`, declared to return Admin",  # a `const`
    }
    assert _rules(app, "Reaction.dispose") == {
        ("src/core.ts", 51, 38): "`reaction = new Reaction(...)`",
        ("src/keys.ts", 5, 11): "annotation `Disposer` of parameter `d`, `[$mobx]: Reaction`",
        ("src/keys.ts", 6, 13): "annotation `Other` of parameter `o`, `[$other]: Reaction`",
        ("src/when.ts", 5, 20): "`disposer = autorun(...)`, declared to return Disposer, `[$mobx]: Reaction`",
    }
    assert _rules(app, "Public.dispose") == {
        ("src/when.ts", 12, 6): "`r` of a callback passed to autorun, declared `Public`"}
    assert _rules(app, "Atom.reportObserved") == {
        ("src/keys.ts", 7, 30): "cast to `Held`, `[$mobx]: Admin`, field `atom_: Atom`",
        ("src/keys.ts", 8, 29): "cast to `Admin`, field `atom_: Atom`",
        # `Atom` as core.ts, declaring the field, names it: not the site's file's own `const Atom`
        ("src/reassigned.ts", 43, 21): "annotation `Admin` of parameter `admin`, field `atom_: Atom`",
        # so too a function's declared return type and a type predicate's class
        ("src/reassigned.ts", 48, 11): "`m = makeAtom(...)`, declared to return Atom",
        ("src/reassigned.ts", 53, 13): "`isAtom(x)`, a type predicate of Atom",
    }


def test_what_no_declaration_decides_stays_untyped(app):
    untyped = "attribute of an untyped receiver"
    assert _rules(app, "set_", resolved=False) == {
        ("src/keys.ts", 26, 49): untyped,  # `[$other]`: Crate declares no such key
        ("src/store.ts", 25, 56): f"{untyped} `again`",  # a `let` assigned another value
        ("src/store.ts", 41, 42): untyped,  # `map(...)`'s elements are another type
        ("src/store.ts", 41, 64): untyped,  # a `let` assigned again
        ("src/store.ts", 41, 88): untyped,  # `filter(isAdmin)`: a type predicate may narrow
        ("src/store.ts", 41, 109): untyped,  # a copy of an array no annotation types
    }
    assert _rules(app, "has_", resolved=False) == {
        ("src/keys.ts", 9, 11): untyped,  # `[$mobx]` is a method of Other
        ("src/store.ts", 25, 37): f"{untyped} `either`",  # the element is one branch of a conditional
        ("src/reassigned.ts", 34, 11): f"{untyped} `c`",  # a `var` of make()'s Admin assigned a parameter
    }
    assert _rules(app, "dispose", resolved=False) == {
        ("src/keys.ts", 10, 12): "name",  # Disposer declares no `[$other]`
        ("src/when.ts", 6, 20): untyped,  # declared in an inner block: not the closure's
        ("src/when.ts", 18, 17): f"{untyped} `r`",  # a type parameter
        ("src/when.ts", 19, 15): f"{untyped} `r`",  # an unannotated callback parameter
        ("src/when.ts", 20, 15): f"{untyped} `r`",  # overloads
        ("src/when.ts", 21, 30): f"{untyped} `extra`",  # the callback type has no second parameter
    }
    # a predicate of the tree's isAtom read where no import binds the name (a bundle's own,
    # nested in its wrapper): its class named as the bundle names it, a function, no class
    assert _rules(app, "reportObserved", resolved=False) == {("dist/bundle.js", 9, 15): "name"}


@pytest.mark.parametrize(("before", "chain"), [
    (b";(obj as any as Held)[$mobx].", ((), b";(obj as any as Held)", (Step("$mobx", True),))),
    (b"if (!disposer[$mobx].", (("disposer",), b"", (Step("$mobx", True),))),
    (b"return (this[$mobx] as Admin).atom_?.", ((), b"return (this[$mobx] as Admin)", (Step("atom_", False),))),
    (b"this.a[K]!.b?.", (("this", "a"), b"", (Step("K", True), Step("b", False)))),
    (b"x.y.", None), (b"(x as T).", None), (b"a[0].", None), (b"a[k + 1].", None), (b"x[K]", None),
    (b"'s'[K].", None), (b"a.f(x)[K].", ((), b"a.f(x)", (Step("K", True),))),  # a call: `cast_type` reads no cast
])
def test_the_chain_a_receiver_is_read_from(before, chain):
    assert chain_before(before) == chain


def test_a_parenthesized_head_is_a_cast_only_where_cast_type_reads_one():
    assert cast_type(b";(obj as any as Held).") == "Held" and cast_type(b"return (this[$mobx] as Admin).") == "Admin"
    assert cast_type(b"a.f(x).") is None and cast_type(b"new X().") is None


def test_what_a_class_declares_under_a_computed_key():
    body = [b"export interface Disposer {", b"  (): void", b"  [$mobx]: Reaction // its reaction", b"  static [$a]: A",
            b"  [$b]!: B;", b"  get [$c](): C { return c }", b"  [$d] = 1", b"  f() { const o = { [$e]: E } }", b"}"]
    assert keyed_member(body, "$mobx") == b"Reaction"
    assert keyed_member(body, "$b") == b"B;"
    assert keyed_member(body, "$a") is None and keyed_member(body, "$e") is None and keyed_member(body, "mobx") is None
    assert keyed_member(body, "$c") is False and keyed_member(body, "$d") is False


@pytest.mark.parametrize(("value", "copied"), [
    (b"all", ("all",)), (b"globalState.pending", ("globalState", "pending")), (b"all.splice(0)", ("all",)),
    (b"this.all.slice()", ("this", "all")), (b"all.filter((x) => x.ok)", ("all",)), (b"all.filter(x => x.ok)", ("all",)),
    (b"all.map(f)", None), (b"all.slice().map(f)", None), (b"all.filter(isAdmin)", None),
    (b"all.filter((x): x is Admin => true)", None), (b"all.flat()", None), (b"all.splice(0)[0]", None), (b"f(all)", None),
])
def test_the_array_a_value_copies(value, copied):
    assert copied_array(value) == copied


def test_the_assignments_of_a_name():
    text = b"let e = a\nconst n = (e = new Admin());\ne += 1; e++; [a, e] = p; ({ e } = q); e == 2; x.e = 3; e === e"
    assert assignments(text, "e") == [b" new Admin());\ne += 1; e++; [a, e] = p; ({ e } = q); e == 2; x.e = 3; e === e",
                                      None, None, None, None]
    lines = [b"  let rest = all.splice(0)", b"    .filter((x) => x)", b"  const b = c[0] // c", b"", b"  // f", b"  (f)()"]
    assert value_alone(lines, 1, b" all.splice(0)") is None and value_alone(lines, 3, b" c[0] // c") is None
    assert value_alone([b"x", b"  if (y) {"], 1, b" c.get(k); // c") == b"c.get(k)"
    assert value_alone([b"x"], 1, b" c.get(k") is None
    assert continued([b"x", b"  as Admin"], 1) and continued([b"x", b"  ? a", b"  : b"], 2)
    assert not continued([b"x", b"  if (y) {"], 1) and not continued([b"x"], 1)


@pytest.mark.parametrize(("text", "passed"), [
    (b"  var disposer = autorun(r => {", ("autorun", 0, 0)),
    (b"  reaction(() => x, (v, r) => r.dispose())", ("reaction", 1, 1)),
    (b"  reaction(() => x, async function (v, r) {", ("reaction", 1, 1)),
    (b"  xs.forEach(r => r.dispose())", None), (b"  new Thing(r => r.go())", None), (b"  f((r: R) => r.go())", None),
    (b"  f((r = d) => r.go())", None), (b"  f([r => r.go()])", None), (b"  if (r => 1)", None),
])
def test_the_call_a_callback_is_passed_to(text, passed):
    assert passed_to(text, "r") == passed


@pytest.mark.parametrize(("written", "parameter", "typed"), [
    (b"(r: IReactionPublic) => any", 0, b"IReactionPublic"),
    (b"(this: Z, v: V, r: Public) => (q: Q) => any", 1, b"Public"),
    (b"(r) => any", 0, None), (b"any", 0, None), (b"((r: R) => any)[]", 0, None), (b"(...rs: R[]) => any", 0, None),
    (b"(r: R) => any", 1, None), (b"((r: R) => any) | undefined", 0, None), (b"(r: R)", 0, None),
])
def test_the_type_a_callback_type_declares_for_its_parameter(written, parameter, typed):
    assert callback_parameter(written, parameter) == typed
