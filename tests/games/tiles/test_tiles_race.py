"""The compiled race solver against its numpy reference, and the disk cache."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from arena.games.tiles import race

compiled_only = pytest.mark.skipif(not race.compiled, reason="the extension is not built")

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """An empty cache directory, and no table in memory."""
    monkeypatch.setenv("ARENA_CACHE", str(tmp_path / "cache"))
    race._cached_table.cache_clear()
    yield tmp_path / "cache"
    race._cached_table.cache_clear()


@compiled_only
@pytest.mark.parametrize("voluntary", [True, False])
@pytest.mark.parametrize("tiles", [4, 5, 6, 7])
def test_compiled_solver_equals_the_numpy_reference(tiles: int, voluntary: bool) -> None:
    reference = race.solve_race(tiles, voluntary, reference=True).wins
    for threads in (1, 2, 3):
        wins = race.solve_race(tiles, voluntary, threads=threads).wins
        assert np.abs(wins - reference).max() <= 1e-12


@compiled_only
@pytest.mark.parametrize(
    ("tiles", "voluntary", "first"),
    [(10, True, 0.516660), (10, False, 0.514360), (12, True, 0.507595)],
)
def test_documented_first_player_chances(tiles: int, voluntary: bool, first: float) -> None:
    # docs/games/tiles.md; 12 tiles takes about a second.
    assert race.solve_race(tiles, voluntary).first_player == pytest.approx(first, abs=5e-7)


@compiled_only
def test_bad_solver_input() -> None:
    from arena.games.tiles._race import solve_wins

    children, probs = race.solver_inputs(3)
    with pytest.raises(ValueError, match="power of two"):
        solve_wins(np.ascontiguousarray(children[:, :, :6]), probs, True)
    with pytest.raises(ValueError, match="one probability a roll"):
        solve_wins(children, probs[:-1], True)
    with pytest.raises(ValueError, match="threads"):
        solve_wins(children, probs, True, 0)


# -- the disk cache ----------------------------------------------------------------------


def test_cache_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ARENA_CACHE", str(tmp_path / "explicit"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert race.cache_dir() == tmp_path / "explicit"
    monkeypatch.delenv("ARENA_CACHE")
    assert race.cache_dir() == tmp_path / "xdg" / "arena"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert race.cache_dir() == tmp_path / "home" / ".cache" / "arena"
    assert race.cache_path(12, False).name == "tiles-race-12-noskip.bin"


def test_a_table_is_solved_once_then_loaded(cache: Path) -> None:
    solved = race.race_table(6, True)
    assert race.race_table(6, True) is solved  # in memory
    path = race.cache_path(6, True)
    assert path.parent == cache and path.exists()
    assert [p.name for p in cache.iterdir()] == [path.name]  # no temporary file left
    race._cached_table.cache_clear()
    loaded = race.race_table(6, True)
    assert loaded is not solved
    assert np.array_equal(loaded.wins, solved.wins)
    assert not loaded.wins.flags.writeable  # mapped read-only, shared between processes
    assert loaded.first_player == solved.first_player


def test_settings_have_their_own_files(cache: Path) -> None:
    race.race_table(4, True)
    race.race_table(4, False)
    assert sorted(p.name for p in cache.iterdir()) == [
        "tiles-race-4-noskip.bin",
        "tiles-race-4-skip.bin",
    ]


def _damage(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "garbage":
        path.write_bytes(b"not a table\n" * 1000)
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif how == "flipped-bit":
        data[len(data) - 100] ^= 0x10
        path.write_bytes(data)
    elif how == "other-settings":
        path.write_bytes(race.cache_path(5, False).read_bytes())


@pytest.mark.parametrize("how", ["garbage", "empty", "truncated", "flipped-bit", "other-settings"])
def test_a_damaged_cache_file_is_solved_again(
    cache: Path, how: str, caplog: pytest.LogCaptureFixture
) -> None:
    expected = race.solve_race(5, True).wins
    race.race_table(5, False)
    race.race_table(5, True)
    path = race.cache_path(5, True)
    _damage(path, how)
    race._cached_table.cache_clear()
    with caplog.at_level(logging.WARNING, logger="arena.games.tiles.race"):
        table = race.race_table(5, True)
    assert np.array_equal(table.wins, expected)
    assert "ignoring the race table cache" in caplog.text
    race._cached_table.cache_clear()
    assert np.array_equal(race.race_table(5, True).wins, expected)  # the file was replaced


def test_the_file_appears_complete_or_not_at_all(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table is written to a temporary file, which is renamed once complete."""
    renames: list[tuple[Path, Path]] = []
    real_replace = os.replace

    def replace(source: str, target: str | Path) -> None:
        source_path, target_path = Path(source), Path(target)
        assert not target_path.exists()
        assert source_path.parent == target_path.parent  # same file system: atomic
        with source_path.open("rb") as stream:  # the whole table is there already
            race._read_table(stream, 4, True)
        renames.append((source_path, target_path))
        real_replace(source, target)

    monkeypatch.setattr(race.os, "replace", replace)
    race.race_table(4, True)
    assert [target for _, target in renames] == [race.cache_path(4, True)]


def test_a_failed_write_leaves_nothing_behind(
    cache: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def replace(source: str, target: str | Path) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(race.os, "replace", replace)
    with caplog.at_level(logging.WARNING, logger="arena.games.tiles.race"):
        table = race.race_table(4, True)
    assert table.first_player == pytest.approx(0.514983, abs=5e-7)
    assert "cannot keep the race table" in caplog.text
    assert list(cache.iterdir()) == []


def test_temporary_files_of_a_killed_writer_are_removed_by_the_next_write(cache: Path) -> None:
    path = race.cache_path(4, True)
    cache.mkdir(parents=True, exist_ok=True)
    stale = cache / f".{path.name}.killed"  # what `kill -9` mid-write leaves
    fresh = cache / f".{path.name}.writing"  # another process, still writing
    stale.write_bytes(b"half a table")
    fresh.write_bytes(b"half a table")
    old = time.time() - race.STALE_SECONDS - 60
    os.utime(stale, (old, old))
    race.race_table(4, True)
    assert sorted(p.name for p in cache.iterdir()) == sorted([path.name, fresh.name])


def test_an_unusable_cache_directory_only_costs_the_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("ARENA_CACHE", str(blocker / "cache"))
    race._cached_table.cache_clear()
    try:
        assert race.race_table(3, True).first_player == pytest.approx(0.512761, abs=5e-7)
    finally:
        race._cached_table.cache_clear()


def test_concurrent_processes_share_the_cache(cache: Path) -> None:
    """Processes starting together each get a whole table, and one file remains."""
    script = (
        "from arena.games.tiles.race import race_table; "
        "print(repr(race_table(10).first_player))"
    )
    env = {**os.environ, "ARENA_CACHE": str(cache)}
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", script], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True
        )
        for _ in range(4)
    ]
    outputs = {worker.communicate(timeout=120)[0].strip() for worker in workers}
    assert all(worker.returncode == 0 for worker in workers)
    assert outputs == {repr(race.solve_race(10).first_player)}
    assert [p.name for p in cache.iterdir()] == ["tiles-race-10-noskip.bin"]  # the default
