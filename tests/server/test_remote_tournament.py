"""`arena tournament --bots ws:NAME,...`: a round robin played on a server."""

from __future__ import annotations

import asyncio
import json

from click.testing import CliRunner

from arena.cli import main
from arena.record import read_jsonl
from arena.tournament import TournamentSpec, iter_game_logs, registry_bot, run_tournament, to_json
from arena.tournament.remote import player_of, remote_pairings, run_remote_tournament
from arena.validate import validate_record

from .conftest import SUBST


def test_names_and_pairings():
    assert player_of("ws:alice") == "alice" and player_of("search:depth=1") == "house:search:depth=1"
    assert remote_pairings(("ws:a", "random")) == ((0, 1), (1, 0), (1, 1))


async def test_round_robin_between_connected_and_house_bots(arena, tmp_path):
    await arena.client("alice", "random")
    await arena.client("bob", "random")
    token = await arena.add_bot("runner", operator=True)
    bots = ("ws:alice", "ws:bob", "random")
    spec = TournamentSpec("substitution", SUBST, bots, 3, seed=5, pairs=remote_pairings(bots))
    out = tmp_path / "t"
    result = await asyncio.to_thread(run_remote_tournament, spec, url=arena.url, token=token, out=out)
    assert set(result.cells) == {(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1), (2, 2)}
    assert all(cell.games == 3 for cell in result.cells.values())
    table = json.loads((out / "tournament.json").read_text())
    assert table["bots"] == list(bots)
    logs = dict(iter_game_logs(out))
    assert len(logs) == 7 * 3
    for text in logs.values():
        record = read_jsonl(text.splitlines())
        assert validate_record(record) is None
    # both seats of a pairing got the same dice
    first = read_jsonl(logs["0-1-0"].splitlines())
    swapped = read_jsonl(logs["1-0-0"].splitlines())
    assert first.seed == swapped.seed and first.players == ("alice", "bob")


async def test_the_cli_runs_it(arena, tmp_path):
    await arena.client("alice", "random")
    token = await arena.add_bot("runner", operator=True)
    args = ["tournament", "--moves", "6", "--games", "2", "--bots", "ws:alice,random", "--seed", "1",
            "--server", arena.url, "--token", token, "--quiet", "--out", str(tmp_path / "cli")]
    result = await asyncio.to_thread(CliRunner().invoke, main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "6 games" in result.output
    result = await asyncio.to_thread(CliRunner().invoke, main, ["tournament", "--bots", "ws:alice"])
    assert result.exit_code == 2 and "need --server" in result.output


class Cheat:
    """Plays a move that is not a move (in-process)."""

    def choose_move(self, game, state, rng):
        return "no such move"


def cheat_maker(game, spec):
    return Cheat() if spec == "ws:cheat" else registry_bot(game, spec)


async def test_forfeits_count_the_same_on_the_server_and_in_process(arena):
    """The forfeit rule (arena.tournament.results): a forfeited game has no scores,
    whether the server or the in-process runner played it."""
    await arena.client("cheat", lambda turn: "no such move")
    token = await arena.add_bot("runner", operator=True)
    spec = TournamentSpec("substitution", SUBST, ("ws:cheat", "random"), 3, seed=5,
                          pairs=((0, 1), (1, 0)))
    remote = await asyncio.to_thread(run_remote_tournament, spec, url=arena.url, token=token)
    local = run_tournament(spec, processes=1, maker=cheat_maker)
    assert to_json(remote)["cells"] == to_json(local)["cells"]
    for cell in remote.cells.values():
        assert cell.forfeits == cell.games == 3 and cell.scored == 0
    assert remote.pentanomial == local.pentanomial
