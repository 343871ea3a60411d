"""Both sides frame their messages themselves: exactly as websockets would (the
client's masked with keys of its own)."""

from __future__ import annotations

import pytest
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from protocol.transport import _frame, _masking_keys, server_frame


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65535, 65536, 70000])
@pytest.mark.parametrize("text", [False, True])
def test_server_frames_are_websockets_frames(size: int, text: bool) -> None:
    payload = "é" * (size // 2) if text else bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    data = payload.encode() if isinstance(payload, str) else payload
    expected = Frame(Opcode.TEXT if text else Opcode.BINARY, data).serialize(
        mask=False, extensions=[])
    assert server_frame(payload) == expected


def _parse(frame: bytes, *, mask: bool) -> Frame:
    """`frame` read by websockets' own parser (as the server reads a client's)."""
    reader = StreamReader()
    reader.feed_data(frame)
    reader.feed_eof()
    parser = Frame.parse(reader.read_exact, mask=mask)
    with pytest.raises(StopIteration) as done:
        next(parser)
    assert not reader.buffer
    return done.value.value  # type: ignore[no-any-return]


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65535, 65536, 70000])
@pytest.mark.parametrize("text", [False, True])
def test_client_frames_are_masked_websockets_frames(size: int, text: bool) -> None:
    payload = "é" * (size // 2) if text else bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    data = payload.encode() if isinstance(payload, str) else payload
    key = _masking_keys.take()
    frame = _parse(_frame(payload, key), mask=True)
    assert (frame.opcode, frame.data, frame.fin) == (
        Opcode.TEXT if text else Opcode.BINARY, data, True)


def test_masking_keys_are_drawn_fresh() -> None:
    keys = [_masking_keys.take() for _ in range(1000)]  # several draws from os.urandom
    assert all(len(key) == 4 for key in keys)
    assert len(set(keys)) > 990  # 4 random bytes: a repeat in 1000 is rare, 10 never
