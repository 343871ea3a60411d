"""Replay frames: every state of a recorded game, recomputed by the referee.

`frames` is the replay itself. `replay_job` is what the server runs for the HTTP API,
in a worker process (`arena.workers.WorkerPool`), never on its event loop: it
parses the log, replays it and writes the JSON answer to a file, within `ReplayLimits`:
a log of more turns is refused before it is replayed, and the replay stops as soon as
one frame or the whole answer grows past its limit. A game whose state grows with every
turn costs the square of its turns in frames (issue 11, finding 1: a 1.7 KB log asked
for gigabytes), so the answer's size, not the log's, is what is bounded. The answer goes
to a file, frame by frame (gzipped there, in the worker, for a client that takes it so),
and the server streams it from there: neither process ever holds the whole answer
(issue 22, finding 7: a 55 KB log made a 32 MB answer, and the server grew by 127 MiB
while it sent it).
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from arena.errors import ArenaError
from arena.game import Game
from arena.record import MatchRecord
from arena.registry import BUILTIN_PLUGINS, Registry
from arena.replay import Replay
from arena.tournament.store import read_game_log
from arena.validate import parse_log

__all__ = ["ReplayAnswer", "ReplayLimitError", "ReplayLimits", "frames", "replay_job",
           "tournament_log", "write_frames"]


ERROR_FIELDS = ("error", "error_turn", "error_code", "error_seat", "error_move")
"""The answer's fields on its first defect (all null for a log that checks out)."""
MOVE_QUOTE = 200
"""The longest move string ``error_move`` quotes (a line bot may send a long one)."""


@dataclass(frozen=True)
class ReplayLimits:
    """What one replay may cost (`WebConfig` holds the server's values)."""

    turns: int = 10_000
    frame_bytes: int = 256 * 1024
    total_bytes: int = 32 * 1024 * 1024


class ReplayLimitError(ArenaError):
    """A replay that would pass one of its `ReplayLimits`."""


@dataclass(frozen=True)
class ReplayAnswer:
    """What a replay job gives back: the size of the JSON answer it wrote to its file,
    or why there is none (and no file)."""

    size: int | None
    code: str = ""
    """``bad-log`` (it does not parse, or names an unknown game or bad settings) or
    ``replay-limit``."""
    message: str = ""
    reason: dict[str, Any] = field(default_factory=dict)
    """Why a log cannot be read, for a page's words: ``reason_code`` and
    ``reason_params`` (with the ``line``) of a coded `ArenaError`, else nothing."""


def _frames(record: MatchRecord, game: Game[Any, Any]) -> Iterator[dict[str, Any]]:
    """Frame 0 (the start), then the frame after each turn (`arena.replay.Replay`); the
    first defective turn (a move the referee rejects, a roll the seed does not give, a
    recorded fact that is not the referee's) ends them with ``{"error": ...}``."""
    rendered = type(game).render is not Game.render

    def frame(state: Any, **fields: Any) -> dict[str, Any]:
        item = {**fields, "state": game.state_to_json(state)}
        if rendered:
            item["render"] = game.render(state)
        return item

    # the bots' debug lines go with the move of their turn (lines after the last move,
    # with the last move; with no move at all, with the start)
    last = len(record.turns) - 1
    notes: dict[int, list[dict[str, Any]]] = {}
    for note in record.notes:
        notes.setdefault(max(0, min(note.turn, last)) if last >= 0 else -1, []).append(
            {"player": note.player, "text": note.text})
    replay = Replay(record, game)
    start = frame(replay.state, index=0)
    if -1 in notes:
        start["notes"] = notes[-1]
    yield start
    for step in replay:
        turn = step.turn
        item = frame(step.state, index=step.index + 1, player=turn.player, chance=turn.chance,
                     move=turn.move)
        if step.index in notes:
            item["notes"] = notes[step.index]
        yield item
    defect = replay.defect
    if defect is not None:
        assert defect.turn is not None
        # numbered as the viewer numbers its frames: turn i leads to frame i
        number = defect.turn + 1
        seat = record.turns[defect.turn].player
        if defect.move is not None:
            text = f"{_seat_name(record, seat)} played {defect.move!r}: {defect.message}"
        else:
            text = f"{_seat_name(record, seat)}'s turn: {defect.message} ({defect.code})"
        # what the page says in its own language: the code, the seat, the move (cut short)
        yield {"error": f"turn {number}: {text}", "error_turn": number, "error_code": defect.code,
               "error_seat": seat, "error_move": None if defect.move is None
               else defect.move[:MOVE_QUOTE]}


def _seat_name(record: MatchRecord, seat: int) -> str:
    return record.players[seat] if 0 <= seat < len(record.players) else f"seat {seat}"


def _header(record: MatchRecord) -> dict[str, Any]:
    outcome = record.outcome
    return {"id": record.id, "game": record.game, "settings": dict(record.settings),
            "players": list(record.players), "seed": record.seed,
            "chance_name": record.chance_name,
            "outcome": outcome.to_json() if outcome is not None else None}


