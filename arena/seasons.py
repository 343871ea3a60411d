"""Seasons: a ladder's competition between two dates, its frozen standings and its final.

A season (`SeasonConfig`, the ``[[seasons]]`` tables of the configuration file, read by
`seasons_from_toml`) names a ladder, a start and an end (UTC), the entry rules a bot
must meet to be ranked, and optionally a final: the top N entrants play a round robin or
a Swiss with the tournament engine (`arena.tournament`): on paired dice when they
are all house bots, else played by the server like ladder pairings (`arena.web.finals`). Its phase is a
pure function of the time (`phase`)::

    upcoming ──start──▶ running ──end──▶ final ──report stored──▶ over
                                    └── (no final) ─────────────▶ over

At the end the ladder's ratings are frozen into the season's standings (stored, see
`arena.storage.interface.Storage.freeze_season`); what plays the final and publishes it
is the web's `arena.web.seasons.SeasonKeeper`. This module is neutral: it imports
neither the server nor the web.
"""

from __future__ import annotations

import csv
import io
import re
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import Enum
from typing import Any, Protocol

from arena.errors import ArenaError

__all__ = [
    "DEFAULT_FINAL_WAIT",
    "FINAL_FORMATS",
    "MAX_FINALISTS",
    "MAX_FINAL_WAIT",
    "FinalConfig",
    "Phase",
    "Rated",
    "SeasonConfig",
    "SeasonConfigError",
    "Standing",
    "phase",
    "rank_standings",
    "seasons_from_toml",
    "standings_csv",
]

FINAL_FORMATS = ("round-robin", "swiss")
MAX_FINALISTS = 64
"""Most bots a final may have (`FinalConfig.top`); the web's tournament limits
(`WebConfig.tournament_bots`, `tournament_games`) apply to a final too."""
MAX_FINAL_GAMES = 1000
"""Most pairs of dice per pairing (per round in a Swiss) a final may play."""
DEFAULT_FINAL_WAIT = 300.0
"""`FinalConfig.wait` unless the ``final`` table gives it."""
MAX_FINAL_WAIT = 86_400.0
"""The longest wait for an absent finalist a ``final`` table may ask (a day)."""
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""A season's name: it appears in URLs and in the final's directory name."""


class SeasonConfigError(ArenaError, ValueError):
    """A ``[[seasons]]`` table that cannot be a season: the message names the season
    (or its index) and the key."""


class Phase(Enum):
    """Where a season is (`phase`)."""

    UPCOMING = "upcoming"
    RUNNING = "running"
    FINAL = "final"
    """Ended, standings frozen (or about to be); its final is being played."""
    OVER = "over"


@dataclass(frozen=True)
class FinalConfig:
    """The final the top entrants play once the season ends (`arena.tournament`)."""

    format: str = "round-robin"
    """``round-robin`` or ``swiss``."""
    top: int = 4
    """How many entrants play (the best by frozen rating; 2 to `MAX_FINALISTS`)."""
    games: int = 2
    """Pairs of dice per pairing (per round in a Swiss): each pairing plays twice this
    many games, seats swapped on the same dice."""
    rounds: int = 0
    """Rounds of a Swiss (1 to half the finalists, rounded up); 0 for a round robin."""
    seed: int | None = None
    """The dice of a house-bot final; by default drawn from the season's name
    (reproducible). A final with connected bots plays each game on its own secret dice."""
    wait: float = DEFAULT_FINAL_WAIT
    """Seconds a final with connected bots waits for a finalist that is not connected
    when its game is due; then it forfeits that game (0 to `MAX_FINAL_WAIT`)."""


@dataclass(frozen=True)
class SeasonConfig:
    """One season of a ladder (module docstring)."""

    name: str
    ladder: str
    """The ladder's name (`LadderConfig.name`: its game's name unless the ladder names itself)."""
    start: datetime
    """When the season starts (timezone-aware, UTC)."""
    end: datetime
    """When it ends: the ratings freeze then."""
    min_games: int = 0
    """Entry rule: rated ladder games a bot must have played to be ranked."""
    min_rating: float | None = None
    """Entry rule: the least conservative rating (mu - 3 sigma) to be ranked."""
    final: FinalConfig | None = None

    def final_seed(self) -> int:
        """The final's dice seed (`FinalConfig.seed`, or one drawn from the name)."""
        if self.final is not None and self.final.seed is not None:
            return self.final.seed
        return zlib.crc32(self.name.encode("utf-8"))

    def to_json(self) -> dict[str, Any]:
        final = None
        if self.final is not None:
            final = {"format": self.final.format, "top": self.final.top,
                     "games": self.final.games, "rounds": self.final.rounds,
                     "wait": self.final.wait}
        return {"name": self.name, "ladder": self.ladder, "start": _iso(self.start),
                "end": _iso(self.end), "min_games": self.min_games,
                "min_rating": self.min_rating, "final": final}


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def phase(season: SeasonConfig, now: datetime, *, final_ended: bool = False) -> Phase:
    """The phase of `season` at `now` (timezone-aware); `final_ended`: its final's
    report (or its failure) is stored."""
    if now < season.start:
        return Phase.UPCOMING
    if now < season.end:
        return Phase.RUNNING
    if season.final is None or final_ended:
        return Phase.OVER
    return Phase.FINAL


