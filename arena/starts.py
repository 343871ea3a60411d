"""Varied starts: a ladder game's settings drawn from a committed seed.

A ladder with a ``generator`` (`arena.server.config.LadderConfig.generator`) plays a
fresh start every pairing. The start is drawn from the seed of the pairing's first
game, which the server commits to in that game's ``game_start`` and reveals in its
``game_over`` (`arena.seeds`), through a generator of its own::

    start = random.Random(int(sha256("arena-start-v1:{seed}"), 16))   # seed in decimal
    settings = GameClass.generate(start, params)

so anybody holding the revealed seed and the ladder's parameters draws the same
settings again, and the draw tells nothing of the dice (a hash stands between them).
Both games of the pairing play these settings (the second with dice of its own), and
each game's stored settings are the drawn ones.

    >>> from arena.registry import default_registry
    >>> heaps = default_registry().game_class("heaps")
    >>> draw_settings(heaps, {}, 42) == draw_settings(heaps, {}, 42)
    True
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from typing import Any

from arena.errors import SettingsError
from arena.game import Game
from arena.seeds import seed_to_text

__all__ = ["START_PREFIX", "draw_settings", "generator_params", "start_rng"]

START_PREFIX = "arena-start-v1"
"""Versions the hashed text, so that a later scheme cannot be confused with this one."""


def start_rng(seed: int) -> random.Random:
    """The generator a start is drawn with, from the (committed) seed `seed`."""
    text = f"{START_PREFIX}:{seed_to_text(seed)}"
    return random.Random(int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16))


def draw_settings(game: type[Game[Any, Any]], params: Mapping[str, Any],
                  seed: int) -> dict[str, Any]:
    """The settings of `game` drawn with `params` from `seed` (module docstring).

    Raises:
        SettingsError: the game has no generator, or the parameters are not its own.
    """
    return game.generate(start_rng(seed), params)


def generator_params(value: Any) -> dict[str, Any]:
    """A ladder's ``generator`` as parameters: ``"default"`` is ``{}`` (the game's
    own bounds), a table its parameters.

    Raises:
        SettingsError: anything else.
    """
    if value == "default":
        return {}
    if isinstance(value, Mapping) and all(isinstance(key, str) for key in value):
        return dict(value)
    raise SettingsError(f"generator: give \"default\" or a table of the game's generator "
                        f"parameters, not {value!r}")
