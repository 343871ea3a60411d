"""Game records and the arena's own log format (JSON Lines).

A log is one JSON object per line:

* line 1, the header: ``{"format": "arena-log", "version": 1, "game": ..., "settings":
  {...}, "players": [...], "seed": ..., "id": ...}``; a game played on the server
  also has ``seed_commitment`` (`arena.seeds`), and its 128-bit seed is the decimal
  string (smaller seeds are JSON integers);
* one line per turn: ``{"turn": 0, "player": 0, "roll": 6, "move": "-1 6 0",
  "bank": [...]}`` -- the chance outcome under the game's chance name (``roll`` for the
  substitution game), the move string, and the game's recorded facts (``bank``);
* last, the result: ``{"result": "first", "winner": 0, "scores": [41, 30],
  "termination": "normal", ...}``, with the bots' debug lines, if any, under ``notes``:
  ``[{"turn": 3, "player": 0, "text": "..."}]`` (``turn``: the turn being played when the
  line came; a bot's ``log`` messages, or a program's ``#`` lines and standard error).
  A server drops them after a while (`without_notes`): a log without ``notes`` is whole.

Unknown keys are kept in `extra` and ignored, so later versions can add fields. Every
line is held to the bounds of a stranger's JSON (`arena.json_bounds`: at most 32 levels
deep, numbers within +-2**53), since a log may be anybody's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, NamedTuple

import msgspec

from arena import json_bounds
from arena.errors import LogFormatError
from arena.game import Outcome
from arena.seeds import parse_seed, seed_to_json

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "LogFormat", "MatchRecord", "Note", "TurnRecord",
           "read_jsonl", "turn_line", "without_notes", "write_jsonl"]

FORMAT_NAME = "arena-log"
FORMAT_VERSION = 1

_TURN_KEYS = ("turn", "player", "move")
_KIND_WORDS = {str: "a string", dict: "an object", list: "a list"}


class TurnRecord(NamedTuple):
    """One accepted move: who moved, after which chance outcome, and what followed."""

    turn: int
    player: int
    move: str
    chance: Any = None
    facts: Mapping[str, Any] = {}


class Note(NamedTuple):
    """A bot's debug line: stored with the game, shown next to its moves in replays."""

    turn: int
    player: int
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"turn": self.turn, "player": self.player, "text": self.text}


def _notes_from_json(value: Any) -> tuple[Note, ...]:
    if not isinstance(value, list):
        raise TypeError("'notes' must be a list")
    notes = []
    for item in value:
        if not (isinstance(item, dict) and isinstance(item.get("turn"), int)
                and isinstance(item.get("player"), int) and isinstance(item.get("text"), str)):
            raise TypeError("each note needs an integer turn and player and a text")
        notes.append(Note(item["turn"], item["player"], item["text"]))
    return tuple(notes)


@dataclass(frozen=True)
class MatchRecord:
    """Everything needed to replay and check a game."""

    game: str
    settings: Mapping[str, Any]
    players: tuple[str, ...]
    turns: tuple[TurnRecord, ...]
    outcome: Outcome | None
    seed: int | None = None
    id: str = ""
    chance_name: str = "chance"
    extra: Mapping[str, Any] = field(default_factory=dict)
    seed_commitment: str | None = None
    """The commitment to `seed` published before the first move (`arena.seeds`)."""
    notes: tuple[Note, ...] = ()
    """The bots' debug lines, in the order they came (written with the result)."""

    def header(self) -> dict[str, Any]:
        header: dict[str, Any] = {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "game": self.game,
            "id": self.id,
            "players": list(self.players),
            "seed": seed_to_json(self.seed),
            "chance_name": self.chance_name,
            "settings": dict(self.settings),
        }
        if self.seed_commitment is not None:
            header["seed_commitment"] = self.seed_commitment
        header.update(self.extra)
        return header

    def turn_json(self, turn: TurnRecord) -> dict[str, Any]:
        line: dict[str, Any] = {"turn": turn.turn, "player": turn.player}
        if turn.chance is not None:
            line[self.chance_name] = turn.chance
        line["move"] = turn.move
        line.update(turn.facts)
        return line


@dataclass(frozen=True)
class LogFormat:
    """A log format besides the arena's JSON Lines, as a plugin declares it
    (`arena.hookspecs.arena_log_formats`)."""

    name: str
    """What the format is called in messages (``"thesis text log"``)."""
    detect: Callable[[str], bool]
    """Whether a text is in this format, from its start (leading white space and byte
    order mark removed): cheap, it is asked of every log read."""
    read: Callable[[str], MatchRecord]
    """Read the whole text; raise `arena.errors.LogFormatError` naming the line."""


_encode_lines = msgspec.json.Encoder().encode_lines
"""JSON Lines by msgspec: the bytes of `_dumps` (compact, non-ASCII kept) but for the
exponent of a float (``1e16``, not ``1e+16``) and a float that is not finite (null, as
JSON has no such number), about six times faster; the server writes each game's log on
its event loop."""
_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


_encode = msgspec.json.Encoder().encode


def turn_line(record: MatchRecord, turn: TurnRecord) -> str:
    """One turn's line of `record`'s log, without its newline: `to_jsonl`'s text for it
    (by msgspec; what it does not write, as the json module does, non-ASCII escaped so
    that any database stores it). The server writes one for every move it accepts."""
    line = record.turn_json(turn)
    try:
        return _encode(line).decode()
    except (TypeError, ValueError):
        return json.dumps(line, separators=(",", ":"))


def jsonl_lines(record: MatchRecord) -> list[dict[str, Any]]:
    """The JSON objects of `record`'s log, one per line (module docstring)."""
    lines = [record.header(), *map(record.turn_json, record.turns)]
    if record.outcome is not None:
        result = record.outcome.to_json()
        if record.notes:
            result["notes"] = [note.to_json() for note in record.notes]
        lines.append(result)
    return lines


