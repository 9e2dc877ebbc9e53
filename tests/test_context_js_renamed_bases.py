"""A JavaScript or TypeScript base named otherwise than its class: imported from a file that
re-exports it under another name (`export { Base as Renamed }` then `class A extends
Renamed`), or a default export imported under any name (`import Shown from`). Such a
subclass is the class's (`--hierarchy`), and a member it inherits is reached through it
(`new B().hide()`). Was: a subclass was looked for only in the files spelling the class's
own name. Exact answers, from a real index."""

from __future__ import annotations

import pytest

from tests.indexed import Indexed

FILES = {
    "package.json": '{"name": "zoo", "version": "1.0.0"}\n',
    "src/base.js": "export class Base {\n  run() { return 1; }\n}\n",
    "src/index.js": "export { Base as Renamed } from './base';\n",
    "src/a.js": "import { Renamed } from './index';\nexport class A extends Renamed {}\n",
    "src/def.js": "class Hidden {\n  hide() {}\n}\nexport default Hidden;\n",
    "src/b.js": "import Shown from './def';\nclass B extends Shown {}\nnew B().hide();\n",
}

REPO = Indexed(FILES, "rennet-ctx-js-renamed-bases-", message="renamed bases")


@pytest.fixture(scope="module")
def zoo():
    return REPO.asked()


def _subclasses(zoo, name: str) -> list[tuple[str, str]]:
    r = zoo.call("context.symbol", name=name, hierarchy=True)
    return sorted((x.spec, x.path) for x in r.data.hierarchy if x.relation == "subclass")


def test_a_subclass_naming_its_base_otherwise_is_found(zoo):
    assert _subclasses(zoo, "Base") == [("A", "src/a.js")]
    assert _subclasses(zoo, "Hidden") == [("B", "src/b.js")]


def test_an_inherited_member_is_reached_through_it(zoo):
    def sites(name: str) -> list[tuple[str, int, str]]:
        r = zoo.call("context.references", name=name)
        return sorted((s.path, s.line, s.resolution) for s in r.data.sites)

    assert sites("hide") == [("src/b.js", 3, "import")]
