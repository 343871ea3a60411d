"""The rows both backends read, made into the interface's values (`arena.storage.interface`)."""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from arena.bot_logs import note_size
from arena.clock import TimeControl
from arena.record import MatchRecord
from arena.seasons import Standing
from arena.seeds import parse_seed
from arena.storage.interface import (
    BuildRow,
    GameRow,
    PendingChallenge,
    RunningGame,
    SeasonRecord,
    StoredGame,
    StoredTurn,
)
from arena.storage.old_builds import old_detail

__all__ = ["BUILD_COLUMNS", "CHALLENGE_COLUMNS", "GAME_COLUMNS", "RATING_COLUMNS", "RUNNING_COLUMNS", "SEASON_COLUMNS",
           "STANDING_COLUMNS", "STANDING_ORDER", "build_values", "challenge_row", "clocks_json",
           "game_row",
           "notes_bytes", "pairings", "running_game", "season_record", "standing",
           "standing_values", "stored_game", "stored_ladder_name", "stored_turn"]

GAME_COLUMNS = ("id, game, players, {seed}, seed_commitment, ladder, pair, status, result, "
                "winner, scores, termination, reason, turns, started, finished, ladder_name")
"""The columns `game_row` reads, in order (``{seed}``: the backend's seed expression)."""

RUNNING_COLUMNS = ("id, game, settings, players, {seed}, seed_commitment, time_control, "
                   "ladder, pair, started")
"""The columns `running_game` reads, in order."""

RATING_COLUMNS = "bot, game, mu, sigma, games, wins, losses, draws, ladder"
"""The columns of ``ratings`` a `RatingRow` is made of, in its fields' order."""

CHALLENGE_COLUMNS = ("id, challenger, opponent, rated, ladder, expires, games, seat,"
                     " request_id, asked, keeper, ended")
"""The columns of ``pending_challenges`` `challenge_row` reads, in order."""


def challenge_row(row: Any) -> PendingChallenge:
    """A `PendingChallenge` from a row of `CHALLENGE_COLUMNS` (a tuple, an asyncpg
    record; ``ended``: JSON text)."""
    return PendingChallenge(str(row[0]), str(row[1]), str(row[2]), bool(row[3]), str(row[4]),
                            float(row[5]), int(row[6]), int(row[7]),
                            None if row[8] is None else str(row[8]), bool(row[9]), str(row[10]),
                            None if row[11] is None else json.loads(row[11]))


def stored_ladder_name(record: MatchRecord, ladder: bool, name: str | None) -> str | None:
    """The ``games.ladder_name`` of a game started with `ladder` and `name`: the name
    given, else for a ladder game the ladder named after its game, else None."""
    if name is not None:
        return name
    return record.game if ladder else None


BUILD_COLUMNS = ("id", "bot", "lang", "status", "created", "finished", "sha256", "detail",
                 "speaks", "detail_code", "detail_params", "log")
"""The columns of ``bot_builds`` (listings leave out the last, the log);
``detail_params`` is JSON text."""


def build_values(build: BuildRow) -> tuple[Any, ...]:
    """`build` as the values of `BUILD_COLUMNS`."""
    params = None if build.detail_params is None else json.dumps(build.detail_params)
    return (build.id, build.bot, build.lang, build.status, build.created, build.finished,
            build.sha256, build.detail, build.speaks, build.detail_code, params, build.log)


def build_row(values: Iterable[Any]) -> BuildRow:
    """A `BuildRow` from the columns of `BUILD_COLUMNS` (the log may be left out); a
    failed build stored before builds had codes gets the code its English says
    (`arena.storage.old_builds`)."""
    fields = dict(zip(BUILD_COLUMNS, values, strict=False))
    if fields.get("detail_params") is not None:
        fields["detail_params"] = json.loads(fields["detail_params"])
    elif fields.get("detail_code") is None and fields.get("status") == "failed":
        coded = old_detail(fields.get("detail"))
        if coded is not None:
            fields["detail_code"], fields["detail_params"] = coded
    return BuildRow(**fields)


def game_row(values: Sequence[Any]) -> GameRow:
    """A `GameRow` from the columns of `GAME_COLUMNS`. The seed is dropped while the
    game runs."""
    return GameRow(**_game_fields(values))


def stored_game(values: Sequence[Any]) -> StoredGame:
    """A `StoredGame` from the columns of `GAME_COLUMNS`, then settings and log."""
    return StoredGame(**_game_fields(values), settings=json.loads(values[17]), log=values[18])


