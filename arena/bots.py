"""Bots: the `Bot` protocol, typed bot parameters, factories and bot spec strings.

A bot spec string selects a bot and its parameters everywhere (CLI, tournaments,
server): ``search:depth=4``, ``adaptive-random:omega=10,finish=search``,
``mixed:points=1,1,1,10``. A comma-separated token without ``=`` continues the list
value of the parameter before it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from arena.errors import ArenaError, BotSpecError
from arena.game import Game, Outcome, Termination

__all__ = [
    "EXEC_PREFIX",
    "HOSTED_PREFIX",
    "Bot",
    "BotFactory",
    "BotGaveUp",
    "BotSpec",
    "Param",
    "finish_bot",
    "parse_bot_list",
    "parse_bot_spec",
    "prepare_bot",
]

EXEC_PREFIX = "exec:"
"""``exec:COMMAND`` names a program playing through the line protocol (`arena.exec_bot`)."""
HOSTED_PREFIX = "hosted:"
"""``hosted:DIR`` names a built bot playing from its sandbox (`arena.sandbox.hosted`)."""
_WHOLE = {EXEC_PREFIX: "command", HOSTED_PREFIX: "dir"}
"""The spec prefixes whose value is taken whole (up to a comma), and its parameter."""


class Bot(Protocol):
    """A strategy: given the game, the state (a read-only value) and its own seeded
    generator, return a move (an object of the game's move type, or a move string).

    Bots must be reproducible: the same state and the same generator state give the
    same move. They may keep caches but no per-game history the state does not hold.
    (`game` is typed `Any` so that a bot can name the game class it plays.)

    A bot may also define ``prepare(game) -> None``, called once a game is bound to
    it and before its clock can run (see `prepare_bot`): the place to load or build
    tables, which would otherwise be built on the first move, against the clock. It
    may be called once per game, so it must be cheap once the work is done.
    """

    def choose_move(self, game: Any, state: Any, rng: random.Random) -> Any: ...


def prepare_bot(bot: Bot, game: Game[Any, Any]) -> None:
    """Call the bot's optional ``prepare(game)`` hook (see `Bot`), if it has one.

    The in-process match loop (`arena.match.Match.run`, so `play_match` and
    tournaments), the server for its house players and the client SDK's `BuiltinBot`
    call it before the bot's first move.
    """
    prepare = getattr(bot, "prepare", None)
    if prepare is not None:
        prepare(game)


def finish_bot(bot: Bot, game: Game[Any, Any], seat: int, outcome: Outcome
               ) -> Sequence[tuple[int | None, str]]:
    """Call the bot's optional ``game_over(game, seat, outcome)`` hook, which returns its
    debug lines of that game as ``(turn or None, text)`` pairs (kept with the record;
    the local runner's program's ``#`` lines and standard error)."""
    game_over = getattr(bot, "game_over", None)
    if game_over is None:
        return ()
    notes: Sequence[tuple[int | None, str]] = game_over(game, seat, outcome)
    return notes


class BotGaveUp(ArenaError):
    """Raised by a bot's ``choose_move`` that cannot answer (its program ran out of time
    or died): the match forfeits the seat with `termination` instead of failing."""

    def __init__(self, message: str, termination: Termination = Termination.TIMEOUT) -> None:
        super().__init__(message)
        self.termination = termination


@dataclass(frozen=True)
class Param:
    """A typed bot parameter with a default and validation.

    `kind` is ``int``, ``float``, ``str``, ``choice`` (one of `choices`) or ``ints``
    (a comma-separated list of non-negative integers).
    """

    name: str
    kind: str
    default: Any
    doc: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()

    def parse(self, text: str) -> Any:
        """Convert and validate a value given as text; raise `BotSpecError`."""
        try:
            if self.kind == "int":
                value: Any = int(text)
            elif self.kind == "float":
                value = float(text)
            elif self.kind == "ints":
                value = tuple(int(part) for part in text.split(","))
            else:
                value = text
        except ValueError:
            raise BotSpecError(
                f"parameter {self.name!r}: {text!r} is not {self._kind_phrase()}",
                code={"int": "param-not-integer", "float": "param-not-number",
                      "ints": "param-not-integers"}.get(self.kind, "param-not-valid"),
                params={"param": self.name, "value": text[:60]},
            ) from None
        self.validate(value)
        return value

    def validate(self, value: Any) -> None:
        if self.kind == "choice" and value not in self.choices:
            raise BotSpecError(
                f"parameter {self.name!r}: {value!r} is not one of {', '.join(self.choices)}",
                code="param-not-choice",
                params={"param": self.name, "value": str(value)[:60],
                        "choices": ", ".join(self.choices)},
            )
        numbers = value if self.kind == "ints" else (value,)
        if self.kind in ("int", "float", "ints"):
            for number in numbers:
                if self.minimum is not None and number < self.minimum:
                    raise BotSpecError(
                        f"parameter {self.name!r}: {number} is below the minimum {self.minimum:g}",
                        code="param-below-minimum",
                        params={"param": self.name, "value": f"{number:g}",
                                "minimum": f"{self.minimum:g}"},
                    )
                if self.maximum is not None and number > self.maximum:
                    raise BotSpecError(
                        f"parameter {self.name!r}: {number} is above the maximum {self.maximum:g}",
                        code="param-above-maximum",
                        params={"param": self.name, "value": f"{number:g}",
                                "maximum": f"{self.maximum:g}"},
                    )

    def format(self, value: Any) -> str:
        if self.kind == "ints":
            return ",".join(str(v) for v in value)
        if self.kind == "float":
            return f"{value:g}"
        return str(value)

    def _kind_phrase(self) -> str:
        return {
            "int": "an integer",
            "float": "a number",
            "ints": "a comma-separated list of integers",
        }.get(self.kind, "valid")


@dataclass(frozen=True)
class BotFactory:
    """A named, parametrised way to make bots for one game."""

    name: str
    game: str
    description: str
    create: Callable[[Game[Any, Any], Mapping[str, Any]], Bot]
    params: tuple[Param, ...] = ()
    presets: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Named parameter sets, selected as ``name:preset`` (e.g. ``mixed:peaks``)."""

    def param(self, name: str) -> Param:
        for param in self.params:
            if param.name == name:
                return param
        known = ", ".join(p.name for p in self.params) or "none"
        raise BotSpecError(f"bot {self.name!r} has no parameter {name!r} (parameters: {known})",
                           code="unknown-param",
                           params={"bot": self.name, "param": name[:60], "known": known})

    def defaults(self) -> dict[str, Any]:
        return {param.name: param.default for param in self.params}


@dataclass(frozen=True)
class BotSpec:
    """A bot name with explicit parameter values, as written in a spec string."""

    name: str
    params: tuple[tuple[str, str], ...] = ()
    preset: str | None = None

    def __str__(self) -> str:
        for prefix, param in _WHOLE.items():
            if self.name == prefix[:-1]:
                return prefix + dict(self.params).get(param, "")
        parts = ([self.preset] if self.preset else []) + [f"{k}={v}" for k, v in self.params]
        return f"{self.name}:{','.join(parts)}" if parts else self.name

    def resolve(self, factory: BotFactory) -> dict[str, Any]:
        """The full, validated parameter values for `factory`."""
        values = factory.defaults()
        if self.preset is not None:
            if self.preset not in factory.presets:
                known = ", ".join(factory.presets) or "none"
                raise BotSpecError(
                    f"bot {self.name!r} has no preset {self.preset!r} (presets: {known})",
                    code="unknown-preset",
                    params={"bot": self.name, "preset": self.preset[:60], "known": known})
            values.update(factory.presets[self.preset])
        for key, text in self.params:
            values[key] = factory.param(key).parse(text)
        return values


def parse_bot_spec(text: str) -> BotSpec:
    """Parse one spec such as ``adaptive-random:omega=10,finish=search``."""
    specs = parse_bot_list(text, known_names=None)
    if len(specs) != 1:
        raise BotSpecError(f"expected one bot spec, got {len(specs)} in {text!r}",
                           code="not-one-spec", params={"count": len(specs), "text": text[:80]})
    return specs[0]


def parse_bot_list(text: str, known_names: Sequence[str] | None) -> list[BotSpec]:
    """Parse a comma-separated list of bot specs.

    A token containing ``:`` or naming a known bot starts a new spec; ``key=value``
    sets a parameter of the current spec; any other token continues the value of the
    parameter before it (``mixed:points=1,1,1,10``).
    """
    stripped = text.strip()
    if not stripped:
        raise BotSpecError("empty bot spec", code="empty-spec")
    specs: list[tuple[str, list[list[str]], str | None]] = []
    for token in (t.strip() for t in stripped.split(",")):
        if not token:
            raise BotSpecError(f"empty item in bot list {text!r}", code="empty-spec-item",
                               params={"text": text[:80]})
        prefix = next((p for p in _WHOLE if token.startswith(p)), None)
        if prefix is not None:  # a command line or a directory, taken whole (up to a comma)
            value = token[len(prefix):].strip()
            if not value:
                raise BotSpecError(f"{token!r}: give the {_WHOLE[prefix]} after {prefix!r}")
            specs.append((prefix[:-1], [[_WHOLE[prefix], value]], None))
            continue
        starts_new = ":" in token or not specs or (
            known_names is not None and token in known_names
        )
        if starts_new:
            name, _, rest = token.partition(":")
            name = name.strip()
            if not name:
                raise BotSpecError(f"missing bot name in {token!r}", code="no-bot-name",
                                   params={"token": token[:80]})
            specs.append((name, [], None))
            if not rest:
                continue
            token = rest.strip()
        name, params, preset = specs[-1]
        if "=" in token:
            key, _, value = token.partition("=")
            if not key.strip():
                raise BotSpecError(f"missing parameter name in {token!r}", code="no-param-name",
                                   params={"token": token[:80]})
            params.append([key.strip(), value.strip()])
        elif params:
            params[-1][1] += "," + token
        elif preset is None and ":" in text and not params:
            specs[-1] = (name, params, token)
        else:
            raise BotSpecError(f"cannot read {token!r} in bot spec {text!r}",
                               code="unreadable-spec", params={"token": token[:80]})
    return [
        BotSpec(name, tuple((k, v) for k, v in params), preset) for name, params, preset in specs
    ]
