"""Time controls of kind ``cpu`` and the timers of one move (`arena.clock`), with given
clocks: a CPU-timed move is charged the CPU time it used, not the wall time it took, and
still ends at its wall-time ceiling."""

from __future__ import annotations

import pytest

from arena.clock import CpuTimer, TimeControl, WallTimer, cpu_wall_ceiling_ms


class Fake:
    """A settable time."""

    def __init__(self) -> None:
        self.value = 0.0

    def __call__(self) -> float:
        return self.value


def test_a_time_control_is_of_kind_wall_unless_said() -> None:
    assert TimeControl().kind == "wall"
    assert "kind" not in TimeControl().to_json()  # a wall clock looks as it always did
    cpu = TimeControl(kind="cpu")
    assert cpu.to_json()["kind"] == "cpu"
    assert TimeControl.from_json(cpu.to_json()) == cpu
    assert TimeControl.from_json({"move_ms": 5}).kind == "wall"


@pytest.mark.parametrize("bad", ["CPU", "", 1, None])
def test_an_unknown_kind_is_refused_with_the_known_ones(bad: object) -> None:
    with pytest.raises(ValueError, match="'wall', 'cpu'"):
        TimeControl.from_json({"kind": bad})
    with pytest.raises(ValueError, match="wall, cpu"):
        TimeControl(kind=bad)  # type: ignore[arg-type]


def test_a_wall_timer_counts_wall_time() -> None:
    now = Fake()
    timer = WallTimer(1500, now)
    now.value = 1.0
    assert timer.wait_seconds() == pytest.approx(0.5)
    assert timer.used_ms() == pytest.approx(1000)
    now.value = 2.0
    assert timer.wait_seconds() < 0 and not timer.overdrawn() and timer.late() == ""


def test_a_cpu_timer_charges_cpu_time_not_wall_time() -> None:
    now, cpu = Fake(), Fake()
    timer = CpuTimer(1000, lambda: int(cpu() * 1e9), now, poll_seconds=0.05)
    now.value = 2.5  # a busy machine: much wall time, little CPU time
    cpu.value = 0.2
    assert timer.used_ms() == pytest.approx(200)
    assert timer.wait_seconds() == pytest.approx(0.05)  # it polls
    assert not timer.overdrawn()
    cpu.value = 0.99
    assert timer.wait_seconds() == pytest.approx(0.01)  # never past the allowance
    cpu.value = 1.01
    assert timer.wait_seconds() == 0 and timer.overdrawn()
    assert timer.late() == " of CPU time"


def test_a_cpu_timed_move_that_sleeps_ends_at_its_wall_ceiling() -> None:
    now, cpu = Fake(), Fake()
    timer = CpuTimer(2000, lambda: int(cpu() * 1e9), now)
    assert cpu_wall_ceiling_ms(2000) == 12_000
    now.value = 11.99
    assert timer.wait_seconds() > 0 and not timer.overdrawn()
    now.value = 12.01
    assert timer.wait_seconds() == 0 and timer.overdrawn()
    assert "wall-time ceiling" in timer.late()


def test_the_ceiling_is_three_times_the_allowance_and_ten_seconds_more_at_least() -> None:
    assert cpu_wall_ceiling_ms(100) == 10_100
    assert cpu_wall_ceiling_ms(5000) == 15_000
    assert cpu_wall_ceiling_ms(20_000) == 60_000
