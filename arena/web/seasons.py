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

A worker runs only built-in bots, so a final whose finalists are all house bots
(``house:SPEC``) is a tournament run there, on paired dice; a final with any connected
bot is played by this server through `ArenaService.start_game`, each game on its own
secret dice (`arena.web.finals.ConnectedFinal`), and resumed from its stored games by the
server that claims it next.
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
from arena.tournament.report import to_json as tournament_json
from arena.web.finals import ConnectedFinal, ranking_report
from arena.web.tournaments import Run, RunRefused, TournamentRuns

if TYPE_CHECKING:
    from arena.service import ArenaService

__all__ = ["SEASONS", "FinalRefused", "SeasonKeeper", "connected_spec", "final_report",
           "final_spec", "ladder_of", "season_ratings", "season_view"]

log = logging.getLogger("arena.web")


class FinalRefused(ValueError):
    """A final that cannot be played: `code` and `params` say why, for a page's words
    (the stored report's ``error_code`` and ``error_params``)."""

    def __init__(self, message: str, code: str, **params: str | int) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


def _now() -> datetime:
    return datetime.now(UTC)


def ladder_of(service: ArenaService, season: SeasonConfig) -> tuple[str, dict[str, Any]]:
    """The game and settings of `season`'s ladder (`ServerConfig.find_ladder`: a
    ladder is named after its game unless it names itself). A ladder whose starts
    vary (``generator``) has its final played on the game's default settings, as is
    a ladder the server no longer runs, its name taken for a game's."""
    ladder = service.config.find_ladder(season.ladder)
    if ladder is not None:
        return ladder.game, dict(ladder.settings) if ladder.generator is None else {}
    return season.ladder, {}


async def season_ratings(service: ArenaService, season: SeasonConfig) -> list[Standing]:
    """`season`'s standings now: its ladder's own ratings (each ladder has its own,
    `Records.leaderboard`), ranked by its entry rules."""
    return rank_standings(season, await service.records.leaderboard(season.ladder))


def final_spec(season: SeasonConfig, game: str, settings: dict[str, Any],
               finalists: list[Standing]) -> TournamentSpec:
    """The final's tournament: the finalists' house bot specs, in rank order.

    Raises:
        ValueError: fewer than two finalists, or one that is not a house bot.
    """
    outside = [s.bot for s in finalists if not s.bot.startswith(HOUSE_PREFIX)]
    if len(finalists) >= 2 and outside:
        raise FinalRefused(f"only house bots can play a final for now, and {', '.join(outside)} "
                           "is not one", "final-not-house", bots=", ".join(outside))
    return _schedule(season, game, settings,
                     tuple(s.bot[len(HOUSE_PREFIX):] for s in finalists))


def final_report(run: Run, standings: dict[str, int], data: dict[str, Any]) -> dict[str, Any]:
    """The stored report of a finished final: its ranking by points (ties: the season's
    rank), each line with the bot's account name and its games."""
    lines = ranking_report(run.spec, tuple(HOUSE_PREFIX + b for b in run.spec.bots), standings,
                           data)
    return {"tournament": run.name, "format": run.spec.format, "games": run.spec.games,
            "total": run.total, "ranking": lines, "champion": lines[0]["bot"] if lines else None}


def connected_spec(season: SeasonConfig, game: str, settings: dict[str, Any],
                   finalists: list[Standing]) -> TournamentSpec:
    """The schedule of a final with connected bots (`arena.web.finals`): the finalists'
    account names in rank order; its seed breaks a Swiss's ties (the dice are each
    game's own).

    Raises:
        ValueError: fewer than two finalists.
    """
    return _schedule(season, game, settings, tuple(s.bot for s in finalists))


