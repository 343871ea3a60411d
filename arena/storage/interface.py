"""What the arena stores, as one typed async interface: `Storage`.

Two implementations pass one shared test suite (``tests/storage``): SQLite
(`arena.storage.sqlite`, one file, the embedded default) and PostgreSQL
(`arena.storage.postgres`, a database several processes may share). `open_storage`
(`arena.storage.urls`) picks one from a ``--db`` URL. Every method is a coroutine and
returns frozen values (`BotAccount`, `GameRow`, `RatingRow`, `RunningGame`, ...), so the
server, the web, the command line and game plugins use storage without knowing which
database is behind it, and never import the server.

The storage also keeps its own health (`Storage.failure`): a failure of the database
itself (a full or read-only disk, a lost connection, a refused write) raises
`StorageFailure` and makes it unhealthy until a test write succeeds again (`probe`,
`watch`); `on_change` hears of both. A request the database refuses for what it asks (a
duplicate, a bad name) raises `ValueError` and says nothing about the health.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Collection,
    Iterable,
    Mapping,
    Sequence,
)
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, ClassVar

from arena.clock import TimeControl
from arena.errors import ArenaError
from arena.names import check_account_name
from arena.record import MatchRecord, read_jsonl
from arena.seasons import Standing
from arena.storage.people import PeopleStorage

__all__ = [
    "BUILD_STATES", "CLAIM_LIMIT", "COPIED_TABLES", "MAX_BULK_ACCOUNTS", "PENDING_ENDS_SECONDS",
    "PROBE_BYTES",
    "BotAccount", "BuildRow", "GameRow", "Lease", "PendingChallenge", "RatingRow",
    "RunningGame", "SeasonRecord",
    "Snapshot", "Storage", "StorageFailure", "StorageVersionError", "StoredGame",
    "StoredTurn", "check_bulk_names", "commit_in_task", "hash_token", "taken_error",
]

log = logging.getLogger("arena.storage")

PROBE_BYTES = 256 * 1024
"""What `Storage.check_writable` writes (and removes): more than a typical game's log."""

PENDING_ENDS_SECONDS = 86_400.0
"""Seconds a game's end is kept for a bot that has not heard it (`Storage.pending_ends`);
older ones are dropped by `Storage.purge_expired` (the bot reads the result at
``/api/games/{id}``)."""

RECOVERED = "server stopped while the game was in flight"
"""The reason `Storage.recover` records for the games it aborts."""


class StorageFailure(ArenaError):
    """The database cannot be used (a full or read-only disk, a lost connection, a
    refused write): the storage is unhealthy until a test write succeeds."""


class StorageVersionError(ArenaError):
    """A database of a later schema version than this code knows."""


MAX_BULK_ACCOUNTS = 200_000
"""Accounts `Storage.add_bots` makes in one call, at most."""


def check_bulk_names(names: Sequence[str]) -> list[str]:
    """`names` as a list, each checked (`arena.names.check_account_name`), none twice.

    Raises:
        InvalidName: a bad name. ValueError: a name twice, or too many names.
    """
    names = list(names)
    if len(names) > MAX_BULK_ACCOUNTS:
        raise ValueError(f"{len(names)} accounts at once: at most {MAX_BULK_ACCOUNTS}")
    for name in names:
        check_account_name(name)
    if len(set(names)) != len(names):
        raise ValueError("named twice: "
                         + _first_names(name for name, count in Counter(names).items()
                                        if count > 1))
    return names


def taken_error(taken: Sequence[str]) -> ValueError:
    """The error of `Storage.add_bots` for accounts that exist already."""
    return ValueError(f"{len(taken)} account(s) exist already: {_first_names(taken)} "
                      "(none was created)")


def _first_names(names: Iterable[str], shown: int = 5) -> str:
    """The first `shown` of `names` in order, and how many more (an error's words)."""
    ordered = sorted(names)
    more = f" and {len(ordered) - shown} more" if len(ordered) > shown else ""
    return ", ".join(ordered[:shown]) + more


def hash_token(token: str) -> str:
    """SHA-256 of the token: tokens are 256 random bits, so no slow hash is needed."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


# -- values ------------------------------------------------------------------------------


@dataclass(frozen=True)
class BotAccount:
    name: str
    operator: bool
    revoked: bool
    created: float
    owner: str | None = None
    """The person the bot belongs to (`arena.storage.people`), if any."""


BUILD_STATES = ("building", "ok", "failed")
"""The states of an uploaded bot's build (`BuildRow.status`)."""


