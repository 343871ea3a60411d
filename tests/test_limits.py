"""Settings limits through the game plugin API: every game declares and measures them,
and `check_settings` refuses what is beyond them, more strictly for guests."""

from __future__ import annotations

import pytest

from arena.games.substitution import Settings
from arena.limits import SettingLimit, SettingsLimitExceeded, check_settings
from arena.match import Match, play_match
from arena.referee import Referee
from arena.registry import default_registry


def default_settings(name: str) -> dict:
    registry = default_registry()
    lobby = registry.game_class(name).web_lobby().get("settings")
    return lobby if lobby is not None else Settings.preset("medium", 50).to_json()


@pytest.mark.parametrize("name", sorted(default_registry().games))
def test_every_game_declares_limits_it_measures(name: str) -> None:
    registry = default_registry()
    game = registry.load_game(name, default_settings(name))
    assert game.type.limits, f"{name} declares no settings limits"
    sizes = game.sizes()
    for limit in game.type.limits:
        assert limit.name in sizes and limit.doc
        assert 0 < limit.guest <= limit.standard
    # the web interface's own defaults are within the guests' limits
    check_settings(game, "guest")


def test_the_issues_freezing_settings_are_refused():
    registry = default_registry()
    heaps = registry.load_game("heaps", {
        "rules": {"heaps": 2, "end": {"measure": "sum", "at_least": 50_000},
                  "moves": {"any": ["+1", "*2"]}},
        "start": [1, 1]})
    with pytest.raises(SettingsLimitExceeded, match="positions 2500000000 is above"):
        check_settings(heaps, "standard")
    deal = "01" * 20
    durak = registry.load_game("durak", {"cards": deal})
    with pytest.raises(SettingsLimitExceeded, match="cards 40 is above the limit for guests"):
        check_settings(durak, "guest")
    bomb = Settings.from_json({"moves": 100_000, "groups": [
        {"left": "S", "alternatives": ["S" * 7800, "a"]}], "weights": [1]})
    substitution = registry.load_game("substitution", bomb.to_json())
    with pytest.raises(SettingsLimitExceeded, match="moves 100000"):
        check_settings(substitution, "standard")


def test_guests_are_held_to_stricter_limits_and_operators_may_change_them():
    registry = default_registry()
    game = registry.load_game("durak", {"cards": "01" * 14})  # 28 cards
    check_settings(game, "standard")
    with pytest.raises(SettingsLimitExceeded, match=r"durak: cards 28 .* guests \(24\)"):
        check_settings(game, "guest")
    check_settings(game, "guest", {"durak.cards": 28})
    with pytest.raises(SettingsLimitExceeded, match=r"this server \(20\)"):
        check_settings(game, "standard", {"durak.cards": 20})


def test_a_limit_needs_guest_within_standard():
    with pytest.raises(ValueError):
        SettingLimit("moves", "turns", standard=10, guest=20)


@pytest.mark.parametrize("name", sorted(default_registry().games))
def test_a_move_longer_than_any_legal_one_is_refused_unread(name: str) -> None:
    registry = default_registry()
    game = registry.load_game(name, default_settings(name))
    limit = game.max_move_length()
    assert limit is not None
    junk = "1 " * 100_000
    match = Match(game, ["a", "b"][:game.num_players()] or ["a"], seed=1)
    verdict = match.submit(match.to_act(), junk)
    assert verdict.rejection is not None and verdict.rejection.code == "too-long"
    assert str(limit) in verdict.rejection.message
    state = game.initial_state()
    checked = Referee(game).check(state, junk, chance=None)
    assert checked.rejection is not None and checked.rejection.code in ("too-long",
                                                                       "missing-roll",
                                                                       "missing-dice")
    # and no legal move comes near the bound: every bot's moves in a few games
    names = [f.name for f in registry.bot_factories(name)]
    for spec in {names[0], *(n for n in names if n.endswith("random"))}:
        bots = [registry.make_bot(game, spec) for _ in range(game.num_players())]
        for seed in range(3):
            played = play_match(game, bots, seed=seed)
            assert all(len(turn.move) <= limit for turn in played.turns), spec
