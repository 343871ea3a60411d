"""Validation games for a program before it goes on a server (Kaggle's validation
episode, locally): `check_program` plays it (``exec:COMMAND``, `arena.exec_bot`) against
built-in bots in both seats, under the time control, and reports every rejection,
timeout and crash with the program's debug lines and standard error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.exec_bot import ExecBot
from arena.game import Termination
from arena.match import play_match
from arena.record import MatchRecord
from arena.registry import Registry
from arena.server.config import TimeControl

__all__ = ["CheckReport", "CheckedGame", "check_program", "default_opponent"]


@dataclass(frozen=True)
class CheckedGame:
    """One validation game: the program's seat and what happened."""

    game: str
    seat: int
    opponent: str
    record: MatchRecord

    @property
    def failure(self) -> str | None:
        """Why the program lost by the rules of the arena (a rejection, a timeout, a
        crash), or None when the game ended normally (won, lost or drawn)."""
        outcome = self.record.outcome
        assert outcome is not None
        if outcome.termination is Termination.NORMAL or outcome.loser != self.seat:
            return None
        return f"{outcome.termination.value}: {outcome.detail}"

    def notes(self) -> list[str]:
        return [f"turn {note.turn}: {note.text}" for note in self.record.notes
                if note.player == self.seat]


@dataclass
class CheckReport:
    games: list[CheckedGame] = field(default_factory=list)

    @property
    def failures(self) -> list[CheckedGame]:
        return [game for game in self.games if game.failure is not None]

    @property
    def passed(self) -> bool:
        return bool(self.games) and not self.failures

    def verdict(self) -> str:
        if not self.games:
            return "FAIL: no game was played"
        if self.failures:
            kinds = sorted({g.failure.split(":")[0] for g in self.failures if g.failure})
            return (f"FAIL: {len(self.failures)} of {len(self.games)} games lost by "
                    f"{', '.join(kinds)}")
        return (f"PASS: {len(self.games)} games, every move legal and in time "
                f"({sum(len(g.record.turns) for g in self.games)} moves)")


def default_opponent(registry: Registry, game: str) -> str:
    """A built-in bot to check against: a random one if the game has one."""
    names = [factory.name for factory in registry.bot_factories(game)]
    if not names:
        raise ValueError(f"{game} has no built-in bots to play against")
    for good in (lambda n: n == "random", lambda n: n.endswith("-random"), lambda n: "random" in n):
        found = [name for name in names if good(name)]
        if found:
            return found[0]
    return names[0]


def check_program(registry: Registry, command: str, settings: Mapping[str, Mapping[str, Any]],
                  *, games: int = 2, opponent: str | None = None,
                  time_control: TimeControl | None = None, seed: int = 1,
                  progress: Callable[[CheckedGame], None] | None = None) -> CheckReport:
    """Play `games` games of each game in `settings` (name -> settings), the program
    taking seat 0 and 1 in turn, against `opponent` (a spec; by default
    `default_opponent`)."""
    report = CheckReport()
    bot = ExecBot(command, time_control=time_control)
    try:
        for name, game_settings in settings.items():
            game = registry.load_game(name, game_settings)
            against = opponent or default_opponent(registry, name)
            other = registry.make_bot(game, against)
            for index in range(games):
                seat = index % 2
                bots = [bot, other] if seat == 0 else [other, bot]
                names = [command, against] if seat == 0 else [against, command]
                match = play_match(game, bots, seed=seed + index, names=names,
                                   match_id=f"check-{name}-{index}")
                checked = CheckedGame(name, seat, against, match.record())
                report.games.append(checked)
                if progress is not None:
                    progress(checked)
    finally:
        bot.close()
    return report
