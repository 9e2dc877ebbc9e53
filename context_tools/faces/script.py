"""The `rennet` console script's entry: the signal handlers set before the CLI's imports.

Importing the CLI takes the first tenth of a second or more of a command. A SIGTERM or SIGHUP
then ended the process as it ends any (no line, status -15 or -1), and a Ctrl-C printed the
KeyboardInterrupt's traceback from inside whichever import it met. Set first, the handlers
make a signal then end the command as it does later: one line, 130, 143 or 129
(`standard_streams.interrupted`). While the CLI's modules load, the signals are held and
raised once they are loaded: one raised inside a C extension's start (msgspec's) was lost
there, and the command went on to crash (SIGSEGV) at its first decoder.
"""

from __future__ import annotations

import signal
from typing import NoReturn


def run() -> NoReturn:
    """The `rennet` console script (`context_tools.faces.cli.run` once it is imported)."""
    try:
        from context_tools.faces.standard_streams import STOPS, stop_on_signals

        stop_on_signals()
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, *STOPS})
        try:
            from context_tools.faces.cli import run as command
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)  # one that came meanwhile is raised here
        command()
    except KeyboardInterrupt as exc:  # before the CLI's own handling of it began
        from context_tools.faces.standard_streams import interrupted, stopped_by

        raise SystemExit(interrupted(stopped_by(exc))) from None
