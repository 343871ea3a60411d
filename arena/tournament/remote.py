"""Round robins over an arena server: bots connected to it play as ``ws:NAME``.

The runner asks the server (as an operator account) to play each game; bots given as
``ws:NAME`` are the server's connected bots, every other spec a built-in bot the server
runs as a house player. Results, tables and stored logs are the same as for
in-process tournaments (`arena.tournament.runner`), game ids and dice seeds included.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from arena.game import Termination
from arena.record import to_jsonl
from arena.tournament.runner import (
    CHUNK,
    CellResult,
    GameResult,
    TournamentResult,
    TournamentSpec,
    game_id,
    game_seed,
    write_chunk_logs,
)
from clients.operator import GameRequest, play_games

__all__ = ["REMOTE_PREFIX", "player_of", "remote_pairings", "run_remote_tournament"]

REMOTE_PREFIX = "ws:"


def player_of(spec: str) -> str:
    """The server's name for a tournament bot: ``ws:NAME`` is the connected bot NAME,
    any other spec a house bot the server runs (``house:SPEC``)."""
    return spec[len(REMOTE_PREFIX):] if spec.startswith(REMOTE_PREFIX) else f"house:{spec}"


def remote_pairings(bots: tuple[str, ...], self_play: bool = True) -> tuple[tuple[int, int], ...]:
    """Every ordered pair, without a connected bot against itself (one connection
    cannot hold both seats of a game)."""
    return tuple(
        (i, j)
        for i in range(len(bots))
        for j in range(len(bots))
        if (i != j or (self_play and not bots[i].startswith(REMOTE_PREFIX)))
    )


def run_remote_tournament(
    spec: TournamentSpec,
    *,
    url: str,
    token: str,
    out: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    concurrency: int = 8,
) -> TournamentResult:
    """Play the tournament on the server at `url` with an operator `token`."""
    pairings = spec.pairings()
    cells = {pair: CellResult() for pair in pairings}
    total = len(pairings) * spec.games
    done = 0
    for first, second in pairings:
        players = (player_of(spec.bots[first]), player_of(spec.bots[second]))
        for start in range(0, spec.games, CHUNK):
            stop = min(spec.games, start + CHUNK)
            requests = [
                GameRequest(spec.game, spec.settings, players, seed=game_seed(spec.seed, index))
                for index in range(start, stop)
            ]
            records = play_games(url, token, requests, concurrency=concurrency)
            lines = []
            for index, record in zip(range(start, stop), records, strict=True):
                outcome = record.outcome
                assert outcome is not None
                scores = outcome.scores or (0, 0)
                cells[(first, second)].add(GameResult(
                    first, second, index, outcome.winner, (int(scores[0]), int(scores[1])),
                    outcome.termination is not Termination.NORMAL,
                ))
                lines.append(json.dumps({"id": game_id(first, second, index), "log": to_jsonl(record)}))
            if out is not None:
                write_chunk_logs(out, first, second, start, lines)
            done += stop - start
            if progress is not None:
                progress(done, total)
    result = TournamentResult(spec, cells)
    if out is not None:
        from arena.tournament.report import write_reports

        write_reports(result, out)
    return result
