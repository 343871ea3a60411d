"""Golden transcripts of protocol-1 sessions, replayed against every build: no change a
bot can see lands unless its transcript changes with it (and CHANGELOG.md says so).

The transcripts (`tests/golden/*.transcript`, read `transcript` for their form) pin
the WebSocket protocol in both encodings -- the handshake, a game, every error code and
text -- and the line protocol of program bots (`tests/golden/lines.py`).
"""

from __future__ import annotations

import pytest

from tests.golden import lines
from tests.golden.session import run
from tests.golden.transcript import TRANSCRIPTS, parse

WEBSOCKET = [path for path in TRANSCRIPTS if path.stem.startswith("v1-websocket")]
LINES = [path for path in TRANSCRIPTS if path.stem.startswith("v1-line")]


def test_every_encoding_has_its_transcript():
    assert {path.stem for path in WEBSOCKET} >= {"v1-websocket-json", "v1-websocket-msgpack"}


@pytest.mark.parametrize("path", WEBSOCKET, ids=lambda path: path.stem)
async def test_a_websocket_session_goes_as_its_transcript_says(path, tmp_path):
    steps = parse(path)
    assert sum(step.kind == "expect" for step in steps) > 40
    replay = await run(path, tmp_path / "arena.sqlite")
    assert replay.mismatches == [], "\n\n".join(replay.mismatches)


@pytest.mark.parametrize("path", LINES, ids=lambda path: path.stem)
def test_a_line_session_goes_as_its_transcript_says(path, tmp_path):
    expected = lines.transcript_lines(path)
    assert any(line.startswith("< turn ") for line in expected)
    assert lines.play(path, tmp_path / "program.log") == expected
