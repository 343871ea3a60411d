"""Tournaments and matches between bots: formats, statistics, SPRT, storage, clusters.

The modules, by job: `spec` (what a tournament is, how games are named), `formats`
(Swiss pairing), `batch` (the unit of work a worker plays), `executors` and `cluster`
(where batches run), `store` (results database and logs, resume), `runner` (plays a
tournament), `matchup` (two bots until the SPRT decides), `stats` (Elo, LOS, GSPRT),
`report` (tables), `remote` (on an arena server). The thesis's experiments are a layer
above (`arena.experiments`), which nothing here imports.
"""

from arena.tournament.batch import CHUNK, Batch, BatchResult, BotMaker, play_batch, registry_bot
from arena.tournament.report import markdown_table, summarise, to_json, wilson, write_reports
from arena.tournament.results import CellResult, GameResult, TournamentResult, game_result
from arena.tournament.runner import run_tournament
from arena.tournament.spec import (
    GameKey,
    Pairing,
    TournamentSpec,
    game_id,
    game_seed,
    parse_game_id,
)
from arena.tournament.store import iter_game_logs, read_game_log

__all__ = [
    "CHUNK",
    "Batch",
    "BatchResult",
    "BotMaker",
    "CellResult",
    "GameKey",
    "GameResult",
    "Pairing",
    "TournamentResult",
    "TournamentSpec",
    "game_id",
    "game_result",
    "game_seed",
    "iter_game_logs",
    "markdown_table",
    "parse_game_id",
    "play_batch",
    "read_game_log",
    "registry_bot",
    "run_tournament",
    "summarise",
    "to_json",
    "wilson",
    "write_reports",
]
