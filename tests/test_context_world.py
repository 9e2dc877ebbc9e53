"""Shared fixtures of the context-tool tests: real Git repositories built with pygit2 and
indexed once per test process into a real LMDB store.

`world`: a small Python/JS web project with a base (tag v1) and a head commit, and a
`feature` branch that moves after it was indexed (stale freshness).
`big`: a large generated project whose answers overflow the ceiling.
Other test modules import the fixtures from here; the builds are cached per process.
"""

from __future__ import annotations

import atexit
import shutil
import sys
import tempfile
import textwrap
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from corpora.gitbuild import RepoBuilder
from tests.cli_runs import cli_env  # noqa: F401 - imported from here by the modules of the world

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable

BASE = {
    "pyproject.toml": textwrap.dedent('''\
        [project]
        name = "webapp"
        version = "1.0.0"
        dependencies = ["click>=8"]

        [project.scripts]
        webapp = "webapp.cli:main"
        '''),
    "src/webapp/__init__.py": "from .app import Flask\n",
    "src/webapp/app.py": textwrap.dedent('''\
        class Flask:
            def __init__(self, name):
                self.name = name

            def route(self, rule):
                return rule

            def run(self):
                return self.name


        def _private_helper():
            return 1
        '''),
    "src/webapp/cli.py": textwrap.dedent('''\
        from webapp.app import Flask


        def main():
            app = Flask("cli")
            app.route("/")
            return app.run()
        '''),
    "src/webapp/views.py": textwrap.dedent('''\
        from .app import Flask

        app = Flask("views")


        @app.route("/index")
        def index():
            return "hi"
        '''),
    "tools/other.py": textwrap.dedent('''\
        def handler(table):
            return table.route(1)
        '''),
    "web/router.js": textwrap.dedent('''\
        export function route(path) {
          return path;
        }

        export class Router {
          route(p) { return route(p); }
        }
        '''),
    "assets/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
}

HEAD = {
    "pyproject.toml": BASE["pyproject.toml"].replace('["click>=8"]', '["click>=8", "itsdangerous>=2"]'),
    "src/webapp/app.py": textwrap.dedent('''\
        class Flask:
            def __init__(self, name):
                self.name = name

            def route(self, rule, methods=None):
                return rule

            def add_url_rule(self, rule):
                return rule


        def _private_helper():
            return 1
        '''),
    "src/webapp/auth.py": textwrap.dedent('''\
        from webapp.app import Flask


        class SignedToken:
            def verify(self, zanzibar_secret):
                return zanzibar_secret
        '''),
}


@dataclass(frozen=True)
class World:
    repo: str
    store: str
    base: str  # oid of v1
    head: str  # oid of main
    feature_pinned: str  # what `feature` was indexed at
    feature_now: str  # where `feature` points now


@dataclass(frozen=True)
class Big:
    repo: str
    store: str
    base: str
    head: str


def _scratch(prefix: str) -> Path:
    path = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, path, True)
    return path


@cache
def build_world() -> World:
    from indexer import api

    root = _scratch("rennet-ctx-world-")
    builder = RepoBuilder(root / "repo")
    base = builder.commit(BASE, message="base")
    builder.tag("v1", base)
    head = builder.commit(HEAD, message="head")
    feature_pinned = builder.commit({"src/webapp/feature.py": "def feature_flag():\n    return True\n"},
                                    message="feature", branch="feature")
    builder.commit({"src/webapp/gone.py": "X = 1\n\x0c\r\nY = 2\n",
                    "src/webapp/relayed.py": "from webapp import Flask\n\nrelayed = Flask(\"relayed\")\n"},
                   message="gone", branch="gone")
    store_home = root / "store"
    store = api.open_store(store_home)
    for rev in ("v1", "main", "HEAD", "feature", "gone"):
        api.index(str(root / "repo"), rev, store=store)
    store.close()
    builder.repo.references.delete("refs/heads/gone")  # indexed, then deleted: freshness unknown
    # the branch moves after it was indexed: answers about `feature` are stale from now on
    builder.checkout(feature_pinned)
    feature_now = builder.commit({"src/webapp/feature.py": "def feature_flag():\n    return False\n"},
                                 message="feature 2", branch="feature")
    return World(str(root / "repo"), str(store_home), base, head, feature_pinned, feature_now)


def _big_module(i: int) -> str:
    funcs = "\n\n".join(
        f"def handler_{i}_{j}(request_payload, configuration_options, *, retries=3):\n"
        f"    return handle(request_payload, {j})"
        for j in range(20))
    return f"from bigpkg.core import handle\n\n\n{funcs}\n"


@cache
def build_big() -> Big:
    from indexer import api

    root = _scratch("rennet-ctx-big-")
    builder = RepoBuilder(root / "repo")
    def pyproject(deps: list[str]) -> str:
        listed = "".join(f"  \"{d}\",\n" for d in deps)
        return f"[project]\nname = \"bigpkg\"\nversion = \"0.1\"\ndependencies = [\n{listed}]\n"

    deps = [f"dep{i}>={i}.0" for i in range(40)]
    files: dict[str, str] = {
        "pyproject.toml": pyproject(deps),
        "src/bigpkg/__init__.py": "",
        "src/bigpkg/core.py": "def handle(payload, code):\n    return payload, code\n",
        "src/bigpkg/long_module.py": "".join(f"VALUE_{n} = 'line number {n} of a long module with text'\n"
                                             for n in range(1500)),
    }
    for i in range(60):
        files[f"src/bigpkg/mod_{i:03d}.py"] = _big_module(i)
    base = builder.commit(files, message="base")
    more = {f"src/bigpkg/extra_{i:03d}.py": _big_module(1000 + i) for i in range(40)}
    more["pyproject.toml"] = pyproject(deps + [f"newdep{i}>=1" for i in range(30)])
    head = builder.commit(more, message="head")
    store_home = root / "store"
    store = api.open_store(store_home)
    for rev in (base, head):
        api.index(str(root / "repo"), rev, store=store)
    store.close()
    return Big(str(root / "repo"), str(store_home), base, head)


@pytest.fixture(scope="session")
def world() -> World:
    return build_world()


@pytest.fixture(scope="session")
def big() -> Big:
    return build_big()


def test_world_is_indexed_at_every_rev(world: World) -> None:
    from context_tools.faces.context import StoreHandle
    from indexer import api

    store = StoreHandle(world.store).store
    for rev, oid in (("v1", world.base), ("main", world.head)):
        snap = api.snapshot(world.repo, rev, store=store, index_if_absent=False)
        assert snap.oid == oid
    # the pin of `feature` stays where it was indexed although the branch moved
    snap = api.snapshot(world.repo, "feature", store=store, index_if_absent=False)
    assert snap.oid == world.feature_pinned != world.feature_now
