"""A season's final between connected bots, played by the server like ladder pairings.

A final whose finalists are all house bots is a tournament run in a worker on paired
dice (`arena.web.seasons`). Connected bots cannot be run by a worker, so a final with
any of them is played here, on the event loop of the server that claimed it: each
pairing of the schedule (every pairing of a round robin, or the rounds of a Swiss paired
by `arena.tournament.formats.swiss_round`) plays `FinalConfig.games` pairs of games
through `ArenaService.start_game`, seats swapped, each game on its own secret dice (the
bots are strangers: a shared seed would tell one game's dice to the other game's
player). The games are stored like any other (unrated, their ``pair`` the final's:
``final:SEASON:F-S-I``); the tournament engine's tables (`TournamentResult`) and
statistics (`arena.tournament.report`) are computed from them.

A finalist that is not connected when its game is due is waited for up to
`FinalConfig.wait` seconds; then it forfeits that game (both absent: a forfeited draw).
The stored game ids and forfeits are written into the season's stored report as the
final goes on, so a server that resumes the final reads back the games already played
rather than playing them again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from arena.game import Termination
from arena.names import HOUSE_PREFIX
from arena.service import PlayerUnavailable
from arena.tournament.formats import swiss_round
from arena.tournament.results import GameResult, TournamentResult, game_result
from arena.tournament.spec import GameKey, Pairing, TournamentSpec

if TYPE_CHECKING:
    from arena.clock import TimeControl
    from arena.service import ArenaService

__all__ = ["POLL", "ConnectedFinal", "ranking_report"]

POLL = 0.5
"""Seconds between looks at an absent finalist, or at a game another server plays."""
ABSENT = "the finalist was not connected (or could not play the game) when its game was due"


def ranking_report(spec: TournamentSpec, names: tuple[str, ...], standings: Mapping[str, int],
                   data: dict[str, Any]) -> list[dict[str, Any]]:
    """The final's ranking by points (ties: the season's rank) from the tournament's
    tables (`arena.tournament.report.to_json`): `names` are the bots' account names, in
    the order of `spec.bots`."""
    summary = data.get("summary") or {}
    lines = []
    for spec_name, bot in zip(spec.bots, names, strict=True):
        row = summary.get(spec_name, {})
        lines.append({"bot": bot, "season_rank": standings.get(bot, 0),
                      "points": row.get("points", 0.0), "games": row.get("games", 0),
                      "wins": row.get("wins", 0), "losses": row.get("losses", 0),
                      "draws": row.get("draws", 0), "elo": row.get("elo")})
    lines.sort(key=lambda line: (-line["points"], line["season_rank"]))
    for rank, line in enumerate(lines, start=1):
        line["rank"] = rank
    return lines


class ConnectedFinal:
    """One final played through the server (module docstring)."""

    def __init__(self, service: ArenaService, season: str, spec: TournamentSpec, *,
                 time_control: TimeControl | None, wait: float,
                 stored: Mapping[str, Any] | None,
                 progress: Callable[[dict[str, Any]], Awaitable[None]]) -> None:
        self.service = service
        self.season = season
        self.spec = spec
        self.time_control = time_control
        self.wait = wait
        self.progress = progress
        stored = stored or {}
        self.played: dict[str, str] = dict(stored.get("played") or {})
        """The final's game keys (``F-S-I``) and the ids of their stored games."""
        self.forfeits: dict[str, int | None] = dict(stored.get("forfeits") or {})
        """The games forfeited by absence: the seat that won (None: both absent)."""
        self.total = spec.total_games()
        self.done = 0

    def state(self) -> dict[str, Any]:
        """What the season's stored report holds while the final runs."""
        return {"mode": "connected", "bots": list(self.spec.bots), "done": self.done,
                "total": self.total, "status": "running", "played": dict(self.played),
                "forfeits": dict(self.forfeits)}

    async def play(self) -> TournamentResult:
        """Play (or read back) every game of the schedule; the tables once all are in."""
        spec = self.spec
        result = TournamentResult.empty(spec)
        rounds = spec.rounds if spec.format == "swiss" else 1
        for _ in range(rounds):
            if spec.format == "swiss":
                this = swiss_round(result)  # from the results so far: the same at a resume
                result.rounds.append(this)
                for pairing in this.pairings:
                    result.expect(pairing)
                pairings: list[Pairing] = list(this.pairings)
            else:
                pairings = spec.pairings()
            for pairing in pairings:
                for index in range(spec.games):
                    keys = [GameKey(pairing, index, seat) for seat in pairing.seats()]
                    for game in await asyncio.gather(*(self._game(key) for key in keys)):
                        result.add(game)
        return result

    async def _game(self, key: GameKey) -> GameResult:
        """One game of the final: read back if stored, forfeited if a finalist stays away
        (or keeps being refused: a bot that does not play the game) for `wait` seconds,
        else played now."""
        deadline = time.monotonic() + self.wait
        while True:
            if key.id in self.forfeits:
                self.done += 1
                return GameResult(key.first, key.second, key.pair, self.forfeits[key.id], None,
                                  Termination.DISCONNECT, ABSENT)
            stored = self.played.get(key.id)
            if stored is not None:
                game = await self._stored(key, stored)
                if game is not None:
                    self.done += 1
                    await self.progress(self.state())
                    return game
                del self.played[key.id]  # aborted: played again
            players = (self.spec.bots[key.first], self.spec.bots[key.second])
            absent = await self._absent(players, deadline)
            if not absent:
                try:  # here, or on a gateway on a host (docs/cluster.md)
                    game_id, _ = await self.service.launch_game(
                        self.spec.game, self.spec.settings, players,
                        time_control=self.time_control,
                        pair=f"final:{self.season}:{key.pairing.low}-{key.pairing.high}-{key.pair}")
                except PlayerUnavailable as error:  # gone since the look, or refused
                    if time.monotonic() < deadline:
                        await asyncio.sleep(POLL)
                        continue
                    named = {seat for seat, name in enumerate(players) if repr(name) in str(error)}
                    absent = named or {0, 1}
                else:
                    self.played[key.id] = game_id
                    await self.progress(self.state())
                    record = await self.service.game_over(game_id)
                    if record is None:  # played by another process: read back as stored
                        continue
                    assert record.outcome is not None
                    self.done += 1
                    await self.progress(self.state())
                    return game_result(key.first, key.second, key.pair, record.outcome)
            present = [seat for seat in (0, 1) if seat not in absent]
            self.forfeits[key.id] = present[0] if present else None
            await self.progress(self.state())

    async def _stored(self, key: GameKey, game_id: str) -> GameResult | None:
        """A game of the final already started: its result once finished (waiting while
        a server plays it), None if it was aborted or is lost."""
        while True:
            row = await self.service.records.game(game_id)
            if row is None or row.status == "aborted":
                return None
            if row.status == "finished":
                termination = Termination(row.termination or "normal")
                scores = None
                if termination is Termination.NORMAL and row.scores is not None:
                    scores = (float(row.scores[0]), float(row.scores[1]))
                detail = row.reason or "" if termination is not Termination.NORMAL else ""
                return GameResult(key.first, key.second, key.pair, row.winner, scores,
                                  termination, detail)  # as `game_result` makes it
            await asyncio.sleep(POLL)  # resumed by a server (failover): it finishes it

    async def _absent(self, players: tuple[str, str], deadline: float) -> set[int]:
        """The seats whose bot is still not connected at `deadline` (`time.monotonic`)."""
        while True:
            absent = {seat for seat, name in enumerate(players)
                      if not name.startswith(HOUSE_PREFIX) and not self.service.connected(name)}
            if not absent or time.monotonic() >= deadline:
                return absent
            await asyncio.sleep(min(POLL, max(0.0, deadline - time.monotonic())))

