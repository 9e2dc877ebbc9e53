"""Which assignments of `this.name` a class's body holds, as the typing of an unannotated
JavaScript field reads them (script_chains.field_assignments, script_types._assigned_field):
an increment or a destructuring assignment is an assignment of no class, another object's
`name` (`mythis.name`) and a later class's `this.name` none of the class's, and an element
of the field (`this.name[0]`) is no instance of the field's class; a field's initializer is
read past its modifiers (`private readonly held = new Crate()`). From a real index."""

from __future__ import annotations

from tests.indexed import Indexed

FILES = {
    "pool.js": ("class Pool {\n"
                "  drain() { return 1; }\n"
                "}\n"
                "class Tank {\n"
                "  constructor(o) {\n"
                "    this.p = new Pool();\n"
                "    this.q = new Pool();\n"
                "    this.r = new Pool();\n"
                "    this.t = new Pool();\n"
                "    this.u = new Pool();\n"
                "    mythis.t = 5;\n"
                "  }\n"
                "  bump(o) { this.q++; [this.r] = o; }\n"
                "  use() {\n"
                "    this.p.drain();\n"  # 15: Pool's
                "    this.q.drain();\n"  # 16: incremented too: untyped
                "    this.r.drain();\n"  # 17: destructured too: untyped
                "    this.t.drain();\n"  # 18: Pool's (mythis.t is another object's)
                "    this.u.drain();\n"  # 19: Pool's (Later's this.u is Later's)
                "    return this.p[0].drain();\n"  # 20: an element of the field: untyped
                "  }\n"
                "}\n"
                "class Later {\n"
                "  constructor() { this.u = 1; }\n"
                "}\n"
                "module.exports = { Pool, Tank, Later };\n"),
    # an initializer after a modifier
    "box.ts": ("class Crate {\n  empty() { return 0; }\n}\nexport class Box {\n  private readonly held = new Crate();\n"
               "  use() { return this.held.empty(); }\n}\n"),
}

REPO = Indexed(FILES, "rennet-ctx-js-field-assignments-", message="field assignments")


app = REPO.fixture()


def test_only_the_class_s_own_plain_assignments_type_its_field(app):
    result = app.call("context.references", name="drain")
    got = sorted((s.line, s.resolution) for s in result.data.sites)
    assert got == [(15, "same_file"), (16, "name_match"), (17, "name_match"), (18, "same_file"), (19, "same_file"),
                   (20, "name_match")]


def test_a_fields_initializer_is_read_past_its_modifiers(app):
    result = app.call("context.references", name="empty")
    assert [(s.path, s.line, s.resolution) for s in result.data.sites] == [("box.ts", 6, "same_file")]