@dataclass(frozen=True)
class Standing:
    """One bot's place in a season's frozen standings."""

    rank: int
    bot: str
    mu: float
    sigma: float
    games: int
    wins: int
    losses: int
    draws: int
    entered: bool
    """Whether it met the entry rules (only entrants are ranked; `rank` is 0 otherwise)."""

    @property
    def rating(self) -> float:
        """The conservative rating, mu - 3 sigma."""
        return self.mu - 3 * self.sigma

    def to_json(self) -> dict[str, Any]:
        return {"rank": self.rank, "bot": self.bot, "rating": round(self.rating, 3),
                "mu": round(self.mu, 4), "sigma": round(self.sigma, 4), "games": self.games,
                "wins": self.wins, "losses": self.losses, "draws": self.draws,
                "entered": self.entered}


class Rated(Protocol):
    """What `rank_standings` reads of a rating row (`arena.storage.interface.RatingRow`)."""

    @property
    def bot(self) -> str: ...

    @property
    def mu(self) -> float: ...

    @property
    def sigma(self) -> float: ...

    @property
    def games(self) -> int: ...

    @property
    def wins(self) -> int: ...

    @property
    def losses(self) -> int: ...

    @property
    def draws(self) -> int: ...


def rank_standings(season: SeasonConfig, ratings: Iterable[Rated]) -> list[Standing]:
    """The standings from the ladder's ratings: the entrants (who meet the entry rules)
    ranked 1, 2, ... by conservative rating, then the others unranked (rank 0)."""
    rows = sorted(ratings, key=lambda r: (-(r.mu - 3 * r.sigma), r.bot))
    entered = [r for r in rows if r.games >= season.min_games
               and (season.min_rating is None or r.mu - 3 * r.sigma >= season.min_rating)]
    chosen = {id(r) for r in entered}
    out = [Standing(rank, r.bot, r.mu, r.sigma, r.games, r.wins, r.losses, r.draws, True)
           for rank, r in enumerate(entered, start=1)]
    out += [Standing(0, r.bot, r.mu, r.sigma, r.games, r.wins, r.losses, r.draws, False)
            for r in rows if id(r) not in chosen]
    return out


CSV_COLUMNS = ("rank", "bot", "rating", "mu", "sigma", "games", "wins", "losses", "draws",
               "entered")


