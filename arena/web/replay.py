"""Replay frames: every state of a recorded game, recomputed by the referee."""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.game import CHANCE, Game
from arena.record import MatchRecord
from arena.referee import Referee
from arena.registry import Registry
from arena.validate import parse_log

__all__ = ["MAX_UPLOAD", "decode_upload", "frames", "tournament_log"]

MAX_UPLOAD = 4 * 1024 * 1024
"""Largest uploaded log, after decompression."""


def frames(record: MatchRecord, registry: Registry) -> dict[str, Any]:
    """The game's header, its result and one frame per position.

    Frame 0 is the start; frame i (i >= 1) is the state after turn i-1, with who moved,
    the chance outcome it moved after, the move and the bots' debug lines of that turn
    (``notes``: player and text; lines after the last move go to the last frame). Each
    frame holds the JSON state
    and, for a game with its own `Game.render`, what that gives (``render``; the web
    page draws ``state`` where there is none). A move the referee rejects ends the
    frames and is reported as ``error``.
    """
    game = registry.load_game(record.game, record.settings)
    referee = Referee(game)
    state = game.initial_state()
    rendered = type(game).render is not Game.render

    def frame(**fields: Any) -> dict[str, Any]:
        item = {**fields, "state": game.state_to_json(state)}
        if rendered:
            item["render"] = game.render(state)
        return item

    result: list[dict[str, Any]] = [frame(index=0)]
    error = None
    for index, turn in enumerate(record.turns):
        chance = turn.chance if game.to_act(state) == CHANCE else None
        verdict = referee.check(state, turn.move, player=turn.player, chance=chance)
        if verdict.state is None:
            assert verdict.rejection is not None
            error = f"turn {index}: move {turn.move!r}: {verdict.rejection.message}"
            break
        state = verdict.state
        result.append(frame(index=index + 1, player=turn.player, chance=turn.chance,
                            move=turn.move))
    for note in record.notes:
        target = result[max(1, min(note.turn + 1, len(result) - 1))] if len(result) > 1 \
            else result[0]
        target.setdefault("notes", []).append({"player": note.player, "text": note.text})
    outcome = record.outcome
    return {
        "id": record.id, "game": record.game, "settings": dict(record.settings),
        "players": list(record.players), "seed": record.seed,
        "chance_name": record.chance_name,
        "outcome": outcome.to_json() if outcome is not None else None,
        "frames": result, "error": error,
    }


def decode_upload(data: str) -> str:
    """An uploaded log: raw deflate, then base64url (what the browser's app.js sends)."""
    import base64

    try:
        raw = base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
        inflater = zlib.decompressobj(-15)
        text = inflater.decompress(raw, MAX_UPLOAD)
    except (ValueError, zlib.error) as error:
        raise ArenaError(f"the upload is not deflated base64url: {error}") from None
    if inflater.unconsumed_tail:
        raise ArenaError(f"the log is larger than {MAX_UPLOAD} bytes")
    try:
        return text.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ArenaError(f"the log is not UTF-8 text (byte {error.start})") from None


def record_from_text(text: str) -> MatchRecord:
    return parse_log(text)


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
