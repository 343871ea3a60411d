"""Clients for the arena server: the bot SDK, a blocking wrapper, the stdio bridge and
the operator (tournament) client. See `docs/server.md`.

    from clients import run, Turn
    run("ws://127.0.0.1:8765/", token, lambda turn: turn.legal_moves(limit=1)[0])
"""

from clients.challenges import ChallengeNotice, ChallengeRefused
from clients.sdk import (
    ArenaBot,
    ArenaClient,
    BotFailure,
    BuiltinBot,
    GameInfo,
    GameResult,
    Rejected,
    Turn,
    run,
)

__all__ = [
    "ArenaBot",
    "ArenaClient",
    "BotFailure",
    "BuiltinBot",
    "ChallengeNotice",
    "ChallengeRefused",
    "GameInfo",
    "GameResult",
    "Rejected",
    "Turn",
    "run",
]
