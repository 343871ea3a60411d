"""The local runner (`exec:COMMAND`) and `arena bot check`: any program plays wherever a
bot is named, under the time control, in its own process group, with its debug lines
kept with the game's log."""

from __future__ import annotations

import gzip
import json
import pickle
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena import bot_check
from arena.bots import BotGaveUp, parse_bot_list, parse_bot_spec
from arena.cli import main
from arena.errors import BotSpecError
from arena.exec_bot import ExecBot
from arena.match import play_match
from arena.record import read_jsonl, to_jsonl
from arena.registry import default_registry
from arena.server.config import TimeControl
from tests.waiting import wait_for_sync

PY = sys.executable

# A scriptable program: argv[1] says how it misbehaves.
PROGRAM = r'''
import json, os, sys, time
mode = sys.argv[1]
log = open(sys.argv[2], "a") if len(sys.argv) > 2 else None
if log: log.write(f"pid {os.getpid()}\n"); log.flush()
for line in sys.stdin:
    if log: log.write(line); log.flush()
    if not line.startswith("turn "):
        if line.startswith("quit"): break
        continue
    turn = json.loads(line[5:])
    print("# considering", len(turn["legal"] or []), "moves", flush=True)
    print("stderr line", file=sys.stderr, flush=True)
    if mode == "slow" and turn["turn"] >= 2:
        time.sleep(3600)  # never answers: the referee must not wait for it
    if mode == "die" and turn["turn"] >= 2:
        sys.exit(3)
    if mode == "segv" and turn["turn"] >= 2:
        import signal
        os.kill(os.getpid(), signal.SIGSEGV)
    if mode == "quit" and turn["turn"] >= 2:
        sys.exit(0)
    if mode == "steps":
        print("?legal " + turn["legal_steps"]["steps"][0], flush=True) if turn["legal_steps"]["steps"] else None
        if turn["legal_steps"]["steps"]:
            answer = json.loads(sys.stdin.readline()[6:])
            assert "legal_steps" in answer, answer
    if mode == "late":  # the move and a debug line after it, in one write
        sys.stdout.write(turn["legal"][0] + "\n# after my move in turn " + str(turn["turn"]) + "\n")
        sys.stdout.flush()
        continue
    print(turn["legal"][0] if turn["legal"] else "", flush=True)
'''


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "program.py"
    path.write_text(PROGRAM)
    return path


def sim():
    return default_registry().load_game("sim", {"vertices": 6})


def test_exec_specs_parse_and_resolve_wherever_bots_are_named(program):
    spec = parse_bot_spec(f"exec:{PY} {program} fine --x=1")
    assert str(spec) == f"exec:{PY} {program} fine --x=1"
    specs = parse_bot_list(f"exec:{PY} {program} fine,search:depth=4", ["search"])
    assert [str(s) for s in specs] == [f"exec:{PY} {program} fine", "search:depth=4"]
    parsed = default_registry().parse_bots("sim", "exec:./bot,sim-random")
    assert [str(s) for s in parsed] == ["exec:./bot", "sim-random"]
    with pytest.raises(BotSpecError, match="give the command"):
        parse_bot_spec("exec:")
    with pytest.raises(BotSpecError, match="cannot play as house bots"):
        default_registry().make_bot(sim(), "exec:./bot", allow_exec=False)


def test_a_program_plays_and_its_debug_lines_stay_with_the_log(program, tmp_path):
    bot = default_registry().make_bot(sim(), f"exec:{PY} {program} fine {tmp_path / 'seen'}")
    match = play_match(sim(), [bot, default_registry().make_bot(sim(), "sim-random")], seed=3,
                       names=["program", "random"])
    assert match.outcome.termination.value == "normal"
    record = read_jsonl(to_jsonl(match.record()).splitlines())  # kept in the log itself
    texts = [note.text for note in record.notes if note.player == 0]
    assert "considering 15 moves" in texts and "stderr: stderr line" in texts
    bot.close()  # 'quit': the program has read every line when it exits
    lines = (tmp_path / "seen").read_text().splitlines()
    assert lines[1] == "arena 1" and lines[3].startswith("start ")
    assert json.loads(lines[2].removeprefix("limits ")) == {  # what the runner keeps
        "max_line": 256 * 1024, "max_legal": 1000, "max_log_bytes": 1024,
        "max_logs_per_turn": 10, "max_logs_per_game": 200,
        "max_log_bytes_per_day": None}  # no server, no daily budget
    start = json.loads(lines[3][6:])
    assert start["game"] == "sim" and start["seat"] == 0 and start["settings"] == {"vertices": 6}
    turn = json.loads(lines[4][5:])
    assert turn["legal_count"] == 15 and turn["clock"]["limit_ms"] == 5000
    assert lines[-2].startswith("over ") and json.loads(lines[-2][5:])["seat"] == 0
    assert lines[-1] == "quit"