@dataclass(frozen=True)
class BuildRow:
    """One upload of a hosted bot and its build (`arena.uploads`): the build itself is
    a directory named `id` under the server's hosted directory; the row keeps its
    state, why it failed and its log, which only the bot's owner (and operators) read."""

    id: str
    bot: str
    lang: str
    status: str
    """One of `BUILD_STATES`."""
    created: float
    finished: float | None = None
    sha256: str | None = None
    """Digest of the sources (`arena.sandbox.unpack.SourceTree.sha256`)."""
    detail: str | None = None
    """Why the build failed."""
    log: str | None = None
    """The build log, bounded by `arena.sandbox.spec.BuildLimits.log_bytes`."""
    speaks: str = "lines"
    """What the program speaks, as its owner said at upload
    (`arena.sandbox.manifest.SPEAKS`): ``lines`` or ``ws``."""
    detail_code: str | None = None
    """Why the build failed, as a stable code (``no-entry``, ``build-exit``...; the
    `arena.errors.ArenaError` code of the refusal) a page says in its language."""
    detail_params: dict[str, str | int] | None = None
    """The values `detail_code`'s text names."""

    def to_json(self, *, with_log: bool = False) -> dict[str, Any]:
        fields = {"id": self.id, "bot": self.bot, "lang": self.lang, "status": self.status,
                  "speaks": self.speaks, "created": self.created, "finished": self.finished,
                  "sha256": self.sha256, "detail": self.detail,
                  "detail_code": self.detail_code, "detail_params": self.detail_params or {}}
        if with_log:
            fields["log"] = self.log or ""
        return fields


@dataclass(frozen=True)
class RatingRow:
    """A bot's rating on one ladder (each ladder has its own ratings)."""

    bot: str
    game: str
    mu: float
    sigma: float
    games: int
    wins: int
    losses: int
    draws: int
    ladder: str
    """The ladder's name (a ladder the single-ladder flags define is named after its game)."""

    @property
    def conservative(self) -> float:
        """The displayed rating: mu - 3 sigma."""
        return self.mu - 3 * self.sigma

    def to_json(self) -> dict[str, Any]:
        return {
            "bot": self.bot, "game": self.game, "ladder": self.ladder, "rating": round(self.conservative, 3),
            "mu": round(self.mu, 4), "sigma": round(self.sigma, 4), "games": self.games,
            "wins": self.wins, "losses": self.losses, "draws": self.draws,
        }


@dataclass(frozen=True)
class GameRow:
    """A stored game without its log (``/api/games``). A running game's `seed` is None:
    it is revealed only once the game is over."""

    id: str
    game: str
    players: tuple[str, ...]
    seed: str | None
    """Decimal text (128-bit seeds fit no SQL integer)."""
    seed_commitment: str | None
    ladder: bool
    pair: str | None
    status: str
    """``running``, ``finished`` or ``aborted``."""
    result: str | None
    winner: int | None
    scores: tuple[float, ...] | None
    termination: str | None
    reason: str | None
    turns: int | None
    started: float
    finished: float | None
    ladder_name: str | None
    """The name of the ladder that paired it (None: not a ladder game)."""

    def to_json(self) -> dict[str, Any]:
        """The game as the HTTP API shows it."""
        return {
            "id": self.id, "game": self.game, "players": list(self.players), "seed": self.seed,
            "seed_commitment": self.seed_commitment, "ladder": self.ladder, "pair": self.pair,
            "status": self.status, "result": self.result, "winner": self.winner,
            "scores": None if self.scores is None else list(self.scores),
            "termination": self.termination, "reason": self.reason, "turns": self.turns,
            "started": self.started, "finished": self.finished, "ladder_name": self.ladder_name,
        }


@dataclass(frozen=True)
class StoredGame(GameRow):
    """One stored game with its settings and its JSON Lines log (None while it runs)."""

    settings: Mapping[str, Any]
    log: str | None

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "settings": dict(self.settings), "log": self.log}


@dataclass(frozen=True)
class StoredTurn:
    """One accepted move of a running game, stored before anybody is told of it
    (write-ahead): enough, with its `RunningGame`, to resume the game after a crash."""

    game_id: str
    index: int
    """0 for the game's first accepted move, then 1, 2, ... (the log's ``turn``)."""
    line: str
    """The turn's log line, JSON, as `arena.record` writes it (`MatchRecord.turn_json`)."""
    banks_ms: tuple[float, ...]
    """Every seat's overage bank once the turn ended, in seat order (the rest of the
    clocks follows from the moves)."""
    retries_left: int
    """The illegal moves the seat to move next may still correct in its turn."""
    ended: float
    """When the turn ended (seconds since the epoch)."""


