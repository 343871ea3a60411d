"""Replays (stored, live and uploaded games) and tournament results.

Every replay runs `arena.web.replay.replay_job` in the replay workers (`Replays`), a
pool of its own, so a flood of replays never delays a house bot's move. The worker
writes the answer to a file in a temporary directory of the server's (gzipped, for a
client that takes it so: the niced worker compresses, not the server), which the server
streams to the client (`arena.web.http.send_file`) and removes: however large the
answer, the server holds a chunk of it at a time. At most `WebConfig.replay_queue`
replays run, wait or are being sent at once, more get 429.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import shutil
import tempfile
import types
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from aiohttp import web

from arena.record import to_jsonl
from arena.registry import Registry
from arena.tournament.store import iter_game_logs
from arena.validate import parse_log
from arena.web.config import WebConfig
from arena.web.http import ApiError, accepts_gzip, json_response, read_body, send_file
from arena.web.replay import ReplayAnswer, ReplayLimits, replay_job, tournament_log
from arena.web.routes import Endpoint, Param, service_of
from arena.workers import JobFailed, WorkerLimits, WorkerPool

__all__ = ["ENDPOINTS", "REPLAYS", "Replays"]

log = logging.getLogger("arena.web")


class Replays:
    """The replay workers and their queue."""

    job: Callable[..., ReplayAnswer] = staticmethod(replay_job)
    """What a worker runs: ``job(log, plugins, limits, extra, out, gzipped)``, writing the
    answer to the file `out`, gzipped or not (a module-level function, so that workers
    import it by name; tests put a slow one here)."""

    def __init__(self, config: WebConfig, registry: Registry) -> None:
        self.config = config
        self.limits = ReplayLimits(config.replay_turns, config.replay_state_bytes,
                                   config.replay_bytes)
        self.plugins = tuple(plugin.__name__ for plugin in registry.manager.get_plugins()
                             if isinstance(plugin, types.ModuleType))
        self.pool: WorkerPool | None = None
        self.directory: Path | None = None
        """Where the workers write answers (made at the first replay, removed at close)."""
        self.in_flight = 0

    async def replay(self, request: web.Request, log_text: str,
                     **extra: Any) -> web.StreamResponse:
        """The replay of `log_text` as the HTTP answer to `request` (frames, streamed, or
        an error naming the limit)."""
        if self.in_flight >= self.config.replay_queue:
            raise ApiError(429, f"{self.in_flight} replays are running, waiting or being "
                                "sent; try again in a moment", headers={"Retry-After": "2"})
        if self.pool is None:
            self.pool = WorkerPool(WorkerLimits(
                self.config.replay_workers, self.config.replay_memory_mb,
                warm=(self.job.__module__, *self.plugins)))
        if self.directory is None:
            self.directory = Path(await asyncio.to_thread(tempfile.mkdtemp,
                                                          prefix="arena-replays-"))
        out = self.directory / f"{secrets.token_hex(8)}.json"
        gzipped = accepts_gzip(request)
        self.in_flight += 1
        try:
            answer = await self._run(log_text, extra, out, gzipped)
            if answer.size is None:
                raise ApiError(400, answer.message, code=answer.code, **answer.reason)
            return await send_file(request, out, seconds=self.config.replay_send_seconds,
                                   gzipped=gzipped)
        finally:
            self.in_flight -= 1
            out.unlink(missing_ok=True)

    async def _run(self, log_text: str, extra: dict[str, Any], out: Path,
                   gzipped: bool) -> ReplayAnswer:
        assert self.pool is not None
        try:
            return await self.pool.run(self.job, log_text, self.plugins, self.limits, extra,
                                       str(out), gzipped, timeout=self.config.replay_seconds)
        except JobFailed as error:
            if error.kind in ("timeout", "memory"):
                raise ApiError(400, f"the replay {error}; replays are limited to "
                                    f"{self.config.replay_seconds:g} s and "
                                    f"{self.config.replay_memory_mb} MiB",
                               code="replay-limit", reason_code="replay-resources",
                               reason_params={"seconds": f"{self.config.replay_seconds:g}",
                                              "memory": self.config.replay_memory_mb}
                               ) from None
            log.error("a replay failed: %s", error)  # the server's fault: not the client's
            raise ApiError(500, "the replay failed (the server logged it)") from None

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)


REPLAYS: web.AppKey[Replays] = web.AppKey("arena.replays")


async def replay_game(request: web.Request) -> web.StreamResponse:
    service = service_of(request)
    replays = request.app[REPLAYS]
    game_id = request.query.get("id")
    if not game_id:
        raise ApiError(400, "missing parameter 'id' (to replay a file, POST it)")
    live = await service.live_game(game_id)
    if live is not None:  # no seed before the end
        return await replays.replay(request, to_jsonl(replace(live.match.record(), seed=None)),
                                    live=True)
    row = await service.records.game(game_id)
    if row is None:
        raise ApiError(404, f"no game {game_id!r}", code="unknown-game")
    if not row.log:
        raise ApiError(404, f"game {game_id!r} has no log", code="no-log")
    return await replays.replay(request, row.log)


async def replay_upload(request: web.Request) -> web.StreamResponse:
    replays = request.app[REPLAYS]
    body = await read_body(request, replays.config.max_upload)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ApiError(400, f"the log is not UTF-8 text (byte {error.start})",
                       code="bad-log") from None
    return await replays.replay(request, text)


async def _stored_log(request: web.Request) -> tuple[str, str]:
    """The JSON Lines log a request names, with a file name stem: a stored game
    (``id``) or a tournament's game (``t`` and ``g``)."""
    service = service_of(request)
    game_id = request.query.get("id")
    if game_id:
        row = await service.records.game(game_id)
        if row is None:
            raise ApiError(404, f"no game {game_id!r}", code="unknown-game")
        if not row.log:
            raise ApiError(404, f"game {game_id!r} has no log yet (it is still being played)",
                           code="no-log")
        return row.log, game_id
    if not request.query.get("t") or not request.query.get("g"):
        raise ApiError(400, "give 'id' (a stored game) or 't' and 'g' (a tournament's game)")
    path = await _tournament_path(request, "t")
    log = await asyncio.to_thread(tournament_log, path.parent, request.query["g"])
    if log is None:
        raise ApiError(404, f"no log of game {request.query['g']!r} in {request.query['t']!r}",
                       code="unknown-game")
    return log, f"{path.parent.name}-{request.query['g']}"


