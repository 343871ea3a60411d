"""The decoders never crash: any frame becomes a message or a `ProtocolError`."""

from __future__ import annotations

import json

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import SCHEMA, Encoding, Message, ProtocolCore, ProtocolError

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=30,
)
msgpack_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1) | st.floats() | st.text(max_size=20)
    | st.binary(max_size=20),
    lambda inner: st.lists(inner, max_size=5)
    | st.dictionaries(st.text(max_size=10) | st.integers(-2**63, 2**63), inner, max_size=5),
    max_leaves=30,
)
field_names = st.sampled_from(sorted({f.name for spec in SCHEMA.values() for f in spec.fields}))
messages = st.builds(
    lambda kind, fields: {"type": kind, **fields},
    st.sampled_from(sorted(SCHEMA)) | st.text(max_size=8),
    st.dictionaries(field_names, json_values, max_size=8),
)


def feed(side, encoding, frame):
    core = ProtocolCore(side, encoding)
    core.receive_data(frame)
    events = core.events_received()
    assert len(events) == 1
    event = events[0]
    assert isinstance(event, (Message, ProtocolError))
    if isinstance(event, Message):  # accepted: re-validates and re-encodes
        again = Message.from_wire(event.to_wire(), sender="both")
        assert again == event
        encoding.encode(event.to_wire())
    for out in core.data_to_send():
        Message.from_wire(encoding.decode(out), sender="server")
    return event


FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.binary(max_size=300))
def test_msgpack_bytes(frame):
    for side in ("server", "client"):
        feed(side, Encoding.MSGPACK, frame)


@FUZZ
@given(st.text(max_size=300))
def test_json_text(frame):
    for side in ("server", "client"):
        feed(side, Encoding.JSON, frame)


@FUZZ
@given(msgpack_values)
def test_msgpack_values(value):
    feed("server", Encoding.MSGPACK, msgpack.packb(value, use_bin_type=True))


@FUZZ
@given(messages)
def test_message_shaped_input(data):
    try:
        feed("server", Encoding.MSGPACK, msgpack.packb(data, use_bin_type=True))
    except OverflowError:  # the test's own packing of a huge integer
        pass
    try:
        text = json.dumps(data)
    except ValueError:
        return
    feed("client", Encoding.JSON, text)


@FUZZ
@given(st.binary(max_size=60), st.sampled_from(list(Encoding)))
def test_wrong_frame_kinds(data, encoding):
    frame = data.decode("latin-1") if encoding is Encoding.MSGPACK else data
    event = feed("server", encoding, frame)
    assert isinstance(event, ProtocolError) and event.code == "malformed-frame"


def test_integers_beyond_64_bits_are_refused():
    event = feed("server", Encoding.JSON, '{"type": "ping", "id": 100000000000000000000000}')
    assert isinstance(event, ProtocolError) and event.code == "wrong-type"


def test_deep_nesting_is_refused_not_crashing():
    deep = "[" * 100_000 + "]" * 100_000
    assert isinstance(feed("server", Encoding.JSON, deep), ProtocolError)
    packed = b"\x91" * 100_000 + b"\xc0"
    assert isinstance(feed("server", Encoding.MSGPACK, packed), ProtocolError)


def quick_and_reference(side, frame, encoding=Encoding.MSGPACK):
    """What `receive_data` (typed structs first) and `read_data` (msgpack or json, then
    the schema) make of `frame`: the events and the frames queued for the peer."""
    results = []
    for read in (ProtocolCore.receive_data, ProtocolCore.read_data):
        core = ProtocolCore(side, encoding)
        read(core, frame)
        events = [(type(e).__name__, str(e)) if isinstance(e, ProtocolError) else e
                  for e in core.events_received()]
        results.append((events, core.data_to_send()))
    return results


extension_values = st.builds(msgpack.ExtType, st.integers(0, 127), st.binary(max_size=8)) \
    | st.builds(lambda s: msgpack.Timestamp(s, 0), st.integers(0, 2**32 - 1))
odd_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1) | st.floats() | st.text(max_size=8)
    | st.binary(max_size=8) | extension_values,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=6) | st.integers(-9, 9) | st.binary(max_size=3), inner,
                      max_size=4),
    max_leaves=20,
)
odd_messages = st.builds(
    lambda kind, fields: {"type": kind, **fields},
    st.sampled_from(sorted(SCHEMA)),
    st.dictionaries(field_names | st.text(max_size=4), odd_values, max_size=10),
)


def packed(data, tail=b""):
    try:
        return msgpack.packb(data, use_bin_type=True) + tail
    except OverflowError:  # the test's own packing of an integer beyond 64 bits
        return None


@FUZZ
@given(st.one_of(
    st.binary(max_size=200),
    messages.map(packed),
    odd_messages.map(packed),
    odd_messages.map(lambda data: packed(data, b"\xc0")),
).filter(lambda frame: frame is not None), st.sampled_from(["server", "client"]))
def test_msgspec_reads_what_msgpack_reads(frame, side):
    """The typed path (msgspec) takes exactly the messages msgpack's path takes, with the
    same fields, and any other frame gets msgpack's path's error, word for word."""
    quick, reference = quick_and_reference(side, frame)
    assert quick == reference