@dataclass(frozen=True)
class RunningGame:
    """A game stored as running, with its turns so far: what a restarted server resumes
    (`Storage.running_games`). Its `seed` is the secret one."""

    id: str
    game: str
    settings: Mapping[str, Any]
    players: tuple[str, ...]
    seed: int | None
    seed_commitment: str | None
    time_control: TimeControl | None
    """None for a game started before the time control was stored (schema 3)."""
    ladder: bool
    pair: str | None
    started: float
    turns: tuple[StoredTurn, ...]

    def record(self, chance_name: str = "chance") -> MatchRecord:
        """The game so far as a record (no outcome), to replay through `arena.replay`;
        `chance_name` is the game's (`GameType.chance_name`), under which its turn lines
        hold the chance outcome.

        Raises:
            LogFormatError: a stored turn line is not a turn of the arena's log format.
        """
        header = MatchRecord(
            game=self.game, settings=self.settings, players=self.players, turns=(),
            outcome=None, seed=self.seed, id=self.id, chance_name=chance_name,
            seed_commitment=self.seed_commitment).header()
        return read_jsonl([json.dumps(header), *(turn.line for turn in self.turns)])


@dataclass(frozen=True)
class Lease:
    """Which host plays a running game, and until when (`Storage.leases`)."""

    game_id: str
    host: str | None
    """None: no host has leased the game (stored by a single process, or its host died
    before leasing it); any host may claim it."""
    until: float | None
    """When the lease ends (seconds since the epoch, by the database's clock)."""


CLAIM_LIMIT = 100
"""Games one `Storage.claim_expired` takes at most: the games of a dead host are shared
among the hosts that look, rather than all taken by the first."""

@dataclass(frozen=True)
class PendingChallenge:
    """A challenge as the host that keeps the challenges stores it
    (`arena.server.challenges`): while it waits for its answer, so that the next one to
    keep them takes it over when that host dies, and for an hour after it ended (its
    `ended` fields), so that ``GET /api/challenges/ID`` answers on the next one too
    (docs/cluster.md). Never copied."""

    id: str
    challenger: str
    opponent: str
    rated: bool
    ladder: str
    expires: float
    """When it expires unanswered (seconds since the epoch)."""
    games: int = 2
    seat: int = 0
    request_id: str | None = None
    asked: bool = False
    """Whether the opponent was sent the notice (it answers it then)."""
    keeper: str = ""
    """The host that keeps it (`Storage.take_challenges`)."""
    ended: Mapping[str, Any] | None = None
    """Once it ended, its ``challenge_status`` fields (None while pending)."""


@dataclass(frozen=True)
class SeasonRecord:
    """A season as stored once it ended: when its standings froze, and its final."""

    name: str
    ladder: str
    frozen: float
    """When the standings were frozen (seconds since the epoch)."""
    final_status: str | None
    """None (no final), ``running``, ``finished`` or ``failed``."""
    final_report: Mapping[str, Any] | None
    """The final's report (`arena.web.seasons` writes it: its ranking, the tournament's
    name, or the reason it failed)."""
    final_updated: float | None
    settings: Mapping[str, Any] | None = None
    """The season's settings when it froze (`SeasonConfig.to_json`)."""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "ladder": self.ladder, "frozen": self.frozen,
                "settings": None if self.settings is None else dict(self.settings),
                "final_status": self.final_status,
                "final_report": None if self.final_report is None else dict(self.final_report),
                "final_updated": self.final_updated}


# -- copying between databases -----------------------------------------------------------

