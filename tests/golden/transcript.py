"""Golden transcripts of protocol-1 sessions: what a client sent, what the server said.

A transcript is a text file, one step a line (``#`` lines are comments):

``! connect json`` / ``! connect msgpack``
    a new WebSocket connection with that encoding (the previous one is dropped);
``! opponent NAME {"TURN": "MOVE", ...}``
    a bot account NAME, connected through the SDK, playing the moves given by turn;
``! start {"game": ..., "settings": ..., "players": [...], "seed": N, "time_control": {...}}``
    the server starts a game (its id is ``GAME`` from here on);
``> {json}``
    a message from the client, written in the connection's encoding (``TOKEN`` is the
    real token of the account the ``hello`` names; ``GAME`` the game's id);
``>frame TEXT-AS-JSON-STRING`` or ``>frame hex:HEX``
    a frame sent exactly as written (a text frame, or a binary one);
``< {json}``
    a message the server must send next, normalised (`normalise`);
``<close CODE``
    the server closes the connection with that code.

`tests/golden/test_goldens.py` replays every transcript against the server of the
build under test; `python -m tests.golden.record` rewrites the ``<`` lines from what
the server says now (then read the diff: each change is a change bots can see, and
needs its entry in CHANGELOG.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TRANSCRIPTS = sorted(HERE.glob("*.transcript"))


@dataclass(frozen=True)
class Step:
    """One line of a transcript: its kind (``connect``, ``opponent``, ``start``,
    ``send``, ``frame``, ``expect``, ``close``), its argument and its line number."""

    kind: str
    arg: Any
    line: int
    text: str


def parse(path: Path) -> list[Step]:
    steps = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        head, _, rest = line.partition(" ")
        if head == "!":
            verb, _, tail = rest.partition(" ")
            if verb == "connect":
                steps.append(Step("connect", tail.strip(), number, line))
            elif verb == "opponent":
                name, _, moves = tail.partition(" ")
                steps.append(Step("opponent", (name, json.loads(moves)), number, line))
            elif verb == "start":
                steps.append(Step("start", json.loads(tail), number, line))
            else:
                raise ValueError(f"{path.name}:{number}: unknown directive {verb!r}")
        elif head == ">":
            steps.append(Step("send", json.loads(rest), number, line))
        elif head == ">frame":
            frame: bytes | str = (bytes.fromhex(rest[4:]) if rest.startswith("hex:")
                                  else json.loads(rest))
            steps.append(Step("frame", frame, number, line))
        elif head == "<":
            steps.append(Step("expect", json.loads(rest), number, line))
        elif head == "<close":
            steps.append(Step("close", int(rest), number, line))
        else:
            raise ValueError(f"{path.name}:{number}: cannot read {line!r}")
    return steps


def dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def substitute(data: Any, names: dict[str, str]) -> Any:
    """`data` with each placeholder (``TOKEN``, ``GAME``) replaced by its value."""
    text = dumps(data)
    for placeholder, value in names.items():
        text = text.replace(f'"{placeholder}"', dumps(value))
    return json.loads(text)


def normalise(data: dict[str, Any], game_id: str | None, commitment: str | None
              ) -> dict[str, Any]:
    """A server message without what differs from run to run: the game's id (``GAME``),
    its seed commitment (``COMMITMENT``, checked against the seed), times measured."""
    if game_id is not None:
        data = json.loads(dumps(data).replace(game_id, "GAME"))
    if data.get("type") == "game_start" and commitment is not None:
        assert data["seed_commitment"] == commitment, "the commitment is not the seed's"
        data["seed_commitment"] = "COMMITMENT"
    if data.get("type") == "move_accepted":
        data["elapsed_ms"] = 0
    if data.get("type") == "your_turn":
        data["clock"]["left_ms"] = 0
    return data