def test_a_slow_program_loses_on_time_and_the_next_game_restarts_it(program, tmp_path):
    seen = tmp_path / "seen"
    bot = ExecBot(f"{PY} {program} slow {seen}",
                  time_control=TimeControl(move_ms=300, bank_ms=200, first_move_ms=3000))
    other = default_registry().make_bot(sim(), "sim-random")
    first = play_match(sim(), [bot, other], seed=1)
    assert first.outcome.termination.value == "timeout" and first.outcome.loser == 0
    assert "no move within 300 ms and the 200 ms bank on turn 2" in first.outcome.detail
    second = play_match(sim(), [other, bot], seed=2)  # a new process, told of the new game
    assert second.outcome.termination.value == "timeout"
    pids = [line for line in seen.read_text().splitlines() if line.startswith("pid ")]
    assert bot.processes_started == 2 and len(pids) == 2
    after = seen.read_text().split(pids[1])[1].splitlines()
    assert after[1] == "arena 1" and after[2].startswith("limits ")
    assert after[3].startswith("start ")
    bot.close()


def test_a_program_that_dies_forfeits_by_a_crash(program):
    bot = ExecBot(f"{PY} {program} die")
    match = play_match(sim(), [bot, default_registry().make_bot(sim(), "sim-random")], seed=1)
    assert match.outcome.termination.value == "crash"
    assert "closed its output: it exited with status 3; its last lines on standard " \
        "error:\n  | stderr line" in match.outcome.detail
    bot.close()


def test_a_program_killed_by_a_signal_is_recorded_as_a_crash_with_the_signal(program):
    bot = ExecBot(f"{PY} {program} segv")
    match = play_match(sim(), [bot, default_registry().make_bot(sim(), "sim-random")], seed=1)
    assert match.outcome.termination.value == "crash" and match.outcome.loser == 0
    assert "it was killed by signal SIGSEGV (11)" in match.outcome.detail
    record = read_jsonl(to_jsonl(match.record()).splitlines())
    assert record.outcome.termination.value == "crash"  # kept in the log
    bot.close()


def test_a_program_that_exits_cleanly_mid_game_disconnects(program):
    bot = ExecBot(f"{PY} {program} quit")
    match = play_match(sim(), [bot, default_registry().make_bot(sim(), "sim-random")], seed=1)
    assert match.outcome.termination.value == "disconnect"
    assert "it exited with status 0" in match.outcome.detail
    bot.close()


def test_a_tournament_shows_each_crash_and_exits_non_zero(program):
    """5 of 12 games lost to a SIGSEGV once went by unseen: no forfeit on the console,
    exit status 0. Now each forfeit is said with its cause, and the status is 4."""
    result = CliRunner().invoke(main, [
        "tournament", "--game", "sim", "--settings", '{"vertices": 6}', "--games", "2",
        "--jobs", "1", "--quiet", "--no-self-play",
        "--bots", f"exec:{PY} {program} segv,sim-random"])
    assert result.exit_code == 4, result.output
    assert "games lost because a program crashed" not in result.stdout
    lines = result.stderr.splitlines()
    assert lines[0] == "4 game(s) forfeited:", result.stderr
    crashes = [line for line in lines if "lost by crash:" in line]
    assert len(crashes) == 4 and all(
        line.endswith("closed its output: it was killed by signal SIGSEGV (11); its last "
                      "lines on standard error:") for line in crashes), result.stderr
    assert lines[-1] == "4 game(s) lost because a program crashed (exit status 4)"
    calm = CliRunner().invoke(main, [
        "tournament", "--game", "sim", "--settings", '{"vertices": 6}', "--games", "2",
        "--jobs", "1", "--quiet", "--bots", f"exec:{PY} {program} fine,sim-random"])
    assert calm.exit_code == 0 and "forfeited" not in calm.stderr, calm.output


def test_a_missing_program_forfeits_with_a_clear_reason():
    bot = ExecBot("/nonexistent/bot")
    match = play_match(sim(), [bot, default_registry().make_bot(sim(), "sim-random")], seed=1)
    assert match.outcome.termination.value == "disconnect"
    assert "cannot start '/nonexistent/bot'" in match.outcome.detail


