"""The first module of the forkserver's preload (`worker_start.from_forkserver`), imported
there alone: from here on the forkserver ignores a Ctrl-C.

The forkserver ignores SIGINT itself only once its preload is imported, a second or more of
work; a Ctrl-C sent to the terminal's whole group meanwhile printed its traceback beside the
host's own line. Its workers ignore it too (`start_as_child`); the host decides what stops.
"""

import signal

signal.signal(signal.SIGINT, signal.SIG_IGN)