def frames(record: MatchRecord, registry: Registry) -> dict[str, Any]:
    """The game's header, its result and one frame per position.

    Frame 0 is the start; frame i (i >= 1) is the state after turn i-1, with who moved,
    the chance outcome it moved after, the move and the bots' debug lines of that turn
    (``notes``: player and text; lines after the last move go to the last frame). Each
    frame holds the JSON state
    and, for a game with its own `Game.render`, what that gives (``render``; the web
    page draws ``state`` where there is none). A move the referee rejects ends the
    frames and is reported as ``error`` (``error_turn``: its number, as the frames
    count: the frame it would have made; ``error_code``, ``error_seat`` and
    ``error_move``: the defect's code, the seat of the turn and the move rejected, null
    for a defect that is no rejected move, so that a page can say it in its language).
    """
    game = registry.load_game(record.game, record.settings)
    items = list(_frames(record, game))
    stop = items.pop() if "error" in items[-1] else {}
    return {**_header(record), "frames": items,
            **{key: stop.get(key) for key in ERROR_FIELDS}}


class Writable(Protocol):
    """Where `write_frames` writes: a binary file, plain or gzipped."""

    def write(self, data: bytes, /) -> int: ...


def write_frames(record: MatchRecord, registry: Registry, limits: ReplayLimits,
                 out: Writable, extra: dict[str, Any] | None = None) -> int:
    """Write `frames` as JSON (UTF-8) to `out`, frame by frame, so that the limits stop
    the work as soon as it passes them and no more than a frame is held at once; the
    bytes written.

    Raises:
        ReplayLimitError: too many turns, a frame or the whole answer too large (what
            was written by then is not a whole answer).
    """
    if len(record.turns) > limits.turns:
        raise ReplayLimitError(f"the log has {len(record.turns)} turns; replays take at most "
                               f"{limits.turns}", code="replay-turns",
                               params={"turns": len(record.turns), "most": limits.turns})
    game = registry.load_game(record.game, record.settings)
    head = json.dumps({**_header(record), **(extra or {})}, ensure_ascii=False)
    written = out.write(f'{head[:-1]}, "frames": ['.encode())
    stop: dict[str, Any] = {}
    for item in _frames(record, game):
        if "error" in item:
            stop = item
            break
        text = json.dumps(item, ensure_ascii=False).encode()
        if len(text) > limits.frame_bytes:
            raise ReplayLimitError(
                f"frame {item['index']} is {len(text)} bytes of JSON; a replay frame is at "
                f"most {limits.frame_bytes} (the game's state grew too large to show)",
                code="replay-frame", params={"frame": item["index"]})
        if written + len(text) + 1 > limits.total_bytes:
            raise ReplayLimitError(
                f"the replay passed {limits.total_bytes} bytes of JSON at frame "
                f"{item['index']} of {len(record.turns)}; replays are at most that large",
                code="replay-size", params={"frame": item["index"], "turns": len(record.turns)})
        written += out.write(b"," + text if item["index"] else text)
    fields = json.dumps({key: stop.get(key) for key in ERROR_FIELDS}, ensure_ascii=False)
    tail = f"], {fields[1:]}"
    return written + out.write(tail.encode())


@cache
def _registry(plugins: tuple[str, ...]) -> Registry:
    return Registry(plugins)


def replay_job(log: str, plugins: tuple[str, ...] = BUILTIN_PLUGINS,
               limits: ReplayLimits = ReplayLimits(),
               extra: dict[str, Any] | None = None, out: str = "",
               gzipped: bool = False) -> ReplayAnswer:
    """Parse a log (JSON Lines or the thesis's text), replay it within `limits` and
    write the answer to the file `out` (created; removed again if there is no answer),
    gzipped if `gzipped` (for a client that takes it so: the worker compresses, not the
    server); run in a worker process. `plugins`: the registry's plugin modules
    (cached); `extra`: fields added to the answer. The answer's `size` is the JSON's,
    before gzip."""
    try:
        registry = _registry(plugins)
        record = parse_log(log, registry)
        with open(out, "xb") as stream:
            if not gzipped:
                return ReplayAnswer(write_frames(record, registry, limits, stream, extra))
            with gzip.GzipFile(fileobj=stream, mode="wb", compresslevel=6, mtime=0) as packed:
                return ReplayAnswer(write_frames(record, registry, limits, packed, extra))
    except ReplayLimitError as error:
        answer = ReplayAnswer(None, "replay-limit", str(error),
                              {"reason_code": error.code, "reason_params": error.params})
    except (ArenaError, ValueError, KeyError, TypeError) as error:
        reason = {}
        if isinstance(error, ArenaError) and error.code:
            line = getattr(error, "line", 0)
            reason = {"reason_code": error.code,
                      "reason_params": {**error.params, **({"line": line} if line else {})}}
        answer = ReplayAnswer(None, "bad-log", f"the log cannot be replayed: {error}", reason)
    except ArithmeticError:
        answer = ReplayAnswer(None, "bad-log", "the log cannot be replayed: a number in it "
                                               "is out of range")
    except RecursionError:
        answer = ReplayAnswer(None, "bad-log", "the log cannot be replayed: its values are "
                                               "nested too deep")
    if os.path.exists(out):
        os.remove(out)
    return answer


def tournament_log(directory: Path, game_id: str) -> str | None:
    """The JSON Lines log of game ``F-S-I`` in a tournament directory
    (`arena.tournament.store.read_game_log`); None if there is none."""
    try:
        return read_game_log(directory, game_id)
    except (ValueError, KeyError, FileNotFoundError):
        return None
