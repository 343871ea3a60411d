"""The in-process arenas of tests/server (`make_arena`), for a gateway's tests."""

from tests.server.conftest import make_arena

__all__ = ["make_arena"]