COPIED_TABLES: Mapping[str, tuple[str, ...]] = {
    "bots": ("name", "token_hash", "created", "revoked", "operator", "house", "expires",
             "owner"),
    "games": ("id", "game", "settings", "players", "seed", "seed_commitment", "time_control",
              "ladder", "pair", "status", "result", "winner", "scores", "termination",
              "reason", "turns", "started", "finished", "log", "notes_bytes", "ladder_name"),
    "game_players": ("game_id", "seat", "bot", "version"),
    "ratings": ("bot", "game", "mu", "sigma", "games", "wins", "losses", "draws", "updated",
                "ladder"),
    "rating_updates": ("game_id", "bot", "mu_before", "sigma_before", "mu_after",
                       "sigma_after"),
    "presets": ("game", "name", "text", "created"),
    "log_bytes": ("bot", "day", "bytes"),
    "game_turns": ("game_id", "idx", "line", "clocks", "ended"),
    "people": ("name", "password_hash", "created"),
    "person_sessions": ("token_hash", "person", "created", "expires"),
    "invites": ("code_hash", "created", "expires", "used_by"),
    "bot_versions": ("bot", "version", "note", "created"),
    "bot_builds": ("id", "bot", "lang", "status", "created", "finished", "sha256", "detail",
                   "log", "speaks", "detail_code", "detail_params"),
    "hosted_stderr": ("game_id", "bot", "created", "text"),
    "seasons": ("name", "ladder", "settings", "frozen", "final_status", "final_report",
                "final_updated"),
    "season_standings": ("season", "bot", "rank", "mu", "sigma", "games", "wins", "losses",
                         "draws", "entered"),
}
"""Every table `arena db copy` copies, with its columns, as both backends read and write
them (`Snapshot.rows`, `Storage.insert_rows`): booleans as bool, times as float seconds,
JSON as its text, seeds as decimal text. Games are copied in the order they were stored
(that order breaks ties in listings). The ``probe`` table is always empty. A game's host
and lease are not copied: in the copy no host holds a game, so any may claim it."""

BOOLEAN_COLUMNS = frozenset({("bots", "operator"), ("games", "ladder"),
                             ("season_standings", "entered")})


class Snapshot(ABC):
    """A consistent view of a whole database, for copying it (`Storage.snapshot`)."""

    @abstractmethod
    async def count(self, table: str) -> int:
        """The rows of `table` (one of `COPIED_TABLES`) in this view."""

    @abstractmethod
    def rows(self, table: str, batch: int) -> AsyncIterator[list[tuple[Any, ...]]]:
        """The rows of `table`, `batch` at a time, with the columns of `COPIED_TABLES`."""


# -- the interface -----------------------------------------------------------------------


_COMMITTING: set[asyncio.Task[None]] = set()
"""The tasks of `commit_in_task` in progress (the loop keeps only weak references)."""


def commit_in_task(append_turns: Callable[[Sequence[StoredTurn]], Awaitable[None]],
                   take: Callable[[], Sequence[StoredTurn]],
                   done: Callable[[BaseException | None], None]) -> None:
    """`Storage.commit_turns_soon` by a task: it begins on the loop's next turn, takes
    the turns then, awaits `append_turns` and calls `done`."""

    told = False

    def tell(error: BaseException | None) -> None:
        nonlocal told
        told = True
        done(error)

    async def committing() -> None:
        try:
            await append_turns(take())
        except BaseException as error:
            tell(error)
            if not isinstance(error, Exception):
                raise
        else:
            tell(None)

    def finished(task: asyncio.Task[None]) -> None:
        _COMMITTING.discard(task)
        if not told:  # cancelled before it began (the server closes)
            done(asyncio.CancelledError())

    task = asyncio.get_running_loop().create_task(committing(), name="write-ahead")
    _COMMITTING.add(task)
    task.add_done_callback(finished)


