"""Tokens are bearer secrets: only their SHA-256 is ever stored or sent between processes."""

from __future__ import annotations

import hashlib
import secrets


def new_token() -> str:
    """192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_player_id() -> str:
    return secrets.token_hex(6)
