"""Names reached through chains of re-exports: `app.Client` for a class defined in
app/api/_client.py that app/api/__init__.py imports and app/__init__.py imports from it, and
reference sites in files importing it from the package. Re-exports are followed a bounded
number of hops (`symbols._RELAY_HOPS`), each file once, so loops of re-exports end. A real
repository built with pygit2 and indexed into a real store."""

from __future__ import annotations

from functools import cache

import pytest

import context_tools
from context_tools import symbols
from indexer.errors import NotFound
from tests.indexed import indexed

FILES = {
    # two hops: app -> app.api -> app.api._client
    "app/__init__.py": "from .api import Client\n",
    "app/api/__init__.py": "from ._client import Client\n",
    "app/api/_client.py": "class Client:\n    def send(self):\n        pass\n",
    "use_client.py": "from app import Client\n\nc = Client()\nc.send()\n",
    # three hops, one of them a wildcard: lib3 -> lib3.facade -> lib3.inner -> lib3.inner.core
    "lib3/__init__.py": "from lib3.facade import *\n",
    "lib3/facade.py": "from lib3.inner import Engine\n",
    "lib3/inner/__init__.py": "from lib3.inner.core import Engine\n",
    "lib3/inner/core.py": "class Engine:\n    pass\n",
    "use_engine.py": "import lib3\n\ne = lib3.Engine()\n",
    # a loop of re-exports on the way: cyc.x and cyc.y import Thing from each other
    "cyc/__init__.py": "from cyc.y import Thing\n",
    "cyc/defs.py": "class Thing:\n    pass\n",
    "cyc/x.py": "from cyc.defs import Thing\nfrom cyc.y import Thing\n",
    "cyc/y.py": "from cyc.x import Thing\n",
    "use_thing.py": "from cyc import Thing\n\nThing()\n",
    # a loop that reaches no definition of Ghost at all
    "ghost/__init__.py": "from ghost.p import Ghost\n",
    "ghost/p.py": "from ghost.q import Ghost\n",
    "ghost/q.py": "from ghost.p import Ghost\n",
    # a chain that ends nowhere: ends/gone.py does not exist, so ends.Client is not app's Client
    "ends/__init__.py": "from ends.middle import Client\n",
    "ends/middle.py": "from ends.gone import Client\n",
    "use_ends.py": "from ends import Client\n\nClient()\n",
    # five hops: one more than is followed
    "deep/__init__.py": "from deep.d4 import Deep\n",
    "deep/d4.py": "from deep.d3 import Deep\n",
    "deep/d3.py": "from deep.d2 import Deep\n",
    "deep/d2.py": "from deep.d1 import Deep\n",
    "deep/d1.py": "from deep.d0 import Deep\n",
    "deep/d0.py": "class Deep:\n    pass\n",
    # TypeScript: web/index.ts re-exports everything of web/core, which re-exports Widget
    "web/index.ts": "export * from './core';\n",
    "web/core/index.ts": "export { Widget } from './widget';\n",
    "web/core/widget.ts": "export class Widget {\n  draw(): void {}\n}\n",
    "page.ts": "import { Widget } from './web';\n\nnew Widget().draw();\n",
    # declaration files: decl/index.d.ts -> decl/shapes.d.ts -> decl/circle.d.ts
    "decl/index.d.ts": "export * from './shapes';\n",
    "decl/shapes.d.ts": "export * from './circle';\n",
    "decl/circle.d.ts": "export declare class Circle {\n  radius: number;\n}\n",
}


@cache
def _repo() -> tuple[str, str]:
    return indexed(FILES, "rennet-ctx-reexports-", message="re-exports")


@pytest.fixture(scope="module")
def shop() -> tuple[context_tools.Client, str]:
    repo, store = _repo()
    return context_tools.Client(store=store), repo


def _exact(shop, name: str) -> list[tuple[str, str, int, str]]:
    client, repo = shop
    return [(d.path, d.qualified, d.line, d.match)
            for d in client.call("context.symbol", repo=repo, name=name, fuzzy=False).data.definitions]


def _missing(shop, name: str) -> bool:
    client, repo = shop
    with pytest.raises(NotFound):
        client.call("context.symbol", repo=repo, name=name, fuzzy=False)
    return True


def _sites(shop, name: str, **more) -> list[tuple[str, int, str]]:
    client, repo = shop
    r = client.call("context.references", repo=repo, name=name, **more)
    return [(s.path, s.line, s.resolution) for s in r.data.sites]