def standings_csv(standings: Sequence[Standing]) -> str:
    """The standings as CSV (a header line, then one line a bot; `CSV_COLUMNS`)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for row in standings:
        data = row.to_json()
        writer.writerow(["" if not row.entered else row.rank,
                         *(data[column] for column in CSV_COLUMNS[1:-1]),
                         "yes" if row.entered else "no"])
    return out.getvalue()


# -- the configuration file ------------------------------------------------------------

_KEYS = {"name", "ladder", "start", "end", "min_games", "min_rating", "final"}
_FINAL_KEYS = {"format", "top", "games", "rounds", "seed", "wait"}


def seasons_from_toml(tables: Sequence[Mapping[str, Any]]) -> tuple[SeasonConfig, ...]:
    """The seasons of a configuration file's ``[[seasons]]`` tables (as `tomllib`
    reads them: dates may be TOML datetimes or ISO 8601 strings; a datetime without a
    zone is UTC).

    Raises:
        SeasonConfigError: a table lacks a key, has an unknown one or a bad value, or
            two seasons share a name; the message names the season and the key.
    """
    seasons: list[SeasonConfig] = []
    for index, table in enumerate(tables):
        where = f"[[seasons]] #{index + 1}"
        if not isinstance(table, Mapping):
            raise SeasonConfigError(f"{where} is not a table")
        name = table.get("name")
        if isinstance(name, str):
            where = f"season {name!r}"
        seasons.append(_season(table, where))
    names = [s.name for s in seasons]
    for name in names:
        if names.count(name) > 1:
            raise SeasonConfigError(f"two seasons are named {name!r}: names must differ")
    return tuple(seasons)


def _season(table: Mapping[str, Any], where: str) -> SeasonConfig:
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise SeasonConfigError(f"{where}: unknown key {unknown[0]!r} (keys: "
                                f"{', '.join(sorted(_KEYS))})")
    for key in ("name", "ladder", "start", "end"):
        if key not in table:
            raise SeasonConfigError(f"{where}: the key {key!r} is missing")
    name = table["name"]
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise SeasonConfigError(f"{where}: 'name' must be 1 to 64 letters, digits, '_', '.' "
                                f"or '-' (starting with a letter or digit), not {name!r}")
    ladder = table["ladder"]
    if not isinstance(ladder, str) or not ladder:
        raise SeasonConfigError(f"{where}: 'ladder' must be a ladder's name, not {ladder!r}")
    start, end = _moment(table["start"], where, "start"), _moment(table["end"], where, "end")
    if end <= start:
        raise SeasonConfigError(f"{where}: 'end' ({_iso(end)}) must come after 'start' "
                                f"({_iso(start)})")
    min_games = _int(table.get("min_games", 0), where, "min_games", 0, 1_000_000)
    min_rating = table.get("min_rating")
    if min_rating is not None and (isinstance(min_rating, bool)
                                   or not isinstance(min_rating, int | float)):
        raise SeasonConfigError(f"{where}: 'min_rating' must be a number, not {min_rating!r}")
    final = None
    if "final" in table:
        final = _final(table["final"], f"{where}, final")
    return SeasonConfig(name, ladder, start, end, min_games,
                        None if min_rating is None else float(min_rating), final)


def _final(table: Any, where: str) -> FinalConfig:
    if not isinstance(table, Mapping):
        raise SeasonConfigError(f"{where}: 'final' must be a table "
                                "({format = \"round-robin\", top = 4, games = 2})")
    unknown = sorted(set(table) - _FINAL_KEYS)
    if unknown:
        raise SeasonConfigError(f"{where}: unknown key {unknown[0]!r} (keys: "
                                f"{', '.join(sorted(_FINAL_KEYS))})")
    form = table.get("format", "round-robin")
    if form not in FINAL_FORMATS:
        raise SeasonConfigError(f"{where}: 'format' must be one of {', '.join(FINAL_FORMATS)}, "
                                f"not {form!r}")
    top = _int(table.get("top", 4), where, "top", 2, MAX_FINALISTS)
    games = _int(table.get("games", 2), where, "games", 1, MAX_FINAL_GAMES)
    if form == "swiss":
        most = (top + 1) // 2
        rounds = _int(table.get("rounds", 1), where, "rounds", 1, most)
    else:
        if table.get("rounds", 0) != 0:
            raise SeasonConfigError(f"{where}: 'rounds' is for a Swiss (format = \"swiss\")")
        rounds = 0
    seed = table.get("seed")
    if seed is not None:
        seed = _int(seed, where, "seed", 0, 2**63 - 1)
    wait = table.get("wait", DEFAULT_FINAL_WAIT)
    if (isinstance(wait, bool) or not isinstance(wait, int | float)
            or not 0 <= wait <= MAX_FINAL_WAIT):
        raise SeasonConfigError(f"{where}: 'wait' must be a number of seconds from 0 to "
                                f"{MAX_FINAL_WAIT:g}, not {wait!r}")
    return FinalConfig(str(form), top, games, rounds, seed, float(wait))


def _int(value: Any, where: str, key: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise SeasonConfigError(f"{where}: {key!r} must be an integer from {low} to {high}, "
                                f"not {value!r}")
    return value


def _moment(value: Any, where: str, key: str) -> datetime:
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise SeasonConfigError(f"{where}: {key!r} must be an ISO 8601 date and time "
                                    f"(2026-12-01T00:00:00Z), not {value!r}") from None
    if not isinstance(value, datetime):
        raise SeasonConfigError(f"{where}: {key!r} must be a date and time "
                                f"(2026-12-01T00:00:00Z), not {value!r}")
    moment: datetime = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    return moment.astimezone(UTC)
