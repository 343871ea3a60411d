"""Dice seeds: fresh secrets, their commitments (commit-reveal) and their text form.

The server draws a fresh 128-bit seed for every game, publishes a commitment to it
in ``game_start`` and reveals the seed in ``game_over``: a bot can then check that
the dice were fixed before its first move (the commitment matches the seed) and that
every roll follows from the seed (`arena validate` does both)::

    commitment = sha256("arena-seed-v1:{game_id}:{seed}")   # seed in decimal, UTF-8

A 128-bit integer fits neither msgpack nor a JavaScript number nor a SQLite INTEGER,
so the wire and the database carry a seed as its decimal string; a log carries it as
a JSON integer when that is exact in every JSON reader (below 2**53 in magnitude, as
in logs written before seeds grew) and as the decimal string otherwise.

    >>> seed_commitment("g0123456789ab", 42)
    'd7ccbb6a3a9487e50b536e8368425dedff693b0ef5e77561ab9f6c4ea556e97b'
    >>> parse_seed("340282366920938463463374607431768211455")
    340282366920938463463374607431768211455
"""

from __future__ import annotations

import hashlib
import re
import secrets
from typing import Any

__all__ = [
    "COMMITMENT_PREFIX",
    "SEED_BITS",
    "check_commitment",
    "new_seed",
    "parse_seed",
    "seed_commitment",
    "seed_to_json",
    "seed_to_text",
]

SEED_BITS = 128
"""Bits of a fresh seed: enough that nobody can guess it from the commitment."""

COMMITMENT_PREFIX = "arena-seed-v1"
"""Versions the committed text, so that a later scheme cannot be confused with this one."""

_SAFE_INTEGER = 2**53
"""JSON integers below this (in magnitude) are exact in every JSON reader."""

_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]{0,99})")
"""A seed's decimal text: no sign but '-', no leading zeros, at most 100 digits."""


def new_seed() -> int:
    """A fresh 128-bit seed from the operating system's secure generator."""
    return secrets.randbits(SEED_BITS)


def seed_to_text(seed: int) -> str:
    """The seed's decimal text, as the wire and the commitment carry it."""
    return str(seed)


def seed_to_json(seed: int | None) -> int | str | None:
    """The seed as a log stores it: a JSON integer if exact everywhere, else its text."""
    if seed is None or -_SAFE_INTEGER < seed < _SAFE_INTEGER:
        return seed
    return seed_to_text(seed)


def parse_seed(value: Any) -> int | None:
    """A seed from a log, the wire or the database: an integer or its decimal text.

    Raises:
        ValueError: anything else (a float, a bool, text that is not a decimal integer).
    """
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and _DECIMAL.fullmatch(value):
        return int(value)
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:60] + "..."
    raise ValueError(f"a seed is an integer or its decimal text, not {shown}")


def seed_commitment(game_id: str, seed: int) -> str:
    """The lowercase hex SHA-256 of ``arena-seed-v1:{game_id}:{seed}`` (UTF-8)."""
    text = f"{COMMITMENT_PREFIX}:{game_id}:{seed_to_text(seed)}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def check_commitment(game_id: str, seed: int, commitment: str) -> bool:
    """Whether `commitment` is the commitment to `seed` for the game `game_id`."""
    return secrets.compare_digest(seed_commitment(game_id, seed), commitment.lower())
