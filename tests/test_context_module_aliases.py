"""Python modules bound to a name as qualifiers: `pkg.s.Thing` when pkg/__init__.py has `from
. import sub as s` (or `import pkg.sub as s`), as `pkg.sub.Thing` names pkg/sub.py's Thing by
its module path; `api.sub.Thing` when api/__init__.py has `from pkg import sub`. And the sites
of files importing a module under another name, `import`-resolved as those of files importing
it under its own. A real repository built with pygit2 and indexed into a real store."""

from __future__ import annotations

from indexer.store.snapshot import Snapshot
from tests.indexed import Indexed, definitions, sites

FILES = {
    "pkg/__init__.py": "from . import sub as s\nfrom . import inner\nfrom .sub import Thing\n",
    "pkg/sub.py": "from .impl import Real as Alias\n\n\nclass Thing:\n    def run(self):\n        pass\n",
    "pkg/impl.py": "class Real:\n    pass\n",
    "pkg/inner/__init__.py": "from .. import sub as up\n",
    "pkg/inner/deep.py": "def dig():\n    pass\n",
    # a Thing of its own: the qualifier has to tell them apart
    "other/sub.py": "class Thing:\n    pass\n",
    "api/__init__.py": ("from pkg import sub as alias\nfrom pkg import sub\nimport pkg.sub as dotted\nimport pkg.sub\n"
                        "import pkg.inner as nest\nfrom pkg import Thing as tm\n"),
    "flat.py": "import pkg.sub as s\n",
    # importing files: the module under another name, and under its own
    "u_import_as.py": "import pkg.sub as s\n\ns.Thing()\n",
    "u_from_as.py": "from pkg import sub as s\n\ns.Thing()\n",
    "u_from.py": "from pkg import sub\n\nsub.Thing()\n",
    "u_import.py": "import pkg.sub\n\npkg.sub.Thing()\n",
    "u_other_as.py": "import other.sub as s\n\ns.Thing()\n",
    # a package binding its modules, not their names: `lib.tools.helper` through `import lib`
    "lib/__init__.py": "from . import tools\nfrom . import extra as x\n",
    "lib/tools.py": "def helper():\n    pass\n",
    "lib/extra.py": "def spare():\n    pass\n",
    "u_lib.py": "import lib\n\nlib.tools.helper()\nlib.x.spare()\n",
    # a module (no package) binding another: its importers do not reach tools.py through it
    "mid.py": "from lib import tools\n",
    "u_mid.py": "import mid\n\nmid.tools.helper()\n",
}

THING = ("pkg/sub.py", "Thing", 4, "qualified")
RUN = ("pkg/sub.py", "Thing.run", 5, "qualified")


SHOP_REPO = Indexed(FILES, "rennet-ctx-module-aliases-", message="module aliases")


shop = SHOP_REPO.fixture()


def test_a_module_bound_under_another_name_qualifies_as_its_own_name_does(shop):
    # pkg/__init__.py: `from . import sub as s`; `pkg.s.Thing` was not_found
    assert definitions(shop, "pkg.sub.Thing") == [THING]
    assert definitions(shop, "pkg.s.Thing") == [THING]
    assert definitions(shop, "pkg.s.Thing.run") == definitions(shop, "pkg.sub.Thing.run") == [RUN]
    # and on through what the bound module re-exports: pkg/sub.py's `from .impl import Real as Alias`
    assert definitions(shop, "pkg.s.Alias") == definitions(shop, "pkg.sub.Alias") == [
        ("pkg/impl.py", "Real", 1, "qualified")]
    assert definitions(shop, "pkg.s.Real") == []


def test_every_import_that_binds_a_module_to_a_name_qualifies(shop):
    # api/__init__.py binds pkg/sub.py as `alias`, `sub` and `dotted`; flat.py as `s`: each was not_found
    for query in ("api.alias.Thing", "api.sub.Thing", "api.dotted.Thing", "flat.s.Thing"):
        assert definitions(shop, query) == [THING], query
    assert definitions(shop, "api.alias.Thing.run") == [RUN]
    # a package bound to a name, then its submodule; a relative import two dots up
    assert definitions(shop, "api.nest.deep.dig") == [("pkg/inner/deep.py", "dig", 1, "qualified")]
    assert definitions(shop, "pkg.inner.up.Thing") == [THING]
    assert definitions(shop, "api.nest.up.Thing") == [THING]  # two bindings on the way


