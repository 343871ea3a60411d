"""The game API: what every game plugin implements, and the values it speaks in.

A game is pure rules: no I/O, no clocks, no randomness of its own. A `Game` object is
the rules bound to one set of settings (a grammar and a number of moves, a graph size,
a deal of cards...). States are immutable values; every transition returns a new state.

Chance is an explicit player, as in OpenSpiel: when `to_act(state)` is `CHANCE`, the
caller (the referee) samples one of `chance_outcomes(state)` with its own seeded
generator and applies it with `apply_chance`. A game therefore replays exactly from
its settings, the chance outcomes and the moves.

Moves travel as strings (the move-string codec: `parse_move` / `format_move`) so that
bots written in any language, logs and the wire all speak the same text. `check_move`
is the single place where a move is judged: it returns the next state or a precise
`Rejection`, and never raises for bad input.
"""

from __future__ import annotations

import enum
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

if TYPE_CHECKING:
    import random

    from arena.record import MatchRecord

from arena.errors import SettingsError
from arena.limits import SettingLimit

__all__ = [
    "CHANCE",
    "TERMINAL",
    "Game",
    "GameType",
    "LegalOptions",
    "Outcome",
    "Rejection",
    "StepOptions",
    "Termination",
]

CHANCE = -1
"""`Game.to_act` value: nature moves next (roll the dice, deal the cards)."""
TERMINAL = -2
"""`Game.to_act` value: the game is over."""

StateT = TypeVar("StateT")
MoveT = TypeVar("MoveT")


@dataclass(frozen=True)
class GameType:
    """What the lobby, the referee and the registry need to know about a game, as data."""

    name: str
    """Registry key and `--game` value, e.g. ``"substitution"``."""
    title: str
    description: str
    move_syntax: str
    """One line telling a bot author how a move string looks."""
    min_players: int = 2
    max_players: int = 2
    chance: bool = False
    """True if the game has chance events (dice, deals)."""
    chance_name: str = "chance"
    """How a chance outcome is called in logs and messages (``"roll"``, ``"dice"``)."""
    limits: tuple[SettingLimit, ...] = ()
    """The sizes of the settings a server bounds before it referees a game (for bots
    with accounts, and stricter for guests); `Game.sizes` measures them
    (`arena.limits`)."""
    step_separator: str | None = None
    """For games whose moves are built step by step (`Game.legal_steps`): what joins the
    steps in a move string (``", "`` in the substitution game); ``None`` otherwise."""


@dataclass(frozen=True)
class Rejection:
    """Why a move was refused: a stable machine `code` and a message for people.

    `step` is the 0-based index of the offending part of a multi-part move, where the
    game has such parts (the substitution game's steps); ``None`` otherwise.
    """

    code: str
    message: str
    step: int | None = None

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class Termination(enum.Enum):
    """How a game ended."""

    NORMAL = "normal"
    ILLEGAL_MOVE = "illegal-move"
    TIMEOUT = "timeout"
    DISCONNECT = "disconnect"
    CRASH = "crash"
    """A program bot (``exec:``) died during the game: killed by a signal, or exited
    with a non-zero status (the detail says which, with its last standard error)."""
    RESIGNATION = "resignation"
    ABORTED = "aborted"


@dataclass(frozen=True)
class Outcome:
    """The result of a finished game.

    `winner` is the winning seat, or ``None`` for a draw (and for an aborted game).
    `scores` are the game's own scores where it has them (``None`` for a forfeit
    before the end); games without scores use 1 for a win and 0 otherwise. `loser`
    names the seat that forfeited, if any.
    """

    winner: int | None
    scores: tuple[int | float, ...] | None = None
    termination: Termination = Termination.NORMAL
    loser: int | None = None
    detail: str = ""

    @property
    def result(self) -> str:
        """``"first"``, ``"second"``, ``"draw"``, ``"aborted"`` or ``"seat N"`` (N >= 2)."""
        if self.termination is Termination.ABORTED:
            return "aborted"
        if self.winner is None:
            return "draw"
        return {0: "first", 1: "second"}.get(self.winner, f"seat {self.winner}")

    def to_json(self) -> dict[str, Any]:
        return {
            "result": self.result,
            "winner": self.winner,
            "scores": list(self.scores) if self.scores is not None else None,
            "termination": self.termination.value,
            "loser": self.loser,
            "detail": self.detail,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Outcome:
        scores = data.get("scores")
        return cls(
            winner=data.get("winner"),
            scores=tuple(scores) if scores is not None else None,
            termination=Termination(data.get("termination", "normal")),
            loser=data.get("loser"),
            detail=data.get("detail", ""),
        )


def winner_by_score(scores: Sequence[int | float]) -> int | None:
    """The seat with the strictly highest score, or ``None`` when the best is shared."""
    best = max(scores)
    leaders = [seat for seat, score in enumerate(scores) if score == best]
    return leaders[0] if len(leaders) == 1 else None


@dataclass(frozen=True)
class LegalOptions:
    """Legal moves where the game can list them; `complete` is False if the list was cut.

    `count` is how many legal moves there are in all: the list's length when it is
    complete, otherwise known only to games that can count their moves cheaply
    (``None``: more than were listed, too many to count).
    """

    moves: tuple[str, ...]
    complete: bool = True
    extra: Mapping[str, Any] = field(default_factory=dict)
    count: int | None = None

    def __post_init__(self) -> None:
        if self.count is None and self.complete:
            object.__setattr__(self, "count", len(self.moves))


@dataclass(frozen=True)
class StepOptions:
    """What may follow a partial move in a game whose moves are built step by step:
    the legal next `steps` (as move-string parts) and whether the move may end here
    (`problem` says why not)."""

    steps: tuple[str, ...]
    can_end: bool
    problem: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"steps": list(self.steps), "can_end": self.can_end, "problem": self.problem}


