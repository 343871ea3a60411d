"""Replay frames: every state of a recorded game, recomputed by the referee.

`frames` is the replay itself. `replay_job` is what the server runs for the HTTP API,
in a worker process (`arena.server.workers.WorkerPool`), never on its event loop: it
parses the log, replays it and writes the JSON answer, within `ReplayLimits`: a log
of more turns is refused before it is replayed, and the replay stops as soon as one
frame or the whole answer grows past its limit. A game whose state grows with every
turn costs the square of its turns in frames (issue 11, finding 1: a 1.7 KB log asked
for gigabytes), so the answer's size, not the log's, is what is bounded.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.game import CHANCE, Game
from arena.record import MatchRecord
from arena.referee import Referee
from arena.registry import BUILTIN_PLUGINS, Registry
from arena.validate import parse_log

__all__ = ["ReplayAnswer", "ReplayLimitError", "ReplayLimits", "frames", "replay_job",
           "tournament_log"]


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
    """What a replay job gives back: the JSON answer, or why there is none."""

    body: bytes | None
    code: str = ""
    """``bad-log`` (it does not parse, or names an unknown game or bad settings) or
    ``replay-limit``."""
    message: str = ""


def _frames(record: MatchRecord, game: Game[Any, Any]) -> Iterator[dict[str, Any]]:
    """Frame 0 (the start), then the frame after each turn; a move the referee rejects
    ends them with ``{"error": ...}``."""
    referee = Referee(game)
    state = game.initial_state()
    rendered = type(game).render is not Game.render

    def frame(**fields: Any) -> dict[str, Any]:
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
    start = frame(index=0)
    if -1 in notes:
        start["notes"] = notes[-1]
    yield start
    for index, turn in enumerate(record.turns):
        chance = turn.chance if game.to_act(state) == CHANCE else None
        verdict = referee.check(state, turn.move, player=turn.player, chance=chance)
        if verdict.state is None:
            assert verdict.rejection is not None
            # numbered as the viewer numbers its frames: turn i leads to frame i
            yield {"error": f"turn {index + 1}: {_seat_name(record, turn.player)} played "
                            f"{turn.move!r}: {verdict.rejection.message}",
                   "error_turn": index + 1}
            return
        state = verdict.state
        item = frame(index=index + 1, player=turn.player, chance=turn.chance, move=turn.move)
        if index in notes:
            item["notes"] = notes[index]
        yield item


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
    count: the frame it would have made).
    """
    game = registry.load_game(record.game, record.settings)
    items = list(_frames(record, game))
    stop = items.pop() if "error" in items[-1] else {}
    return {**_header(record), "frames": items, "error": stop.get("error"),
            "error_turn": stop.get("error_turn")}


def encode_frames(record: MatchRecord, registry: Registry, limits: ReplayLimits,
                  extra: dict[str, Any] | None = None) -> bytes:
    """`frames` as JSON bytes, encoded frame by frame so that the limits stop the work
    as soon as it passes them.

    Raises:
        ReplayLimitError: too many turns, a frame or the whole answer too large.
    """
    if len(record.turns) > limits.turns:
        raise ReplayLimitError(f"the log has {len(record.turns)} turns; replays take at most "
                               f"{limits.turns}")
    game = registry.load_game(record.game, record.settings)
    head = json.dumps({**_header(record), **(extra or {})}, ensure_ascii=False)
    parts: list[str] = []
    total = len(head)
    error = error_turn = None
    for item in _frames(record, game):
        if "error" in item:
            error, error_turn = item["error"], item["error_turn"]
            break
        text = json.dumps(item, ensure_ascii=False)
        if len(text) > limits.frame_bytes:
            raise ReplayLimitError(
                f"frame {item['index']} is {len(text)} bytes of JSON; a replay frame is at "
                f"most {limits.frame_bytes} (the game's state grew too large to show)")
        total += len(text) + 1
        if total > limits.total_bytes:
            raise ReplayLimitError(
                f"the replay passed {limits.total_bytes} bytes of JSON at frame "
                f"{item['index']} of {len(record.turns)}; replays are at most that large")
        parts.append(text)
    tail = (f', "frames": [{",".join(parts)}], "error": {json.dumps(error, ensure_ascii=False)}, '
            f'"error_turn": {json.dumps(error_turn)}}}')
    return (head[:-1] + tail).encode("utf-8")


@cache
def _registry(plugins: tuple[str, ...]) -> Registry:
    return Registry(plugins)


def replay_job(log: str, plugins: tuple[str, ...] = BUILTIN_PLUGINS,
               limits: ReplayLimits = ReplayLimits(),
               extra: dict[str, Any] | None = None) -> ReplayAnswer:
    """Parse a log (JSON Lines or the thesis's text) and replay it within `limits`;
    run in a worker process. `plugins`: the registry's plugin modules (cached); `extra`:
    fields added to the answer."""
    try:
        record = parse_log(log)
        return ReplayAnswer(encode_frames(record, _registry(plugins), limits, extra))
    except ReplayLimitError as error:
        return ReplayAnswer(None, "replay-limit", str(error))
    except (ArenaError, ValueError, KeyError, TypeError) as error:
        return ReplayAnswer(None, "bad-log", f"the log cannot be replayed: {error}")


def tournament_log(directory: Path, game_id: str) -> str | None:
    """The JSON Lines log of game ``F-S-I`` in a tournament directory (issue 3's layout:
    ``logs/F-S/*.jsonl.gz``, lines ``{"id": ..., "log": ...}``); None if absent."""
    parts = game_id.split("-")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return None
    folder = directory / "logs" / f"{parts[0]}-{parts[1]}"
    for path in sorted(folder.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as stream:
            for line in stream:
                if line.strip():
                    item = json.loads(line)
                    if item.get("id") == game_id:
                        return str(item["log"])
    return None
