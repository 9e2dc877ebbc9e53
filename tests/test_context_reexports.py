"""Names reached through chains of re-exports: `app.Client` for a class defined in
app/api/_client.py that app/api/__init__.py imports and app/__init__.py imports from it, and
reference sites in files importing it from the package. Re-exports are followed a bounded
number of hops (`symbols.imports.RELAY_HOPS`), each file once, so loops of re-exports end. A real
repository built with pygit2 and indexed into a real store."""

from __future__ import annotations

from context_tools.query.symbols import imports, names
from tests.indexed import Indexed, definitions, sites

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
    # renamed re-exports, pytest-like: pytest exports _pytest's MARK_GEN as `mark`
    "src/_pytest/mark/structures.py": ("class MarkGenerator:\n    def parametrize(self):\n        pass\n\n\n"
                                       "MARK_GEN = MarkGenerator()\n"),
    "src/_pytest/mark/__init__.py": "from .structures import MARK_GEN\n",
    "src/pytest/__init__.py": ("from _pytest.mark import MARK_GEN as mark\n"
                               "from _pytest.mark.structures import MarkGenerator as Marks\n"),
    "test_marks.py": "import pytest\n\n\n@pytest.mark.slow\ndef test_it():\n    pass\n",
    # attrs-like: the package binds asdict as _asdict, so it offers `_asdict`, not `asdict`
    "attr/_funcs.py": "def asdict(inst):\n    pass\n",
    "attr/__init__.py": "from ._funcs import asdict as _asdict\n",
    "use_asdict.py": "import attr\n\nattr.asdict(None)\n",
    # a rename in the middle of a chain: chain -> chain.middle (Motor as Rotor) -> chain.inner -> chain.core
    "chain/core.py": "class Motor:\n    def spin(self):\n        pass\n",
    "chain/inner.py": "from chain.core import Motor\n",
    "chain/middle.py": "from chain.inner import Motor as Rotor\n",
    "chain/__init__.py": "from chain.middle import Rotor\n",
    "use_rotor.py": "from chain import Rotor\n\nRotor().spin()\n",
    # TypeScript: a renamed re-export, an import alone (no re-export), an import exported after
    "ui/button.ts": "export class Button {\n  press(): void {}\n}\n",
    "ui/index.ts": "export { Button as Btn } from './button';\n",
    "page2.ts": "import { Btn } from './ui';\n\nnew Btn().press();\n",
    "only/index.ts": "import { Button } from '../ui/button';\n\nexport const made = new Button();\n",
    "both/index.ts": "import { Button as B } from '../ui/button';\n\nexport { B as Knob };\n",
    "nsx/index.ts": "export * as parts from '../ui/button';\n",
    # Python's `*` binds no underscored name
    "star/__init__.py": "from star.impl import *\n",
    "star/impl.py": "def shown():\n    pass\n\n\ndef _hidden():\n    pass\n",
    "use_star.py": "from star import shown, _hidden\n\nshown()\n_hidden()\n",
    # ... unless the module's __all__ says which names: exactly those, underscored ones too
    "allstar/__init__.py": "from .impl import *\n",
    "allstar/impl.py": ('__all__ = ["_listed", "kept"]\n\n\ndef _listed():\n    pass\n\n\n'
                        "def kept():\n    pass\n\n\ndef dropped():\n    pass\n"),
    "use_allstar.py": "from allstar import _listed, dropped\n\n_listed()\ndropped()\n",
    # a package's __all__ names what it imports; a `*` of it passes on only those
    "facade/__init__.py": "from .core import *\n",
    "facade/core/__init__.py": 'from ._engine import _Motor, Gear\n\n__all__ = ["_Motor"]\n',
    "facade/core/_engine.py": "class _Motor:\n    pass\n\n\nclass Gear:\n    pass\n",
    # each file's own __all__ decides at its `*`: lit's lists _deep; dyn's is computed, so
    # not read, and the underscore rule holds there
    "mixed/__init__.py": "from .dyn import *\n",
    "mixed/dyn.py": "from .lit import *\n\n__all__ = [n for n in dir() if n.startswith('_d')]\n",
    "mixed/lit.py": '__all__ = ["_deep", "Shallow"]\n\n\ndef _deep():\n    pass\n\n\nclass Shallow:\n    pass\n',
    # an __all__ extended under a top-level `if`: every name either way may list passes
    "branchy/__init__.py": "from .impl import *\n",
    "branchy/impl.py": ('__all__ = ["slow"]\nif FAST:\n    __all__ += ["_fast"]\n\n\ndef _fast():\n    pass\n\n\n'
                        "def slow():\n    pass\n\n\ndef unlisted():\n    pass\n"),
}


