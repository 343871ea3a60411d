"""The message schema of protocol version 1, defined once and used by both sides.

Every message is a map with a ``type`` and the fields its `MessageSpec` lists. Each
field has a kind (``str``, ``int``, ``number``, ``bool``, ``strs`` -- a list of
strings, ``object`` -- a JSON object, ``list`` -- a JSON array, ``json`` -- any JSON
value) and may be optional or nullable. Validation is strict: an unknown type, an
unknown field, a missing field or a value of the wrong kind is a `SchemaError`.

    >>> msg = Message.make("move", game_id="g1", turn=0, move="-1 0 1")
    >>> msg
    Message.make('move', game_id='g1', turn=0, move='-1 0 1')
    >>> Message.from_wire(msg.to_wire(), sender="client") == msg
    True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from protocol.errors import (
    MissingField,
    UnexpectedMessage,
    UnknownField,
    UnknownMessageType,
    WrongFieldType,
)

__all__ = [
    "CAPABILITIES",
    "MAX_DEPTH",
    "OPT_IN_CAPABILITIES",
    "PROTOCOL_VERSION",
    "SCHEMA",
    "Field",
    "Message",
    "MessageSpec",
    "Sender",
    "json_kind",
]

PROTOCOL_VERSION = 1
"""The protocol version this package speaks (also in the subprotocol names)."""

CAPABILITIES: tuple[str, ...] = ("spectate", "resume", "retries", "legal-moves", "compact-turns")
"""Capabilities the server announces in every ``welcome``; clients list the ones they use.

``compact-turns``: a client that lists it gets no ``opponent_moved`` when its own
``your_turn`` follows at once; that ``your_turn`` carries the move as ``last_move``
instead (one frame less per move for clients that only need the state)."""

OPT_IN_CAPABILITIES: tuple[str, ...] = ("challenges",)
"""Capabilities the server announces only to a client that lists them in ``hello``
(a protocol-1 client that does not sees the ``welcome`` it always saw).

