"""Signing artifacts with a key the receiver holds: HMAC-SHA256 over every byte, as a trailer.

    signed = sign(data, key)        data + b"RENNET-SIG hmac-sha256 <64 hex digits>\\n"
    data = verify(signed, key)      the bytes that were signed, or BadSignature

A bundle is signed this way (`rennet export --sign-key-env NAME`), and so can be anything a
batch worker makes for its driver: the driver passes the key, the worker signs what it
writes, the driver verifies before it believes it. The key comes from an environment
variable or a file the user names (`load_key`), never from the artifact.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from pathlib import Path
from typing import Mapping

from indexer.contract.errors import BadInput, RennetError

PREFIX = b"RENNET-SIG hmac-sha256 "
TRAILER_BYTES = len(PREFIX) + 64 + 1
MIN_KEY_BYTES = 16  # a shorter key is a password, not a key
MAX_KEY_BYTES = 4096


class BadSignature(RennetError):
    code = "bad_signature"


def _mac(data: bytes, key: bytes) -> bytes:
    return hmac.new(key, data, hashlib.sha256).hexdigest().encode()


def trailer(data: bytes, key: bytes) -> bytes:
    """The signature trailer of `data`: what `sign` appends."""
    return PREFIX + _mac(data, key) + b"\n"


def sign(data: bytes, key: bytes) -> bytes:
    """`data` with its signature trailer appended."""
    return data + trailer(data, key)


def split(signed: bytes) -> tuple[bytes, bytes | None]:
    """(the bytes before a signature trailer, the trailer's hex MAC), or (signed, None) when
    the bytes carry no trailer."""
    trailer = signed[-TRAILER_BYTES:]
    if len(signed) < TRAILER_BYTES or not trailer.startswith(PREFIX) or not trailer.endswith(b"\n"):
        return signed, None
    return signed[:-TRAILER_BYTES], trailer[len(PREFIX):-1]


def verify(signed: bytes, key: bytes) -> bytes:
    """The bytes `signed` carries, once their trailer proves they were signed with `key`."""
    data, mac = split(signed)
    if mac is None:
        raise BadSignature("not signed (no signature trailer), and a signing key was given")
    if not hmac.compare_digest(mac, _mac(data, key)):
        raise BadSignature("signature does not match: tampered, or signed with another key")
    return data


def load_key(env_name: str | None = None, key_file: str | None = None,
             environ: Mapping[str, str] | None = None) -> bytes | None:
    """The signing key named by an environment variable or a key file (its bytes, one trailing
    "\n" or "\r\n" dropped), or None when neither is named. `bad_input` when both are, or when the
    key is missing, unreadable or too short."""
    if env_name and key_file:
        raise BadInput("name the signing key by an environment variable or a file, not both")
    if env_name:
        value = (os.environ if environ is None else environ).get(env_name)
        if not value:
            raise BadInput(f"environment variable {env_name} (the signing key) is not set")
        key = os.fsencode(value)  # the variable's own bytes: Python decoded them with surrogateescape
    elif key_file:
        try:
            with open(key_file, "rb") as fh:
                key = fh.read(MAX_KEY_BYTES + 1)
        except OSError as exc:
            raise BadInput(f"cannot read signing key file {Path(key_file)}: {exc.strerror}") from None
        if len(key) > MAX_KEY_BYTES:
            raise BadInput(f"signing key file {Path(key_file)} is over {MAX_KEY_BYTES} bytes")
        key = _drop_newline(key)
    else:
        return None
    if len(key) < MIN_KEY_BYTES:
        raise BadInput(f"signing key is {len(key)} bytes; use at least {MIN_KEY_BYTES} "
                       f"(e.g. `openssl rand -hex 32`)")
    return key


def _drop_newline(key: bytes) -> bytes:
    """`key` without the one line ending an editor or `echo` leaves: only one, so two keys
    that differ in the bytes the user wrote never become the same key."""
    if key.endswith(b"\r\n"):
        return key[:-2]
    return key.removesuffix(b"\n")