SHOP_REPO = Indexed(FILES, "rennet-ctx-reexports-", message="re-exports")


shop = SHOP_REPO.fixture()


def test_a_name_qualified_by_a_package_two_and_three_reexports_away(shop):
    # `app.Client` and `lib3.Engine` matched nothing: only a file importing the name straight
    # from its defining file counted
    assert definitions(shop, "app.Client") == [("app/api/_client.py", "Client", 1, "qualified")]
    assert definitions(shop, "app.Client.send") == [("app/api/_client.py", "Client.send", 2, "qualified")]
    assert definitions(shop, "api.Client") == [("app/api/_client.py", "Client", 1, "qualified")]  # one hop, as before
    assert definitions(shop, "lib3.Engine") == [("lib3/inner/core.py", "Engine", 1, "qualified")]
    assert definitions(shop, "facade.Engine") == [("lib3/inner/core.py", "Engine", 1, "qualified")]
    assert definitions(shop, "deep.d4.Deep") == [("deep/d0.py", "Deep", 1, "qualified")]  # four hops
    assert definitions(shop, "deep.Deep") == []  # five: past the bound
    assert definitions(shop, "app.Engine") == []
    assert definitions(shop, "lib3.Client") == []
    assert definitions(shop, "app.Client.draw") == []


def test_a_loop_of_reexports_ends(shop):
    assert definitions(shop, "cyc.Thing") == [("cyc/defs.py", "Thing", 1, "qualified")]
    assert definitions(shop, "cyc.y.Thing") == [("cyc/defs.py", "Thing", 1, "qualified")]
    assert definitions(shop, "ghost.Ghost") == [] and definitions(shop, "ghost.p.Ghost") == []
    assert sites(shop, "Ghost") == [("ghost/__init__.py", 1, "name_match"), ("ghost/p.py", 1, "name_match"),
                                     ("ghost/q.py", 1, "name_match")]
    assert sites(shop, "Thing") == [
        ("cyc/__init__.py", 1, "import"), ("cyc/x.py", 1, "import"), ("cyc/x.py", 2, "import"),
        ("cyc/y.py", 1, "import"), ("use_thing.py", 1, "import"), ("use_thing.py", 3, "import")]


def test_a_chain_that_ends_nowhere_reaches_no_definition(shop):
    # ends/middle.py imports Client from a module the tree does not hold: app's Client is not it
    assert definitions(shop, "ends.Client") == [] and definitions(shop, "middle.Client") == []
    assert ("use_ends.py", 1, "name_match") in sites(shop, "Client")
    assert sites(shop, "app.Client") == [
        ("app/__init__.py", 1, "import"), ("app/api/__init__.py", 1, "import"),
        ("use_client.py", 1, "import"), ("use_client.py", 3, "import")]


def test_reference_sites_through_a_chain_of_reexports_are_import_resolved(shop):
    # use_client.py imports Client from app, two re-exports from its definition: it was name_match
    assert [s for s in sites(shop, "Client") if s[0] == "use_client.py"] == [
        ("use_client.py", 1, "import"), ("use_client.py", 3, "import")]
    assert sites(shop, "Engine") == [
        ("lib3/facade.py", 1, "import"), ("lib3/inner/__init__.py", 1, "import"), ("use_engine.py", 3, "import")]
    assert sites(shop, "lib3.Engine", resolution="import") == sites(shop, "Engine")