def test_legal_queries_are_answered_locally(program):
    game = default_registry().load_game("substitution", {
        "moves": 3, "groups": [{"left": "S", "alternatives": ["aA", "b"]},
                               {"left": "A", "alternatives": ["a", "b"]}], "weights": [1, 1]})
    bot = ExecBot(f"{PY} {program} steps")
    match = play_match(game, [bot, default_registry().make_bot(game, "random")], seed=1)
    assert match.outcome.termination.value == "normal", match.outcome
    bot.close()


def test_the_process_group_is_killed_at_the_end(tmp_path):
    pids = tmp_path / "pids"
    script = tmp_path / "spawner.sh"  # leaves a grandchild behind, then plays
    script.write_text(f"sleep 300 & echo $! > {pids}\n"
                      "while read -r line; do case \"$line\" in turn*) echo '0 1';; esac; done\n")
    bot = ExecBot(f"sh {script}")
    play_match(sim(), [bot, default_registry().make_bot(sim(), "sim-random")], seed=1)
    grandchild = int(pids.read_text())
    assert alive(grandchild)  # while the bot lives
    bot.close()
    wait_for_sync(lambda: not alive(grandchild), 10, "the program's child ended with the bot")


def alive(pid: int) -> bool:
    """Running (a killed process may linger as a zombie until its new parent reaps it)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


def test_an_exec_bot_pickles_as_its_command(program):
    bot = ExecBot(f"{PY} {program} fine", time_control=TimeControl(move_ms=7))
    bot.choose_move(sim(), sim().initial_state(), None)  # a process is running
    copy = pickle.loads(pickle.dumps(bot))
    assert copy.command == bot.command and copy.time_control.move_ms == 7
    assert copy.processes_started == 0 and copy._process is None
    bot.close()


def test_arena_play_and_compare_take_exec_specs(program, tmp_path):
    log = tmp_path / "game.jsonl"
    played = CliRunner().invoke(main, ["play", "--p1", f"exec:{PY} {program} fine", "--p2", "random",
                                       "--moves", "5", "--log", str(log)])
    assert played.exit_code == 0, played.output
    record = read_jsonl(log.read_text().splitlines())
    assert record.outcome.termination.value == "normal" and record.notes
    compared = CliRunner().invoke(main, ["compare", "--game", "sim", "--bots",
                                         f"exec:{PY} {program} fine,sim-random", "--games", "2",
                                         "--json"])
    assert compared.exit_code == 0, compared.output
    result = json.loads(compared.output)
    assert result["bots"][0] == f"exec:{PY} {program} fine" and result["games_per_seat"] == 2


def test_bot_check_prints_rejections_timeouts_stderr_and_a_verdict(program, tmp_path):
    good = CliRunner().invoke(main, ["bot", "check", "--exec", f"{PY} {program} fine",
                                     "--game", "sim", "--game", "durak"])
    assert good.exit_code == 0, good.output
    assert good.output.splitlines()[-1].startswith("PASS: 4 games")
    assert "| turn 0: stderr: stderr line" in good.output
    bad = tmp_path / "bad.py"
    bad.write_text("import sys\nfor line in sys.stdin:\n    if line.startswith('turn '):\n"
                   "        print('oops', file=sys.stderr, flush=True)\n"
                   "        print('9 9', flush=True)\n")
    failed = CliRunner().invoke(main, ["bot", "check", "--exec", f"{PY} {bad}", "--game", "sim"])
    assert failed.exit_code == 1
    assert "illegal-move" in failed.output and "vertex-out-of-range" in failed.output
    assert "stderr: oops" in failed.output
    assert failed.output.splitlines()[-1] == \
        "FAIL: 2 of 2 games: 2 lost by your program's illegal-move"
    slow = CliRunner().invoke(main, ["bot", "check", "--exec", f"{PY} {program} slow",
                                     "--game", "sim", "--games", "1", "--move-ms", "100",
                                     "--bank-ms", "100"])
    assert slow.exit_code == 1 and "timeout (your program): " in slow.output


def test_a_program_that_stops_reading_cannot_block_the_runner(monkeypatch):
    monkeypatch.setattr("arena.exec_bot.WRITE_SECONDS", 0.3)
    bot = ExecBot("sleep 30")  # never reads its input
    bot._ensure()
    with pytest.raises(BotGaveUp, match="stopped reading its input"):
        bot._write("x" * 1_000_000)  # far more than a pipe holds
    bot.close()


def test_arena_match_and_a_swiss_tournament_take_exec_specs(program, tmp_path):
    """The tournament machinery builds `exec:` bots in its workers like any other spec."""
    bot = f"exec:{PY} {program} fine"
    result = CliRunner().invoke(main, ["match", bot, "sim-random", "--game", "sim", "--settings",
                                       '{"vertices": 5}', "--games", "2", "--jobs", "2",
                                       "--json", str(tmp_path / "m.json")])
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "m.json").read_text())
    assert data["games"] == 4 and sum(data["pentanomial"]) == 2
    result = CliRunner().invoke(main, ["tournament", "--game", "sim", "--settings",
                                       '{"vertices": 5}', "--bots", f"{bot},sim-random,sim-perfect",
                                       "--format", "swiss", "--rounds", "2", "--games", "1",
                                       "--jobs", "1", "--out", str(tmp_path / "t")])
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "t" / "tournament.json").read_text())
    assert report["bots"][0] == bot and report["standings"]
    logs = [json.loads(line) for path in (tmp_path / "t" / "logs").rglob("*.jsonl.gz")
            for line in gzip.decompress(path.read_bytes()).decode().splitlines()]
    assert any(bot in entry["log"] and "considering" in entry["log"] for entry in logs)


def test_bot_check_blames_the_program_or_the_arena(program, monkeypatch):
    """A program that dies is its fault, with its exit status and last stderr lines; the
    runner breaking down is the arena's, said as such."""
    registry = default_registry()
    settings = {"sim": {"vertices": 5}}
    died = bot_check.check_program(registry, f"{PY} {program} die", settings, games=1)
    [game] = died.failures
    assert game.blame == bot_check.PROGRAM
    assert game.failure.startswith("crash (your program): ")
    assert "exited with status 3; its last lines on standard error:\n  | stderr line" \
        in game.failure
    assert died.verdict() == "FAIL: 1 of 1 games: 1 lost by your program's crash"

    def broken(*args, **kwargs):
        raise RuntimeError("legal moves are broken")

    monkeypatch.setattr("arena.exec_bot.legal_fields", broken)
    report = bot_check.check_program(registry, f"{PY} {program} fine", settings, games=2)
    assert [game.blame for game in report.games] == [bot_check.ARENA] * 2
    assert report.games[0].failure == ("arena error (not your program's fault; please report "
                                       "it): RuntimeError: legal moves are broken")
    assert report.verdict() == \
        "FAIL: 2 of 2 games: 2 broken by an arena error (not your program)"
    shown = CliRunner().invoke(main, ["bot", "check", "--exec", f"{PY} {program} fine",
                                      "--game", "sim", "--games", "1"])
    assert shown.exit_code == 1
    assert "FAIL sim seat 0 vs sim-random: not finished" in shown.output


