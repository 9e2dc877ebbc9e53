"""Signing bundles: an HMAC-SHA256 over the whole bundle with a key the verifier holds.

A signature proves the bundle came from someone holding the key and was not changed on the
way; it says nothing of whether that holder indexed honestly, so keys are given only to
writers the importer trusts (its own Dask workers, its own CI jobs).
"""

from __future__ import annotations

import hashlib
import hmac

_PREFIX = "hmac-sha256:"


def sign(data: bytes, key: bytes) -> str:
    return _PREFIX + hmac.new(key, data, hashlib.sha256).hexdigest()


def verify(data: bytes, key: bytes, signature: str) -> bool:
    """Whether `signature` is `sign(data, key)`, compared in constant time."""
    return hmac.compare_digest(sign(data, key).encode(), signature.encode())
