"""Varied starts: a ladder game's settings drawn from a committed seed.

A ladder with a ``generator`` (`arena.server.config.LadderConfig.generator`) plays a
fresh start every pairing. The server draws the seeds of the pairing's two games
first; the start is drawn from the smaller of the two (`pair_start_seed`), which the
server commits to in its game's ``game_start`` and reveals in its ``game_over``
(`arena.seeds`), through a generator of its own::

    start = random.Random(int(sha256("arena-start-v1:{seed}"), 16))   # seed in decimal
    settings = GameClass.from_settings(GameClass.generate(start, params)).settings()

so anybody holding the two revealed seeds and the ladder's parameters draws the same
settings again, and the draw tells nothing of the dice (a hash stands between them).
Both games of the pairing play these settings (each on its own dice), and each game's
stored settings are the drawn ones.

    >>> from arena.registry import default_registry
    >>> heaps = default_registry().game_class("heaps")
    >>> draw_settings(heaps, {}, 42) == draw_settings(heaps, {}, 42)
    True
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from typing import Any

from arena.errors import SettingsError
from arena.game import Game
from arena.seeds import seed_to_text

__all__ = ["START_PREFIX", "Params", "draw_flag", "draw_settings", "generator_params",
           "pair_start_seed", "start_rng"]

START_PREFIX = "arena-start-v1"
"""Versions the hashed text, so that a later scheme cannot be confused with this one."""


def pair_start_seed(seeds: Sequence[int]) -> int:
    """The seed a pairing's start is drawn from: the smaller of its games' seeds (which
    game is "first" is nowhere to be seen afterwards; the smaller one is)."""
    return min(seeds)


def start_rng(seed: int) -> random.Random:
    """The generator a start is drawn with, from the (committed) seed `seed`."""
    text = f"{START_PREFIX}:{seed_to_text(seed)}"
    return random.Random(int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16))


def draw_settings(game: type[Game[Any, Any]], params: Mapping[str, Any],
                  seed: int) -> dict[str, Any]:
    """The settings of `game` drawn with `params` from `seed` (module docstring), as
    the game writes them (`Game.settings`: what a game record stores).

    Raises:
        SettingsError: the game has no generator, or the parameters are not its own.
    """
    return game.from_settings(game.generate(start_rng(seed), params)).settings()


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


class Params:
    """A game generator's parameters, read one by one with their defaults and bounds,
    each refusal a `SettingsError` naming the game and the parameter; `done` refuses
    the parameters nobody read (a misspelt one would otherwise be ignored).

        >>> params = Params("sim", {"vertices": [5, 7]})
        >>> params.span("vertices", (5, 7), 3, 12)
        (5, 7)
        >>> params.done()
    """

    def __init__(self, game: str, params: Mapping[str, Any]) -> None:
        self.game = game
        self._params = dict(params)
        self._read: set[str] = set()

    def _error(self, name: str, wanted: str) -> SettingsError:
        return SettingsError(f"{self.game} generator: {name} must be {wanted}, not "
                             f"{self._params[name]!r}")

    def get(self, name: str, default: Any) -> Any:
        """The raw value of `name`, or `default`."""
        self._read.add(name)
        return self._params.get(name, default)

    def span(self, name: str, default: tuple[int, int], low: int, high: int) -> tuple[int, int]:
        """An integer range ``[a, b]`` (or one integer: ``[n, n]``) within `low`..`high`."""
        value = self.get(name, default)
        if isinstance(value, int) and not isinstance(value, bool):
            value = (value, value)
        if (not isinstance(value, list | tuple) or len(value) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
                or not low <= value[0] <= value[1] <= high):
            raise self._error(name, f"an integer or a range [a, b] with {low} <= a <= b <= {high}")
        return int(value[0]), int(value[1])

    def flag(self, name: str, default: bool | str) -> bool | str:
        """True, false or ``"random"`` (drawn each start)."""
        value = self.get(name, default)
        if isinstance(value, bool):
            return value
        if value != "random":
            raise self._error(name, 'true, false or "random"')
        return "random"

    def choices(self, name: str, default: Sequence[str], known: Sequence[str]) -> list[str]:
        """A non-empty list of names out of `known`."""
        value = self.get(name, list(default))
        if isinstance(value, str):
            value = [value]
        if (not isinstance(value, list) or not value
                or not all(isinstance(v, str) and v in known for v in value)):
            raise self._error(name, f"a non-empty list out of {', '.join(known)}")
        return list(value)

    def done(self) -> None:
        """Refuse the parameters that were not read."""
        unknown = sorted(set(self._params) - self._read)
        if unknown:
            raise SettingsError(f"{self.game} generator: unknown parameters {unknown} "
                                f"(known: {', '.join(sorted(self._read))})")


def draw_flag(rng: random.Random, value: bool | str) -> bool:
    """A `Params.flag` for one start: ``"random"`` is a coin toss."""
    return rng.random() < 0.5 if value == "random" else bool(value)
