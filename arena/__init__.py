"""The arena: strict referee, bots, tournaments and logs for turn-based games.

The public API: the game contract (`Game`, `GameType`, `Outcome`, `Rejection`), the
`Referee` that judges moves, the `Match` loop and `play_match`, the plugin `Registry`
and the `hookimpl` marker for plugins.
"""

from arena import compiled as _compiled  # noqa: F401  (first: no stale extension loads below)
from arena.game import (
    CHANCE,
    TERMINAL,
    Game,
    GameType,
    LegalOptions,
    Outcome,
    Rejection,
    Termination,
)
from arena.hookspecs import hookimpl
from arena.match import Match, play_match
from arena.referee import Referee, Verdict
from arena.registry import Registry, default_registry

__all__ = [
    "CHANCE",
    "TERMINAL",
    "Game",
    "GameType",
    "LegalOptions",
    "Match",
    "Outcome",
    "Referee",
    "Registry",
    "Rejection",
    "Termination",
    "Verdict",
    "default_registry",
    "hookimpl",
    "play_match",
]
