"""Local sites (a parameter, a local variable, a use of one) in context.references and the
rank: never a site of a definition, whatever the resolution class, and no use of a name."""

from __future__ import annotations

from indexer.extract.blob import extract_blob
from indexer.model import FileEntry
from indexer.rank.graph import rank_weights
from tests.indexed import Indexed, sites

PLACED = ("path", "line", "col", "role", "resolution")

SETTINGS = "def load():\n    return {}\n\nclass Config:\n    pass\n"
APP = ("from pkg.settings import load, Config\n\ndef run(load=None):\n    return load()\n\n"
       "def build():\n    Config = dict\n    return Config()\n\ndef use():\n    return load(), Config()\n")


LOCALS = Indexed({
    "pkg/__init__.py": "",
    "pkg/settings.py": SETTINGS + "\n\ndef reload(load):\n    return load\n",  # same file: a parameter
    "pkg/app.py": APP,
    "pkg/other.py": "def helper(load):\n    return load()\n",  # a name_match once
    "web/loader.js": "import { load } from '../lib/load.js';\n"
                     "export function f(x) {\n  { let load = x; load(); }\n  return load(x);\n}\n",
    "lib/load.js": "export function load(x) { return x; }\n",
}, "rennet-ctx-locals-", message="locals")


client = LOCALS.fixture()


def test_references_list_only_the_real_sites_of_an_import_shadowed_by_locals(client):
    assert sites(client, "pkg.settings.load", *PLACED) == [
        ("pkg/app.py", 1, 25, "identifier", "import"), ("pkg/app.py", 11, 11, "call", "import")]
    assert sites(client, "Config", *PLACED) == [
        ("pkg/app.py", 1, 31, "identifier", "import"), ("pkg/app.py", 11, 19, "call", "import")]


def test_no_local_site_in_any_resolution_class_nor_among_definitions(client):
    r = client.call("context.references", name="load", include_definitions=True)
    assert all(s.role != "local" for s in r.data.sites)
    assert {(s.path, s.line) for s in r.data.sites} == {
        ("pkg/settings.py", 1), ("pkg/app.py", 1), ("pkg/app.py", 11),
        ("lib/load.js", 1), ("web/loader.js", 1), ("web/loader.js", 4)}
    # the JS block's `let load` shadows the import inside its block only; the parameters of
    # settings.py's `reload` and other.py's `helper` are no same_file or name_match sites
    assert r.data.by_resolution == {"same_file": 2, "same_package": 0, "import": 4, "name_match": 0, "text": 0}


def test_context_symbol_is_unaffected(client):
    r = client.call("context.symbol", name="load")
    assert sorted((d.path, d.line) for d in r.data.definitions) == [("lib/load.js", 1), ("pkg/settings.py", 1)]


def _entry(path: str, language: str) -> FileEntry:
    return FileEntry(path=path, blob="0" * 40, mode=0o100644, size=1, lines=1, language=language)


def test_a_local_draws_no_use_of_a_definition_in_the_rank():
    definer = extract_blob(b"def load():\n    return {}\n", "pkg/settings.py", "python")
    shadowing = extract_blob(b"def run(load=None):\n    return load()\n", "pkg/run.py", "python")
    calling = extract_blob(b"def run(x):\n    return load(x)\n", "pkg/call.py", "python")
    facts = {"pkg/settings.py": definer, "pkg/run.py": shadowing, "pkg/call.py": calling}
    files = [_entry(p, "python") for p in facts]
    weights = rank_weights(files, facts, [])
    assert "pkg/run.py" not in weights  # its parameter and the parameter's use: no arc
    assert set(weights["pkg/call.py"]) == {"pkg/settings.py"}  # a use of the module-level name does
