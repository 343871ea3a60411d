"""Server settings: time control, ladder and limits, as frozen values."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from arena.legal import DEFAULT_MAX_LEGAL
from arena.server.aids import LogLimits
from arena.web.config import WebConfig

__all__ = ["LadderConfig", "ServerConfig", "TimeControl"]


@dataclass(frozen=True)
class TimeControl:
    """Per-game time control and forfeit rules.

    A seat has `move_ms` for each move (`first_move_ms` for its first one); time beyond
    that comes out of its overage bank (`bank_ms`, kept for the whole game). A move
    that would overdraw the bank forfeits on time. `retries` illegal moves may be
    corrected per turn (0: the first illegal move forfeits). A bot whose connection
    stays down longer than `grace_ms` forfeits every game it is playing.
    """

    move_ms: int = 2000
    bank_ms: int = 10_000
    first_move_ms: int = 5000
    retries: int = 0
    grace_ms: int = 10_000

    def to_json(self) -> dict[str, int]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TimeControl:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown time control fields {sorted(unknown)} (known: {sorted(known)})")
        for key, value in data.items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"time control {key!r} must be a non-negative integer")
        return replace(cls(), **data)


@dataclass(frozen=True)
class LadderConfig:
    """Continuous matchmaking for one game and settings.

    Bots that play `game` and have fewer than `max_games` games in flight are paired
    every `interval` seconds; each pairing plays two games with the same dice seed and
    the seats swapped. `house` lists built-in bot specs that play in process; they are
    only paired with external bots unless `house_vs_house` is set.
    """

    game: str = "substitution"
    settings: Mapping[str, Any] = field(default_factory=dict)
    house: tuple[str, ...] = ()
    house_vs_house: bool = False
    interval: float = 0.5
    max_games: int = 2
    seed: int | None = None


@dataclass(frozen=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 8765
    db: str = "arena.sqlite"
    time_control: TimeControl = TimeControl()
    ladder: LadderConfig | None = None
    hello_timeout: float = 10.0
    max_frame: int = 256 * 1024
    """Largest message accepted; longer frames get an ``oversize`` error."""
    max_ws_frame: int = 4 * 1024 * 1024
    """Frames longer than this close the connection (1009)."""
    max_queue: int = 2000
    """Frames queued for a client that does not read; beyond that it is disconnected."""
    max_legal: int = DEFAULT_MAX_LEGAL
    """Longest ``legal`` list in a ``your_turn`` (the ``legal-moves`` capability)."""
    log_limits: LogLimits = field(default_factory=LogLimits)
    """Bounds on the bots' ``log`` messages (size, per turn, per game)."""
    ping_interval: float | None = 20.0
    ping_timeout: float | None = 20.0
    validate_outgoing: bool = False
    """Check the server's own messages against the schema before sending (receivers
    always validate; the SDK and the tests do)."""
    revocation_interval: float = 2.0
    """Seconds between checks that the accounts of connected clients still hold their
    tokens (`arena bots revoke` works on the database; a revoked bot is dropped within
    this time and forfeits its games)."""
    close_timeout: float = 2.0
    """Seconds to wait for a client's closing handshake (at shutdown, for example)."""
    name: str = "arena"
    web_time_control: TimeControl = TimeControl(
        move_ms=600_000, bank_ms=600_000, first_move_ms=600_000, retries=5, grace_ms=120_000)
    """Time control of the games people play in the browser against house bots."""
    guests_per_minute: int = 600
    """Guest accounts ``POST /api/guest`` issues at most per minute in all (one per game
    played in a browser); each client address has its own, smaller quota
    (`WebConfig.guests_per_client_minute`)."""
    tournaments: str | None = None
    """A directory of tournament results (``*.json`` with ``bots`` and ``table``, in it or
    one level down, with their ``logs/``) shown by the web interface."""
    web: WebConfig = field(default_factory=WebConfig)
    """The HTTP side's limits and allowed browser origins (`arena.web.config`)."""
