"""The seasons at work: freezing the standings at a season's end and playing its final.

`SeasonKeeper` looks at the configured seasons (`ServerConfig.seasons`) every
`ServerConfig.season_interval` seconds. Once a season has ended it freezes the ladder's
ratings into the season's standings (`Records.freeze_season`, once: a second keeper or
a restart finds them stored), then, if the season has a final, starts it as a tournament
run (`arena.web.tournaments.TournamentRuns`, the launcher of the tournaments started from
the browser): the top entrants play a round robin (self-play left out) or a Swiss on
paired dice, in a worker process off the event loop, under the same limits
(`WebConfig.tournament_bots`, ``tournament_games``, ``tournament_seconds``). Its results
directory is ``season-NAME-ID`` under ``--tournaments``, shown by the tournament page; when
it ends, its ranking is stored as the final's report (`Records.set_season_final`).

One process plays a final: the one that claims it in the database
(`Records.claim_season_final`), which then stores its progress at every check. A final
whose player has not been heard of for `SeasonKeeper.stale_after` seconds (its server
stopped) is claimed again and played from the start (on the same dice: the same games),
so servers sharing a database never play a final twice at once.

A final's players are run by the worker as built-in bots, so today only house bots
(``house:SPEC``) can play one: a final whose entrants include an external bot fails
with that reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from aiohttp import web

from arena.names import HOUSE_PREFIX
from arena.seasons import Phase, SeasonConfig, Standing, phase, rank_standings
from arena.service import StorageUnavailable
from arena.storage.interface import SeasonRecord, StorageFailure
from arena.tournament import TournamentSpec
from arena.web.tournaments import Run, RunRefused, TournamentRuns

if TYPE_CHECKING:
    from arena.service import ArenaService

__all__ = ["SEASONS", "SeasonKeeper", "final_report", "final_spec", "ladder_of", "season_view"]

log = logging.getLogger("arena.web")

SHUTDOWN = "the server shut down"
"""`TournamentRuns.close`'s reason: a final stopped so is claimed again later (`stale_after`)."""


def _now() -> datetime:
    return datetime.now(UTC)


def ladder_of(service: ArenaService, season: SeasonConfig) -> tuple[str, dict[str, Any]]:
    """The game and settings of `season`'s ladder (today the one ladder, named by its
    game; another name is taken as a game played on its default settings)."""
    ladder = service.config.ladder
    if ladder is not None and ladder.game == season.ladder:
        return ladder.game, dict(ladder.settings)
    return season.ladder, {}