def _schedule(season: SeasonConfig, game: str, settings: dict[str, Any],
              bots: tuple[str, ...]) -> TournamentSpec:
    """The final's tournament of `bots` (rank order): every ordered pair of a round robin
    (no self-play), or a Swiss of at most half as many rounds as bots, on the final's seed.

    Raises:
        ValueError: fewer than two finalists.
    """
    final = season.final
    assert final is not None
    if len(bots) < 2:
        raise FinalRefused(f"{len(bots)} bots met the entry rules: a final needs two",
                           "final-too-few", count=len(bots))
    pairs = None
    if final.format == "round-robin":
        pairs = tuple((i, j) for i in range(len(bots)) for j in range(len(bots)) if i != j)
    rounds = min(final.rounds, (len(bots) + 1) // 2) if final.format == "swiss" else 0
    return TournamentSpec(game=game, settings=settings, bots=bots, games=final.games,
                          seed=season.final_seed(), pairs=pairs, format=final.format,
                          rounds=rounds)


def _with_points(pairing: dict[str, Any]) -> dict[str, Any]:
    """A pairing's summary (`arena.tournament.report.PairingSummary`) with each bot's
    game points against the other, read off its pentanomial counts."""
    counts = pairing.get("pentanomial") or []
    first = sum(k / 2 * count for k, count in enumerate(counts))
    return {**pairing, "points": [first, 2 * sum(counts) - first]}


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
        self.connected: dict[str, ConnectedFinal] = {}
        """The finals with connected bots this process plays (`arena.web.finals`)."""
        self._connected_tasks: dict[str, asyncio.Task[None]] = {}
        self._writing = asyncio.Lock()
        """Orders a final's progress and its report: a look's progress never lands after
        the report (which would leave a finished final marked running)."""
        self._over: set[str] = set()
        """The finals with connected bots whose report this process stored."""
        self._resume: dict[str, dict[str, Any]] = {}
        """What a final with connected bots had stored when this process claimed it."""
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
            playing = self.connected.get(season.name)
            if playing is not None:
                if not self._connected_tasks[season.name].done():
                    await self._store_progress(season, playing.state())
                continue
            run = self.finals.get(season.name)
            if run is not None:
                if run.status in ("queued", "running"):
                    await self._playing(season, run)
            elif season.name in self._claimed or await self._claim(season, stored):
                await self._start_final(season)

    def stale_after(self) -> float:
        """Seconds after which a final marked running but not heard of is taken to have
        lost its player (a server that stopped), so that another start plays it."""
        return 60.0 + 6 * self.service.config.season_interval

    async def _claim(self, season: SeasonConfig, stored: SeasonRecord) -> bool:
        at = time.time()
        if not await self.service.records.claim_season_final(
                season.name, at, stale_before=at - self.stale_after()):
            return False  # another server plays it, or it is over
        self._claimed.add(season.name)
        if stored.final_report is not None and stored.final_report.get("mode") == "connected":
            # the claim clears the report: its games played so far are kept to resume
            self._resume[season.name] = dict(stored.final_report)
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
            standings = await season_ratings(self.service, season)
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
        if any(not s.bot.startswith(HOUSE_PREFIX) for s in finalists):
            await self._start_connected(season, game, settings, finalists)
            return
        try:
            spec = final_spec(season, game, settings, finalists)
            run = self.runs.start(f"season:{season.name}", spec, label=f"season-{season.name}",
                                  on_end=lambda run: self._ended(season, run))
        except RunRefused as error:
            if error.status == 429:  # the queue is full: kept claimed, tried again later
                await records.set_season_final(season.name, "running", {"status": "waiting"},
                                               time.time())
                return
            await self._fail(season, str(error), error.reason or error.code, **error.params)
            return
        except FinalRefused as error:
            await self._fail(season, str(error), error.code, **error.params)
            return
        except ValueError as error:
            await self._fail(season, str(error))
            return
        self.finals[season.name] = run
        await self._playing(season, run)
        log.info("season %s: its final of %d bots started (%d games)", season.name,
                 len(spec.bots), run.total)

    async def _start_connected(self, season: SeasonConfig, game: str, settings: dict[str, Any],
                               finalists: list[Standing]) -> None:
        """Play a final with connected bots here, from the games stored so far."""
        assert season.final is not None
        limits = self.runs.config
        try:
            spec = connected_spec(season, game, settings, finalists)
            if len(spec.bots) > limits.tournament_bots:
                raise FinalRefused(f"a final has 2 to {limits.tournament_bots} bots "
                                   f"(tournament_bots), not {len(spec.bots)}",
                                   "tournament-bots", limit=limits.tournament_bots,
                                   count=len(spec.bots))
            if spec.total_games() > limits.tournament_games:
                raise FinalRefused(f"{len(spec.bots)} finalists at {spec.games} games per pairing "
                                   f"and seat order is {spec.total_games()} games; a final plays "
                                   f"at most {limits.tournament_games} (tournament_games)",
                                   "tournament-games", bots=len(spec.bots), games=spec.games,
                                   total=spec.total_games(), limit=limits.tournament_games)
        except FinalRefused as error:
            await self._fail(season, str(error), error.code, **error.params)
            return
        except ValueError as error:
            await self._fail(season, str(error))
            return
        stored = await self.service.records.season(season.name)
        report = stored.final_report if stored is not None else None
        if report is None or report.get("mode") != "connected":
            report = self._resume.get(season.name)
        ladder = self.service.config.find_ladder(season.ladder)
        final = ConnectedFinal(
            self.service, season.name, spec,
            time_control=ladder.time_control if ladder is not None else None,
            wait=season.final.wait,
            stored=report,
            progress=lambda state: self._store_progress(season, state))
        self.connected[season.name] = final
        task = asyncio.create_task(self._play_connected(season, final),
                                   name=f"final {season.name}")
        self._connected_tasks[season.name] = task
        await self._store_progress(season, final.state())
        log.info("season %s: its final of %d bots started here (%d games, %d stored)",
                 season.name, len(spec.bots), final.total, len(final.played))

    async def _store_progress(self, season: SeasonConfig, state: dict[str, Any]) -> None:
        async with self._writing:
            if season.name not in self._over:
                await self.service.records.set_season_final(season.name, "running", state,
                                                            time.time())

    async def _play_connected(self, season: SeasonConfig, final: ConnectedFinal) -> None:
        try:
            result = await final.play()
            standings = {s.bot: s.rank for s in
                         await self.service.records.season_standings(season.name)}
            data = tournament_json(result)
            lines = ranking_report(final.spec, final.spec.bots, standings, data)
            report = {"tournament": None, "mode": "connected", "format": final.spec.format,
                      "games": final.spec.games, "total": final.total,
                      "bots": list(final.spec.bots), "ranking": lines,
                      "champion": lines[0]["bot"] if lines else None,
                      "pairings": [_with_points(p) for p in data["pairings"]],
                      "rounds": data.get("rounds"),
                      "played": final.played, "forfeits": final.forfeits}
            async with self._writing:
                await self.service.records.set_season_final(season.name, "finished", report,
                                                            time.time())
                self._over.add(season.name)
            log.info("season %s: its final is over; champion %s", season.name,
                     report["champion"])
        except asyncio.CancelledError:
            raise  # the server stops: the next to claim it resumes it
        except (StorageFailure, StorageUnavailable) as error:
            log.warning("season %s: its final stopped: %s; resumed later", season.name, error)
            self.connected.pop(season.name, None)  # started again at a later check
        except Exception as error:  # a bug or a schedule that cannot go on
            log.exception("season %s: its final failed", season.name)
            with contextlib.suppress(StorageFailure, StorageUnavailable):
                async with self._writing:
                    await self._fail(season, f"{type(error).__name__}: {error}", "final-error",
                                     kind=type(error).__name__, error=str(error)[:500])
                    self._over.add(season.name)

    async def _fail(self, season: SeasonConfig, message: str, code: str | None = None,
                    **params: str | int) -> None:
        """Store the final as failed: the English `message`, and its `code` (a key of
        `arena.web.tournaments.FAILURES` or `FinalRefused`'s, None: said in English
        only) with the values its text names, for a page's words."""
        self._claimed.discard(season.name)
        log.warning("season %s: its final failed: %s", season.name, message)
        await self.service.records.set_season_final(
            season.name, "failed", {"error": message, "error_code": code, "error_params": params},
            time.time())

    def _ended(self, season: SeasonConfig, run: Run) -> None:
        """A final's run ended (on the loop): store its report, off the callback."""
        if self._closed and run.error_code == "shutdown":
            return  # played again by the next server to start (`stale_after`)
        task = asyncio.get_running_loop().create_task(self._store(season, run))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _store(self, season: SeasonConfig, run: Run) -> None:
        if run.status != "finished":
            await self._fail(season, run.error or "the final failed", run.error_code,
                             **run.error_params)
            return
        path = run.out / "tournament.json"
        try:
            data = json.loads(await asyncio.to_thread(path.read_text, encoding="utf-8"))
        except (OSError, ValueError) as error:
            await self._fail(season, f"its results cannot be read: {error}",
                             "results-unreadable", error=str(error)[:500])
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
        for task in self._connected_tasks.values():
            task.cancel()
        for task in self._connected_tasks.values():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
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
