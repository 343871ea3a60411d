"""`GraceTimers` without a server: the grace periods of bots away, given the time."""

from __future__ import annotations

from arena.server.grace import GraceTimers

T0 = 500.0


def test_each_grace_period_runs_out_on_its_own_time_once() -> None:
    grace = GraceTimers()
    grace.start("away", [60_000, 200, 1500, 200], T0)
    assert grace.wake_at == T0 + 0.2
    assert grace.expired(T0 + 0.199) == []
    assert grace.expired(T0 + 0.2) == [("away", 200)]
    assert grace.wake_at == T0 + 1.5
    assert grace.expired(T0 + 1.5) == [("away", 1500)]
    assert grace.expired(T0 + 1.5) == []  # told once
    assert grace.wake_at == T0 + 60


def test_a_bot_back_in_time_forfeits_nothing() -> None:
    grace = GraceTimers()
    grace.start("flaky", [1000], T0)
    grace.start("gone", [1000], T0 + 0.5)
    grace.cancel("flaky")
    assert grace.wake_at == T0 + 1.5  # only the bot still away is waited for
    assert grace.expired(T0 + 10) == [("gone", 1000)]
    assert grace.wake_at is None


def test_a_bot_that_leaves_again_gets_a_whole_new_period() -> None:
    grace = GraceTimers()
    grace.start("flaky", [1000], T0)
    grace.cancel("flaky")  # back after 0.9 s ...
    grace.start("flaky", [1000], T0 + 0.9)  # ... and gone again
    assert grace.expired(T0 + 1.0) == []  # the first absence's period is void
    assert grace.wake_at == T0 + 1.9
    assert grace.expired(T0 + 1.9) == [("flaky", 1000)]


def test_a_bot_with_no_game_waits_for_nothing_and_cancel_all_clears_everything() -> None:
    grace = GraceTimers()
    grace.start("idle", [], T0)
    assert grace.wake_at is None
    grace.start("a", [100], T0)
    grace.start("b", [200], T0)
    grace.cancel_all()
    assert grace.wake_at is None and grace.expired(T0 + 10) == []
