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