def _game_fields(values: Sequence[Any]) -> dict[str, Any]:
    (game_id, game, players, seed, commitment, ladder, pair, status, result, winner, scores,
     termination, reason, turns, started, finished, ladder_name) = values[:17]
    return {
        "id": game_id, "game": game, "players": tuple(json.loads(players)),
        "seed": None if seed is None or status == "running" else str(seed),
        "seed_commitment": commitment, "ladder": bool(ladder), "pair": pair, "status": status,
        "result": result, "winner": winner, "scores": tuple(json.loads(scores)) if scores else None,
        "termination": termination, "reason": reason, "turns": turns, "started": started,
        "finished": finished, "ladder_name": ladder_name}


_encode = msgspec.json.Encoder().encode


def clocks_json(turn: StoredTurn) -> str:
    """The clocks of `turn` as the ``clocks`` column holds them (written for every move:
    by msgspec, or the json module for a bank that is not finite, which msgspec would
    write as null)."""
    clocks = {"banks_ms": turn.banks_ms, "retries_left": turn.retries_left}
    if math.isfinite(sum(turn.banks_ms)):
        return _encode(clocks).decode()
    return json.dumps({**clocks, "banks_ms": list(turn.banks_ms)})


def stored_turn(game_id: str, index: int, line: str, clocks: str, ended: float) -> StoredTurn:
    """A `StoredTurn` from the columns game_id, idx, line, clocks, ended."""
    values = json.loads(clocks)
    return StoredTurn(game_id, index, line, tuple(float(bank) for bank in values["banks_ms"]),
                      int(values["retries_left"]), ended)


def running_game(values: Sequence[Any], turns: Sequence[StoredTurn]) -> RunningGame:
    """A `RunningGame` from the columns id, game, settings, players, seed,
    seed_commitment, time_control, ladder, pair, started."""
    (game_id, game, settings, players, seed, commitment, control, ladder, pair,
     started) = values
    return RunningGame(
        id=game_id, game=game, settings=json.loads(settings), players=tuple(json.loads(players)),
        seed=parse_seed(seed), seed_commitment=commitment,
        time_control=None if control is None else TimeControl.from_json(json.loads(control)),
        ladder=bool(ladder), pair=pair, started=started, turns=tuple(turns))



SEASON_COLUMNS = "name, ladder, frozen, final_status, final_report, final_updated, settings"
"""The columns `season_record` reads, in order."""

STANDING_COLUMNS = "rank, bot, mu, sigma, games, wins, losses, draws, entered"
"""The columns `standing` reads (and `standing_values` gives, after the season's name)."""

STANDING_ORDER = " ORDER BY entered DESC, CASE WHEN entered THEN rank END, mu - 3 * sigma DESC, bot"
"""A season's standings in order: entrants by rank, then the others by rating."""


def season_record(values: Sequence[Any]) -> SeasonRecord:
    """A `SeasonRecord` from the columns of `SEASON_COLUMNS`."""
    name, ladder, frozen, status, report, updated, settings = values
    return SeasonRecord(name, ladder, float(frozen), status,
                        None if report is None else json.loads(report),
                        None if updated is None else float(updated),
                        None if settings is None else json.loads(settings))


def standing(values: Sequence[Any]) -> Standing:
    """A `Standing` from the columns of `STANDING_COLUMNS`."""
    rank, bot, mu, sigma, games, wins, losses, draws, entered = values
    return Standing(int(rank), str(bot), float(mu), float(sigma), int(games), int(wins),
                    int(losses), int(draws), bool(entered))


def standing_values(season: str, row: Standing) -> tuple[Any, ...]:
    """A row of ``season_standings``: the season, then `STANDING_COLUMNS`."""
    return (season, row.rank, row.bot, row.mu, row.sigma, row.games, row.wins, row.losses,
            row.draws, row.entered)


def notes_bytes(record: MatchRecord) -> Counter[str]:
    """The bytes of each player's debug lines in `record` (as the budget counts them)."""
    sizes: Counter[str] = Counter()
    for note in record.notes:
        if 0 <= note.player < len(record.players):
            sizes[record.players[note.player]] += note_size(note.text)
    return sizes


def pairings(rows: Iterable[Sequence[Any]]) -> list[tuple[float, str, str]]:
    """``(started, a, b)`` of the rows ``(first started, players)`` of ladder pairs."""
    found = []
    for started, players in rows:
        names = json.loads(players)
        if len(names) == 2:
            found.append((float(started), str(names[0]), str(names[1])))
    return found
