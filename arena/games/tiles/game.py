"""`TilesGame`: the dice-tile game behind the generic `arena.game.Game` API."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from arena.errors import SettingsError
from arena.game import CHANCE, TERMINAL, Game, GameType, LegalOptions, Outcome, Rejection
from arena.games.tiles.rules import (
    MAX_TILES,
    ROLLS,
    Choice,
    Roll,
    TilesMove,
    TilesSettings,
    TilesState,
    board_of,
    move_options,
    parse_move,
    tiles_of,
)
from arena.limits import SettingLimit
from arena.starts import Params, draw_flag

if TYPE_CHECKING:
    import random


__all__ = ["TilesGame"]

_GAME_TYPE = GameType(
    name="tiles",
    title="Balinese dice tiles",
    description=(
        "Each player has tiles 1..12 face up. Roll two dice x, y, then turn down tiles x "
        "and y (one tile on a double), or the tile x + y; pass only when neither is "
        "possible (setting voluntary_skip: pass at will). Solo: all tiles "
        "down in as few turns as possible; with more players the first to finish wins."
    ),
    move_syntax="'pair', 'sum' or 'pass', or the tiles turned down ('3 5', '8')",
    min_players=1,
    max_players=8,
    chance=True,
    chance_name="dice",
    limits=(
        SettingLimit("players", "the players (the web interface plays two-player games)",
                     standard=8, guest=2),
        SettingLimit("max_turns", "the turns after which a game that drags on ends",
                     standard=10_000, guest=1000),
    ),
)


class TilesGame(Game[TilesState, TilesMove]):
    type = _GAME_TYPE

    def __init__(self, settings: TilesSettings) -> None:
        self.rules = settings

    def __repr__(self) -> str:
        return f"TilesGame({self.rules!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TilesGame) and other.rules == self.rules

    def __hash__(self) -> int:
        return hash(self.rules)

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> TilesGame:
        if not isinstance(settings, Mapping):
            raise SettingsError("tiles settings must be a mapping", code="settings-not-object")
        return cls(TilesSettings.from_mapping(settings))

    @classmethod
    def generate(cls, rng: random.Random, params: Mapping[str, Any]) -> dict[str, Any]:
        """A two-player variant: ``tiles`` per row, a range (default [9, 12]) within
        1..12; ``voluntary_skip`` true/false/"random" (default "random");
        ``max_turns`` (default 1000)."""
        read = Params("tiles", params)
        low, high = read.span("tiles", (9, 12), 1, MAX_TILES)
        skip = read.flag("voluntary_skip", "random")
        turns, _ = read.span("max_turns", (1000, 1000), 1, 10**6)
        read.done()
        return TilesSettings(tiles=rng.randint(low, high), players=2,
                             voluntary_skip=draw_flag(rng, skip), max_turns=turns).to_mapping()

    def settings(self) -> dict[str, Any]:
        return self.rules.to_mapping()

    def sizes(self) -> dict[str, int]:
        return {"players": self.rules.players, "max_turns": self.rules.max_turns}

    def max_move_length(self) -> int:
        return 64  # a move names a few small numbers

    def num_players(self) -> int:
        return self.rules.players

    def initial_state(self) -> TilesState:
        players = self.rules.players
        return TilesState((self.rules.full_board,) * players, 0, None, (0,) * players)

    def to_act(self, state: TilesState) -> int:
        if state.over:
            return TERMINAL
        return CHANCE if state.roll is None else state.to_move

    def chance_outcomes(self, state: TilesState) -> Sequence[tuple[Roll, int]]:
        return ROLLS

    def apply_chance(self, state: TilesState, outcome: Any) -> TilesState:
        if state.over or state.roll is not None:
            raise ValueError("no roll is due")
        try:
            x, y = sorted(int(v) for v in outcome)
        except (TypeError, ValueError):
            raise ValueError(f"a roll is two dice, not {outcome!r}") from None
        if not (1 <= x <= 6 and 1 <= y <= 6):
            raise ValueError(f"dice show 1..6, not {outcome!r}")
        return TilesState(state.boards, state.to_move, (x, y), state.turns)

    def parse_move(self, text: str) -> TilesMove:
        return parse_move(text)

    def format_move(self, move: TilesMove) -> str:
        return str(move)

    def resolve(self, state: TilesState, move: TilesMove) -> Choice | Rejection:
        """Which choice `move` makes under the pending roll, or why it cannot."""
        assert state.roll is not None
        x, y = state.roll
        if move.choice is not None:
            return move.choice
        pair = (x,) if x == y else (x, y)
        for tile in move.tiles:
            if not 1 <= tile <= self.rules.tiles:
                return Rejection(
                    "no-such-tile", f"tile {tile} does not exist (1..{self.rules.tiles})"
                )
        if not move.tiles:
            return Choice.PASS
        if move.tiles == pair:
            return Choice.PAIR
        if move.tiles == (x + y,):
            return Choice.SUM
        return Rejection(
            "wrong-tiles",
            f"the roll {x}-{y} turns down {' and '.join(map(str, pair))} or {x + y}, "
            f"not {' '.join(map(str, move.tiles))}",
        )

    def check_move(self, state: TilesState, move: TilesMove) -> TilesState | Rejection:
        if not isinstance(move, TilesMove):
            return Rejection("malformed", f"{move!r} is not a tiles move")
        if state.over:
            return Rejection("game-over", "the game is already over")
        if state.roll is None:
            return Rejection("missing-dice", "the dice have not been rolled")
        choice = self.resolve(state, move)
        if isinstance(choice, Rejection):
            return choice
        seat = state.to_move
        board = state.boards[seat]
        options = move_options(board, state.roll)
        x, y = state.roll
        if choice is Choice.PASS:
            if options and not self.rules.voluntary_skip:
                return Rejection(
                    "must-move", f"a move exists ({', '.join(c.value for c in options)})"
                )
            after = board
        elif choice not in options:
            wanted = (
                [x]
                if choice is Choice.PAIR and x == y
                else [x, y]
                if choice is Choice.PAIR
                else [x + y]
            )
            down = [t for t in wanted if t > self.rules.tiles or not (board >> (t - 1)) & 1]
            return Rejection(
                "tile-down",
                f"tile {', '.join(map(str, down))} is not up (board {tiles_of(board)})",
            )
        else:
            after = options[choice]
        boards = state.boards[:seat] + (after,) + state.boards[seat + 1 :]
        turns = state.turns[:seat] + (state.turns[seat] + 1,) + state.turns[seat + 1 :]
        if after == 0:
            return TilesState(boards, seat, None, turns, winner=seat)
        stopped = sum(turns) >= self.rules.max_turns
        return TilesState(boards, (seat + 1) % self.rules.players, None, turns, stopped=stopped)

    def legal_moves(self, state: TilesState, limit: int = 1000) -> LegalOptions:
        if state.over or state.roll is None:
            return LegalOptions(())
        options = move_options(state.boards[state.to_move], state.roll)
        moves = [c.value for c in (Choice.PAIR, Choice.SUM) if c in options]
        if not moves or self.rules.voluntary_skip:
            moves.append(Choice.PASS.value)
        return LegalOptions(tuple(moves[:limit]), complete=len(moves) <= limit, count=len(moves))

    def outcome(self, state: TilesState) -> Outcome | None:
        if not state.over:
            return None
        left = tuple(len(tiles_of(b)) for b in state.boards)
        if self.rules.players == 1:
            if state.winner is None:
                return Outcome(None, (state.turns[0],), detail="turn limit reached")
            return Outcome(0, (state.turns[0],), detail=f"finished in {state.turns[0]} turns")
        if state.winner is None:
            return Outcome(None, left, detail="turn limit reached")
        return Outcome(state.winner, left, detail=f"player {state.winner} turned all tiles down")

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """The contract's parts (`Game.json_schema`): settings, state, dice, move."""
        dice = {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 6},
                "minItems": 2, "maxItems": 2}
        counts = {"type": "array", "items": {"type": "integer", "minimum": 0}}
        word = "[Pp][Aa][Ii][Rr]|[Ss][Uu][Mm]|[Pp][Aa][Ss][Ss]"
        return {
            "settings": {
                "type": "object", "additionalProperties": False,
                "properties": {
                    "tiles": {"type": "integer", "minimum": 1, "maximum": MAX_TILES,
                              "description": "tiles per row (1..n)"},
                    "players": {"type": "integer", "minimum": 1, "maximum": 8,
                                "description": "1 is the solo game (ladders need 2)"},
                    "voluntary_skip": {"type": "boolean",
                                       "description": "passing is allowed when a move exists"},
                    "max_turns": {"type": "integer", "minimum": 1,
                                  "description": "turn cap: the game stops there"},
                },
            },
            "state": {
                "type": "object", "additionalProperties": False,
                "required": ["boards", "to_move", "roll", "turns", "winner", "stopped"],
                "properties": {
                    "boards": {"type": "array", "items": counts,
                               "description": "the tiles still up, per seat, ascending"},
                    "to_move": {"type": "integer", "minimum": 0, "description": "the seat to move"},
                    "roll": {"anyOf": [dice, {"type": "null"}],
                             "description": "the dice to play (null: not rolled yet)"},
                    "turns": {**counts, "description": "turns finished, per seat"},
                    "winner": {"type": ["integer", "null"],
                               "description": "the seat that turned all its tiles down"},
                    "stopped": {"type": "boolean", "description": "ended by the turn cap"},
                },
            },
            "chance": {**dice, "description": "the dice: two numbers 1..6, the smaller first"},
            "move": {"type": "string",
                     "pattern": rf"^\s*(?:{word}|[0-9]+(?:[\s,]+[0-9]+)?)\s*$",
                     "description": cls.type.move_syntax},
        }

    def state_to_json(self, state: TilesState) -> dict[str, Any]:
        return {
            "boards": [tiles_of(b) for b in state.boards],
            "to_move": state.to_move,
            "roll": list(state.roll) if state.roll is not None else None,
            "turns": list(state.turns),
            "winner": state.winner,
            "stopped": state.stopped,
        }

    def state_from_json(self, data: Mapping[str, Any]) -> TilesState:
        try:
            boards = tuple(board_of([int(t) for t in tiles]) for tiles in data["boards"])
            roll = data.get("roll")
            state = TilesState(
                boards,
                int(data.get("to_move", 0)),
                None if roll is None else (int(roll[0]), int(roll[1])),
                tuple(int(t) for t in data.get("turns", (0,) * len(boards))),
                None if data.get("winner") is None else int(data["winner"]),
                bool(data.get("stopped", False)),
            )
        except (KeyError, TypeError, ValueError, IndexError) as error:
            raise ValueError(f"bad tiles state: {error}") from None
        if len(boards) != self.rules.players or len(state.turns) != len(boards):
            raise ValueError(f"bad tiles state: expected {self.rules.players} boards and turns")
        if any(b >> self.rules.tiles for b in boards) or not 0 <= state.to_move < len(boards):
            raise ValueError("bad tiles state: tiles or seat out of range")
        if state.roll is not None and not all(1 <= d <= 6 for d in state.roll):
            raise ValueError("bad tiles state: dice show 1..6")
        return state

    def facts(self, state: TilesState) -> dict[str, Any]:
        return {"boards": [tiles_of(b) for b in state.boards]}

    def render(self, state: TilesState) -> dict[str, Any]:
        """The rows (tiles up per player out of `tiles`), the roll, and the mover's
        options under it: each legal choice with the tiles it turns down."""
        options = []
        if not state.over and state.roll is not None:
            x, y = state.roll
            turned = {Choice.PAIR: [x] if x == y else [x, y], Choice.SUM: [x + y], Choice.PASS: []}
            for text in self.legal_moves(state).moves:
                choice = Choice(text)
                tiles = turned[choice]
                label = ("turn down " + " and ".join(map(str, tiles))) if tiles else "pass"
                options.append({"move": text, "tiles": tiles, "label": label})
        return {
            **self.state_to_json(state),
            "tiles": self.rules.tiles,
            "voluntary_skip": self.rules.voluntary_skip,
            "max_turns": self.rules.max_turns,
            "options": options,
        }

    @classmethod
    def web_lobby(cls) -> dict[str, Any]:
        return {
            "settings": {"tiles": 12, "players": 2, "voluntary_skip": False},
            "max_tiles": MAX_TILES,
        }

    def move_number(self, state: TilesState) -> int:
        return sum(state.turns)
