"""``hosted:DIR`` (`arena.sandbox.hosted`): a built bot plays through the ``exec:``
runner from its sandbox, a fresh one each game, killed at the game's end; under a time
control of kind ``cpu`` its moves take the CPU time of its processes; hosted games
queue for their slots (`HostedSlots`)."""

from __future__ import annotations

import asyncio
import json
import pickle
import shutil
import threading
from pathlib import Path

import pytest

from arena.bots import parse_bot_spec
from arena.clock import TimeControl
from arena.errors import BotSpecError
from arena.game import Termination
from arena.registry import default_registry
from arena.sandbox.hosted import HostedBot
from arena.sandbox.manifest import MANIFEST, NotABuild
from arena.sandbox.slots import HostedSlots

from .conftest import BOTS, build_bot, hosted, leftovers, play

pytestmark = pytest.mark.usefixtures("no_leftovers")


def timing_bot(builds: Path, how: str, milliseconds: int) -> Path:
    out = builds / f"timing-{how}-{milliseconds}"
    if not out.exists():
        build_bot(BOTS / "timing.py", "python", out)
        manifest = json.loads((out / MANIFEST).read_text())
        manifest["command"] += [how, str(milliseconds)]
        (out / MANIFEST).write_text(json.dumps(manifest))
    return out


def test_a_hosted_bot_is_named_like_any_bot(honest: Path) -> None:
    spec = parse_bot_spec(f"hosted:{honest}")
    assert (spec.name, dict(spec.params)) == ("hosted", {"dir": str(honest)})
    assert str(spec) == f"hosted:{honest}"
    registry = default_registry()
    game = registry.load_game("sim", {})
    bot = registry.make_bot(game, spec)
    assert isinstance(bot, HostedBot) and bot.build.lang == "python"
    with pytest.raises(BotSpecError, match="a server runs only the builds it made"):
        registry.make_bot(game, spec, allow_exec=False)


def test_a_directory_that_is_no_build_is_refused(tmp_path: Path) -> None:
    with pytest.raises(NotABuild, match="arena bots build"):
        HostedBot(tmp_path)
    (tmp_path / MANIFEST).write_text('{"format": 1, "lang": "c", "command": "rm -rf /"}')
    with pytest.raises(NotABuild, match="malformed"):
        HostedBot(tmp_path)


def test_each_game_gets_a_fresh_sandbox_killed_at_its_end(honest: Path) -> None:
    bot, other = hosted(honest), hosted(honest)
    registry = default_registry()
    from arena.match import play_match

    game = registry.load_game("sim", {})
    try:
        for seed in (1, 2):
            record = play_match(game, [bot, other], seed=seed).record()
            assert record.outcome is not None
            assert record.outcome.termination is Termination.NORMAL
            assert leftovers()["processes"] == []  # between games: nothing runs
        assert bot.processes_started == 2
        notes = [note.text for note in record.notes]
        assert any(text.startswith("stderr: game over:") for text in notes)  # its stderr, kept
    finally:
        bot.close()
        other.close()


def test_a_hosted_bot_pickles_as_its_directory_and_limits(honest: Path) -> None:
    bot = hosted(honest, TimeControl(kind="cpu"))
    copy = pickle.loads(pickle.dumps(bot))
    assert isinstance(copy, HostedBot)
    assert (copy.directory, copy.time_control, copy.spec) == (
        bot.directory, bot.time_control, bot.spec)
    record = play([copy, hosted(honest)])
    assert record.outcome is not None and record.outcome.termination is Termination.NORMAL


def test_cpu_time_is_charged_for_cpu_and_not_for_sleep(builds: Path) -> None:
    # the first move has time for the program to start; the later ones have 150 ms
    control = TimeControl(move_ms=150, bank_ms=0, first_move_ms=5000)
    sleeper = timing_bot(builds, "sleep", 400)
    burner = timing_bot(builds, "burn", 400)
    cpu = TimeControl(move_ms=150, bank_ms=0, first_move_ms=5000, kind="cpu")
    # a sleeper uses little CPU: in time by CPU, too slow by the wall clock
    record = play([hosted(sleeper, cpu), hosted(sleeper, cpu)])
    assert record.outcome is not None and record.outcome.termination is Termination.NORMAL
    record = play([hosted(sleeper, control), hosted(sleeper, cpu)])
    assert record.outcome is not None and record.outcome.termination is Termination.TIMEOUT
    assert record.outcome.loser == 0 and "on turn 2" in (record.outcome.detail or "")
    # a burner uses its CPU time: too slow by CPU
    record = play([hosted(sleeper, cpu), hosted(burner, cpu)])
    assert record.outcome is not None and record.outcome.termination is Termination.TIMEOUT
    assert record.outcome.loser == 1
    assert "of CPU time" in (record.outcome.detail or "")


async def test_hosted_games_beyond_the_slots_wait_and_all_finish(honest: Path) -> None:
    capacity = 2
    slots = HostedSlots(capacity)
    registry = default_registry()
    sim = registry.load_game("sim", {})
    running, most = 0, 0
    lock = threading.Lock()

    def game(seed: int) -> Termination:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        try:
            record = play([hosted(honest), registry.make_bot(sim, "sim-random")], seed=seed)
        finally:
            with lock:
                running -= 1
        assert record.outcome is not None
        return record.outcome.termination

    async def queued(seed: int) -> Termination:
        async with slots.hold():
            return await asyncio.to_thread(game, seed)

    results = await asyncio.gather(*(queued(seed) for seed in range(capacity + 2)))
    assert results == [Termination.NORMAL] * (capacity + 2)
    assert most == capacity == slots.peak
    assert slots.used == 0 and slots.waiting == 0


def test_the_c_kit_builds_and_passes_its_validation_games_hosted(builds: Path) -> None:
    from click.testing import CliRunner

    from arena.cli import main

    out = builds / "c-kit"
    runner = CliRunner()
    result = runner.invoke(main, ["bots", "build", str(Path("examples/c").resolve()),
                                  "--lang", "c", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "cc -O2" in result.output
    result = runner.invoke(main, ["bot", "check", "--hosted", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.rstrip().splitlines()[-1].startswith("PASS: 10 games")
    shutil.rmtree(out)


def test_a_hosted_bot_plays_in_arena_play_and_in_a_tournament_s_workers(honest: Path) -> None:
    from click.testing import CliRunner

    from arena.cli import main

    runner = CliRunner()
    result = runner.invoke(main, ["play", "--p1", f"hosted:{honest}", "--moves", "5"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["tournament", "--game", "sim", "--bots",
                                  f"hosted:{honest},sim-random", "--games", "2", "--jobs", "2"])
    assert result.exit_code == 0, result.output
    assert f"hosted:{honest} vs sim-random | 2 |" in result.output
