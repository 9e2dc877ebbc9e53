"""A raw TCP server on 127.0.0.1 for the fakes that must write bytes no HTTP server library
would (a scripted tracker, a proxy): each connection handled in a thread of its own."""

from __future__ import annotations

import socket
import threading
from typing import Callable


def serve_each(handle: Callable[[socket.socket], None]) -> socket.socket:
    """A listener on a port of its own whose every connection goes to `handle`, in a thread of
    its own, until the listener is closed."""
    listener = socket.create_server(("127.0.0.1", 0))

    def accept() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=handle, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return listener


def read_head(conn: socket.socket, heard: Callable[[bytes], None] = lambda _: None) -> bytes | None:
    """What `conn` sent up to the end of a request's head and after it, each piece told to
    `heard` as it came; None when the client closed first. OSError goes to the caller."""
    head = b""
    while b"\r\n\r\n" not in head:
        got = conn.recv(65536)
        if not got:
            return None
        heard(got)
        head += got
    return head
