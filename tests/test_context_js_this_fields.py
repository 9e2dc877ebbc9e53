"""A field JavaScript never declares is typed by what the class assigns it: where every
`this.client = value` of a class's body (and the field's initializer, `client = new Client()`)
makes an instance of one class, `this.client.fetch()` in its methods and its subclasses' is
that class's fetch, as Python's `self.x` is typed by its class's assignments. Two classes
assigned, a value that only starts with a call (`new Client().pool`), no assignment, or a
field declared another type (`typed: unknown`) leave the receiver untyped: a `name_match`."""

from __future__ import annotations

from tests.indexed import Indexed, sites

RULED = ("path", "line", "resolution", "rule")

FILES = {
    "client.js": ("class Client {\n"
                  "  fetch(url) { return url; }\n"
                  "}\n"
                  "class Cache {\n"
                  "  fetch(key) { return key; }\n"
                  "}\n"
                  "module.exports = { Client, Cache };\n"),
    "store.js": ("const { Client, Cache } = require('./client');\n"
                 "class Store {\n"
                 "  constructor(opts) {\n"
                 "    this.client = new Client(opts);\n"
                 "    this.cache = new Cache();\n"
                 "    this.mixed = new Client();\n"
                 "    this.part = new Client().pool;\n"
                 "  }\n"
                 "  reset() {\n"
                 "    this.mixed = new Cache();\n"
                 "  }\n"
                 "  load(url) {\n"
                 "    this.cache.fetch(url);\n"  # 13: Cache's
                 "    return this.client.fetch(url);\n"  # 14: Client's
                 "  }\n"
                 "  other() { return this.mixed.fetch(1) + this.part.fetch(2) + this.never.fetch(3); }\n"  # 16: untyped
                 "}\n"
                 "class Sub extends Store {\n"
                 "  more() { return this.client.fetch(2); }\n"  # 19: Client's, assigned in Store
                 "}\n"
                 "module.exports = { Store };\n"),
    "made.ts": ("import { Client } from './client';\n"
                "function makeClient(): Client { return new Client(); }\n"
                "export class Holder {\n"
                "  held = new Client();\n"
                "  constructor() { this.made = makeClient(); }\n"
                "  run() { return this.held.fetch(5) + this.made.fetch(6); }\n"  # 6: both Client's
                "  typed: unknown;\n"
                "  more() { this.typed = new Client(); return this.typed.fetch(7); }\n"  # 8: declared unknown
                "}\n"),
}

REPO = Indexed(FILES, "rennet-ctx-js-this-fields-", message="this fields")


app = REPO.fixture()


def test_a_field_every_assignment_makes_one_class_is_that_class(app):
    assert sorted(sites(app, "Client.fetch", *RULED)) == [
        ("made.ts", 6, "import", "this in Holder, `this.held` an instance in Holder's methods"),
        ("made.ts", 6, "import", "this in Holder, `this.made` an instance in Holder's methods"),
        ("store.js", 14, "import", "this in Store, `this.client` an instance in Store's methods"),
        ("store.js", 19, "import", "this in Sub, `this.client` an instance in Store's methods"),
    ]


def test_the_other_class_assigned_is_its_own(app):
    assert sorted(sites(app, "Cache.fetch", *RULED)) == [
        ("store.js", 13, "import", "this in Store, `this.cache` an instance in Store's methods")]


def test_two_classes_a_call_s_attribute_or_no_assignment_leave_it_untyped(app):
    untyped = {(p, n) for p, n, r, _ in sorted(sites(app, "fetch", *RULED)) if r == "name_match"}
    assert untyped == {("made.ts", 8), ("store.js", 16)}
    assert len([s for s in sorted(sites(app, "fetch", *RULED)) if s[:2] == ("store.js", 16)]) == 3
