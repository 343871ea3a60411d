"""Registers the built-in substitution-game bots (through the same hook as third parties)."""

from __future__ import annotations

from arena.bots import BotFactory, Param
from arena.hookspecs import hookimpl
from bots.substitution import adaptive, random_bot, search, shortwords, weighted
from bots.substitution.metrics import DEFAULT_TOLERANCE

GAME = "substitution"

TOLERANCE = Param(
    "tolerance", "float", DEFAULT_TOLERANCE,
    "relative stopping tolerance of the M2/M3 iteration (thesis: 0.05)",
    minimum=1e-12, maximum=1,
)
DEPTH = Param("depth", "int", 4, "search depth (bank steps looked ahead)", minimum=1, maximum=12)
OMEGA = Param(
    "omega", "float", 10.0,
    "switch to the finishing strategy once nonterminals x omega >= moves left", minimum=0,
)
FINISH = Param(
    "finish", "choice", "search", "finishing strategy", choices=("search", "short-words"),
)
POINTS = Param(
    "points", "ints", (1, 1, 1, 1),
    "probability points of better-smart-random, short-words, search, adaptive-random",
    minimum=0,
)


def _weighted(name: str, description: str) -> BotFactory:
    return BotFactory(name, GAME, description, weighted.factory(name), (TOLERANCE,))


@hookimpl
def arena_bots() -> list[BotFactory]:
    from bots.substitution import deep
    from bots.substitution.program import bots as program

    return [
        BotFactory(
            name="random",
            game=GAME,
            description="uniformly random legal moves (thesis Algorithm 1, equal weights)",
            create=random_bot.create,
        ),
        _weighted("smart-random", "Algorithm 1 weighted by M2 (weights 2)"),
        _weighted("better-smart-random", "Algorithm 1 weighted by sqrt(M3) (weights 3)"),
        _weighted("inversed-smart-random", "Algorithm 1 weighted by 1.01 - M3, 0 for useless (weights 4)"),
        _weighted("improved-random", "the appendix's ImprovedRandomStrategy (M2 weights, 0.01 for finished)"),
        BotFactory(
            "stupid-short-words", GAME, "Algorithm 2 with M1: fewest nonterminals first",
            shortwords.create_stupid,
        ),
        BotFactory(
            "short-words", GAME, "Algorithm 2 with M2: quickest to finish first",
            shortwords.create, (TOLERANCE,),
        ),
        BotFactory(
            "search", GAME, "Algorithms 3 and 4: best M2 over bank-step sequences up to depth",
            search.create, (DEPTH, TOLERANCE),
        ),
        BotFactory(
            "adaptive-random", GAME,
            "inversed smart random while nonterminals x omega < moves left, then finish",
            adaptive.create_adaptive, (OMEGA, FINISH, DEPTH, TOLERANCE),
        ),
        BotFactory(
            "mixed", GAME,
            "each turn one of better-smart-random, short-words, search, adaptive-random by points",
            adaptive.create_mixed, (POINTS, DEPTH, OMEGA, TOLERANCE),
            presets={name: {"points": points} for name, points in adaptive.MIXED_PRESETS.items()},
        ),
        *deep.factories(),
        *program.factories(),
    ]
