"""Account names: the documented character set and the prefixes the server reserves.

An account name is 1 to 40 characters: ASCII letters, digits, ``_``, ``.`` and ``-``,
starting with a letter or a digit. Two prefixes are reserved, in any letter case:
``house:`` names the built-in bots that play in the server (``house:random``), and
``guest-`` the accounts the web interface issues to visitors. Nobody can create an
account under either, so a name on the wire or in a game's players always says who
it is.

    >>> check_account_name("alice-2")
    >>> try:
    ...     check_account_name("house:random")
    ... except InvalidName as error:
    ...     print(error)
    the prefix 'house:' is reserved for the server's own accounts
"""

from __future__ import annotations

import re

from arena.errors import ArenaError

__all__ = [
    "ACCOUNT_NAME",
    "GUEST_PREFIX",
    "HOUSE_PREFIX",
    "RESERVED_PREFIXES",
    "InvalidName",
    "check_account_name",
    "is_guest",
    "is_house",
]

HOUSE_PREFIX = "house:"
"""Players named ``house:SPEC`` are built-in bots the server runs itself."""

GUEST_PREFIX = "guest-"
"""Accounts the web interface issues to visitors; they never play on the ladder."""

RESERVED_PREFIXES = (HOUSE_PREFIX, GUEST_PREFIX)

ACCOUNT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
"""The character set of account names (``arena bots add``)."""


class InvalidName(ArenaError, ValueError):
    """An account name outside the character set, or under a reserved prefix."""


def is_house(name: str) -> bool:
    return name.startswith(HOUSE_PREFIX)


def is_guest(name: str) -> bool:
    return name.startswith(GUEST_PREFIX)


def check_account_name(name: str) -> None:
    """Raise `InvalidName` unless `name` may name a new account."""
    lowered = name.lower()
    for prefix in RESERVED_PREFIXES:
        if lowered.startswith(prefix):
            raise InvalidName(f"the prefix {prefix!r} is reserved for the server's own accounts",
                              code="name-reserved", params={"prefix": prefix})
    if not ACCOUNT_NAME.fullmatch(name):
        shown = name if len(name) <= 50 else name[:50] + "..."
        raise InvalidName(
            f"invalid account name {shown!r}: 1-40 ASCII letters, digits, '_', '.' or '-', "
            "starting with a letter or a digit", code="name-invalid", params={"name": shown})
