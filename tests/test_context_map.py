"""context.map's choice of a crowded file's definitions: over the per-file cap (12), what the
focus names, then what its importers name in their imports, then what their sites use most
(a distinctive name before a name many files define), each with its class, shown in file
order; a file under the cap shows every definition. From a real index."""

from __future__ import annotations

from tests.indexed import Indexed

STEPS = "".join(f"def step_{i:02}():\n    return {i}\n\n\n" for i in range(14))
FILES = {
    "lib.py": STEPS + "class Engine:\n    def start(self):\n        return 1\n\n"
                      "    def stop_all_engines(self):\n        return 2\n",
    # names step_12 and Engine in its import, and uses a method of Engine
    "a.py": "from lib import step_12, Engine\n\nstep_12()\nEngine().stop_all_engines()\n",
    # reaches step_13 twice and step_11 once through the module
    "b.py": "import lib\n\nlib.step_13()\nlib.step_13()\nlib.step_11()\n",
    # `get` is defined in many files: its many uses weigh nothing
    "c.py": "import lib\n\n" + "lib.get()\n" * 30,
    **{f"getters/g{i:02}.py": "def get():\n    return 0\n" for i in range(25)},
    "small.py": "def one():\n    return 1\n\n\nclass Two:\n    def three(self):\n        return 3\n",
}
FILES["lib.py"] += "\n\ndef get():\n    return 'lib'\n"

INDEXED = Indexed(FILES, "rennet-map-")


def _entry(path: str, **more):
    client, repo = INDEXED.asked()
    files = client.call("context.map", repo=repo, budget=65536, **more).data.files
    return next(f for f in files if f.path == path)


def test_a_crowded_file_shows_what_its_importers_want_in_file_order():
    lib = _entry("lib.py")
    assert lib.symbols == [*(f"def step_{i:02}():" for i in range(7)), "def step_11():", "def step_12():",
                           "def step_13():", "class Engine:", "  def stop_all_engines(self):"]
    assert lib.more_symbols == 18 - 12  # 14 steps, Engine and its 2 methods, get


def test_a_file_under_the_cap_shows_every_definition():
    small = _entry("small.py")
    assert small.symbols == ["def one():", "class Two:", "  def three(self):"] and small.more_symbols == 0


def test_a_definition_the_focus_names_comes_first():
    lib = _entry("lib.py", focus=["step_08"])
    assert lib.symbols == [*(f"def step_{i:02}():" for i in range(6)), "def step_08():", "def step_11():",
                           "def step_12():", "def step_13():", "class Engine:", "  def stop_all_engines(self):"]
    by_qualified = _entry("lib.py", focus=["Engine.start"])
    assert "  def start(self):" in by_qualified.symbols and "class Engine:" in by_qualified.symbols
