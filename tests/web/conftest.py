"""The server fixtures (a real server on loopback) shared with tests/server."""

from tests.server.conftest import arena, make_arena

__all__ = ["arena", "make_arena"]