def test_typescript_export_chains(shop):
    # web/index.ts: export * from './core'; web/core/index.ts: export { Widget } from './widget'
    assert definitions(shop, "web.Widget") == [("web/core/widget.ts", "Widget", 1, "qualified")]
    assert definitions(shop, "web.Widget.draw") == [("web/core/widget.ts", "Widget.draw", 2, "qualified")]
    assert [s for s in sites(shop, "Widget") if s[0] == "page.ts"] == [("page.ts", 1, "import"),
                                                                        ("page.ts", 3, "import")]


def test_one_hop_is_what_was_followed_before(shop, monkeypatch):
    # the same questions with re-exports followed one hop: what the tools answered before chains
    monkeypatch.setattr(imports, "RELAY_HOPS", 1)
    assert definitions(shop, "app.Client") == []
    assert definitions(shop, "lib3.Engine") == []
    assert definitions(shop, "web.Widget") == []
    assert definitions(shop, "api.Client") == [("app/api/_client.py", "Client", 1, "qualified")]


def test_a_typescript_declaration_file_is_named_without_its_d(shop):
    # decl/shapes.d.ts was module `decl.shapes.d`, which no query could spell (`.` splits parts):
    # `shapes.Circle` matched nothing, nor did `decl.Circle` two re-exports away
    client, repo = shop
    assert definitions(shop, "circle.Circle") == [("decl/circle.d.ts", "Circle", 1, "qualified")]
    assert definitions(shop, "shapes.Circle") == [("decl/circle.d.ts", "Circle", 1, "qualified")]
    assert definitions(shop, "decl.Circle") == [("decl/circle.d.ts", "Circle", 1, "qualified")]
    assert [d.module for d in client.call("context.symbol", repo=repo, name="Circle").data.definitions] == [
        "decl.circle"]
    assert definitions(shop, "circle.d.Circle") == []
    assert names.module_parts("decl/circle.d.mts") == names.module_parts("decl/circle.d.cts") == ["decl", "circle"]
    assert names.module_parts("decl/index.d.ts") == ["decl"] and names.module_parts("a.d/b.ts") == ["a.d", "b"]


def test_a_renamed_reexport_offers_the_new_name(shop):
    # pytest/__init__.py: `from _pytest.mark import MARK_GEN as mark`: `pytest.mark` was not_found,
    # and `pytest.MARK_GEN` was found, though pytest has no MARK_GEN
    mark_gen = ("src/_pytest/mark/structures.py", "MARK_GEN", 6, "qualified")
    assert definitions(shop, "pytest.mark") == [mark_gen]
    assert definitions(shop, "mark.MARK_GEN") == [mark_gen]  # _pytest/mark/__init__.py, not renamed
    assert definitions(shop, "pytest.MARK_GEN") == []
    assert definitions(shop, "mark") == []  # an alias is no definition
    generator = ("src/_pytest/mark/structures.py", "MarkGenerator", 1, "qualified")
    assert definitions(shop, "pytest.Marks") == [generator]
    assert definitions(shop, "pytest.Marks.parametrize") == [
        ("src/_pytest/mark/structures.py", "MarkGenerator.parametrize", 2, "qualified")]
    assert definitions(shop, "pytest.MarkGenerator") == []
    assert definitions(shop, "pytest.MarkGenerator.parametrize") == []
    assert definitions(shop, "MarkGenerator.parametrize") == [
        ("src/_pytest/mark/structures.py", "MarkGenerator.parametrize", 2, "exact")]
    # reference sites of the name pytest offers: the alias itself, and a file importing pytest
    assert sites(shop, "pytest.mark") == [("src/pytest/__init__.py", 1, "import"), ("test_marks.py", 4, "import")]
    # asked by its own name, the definition's sites under the names it is re-exported as too:
    # pytest's `mark` (line 1 holds `MARK_GEN` and `mark`) and test_marks.py's `pytest.mark`,
    # which were left out; MarkGenerator's as pytest's `Marks`
    assert sites(shop, "MARK_GEN") == [
        ("src/_pytest/mark/__init__.py", 1, "import"), ("src/pytest/__init__.py", 1, "import"),
        ("src/pytest/__init__.py", 1, "import"), ("test_marks.py", 4, "import")]
    assert sites(shop, "MarkGenerator") == [
        ("src/_pytest/mark/structures.py", 6, "same_file"),
        ("src/pytest/__init__.py", 2, "import"), ("src/pytest/__init__.py", 2, "import")]


