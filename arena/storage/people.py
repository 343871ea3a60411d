"""People and their bots, as part of the storage interface (`PeopleStorage`, a base of
`arena.storage.Storage`).

A person has an account of their own (a name and an argon2 password hash: the hashing
is the caller's, `arena.passwords`, so no slow work runs in the database's thread),
sessions (random tokens, stored as SHA-256 like the bots' tokens) and bots: a bot
account whose ``owner`` is the person. A person's bot has versions (1, 2, ...): a game
records the version that played it (``game_players.version``), so every version's games
and rating history are kept. A new version keeps the bot's rating with its uncertainty
widened (`arena.storage.ratings.widened_sigma`). The limits (bots per person, versions
a day) are checked in the transaction that would break them, and refused with
`AccountLimit`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["DAY", "AccountLimit", "BotVersion", "OwnedBot", "PeopleStorage", "Person",
           "version_of"]

DAY = 86_400.0
"""The window of the versions-a-day limit: the last 24 hours, not the calendar day."""


class AccountLimit(ValueError):
    """A person's limit is reached (bots, versions a day): the message says which;
    `code` and `params` too, for a page's words (`arena.errors.ArenaError`'s)."""

    def __init__(self, message: str, code: str, **params: str | int) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


@dataclass(frozen=True)
class Person:
    """A person's account (never their password hash: `PeopleStorage.password_hash`)."""

    name: str
    created: float
    bots: int
    """Their bots that are not revoked."""
    operator: bool = False
    """Whether they may read the operators' page (`arena users add NAME --operator`)."""


@dataclass(frozen=True)
class OwnedBot:
    """A bot of a person's."""

    name: str
    created: float
    revoked: bool
    version: int
    """Its current version: the one its next games record."""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "created": self.created, "revoked": self.revoked,
                "version": self.version}


@dataclass(frozen=True)
class BotVersion:
    """One version of a person's bot, with what it played."""

    bot: str
    version: int
    note: str
    created: float
    games: int
    """Games this version played (started), rated or not."""
    rating: float | None
    """The conservative rating after its last rated game (None before its first)."""
    rated_games: int
    history: tuple[tuple[float, float], ...] = ()
    """``(finished, conservative rating after)`` of each of its rated games, in order."""

    def to_json(self) -> dict[str, Any]:
        return {"bot": self.bot, "version": self.version, "note": self.note,
                "created": self.created, "games": self.games, "rated_games": self.rated_games,
                "rating": None if self.rating is None else round(self.rating, 3),
                "history": [[finished, round(rating, 3)] for finished, rating in self.history]}


def version_of(bot: str, version: int, note: str, created: float, games: int,
               history: list[tuple[float, float]]) -> BotVersion:
    """A `BotVersion` from its row, its games and its rating history (both backends')."""
    return BotVersion(bot, version, note, created, games, history[-1][1] if history else None,
                      len(history), tuple(history))


class PeopleStorage(ABC):
    """The people's part of `arena.storage.Storage` (module docstring)."""

    # -- people ------------------------------------------------------------------------

    @abstractmethod
    async def add_person(self, name: str, password_hash: str, *,
                         invite: str | None = None, operator: bool = False) -> None:
        """Create a person's account (an operator's with `operator`). With `invite`, the
        invite code is used up in the same transaction (and the account is not made if it
        is unknown, used or expired).

        Raises:
            InvalidName: the name is outside the character set (`arena.names`).
            ValueError: a person of that name exists, or the invite is not valid.
        """

    @abstractmethod
    async def password_hash(self, name: str) -> str | None:
        """The person's password hash; None if there is no such person."""

    @abstractmethod
    async def set_password_hash(self, name: str, password_hash: str) -> bool:
        """Replace a person's password hash (and end their sessions); False if no such
        person."""

    @abstractmethod
    async def people(self) -> list[Person]:
        """Every person, by name."""

    @abstractmethod
    async def set_operator(self, name: str, operator: bool) -> bool:
        """Make a person an operator or not; False if there is no such person."""

    @abstractmethod
    async def is_operator(self, name: str) -> bool:
        """Whether `name` is a person who is an operator (False for nobody)."""

    @abstractmethod
    async def remove_person(self, name: str) -> bool:
        """Delete a person and their sessions; their bots are revoked and no longer
        theirs (their games and ratings stay). False if there is no such person."""

    @abstractmethod
    async def add_invite(self, lifetime: float) -> str:
        """A new invite code, valid for `lifetime` seconds and one sign-up (shown once,
        stored hashed)."""

    # -- sessions ------------------------------------------------------------------------

    @abstractmethod
    async def open_session(self, person: str, lifetime: float, *, keep: int = 10) -> str:
        """A new session token of `person` that expires after `lifetime` seconds; their
        sessions beyond the newest `keep` end (the oldest first)."""

    @abstractmethod
    async def session_person(self, token: str) -> str | None:
        """The person whose unexpired session `token` is, if any."""

    @abstractmethod
    async def close_session(self, token: str) -> None:
        """Forget the session `token` (signing out); a no-op for an unknown one."""

    # -- a person's bots -------------------------------------------------------------------

    @abstractmethod
    async def add_owned_bot(self, owner: str, name: str, *, max_bots: int) -> str:
        """Create bot account `name` (version 1) for `owner`; return its token once.

        Raises:
            InvalidName: the name is outside the character set or reserved.
            ValueError: no such person, or an account of that name exists.
            AccountLimit: `owner` has `max_bots` bots (revoked ones do not count).
        """

    @abstractmethod
    async def owned_bots(self, owner: str) -> list[OwnedBot]:
        """The bots of `owner` (revoked ones too), by name."""

    @abstractmethod
    async def rotate_token(self, owner: str, bot: str) -> str:
        """A new token for `owner`'s bot `bot` (the old one stops working: a connected
        client is dropped within ``revocation_interval``); return it once.

        Raises:
            ValueError: `bot` is not a bot of `owner`'s, or it is revoked.
        """

    @abstractmethod
    async def add_version(self, owner: str, bot: str, note: str, *,
                          per_day: int) -> BotVersion:
        """Register the next version of `owner`'s bot `bot`: the games that start from
        now on record it, and its ratings keep their mean with the uncertainty widened
        (`arena.storage.ratings.widened_sigma`), in one transaction.

        Raises:
            ValueError: `bot` is not a bot of `owner`'s, or it is revoked.
            AccountLimit: `owner` registered `per_day` versions (of all their bots) in
                the last 24 hours.
        """

    @abstractmethod
    async def bot_versions(self, bot: str) -> list[BotVersion]:
        """The versions of `bot`, oldest first (empty for a bot that belongs to nobody)."""

    @abstractmethod
    async def versions_played(self, bot: str, game_ids: Iterable[str]) -> dict[str, int]:
        """The version of `bot` that played each of `game_ids` (games of no version
        recorded are left out)."""
