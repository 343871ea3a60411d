"""Hostile programs, each built as a bot and played against an honest hosted bot (issue
26): each is contained -- only it loses, the honest bot plays on unharmed, an honest game
beside it finishes normally, and nothing of it is left (no process of its uid, no cgroup).
What each found inside its sandbox it reports on standard error, kept with the game."""

from __future__ import annotations

import os
import shutil
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.clock import TimeControl
from arena.exec_bot import MAX_NOTES
from arena.game import Termination
from arena.record import MatchRecord

from .conftest import FAST, GENEROUS, build_hostile, hosted, leftovers, play, reports

pytestmark = pytest.mark.usefixtures("no_leftovers")


def hostile_game(honest: Path, hostile: Path, *, seat: int = 0,
                 clock: TimeControl = GENEROUS) -> MatchRecord:
    """The hostile bot in `seat` (on `clock`: a program that reports what it found ends
    its game itself, with an illegal move) against the honest one; meanwhile two honest
    bots play each other, and must finish normally. Honest bots have all the time a
    loaded machine may need."""
    beside: list[MatchRecord] = []
    thread = threading.Thread(target=lambda: beside.append(
        play([hosted(honest), hosted(honest)], seed=7)))
    thread.start()
    bots = [hosted(hostile, clock), hosted(honest)]
    if seat:
        bots.reverse()
    try:
        record = play(bots)
    finally:
        thread.join()
    assert beside and beside[0].outcome is not None
    assert beside[0].outcome.termination is Termination.NORMAL, beside[0].outcome
    assert record.outcome is not None
    assert record.outcome.winner == 1 - seat, record.outcome  # only the hostile bot loses
    honest_notes = [note.text for note in record.notes if note.player == 1 - seat]
    assert not any("Traceback" in text for text in honest_notes), honest_notes
    return record


def test_a_fork_bomb_is_held_to_its_process_limit(builds: Path, honest: Path) -> None:
    record = hostile_game(honest, build_hostile(builds, "fork_bomb"))
    assert record.outcome is not None
    assert record.outcome.termination is Termination.ILLEGAL_MOVE
    found = reports(record, 0)
    assert found and found[0].startswith("fork refused after"), found
    assert int(found[0].split()[3]) < 128  # the pids cgroup (and RLIMIT_NPROC): 128


def test_a_memory_bomb_is_killed_at_its_memory_limit(builds: Path, honest: Path) -> None:
    record = hostile_game(honest, build_hostile(builds, "memory_bomb"), seat=1)
    assert record.outcome is not None
    assert record.outcome.termination is Termination.CRASH
    assert "SIGKILL" in (record.outcome.detail or "")
    assert "memory limit (512 MiB)" in (record.outcome.detail or "")
    held = [int(line.split()[1]) for line in reports(record, 1)]
    assert held and max(held) <= 512


def test_a_disk_filler_fills_only_its_bounded_tmp_and_shm(builds: Path, honest: Path) -> None:
    record = hostile_game(honest, build_hostile(builds, "disk_filler"))
    assert record.outcome is not None
    assert record.outcome.termination is Termination.ILLEGAL_MOVE
    found = reports(record, 0)
    assert found[-1] == "done", found
    writable = {line.split()[1]: int(line.split()[2]) for line in found[:-1]}
    assert set(writable) <= {"/tmp", "/dev/shm"}, writable
    assert writable.get("/tmp", 0) <= 64 << 20  # SandboxSpec.tmp_bytes
    assert writable.get("/dev/shm", 0) <= 16 << 20  # SandboxSpec.shm_bytes


@pytest.fixture
def server_port() -> Iterator[tuple[int, Callable[[], int]]]:
    """A listening port of 'the server' on 127.0.0.1, and how many connections it got."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        listener.setblocking(False)

        def accepted() -> int:
            count = 0
            while True:
                try:
                    connection, _ = listener.accept()
                except BlockingIOError:
                    return count
                connection.close()
                count += 1

        yield listener.getsockname()[1], accepted


def test_no_connection_leaves_the_sandbox(builds: Path, honest: Path,
                                          server_port: tuple[int, Callable[[], int]]) -> None:
    port, accepted = server_port
    record = hostile_game(honest, build_hostile(builds, "connect", str(port)))
    found = reports(record, 0)
    assert found[-1] == "done", found
    assert not [line for line in found if line.startswith(("connected", "sent"))], found
    assert f"refused 127.0.0.1:{port} [Errno 111] Connection refused" in found
    assert "interfaces lo" in found  # a network namespace of its own: loopback only
    assert accepted() == 0


@pytest.fixture
def secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A database file, a server's file and a server's environment, each with a secret."""
    database = tmp_path / "arena.sqlite"
    database.write_text("SECRET-DATABASE-ROW")
    config = tmp_path / "server" / "tokens.txt"
    config.parent.mkdir()
    config.write_text("SECRET-SERVER-TOKEN")
    for path in (database, config):
        path.chmod(0o644)  # readable by anybody who can reach it: only invisibility helps
    monkeypatch.setenv("ARENA_TEST_SECRET", "SECRET-ENVIRONMENT")
    return {"database": str(database), "config": str(config), "tmp": str(tmp_path)}