def test_an_alias_is_not_a_reexport_of_the_name_it_imports(shop):
    # attr/__init__.py: `from ._funcs import asdict as _asdict` relayed `asdict`
    assert definitions(shop, "attr.asdict") == []
    assert definitions(shop, "attr._asdict") == [("attr/_funcs.py", "asdict", 1, "qualified")]
    assert definitions(shop, "_funcs.asdict") == [("attr/_funcs.py", "asdict", 1, "qualified")]
    # use_asdict.py imports attr, which has no `asdict`: its site was `import`-resolved
    assert [s for s in sites(shop, "asdict") if s[0] == "use_asdict.py"] == [("use_asdict.py", 3, "name_match")]
    assert sites(shop, "attr._asdict") == [("attr/__init__.py", 1, "import")]


def test_a_chain_renames_as_it_goes(shop):
    # chain/__init__.py <- chain/middle.py (Motor as Rotor) <- chain/inner.py <- chain/core.py
    motor = ("chain/core.py", "Motor", 1, "qualified")
    assert definitions(shop, "chain.Rotor") == [motor] and definitions(shop, "middle.Rotor") == [motor]
    assert definitions(shop, "inner.Motor") == [motor]
    assert definitions(shop, "chain.Rotor.spin") == [("chain/core.py", "Motor.spin", 2, "qualified")]
    assert definitions(shop, "chain.Motor") == []
    assert definitions(shop, "middle.Motor") == []
    assert definitions(shop, "chain.Rotor.run") == []
    assert sites(shop, "chain.Rotor") == [("chain/__init__.py", 1, "import"), ("chain/middle.py", 1, "import"),
                                           ("use_rotor.py", 1, "import"), ("use_rotor.py", 3, "import")]


def test_a_chain_with_renames_has_the_same_bound(shop, monkeypatch):
    # every hop counts, renamed or not: chain -> chain.core is three
    monkeypatch.setattr(imports, "RELAY_HOPS", 2)
    assert definitions(shop, "chain.Rotor") == [] and definitions(shop, "chain.Rotor.spin") == []
    assert definitions(shop, "middle.Rotor") == [("chain/core.py", "Motor", 1, "qualified")]
    assert definitions(shop, "pytest.mark") == [("src/_pytest/mark/structures.py", "MARK_GEN", 6, "qualified")]
    monkeypatch.setattr(imports, "RELAY_HOPS", 1)
    assert definitions(shop, "pytest.mark") == [] and definitions(shop, "middle.Rotor") == []


def test_typescript_renamed_reexports_and_plain_imports(shop):
    button = ("ui/button.ts", "Button", 1, "qualified")
    assert definitions(shop, "ui.Btn") == [button]  # export { Button as Btn } from './button'
    assert definitions(shop, "ui.Btn.press") == [("ui/button.ts", "Button.press", 2, "qualified")]
    assert definitions(shop, "ui.Button") == []
    assert sites(shop, "ui.Btn") == [("page2.ts", 1, "import"), ("page2.ts", 3, "import"),
                                      ("ui/index.ts", 1, "import")]
    # only/index.ts imports Button and exports something else: no re-export (it was one)
    assert definitions(shop, "only.Button") == []
    # both/index.ts imports Button as B and exports B as Knob
    assert definitions(shop, "both.Knob") == [button]
    assert definitions(shop, "both.Button") == [] and definitions(shop, "both.B") == []
    # `export * as parts from` offers a namespace, not each name (it was a wildcard)
    assert definitions(shop, "nsx.Button") == []


def test_a_python_wildcard_passes_on_no_underscored_name(shop):
    assert definitions(shop, "star.shown") == [("star/impl.py", "shown", 1, "qualified")]
    assert definitions(shop, "star._hidden") == []
    assert sites(shop, "shown") == [("use_star.py", 1, "import"), ("use_star.py", 3, "import")]
    assert sites(shop, "_hidden") == [("use_star.py", 1, "name_match"), ("use_star.py", 4, "name_match")]


