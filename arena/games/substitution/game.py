"""The substitution game as an arena game plugin (rules bound to settings).

A state is a `GameState` (both players' derivations, the bank, the turn count and the
pending roll). Chance is a player: before each turn the referee rolls a group index
with the grammar's weights and applies it; then the player to act submits a
`MoveString` for that roll. The settings' bank rule (``strict`` or ``thesis-program``)
chooses which checks judge a move (`_core.pyx`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from arena.errors import MalformedMove
from arena.game import (
    Game,
    GameType,
    LegalOptions,
    Outcome,
    Rejection,
    StepOptions,
    winner_by_score,
)
from arena.games.substitution._core import (
    CompiledGrammar,
    GameState,
    Replay,
    Rules,
    Turn,
    fast_parse,
    format_steps,
)
from arena.games.substitution.grammar import Grammar
from arena.games.substitution.movestring import MoveString
from arena.games.substitution.settings import Settings
from arena.limits import SettingLimit

if TYPE_CHECKING:
    import random

    from arena.record import MatchRecord

_new_move = tuple.__new__
"""`MoveString` from its steps without an interpreted frame (what its ``_make`` does)."""

__all__ = ["SubstitutionGame"]


class SubstitutionGame(Game[GameState, MoveString]):
    """The substitution game of the thesis, for one grammar and number of moves."""

    type = GameType(
        name="substitution",
        title="The substitution game",
        description=(
            "Two players rewrite derivations of a context-free grammar: a roll picks a "
            "production group, which must be applied; groups that fit nowhere go to a shared "
            "bank, and applicable bank groups must be used (setting bank_rule: 'strict'; "
            "'thesis-program' plays by the thesis program's referee, which does not enforce "
            "that). 3 points per finished word plus 1 per letter."
        ),
        move_syntax=(
            "steps 'word group production' separated by ', ' (0-based; word -1 starts a new "
            "derivation); the empty string sends the rolled group to the bank"
        ),
        chance=True,
        chance_name="roll",
        # the built-in grammars have 11 groups, 36 to 64 symbols, alternatives of at
        # most 9; a rule such as S->SSS...S makes the derivations explode (the state
        # size limit of a live game ends such a game, these keep it from starting)
        limits=(
            SettingLimit("moves", "the turns of each player", standard=2000, guest=500),
            SettingLimit("groups", "the production groups of the grammar",
                         standard=100, guest=30),
            SettingLimit("symbols", "the symbols in all the grammar's alternatives",
                         standard=4000, guest=400),
            SettingLimit("alternative", "the symbols of the longest alternative",
                         standard=200, guest=40),
        ),
        step_separator=", ",
    )

    @classmethod
    def log_formats(cls) -> dict[str, Callable[[MatchRecord], str]]:
        from arena.games.substitution.thesis_log import write_thesis_log

        return {"thesis": write_thesis_log}

    @classmethod
    def web_lobby(cls) -> dict[str, Any]:
        """The built-in grammars (``presets``: name, description, text), which the lobby
        offers with the ones saved from its editor."""
        from arena.games.substitution.webplay import builtin_presets

        return {"presets": builtin_presets()}

    def __init__(self, settings: Settings) -> None:
        self.config = settings
        self.grammar = settings.grammar
        self.compiled = CompiledGrammar(settings.grammar)
        self._turn_limit = 2 * settings.moves
        self._outcomes: tuple[tuple[int, int], ...] = tuple(enumerate(settings.grammar.weights))
        self.program_rule = settings.program_rule
        self.rules = Rules(self.compiled, self._turn_limit, self._outcomes, self.program_rule)
        # The per-move methods below are answered by the compiled `Rules`; binding its
        # methods on the instance lets the match loop call them without a Python frame.
        self.to_act = self.rules.to_act  # type: ignore[method-assign]
        self.chance_outcomes = self.rules.chance_outcomes  # type: ignore[method-assign]
        self.apply_chance = self.rules.apply_chance  # type: ignore[method-assign]
        self.check_move = self.rules.check_move  # type: ignore[method-assign]

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> SubstitutionGame:
        return cls(Settings.from_json(settings))

    @classmethod
    def generate(cls, rng: random.Random, params: Mapping[str, Any]) -> dict[str, Any]:
        """A grammar drawn from a family: one of the presets ``grammars`` (default
        ["medium"]) with, if ``shuffle`` (true/false/"random"; default true), its
        production groups dealt to the rolls in a random order, so that each start
        makes other groups common or rare; ``moves`` per player, a range (default 50)
        within 1..100000; ``bank_rule`` (default "strict")."""
        from arena.games.substitution.presets import PRESETS
        from arena.games.substitution.settings import BANK_RULES, MAX_MOVES
        from arena.starts import Params, draw_flag

        read = Params("substitution", params)
        family = read.choices("grammars", ["medium"], list(PRESETS))
        shuffle = read.flag("shuffle", True)
        low, high = read.span("moves", (50, 50), 1, MAX_MOVES)
        [bank_rule] = read.choices("bank_rule", ["strict"], list(BANK_RULES))
        read.done()
        groups = list(PRESETS[rng.choice(family)][0])
        if draw_flag(rng, shuffle):
            rng.shuffle(groups)
        return Settings(Grammar.of(groups), rng.randint(low, high), bank_rule).to_json()

    def settings(self) -> dict[str, Any]:
        return self.config.to_json()

    def max_move_length(self) -> int:
        """A turn has at most one step per roll of the game (the rolled group and the
        bank's), each ``word group production`` with a separator; twice that for
        spacing."""
        steps = 2 * self.config.moves + 1
        alternatives = max((len(g.alternatives) for g in self.grammar.groups), default=1)
        step = 7 + len(str(len(self.grammar.groups))) + len(str(alternatives)) + 5
        return 2 * steps * step + 16

    def sizes(self) -> dict[str, int]:
        alternatives = [len(a) for group in self.grammar.groups for a in group.alternatives]
        return {"moves": self.config.moves, "groups": len(self.grammar.groups),
                "symbols": sum(alternatives), "alternative": max(alternatives, default=0)}

    @property
    def moves(self) -> int:
        """How many turns each player makes."""
        return self.config.moves

    @property
    def bank_rule(self) -> str:
        """``strict`` or ``thesis-program`` (see `Settings`)."""
        return self.config.bank_rule

    # -- flow -------------------------------------------------------------------------

    def initial_state(self) -> GameState:
        return GameState.create(self.compiled.n_groups)

    def to_act(self, state: GameState) -> int:
        result: int = self.rules.to_act(state)
        return result

    def chance_outcomes(self, state: GameState) -> Sequence[tuple[int, int]]:
        return self._outcomes

    def apply_chance(self, state: GameState, outcome: Any) -> GameState:
        result: GameState = self.rules.apply_chance(state, outcome)
        return result

    # -- moves --------------------------------------------------------------------------

    def parse_move(self, text: str) -> MoveString:
        # the core's parser reads plain moves (every move the server receives is parsed);
        # it leaves anything else, malformed moves included, to `MoveString.parse`
        steps = fast_parse(text) if type(text) is str else None
        return MoveString.parse(text) if steps is None else _new_move(MoveString, (steps,))

    def format_move(self, move: MoveString) -> str:
        try:  # the core writes it (every move the server records is written)
            return format_steps(move.steps)
        except (OverflowError, TypeError, ValueError):  # steps the core cannot hold
            return str(move)

    def check_move(self, state: GameState, move: MoveString) -> GameState | Rejection:
        result: GameState | Rejection = self.rules.check_move(state, move)
        return result

    def turn(self, state: GameState) -> Turn:
        """A `Turn` to build the move of the player to act step by step."""
        return Turn(self.compiled, state, self.program_rule)

    def legal_moves(self, state: GameState, limit: int = 1000) -> LegalOptions:
        """Whole legal turns, depth first, at most `limit` of them."""
        turn = self.turn(state)
        found: list[str] = []

        def walk() -> bool:
            if turn.can_end():
                found.append(str(MoveString(turn.applied)))
                if len(found) >= limit:
                    return False
            for step in turn.legal_steps():
                turn.apply(*step)
                going = walk()
                turn.undo()
                if not going:
                    return False
            return True

        complete = walk()
        return LegalOptions(tuple(found), complete)

    def legal_steps(self, state: GameState, prefix: str) -> StepOptions | Rejection:
        """The legal next steps after the steps `prefix` (see `Game.legal_steps`)."""
        try:
            steps = MoveString.parse(prefix).steps
        except MalformedMove as error:
            return Rejection("malformed", str(error), error.step)
        turn = self.turn(state)
        for step in steps:
            rejection = turn.check(*step)
            if rejection is not None:
                return rejection
            turn.apply(*step)
        can_end = turn.can_end()
        problem = None if can_end else turn.end_problem()
        return StepOptions(tuple(f"{w} {g} {p}" for w, g, p in turn.legal_steps()), can_end,
                           None if problem is None else problem.message)

    # -- end ------------------------------------------------------------------------------

    def outcome(self, state: GameState) -> Outcome | None:
        if state.turn < 2 * self.config.moves:
            return None
        scores = state.scores()
        return Outcome(winner_by_score(scores), scores)

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """The contract's parts (`Game.json_schema`): settings, state, roll, move."""
        step = r"-?[0-9]{1,9}[ \t]+-?[0-9]{1,9}[ \t]+-?[0-9]{1,9}"
        ints = {"type": "array", "items": {"type": "integer", "minimum": 0}}
        return {
            "settings": {
                "type": "object", "additionalProperties": False,
                "required": ["moves", "groups", "weights"],
                "properties": {
                    "moves": {"type": "integer", "minimum": 1, "description": "turns per player"},
                    "groups": {"type": "array", "minItems": 1, "description": (
                        "the grammar's production groups, by index: 'left' (an upper-case "
                        "letter, 'S' starts derivations) -> one of 'alternatives'"),
                        "items": {"type": "object", "additionalProperties": False,
                                  "required": ["left", "alternatives"],
                                  "properties": {"left": {"type": "string"},
                                                 "alternatives": {"type": "array",
                                                                  "items": {"type": "string"}}}}},
                    "weights": {**ints, "description": "the dice weight of each group"},
                },
            },
            "state": {
                "type": "object", "additionalProperties": False,
                "required": ["turn", "move_number", "moves_left", "player", "roll",
                             "derivations", "bank", "scores"],
                "properties": {
                    "turn": {"type": "integer", "minimum": 0,
                             "description": "turns played by both players"},
                    "move_number": {"type": "integer", "minimum": 0,
                                    "description": "turns played by each player (turn // 2)"},
                    "moves_left": {"type": "integer", "minimum": 0,
                                   "description": "turns each player has left"},
                    "player": {"type": "integer", "enum": [0, 1],
                               "description": "the seat to move (turn % 2)"},
                    "roll": {"type": ["integer", "null"], "minimum": 0,
                             "description": "the rolled group's index (null before the roll)"},
                    "derivations": {"type": "array", "minItems": 2, "maxItems": 2,
                                    "items": {"type": "array", "items": {"type": "string"}},
                                    "description": "each player's derivations (words), by "
                                                   "index; a move's 'word' numbers them"},
                    "bank": {**ints, "description": "how many of each group the bank holds"},
                    "scores": {**ints, "minItems": 2, "maxItems": 2,
                               "description": "each player's score now (finished words)"},
                },
            },
            "chance": {"type": "integer", "minimum": 0,
                       "description": "the roll: the index of a production group"},
            "move": {"type": "string", "pattern": rf"^\s*(?:{step}\s*(?:,\s*{step}\s*)*)?$",
                     "description": cls.type.move_syntax},
        }

    # -- serialization ------------------------------------------------------------------

    def state_to_json(self, state: GameState) -> dict[str, Any]:
        derivations, bank, scores = state.json_parts()
        return {
            "turn": state.turn,
            "move_number": state.turn // 2,
            "moves_left": max(0, self.config.moves - state.turn // 2),
            "player": state.turn % 2,
            "roll": state.roll,
            "derivations": derivations,
            "bank": bank,
            "scores": scores,
        }

    def state_from_json(self, data: Mapping[str, Any]) -> GameState:
        try:
            derivations = data["derivations"]
            if len(derivations) != 2 or not all(isinstance(w, str) for ws in derivations for w in ws):
                raise ValueError("derivations must be two lists of strings")
            roll = data.get("roll")
            if roll is not None and not (isinstance(roll, int) and 0 <= roll < self.compiled.n_groups):
                raise ValueError(f"roll {roll!r} is not a group index")
            turn = data["turn"]
            if not isinstance(turn, int) or not 0 <= turn <= 2 * self.config.moves:
                raise ValueError(f"turn {turn!r} is out of range")
            state: GameState = GameState.create(
                self.compiled.n_groups, turn, derivations, list(data["bank"]), roll
            )
            return state
        except (KeyError, TypeError) as error:
            raise ValueError(f"not a substitution game state: {error}") from None

    def replay_prefix(self, turns: Sequence[Any], dice: Any) -> tuple[int, GameState, Any]:
        """Compiled replay of the valid leading turns of a log (see `Game.replay_prefix`)."""
        replay = Replay(self.compiled, self._turn_limit, False, self.program_rule)  # counts only: fastest
        replay.run(turns, dice, self._outcomes)
        if replay.index == len(turns):
            return replay.index, replay.state(), replay.pending_chance
        # A turn the replay could not vouch for: the referee judges it from the exact
        # state before it, derivation texts included.
        exact = Replay(self.compiled, self._turn_limit, True, self.program_rule)
        exact.run(turns[: replay.index], None, self._outcomes)
        return replay.index, exact.state(), replay.pending_chance

    def facts(self, state: GameState) -> dict[str, Any]:
        return {"bank": list(state.bank)}

    def move_number(self, state: GameState) -> int:
        return state.turn

