"""The message schema and the sans-I/O core."""

from __future__ import annotations

import pytest

from protocol import (
    SCHEMA,
    Encoding,
    Message,
    MissingField,
    ProtocolCore,
    UnexpectedMessage,
    UnknownField,
    UnknownMessageType,
    WrongFieldType,
)
from protocol.errors import AuthenticationError, RemoteError, error_from_code


def test_make_validates_and_round_trips():
    message = Message.make("move", game_id="g1", turn=3, move="-1 0 1")
    assert message["turn"] == 3 and message.get("nothing") is None
    assert eval(repr(message)) == message
    for encoding in Encoding:
        wire = encoding.encode(message.to_wire())
        assert Message.from_wire(encoding.decode(wire), sender="client") == message


@pytest.mark.parametrize(("data", "error", "text"), [
    ({"type": "nope"}, UnknownMessageType, "unknown message type 'nope'"),
    ({"id": 1}, MissingField, "no 'type'"),
    ({"type": 7}, WrongFieldType, "'type' must be a string"),
    ([1, 2], WrongFieldType, "must be a map"),
    ({"type": "ping"}, MissingField, "ping: missing field 'id'"),
    ({"type": "ping", "id": "1"}, WrongFieldType, "field 'id' must be an integer, not a string"),
    ({"type": "ping", "id": True}, WrongFieldType, "not a boolean"),
    ({"type": "ping", "id": 1, "x": 2}, UnknownField, "unknown field 'x'"),
    ({"type": "hello", "protocol": 1, "role": "bot", "games": ["a", 1]}, WrongFieldType,
     "a list of strings"),
    ({"type": "welcome", "protocol": 1}, UnexpectedMessage, "a client may not send 'welcome'"),
])
def test_strict_validation(data, error, text):
    with pytest.raises(error, match=text):
        Message.from_wire(data, sender="client")


def test_nullable_and_optional_fields():
    fields = {"game_id": "g", "turn": 0, "move": "", "code": "malformed", "message": "m",
              "step": None, "retries_left": 0}
    assert Message.make("move_rejected", **fields)["step"] is None
    with pytest.raises(WrongFieldType, match="or null"):
        Message.make("move_rejected", **{**fields, "step": "x"})
    with pytest.raises(WrongFieldType):  # not nullable
        Message.make("move", game_id=None, turn=0, move="")
    assert "token" not in Message.make("hello", protocol=1, role="spectator").body


def test_objects_must_be_json():
    with pytest.raises(WrongFieldType):
        Message.make("game_state", game_id="g", game="x", settings={"a": float("nan")},
                     players=[], turn=0, to_act=0, chance=None, state={})
    with pytest.raises(WrongFieldType):
        Message.make("game_state", game_id="g", game="x", settings={1: 2}, players=[], turn=0,
                     to_act=0, chance=None, state={})
    deep: dict = {}
    for _ in range(40):
        deep = {"x": deep}
    with pytest.raises(WrongFieldType):
        Message.make("game_state", game_id="g", game="x", settings=deep, players=[], turn=0,
                     to_act=0, chance=None, state={})


def test_every_spec_has_distinct_fields_and_a_sender():
    for name, spec in SCHEMA.items():
        assert spec.type == name and spec.sender in ("client", "server", "both")
        assert len({f.name for f in spec.fields}) == len(spec.fields)
        assert "type" not in spec.by_name


def test_core_answers_errors_on_the_server_side_only():
    server = ProtocolCore("server", Encoding.MSGPACK)
    server.receive_data(b"\x93\x01\x02\x03")  # a msgpack array
    (event,) = server.events_received()
    assert isinstance(event, WrongFieldType)
    (frame,) = server.data_to_send()
    assert Encoding.MSGPACK.decode(frame)["code"] == "wrong-type"
    client = ProtocolCore("client", Encoding.JSON)
    client.receive_data("{]")
    assert [e.code for e in client.events_received()] == ["malformed-frame"]
    assert client.data_to_send() == []


def test_core_gives_up_after_too_many_errors():
    core = ProtocolCore("server", Encoding.JSON, max_errors=3)
    for _ in range(4):
        core.receive_data("nonsense")
    events = core.events_received()
    assert events[-1].code == "too-many-errors" and events[-1].fatal
    codes = [Encoding.JSON.decode(f)["code"] for f in core.data_to_send()]
    assert codes == ["malformed-frame"] * 4 + ["too-many-errors"]


def test_oversize_frames():
    core = ProtocolCore("server", Encoding.JSON, max_frame=10)
    core.receive_data('{"type":"ping","id":1}')
    assert [e.code for e in core.events_received()] == ["oversize"]
    core = ProtocolCore("server", Encoding.JSON, max_frame=30)
    core.receive_data('{"type":"ping","id":"ééééééééé"}')  # 9 chars, 18 bytes + 21
    assert [e.code for e in core.events_received()] == ["oversize"]


def test_error_from_code():
    assert isinstance(error_from_code("unauthorized", "no", fatal=True), AuthenticationError)
    other = error_from_code("bad-request", "why")
    assert isinstance(other, RemoteError) and other.code == "bad-request" and str(other) == "bad-request: why"


def test_subprotocols():
    assert Encoding.from_subprotocol("arena.v1.msgpack") is Encoding.MSGPACK
    with pytest.raises(ValueError, match="unknown subprotocol"):
        Encoding.from_subprotocol("arena.v2.json")


def test_nested_tuples_from_a_game_are_sent_as_arrays():
    message = Message.make("game_state", game_id="g", game="x", settings={"start": (7, 10)},
                           players=["a", "b"], turn=0, to_act=0, chance=[1, (2, 3)], state={})
    for encoding in Encoding:
        decoded = Message.from_wire(encoding.decode(encoding.encode(message.to_wire())),
                                    sender="server")
        assert decoded["settings"] == {"start": [7, 10]} and decoded["chance"] == [1, [2, 3]]
