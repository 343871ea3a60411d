"""Round-robin tournaments between bots, their tables, and the thesis's experiments."""

from arena.tournament.report import markdown_table, summarise, to_json, wilson, write_reports
from arena.tournament.runner import (
    BotMaker,
    CellResult,
    GameResult,
    TournamentResult,
    TournamentSpec,
    game_id,
    game_seed,
    iter_game_logs,
    parse_game_id,
    read_game_log,
    registry_bot,
    run_tournament,
)

__all__ = [
    "BotMaker",
    "CellResult",
    "GameResult",
    "TournamentResult",
    "TournamentSpec",
    "game_id",
    "game_seed",
    "iter_game_logs",
    "markdown_table",
    "parse_game_id",
    "read_game_log",
    "registry_bot",
    "run_tournament",
    "summarise",
    "to_json",
    "wilson",
    "write_reports",
]
