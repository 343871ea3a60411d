from __future__ import annotations

import pytest

import arena
from arena import game as game_module
from arena.errors import PluginError
from arena.registry import BUILTIN_PLUGINS, Registry


def test_builtin_games_and_bots_register_through_the_hooks():
    registry = Registry(entry_points=False)
    assert {"substitution", "sim", "heaps"} <= set(registry.games)
    assert registry.bot_factory("substitution", "random").game == "substitution"


def test_a_missing_plugin_module_is_a_clear_error():
    with pytest.raises(PluginError, match="cannot load the plugin module 'no.such.plugin'"):
        Registry((*BUILTIN_PLUGINS, "no.such.plugin"), entry_points=False)


def test_public_names_are_exported():
    for name in arena.__all__:
        assert hasattr(arena, name)
    for name in game_module.__all__:
        assert hasattr(game_module, name)
