"""Every name in a package's `__all__` exists (protocol, server, clients)."""

from __future__ import annotations

import importlib

import pytest


@pytest.mark.parametrize("module", [
    "protocol", "protocol.schema", "protocol.codec", "protocol.connection", "protocol.errors",
    "clients",
    "arena.server", "clients.sdk", "clients.blocking", "clients.bridge", "clients.operator",
])
def test_exports(module):
    loaded = importlib.import_module(module)
    for name in loaded.__all__:
        assert hasattr(loaded, name), f"{module}.{name}"