class Game(ABC, Generic[StateT, MoveT]):
    """The rules of one game bound to one set of settings.

    Subclasses set `type` and implement the abstract methods. Every method is pure: the
    same arguments always give the same answer, and nothing is printed, read or timed.
    """

    type: ClassVar[GameType]

    # -- settings -------------------------------------------------------------------

    @classmethod
    @abstractmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> Game[StateT, MoveT]:
        """Build the game from JSON-like settings; raise `arena.errors.SettingsError`."""

    @abstractmethod
    def settings(self) -> dict[str, Any]:
        """The settings as JSON-able data; `from_settings(settings())` is an equal game."""

    @classmethod
    def generate(cls, rng: random.Random, params: Mapping[str, Any]) -> dict[str, Any]:
        """Settings drawn with `rng` for a ladder's varied starts (``generator`` of a
        ``[[ladders]]`` entry), within the bounds `params` give (``{}``: the game's
        defaults); the same generator state gives the same settings. The draw is the
        referee's, from a seed it committed to (`arena.starts`), never the game's own.

        Raises:
            SettingsError: the game has no generator, or `params` are not its own.
        """
        raise SettingsError(f"the game {cls.type.name!r} has no generator of starts: give "
                            "its settings instead")

    def num_players(self) -> int:
        return self.type.min_players

    def sizes(self) -> Mapping[str, int]:
        """These settings measured by each of `type.limits` (``{"moves": 200, ...}``).

        What a server compares with the limits before it referees the game
        (`arena.limits.check_settings`); a game that declares limits measures them all.
        """
        return {}

    # -- flow -------------------------------------------------------------------------

    @abstractmethod
    def initial_state(self) -> StateT:
        """The state before anybody has moved."""

    @abstractmethod
    def to_act(self, state: StateT) -> int:
        """The seat to move (0-based), `CHANCE` or `TERMINAL`."""

    def chance_outcomes(self, state: StateT) -> Sequence[tuple[Any, int]]:
        """The possible chance outcomes as ``(outcome, integer weight)`` pairs."""
        raise NotImplementedError(f"{self.type.name} has no chance events")

    def apply_chance(self, state: StateT, outcome: Any) -> StateT:
        """Apply a chance outcome; raise `ValueError` if it is not one of the outcomes."""
        raise NotImplementedError(f"{self.type.name} has no chance events")

    # -- moves ------------------------------------------------------------------------

    @abstractmethod
    def parse_move(self, text: str) -> MoveT:
        """Parse a move string; raise `arena.errors.MalformedMove` with the reason."""

    @abstractmethod
    def format_move(self, move: MoveT) -> str:
        """The canonical move string; `parse_move(format_move(m)) == m`."""

    @abstractmethod
    def check_move(self, state: StateT, move: MoveT) -> StateT | Rejection:
        """Judge a move by the seat to act: the next state, or why it is refused."""

    def max_move_length(self) -> int | None:
        """The longest move string that can be legal with these settings (None: no
        bound). The referee refuses a longer one unread (``too-long``): reading a
        megabyte of junk would cost more than judging any legal move."""
        return None

    def legal_moves(self, state: StateT, limit: int = 1000) -> LegalOptions:
        """Legal move strings for the seat to act, at most `limit` of them."""
        raise NotImplementedError(f"{self.type.name} does not list its moves")

    def legal_steps(self, state: StateT, prefix: str) -> StepOptions | Rejection:
        """For games whose moves are built step by step (`GameType.step_separator`):
        the legal next steps after the partial move `prefix` (a move string of the
        steps so far; empty at the start of a turn), or why `prefix` is not a legal
        start. Bots that cannot list whole moves build one step at a time with it."""
        raise NotImplementedError(f"{self.type.name} moves are not built in steps")

    # -- end ------------------------------------------------------------------------

    @abstractmethod
    def outcome(self, state: StateT) -> Outcome | None:
        """The outcome of a terminal state, ``None`` while the game goes on."""

    # -- serialization and presentation ---------------------------------------------

    @abstractmethod
    def state_to_json(self, state: StateT) -> dict[str, Any]:
        """The whole state as JSON-able data (sent to bots and spectators every turn)."""

    @abstractmethod
    def state_from_json(self, data: Mapping[str, Any]) -> StateT:
        """Inverse of `state_to_json`; raise `ValueError` on bad data."""

    def facts(self, state: StateT) -> dict[str, Any]:
        """Facts recorded in the log after every move and checked on replay."""
        return {}

    def render(self, state: StateT) -> dict[str, Any]:
        """What the web UI shows of `state`, as JSON-able data; by default the JSON state.

        The game's web renderer (`web_renderer`) draws this dict as a board, in play,
        watch and replay alike. By convention a renderer that offers moves reads
        ``options``: the legal moves of the seat to act, as ``{"move": MOVE_STRING,
        "label": TEXT, ...}`` with whatever else it needs to place them (a heap, a
        card), computed here from the rules so that the browser never re-implements
        them (docs/web.md).
        """
        return self.state_to_json(state)

    # -- the machine-readable contract -------------------------------------------------

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """JSON Schemas (2020-12) of the game's ``settings``, ``state`` (`state_to_json`),
        ``chance`` (one chance outcome) and ``move`` (a move string).

        The protocol's contract (`arena schema --game NAME`, ``GET /api/schema``) puts
        them where the messages carry them, and the tests check every frame of real
        games against them. The default says little (objects, a string described by
        `GameType.move_syntax`); a game overrides it with its real layout.
        """
        kind = cls.type
        chance: dict[str, Any] = (
            {"description": f"a {kind.chance_name}"} if kind.chance
            else {"not": {}, "description": "the game has no chance events (always null)"})
        return {
            "settings": {"type": "object", "description": f"{kind.title}: settings"},
            "state": {"type": "object", "description": f"{kind.title}: the whole state"},
            "chance": chance,
            "move": {"type": "string", "description": kind.move_syntax},
        }

    # -- the web interface (optional) -------------------------------------------------

    @classmethod
    def web_renderer(cls) -> Path | None:
        """The browser module that draws `render()`, or None to show the JSON.

        By default ``web.js`` beside the module that defines the class, if there is
        one: a game package ships its renderer as package data and nothing else is
        needed. The web server serves it as ``/static/games/<name>.js``; what the
        module exports is described in docs/web.md.
        """
        module = sys.modules.get(cls.__module__)
        source = getattr(module, "__file__", None)
        if source is None:
            return None
        path = Path(source).with_name("web.js")
        return path if path.is_file() else None

    @classmethod
    def web_lobby(cls) -> dict[str, Any]:
        """What the web lobby needs to offer a game of this kind, as JSON-able data.

        ``settings``: the settings of a two-player game the lobby starts from (and
        `/api/play` uses when it is given none); anything else is for the renderer's
        settings form (built-in examples, limits). By default nothing: the lobby
        then asks for the settings as JSON.
        """
        return {}

    @classmethod
    def log_formats(cls) -> dict[str, Callable[[MatchRecord], str]]:
        """Formats besides the arena's JSON Lines that a record of this game can be
        written in, by name (the substitution game: ``thesis``, the thesis program's
        text log); the web interface offers each for download."""
        return {}

    # -- acceleration (optional) -----------------------------------------------------

    def replay_prefix(self, turns: Sequence[Any], dice: Any) -> tuple[int, StateT, Any]:
        """Replay the leading recorded turns that are certainly valid, quickly.

        An optional accelerator for log validation. Returns ``(n, state, pending)``: the
        first `n` turns are valid in every recorded fact, `state` is the state before
        turn `n`, and `pending` is the chance outcome already drawn from `dice` for turn
        `n` (or ``None``). Turn `n` and the rest are then judged by the referee, one by
        one, so an accelerator never decides a defect. When every turn was replayed, the
        state may be a summary good only for `to_act` and `outcome` (the substitution
        game leaves out derivation texts, which no log records). The default replays
        nothing.
        """
        return 0, self.initial_state(), None