class Storage(PeopleStorage):
    """The arena's database: accounts (people's too: `PeopleStorage`), games with their logs and their write-ahead
    turns, ratings, presets saved from the web (module docstring).

    An implementation turns a failure of the database itself into `StorageFailure`
    by `_failed`, which marks the storage unhealthy; the health-keeping here is the
    same for every backend.
    """

    kind: ClassVar[str]
    """``sqlite`` or ``postgresql``."""
    write_concurrency: ClassVar[int] = 1
    """Commits of moves worth having in flight at once (`commit_turns_soon`, from the
    server's write-ahead)."""

    def __init__(self, description: str) -> None:
        self.description = description
        """Where the database is, for people (a PostgreSQL URL without its password)."""
        self.on_change: Callable[[str | None], None] | None = None
        """Called with the reason when the storage fails, with None when it works again."""
        self.failure: str | None = None
        """Why the database cannot be used, or None while it is healthy."""
        self._healthy = asyncio.Event()
        self._healthy.set()

    # -- health ----------------------------------------------------------------------

    def _failed(self, error: BaseException) -> StorageFailure:
        """`error` is a failure of the database itself: mark the storage unhealthy and
        return the `StorageFailure` to raise."""
        reason = f"{type(error).__name__}: {error}"
        self.fail(reason)
        return StorageFailure(f"the database cannot be used ({reason})")

    def fail(self, reason: str) -> None:
        """Mark the storage unhealthy (a no-op if it already is)."""
        if self.failure is not None:
            return
        self.failure = reason
        self._healthy.clear()
        log.error("storage failure: %s; no new games start until it is fixed", reason)
        if self.on_change is not None:
            self.on_change(reason)

    async def wait_healthy(self) -> None:
        """Return once the storage works (at once unless a failure was seen)."""
        await self._healthy.wait()

    async def probe(self) -> bool:
        """Try a test write; on success the storage is healthy again. Whether it is."""
        try:
            await self.check_writable()
        except StorageFailure:
            return False
        if self.failure is not None:
            log.warning("storage works again (it failed with: %s)", self.failure)
            self.failure = None
            self._healthy.set()
            if self.on_change is not None:
                self.on_change(None)
        return True

    async def watch(self, interval: float) -> None:
        """Probe every `interval` seconds while unhealthy (run as a task; cancel to stop)."""
        while True:
            await asyncio.sleep(interval)
            if self.failure is not None:
                with contextlib.suppress(StorageFailure):
                    await self.probe()

    # -- lifecycle -------------------------------------------------------------------

    @abstractmethod
    async def close(self) -> None:
        """Close the database (the storage is unusable afterwards)."""

    @abstractmethod
    async def schema_version(self) -> int:
        """The version of the database's schema (its backend's own numbering)."""

    @abstractmethod
    async def check_writable(self) -> None:
        """Write and remove `PROBE_BYTES` in a committed transaction; raise
        `StorageFailure` if the database cannot take it."""

    # -- accounts --------------------------------------------------------------------

    @abstractmethod
    async def add_bot(self, name: str, *, operator: bool = False, replace: bool = False) -> str:
        """Create an account, or give an existing one a new token (the old token stops
        working; with `replace` False that is an error); return the token once.

        Raises:
            InvalidName: the name is outside the character set or under a reserved
                prefix (`arena.names`).
            ValueError: the account exists, `replace` is False and it is not revoked.
        """

    @abstractmethod
    async def add_bots(self, names: Sequence[str], *, operator: bool = False) -> dict[str, str]:
        """Create many accounts at once, in one transaction (all or none): each name's
        token, returned once, stored hashed as `add_bot` stores it (SHA-256: a bulk of
        50,000 takes a second or two, not the minutes of one `add_bot` each). A revoked
        account is given a new token, as by `add_bot`; at most `MAX_BULK_ACCOUNTS`.

        Raises:
            InvalidName: a name outside the character set or under a reserved prefix
                (none is created).
            ValueError: a name twice, an account that exists and is not revoked (none is
                created: the message names them), or more than `MAX_BULK_ACCOUNTS`.
        """

    @abstractmethod
    async def add_guest(self, lifetime: float) -> tuple[str, str]:
        """A new guest account that expires after `lifetime` seconds: (name, token)."""

    @abstractmethod
    async def revoke_bot(self, name: str) -> bool:
        """Revoke `name`'s token (a running server drops the bot within
        ``revocation_interval``; `add_bot` may give the account a new token).

        Returns:
            False if there is no such account or it is revoked already.
        """

    @abstractmethod
    async def token_hashes(self, names: Iterable[str]) -> dict[str, str]:
        """The current token hash of each named account that is not revoked or expired."""

    @abstractmethod
    async def authenticate(self, token: str) -> BotAccount | None:
        """The account holding `token` (with its owner), unless it is revoked or expired."""

    @abstractmethod
    async def purge_expired(self) -> int:
        """Delete the expired (guest) accounts; return how many. Their games stay.
        Expired people's sessions and invite codes are deleted too."""

    @abstractmethod
    async def bots(self) -> list[BotAccount]:
        """Every account (revoked ones included), by name."""

    # -- games -----------------------------------------------------------------------

    @abstractmethod
    async def start_game(self, record: MatchRecord, *, ladder: bool, pair: str | None,
                         time_control: TimeControl | None = None,
                         ladder_name: str | None = None, host: str | None = None,
                         lease: float = 0.0) -> None:
        """Store a game as running before its first move (its seed kept secret until
        `finish_game`), with what a restart needs to resume it (`running_games`).

        Args:
            record: the game as it starts (id, game, settings, players, seed, commitment).
            ladder: whether a ladder paired it (rated when it ends, if the ladder is).
            pair: the id shared by a ladder pairing's two games, if any.
            time_control: the game's clocks.
            ladder_name: the ladder that paired it, whose ratings it changes (default:
                the ladder named after the game, for a ladder game).
            host, lease: store it leased to `host` for `lease` seconds (a cluster's host
                starting a game: no other host can claim it between its insertion and
                its lease); None: nobody holds it (`lease_game`).

        Raises:
            ValueError: a game of that id is stored already.
        """

    @abstractmethod
    async def append_turns(self, turns: Sequence[StoredTurn]) -> None:
        """Store accepted moves of running games, of one game or several, in one
        transaction (the server gathers the moves accepted meanwhile and commits them
        together before telling anybody of them).

        Committed when it returns, for every process using the database: a crash or
        ``kill -9`` of the server loses none. Unlike results, the commit does not wait
        for the disk (SQLite ``synchronous=NORMAL``, PostgreSQL ``synchronous_commit``
        off): a power loss of the database's machine may lose the last moves; the next
        synced commit (a result) takes them along.

        Raises:
            ValueError: a turn of that game and index is stored already.
        """

    def commit_turns_soon(self, take: Callable[[], Sequence[StoredTurn]],
                          done: Callable[[BaseException | None], None]) -> None:
        """`append_turns` for the server's write-ahead, as a group commit: on the event
        loop's next turn, store the turns `take()` returns then (every move accepted
        until then), and call `done` on the loop once they are committed (None) or not
        (what `append_turns` raised; `asyncio.CancelledError` if the server closes
        first). A callback, not an awaitable: each turn of the loop a move waits for
        is one more loop's worth of other connections' work on its round trip. Here it
        runs in a task; SQLite's calls back from its thread directly."""
        commit_in_task(self.append_turns, take, done)

    @abstractmethod
    async def running_games(self, ids: Collection[str] | None = None) -> list[RunningGame]:
        """Every game stored as running (of `ids` only, if given: the games a host took
        over), with its stored turns in order, oldest first."""

    @abstractmethod
    async def finish_game(self, record: MatchRecord, *, rated: bool = False,
                          log: str | None = None,
                          pending: Collection[str] = ()) -> list[RatingRow]:
        """Store the result, the log and (if `rated`) the rating changes in one
        transaction, and drop the game's write-ahead turns in it.

        `pending` names the players whose hearing of the end is followed (a cluster's
        host): the game's end is kept for each of them (`pending_ends`), in the same
        transaction, until `drop_pending_ends` says they heard it.

        `log` is the record as JSON Lines, if the caller has it already. The bytes of
        each bot's debug lines (`MatchRecord.notes`) are added to its total of the day
        (`log_bytes`). The ratings before the game are read inside the transaction, so
        games of one bot that end at the same time are rated one after the other, each
        from the other's result. The ratings are those of the game's ladder (the
        `ladder_name` it was started with). Returns the new ratings.
        """

    @abstractmethod
    async def ladder_pairings(self, since: float,
                              ladder: str | None = None) -> list[tuple[float, str, str]]:
        """The ladder pairings started at `since` or later (seconds since the epoch), as
        ``(started, a, b)``: each pair of games once, when its first game started; of
        the ladder named `ladder` only, or of every ladder (rated or not)."""

    @abstractmethod
    async def recover(self, detail: str = RECOVERED) -> list[str]:
        """Mark the games left running as aborted (with a log); return their ids."""

    @abstractmethod
    async def games(self, *, bot: str | None = None, game: str | None = None,
                    status: str | None = None, limit: int = 50,
                    before: float | None = None, ladder: str | None = None) -> list[GameRow]:
        """Stored games, newest first, without their logs (``/api/games``).

        Args:
            bot: only games this account played.
            game: only games of this game.
            ladder: only games the ladder of this name paired.
            status: only ``running``, ``finished`` or ``aborted`` games.
            limit: at most this many.
            before: only games started before this time (seconds since the epoch), for
                paging.
        """

    @abstractmethod
    async def game(self, game_id: str) -> StoredGame | None:
        """One stored game with its settings and log; None if there is no such game."""

    # -- the bots' debug lines ---------------------------------------------------------

    @abstractmethod
    async def log_bytes(self, bot: str, day: int) -> int:
        """The bytes of `bot`'s debug lines stored on `day` (UTC days since the epoch:
        `arena.bot_logs.utc_day`), in the games that ended that day."""

    @abstractmethod
    async def drop_old_notes(self, before: float, limit: int = 100) -> int:
        """Drop the debug lines from the logs of up to `limit` games that ended before
        `before` (seconds since the epoch), oldest first, in one transaction; return how
        many logs were looked at (fewer than `limit`: none is left). Moves, result and
        the rest of each log stay as they were (`arena.record.without_notes`). Also
        forgets the daily debug-line totals of the days before `before`'s."""

    # -- ratings ---------------------------------------------------------------------

    @abstractmethod
    async def rating(self, bot: str, ladder: str) -> RatingRow | None:
        """`bot`'s rating on the ladder `ladder`; None before its first rated game there."""

    @abstractmethod
    async def leaderboard(self, ladder: str | None = None) -> list[RatingRow]:
        """The ratings (on `ladder`, or on every ladder), best conservative rating first."""

    @abstractmethod
    async def rating_history(self, ladder: str | None = None) -> dict[str, list[list[float]]]:
        """Per bot, ``[finished, conservative rating after]`` for each rated game (of
        `ladder`, or of every ladder), in order."""

    # -- seasons (arena.seasons) -----------------------------------------------------

    @abstractmethod
    async def freeze_season(self, name: str, ladder: str, standings: Sequence[Standing],
                            at: float, settings: Mapping[str, Any] | None = None) -> bool:
        """Store a season's frozen standings and its `settings` (`SeasonConfig.to_json`),
        once: in one transaction, unless the season is stored already (then nothing
        changes). Whether they were stored now."""

    @abstractmethod
    async def seasons(self) -> list[SeasonRecord]:
        """Every stored (ended) season, the latest frozen first."""

    @abstractmethod
    async def season(self, name: str) -> SeasonRecord | None:
        """The stored season `name`; None before it ended."""

    @abstractmethod
    async def season_standings(self, name: str) -> list[Standing]:
        """A stored season's standings: its entrants by rank, then the others by rating."""

    @abstractmethod
    async def claim_season_final(self, name: str, at: float, stale_before: float) -> bool:
        """Mark a stored season's final ``running`` (at `at`) for the caller to play, if
        nobody plays it: it has no state yet, or it was marked running before
        `stale_before` (its player died: a final runs for a bounded time). Whether the
        caller got it (one of several servers sharing the database does)."""

    @abstractmethod
    async def set_season_final(self, name: str, status: str,
                               report: Mapping[str, Any] | None, at: float) -> None:
        """Record the state of a stored season's final (`SeasonRecord.final_status`).

        Raises:
            ValueError: no season `name` is stored.
        """

    # -- settings presets (saved from the web interface, per game) --------------------

    @abstractmethod
    async def save_preset(self, game: str, name: str, text: str) -> None:
        """Save (or replace) preset `name` of `game`: a text its plugin reads (the
        substitution game: a grammar)."""

    @abstractmethod
    async def presets(self, game: str) -> list[tuple[str, str]]:
        """The saved presets of `game`, as (name, text), by name."""

    @abstractmethod
    async def preset_count(self) -> int:
        """How many presets are saved, of every game (the web's budget counts them all)."""

    @abstractmethod
    async def preset(self, game: str, name: str) -> str | None:
        """The text of preset `name` of `game`; None if none is saved."""

    @abstractmethod
    async def delete_preset(self, game: str, name: str) -> bool:
        """Forget a saved preset; False if there was none of that name."""

    # -- game ends not heard yet (arena.cluster, docs/cluster.md) -----------------------

    @abstractmethod
    async def pending_ends(self, bots: Collection[str], *, before: float | None = None,
                           limit: int = 1000) -> list[tuple[str, GameRow]]:
        """The games over whose end these bots have not been known to hear yet (kept by
        `finish_game`'s `pending`), as ``(bot, game)`` (one query: what the bot's
        ``game_over`` says), the oldest first, at most `limit`; only those kept before
        `before` (seconds since the epoch) if given."""

    @abstractmethod
    async def drop_pending_ends(self, ends: Collection[tuple[str, str]]) -> None:
        """Forget these ``(bot, game id)`` ends: the bots heard them (nothing for those
        not kept)."""

    # -- pending challenges (arena.server.challenges, on a cluster) ---------------------

    @abstractmethod
    async def put_challenge(self, challenge: PendingChallenge) -> None:
        """Store a pending challenge, or replace the row of the same id (its opponent
        was asked) while that row is pending and kept by `challenge.keeper` (otherwise
        nothing: another host took it over, or it ended)."""

    @abstractmethod
    async def end_challenge(self, challenge_id: str, keeper: str, fields: Mapping[str, Any],
                            at: float) -> bool:
        """Store that a pending challenge kept by `keeper` ended (its ``challenge_status``
        `fields`, at `at`, seconds since the epoch); False, and nothing changed, if no
        such row is pending and kept by `keeper` (another host took it over)."""

    @abstractmethod
    async def take_challenges(self, keeper: str) -> list[PendingChallenge]:
        """Make `keeper` the keeper of every pending challenge (atomically: a former
        keeper's `end_challenge` fails from then on) and return them, the soonest to
        expire first."""

    @abstractmethod
    async def pending_challenges(self) -> list[PendingChallenge]:
        """Every stored pending challenge, the soonest to expire first."""

    @abstractmethod
    async def challenge(self, challenge_id: str) -> PendingChallenge | None:
        """A stored challenge, pending or ended; None if none is stored."""

    @abstractmethod
    async def charge_challenge(self, account: str, at: float) -> None:
        """Store that `account` sent a challenge at `at` (its hourly budget)."""

    @abstractmethod
    async def challenges_charged(self, since: float) -> list[tuple[str, float]]:
        """The challenges sent since `since`, as (account, when), the oldest first."""

    @abstractmethod
    async def forget_challenges(self, before: float) -> None:
        """Forget the challenges that ended before `before` and the ones sent before it
        (`challenges_charged`): the retention of both."""

    # -- hosted bots' builds (arena.uploads) ------------------------------------------

    @abstractmethod
    async def save_build(self, build: BuildRow) -> None:
        """Store `build`, or replace the row of the same id (a build that finished)."""

    @abstractmethod
    async def build(self, build_id: str) -> BuildRow | None:
        """The build `build_id`, with its log; None if there is none."""

    @abstractmethod
    async def builds(self, bot: str | None = None, *, status: str | None = None,
                     limit: int = 50) -> list[BuildRow]:
        """Builds, newest first, without their logs: of `bot` (default: every bot's),
        in `status` (default: any)."""

    @abstractmethod
    async def save_stderr(self, game_id: str, bot: str, text: str) -> None:
        """Keep a hosted program's standard error in one game (for its owner only)."""

    @abstractmethod
    async def stderr(self, game_id: str, bot: str) -> str | None:
        """`bot`'s standard error in `game_id`; None if none was kept."""

    @abstractmethod
    async def drop_old_stderr(self, before: float) -> int:
        """Forget the standard error kept before `before` (seconds since the epoch);
        how much was dropped."""

    # -- copying (arena db copy) ------------------------------------------------------

    @abstractmethod
    def snapshot(self) -> AbstractAsyncContextManager[Snapshot]:
        """A consistent read-only view of every table of `COPIED_TABLES`."""

    @abstractmethod
    async def insert_rows(self, table: str, rows: Sequence[tuple[Any, ...]]) -> None:
        """Insert rows of `table`, with the columns of `COPIED_TABLES`, in one transaction."""

    @abstractmethod
    async def clear(self) -> None:
        """Delete every row of every table of `COPIED_TABLES`, in one transaction."""

    # -- host leases (docs/cluster.md, "Host leases") ---------------------------------
    # Each running game of a cluster is played by one host, which holds a lease on it
    # and renews it; when the lease runs out (its host died), another host claims the
    # game and resumes it from its stored moves. Times are the database's clock (one
    # clock for every host); durations are seconds. The claims are atomic: however
    # many hosts claim at once, a game has one host.

    @abstractmethod
    async def lease_game(self, game_id: str, host: str, seconds: float) -> bool:
        """Lease the running game `game_id` to `host` for `seconds`, if no other host
        holds an unexpired lease on it (a new game, or one to take over). Whether `host`
        now holds it."""

    @abstractmethod
    async def renew_leases(self, host: str, seconds: float) -> list[str]:
        """Extend every lease `host` holds on a running game to `seconds` from now;
        return those games' ids (a game missing from them was claimed by another host
        once its lease ran out: `host` must stop playing it)."""

    @abstractmethod
    async def claim_expired(self, host: str, seconds: float,
                            limit: int = CLAIM_LIMIT) -> list[str]:
        """Lease to `host`, for `seconds`, up to `limit` running games whose lease ran
        out or that no host holds, oldest first; return their ids."""

    @abstractmethod
    async def release_leases(self, host: str) -> list[str]:
        """End `host`'s leases now (a host handing its games over as it stops), so that
        other hosts claim them at once; return the games' ids."""

    @abstractmethod
    async def leases(self) -> list[Lease]:
        """The lease of every running game, oldest game first."""
