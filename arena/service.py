"""The arena's service interface: all the web (and a game's web endpoints) may ask of the server.

The server (`arena.server.ArenaServer`) implements `ArenaService`; the web
(`arena.web`) is given one and talks to the server through it alone, never through
the server's modules (import-linter contracts in ``pyproject.toml``). The composition
root, `arena.app`, is the one place that knows both: it makes the server, gives the web
the server as its `ArenaService`, and serves both on one port, plain HTTP to the web
(an `HttpFront`), each WebSocket handshake checked by the web's `check_handshake`::

    arena.app  ──makes──▶  arena.server (ArenaServer: ArenaService)
        │  ──starts──▶  the port (arena.server.dispatch): WebSocket → server, HTTP → web
        └────────makes──▶  arena.web (WebFront: HttpFront) ──asks──▶ ArenaService

Everything here is an interface or a plain value both sides share: the service's
errors (`StorageUnavailable`, `PlayerUnavailable`), what the web may read and write of
the stored data (`Records`, which `arena.storage.Storage` satisfies), what it may read
of a live game (`LiveView`, which the server's `LiveGame` satisfies), and the HTTP
side's own interface to the server (`HttpFront`, `Handshake`). It imports neither the
server nor the web.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from arena.errors import ArenaError

if TYPE_CHECKING:
    from pathlib import Path

    from websockets.asyncio.server import ServerConnection
    from websockets.http11 import Request, Response

    from arena.clock import Clock, TimeControl
    from arena.config import ServerConfig
    from arena.counters import Counters
    from arena.game import Game
    from arena.match import Match
    from arena.record import MatchRecord
    from arena.registry import Registry
    from arena.sandbox.spec import UploadLimits
    from arena.seasons import Standing
    from arena.storage.interface import (
        BotAccount,
        BuildRow,
        GameRow,
        RatingRow,
        SeasonRecord,
        StoredGame,
    )
    from arena.storage.people import BotVersion, OwnedBot, Person

__all__ = [
    "ArenaService",
    "Builds",
    "ChallengeError",
    "Handshake",
    "HttpFront",
    "LiveView",
    "PlayerUnavailable",
    "Records",
    "ServerCounts",
    "StorageUnavailable",
]


class StorageUnavailable(ArenaError):
    """The server cannot store games now (a full or read-only disk): no game starts."""


class PlayerUnavailable(ArenaError):
    """A game was requested for a bot that is not connected (or plays another game)."""


class ChallengeError(ArenaError):
    """A challenge, acceptance or refusal the server cannot act on: `code` is the
    protocol's error code (``bad-challenge``, ``challenge-limit``,
    ``unknown-challenge``, ``bad-policy``), the message says why; `params` (a ``reason``
    and the names and numbers it mentions) let a web page say it in its own language."""

    code: str

    def __init__(self, code: str, message: str, **params: str | int) -> None:
        super().__init__(message, code=code, params=params)

    @classmethod
    def relayed(cls, code: str, message: str, params: Mapping[str, str | int]) -> ChallengeError:
        """A refusal another process of the arena raised (the host that keeps the
        challenges, docs/cluster.md), as it raised it: its code one of those raised there."""
        return cls(code, message, **params)


class Records(Protocol):
    """The stored data the web reads and writes (`arena.storage.Storage`'s methods of
    the same names document them; a `StorageFailure` when the database fails)."""

    async def games(self, *, bot: str | None = None, game: str | None = None,
                    status: str | None = None, limit: int = 50,
                    before: float | None = None, ladder: str | None = None) -> list[GameRow]: ...

    async def game(self, game_id: str) -> StoredGame | None: ...

    async def leaderboard(self, ladder: str | None = None) -> list[RatingRow]:
        """The ratings of the ladder named `ladder` (each ladder has its own), or of all."""

    async def rating_history(self, ladder: str | None = None) -> dict[str, list[list[float]]]: ...

    async def bots(self) -> list[BotAccount]: ...

    async def add_guest(self, lifetime: float) -> tuple[str, str]: ...

    async def authenticate(self, token: str) -> BotAccount | None: ...

    async def presets(self, game: str) -> list[tuple[str, str]]: ...

    async def preset(self, game: str, name: str) -> str | None: ...

    async def preset_count(self) -> int: ...

    async def save_preset(self, game: str, name: str, text: str) -> None: ...

    async def delete_preset(self, game: str, name: str) -> bool: ...

    async def freeze_season(self, name: str, ladder: str, standings: Sequence[Standing],
                            at: float, settings: Mapping[str, Any] | None = None) -> bool: ...

    async def seasons(self) -> list[SeasonRecord]: ...

    async def season(self, name: str) -> SeasonRecord | None: ...

    async def season_standings(self, name: str) -> list[Standing]: ...

    async def claim_season_final(self, name: str, at: float, stale_before: float) -> bool: ...

    async def set_season_final(self, name: str, status: str,
                               report: Mapping[str, Any] | None, at: float) -> None: ...

    # People and their bots (`arena.storage.people.PeopleStorage`): the web's accounts.

    async def add_person(self, name: str, password_hash: str, *,
                         invite: str | None = None) -> None: ...

    async def password_hash(self, name: str) -> str | None: ...

    async def people(self) -> list[Person]: ...

    async def is_operator(self, name: str) -> bool: ...

    async def open_session(self, person: str, lifetime: float, *, keep: int = 10) -> str: ...

    async def session_person(self, token: str) -> str | None: ...

    async def close_session(self, token: str) -> None: ...

    async def add_owned_bot(self, owner: str, name: str, *, max_bots: int) -> str: ...

    async def owned_bots(self, owner: str) -> list[OwnedBot]: ...

    async def rotate_token(self, owner: str, bot: str) -> str: ...

    async def add_version(self, owner: str, bot: str, note: str, *,
                          per_day: int) -> BotVersion: ...

    async def bot_versions(self, bot: str) -> list[BotVersion]: ...

    async def versions_played(self, bot: str, game_ids: Iterable[str]) -> dict[str, int]: ...

    async def build(self, build_id: str) -> BuildRow | None: ...

    async def builds(self, bot: str | None = None, *, status: str | None = None,
                     limit: int = 50) -> list[BuildRow]: ...

    async def stderr(self, game_id: str, bot: str) -> str | None: ...


class Builds(Protocol):
    """The uploads and builds of hosted bots, as the web starts and reads them
    (`arena.uploads.Uploads` documents each member; its errors, `UploadError` and
    `BuildQueueFull`, are neutral too)."""

    @property
    def upload_limits(self) -> UploadLimits: ...

    @property
    def incoming(self) -> Path:
        """Where an upload being received is written."""

    async def check(self, bot: str, lang: str, speaks: str = "lines") -> None: ...

    async def start(self, bot: str, source: str | os.PathLike[str], lang: str, *,
                    remove_source: bool = False, speaks: str = "lines") -> BuildRow: ...

    async def current(self, bot: str) -> tuple[BuildRow, Path] | None: ...


class LiveView(Protocol):
    """What the web reads of a game in progress (the server's `LiveGame`). Read only:
    the web changes a game only through the protocol, as every client does."""

    @property
    def id(self) -> str: ...

    @property
    def game(self) -> Game[Any, Any]: ...

    @property
    def match(self) -> Match:
        """The position, the turns so far and the seat to act."""

    @property
    def players(self) -> tuple[str, ...]: ...

    @property
    def turn(self) -> int: ...

    @property
    def clocks(self) -> list[Clock]: ...

    @property
    def deadline(self) -> float:
        """When the mover's allowance and bank run out, on the event loop's clock."""

    @property
    def started(self) -> bool: ...

    @property
    def over(self) -> bool: ...

    @property
    def record(self) -> MatchRecord | None:
        """The stored record, once the game is over and stored."""

    def seats_of(self, name: str) -> list[int]: ...

    def state_message(self) -> dict[str, Any]:
        """The game as a spectator's ``game_state`` message carries it."""


class ArenaService(Protocol):
    """What the web may ask of the arena: its settings and plugins, the stored data,
    the live games, and starting one. `arena.server.ArenaServer` implements it; every
    member is valid from the server's `start` to its `close`."""

    @property
    def config(self) -> ServerConfig:
        """The arena's settings (`arena.config`), the web's own in ``config.web``."""

    @property
    def registry(self) -> Registry:
        """The games, bots and hooks of the installed plugins."""

    @property
    def records(self) -> Records:
        """The stored games, ratings, accounts, presets, seasons, and people with their
        bots."""

    @property
    def counters(self) -> Counters:
        """The budgets' counters, shared by the arena's processes (`arena.counters`)."""

    def health(self) -> dict[str, Any]:
        """The server's health (``/healthz``): ``status`` is ``ok``, ``closing`` or
        ``unhealthy`` (with a ``reason``)."""

    async def live_game(self, game_id: str) -> LiveView | None:
        """The game `game_id` if it is being played now, once every move it accepted is
        stored: nothing shown from it is a move a restart could lose. Read it before
        the next await."""

    def live_games_of(self, player: str) -> Collection[str]:
        """The ids of the live games `player` plays in."""

    def connected(self, name: str) -> bool:
        """Whether a client is logged in as `name` now."""

    def start_game(self, game_name: str, settings: Mapping[str, Any], players: Sequence[str],
                   *, seed: int | None = None,
                   time_control: TimeControl | None = None,
                   pair: str | None = None) -> LiveView:
        """Start a game between connected bots and/or ``house:SPEC`` players (the
        server's `ArenaServer.start_game` documents it); `pair` is stored with it (a
        season final's games: ``final:SEASON:F-S-I``).

        Raises:
            PlayerUnavailable: a named bot is not connected.
            StorageUnavailable: the database cannot store games now.
            SettingsError, BotSpecError: bad settings (or beyond the limits) or a bad
                house bot spec.
        """

    def game_task(self, live: LiveView) -> asyncio.Task[MatchRecord]:
        """The task that plays `live` (just started) to its end and returns its stored
        record."""

    async def launch_game(self, game_name: str, settings: Mapping[str, Any],
                          players: Sequence[str], *, time_control: TimeControl | None = None,
                          pair: str | None = None) -> tuple[str, tuple[str, ...]]:
        """Start a game as `start_game` does, wherever the arena plays its games: here,
        or, on a gateway, on a host over the bus (docs/cluster.md): its id and players.
        Every game the web starts comes this way (a browser's guest against a house bot
        on the web's time control, a match between house bots, a season final's game).
        Follow it with `game_over`.

        Raises:
            what `start_game` raises (`StorageUnavailable` also when no host answers).
        """

    async def game_over(self, game_id: str) -> MatchRecord | None:
        """Return once the game `game_id` (started by `launch_game`) is over: its record
        if this process played it to its end (what `game_task` returns, raising what it
        raises), None if another did (a gateway's game, played by a host, or one taken
        over by another host: its stored row says how it ended)."""

    async def challenge(self, challenger: str, opponent: str, *, seat: int | None,
                        ladder: str | None = None, rated: bool = False) -> dict[str, Any]:
        """A challenge from the web to `opponent` on the settings of the ladder named
        `ladder` (None: the server's first ladder; `arena.server.challenges`): its
        ``challenge_status`` fields. A browser's guest plays one game in `seat`; a
        person's own bot (`seat` None) plays the pairing's two games, seats swapped,
        rated or not, exactly as its own ``challenge`` message would.

        Raises:
            ChallengeError: over a budget, or a challenge the server cannot play
                (``unknown-ladder``: no ladder of that name).
        """

    async def challenge_status(self, challenge_id: str) -> dict[str, Any] | None:
        """Where a challenge stands (its ``challenge_status`` fields); None for an
        unknown one (or one long over)."""

    def counts(self) -> ServerCounts:
        """What the server counts anyway, for ``/metrics``."""

    @property
    def uploads(self) -> Builds | None:
        """The hosted bots' uploads and builds (`ServerConfig.hosted`); None: this
        server hosts no bots."""


@dataclass(frozen=True)
class ServerCounts:
    """The server's own figures, read when ``/metrics`` is scraped (docs/cluster.md)."""

    connected_bots: int
    """Bots (not browsers) connected to this process."""
    games_in_flight: int
    moves: int
    """Moves accepted since the process started (a counter)."""
    games_finished: int
    house_bot_jobs: int
    """House-bot jobs given to the workers and not done (running or waiting)."""
    house_bot_workers: int
    hosted_slots_used: int = 0
    """Hosted slots held now (a cluster's host: by its games; the gateway running the
    hosted bots: by every host's, the cluster's count)."""
    hosted_slots_peak: int = 0
    """The most hosted slots held at once since the process started."""
    hosted_games_waiting: int = 0
    """Games waiting for hosted slots (the queue)."""


@dataclass(frozen=True)
class Handshake:
    """The HTTP side's verdict on a WebSocket handshake (`HttpFront.check_handshake`)."""

    refusal: Response | None = None
    """The answer that refuses it (403 from a foreign page, 421 to a foreign name)."""
    guest_token: str | None = None
    """The guest token of the browser's cookie: its ``hello`` may then omit the token."""


class HttpFront(Protocol):
    """The HTTP side served on the arena's one port (`arena.web.app.WebFront`), in
    aiohttp's order: `start`, then `protocol` for each plain HTTP connection the port's
    dispatcher hands over (`arena.server.dispatch`, started by `arena.app`), then
    `close`."""

    async def start(self) -> None: ...

    def protocol(self) -> asyncio.Protocol:
        """A request handler for one plain HTTP connection."""

    async def check_handshake(self, connection: ServerConnection,
                              request: Request) -> Handshake:
        """The browser's checks of a WebSocket handshake (host, origin, cookie); a
        bot's passes."""

    async def close(self) -> None:
        """Finish the requests in progress and stop; safe to call twice."""