``challenges``: the bot is sent ``challenge`` notices to answer with ``accept`` or
``decline``, and ``welcome.limits`` carries the challenge budgets
(``challenges_per_hour``, ``challenges_pending``, ``challenge_timeout``)."""

MAX_DEPTH = 32
"""Deepest nesting of arrays and objects accepted inside a message."""

_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1
"""Integers must fit msgpack (and 64-bit clients): JSON could carry bigger ones."""

Sender = Literal["client", "server", "both"]
Kind = Literal["str", "int", "number", "bool", "strs", "object", "list", "json"]


def _json_like(value: Any, depth: int = 0) -> bool:
    """True for JSON values (finite floats, 64-bit integers, string keys), not too deep.

    Written with explicit loops and exact type checks: it runs on every state sent.
    """
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return bool(_INT_MIN <= value <= _INT_MAX)
    if kind is float:
        return bool(value - value == 0.0)  # False for inf and nan
    if depth >= MAX_DEPTH:
        return False
    if kind is list or kind is tuple:  # tuples (from a game's state) are sent as arrays
        for item in value:
            item_kind = type(item)
            if item_kind is str:
                continue
            if item_kind is int and _INT_MIN <= item <= _INT_MAX:
                continue
            if not _json_like(item, depth + 1):
                return False
        return True
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str:
                return False
            item_kind = type(item)
            if item_kind is str:
                continue
            if item_kind is int and _INT_MIN <= item <= _INT_MAX:
                continue
            if not _json_like(item, depth + 1):
                return False
        return True
    return False


def _is_str(value: Any) -> bool:
    return type(value) is str


def _is_int(value: Any) -> bool:
    return type(value) is int and _INT_MIN <= value <= _INT_MAX


def _is_number(value: Any) -> bool:
    return (type(value) is int and _INT_MIN <= value <= _INT_MAX) or (
        type(value) is float and value - value == 0.0)


def _is_bool(value: Any) -> bool:
    return type(value) is bool


def _is_strs(value: Any) -> bool:
    return type(value) is list and all(type(item) is str for item in value)


def _is_object(value: Any) -> bool:
    # a game's settings or state: nested tuples are fine (encoded as arrays)
    return type(value) is dict and _json_like(value)


def _is_list(value: Any) -> bool:
    return type(value) is list and _json_like(value)


_CHECKS = {
    "str": _is_str, "int": _is_int, "number": _is_number, "bool": _is_bool, "strs": _is_strs,
    "object": _is_object, "list": _is_list, "json": _json_like,
}


def _kind_ok(kind: Kind, value: Any) -> bool:
    return _CHECKS[kind](value)


@dataclass(frozen=True)
class Field:
    """One field: its kind (checked on every message) and, for the machine-readable
    contract (`protocol.jsonschema`), a `shape`: a JSON Schema that refines the kind
    (the keys of an object, a game's part as ``{"$ref": "#/$defs/game-state"}``)."""

    name: str
    kind: Kind
    required: bool = True
    nullable: bool = False
    doc: str = ""
    shape: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class MessageSpec:
    type: str
    sender: Sender
    fields: tuple[Field, ...]
    doc: str = ""
    by_name: Mapping[str, Field] = field(init=False, repr=False, compare=False)
    checks: Mapping[str, tuple[Callable[[Any], bool], bool, str]] = field(
        init=False, repr=False, compare=False)
    required: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", {f.name: f for f in self.fields})
        object.__setattr__(self, "checks", {
            f.name: (_CHECKS[f.kind], f.nullable, f.kind) for f in self.fields})
        object.__setattr__(self, "required", frozenset(f.name for f in self.fields if f.required))


def _f(name: str, kind: Kind, doc: str = "", *, optional: bool = False, null: bool = False,
       shape: Mapping[str, Any] | None = None) -> Field:
    return Field(name, kind, not optional, null, doc, shape)


_KIND_NAMES = {
    "str": "a string", "int": "an integer", "number": "a number", "bool": "a boolean",
    "strs": "a list of strings", "object": "an object", "list": "a list", "json": "a JSON value",
}


def json_kind(value: Any) -> str:
    """What `value` is, in the words of JSON and msgpack (never a Python type name)."""
    if value is None:
        return "null"
    kind = type(value)
    if kind is bool:
        return "a boolean"
    if kind is int:
        return "an integer" if _INT_MIN <= value <= _INT_MAX else "an integer beyond 64 bits"
    if kind is float:
        return "a number" if value - value == 0.0 else "a non-finite number"
    if kind is str:
        return "a string"
    if kind is list or kind is tuple:
        return "an array"
    if kind is dict:
        return "an object"
    if kind in (bytes, bytearray, memoryview):
        return "binary data (send a string)"
    if kind.__name__ == "ExtType":
        return "a msgpack extension value"
    return "a value JSON cannot hold"


_type_name = json_kind


def _not_json(value: Any, path: str = "", depth: int = 0) -> str:
    """What is wrong with `value`: its kind, or where inside it a non-JSON value sits."""
    kind = type(value)
    if depth >= MAX_DEPTH and (kind is list or kind is tuple or kind is dict):
        return f"nested deeper than {MAX_DEPTH} levels (at {path or 'the top'})"
    if kind is list or kind is tuple or kind is dict:
        items = value.items() if kind is dict else enumerate(value)
        for key, item in items:
            if kind is dict and type(key) is not str:
                return f"an object with a key that is {json_kind(key)} (keys must be strings)"
            where = f"{path}[{key!r}]" if kind is dict else f"{path}[{key}]"
            if not _json_like(item, depth + 1):
                inner = _not_json(item, where, depth + 1)
                return inner if " at " in inner or "(keys" in inner or "deeper" in inner \
                    else f"{json_kind(value)} holding {inner} at {where}"
        return json_kind(value)
    return json_kind(value)


_GAME = _f("game_id", "str", "the game's id")

# -- shapes: what the contract (`protocol.jsonschema`) says inside a field ---------------
# A game's own parts are references that `protocol.jsonschema` fills in per game.

_SETTINGS = {"$ref": "#/$defs/game-settings"}
_STATE = {"$ref": "#/$defs/game-state"}
_CHANCE = {"$ref": "#/$defs/game-chance"}
_MOVE = {"$ref": "#/$defs/game-move"}


def _object(properties: Mapping[str, Any], required: tuple[str, ...] | None = None, *,
            closed: bool = True) -> dict[str, Any]:
    return {"type": "object", "properties": dict(properties),
            "required": list(properties if required is None else required),
            "additionalProperties": not closed}


_MS = {"type": "integer", "minimum": 0}
_SEAT = {"type": "integer", "minimum": 0}
_LIMITS = _object({
    "max_frame": {**_MS, "description": "longest frame the server reads, in bytes"},
    "ping_interval": {"type": "number", "minimum": 0,
                      "description": "seconds between the server's keepalive pings (0: none)"},
    "max_legal": {**_MS, "description": "longest 'legal' list in your_turn (moves)"},
    "max_log_bytes": {**_MS, "description": "longest 'log' text, in UTF-8 bytes"},
    "max_logs_per_turn": {**_MS, "description": "'log' messages kept per bot per turn"},
    "max_logs_per_game": {**_MS, "description": "'log' messages kept per bot per game"},
    "max_log_bytes_per_day": {**_MS, "description": "UTF-8 bytes of 'log' texts stored per "
                                                   "bot per UTC day, in all its games"},
    "legal_requests_per_turn": {**_MS, "description": "'legal' requests answered in a turn "
                                "of your own at no cost to the message budget; more count "
                                "against message_rate and message_burst"},
    "message_rate": {"type": "number", "minimum": 0,
                     "description": "messages a second a connection may send beyond those "
                                    "the server asked for (0: no limit)"},
    "message_burst": {**_MS, "description": "messages a connection may send at once before "
                      "message_rate applies; beyond both: a fatal 'rate-limited' error"},
    "challenges_per_hour": {**_MS, "description": "with challenges: 'challenge' messages a "
                            "bot may send in any 60 minutes (refused ones count too); beyond "
                            "it: a 'challenge-limit' error"},
    "challenges_pending": {**_MS, "description": "with challenges: unanswered challenges a bot "
                           "may have sent at once, and may be sent at once"},
    "challenge_timeout": {"type": "number", "minimum": 0, "description": "with challenges: "
                          "seconds a challenge waits for its answer before it expires"},
}, ("max_frame", "ping_interval"), closed=False)
_TIME_CONTROL = _object({
    "move_ms": {**_MS, "description": "time for each move (ms)"},
    "bank_ms": {**_MS, "description": "overage bank for the whole game (ms)"},
    "first_move_ms": {**_MS, "description": "time for the first move (ms)"},
    "retries": {**_MS, "description": "illegal moves a bot may correct per turn"},
    "grace_ms": {**_MS, "description": "reconnect grace period (ms)"},
    "kind": {"type": "string", "enum": ["wall", "cpu"],
             "description": "what a move's time is: wall time (absent: 'wall'), or 'cpu': a "
                            "hosted bot's moves take the CPU time of its processes (other "
                            "bots in the game keep wall time)"},
}, ("move_ms", "bank_ms", "first_move_ms", "retries", "grace_ms"))
_CLOCK = _object({
    "limit_ms": {**_MS, "description": "this move's allowance (ms)"},
    "bank_ms": {**_MS, "description": "overage bank left (ms)"},
    "left_ms": {**_MS, "description": "time left for this move in all: allowance + bank (ms)"},
})
_LAST_MOVE = _object({
    "turn": _MS, "seat": _SEAT, "move": _MOVE,
    "chance": {"anyOf": [_CHANCE, {"type": "null"}]},
})
_LEGAL_STEPS = _object({
    "steps": {"type": "array", "items": {"type": "string"},
              "description": "the legal next steps (join them to the steps so far with "
                             "'separator')"},
    "can_end": {"type": "boolean", "description": "whether the move may end here"},
    "problem": {"type": ["string", "null"], "description": "why it may not end here"},
    "separator": {"type": "string", "description": "what joins steps in a move string"},
})
_SCORES = {"type": "array", "items": {"type": "number"}}
_LADDER = _object({"game": {"type": "string"}, "settings": _SETTINGS})
_LADDER_ENTRY = _object({
    "name": {"type": "string"}, "game": {"type": "string"},
    "settings": {"anyOf": [_SETTINGS, {"type": "null"}]},
    "generator": {"anyOf": [{"type": "object"}, {"type": "null"}]},
    "rated": {"type": "boolean"},
    "house": {"type": "array", "items": {"type": "string"}},
    "time_control": {"anyOf": [{"type": "object"}, {"type": "null"}]},
})
_POLICY = _object({
    "mode": {"enum": ["ask", "auto", "decline"],
             "description": "ask: a 'challenge' notice to answer (needs the challenges "
                            "capability; without it 'ask' declines); auto: accepted at once; "
                            "decline: declined at once"},
    "min_rating": {"type": ["number", "null"], "description": "challengers rated below this "
                   "on the ladder are declined (null: no bound)"},
    "max_rating": {"type": ["number", "null"], "description": "challengers rated above this "
                   "are declined (null: no bound)"},
}, ("mode",))
_CHALLENGE_STATUS = {"enum": ["pending", "accepted", "declined", "expired", "cancelled",
                              "failed"]}
_RESULTS = {"enum": ["first", "second", "draw", "aborted"]}
_TERMINATIONS = {"enum": ["normal", "illegal-move", "timeout", "disconnect", "resignation",
                          "aborted"]}

SCHEMA: dict[str, MessageSpec] = {
    spec.type: spec
    for spec in (
        # -- handshake ---------------------------------------------------------------
        MessageSpec("hello", "client", (
            _f("protocol", "int", "protocol version the client speaks (1)", shape={"const": 1}),
            _f("role", "str", "'bot', 'spectator' or 'operator'",
               shape={"enum": ["bot", "spectator", "operator"]}),
            _f("token", "str", "the bot's secret token (bots and operators)", optional=True),
            _f("bot", "str", "the bot's account name", optional=True),
            _f("games", "strs", "names of the games the bot plays, e.g. ['substitution'] "
               "(empty or absent: every game)", optional=True),
            _f("ladders", "strs", "names of the server's ladders the bot plays on "
               "(welcome.ladders; empty or absent: every ladder of its games)", optional=True,
               shape={"maxItems": 64, "items": {"type": "string", "maxLength": 64}}),
            _f("capabilities", "strs", "capabilities the client uses", optional=True,
               shape={"items": {"enum": [*CAPABILITIES, *OPT_IN_CAPABILITIES]}}),
            _f("client", "str", "free text naming the client program", optional=True),
            _f("accept", "object", "bots: how the bot answers challenges (mode 'ask', 'auto' "
               "or 'decline', optional min_rating and max_rating); absent: 'ask', which "
               "declines without the challenges capability", optional=True, shape=_POLICY),
            _f("seek", "bool", "bots: whether the ladder pairs the bot from the start "
               "(absent: true); 'seek' and 'pause' change it", optional=True),
        ), "First message of every connection."),
        MessageSpec("welcome", "server", (
            _f("protocol", "int", "protocol version of the session"),
            _f("server", "str", "server name and version"),
            _f("role", "str"),
            _f("bot", "str", "the authenticated account", null=True),
            _f("capabilities", "strs", "capabilities the server offers"),
            _f("games", "strs", "ids of the bot's games in progress (resumed next); the same "
               "list as 'in_progress', kept under this older name for protocol-1 clients"),
            _f("in_progress", "strs", "ids of the bot's games in progress: game_start, "
               "game_state and (on its move) your_turn follow for each", optional=True),
            _f("ladder", "object", "the game the (first) ladder plays and its settings ({} "
               "if its starts vary); null: no ladder", optional=True, null=True, shape=_LADDER),
            _f("ladders", "list", "every ladder of the server: name, game, settings (null: "
               "drawn for each pairing by generator), generator, rated, house, time_control "
               "(null: the server's)", optional=True, shape={"items": _LADDER_ENTRY}),
            _f("limits", "object", "max_frame (bytes), ping_interval (s), max_legal (moves), "
               "max_log_bytes (bytes), max_logs_per_turn, max_logs_per_game, "
               "max_log_bytes_per_day (bytes), legal_requests_per_turn, message_rate (/s), "
               "message_burst", shape=_LIMITS),
        ), "Answer to a good hello."),
        # -- games -------------------------------------------------------------------
        MessageSpec("game_start", "server", (
            _GAME,
            _f("game", "str", "the game's registry name"),
            _f("settings", "object", "the game's settings (the grammar, moves...)",
               shape=_SETTINGS),
            _f("seat", "int", "your seat, 0 moves first", shape=_SEAT),
            _f("players", "strs", "bot names by seat"),
            _f("opponent", "str", "your opponent's name"),
            _f("time_control", "object", "move_ms, bank_ms, first_move_ms, retries, grace_ms, "
               "?kind", shape=_TIME_CONTROL),
            _f("chance_name", "str", "what the game calls its chance events ('roll')"),
            _f("ladder", "bool", "rated ladder game"),
            _f("seed_commitment", "str", "lowercase hex SHA-256 of 'arena-seed-v1:{game_id}:"
               "{seed}': the dice seed, fixed before the first move, revealed in game_over"),
        ), "A game you play has started (sent again on reconnect)."),
        MessageSpec("your_turn", "server", (
            _GAME,
            _f("turn", "int", "index of the move to make; echo it in 'move'", shape=_MS),
            _f("move_number", "int", "the game's own move number", shape=_MS),
            _f("seat", "int", shape=_SEAT),
            _f("chance", "json", "the chance outcome before this move (the roll)", null=True,
               shape=_CHANCE),
            _f("state", "object", "the whole game state", shape=_STATE),
            _f("clock", "object", "limit_ms for this move, bank_ms left, left_ms in all",
               shape=_CLOCK),
            _f("clocks", "list", "bank_ms left per seat", shape={"items": _MS}),
            _f("retries_left", "int", "illegal moves you may still correct this turn",
               shape=_MS),
            _f("last_move", "object", "with compact-turns: the move just made (turn, seat, "
               "move, chance), sent instead of an opponent_moved", optional=True,
               shape=_LAST_MOVE),
            _f("legal", "list", "with legal-moves: every legal move of this turn, or null "
               "when there are more than limits.max_legal", optional=True, null=True,
               shape={"items": _MOVE}),
            _f("legal_count", "int", "with legal-moves: how many legal moves there are "
               "(null: more than limits.max_legal, too many to count)", optional=True,
               null=True, shape=_MS),
            _f("legal_steps", "object", "with legal-moves, in games whose moves are built in "
               "steps: the legal first steps and whether the empty move is legal",
               optional=True, null=True, shape=_LEGAL_STEPS),
        ), "It is your move; the full state, so a client needs no memory. Sent again after "
           "a rejected move you may correct."),
        MessageSpec("move", "client", (
            _GAME,
            _f("turn", "int", "the turn from 'your_turn'"),
            _f("move", "str", "the move string", shape=_MOVE),
        ), "A move."),
        MessageSpec("move_accepted", "server", (
            _GAME, _f("turn", "int", shape=_MS), _f("elapsed_ms", "int", shape=_MS),
            _f("bank_ms", "int", shape=_MS),
        )),
        MessageSpec("move_rejected", "server", (
            _GAME,
            _f("turn", "int"),
            _f("move", "str", "the move as sent (it may not parse)"),
            _f("code", "str", "why: the server's codes ('stale-turn', 'future-turn', "
               "'not-your-turn') or the game's rejection code ('malformed'...)"),
            _f("message", "str"),
            _f("step", "int", "offending step of a multi-step move, 0-based", null=True,
               shape=_MS),
            _f("retries_left", "int", "-1: the game is forfeited; otherwise a your_turn "
               "follows", shape={"type": "integer", "minimum": -1}),
        )),
        MessageSpec("opponent_moved", "server", (
            _GAME, _f("turn", "int", shape=_MS), _f("seat", "int", shape=_SEAT),
            _f("move", "str", shape=_MOVE), _f("chance", "json", null=True, shape=_CHANCE),
        )),
        MessageSpec("legal", "client", (
            _GAME,
            _f("turn", "int", "the turn from 'your_turn'"),
            _f("steps", "str", "the steps so far, as a move string (empty: none)"),
        ), "With legal-moves, in games whose moves are built in steps: ask for the legal "
           "next steps after a partial move; answered with legal_steps."),
        MessageSpec("legal_steps", "server", (
            _GAME,
            _f("turn", "int", shape=_MS),
            _f("prefix", "str", "the steps asked about, as sent"),
            _f("legal_steps", "object", "the legal next steps and whether the move may end",
               shape=_LEGAL_STEPS),
        ), "The answer to a legal request."),
        MessageSpec("log", "client", (
            _GAME,
            _f("text", "str", "a debug line, stored with the game and shown in its replay "
               "(limits.max_log_bytes, max_logs_per_turn, max_logs_per_game, "
               "max_log_bytes_per_day)"),
        ), "A bot's debug line about one of its games."),
        MessageSpec("resign", "client", (_GAME,), "Give up a game."),
        MessageSpec("game_over", "server", (
            _GAME,
            _f("result", "str", "'first', 'second', 'draw' or 'aborted'", shape=_RESULTS),
            _f("winner", "int", null=True, shape=_SEAT),
            _f("scores", "list", null=True, shape=_SCORES),
            _f("termination", "str", "normal, illegal-move, timeout, disconnect, resignation, "
               "aborted", shape=_TERMINATIONS),
            _f("reason", "str"),
            _f("log_id", "str", "fetch the log at /api/games/{log_id}"),
            _f("seed", "str", "the dice seed in decimal, revealed now (check it against "
               "seed_commitment)", null=True),
            _f("log", "str", "the JSON Lines log (operators only)", optional=True),
        ), "Sent after the result is committed to the database."),
        # -- spectators --------------------------------------------------------------
        MessageSpec("spectate", "client", (_GAME,), "Follow a live game."),
        MessageSpec("unspectate", "client", (_GAME,)),
        MessageSpec("game_state", "server", (
            _GAME, _f("game", "str"), _f("settings", "object", shape=_SETTINGS),
            _f("players", "strs"), _f("turn", "int", shape=_MS),
            _f("to_act", "int", "the seat to move; -2 once the game is over"),
            _f("chance", "json", null=True, shape=_CHANCE),
            _f("state", "object", shape=_STATE),
        ), "A live game's full state (to spectators on subscribe)."),
        MessageSpec("moved", "server", (
            _GAME, _f("turn", "int", shape=_MS), _f("seat", "int", shape=_SEAT),
            _f("move", "str", shape=_MOVE), _f("chance", "json", null=True, shape=_CHANCE),
            _f("state", "object", shape=_STATE),
        ), "A move in a game you follow, with the state after it."),
        # -- operators (tournaments) -------------------------------------------------
        MessageSpec("request_game", "client", (
            _f("request_id", "str"),
            _f("game", "str"),
            _f("settings", "object", shape=_SETTINGS),
            _f("players", "strs", "bot names by seat (connected bots or house:SPEC)"),
            _f("seed", "int", null=True),
            _f("time_control", "object", optional=True,
               shape={**_TIME_CONTROL, "required": []}),
        ), "Operators: play one game between named bots; answered with game_over."),
        MessageSpec("game_requested", "server", (
            _f("request_id", "str"), _GAME,
        )),
        # -- challenges and seeking (bots) -------------------------------------------
        MessageSpec("challenge", "both", (
            _f("opponent", "str", "from a bot: the bot challenged; from the server: the "
               "challenger"),
            _f("rated", "bool", "whether the games are rated on the ladder"),
            _f("ladder", "str", "the ladder whose game, settings and time control the games "
               "use (optional while the server has one ladder)", optional=True),
            _f("request_id", "str", "from a bot: its own id, echoed in challenge_status",
               optional=True),
            _f("challenge_id", "str", "from the server: the id to accept or decline",
               optional=True),
            _f("rating", "number", "from the server: the challenger's rating on the ladder "
               "(null: not rated yet)", optional=True, null=True),
            _f("expires_ms", "int", "from the server: milliseconds left to answer",
               optional=True, shape=_MS),
        ), "A bot challenges another to a pairing (two games, seats swapped) on a ladder's "
           "settings; the server sends the challenged bot (with the challenges capability) "
           "a notice with challenge_id. Answered with challenge_status."),
        MessageSpec("accept", "client", (
            _f("challenge_id", "str", "the challenge_id of the notice"),
        ), "Accept a challenge: its games start."),
        MessageSpec("decline", "client", (
            _f("challenge_id", "str", "the challenge_id of the notice"),
            _f("reason", "str", "told to the challenger", optional=True),
        ), "Decline a challenge."),
        MessageSpec("challenge_status", "server", (
            _f("challenge_id", "str"),
            _f("status", "str", "pending, accepted, declined, expired, cancelled or failed",
               shape=_CHALLENGE_STATUS),
            _f("challenger", "str"),
            _f("opponent", "str", "the bot challenged"),
            _f("rated", "bool"),
            _f("request_id", "str", "the challenger's request_id", optional=True),
            _f("reason", "str", "why it was declined, cancelled or failed", optional=True),
            _f("error_code", "str", "failed: the refusal's code (as an error's code, e.g. "
               "bad-challenge), for a client to say it in its own words", optional=True),
            _f("error_params", "object", "failed: the refusal's reason and the values it "
               "names (as an error's params)", optional=True),
            _f("game_ids", "strs", "accepted: the ids of the games that start", optional=True),
        ), "A challenge's news, to the challenger (every change) and to the challenged bot "
           "(its end)."),
        MessageSpec("policy", "both", (
            _f("accept", "object", "the accept policy (as hello.accept)", shape=_POLICY),
        ), "A bot changes its accept policy; the server answers with the policy in force."),
        MessageSpec("seek", "client", (
            _f("ladder", "str", "the ladder (optional while the server has one)",
               optional=True),
        ), "Join the ladder's pairing (the default on connecting); answered with seeking."),
        MessageSpec("pause", "client", (
            _f("ladder", "str", "the ladder (optional while the server has one)",
               optional=True),
        ), "Leave the ladder's pairing without disconnecting: games in flight go on, "
           "challenges still come; answered with seeking."),
        MessageSpec("seeking", "server", (
            _f("ladder", "str", "the ladder's name"),
            _f("seeking", "bool", "whether the ladder pairs the bot"),
        ), "The answer to seek and pause."),
        # -- both ways ---------------------------------------------------------------
        MessageSpec("ping", "both", (_f("id", "int"),)),
        MessageSpec("pong", "both", (_f("id", "int"),)),
        MessageSpec("error", "both", (
            _f("code", "str", "the machine code (docs/protocol.md lists them)"),
            _f("message", "str"), _f("fatal", "bool"),
            _f("game_id", "str", optional=True, null=True),
            _f("request_id", "str", "the request_game this answers", optional=True),
            _f("turn", "int", "the turn of the legal request this answers", optional=True),
            _f("prefix", "str", "the steps of the legal request this answers", optional=True),
        ), "Something was wrong; fatal errors close the connection."),
    )
}


@dataclass(frozen=True)
class Message:
    """A validated message: its `type` and its fields (`body`, without the type)."""

    type: str
    body: Mapping[str, Any]

    @classmethod
    def make(cls, type: str, /, **fields: Any) -> Message:
        """Build and validate a message; raise a `SchemaError` if it breaks the schema."""
        return cls.from_wire({"type": type, **fields}, sender="both")

    @classmethod
    def from_wire(cls, data: Any, *, sender: Sender, ignore_unknown: bool = False) -> Message:
        """Validate a decoded frame sent by `sender` (``"client"``/``"server"``).

        With `ignore_unknown`, fields the schema does not know are dropped instead of
        refused: how clients read the server's messages, so that a server may add
        optional fields within a protocol version (`docs/protocol.md`).

        Raises:
            SchemaError: the subclass says what is wrong; the message quotes the input.
        """
        if not isinstance(data, dict):
            raise WrongFieldType(f"a message must be a map, not {_type_name(data)}")
        kind = data.get("type")
        if not isinstance(kind, str):
            if "type" not in data:
                raise MissingField("the message has no 'type'")
            raise WrongFieldType(f"'type' must be a string, not {_type_name(kind)}")
        spec = SCHEMA.get(kind)
        if spec is None:
            shown = kind if len(kind) <= 40 else kind[:40] + "..."
            raise UnknownMessageType(f"unknown message type {shown!r}")
        if sender != "both" and spec.sender not in (sender, "both"):
            raise UnexpectedMessage(f"a {sender} may not send {kind!r} messages")
        checks = spec.checks
        unknown = []
        for key, value in data.items():
            entry = checks.get(key)
            if entry is None:
                if key == "type":
                    continue
                if not isinstance(key, str):
                    raise WrongFieldType(f"{kind}: field names must be strings, not {_type_name(key)}")
                if ignore_unknown:
                    unknown.append(key)
                    continue
                shown = key if len(key) <= 40 else key[:40] + "..."
                raise UnknownField(f"{kind}: unknown field {shown!r}")
            check, nullable, kind_name = entry
            if value is None:
                if nullable:
                    continue
            elif check(value):
                continue
            raise WrongFieldType(
                f"{kind}: field {key!r} must be {_KIND_NAMES[kind_name]}"
                f"{' or null' if nullable else ''}, not {_not_json(value)}"
            )
        body = dict(data)
        del body["type"]
        for key in unknown:
            del body[key]
        if not spec.required <= body.keys():
            missing = next(f.name for f in spec.fields if f.required and f.name not in body)
            raise MissingField(f"{kind}: missing field {missing!r}")
        return cls(kind, body)

    @classmethod
    def unchecked(cls, type: str, /, **fields: Any) -> Message:
        """A message built by trusted code, without validation (the receiver validates).

        Used by the server for its own messages when `ServerConfig.validate_outgoing`
        is off; `make` is the checked form.
        """
        return cls(type, fields)

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, **self.body}

    def __getitem__(self, key: str) -> Any:
        return self.body[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.body.get(key, default)

    def __repr__(self) -> str:
        fields = "".join(f", {k}={v!r}" for k, v in self.body.items())
        return f"Message.make({self.type!r}{fields})"
