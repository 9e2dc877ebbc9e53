"""`rennet` run as a user runs it: a fresh process of this checkout's code (`python -m
context_tools.faces.cli`), its output and exit code. The test modules that meet the CLI as a
process start it here, each with the store, folder and output form its cases need."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cli_env(home: str | os.PathLike[str] | None = None, **extra: str) -> dict[str, str]:
    """This process's environment with this checkout first on the path, the store at `home`
    when one is named, and `extra` on top; without RENNET_DEBUG, whose tracebacks the tests
    would otherwise meet."""
    env = dict(os.environ)
    # no empty entry: it would put the folder a command runs in on the path
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.pop("RENNET_DEBUG", None)
    if home:  # None or "" names no store
        env["RENNET_HOME"] = str(home)
    env.update(extra)
    return env


def run_cli(*args: str, home: str | os.PathLike[str] | None = None, cwd: str | os.PathLike[str] = ROOT,
            env: dict[str, str] | None = None, text: bool = True, input: str | None = None,
            timeout: float = 300) -> subprocess.CompletedProcess:
    """`rennet *args` in a process of its own, run in `cwd`, with `cli_env(home)` (or `env`)."""
    return subprocess.run([sys.executable, "-m", "context_tools.faces.cli", *args], cwd=cwd,
                          env=cli_env(home) if env is None else env, capture_output=True, text=text, input=input,
                          timeout=timeout)