def test_an_unknown_fields_value_is_read_the_protocols_way():
    """A client ignores a field it does not know, but not a frame msgpack's path refuses:
    a map key that is not a string or a string that is not UTF-8 inside the field's value
    (msgspec alone skips such a value unread; found by the fuzzing above)."""
    policy = b"\x83\xa4type\xa6policy\xa6accept\x80\xa7future!"
    for value, refused in ((b"\x81\x00\x00", True), (b"\xa2\xff\xfe", True),
                           (b"\x81\xa1k\x00", False)):
        quick, reference = quick_and_reference("client", policy + value)
        assert quick == reference
        assert isinstance(quick[0][0], Message) is not refused
    big = b"\xde\x00\x02\xa4type\xa6policy\xa6accept\x80"  # a map16 header
    quick, reference = quick_and_reference("client", big)
    assert quick == reference == ([Message.make("policy", accept={})], [])


def test_msgspec_reads_the_frames_the_server_and_the_sdk_exchange():
    turn = {"type": "your_turn", "game_id": "g1", "turn": 4, "move_number": 2, "seat": 0,
            "chance": 3, "state": {"bank": [1, 0, 2], "derivations": [["aB"], []], "x": 0.5},
            "clock": {"limit_ms": 10, "bank_ms": 0, "left_ms": 9}, "clocks": [0, 0],
            "retries_left": 0, "future_field": {"ignored": True}}
    quick, reference = quick_and_reference("client", msgpack.packb(turn))
    assert quick == reference and quick[0][0].body["state"]["x"] == 0.5
    move = msgpack.packb({"type": "move", "game_id": "g1", "turn": 4, "move": "-1 0 1"})
    quick, reference = quick_and_reference("server", move)
    assert quick == reference and quick[0] == [Message.make("move", game_id="g1", turn=4,
                                                            move="-1 0 1")]
    assert ProtocolCore("server", Encoding.MSGPACK)._typed.read(move) is not None  # msgspec's
    for bad in (move + b"\xc0", move[:-1], move.replace(b"-1 0 1", b"-1 0\xff")):
        quick, reference = quick_and_reference("server", bad)
        assert quick == reference and quick[1]  # refused, with an error for the client


_KIND_VALUES = {
    "str": st.text(max_size=6), "bool": st.booleans(),
    "int": st.integers(-9, 9) | st.sampled_from([-2**63 - 1, -2**63, 2**64 - 1, 2**64, 2**70]),
    "number": st.integers(-9, 9) | st.floats(), "strs": st.lists(st.text(max_size=4), max_size=3),
    "object": st.dictionaries(st.text(max_size=4), json_values, max_size=3),
    "list": st.lists(json_values, max_size=3), "json": json_values,
}


@st.composite
def schema_messages(draw):
    """Messages of the schema's types, mostly well formed: each field present or not,
    of its kind or (now and then) of another, or null; now and then an unknown field."""
    spec = draw(st.sampled_from(sorted(SCHEMA.values(), key=lambda spec: spec.type)))
    data = {"type": spec.type}
    for field in spec.fields:
        if draw(st.integers(0, 9)) == 0 and not field.required or draw(st.integers(0, 30)) == 0:
            continue
        choice = draw(st.integers(0, 12))
        value = (None if choice == 0 else draw(json_values) if choice == 1
                 else draw(_KIND_VALUES[field.kind]))
        data[field.name] = value
    if draw(st.integers(0, 8)) == 0:
        data[draw(st.text(max_size=5))] = draw(json_values)
    return data


def json_text(data):
    try:
        return json.dumps(data)  # NaN and infinities as JSON does not allow: refused
    except (ValueError, TypeError, RecursionError):  # not JSON (binary, extensions...)
        return None


@FUZZ
@given(st.one_of(
    st.text(max_size=200),
    schema_messages().map(json_text),
    odd_messages.map(lambda data: json_text({str(k): v for k, v in data.items()})),
    schema_messages().map(lambda data: (json_text(data) or "{}")[:-1] + ',"type":"ping"}'),
).filter(lambda frame: frame is not None), st.sampled_from(["server", "client"]))
def test_msgspec_reads_what_json_reads(frame, side):
    """JSON too: the typed path takes exactly the messages json's path takes (duplicate
    keys, NaN, integers beyond 64 bits, lone surrogates...), and words nothing itself."""
    quick, reference = quick_and_reference(side, frame, Encoding.JSON)
    assert quick == reference


@FUZZ
@given(schema_messages(), st.sampled_from(["server", "client"]))
def test_msgspec_reads_what_msgpack_reads_of_schema_messages(data, side):
    frame = packed(data)
    if frame is not None:
        quick, reference = quick_and_reference(side, frame)
        assert quick == reference


def test_json_integers_at_the_64_bit_bounds():
    for turn, accepted in ((2**64 - 1, True), (2**64, False), (-2**63, True), (-2**63 - 1, False)):
        frame = json.dumps({"type": "move", "game_id": "g", "turn": turn, "move": "x"})
        quick, reference = quick_and_reference("server", frame, Encoding.JSON)
        assert quick == reference and isinstance(quick[0][0], Message) is accepted