def test_names_that_bind_no_module_qualify_nothing(shop):
    # `from pkg import Thing as tm` binds the class (api.tm is Thing), no module
    assert definitions(shop, "api.tm.Thing") == []
    assert definitions(shop, "api.tm.run") == [RUN]  # a renamed re-export, as before
    assert definitions(shop, "api.s.Thing") == []  # api binds no `s`
    # an alias is the importing file's name: alone, it names no module (`s` is no module path)
    assert definitions(shop, "s.Thing") == []
    # `import pkg.sub` binds `pkg`, a package no edge names: not followed
    assert definitions(shop, "api.pkg.sub.Thing") == []


def test_a_binding_that_cannot_be_a_module_asks_for_no_edges(shop, monkeypatch):
    """Whether `from pkg import Thing as tm` binds a module is seen in the path table (no
    pkg/Thing.py anywhere): the snapshot's edges, whose first lookup decodes all of them, are
    not asked."""
    def no_edges(self, path):
        raise AssertionError(f"asked the edges of {path}")

    monkeypatch.setattr(Snapshot, "imports", no_edges)
    assert definitions(shop, "api.tm.Thing") == []
    assert definitions(shop, "pkg.s.Thing") == [THING]  # a relative import: found beside the importer


def test_sites_of_a_module_imported_under_another_name_are_import_resolved(shop):
    # already so before: the import of pkg.sub as `s` resolves to pkg/sub.py, as it does unaliased
    # (api/__init__.py's line 6 twice: `Thing`, and `tm`, its own name for it)
    under_either_name = [("api/__init__.py", 6, "import"), ("api/__init__.py", 6, "import"),
                         ("pkg/__init__.py", 3, "import"),
                         ("u_from.py", 3, "import"), ("u_from_as.py", 3, "import"), ("u_import.py", 3, "import"),
                         ("u_import_as.py", 3, "import")]
    assert sites(shop, "pkg.sub.Thing") == under_either_name
    assert sites(shop, "Thing") == under_either_name + [("u_other_as.py", 3, "import")]
    assert sites(shop, "other.sub.Thing") == [("u_other_as.py", 3, "import")]
    # the qualified names a binding gives are the same definition: the same sites (not_found before)
    assert sites(shop, "pkg.s.Thing") == sites(shop, "api.alias.Thing") == under_either_name


def test_sites_through_a_package_binding_the_module_are_import_resolved(shop):
    # lib/__init__.py binds tools (and extra as x): u_lib.py's `lib.tools.helper()` and
    # `lib.x.spare()` reach them (they were name_match); mid.py is no package: through it, no
    assert sites(shop, "helper") == [("u_lib.py", 3, "import"), ("u_mid.py", 3, "name_match")]
    assert sites(shop, "spare") == [("u_lib.py", 4, "import")]
    assert sites(shop, "lib.tools.helper") == [("u_lib.py", 3, "import")]


def test_an_absolute_import_binds_the_module_of_its_edge_only(indexed_files):
    """`import helpers as hp` in a package is absolute: the top-level helpers.py, not the one
    beside it; `from pkg import sub as s, Thing` binds s to pkg/sub.py, not to the file Thing
    is in (its other edge)."""
    asked = indexed_files({
        "api/__init__.py": "import helpers as hp\nfrom pkg import sub as s, Thing\n",
        "api/helpers.py": "class Near:\n    pass\n",
        "helpers.py": "class Far:\n    pass\n",
        "pkg/__init__.py": "class Thing:\n    pass\n",
        "pkg/sub.py": "class Inner:\n    pass\n",
    })
    assert definitions(asked, "api.hp.Far") == [("helpers.py", "Far", 1, "qualified")]
    assert definitions(asked, "api.hp.Near") == []
    assert definitions(asked, "api.s.Inner") == [("pkg/sub.py", "Inner", 1, "qualified")]
    assert definitions(asked, "api.s.Thing") == []


def test_a_submodule_is_found_under_a_package_alone_and_never_above_the_root(indexed_files):
    asked = indexed_files({
        # a module is no package: tools.py beside it is no `mid.tools`
        "mid.py": "x = 1\n",
        "tools.py": "def helper():\n    pass\n",
        # a package whose __init__ is a stub: its submodule under the alias of the package
        "api/__init__.py": "import pkg.inner as nest\n",
        "pkg/__init__.py": "",
        "pkg/inner/__init__.pyi": "",
        "pkg/inner/deep.py": "def dig():\n    pass\n",
        # two dots climb above the root: the import binds nothing
        "top.py": "from .. import sub as s\n",
        "sub.py": "class S:\n    pass\n",
    })
    assert definitions(asked, "mid.tools.helper") == []
    assert definitions(asked, "api.nest.deep.dig") == [("pkg/inner/deep.py", "dig", 1, "qualified")]
    assert definitions(asked, "top.s.S") == []
