"""The sans-I/O protocol core: frames in, messages out, and back.

Feed each received WebSocket frame to `receive_data`, then collect the decoded,
validated messages (and protocol errors) with `events_received`; queue messages with
`send` and write the frames `data_to_send` returns. Nothing here touches a socket, a
clock or the event loop, so the server, the client SDK and the tests share it.

A bad frame never raises: it becomes a `ProtocolError` event and, on the server side,
an ``error`` message queued for the peer. After `max_errors` bad frames the core
declares the peer hopeless with a fatal ``too-many-errors`` error.

    >>> server = ProtocolCore("server", Encoding.JSON)
    >>> server.receive_data('{"type": "ping", "id": 7}')
    >>> server.events_received()
    [Message.make('ping', id=7)]
    >>> server.receive_data('{"type": "pong"}')
    >>> server.events_received()
    [MissingField("pong: missing field 'id'")]
    >>> server.data_to_send()
    ['{"type":"error","code":"missing-field","message":"pong: missing field \\'id\\'","fatal":false}']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from protocol.codec import DEFAULT_MAX_FRAME, Encoding
from protocol.errors import OversizeFrame, ProtocolError
from protocol.schema import Message
from protocol.typed import TypedReader

__all__ = ["Event", "ProtocolCore", "Side", "frame_size"]

Side = Literal["client", "server"]
Event = Message | ProtocolError



class TooManyErrors(ProtocolError):
    code = "too-many-errors"
    fatal = True


class ProtocolCore:
    """One side of one connection, without I/O.

    Args:
        side: ``"server"`` validates client messages and answers bad frames with
            ``error`` messages; ``"client"`` validates server messages.
        encoding: the negotiated frame encoding.
        max_frame: longest frame accepted, in bytes.
        max_errors: bad frames tolerated before a fatal error.
        max_send: longest frame `send` queues, in bytes (the limit the peer announced;
            None: no limit); `send` raises `OversizeFrame` for a longer one.
    """

    def __init__(
        self,
        side: Side,
        encoding: Encoding,
        *,
        max_frame: int = DEFAULT_MAX_FRAME,
        max_errors: int = 20,
        max_send: int | None = None,
    ) -> None:
        self.side = side
        self.encoding = encoding
        self._encode = encoding.encoder
        self.max_frame = max_frame
        self.max_errors = max_errors
        self.max_send = max_send
        self.errors = 0
        self._peer: Literal["client", "server"] = "client" if side == "server" else "server"
        self._typed = TypedReader(self._peer, encoding, max_frame=max_frame)
        self._events: list[Event] = []
        self._out: list[bytes | str] = []

    # -- input -------------------------------------------------------------------------

    def receive_data(self, frame: bytes | str) -> None:
        """Decode and validate one frame; the result waits in `events_received`.

        The frame is read into the typed struct of its message first (`TypedReader`:
        msgspec, in C, from the one schema), several times faster than decoding and
        validating in Python (it runs on every frame of both sides). A frame the schema
        refuses is read again by the reference path (`read_data`: msgpack or json, then
        `Message.from_wire`), whose verdict and words are the protocol's. The accepted
        messages are the same either way (`tests/protocol/test_fuzz.py` compares the
        two on arbitrary frames)."""
        message = self._typed.read(frame)
        if message is not None:
            self._events.append(message)
        else:
            self.read_data(frame)

    def read_data(self, frame: bytes | str) -> None:
        """`receive_data` by the reference path alone: msgpack or json, then the schema."""
        try:
            data = self.encoding.decode(frame, max_size=self.max_frame)
            message = Message.from_wire(data, sender=self._peer,
                                        ignore_unknown=self.side == "client")
        except ProtocolError as error:
            self._fail(error, _game_of(locals().get("data")))
            return
        self._events.append(message)

    def events_received(self) -> list[Event]:
        """The messages and errors received since the last call, in order."""
        events, self._events = self._events, []
        return events

    def _fail(self, error: ProtocolError, game_id: str | None = None) -> None:
        self.errors += 1
        self._events.append(error)
        if self.side == "server":
            self.send_error(error, game_id=game_id)
            if self.errors > self.max_errors and not error.fatal:
                fatal = TooManyErrors(f"{self.errors} bad frames; closing")
                self._events.append(fatal)
                self.send_error(fatal)

    # -- output ------------------------------------------------------------------------

    def send(self, message: Message) -> None:
        """Queue a message (already validated by `Message.make`).

        Raises:
            OversizeFrame: its frame is longer than `max_send` (nothing is queued).
        """
        self.send_fields(message.type, message.body)

    def send_fields(self, type: str, fields: Mapping[str, Any]) -> None:
        """`send` for a message given by its type and fields, as they are: for messages
        trusted code builds (the server's own, checked by the receiver), with no
        `Message` made on the way (it runs for every message the server sends).

        Raises:
            OversizeFrame: its frame is longer than `max_send` (nothing is queued).
        """
        frame = self._encode({"type": type, **fields})
        limit = self.max_send
        if limit is not None and len(frame) > limit // 4 and frame_size(frame) > limit:
            raise OversizeFrame(
                f"a {type!r} message of {frame_size(frame)} bytes is longer than "
                f"the {limit} bytes the peer accepts")
        self._out.append(frame)

    def send_error(self, error: ProtocolError, *, game_id: str | None = None) -> None:
        fields: dict[str, Any] = {"code": error.code, "message": error.message, "fatal": error.fatal}
        if game_id is not None:
            fields["game_id"] = game_id
        self.send(Message("error", fields))

    def data_to_send(self) -> list[bytes | str]:
        """The frames to write since the last call, in order."""
        out, self._out = self._out, []
        return out


def frame_size(frame: bytes | str) -> int:
    """A frame's length in bytes on the wire (text frames in UTF-8)."""
    return len(frame) if isinstance(frame, bytes) else len(frame.encode("utf-8", "surrogatepass"))


def _game_of(data: Any) -> str | None:
    if isinstance(data, dict):
        game_id = data.get("game_id")
        if isinstance(game_id, str) and len(game_id) <= 64:
            return game_id
    return None
