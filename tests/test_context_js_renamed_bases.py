"""A JavaScript or TypeScript base named otherwise than its class: imported from a file that
re-exports it under another name (`export { Base as Renamed }` then `class A extends
Renamed`), a default export imported under any name (`import Shown from`), or a constant the
file's top declares as the class (`const Alias = Base; class C extends Alias`). Such a
subclass is the class's (`--hierarchy`), and a member it inherits is reached through it
(`new B().hide()`). Was: a subclass was looked for only in the files spelling the class's
own name, and a constant's name was recorded as the base, which resolved to nothing. Exact
answers, from a real index."""

from __future__ import annotations

from tests.indexed import Indexed

FILES = {
    "package.json": '{"name": "zoo", "version": "1.0.0"}\n',
    "src/base.js": "export class Base {\n  run() { return 1; }\n}\n",
    "src/index.js": "export { Base as Renamed } from './base';\n",
    "src/a.js": "import { Renamed } from './index';\nexport class A extends Renamed {}\n",
    "src/def.js": "class Hidden {\n  hide() {}\n}\nexport default Hidden;\n",
    "src/b.js": "import Shown from './def';\nclass B extends Shown {}\nnew B().hide();\n",
    "src/c.js": ("import { Base } from './base';\n"
                 "const Alias = Base;\n"
                 "export class C extends Alias {}\n"
                 "const c = new C();\n"
                 "c.run();\n"),  # 5
    "src/d.ts": ("import { Base } from './base';\n"
                 "const Twice = Base;\n"
                 "export class D extends Twice {}\n"),
    "src/local.js": ("class L {\n  go() {}\n}\n"
                     "const LA = L;\n"
                     "class M extends LA {}\n"
                     "new M().go();\n"),  # 6
    "src/mixed.js": ("import { Base } from './base';\n"
                     "let Mixed = Base;\n"
                     "Mixed = mixin(Mixed);\n"
                     "export class E extends Mixed {}\n"),  # a `let` may be assigned again: no alias
    "src/inner.js": ("import { Base } from './base';\n"
                     "function make() {\n  const Inner = Base;\n  return class F extends Inner {};\n}\n"
                     "class G extends Inner {}\n"),  # a function's own variable: not the top's
}

REPO = Indexed(FILES, "rennet-ctx-js-renamed-bases-", message="renamed bases")


zoo = REPO.fixture()


def _subclasses(zoo, name: str) -> list[tuple[str, str]]:
    r = zoo.call("context.symbol", name=name, hierarchy=True)
    return sorted((x.spec, x.path) for x in r.data.hierarchy if x.relation == "subclass")


def test_a_subclass_naming_its_base_otherwise_is_found(zoo):
    assert _subclasses(zoo, "Base") == [("A", "src/a.js"), ("C", "src/c.js"), ("D", "src/d.ts")]
    assert _subclasses(zoo, "Hidden") == [("B", "src/b.js")]
    assert _subclasses(zoo, "L") == [("M", "src/local.js")]


def test_an_inherited_member_is_reached_through_it(zoo):
    def sites(name: str) -> list[tuple[str, int, str]]:
        r = zoo.call("context.references", name=name)
        return sorted((s.path, s.line, s.resolution) for s in r.data.sites)

    assert sites("hide") == [("src/b.js", 3, "import")]
    assert sites("go") == [("src/local.js", 6, "same_file")]
    assert sites("run") == [("src/c.js", 5, "import")]