def final_spec(season: SeasonConfig, game: str, settings: dict[str, Any],
               finalists: list[Standing]) -> TournamentSpec:
    """The final's tournament: the finalists' house bot specs, in rank order.

    Raises:
        ValueError: fewer than two finalists, or one that is not a house bot.
    """
    final = season.final
    assert final is not None
    if len(finalists) < 2:
        raise ValueError(f"{len(finalists)} bots met the entry rules: a final needs two")
    outside = [s.bot for s in finalists if not s.bot.startswith(HOUSE_PREFIX)]
    if outside:
        raise ValueError(f"only house bots can play a final for now, and {', '.join(outside)} "
                         "is not one")
    bots = tuple(s.bot[len(HOUSE_PREFIX):] for s in finalists)
    pairs = None
    if final.format == "round-robin":
        pairs = tuple((i, j) for i in range(len(bots)) for j in range(len(bots)) if i != j)
    rounds = min(final.rounds, (len(bots) + 1) // 2) if final.format == "swiss" else 0
    return TournamentSpec(game=game, settings=settings, bots=bots, games=final.games,
                          seed=season.final_seed(), pairs=pairs, format=final.format,
                          rounds=rounds)


def final_report(run: Run, standings: dict[str, int], data: dict[str, Any]) -> dict[str, Any]:
    """The stored report of a finished final: its ranking by points (ties: the season's
    rank), each line with the bot's account name and its games."""
    summary = data.get("summary") or {}
    lines = []
    for spec in run.spec.bots:
        bot = HOUSE_PREFIX + spec
        row = summary.get(spec, {})
        lines.append({"bot": bot, "season_rank": standings.get(bot, 0),
                      "points": row.get("points", 0.0), "games": row.get("games", 0),
                      "wins": row.get("wins", 0), "losses": row.get("losses", 0),
                      "draws": row.get("draws", 0), "elo": row.get("elo")})
    lines.sort(key=lambda line: (-line["points"], line["season_rank"]))
    for rank, line in enumerate(lines, start=1):
        line["rank"] = rank
    return {"tournament": run.name, "format": run.spec.format, "games": run.spec.games,
            "total": run.total, "ranking": lines, "champion": lines[0]["bot"] if lines else None}


class SeasonKeeper:
    """Freezes ended seasons and plays their finals (module docstring)."""

    clock: Callable[[], datetime]

    def __init__(self, service: ArenaService, runs: TournamentRuns,
                 clock: Callable[[], datetime] = _now) -> None:
        self.service = service
        self.runs = runs
        self.clock = clock
        self.finals: dict[str, Run] = {}
        """The finals this process runs, by season."""
        self._claimed: set[str] = set()
        """The seasons whose final this process took on (`Records.claim_season_final`)."""
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        self._pending: set[asyncio.Task[None]] = set()

    def start(self) -> None:
        """Check the seasons now and every `ServerConfig.season_interval` seconds."""
        if self.service.config.seasons and self._task is None:
            self._task = asyncio.create_task(self._watch(), name="seasons")

    async def _watch(self) -> None:
        while True:
            try:
                await self.tick()
            except (StorageFailure, StorageUnavailable) as error:
                log.warning("seasons: %s; trying again later", error)
            except Exception:  # a bug: logged, and the seasons are looked at again later
                log.exception("seasons: the check failed")
            await asyncio.sleep(self.service.config.season_interval)

    async def tick(self, now: datetime | None = None) -> None:
        """Freeze every season that has ended, start the finals due, and tell the
        database that this process still plays its finals (their progress)."""
        now = now or self.clock()
        for season in self.service.config.seasons:
            if phase(season, now) in (Phase.UPCOMING, Phase.RUNNING):
                continue
            stored = await self._freeze(season)
            if season.final is None or stored.final_status in ("finished", "failed"):
                continue
            run = self.finals.get(season.name)
            if run is not None:
                if run.status in ("queued", "running"):
                    await self._playing(season, run)
            elif season.name in self._claimed or await self._claim(season):
                await self._start_final(season)

    def stale_after(self) -> float:
        """Seconds after which a final marked running but not heard of is taken to have
        lost its player (a server that stopped), so that another start plays it."""
        return 60.0 + 6 * self.service.config.season_interval

    async def _claim(self, season: SeasonConfig) -> bool:
        at = time.time()
        if not await self.service.records.claim_season_final(
                season.name, at, stale_before=at - self.stale_after()):
            return False  # another server plays it, or it is over
        self._claimed.add(season.name)
        return True

    async def _playing(self, season: SeasonConfig, run: Run) -> None:
        """Store that the final is being played, and how far it got (every check)."""
        await self.service.records.set_season_final(season.name, "running", {
            "tournament": run.name, "bots": [HOUSE_PREFIX + b for b in run.spec.bots],
            "done": run.done, "total": run.total, "status": run.status}, time.time())

    async def _freeze(self, season: SeasonConfig) -> SeasonRecord:
        records = self.service.records
        stored = await records.season(season.name)
        if stored is None:
            game, _ = ladder_of(self.service, season)
            standings = rank_standings(season, await records.leaderboard(game))
            if await records.freeze_season(season.name, season.ladder, standings, time.time(),
                                           season.to_json()):
                log.info("season %s ended: %d bots' standings frozen", season.name,
                         len(standings))
            stored = await records.season(season.name)
            assert stored is not None
        return stored

    async def _start_final(self, season: SeasonConfig) -> None:
        """Start the final this process claimed (a full queue: at a later check)."""
        records = self.service.records
        assert season.final is not None
        standings = await records.season_standings(season.name)
        finalists = [s for s in standings if s.entered][:season.final.top]
        game, settings = ladder_of(self.service, season)
        try:
            spec = final_spec(season, game, settings, finalists)
            run = self.runs.start(f"season:{season.name}", spec, label=f"season-{season.name}",
                                  on_end=lambda run: self._ended(season, run))
        except RunRefused as error:
            if error.status == 429:  # the queue is full: kept claimed, tried again later
                await records.set_season_final(season.name, "running", {"status": "waiting"},
                                               time.time())
                return
            await self._fail(season, str(error))
            return
        except ValueError as error:
            await self._fail(season, str(error))
            return
        self.finals[season.name] = run
        await self._playing(season, run)
        log.info("season %s: its final of %d bots started (%d games)", season.name,
                 len(spec.bots), run.total)

    async def _fail(self, season: SeasonConfig, error: str) -> None:
        self._claimed.discard(season.name)
        log.warning("season %s: its final failed: %s", season.name, error)
        await self.service.records.set_season_final(season.name, "failed", {"error": error},
                                                    time.time())

    def _ended(self, season: SeasonConfig, run: Run) -> None:
        """A final's run ended (on the loop): store its report, off the callback."""
        if self._closed and run.error == SHUTDOWN:
            return  # played again by the next server to start (`stale_after`)
        task = asyncio.get_running_loop().create_task(self._store(season, run))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _store(self, season: SeasonConfig, run: Run) -> None:
        if run.status != "finished":
            await self._fail(season, run.error or "the final failed")
            return
        path = run.out / "tournament.json"
        try:
            data = json.loads(await asyncio.to_thread(path.read_text, encoding="utf-8"))
        except (OSError, ValueError) as error:
            await self._fail(season, f"its results cannot be read: {error}")
            return
        standings = {s.bot: s.rank for s in
                     await self.service.records.season_standings(season.name)}
        report = final_report(run, standings, data)
        await self.service.records.set_season_final(season.name, "finished", report,
                                                    time.time())
        log.info("season %s: its final is over; champion %s", season.name, report["champion"])

    async def close(self) -> None:
        """Stop checking (the runs themselves are stopped by `TournamentRuns.close`)."""
        self._closed = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for task in list(self._pending):
            with contextlib.suppress(Exception):
                await task


SEASONS: web.AppKey[SeasonKeeper] = web.AppKey("arena.seasons")


def season_view(season: SeasonConfig | None, stored: SeasonRecord | None, now: datetime,
                run: Run | None) -> dict[str, Any]:
    """A season as ``/api/seasons`` lists it: its settings, phase and final's state."""
    final_status = stored.final_status if stored is not None else None
    if season is not None:
        data = season.to_json()
        current = phase(season, now, final_ended=final_status in ("finished", "failed"))
    else:  # a past season no longer configured: what was stored of it
        assert stored is not None
        data = {"name": stored.name, "ladder": stored.ladder, "start": None, "end": None,
                "min_games": None, "min_rating": None, "final": None,
                **(stored.settings or {})}
        current = Phase.FINAL if final_status == "running" else Phase.OVER
    data["phase"] = current.value
    data["frozen"] = stored.frozen if stored is not None else None
    final: dict[str, Any] | None = None
    if stored is not None and stored.final_status is not None:
        final = {"status": stored.final_status, "report": stored.final_report,
                 "updated": stored.final_updated}
        report = stored.final_report or {}
        if run is not None and run.status in ("queued", "running"):
            final["progress"] = {"done": run.done, "total": run.total, "status": run.status}
        elif stored.final_status == "running" and "total" in report:  # played elsewhere
            final["progress"] = {"done": report.get("done", 0), "total": report["total"],
                                 "status": report.get("status", "running")}
    data["final_state"] = final
    return data
