"""The server frames its messages itself: exactly as websockets would."""

from __future__ import annotations

import pytest
from websockets.frames import Frame, Opcode

from protocol.transport import server_frame


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65535, 65536, 70000])
@pytest.mark.parametrize("text", [False, True])
def test_server_frames_are_websockets_frames(size: int, text: bool) -> None:
    payload = "é" * (size // 2) if text else bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    data = payload.encode() if isinstance(payload, str) else payload
    expected = Frame(Opcode.TEXT if text else Opcode.BINARY, data).serialize(
        mask=False, extensions=[])
    assert server_frame(payload) == expected