def _convert(log: str, form: str, registry: Registry) -> tuple[str, str]:
    """The log written in `form` (a game's `log_formats`), with its file suffix."""
    record = parse_log(log, registry)
    writer = registry.game_class(record.game).log_formats().get(form)
    if writer is None:
        known = ", ".join(["jsonl", *registry.game_class(record.game).log_formats()])
        raise ApiError(400, f"{record.game} logs are not written as {form!r}; formats: {known}")
    return writer(record), "log"


async def download_log(request: web.Request) -> web.Response:
    log, stem = await _stored_log(request)
    form = request.query.get("format", "jsonl")
    text, suffix = (log, "jsonl") if form == "jsonl" else await asyncio.to_thread(
        _convert, log, form, service_of(request).registry)
    response = web.Response(text=text, content_type="text/plain", charset="utf-8")
    response.headers["Content-Disposition"] = f'attachment; filename="{stem}.{suffix}"'
    response.headers["Cache-Control"] = "no-store"
    return response


def _cell_results(directory: Path, cell: str, limit: int) -> list[dict[str, Any]]:
    """Each game of a tournament's pairing ``F-S``, in order: its id, winner, scores
    and how it ended (read from its log's outcome)."""
    parts = cell.split("-")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise ApiError(400, f"cell {cell!r} is not FIRST-SECOND (bot indices, e.g. 0-1)")
    games: list[dict[str, Any]] = []
    for game_id, log in iter_game_logs(directory, (int(parts[0]), int(parts[1]))):
        last = json.loads(log.rstrip().rsplit("\n", 1)[-1])
        outcome = last if "result" in last else {"result": None}  # the outcome line
        games.append({"id": game_id, **outcome})
        if len(games) >= limit:
            break
    return games


CELL_GAMES = 500
"""Games of one pairing listed with their results."""


async def tournament_cell(request: web.Request) -> web.Response:
    path = await _tournament_path(request)
    cell = request.query.get("cell", "")
    games = await asyncio.to_thread(_cell_results, path.parent, cell, CELL_GAMES)
    games.sort(key=lambda g: int(str(g["id"]).rsplit("-", 1)[-1]))
    return json_response({"cell": cell, "games": games, "limit": CELL_GAMES})


FIRST_TOURNAMENT_GAME = "substitution"
"""The game of a tournament file without a ``game`` key: the runner wrote none before
it played other games than the first (docs/web.md, "Tournament directories")."""


def _tournament_game(data: dict[str, Any]) -> str:
    return str(data.get("game", FIRST_TOURNAMENT_GAME))


