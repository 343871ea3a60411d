"""A third-party game gets what the built-in ones get, through the plugin hooks alone:
its log format, commands, command-line and web settings, web endpoints and step-built
moves (tests/third_party_plugin.py)."""

from __future__ import annotations

from typing import Any

import pytest
from click.testing import CliRunner

import arena.registry
from arena.cli import main
from arena.errors import LogFormatError, PluginError
from arena.match import play_match
from arena.record import to_jsonl
from arena.registry import BUILTIN_PLUGINS, Registry
from arena.validate import parse_log, validate_record
from arena.web.endpoints import endpoints
from tests.server.conftest import make_arena
from tests.third_party_plugin import MARK

__all__ = ["make_arena"]  # the server fixture

PLUGINS = (*BUILTIN_PLUGINS, "tests.third_party_plugin")


@pytest.fixture(scope="module")
def registry() -> Registry:
    return Registry(PLUGINS, entry_points=False)


def test_its_log_format_is_read_and_replayed_like_the_arenas_own(registry: Registry) -> None:
    game = registry.load_game("third-sim", {"vertices": 5})
    bot = registry.make_bot(game, "third-random")
    record = play_match(game, [bot, bot], seed=2).record()
    text = MARK + to_jsonl(record)
    assert parse_log(text, registry) == record
    assert validate_record(parse_log(text, registry), registry) is None
    with pytest.raises(LogFormatError, match="third log"):
        parse_log("something else\n", registry)
    with pytest.raises(LogFormatError):  # without the plugin, nobody reads it
        parse_log(text, Registry(BUILTIN_PLUGINS, entry_points=False))


def test_its_commands_and_settings_join_the_command_line(
        registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arena.registry, "default_registry", lambda: registry)
    runner = CliRunner()
    listing = runner.invoke(main, ["--help"])
    assert listing.exit_code == 0 and "third-hello" in listing.output
    assert "compare-tiles" in listing.output and "grammar" in listing.output
    result = runner.invoke(main, ["third-hello"])
    assert result.exit_code == 0, result.output
    assert result.output == "hello from third-sim\n"
    assert registry.cli_settings("third-sim", {"moves": 7}) == {"vertices": 7}
    assert registry.cli_settings("sim", {"moves": 7}) == {}


def test_a_plugin_may_not_take_an_arena_command(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = Registry(PLUGINS, entry_points=False)
    registry.cli_commands["validate"] = "tests.third_party_plugin:hello"
    monkeypatch.setattr(arena.registry, "default_registry", lambda: registry)
    result = CliRunner().invoke(main, ["third-hello"])
    assert isinstance(result.exception, PluginError)
    assert "'validate'" in str(result.exception)


def test_its_endpoints_are_served_beside_the_arenas_and_none_twice(registry: Registry) -> None:
    served = {(e.method, e.path) for e in endpoints(registry)}
    assert ("GET", "/api/third/hello") in served and ("POST", "/api/grammars") in served

    class Twice(Registry):
        def web_endpoints(self) -> list[Any]:
            return super().web_endpoints() * 2

    with pytest.raises(PluginError, match="two endpoints serve GET /api/third/hello"):
        endpoints(Twice(PLUGINS, entry_points=False))


async def test_the_web_serves_its_endpoints_settings_presets_and_steps(
        make_arena: Any, registry: Registry) -> None:
    from tests.web.test_api import _guest_connected, get, post

    arena = await make_arena(registry=registry)
    server = arena.server
    assert await get(arena, "/api/third/hello") == (200, {"game": "third-sim"})
    status, document = await get(arena, "/api/openapi.json")
    assert status == 200 and "/api/third/hello" in document["paths"]
    status, checked = await post(arena, "/api/settings/check",
                                 {"game": "third-sim", "moves": 6})
    assert status == 200 and checked["settings"] == {"vertices": 6}, checked
    assert server.storage is not None
    await server.storage.save_preset("third-sim", "big", "7")
    status, checked = await post(arena, "/api/settings/check",
                                 {"game": "third-sim", "grammar": "big"})
    assert status == 200 and checked["settings"] == {"vertices": 7}, checked
    status, options = await get(arena, "/api/web/options", game="third-sim")
    assert status == 200 and options["presets"] == [
        {"name": "big", "description": "saved", "builtin": False, "text": "7"}]
    guest, raw = await _guest_connected(arena, "third-sim")
    status, started = await guest.play(game="third-sim", moves=5, bot="third-random")
    assert status == 200, started
    await raw.expect("your_turn")
    status, legal = await get(arena, "/api/legal", game_id=started["game_id"], steps="0 1")
    assert status == 200 and legal["steps_so_far"] == "0 1" and legal["to_act"] == 0
    status, error = await get(arena, "/api/legal", game_id=started["game_id"], steps="x")
    assert status == 400 and error["code"] == "malformed"
    assert error["message"] == "step 1: x is no step"