def test_a_python_wildcard_passes_on_exactly_what_dunder_all_lists(shop):
    assert definitions(shop, "allstar._listed") == [("allstar/impl.py", "_listed", 4, "qualified")]
    assert definitions(shop, "allstar.kept") == [("allstar/impl.py", "kept", 8, "qualified")]
    assert definitions(shop, "allstar.dropped") == []  # public, but not listed
    assert sites(shop, "_listed") == [("use_allstar.py", 1, "import"), ("use_allstar.py", 3, "import")]
    assert sites(shop, "dropped") == [("use_allstar.py", 1, "name_match"), ("use_allstar.py", 4, "name_match")]


def test_a_packages_dunder_all_limits_a_wildcard_of_what_it_imports(shop):
    motor = ("facade/core/_engine.py", "_Motor", 1, "qualified")
    assert definitions(shop, "facade._Motor") == [motor]
    assert definitions(shop, "core._Motor") == [motor]
    # the package imports Gear (a name of its own) but does not list it
    assert definitions(shop, "core.Gear") == [("facade/core/_engine.py", "Gear", 5, "qualified")]
    assert definitions(shop, "facade.Gear") == []


def test_a_dunder_all_not_read_falls_back_to_the_underscore_rule(shop):
    deep = ("mixed/lit.py", "_deep", 4, "qualified")
    assert definitions(shop, "dyn._deep") == [deep]  # through lit's literal __all__
    assert definitions(shop, "mixed._deep") == []  # dyn's __all__ is computed: no underscored name passes
    assert definitions(shop, "mixed.Shallow") == [("mixed/lit.py", "Shallow", 8, "qualified")]


def test_a_dunder_all_extended_under_an_if_passes_on_what_either_way_lists(shop):
    # it was not read (an `if`): the underscore rule let `unlisted` through and stopped `_fast`
    assert definitions(shop, "branchy._fast") == [("branchy/impl.py", "_fast", 6, "qualified")]
    assert definitions(shop, "branchy.slow") == [("branchy/impl.py", "slow", 10, "qualified")]
    assert definitions(shop, "branchy.unlisted") == []


def test_qualified_lookups_walk_from_the_module_never_over_importers(shop, monkeypatch):
    """A qualified name is followed from the files of its module part towards the definition,
    reading what they import; never from the definition over its importers, which a class
    imported by thousands of files made 0.5 s and 400 MB in a fresh process at 100,000 files
    (and a module part no file has, `nowhere.Client`, walked them all for nothing)."""
    def over_importers(snap, starts):
        raise AssertionError("walked over importers")

    monkeypatch.setattr(imports, "relays", over_importers)
    assert definitions(shop, "nowhere.Client") == []
    assert definitions(shop, "app.Client") == [("app/api/_client.py", "Client", 1, "qualified")]
    assert definitions(shop, "lib3.Engine") == [("lib3/inner/core.py", "Engine", 1, "qualified")]
    assert definitions(shop, "pytest.mark") == [("src/_pytest/mark/structures.py", "MARK_GEN", 6, "qualified")]


def test_the_imports_read_alone_are_the_core_facts_imports():
    """A walk over importers reads each one's imports and `__all__` without its symbols
    (Snapshot.import_facts): what it reads is what the full core facts say, for every file,
    whether the core was read first or not."""
    from indexer import api

    repo, store_path = SHOP_REPO.paths
    with api.open_store(store_path) as store:
        alone = api.snapshot(repo, "main", store=store, index_if_absent=False)
        full = api.snapshot(repo, "main", store=store, index_if_absent=False)
        read = 0
        for path in alone.paths:
            core = full.core_facts(path)
            if core is None:
                assert alone.import_facts(path) is None
                continue
            imported = alone.import_facts(path)
            assert (imported.imports, imported.dunder_all) == (core.imports, core.dunder_all)
            assert full.import_facts(path) is core  # the core already read serves
            read += bool(core.imports) + (core.dunder_all is not None)
        assert read > 10  # the fixture's imports and literal __all__ were there to compare