def _tournament_files(root: Path) -> dict[str, Path]:
    """Tournament JSON files (``bots`` and ``table``) in `root` and its subdirectories."""
    found: dict[str, Path] = {}
    for path in sorted(root.glob("*.json")) + sorted(root.glob("*/*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and "bots" in data and "table" in data:
            found[path.relative_to(root).as_posix()] = path
    return found


async def tournaments(request: web.Request) -> web.Response:
    root = service_of(request).config.tournaments
    if root is None:
        return json_response({"tournaments": [], "directory": None})

    def listing() -> list[dict[str, Any]]:
        items = []
        for name, path in _tournament_files(Path(root)).items():
            data = json.loads(path.read_text(encoding="utf-8"))
            items.append({"name": name, "bots": data["bots"], "games": data.get("games"),
                          "game": _tournament_game(data)})
        return items

    return json_response({"tournaments": await asyncio.to_thread(listing),
                          "directory": str(root)})


async def _tournament_path(request: web.Request, key: str = "name") -> Path:
    name = request.query.get(key)
    if not name:
        raise ApiError(400, f"missing parameter {key!r}")
    root = service_of(request).config.tournaments
    files = await asyncio.to_thread(_tournament_files, Path(root)) if root else {}
    if name not in files:
        raise ApiError(404, f"no tournament {name!r}", code="unknown-tournament")
    return files[name]


async def tournament(request: web.Request) -> web.Response:
    path = await _tournament_path(request)
    data = json.loads(await asyncio.to_thread(path.read_text, encoding="utf-8"))
    data["game"] = _tournament_game(data)
    data["logs"] = (path.parent / "logs").is_dir()
    return json_response(data)


async def tournament_game(request: web.Request) -> web.StreamResponse:
    path = await _tournament_path(request)
    game_id = request.query.get("id", "")
    log = await asyncio.to_thread(tournament_log, path.parent, game_id)
    if log is None:
        raise ApiError(404, f"no log of game {game_id!r} in {request.query['name']!r}",
                       code="unknown-game")
    return await request.app[REPLAYS].replay(request, log)


_REPLAY = ("the header (game, settings, players, seed, outcome: the result the log "
           "claims) and frames ({index, player, chance, move, state, render}), error (the "
           "referee's verdict on a move it rejects), error_turn (that move's number, as the "
           "frames count), error_code, error_seat, error_move (the verdict's code, the "
           "seat of that turn, the move rejected or null)")
_LIMITS = "a log of more turns, or a replay larger, than the replay limits (code replay-limit)"

ENDPOINTS = (
    Endpoint("GET", "/api/replay", replay_game, "Replay a stored or live game", "replays",
             params=(Param("id", "the game id", required=True),),
             answers={200: _REPLAY + "; a live game has live: true and no seed",
                      400: _LIMITS, 404: "no such game", 429: "the replay workers are busy"}),
    Endpoint("POST", "/api/replay", replay_upload, "Replay an uploaded log file", "replays",
             upload="text/plain",
             answers={200: _REPLAY, 400: "a log that does not parse (code bad-log); " + _LIMITS,
                      413: "a log larger than the upload limit (4 MiB)",
                      429: "the replay workers are busy"}),
    Endpoint("GET", "/api/log", download_log, "Download a game's log", "replays", params=(
        Param("id", "a stored game"), Param("t", "a tournament (with g)"),
        Param("g", "a tournament's game, F-S-I"),
        Param("format", "jsonl (default) or a format of the game's own (substitution: "
                        "thesis, the thesis program's text log)")),
        content="text/plain", answers={200: "the log, as an attachment",
                                       400: "a format the game does not write",
                                       404: "no such game, or no log yet"}),
    Endpoint("GET", "/api/tournaments", tournaments, "Tournament results under --tournaments",
             "tournaments", answers={200: "tournaments (name, bots, games, game), directory"}),
    Endpoint("GET", "/api/tournament", tournament, "One tournament's JSON as written",
             "tournaments", params=(Param("name", "its name in /api/tournaments",
                                          required=True),),
             answers={200: "the tournament, plus logs: whether per-game logs exist",
                      404: "no such tournament"}),
    Endpoint("GET", "/api/tournament/game", tournament_game, "Replay one tournament game",
             "tournaments", params=(Param("name", "the tournament", required=True),
                                    Param("id", "the game, F-S-I", required=True)),
             answers={200: _REPLAY, 404: "no such tournament or game"}),
    Endpoint("GET", "/api/tournament/cell", tournament_cell,
             "The games of one pairing of a tournament, with their results", "tournaments",
             params=(Param("name", "the tournament", required=True),
                     Param("cell", "the pairing, FIRST-SECOND (bot indices)", required=True)),
             answers={200: f"cell, games ([{{id, result, winner, scores, termination, "
                           f"detail}}], in order, at most {CELL_GAMES}), limit",
                      400: "a malformed cell", 404: "no such tournament"}),
)