def test_a_name_qualified_by_a_package_two_and_three_reexports_away(shop):
    # `app.Client` and `lib3.Engine` matched nothing: only a file importing the name straight
    # from its defining file counted
    assert _exact(shop, "app.Client") == [("app/api/_client.py", "Client", 1, "qualified")]
    assert _exact(shop, "app.Client.send") == [("app/api/_client.py", "Client.send", 2, "qualified")]
    assert _exact(shop, "api.Client") == [("app/api/_client.py", "Client", 1, "qualified")]  # one hop, as before
    assert _exact(shop, "lib3.Engine") == [("lib3/inner/core.py", "Engine", 1, "qualified")]
    assert _exact(shop, "facade.Engine") == [("lib3/inner/core.py", "Engine", 1, "qualified")]
    assert _exact(shop, "deep.d4.Deep") == [("deep/d0.py", "Deep", 1, "qualified")]  # four hops
    assert _missing(shop, "deep.Deep")  # five: past the bound
    assert _missing(shop, "app.Engine") and _missing(shop, "lib3.Client") and _missing(shop, "app.Client.draw")


def test_a_loop_of_reexports_ends(shop):
    assert _exact(shop, "cyc.Thing") == [("cyc/defs.py", "Thing", 1, "qualified")]
    assert _exact(shop, "cyc.y.Thing") == [("cyc/defs.py", "Thing", 1, "qualified")]
    assert _missing(shop, "ghost.Ghost") and _missing(shop, "ghost.p.Ghost")
    assert _sites(shop, "Ghost") == [("ghost/__init__.py", 1, "name_match"), ("ghost/p.py", 1, "name_match"),
                                     ("ghost/q.py", 1, "name_match")]
    assert _sites(shop, "Thing") == [
        ("cyc/__init__.py", 1, "import"), ("cyc/x.py", 1, "import"), ("cyc/x.py", 2, "import"),
        ("cyc/y.py", 1, "import"), ("use_thing.py", 1, "import"), ("use_thing.py", 3, "import")]


def test_a_chain_that_ends_nowhere_reaches_no_definition(shop):
    # ends/middle.py imports Client from a module the tree does not hold: app's Client is not it
    assert _missing(shop, "ends.Client") and _missing(shop, "middle.Client")
    assert ("use_ends.py", 1, "name_match") in _sites(shop, "Client")
    assert _sites(shop, "app.Client") == [
        ("app/__init__.py", 1, "import"), ("app/api/__init__.py", 1, "import"),
        ("use_client.py", 1, "import"), ("use_client.py", 3, "import")]


def test_reference_sites_through_a_chain_of_reexports_are_import_resolved(shop):
    # use_client.py imports Client from app, two re-exports from its definition: it was name_match
    assert [s for s in _sites(shop, "Client") if s[0] == "use_client.py"] == [
        ("use_client.py", 1, "import"), ("use_client.py", 3, "import")]
    assert _sites(shop, "Engine") == [
        ("lib3/facade.py", 1, "import"), ("lib3/inner/__init__.py", 1, "import"), ("use_engine.py", 3, "import")]
    assert _sites(shop, "lib3.Engine", resolution="import") == _sites(shop, "Engine")


def test_typescript_export_chains(shop):
    # web/index.ts: export * from './core'; web/core/index.ts: export { Widget } from './widget'
    assert _exact(shop, "web.Widget") == [("web/core/widget.ts", "Widget", 1, "qualified")]
    assert _exact(shop, "web.Widget.draw") == [("web/core/widget.ts", "Widget.draw", 2, "qualified")]
    assert [s for s in _sites(shop, "Widget") if s[0] == "page.ts"] == [("page.ts", 1, "import"),
                                                                        ("page.ts", 3, "import")]


def test_one_hop_is_what_was_followed_before(shop, monkeypatch):
    # the same questions with re-exports followed one hop: what the tools answered before chains
    monkeypatch.setattr(symbols, "_RELAY_HOPS", 1)
    assert _missing(shop, "app.Client") and _missing(shop, "lib3.Engine") and _missing(shop, "web.Widget")
    assert _exact(shop, "api.Client") == [("app/api/_client.py", "Client", 1, "qualified")]


def test_a_typescript_declaration_file_is_named_without_its_d(shop):
    # decl/shapes.d.ts was module `decl.shapes.d`, which no query could spell (`.` splits parts):
    # `shapes.Circle` matched nothing, nor did `decl.Circle` two re-exports away
    client, repo = shop
    assert _exact(shop, "circle.Circle") == [("decl/circle.d.ts", "Circle", 1, "qualified")]
    assert _exact(shop, "shapes.Circle") == [("decl/circle.d.ts", "Circle", 1, "qualified")]
    assert _exact(shop, "decl.Circle") == [("decl/circle.d.ts", "Circle", 1, "qualified")]
    assert [d.module for d in client.call("context.symbol", repo=repo, name="Circle").data.definitions] == [
        "decl.circle"]
    assert _missing(shop, "circle.d.Circle")
    assert symbols.module_parts("decl/circle.d.mts") == symbols.module_parts("decl/circle.d.cts") == ["decl", "circle"]
    assert symbols.module_parts("decl/index.d.ts") == ["decl"] and symbols.module_parts("a.d/b.ts") == ["a.d", "b"]
