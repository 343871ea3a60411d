"""A plugin of test house bots, loaded by the server's workers (they import it by name).

``tiles-recorder`` is the random tile bot, except that it notes every ``prepare`` and
move (with its process id) in the file `log`, may take `delay` seconds to prepare,
`think` seconds to move, or fail to prepare (`fail`). ``tiles-hog`` allocates
`mib` MiB on every move.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Mapping
from typing import Any

from arena.bots import Bot, BotFactory, Param
from arena.game import Game
from arena.hookspecs import hookimpl
from arena.registry import BUILTIN_PLUGINS
from bots.tiles.bots import RandomBot

PLUGINS = (*BUILTIN_PLUGINS, "tests.server.house_bots")
"""A registry's plugins with these bots."""


def read_log(path: Any) -> list[dict[str, Any]]:
    try:
        with open(path, encoding="utf-8") as lines:
            return [json.loads(line) for line in lines]
    except FileNotFoundError:
        return []


class Recorder(RandomBot):
    def __init__(self, log: str, delay: float, think: float, fail: bool) -> None:
        self.log = log
        self.delay = delay
        self.think = think
        self.fail = fail

    def _note(self, event: str) -> None:
        with open(self.log, "a", encoding="utf-8") as out:
            out.write(json.dumps({"event": event, "pid": os.getpid(), "at": time.time()}) + "\n")

    def prepare(self, game: Any) -> None:
        self._note("prepare")
        time.sleep(self.delay)  # a slow table load
        if self.fail:
            raise RuntimeError("no table for you")

    def choose_move(self, game: Any, state: Any, rng: random.Random) -> Any:
        self._note("move")
        time.sleep(self.think)  # a slow search
        return super().choose_move(game, state, rng)


class Hog(RandomBot):
    def __init__(self, mib: int) -> None:
        self.mib = mib

    def choose_move(self, game: Any, state: Any, rng: random.Random) -> Any:
        hoard = bytearray(self.mib * 1024 * 1024)
        return super().choose_move(game, state, rng) if hoard else None


def _recorder(game: Game[Any, Any], params: Mapping[str, Any]) -> Bot:
    return Recorder(params["log"], params["delay"], params["think"], bool(params["fail"]))


def _hog(game: Game[Any, Any], params: Mapping[str, Any]) -> Bot:
    return Hog(params["mib"])


@hookimpl
def arena_bots() -> list[BotFactory]:
    return [
        BotFactory("tiles-recorder", "tiles", "Test: the random bot, noting what it does.",
                   _recorder, (
                       Param("log", "str", "", "file to note events in"),
                       Param("delay", "float", 0.0, "seconds prepare takes", 0, 60),
                       Param("think", "float", 0.0, "seconds a move takes", 0, 60),
                       Param("fail", "int", 0, "1: prepare fails", 0, 1),
                   )),
        BotFactory("tiles-hog", "tiles", "Test: allocates memory on every move.", _hog,
                   (Param("mib", "int", 64, "MiB allocated per move", 1, 1 << 16),)),
    ]