def to_jsonl(record: MatchRecord) -> str:
    """`record` as JSON Lines (module docstring)."""
    lines = jsonl_lines(record)
    try:
        return _encode_lines(lines).decode()
    except (TypeError, ValueError):
        # what msgspec does not write (a string with a lone surrogate, a value that is
        # not JSON) is written as the json module does, or refused as it refuses it
        return "".join(_dumps(line) + "\n" for line in lines)


def without_notes(log: str) -> str:
    """A JSON Lines log without its bots' debug lines (the result line's ``notes``), for
    a server that keeps them only so long; every other line is left as it was, so the
    game still reads, validates and replays the same. A log with no notes (or no
    result line) is returned as it is."""
    body, newline, last = log.rstrip("\n").rpartition("\n")
    try:
        result = json.loads(last)
    except json.JSONDecodeError:
        return log
    if not isinstance(result, dict) or "result" not in result or "notes" not in result:
        return log
    del result["notes"]
    try:
        line = _encode_lines([result]).decode()
    except (TypeError, ValueError):  # a lone surrogate: escaped, so the text is storable
        line = json.dumps(result, separators=(",", ":")) + "\n"
    return body + newline + line


def write_jsonl(record: MatchRecord, stream: IO[str]) -> None:
    """Write `record` as JSON Lines to a text stream."""
    stream.write(to_jsonl(record))


def _json_lines(lines: Iterable[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = json_bounds.loads(line)
        except json.JSONDecodeError as error:
            raise LogFormatError(f"not JSON ({error.msg})", number, code="log-not-json",
                                 params={"line": number}) from None
        except json_bounds.JsonBoundsError as error:  # nested too deep, a number too large
            raise LogFormatError(str(error), number, code="log-json-bounds",
                                 params={"line": number}) from None
        if not isinstance(value, dict):
            raise LogFormatError("a log line must be a JSON object", number,
                                 code="log-line-not-object", params={"line": number})
        yield number, value


def read_jsonl(lines: Iterable[str]) -> MatchRecord:
    """Read a JSON Lines log; raise `LogFormatError` naming the line on bad input."""
    header: dict[str, Any] | None = None
    turns: list[TurnRecord] = []
    outcome: Outcome | None = None
    chance_name = "chance"
    notes: tuple[Note, ...] = ()
    for number, value in _json_lines(lines):
        if header is None:
            if value.get("format") != FORMAT_NAME:
                raise LogFormatError(f"the first line is not an {FORMAT_NAME} header", number,
                                     code="log-no-header", params={"line": number})
            if value.get("version") != FORMAT_VERSION:
                raise LogFormatError(
                    f"log version {value.get('version')!r} is not supported "
                    f"(this arena reads version {FORMAT_VERSION})",
                    number, code="log-version",
                    params={"version": str(value.get("version"))[:20], "supported": FORMAT_VERSION},
                )
            for key, kind in (("game", str), ("settings", dict), ("players", list)):
                if not isinstance(value.get(key), kind):
                    raise LogFormatError(
                    f"header field {key!r} is missing or not {_KIND_WORDS[kind]}", number,
                    code="log-header-field", params={"field": key})
            try:
                parse_seed(value.get("seed"))
            except ValueError as error:
                raise LogFormatError(f"header field 'seed': {error}", number,
                                     code="log-header-field", params={"field": "seed"}) from None
            commitment = value.get("seed_commitment")
            if commitment is not None and not isinstance(commitment, str):
                raise LogFormatError("header field 'seed_commitment' must be a string", number,
                                     code="log-header-field", params={"field": "seed_commitment"})
            header = value
            chance_name = str(value.get("chance_name", "chance"))
            continue
        if outcome is not None:
            raise LogFormatError("a line follows the result line", number, code="log-after-result",
                                 params={"line": number})
        if "result" in value:
            try:
                outcome = Outcome.from_json(value)
                notes = _notes_from_json(value.get("notes", []))
            except (ValueError, TypeError) as error:
                raise LogFormatError(f"bad result line ({error})", number, code="log-bad-result",
                                     params={"line": number}) from None
            continue
        missing = [key for key in _TURN_KEYS if key not in value]
        if missing:
            raise LogFormatError(f"turn line lacks {', '.join(missing)}", number,
                                 code="log-turn-lacks", params={"line": number, "missing": ", ".join(missing)})
        turn, player, move = value["turn"], value["player"], value["move"]
        if not (isinstance(turn, int) and isinstance(player, int) and isinstance(move, str)):
            raise LogFormatError("turn and player must be integers and move a string", number,
                                 code="log-turn-types", params={"line": number})
        facts = {k: v for k, v in value.items() if k not in (*_TURN_KEYS, chance_name)}
        turns.append(TurnRecord(turn, player, move, value.get(chance_name), facts))
    if header is None:
        raise LogFormatError("the log is empty", code="log-empty")
    known = {"format", "version", "game", "id", "players", "seed", "chance_name", "settings",
             "seed_commitment"}
    return MatchRecord(
        game=header["game"],
        settings=header["settings"],
        players=tuple(str(p) for p in header["players"]),
        turns=tuple(turns),
        outcome=outcome,
        seed=parse_seed(header.get("seed")),
        id=str(header.get("id", "")),
        chance_name=chance_name,
        extra={k: v for k, v in header.items() if k not in known},
        seed_commitment=header.get("seed_commitment"),
        notes=notes,
    )


def read_jsonl_file(path: str | Path) -> MatchRecord:
    with open(path, encoding="utf-8") as stream:
        return read_jsonl(stream)
