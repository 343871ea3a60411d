"""The msgpack frames the codec writes are msgpack's own bytes (the wire format that
clients in other languages and the documented frames rely on)."""

from __future__ import annotations

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import Encoding

values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1) | st.floats()
    | st.text(max_size=40) | st.binary(max_size=40),
    lambda inner: st.lists(inner, max_size=8) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=10) | st.integers(-2**63, 2**63), inner, max_size=8),
    max_leaves=30,
)  # long strings, maps and arrays: test_long_strings_and_maps_take_msgpacks_headers


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values)
def test_msgpack_frames_are_msgpacks_bytes(value):
    data = {"type": "any", "value": value}
    assert Encoding.MSGPACK.encode(data) == msgpack.packb(data, use_bin_type=True)


@pytest.mark.parametrize("size", [31, 32, 255, 256, 65535, 65536])
def test_long_strings_and_maps_take_msgpacks_headers(size):
    data = {"text": "x" * size, "bytes": b"y" * size, "list": [0] * size,
            "map": {f"k{i}": i for i in range(size)}}
    assert Encoding.MSGPACK.encode(data) == msgpack.packb(data, use_bin_type=True)


@pytest.mark.parametrize("value", [2**64, -2**63 - 1])
def test_integers_beyond_64_bits_are_refused(value):
    with pytest.raises(OverflowError):
        Encoding.MSGPACK.encode({"n": value})