def test_nothing_of_the_server_is_readable(builds: Path, honest: Path,
                                           secrets: dict[str, str]) -> None:
    targets = [secrets["database"], secrets["config"], secrets["tmp"], str(builds),
               str(honest / "bot" / "bot.py"), str(Path(__file__).resolve()), os.getcwd()]
    record = hostile_game(honest, build_hostile(builds, "reads_secrets", *targets))
    found = reports(record, 0)
    assert found[-1] == "done", found
    text = "\n".join(found)
    for secret in ("SECRET-DATABASE-ROW", "SECRET-SERVER-TOKEN", "SECRET-ENVIRONMENT"):
        assert secret not in text
    denied = {line.split(": ")[0].removeprefix("denied ") for line in found
              if line.startswith("denied ")}
    assert {"/etc/shadow", "/etc/gshadow", "/run/arena-sandbox", "/sys/fs/cgroup",
            "/var/lib/postgresql", "/work", *targets} <= denied
    etc = {line.split(":")[0].removeprefix("read ") for line in found
           if line.startswith("read /etc/")}
    assert "/etc/passwd" in etc and "/etc/hostname" not in etc
    assert not any(line.startswith("read /proc/1/environ") and "SECRET" in line
                   for line in found)


def test_setuid_tricks_give_nothing(builds: Path, honest: Path) -> None:
    bot = build_hostile(builds, "setuid", "/bot/suid-id")
    suid = bot / "bot" / "suid-id"  # what a bug letting a setuid file through would give
    shutil.copy("/usr/bin/id", suid)
    os.chown(suid, 0, 0)
    suid.chmod(0o4755)
    record = hostile_game(honest, bot)
    found = reports(record, 0)
    assert found[-1] == "done", found
    assert "ran /bot/suid-id -u: status 0 out '1000'" in found
    for line in found:
        if line.startswith("ran "):
            assert line.endswith("out '1000'") or " status 0 " not in line, line
    assert [line for line in found if line.startswith("setuid(0) refused")], found
    assert "chroot refused: Operation not permitted" in found
    assert any(line.startswith("unshare(CLONE_NEWUSER) -1") for line in found), found
    # the seccomp filter: each of these works for an unprivileged process elsewhere
    assert "ptrace(TRACEME) -1 errno 1" in found
    assert "keyctl(GET_KEYRING_ID) -1 errno 1" in found
    assert "io_uring_setup -1 errno 1" in found
    assert [line for line in found if line.startswith("uid 1000 euid 1000 groups")], found


def test_an_infinite_loop_loses_on_time(builds: Path, honest: Path) -> None:
    record = hostile_game(honest, build_hostile(builds, "infinite_loop"), clock=FAST)
    assert record.outcome is not None
    assert record.outcome.termination is Termination.TIMEOUT


def test_a_double_forked_daemon_does_not_outlive_its_game(builds: Path, honest: Path) -> None:
    record = hostile_game(honest, build_hostile(builds, "daemon"), seat=1)
    assert record.outcome is not None
    assert record.outcome.termination is Termination.DISCONNECT
    assert [line for line in reports(record, 1) if line.startswith("daemon started")]
    assert leftovers()["processes"] == []


@pytest.mark.parametrize("stream", ["stdout", "stderr", "both"])
def test_huge_output_is_bounded(builds: Path, honest: Path, stream: str) -> None:
    record = hostile_game(honest, build_hostile(builds, "huge_output", stream), clock=FAST)
    assert record.outcome is not None
    expected = Termination.TIMEOUT if stream == "stderr" else Termination.ILLEGAL_MOVE
    assert record.outcome.termination is expected, record.outcome
    notes = [note for note in record.notes if note.player == 0]
    assert len(notes) <= MAX_NOTES + 1
    assert all(len(note.text.encode()) <= 1100 for note in notes)


def test_a_closed_stdout_loses_the_game_on_time(builds: Path, honest: Path) -> None:
    """Bubblewrap holds the other end of the pipe open while the program runs: a program
    that closes its output and lives on is a program that does not move."""
    record = hostile_game(honest, build_hostile(builds, "closed_stdout"), clock=FAST)
    assert record.outcome is not None
    assert record.outcome.termination is Termination.TIMEOUT
