"""Validation games for a program before it goes on a server (Kaggle's validation
episode, locally): `check_program` plays it (``exec:COMMAND``, `arena.exec_bot`; or a
built bot in its sandbox, ``hosted:DIR``, `arena.sandbox.hosted`) against
built-in bots in both seats, under the time control, and reports every rejection,
timeout and crash with the program's debug lines and standard error, each blamed on
the program or on the arena (the runner or the built-in opponent failing).

`check_websocket_bot` does the same for a bot that speaks the WebSocket protocol
itself: it starts a throwaway server on loopback (a temporary database, one account),
says the URL and the token, waits for the bot to connect and plays the games there
against house bots.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.bots import HOSTED_PREFIX
from arena.clock import TimeControl
from arena.exec_bot import ExecBot
from arena.game import Termination
from arena.match import play_match
from arena.record import MatchRecord
from arena.registry import Registry

__all__ = ["ARENA", "PROGRAM", "CheckReport", "CheckedGame", "check_program",
           "check_websocket_bot", "default_opponent", "program_bot"]


PROGRAM = "program"
"""Blame: the program broke a rule (an illegal move, no move in time, it died)."""
ARENA = "arena"
"""Blame: the runner or the built-in opponent failed (a bug of the arena)."""


@dataclass(frozen=True)
class CheckedGame:
    """One validation game: the program's seat and what happened (its `record`, or
    `arena_error` when the game broke down on the arena's side)."""

    game: str
    seat: int
    opponent: str
    record: MatchRecord | None
    arena_error: str | None = None

    @property
    def blame(self) -> str | None:
        """Who failed: `PROGRAM`, `ARENA`, or None for a game played to its end."""
        if self.arena_error is not None:
            return ARENA
        assert self.record is not None and self.record.outcome is not None
        outcome = self.record.outcome
        if outcome.termination is Termination.NORMAL or outcome.loser != self.seat:
            return None
        return PROGRAM

    @property
    def failure(self) -> str | None:
        """Why the game failed, naming who is to blame, or None when it ended normally
        (won, lost or drawn)."""
        if self.arena_error is not None:
            return (f"arena error (not your program's fault; please report it): "
                    f"{self.arena_error}")
        if self.blame is None:
            return None
        assert self.record is not None and self.record.outcome is not None
        outcome = self.record.outcome
        return f"{outcome.termination.value} (your program): {outcome.detail}"

    def notes(self) -> list[str]:
        if self.record is None:
            return []
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
            kinds = sorted({g.failure.split(" (")[0] for g in self.failures
                            if g.failure and g.blame == PROGRAM})
            arena = sum(g.blame == ARENA for g in self.failures)
            parts = []
            if kinds:
                parts.append(f"{len(self.failures) - arena} lost by your program's "
                             f"{', '.join(kinds)}")
            if arena:
                parts.append(f"{arena} broken by an arena error (not your program)")
            return f"FAIL: {len(self.failures)} of {len(self.games)} games: {'; '.join(parts)}"
        return (f"PASS: {len(self.games)} games, every move legal and in time "
                f"({sum(len(g.record.turns) for g in self.games if g.record)} moves)")


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


def program_bot(command: str, time_control: TimeControl | None = None) -> ExecBot:
    """The bot of `command`: a program (``exec:``'s command) or, as ``hosted:DIR``, a
    built bot in its sandbox (`arena.sandbox.hosted`)."""
    if command.startswith(HOSTED_PREFIX):
        from arena.sandbox.hosted import HostedBot

        return HostedBot(command[len(HOSTED_PREFIX):], time_control=time_control)
    return ExecBot(command, time_control=time_control)


def check_program(registry: Registry, command: str, settings: Mapping[str, Mapping[str, Any]],
                  *, games: int = 2, opponent: str | None = None,
                  time_control: TimeControl | None = None, seed: int = 1,
                  progress: Callable[[CheckedGame], None] | None = None) -> CheckReport:
    """Play `games` games of each game in `settings` (name -> settings), the program
    taking seat 0 and 1 in turn, against `opponent` (a spec; by default
    `default_opponent`)."""
    report = CheckReport()
    bot = program_bot(command, time_control)
    try:
        for name, game_settings in settings.items():
            game = registry.load_game(name, game_settings)
            against = opponent or default_opponent(registry, name)
            other = registry.make_bot(game, against)
            for index in range(games):
                seat = index % 2
                bots = [bot, other] if seat == 0 else [other, bot]
                names = [command, against] if seat == 0 else [against, command]
                try:
                    match = play_match(game, bots, seed=seed + index, names=names,
                                       match_id=f"check-{name}-{index}")
                except Exception as error:  # noqa: BLE001 - the program's failures forfeit; this is ours
                    checked = CheckedGame(name, seat, against, None,
                                          f"{type(error).__name__}: {error}")
                else:
                    checked = CheckedGame(name, seat, against, match.record())
                report.games.append(checked)
                if progress is not None:
                    progress(checked)
    finally:
        bot.close()
    return report


async def check_websocket_bot(
        registry: Registry, settings: Mapping[str, Mapping[str, Any]], *, games: int = 2,
        opponent: str | None = None, time_control: TimeControl | None = None, seed: int = 1,
        name: str = "mybot", port: int = 0, connect_timeout: float = 300.0,
        announce: Callable[[str, str], None] | None = None,
        progress: Callable[[CheckedGame], None] | None = None) -> CheckReport:
    """`check_program` for a WebSocket bot: a throwaway server on 127.0.0.1:`port` (0:
    any free port) with one account, `name`; `announce(url, token)` says where to
    connect; once the bot is connected (within `connect_timeout` seconds, else
    `TimeoutError`), the games are played there against house bots.
    """
    from arena.app import Arena
    from arena.server import ServerConfig

    report = CheckReport()
    control = time_control or TimeControl()
    with tempfile.TemporaryDirectory(prefix="arena-check-") as directory:
        config = ServerConfig(host="127.0.0.1", port=port,
                              db=str(Path(directory) / "check.sqlite"))
        arena = Arena(config, registry=registry, web=False)  # the bots' port, no web
        await arena.start()
        server = arena.server
        try:
            storage = server.storage
            assert storage is not None
            token = await storage.add_bot(name)
            if announce is not None:
                announce(server.url, token)
            async with asyncio.timeout(connect_timeout):
                while name not in server.sessions:
                    await asyncio.sleep(0.05)
            for game_name, game_settings in settings.items():
                game = registry.load_game(game_name, game_settings)
                against = opponent or default_opponent(registry, game_name)
                for index in range(games):
                    seat = index % 2
                    players = [name, f"house:{against}"]
                    if seat:
                        players.reverse()
                    try:
                        record = await server.play_game(
                            game_name, game.settings(), players, seed=seed + index,
                            time_control=control)
                    except Exception as error:  # noqa: BLE001 - the bot's failures forfeit; this is ours
                        checked = CheckedGame(game_name, seat, against, None,
                                              f"{type(error).__name__}: {error}")
                    else:
                        checked = CheckedGame(game_name, seat, against, record)
                    report.games.append(checked)
                    if progress is not None:
                        progress(checked)
        finally:
            await arena.close()
    return report