def test_debug_lines_after_the_last_move_stay_with_their_game(program):
    """A '#' line written after the game's last move was shown under the next game."""
    bot = ExecBot(f"{PY} {program} late")
    random = default_registry().make_bot(sim(), "sim-random")
    games = [play_match(sim(), [bot, random], seed=seed) for seed in (1, 2)]
    bot.close()
    for match in games:
        texts = [note.text for note in match.record().notes if note.player == 0]
        after = [text for text in texts if text.startswith("after my move in turn ")]
        moves = sum(turn.player == 0 for turn in match.record().turns)
        assert len(after) == moves == len(set(after)), texts  # each move's, in its game


def test_the_local_runner_keeps_the_servers_debug_line_limits(tmp_path):
    """10 '#' lines a turn, as a server keeps (it was 200 locally)."""
    chatty = tmp_path / "chatty.py"
    chatty.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    if line.startswith('turn '):\n"
        "        turn = json.loads(line[5:])\n"
        "        print('\\n'.join(f'# line {i}' for i in range(12)), flush=True)\n"
        "        print(turn['legal'][0], flush=True)\n")
    bot = ExecBot(f"{PY} {chatty}")
    match = play_match(sim(), [bot, default_registry().make_bot(sim(), "sim-random")], seed=1)
    bot.close()
    notes = [note for note in match.record().notes if note.player == 0]
    by_turn: dict[int | None, int] = {}
    for note in notes:
        by_turn[note.turn] = by_turn.get(note.turn, 0) + 1
    moves = sum(turn.player == 0 for turn in match.record().turns)
    assert sum(n for n in by_turn.values()) == 10 * moves + 1, by_turn
    assert "'#' lines are kept a turn" in notes[-1].text
