"""The shared suite: what the `Storage` interface promises, on SQLite and on PostgreSQL
alike (the `storage` fixture runs each test on both)."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import replace
from typing import Any

import pytest

from arena.game import Outcome, Termination
from arena.names import InvalidName
from arena.record import read_jsonl
from arena.seeds import seed_to_text
from arena.storage import BuildRow, PendingChallenge, Storage
from arena.storage.interface import RECOVERED
from arena.storage.ratings import initial_rating
from arena.validate import validate_record

from .games import BIG_SEED, ended, played, started

# -- accounts ------------------------------------------------------------------------------


async def test_an_account_logs_in_with_its_token_only(storage: Storage) -> None:
    await storage.add_bot("r2.d2")  # names of the documented set are taken
    token = await storage.add_bot("alice")
    runner = await storage.add_bot("runner", operator=True)
    alice = await storage.authenticate(token)
    assert alice is not None and alice.name == "alice" and not alice.operator
    operator = await storage.authenticate(runner)
    assert operator is not None and operator.operator
    assert await storage.authenticate("wrong") is None
    assert [(b.name, b.operator, b.revoked) for b in await storage.bots()] == [
        ("alice", False, False), ("r2.d2", False, False), ("runner", True, False)]


async def test_an_existing_account_gets_a_new_token_only_when_replaced(storage: Storage) -> None:
    old = await storage.add_bot("alice")
    with pytest.raises(ValueError, match="exists"):
        await storage.add_bot("alice")
    new = await storage.add_bot("alice", replace=True)
    assert await storage.authenticate(old) is None
    assert (await storage.authenticate(new)).name == "alice"  # type: ignore[union-attr]
    assert len(await storage.bots()) == 1


async def test_a_revoked_token_stops_working_and_a_new_one_may_be_given(storage: Storage) -> None:
    token = await storage.add_bot("alice")
    before = await storage.token_hashes(["alice", "nobody"])
    assert list(before) == ["alice"]
    assert await storage.revoke_bot("alice") and not await storage.revoke_bot("alice")
    assert not await storage.revoke_bot("nobody")
    assert await storage.authenticate(token) is None and await storage.token_hashes(["alice"]) == {}
    assert [(b.name, b.revoked) for b in await storage.bots()] == [("alice", True)]
    again = await storage.add_bot("alice")  # a revoked account may be added again
    assert (await storage.token_hashes(["alice"]))["alice"] != before["alice"]
    assert (await storage.authenticate(again)).name == "alice"  # type: ignore[union-attr]


async def test_token_hashes_answers_for_many_names(storage: Storage) -> None:
    await asyncio.gather(*(storage.add_bot(f"bot{i}") for i in range(3)))
    names = [f"bot{i}" for i in range(1200)]  # beyond SQLite's parameters per statement
    assert sorted(await storage.token_hashes(names)) == ["bot0", "bot1", "bot2"]


async def test_many_accounts_are_made_at_once_each_logging_in_with_its_token(
        storage: Storage) -> None:
    names = [f"bulk{i:04d}" for i in range(1200)]  # beyond SQLite's parameters per statement
    tokens = await storage.add_bots(names)
    assert list(tokens) == names and len(set(tokens.values())) == len(names)
    for name in ("bulk0000", "bulk0599", "bulk1199"):  # stored as the server checks them
        assert (await storage.authenticate(tokens[name])).name == name  # type: ignore[union-attr]
    assert len(await storage.bots()) == 1200
    runners = await storage.add_bots(["runner"], operator=True)
    assert (await storage.authenticate(runners["runner"])).operator  # type: ignore[union-attr]
    assert await storage.add_bots([]) == {}


async def test_a_bulk_with_an_existing_account_makes_none(storage: Storage) -> None:
    old = await storage.add_bot("alice")
    await storage.add_bot("gone")
    await storage.revoke_bot("gone")
    with pytest.raises(ValueError, match=r"1 account\(s\) exist already: alice \(none"):
        await storage.add_bots(["bob", "alice", "carol"])
    assert [b.name for b in await storage.bots()] == ["alice", "gone"]
    assert (await storage.authenticate(old)).name == "alice"  # type: ignore[union-attr]
    tokens = await storage.add_bots(["bob", "gone"])  # a revoked account: a new token
    assert (await storage.authenticate(tokens["gone"])).name == "gone"  # type: ignore[union-attr]


@pytest.mark.parametrize(("names", "error", "match"), [
    (["ok", "house:random"], InvalidName, "house"),
    (["ok", "with space"], InvalidName, "with space"),
    (["ok", "twice", "x", "twice"], ValueError, "named twice: twice"),
])
async def test_a_bulk_with_a_bad_name_makes_none(storage: Storage, names: list[str],
                                                  error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        await storage.add_bots(names)
    assert await storage.bots() == []


@pytest.mark.parametrize("name", ["house:random", "HOUSE:random", "guest-1234", "Guest-x",
                                  "", "-dash", "with space", "émile", "x" * 41, "a/b", "a:b"])
async def test_reserved_and_malformed_names_are_refused(storage: Storage, name: str) -> None:
    with pytest.raises(InvalidName):
        await storage.add_bot(name)
    assert await storage.bots() == []


async def test_guests_expire_and_are_purged(storage: Storage) -> None:
    name, token = await storage.add_guest(3600)
    assert name.startswith("guest-") and (await storage.authenticate(token)).name == name  # type: ignore[union-attr]
    gone, gone_token = await storage.add_guest(-1)  # expired already
    assert await storage.authenticate(gone_token) is None
    assert await storage.token_hashes([name, gone]) == await storage.token_hashes([name])
    assert await storage.purge_expired() == 1 and await storage.purge_expired() == 0
    assert [b.name for b in await storage.bots()] == [name]


# -- games ---------------------------------------------------------------------------------


async def test_a_game_is_stored_running_then_finished_with_its_log_and_seed(
        storage: Storage) -> None:
    record = played("g1")
    await storage.start_game(started(record), ladder=True, pair="p1")
    running = await storage.game("g1")
    assert running is not None and running.status == "running" and running.log is None
    assert running.seed is None  # never revealed before the end
    assert running.seed_commitment == record.seed_commitment and running.ladder
    assert running.players == ("alice", "bob") and running.pair == "p1"
    assert running.settings == json.loads(json.dumps(record.settings))
    with pytest.raises(ValueError, match="stored already"):
        await storage.start_game(started(record), ladder=False, pair=None)

    assert await storage.finish_game(record) == []  # not rated
    done = await storage.game("g1")
    assert done is not None and done.status == "finished" and done.result == record.outcome.result
    assert done.seed == seed_to_text(BIG_SEED) and done.turns == len(record.turns)
    assert done.scores == record.outcome.scores and done.finished is not None
    assert done.termination == "normal" and done.finished >= done.started
    assert validate_record(read_jsonl(done.log.splitlines())) is None  # type: ignore[union-attr]
    assert done.to_json()["seed"] == seed_to_text(BIG_SEED)
    assert await storage.game("nothing") is None
    assert await storage.rating("alice", "substitution") is None


async def test_games_are_listed_newest_first_and_filtered(storage: Storage) -> None:
    for number, players in enumerate([("alice", "bob"), ("bob", "carol"), ("carol", "alice")]):
        record = played(f"g{number}", players)
        await storage.start_game(started(record), ladder=False, pair=None)
        if number < 2:
            await storage.finish_game(record)
    listed = await storage.games()
    assert [g.id for g in listed] == ["g2", "g1", "g0"]
    assert listed[0].seed is None and listed[1].seed == seed_to_text(BIG_SEED)
    assert [g.id for g in await storage.games(bot="alice")] == ["g2", "g0"]
    assert [g.id for g in await storage.games(status="running")] == ["g2"]
    assert [g.id for g in await storage.games(status="finished", bot="carol")] == ["g1"]
    assert await storage.games(game="sim") == []
    assert [g.id for g in await storage.games(limit=2)] == ["g2", "g1"]
    assert [g.id for g in await storage.games(before=listed[1].started)] == ["g0"]
    assert listed[2].to_json()["players"] == ["alice", "bob"]


async def test_games_left_running_are_recovered_as_aborted(storage: Storage) -> None:
    record = played("g1")
    await storage.start_game(started(record), ladder=True, pair=None)
    assert await storage.recover() == ["g1"] and await storage.recover() == []
    row = await storage.game("g1")
    assert row is not None and row.status == "aborted" and row.termination == "aborted"
    assert row.reason == RECOVERED and row.seed == seed_to_text(BIG_SEED)
    log = read_jsonl(row.log.splitlines())  # type: ignore[union-attr]
    assert log.outcome is not None and log.outcome.result == "aborted" and log.turns == ()
    assert await storage.leaderboard() == []  # an aborted game is never rated


# -- ratings -------------------------------------------------------------------------------


async def test_rated_games_move_the_ratings_and_their_history(storage: Storage) -> None:
    first = ended("g1", ("alice", "bob"), winner=0)
    second = ended("g2", ("bob", "alice"), winner=None)
    for record in (first, second):
        await storage.start_game(record, ladder=True, pair=None)
    after_first = await storage.finish_game(first, rated=True)
    assert [r.bot for r in after_first] == ["alice", "bob"]
    assert after_first[0].wins == 1 and after_first[1].losses == 1
    assert after_first[0].mu > initial_rating("alice", "sim", "sim").mu > after_first[1].mu
    after_second = await storage.finish_game(second, rated=True)
    assert [(r.bot, r.games, r.draws) for r in after_second] == [("bob", 2, 1), ("alice", 2, 1)]
    alice = await storage.rating("alice", "sim")
    assert alice == after_second[1]
    board = await storage.leaderboard("sim")
    assert [r.bot for r in board] == ["alice", "bob"] and board == await storage.leaderboard()
    assert await storage.leaderboard("substitution") == []
    history = await storage.rating_history("sim")
    assert sorted(history) == ["alice", "bob"] and len(history["alice"]) == 2
    assert history["alice"][-1][1] == round(alice.conservative, 3)  # type: ignore[union-attr]
    assert history["alice"][0][0] <= history["alice"][1][0]
    assert await storage.rating_history("substitution") == {}


async def test_an_aborted_or_unrated_game_changes_no_rating(storage: Storage) -> None:
    aborted = replace(ended("g1", ("alice", "bob"), winner=None),
                      outcome=Outcome(None, None, Termination.ABORTED, detail="shut down"))
    friendly = ended("g2", ("alice", "bob"), winner=1)
    for record in (aborted, friendly):
        await storage.start_game(record, ladder=False, pair=None)
    assert await storage.finish_game(aborted, rated=True) == []
    assert await storage.finish_game(friendly, rated=False) == []
    assert await storage.leaderboard() == [] and await storage.rating_history() == {}
    assert [g.status for g in await storage.games()] == ["finished", "aborted"]


# -- game ends not heard yet -----------------------------------------------------------------


async def test_a_games_end_is_kept_for_each_pending_player_until_heard(storage: Storage) -> None:
    first = ended("g1", ("alice", "bob"), winner=0)
    second = ended("g2", ("bob", "carol"), winner=None)
    unfollowed = ended("g3", ("alice", "carol"), winner=1)
    for record in (first, second, unfollowed):
        await storage.start_game(record, ladder=False, pair=None)
    await storage.finish_game(first, pending=("alice", "bob"))  # in the result's transaction
    kept = time.time()
    while (between := time.time()) <= kept:  # the first kept strictly before `between`
        await asyncio.sleep(0.001)
    while time.time() <= between:  # and the second strictly after
        await asyncio.sleep(0.001)
    await storage.finish_game(second, pending=("bob", "carol", "bob"))
    await storage.finish_game(unfollowed)  # one process follows nobody
    kept = await storage.pending_ends(["alice", "bob", "carol", "dave"])
    assert [(bot, row.id) for bot, row in kept] == [
        ("alice", "g1"), ("bob", "g1"), ("bob", "g2"), ("carol", "g2")]  # the oldest first
    stored = await storage.game("g1")  # what its game_over says, in the same query
    assert stored is not None and kept[0][1].to_json() == {
        key: value for key, value in stored.to_json().items() if key not in ("settings", "log")}
    assert [row.result for _, row in kept] == ["first", "first", "draw", "draw"]
    assert await ends(storage, ["bob"], before=between) == [("bob", "g1")]
    assert await ends(storage, ["bob", "carol"], limit=2) == [("bob", "g1"), ("bob", "g2")]
    assert await storage.pending_ends([]) == []
    await storage.drop_pending_ends([("bob", "g1"), ("bob", "g2"), ("dave", "g1")])
    await storage.drop_pending_ends([("bob", "g1")])  # gone already: nothing
    await storage.drop_pending_ends([])
    assert await ends(storage, ["alice", "bob", "carol"]) == [("alice", "g1"), ("carol", "g2")]


async def ends(storage: Storage, bots: list[str], **options: Any) -> list[tuple[str, str]]:
    """`Storage.pending_ends` as ``(bot, game id)``."""
    return [(bot, row.id) for bot, row in await storage.pending_ends(bots, **options)]


# -- pending challenges ----------------------------------------------------------------------


async def test_challenges_are_stored_marked_asked_taken_over_and_ended(storage: Storage) -> None:
    assert await storage.pending_challenges() == []
    later = PendingChallenge("c2", "alice", "bob", True, "sim", 2_000_000_000.5, keeper="h1")
    sooner = PendingChallenge("c1", "carol", "guest-1", False, "substitution", 1_900_000_000.25,
                              games=1, seat=1, request_id="r7", keeper="h1")
    await storage.put_challenge(later)
    await storage.put_challenge(sooner)
    assert await storage.pending_challenges() == [sooner, later]  # the soonest first
    asked = replace(later, asked=True)
    await storage.put_challenge(asked)  # its opponent was asked: the same row
    assert await storage.pending_challenges() == [sooner, asked]
    fields = {"challenge_id": "c1", "status": "declined", "reason": "no"}
    assert await storage.end_challenge("c1", "h1", fields, 1_800_000_000.0)
    assert not await storage.end_challenge("c1", "h1", fields, 1_800_000_001.0)  # ended once
    assert await storage.pending_challenges() == [asked]
    assert await storage.challenge("c1") == replace(sooner, ended=fields)  # kept, ended
    assert await storage.challenge("c9") is None

    # another host takes the pending ones over: the former keeper can no longer end them
    assert await storage.take_challenges("h2") == [replace(asked, keeper="h2")]
    assert not await storage.end_challenge("c2", "h1", {"status": "cancelled"}, 1.0)
    await storage.put_challenge(replace(asked, asked=False))  # the former keeper's: nothing
    assert await storage.pending_challenges() == [replace(asked, keeper="h2")]
    assert await storage.end_challenge("c2", "h2", {"status": "expired"}, 1_800_000_100.0)
    assert await storage.take_challenges("h3") == []

    # each challenge sent counts for an hour; the ended ones are kept as long
    await storage.charge_challenge("alice", 1_800_000_000.0)
    await storage.charge_challenge("bob", 1_800_000_050.0)
    await storage.charge_challenge("alice", 1_800_000_100.0)
    assert await storage.challenges_charged(1_800_000_050.0) == [("bob", 1_800_000_050.0),
                                                                  ("alice", 1_800_000_100.0)]
    await storage.forget_challenges(1_800_000_050.0)
    assert await storage.challenges_charged(0.0) == [("bob", 1_800_000_050.0),
                                                      ("alice", 1_800_000_100.0)]
    assert await storage.challenge("c1") is None  # ended before: forgotten
    assert (await storage.challenge("c2")) == replace(asked, keeper="h2",
                                                      ended={"status": "expired"})


# -- presets -------------------------------------------------------------------------------


async def test_presets_are_saved_per_game_replaced_and_deleted(storage: Storage) -> None:
    await storage.save_preset("substitution", "g", "S->a\n")
    await storage.save_preset("substitution", "g", "S->b\n")
    await storage.save_preset("substitution", "a", "S->c\n")
    await storage.save_preset("sim", "small", "{}")
    assert await storage.presets("substitution") == [("a", "S->c\n"), ("g", "S->b\n")]
    assert await storage.preset("substitution", "g") == "S->b\n"
    assert await storage.preset("substitution", "small") is None
    assert await storage.preset_count() == 3
    assert await storage.delete_preset("sim", "small")
    assert not await storage.delete_preset("sim", "small")
    assert await storage.presets("sim") == [] and await storage.preset_count() == 2


# -- hosted bots' builds -------------------------------------------------------------------


async def test_builds_are_stored_finished_and_listed_newest_first(storage: Storage) -> None:
    await storage.save_build(BuildRow("b1", "alice", "python", "building", 1.0))
    await storage.save_build(BuildRow("b2", "bob", "c", "building", 2.0))
    finished = BuildRow("b1", "alice", "python", "ok", 1.0, 1.5, "ab" * 32, None, "log\n")
    await storage.save_build(finished)
    failed = BuildRow("b3", "alice", "c", "failed", 3.0, 3.5, "cd" * 32,
                      "the build failed (exit status 1)", "error: x\n",
                      detail_code="build-exit", detail_params={"status": 1})
    await storage.save_build(failed)
    assert await storage.build("b1") == finished
    assert await storage.build("b3") == failed  # why, by code, for a page's words
    assert await storage.build("nope") is None
    listed = await storage.builds("alice")
    assert [b.id for b in listed] == ["b3", "b1"] and all(b.log is None for b in listed)
    assert [(b.detail_code, b.detail_params) for b in listed] == [("build-exit", {"status": 1}),
                                                                  (None, None)]
    assert [b.id for b in await storage.builds("alice", status="ok")] == ["b1"]
    assert [b.id for b in await storage.builds(limit=2)] == ["b3", "b2"]
    assert await storage.builds("carol") == []


async def test_a_build_stored_before_codes_reads_with_the_code_its_english_says(
        storage: Storage) -> None:
    """A failed build stored before builds had codes (``detail_code`` NULL, only the
    English ``detail``) reads with the code and params that English says, on either
    backend, so a page says it in its language (issue 28); one whose English no pattern
    knows reads as before (the page marks it English)."""
    old = [("o1", "the sources are refused: 'a/../b.py': '..' in a path",
            ("source-dotdot", {"name": "a/../b.py"})),
           ("o2", "the build failed (exit status 2): it reached its limit of 64 processes",
            ("build-processes", {"most": 64})),
           ("o3", "no main.py or bot.py at the top of the sources",
            ("no-entry", {"wanted": "main.py or bot.py"})),
           ("o4", "the moon fell on the build machine", (None, None))]
    for number, (build_id, detail, _) in enumerate(old):
        await storage.save_build(BuildRow(build_id, "alice", "python", "failed", float(number),
                                          float(number) + 0.5, None, detail, detail + "\n"))
    for build_id, detail, coded in old:
        row = await storage.build(build_id)
        assert row is not None and row.detail == detail
        assert (row.detail_code, row.detail_params) == coded
    listed = {b.id: (b.detail_code, b.detail_params) for b in await storage.builds("alice")}
    assert listed == {build_id: coded for build_id, _, coded in old}


async def test_a_hosted_programs_stderr_is_kept_per_game_and_dropped_when_old(
        storage: Storage) -> None:
    await storage.save_stderr("g1", "alice", "first\n")
    await storage.save_stderr("g1", "alice", "first\nsecond\n")
    await storage.save_stderr("g1", "bob", "his\n")
    assert await storage.stderr("g1", "alice") == "first\nsecond\n"
    assert await storage.stderr("g1", "carol") is None
    assert await storage.drop_old_stderr(0.0) == 0
    assert await storage.drop_old_stderr(time.time() + 1) == 2
    assert await storage.stderr("g1", "bob") is None


# -- health --------------------------------------------------------------------------------


async def test_a_declared_failure_heals_on_the_next_test_write(storage: Storage) -> None:
    heard: list[str | None] = []
    storage.on_change = heard.append
    await storage.check_writable()
    storage.fail("OSError: the disk is full")
    storage.fail("another reason")  # a no-op: it failed already
    assert storage.failure == "OSError: the disk is full" and heard == [storage.failure]
    waiting = asyncio.ensure_future(storage.wait_healthy())
    await asyncio.sleep(0)
    assert not waiting.done()
    assert await storage.probe() and storage.failure is None and heard[-1] is None
    await asyncio.wait_for(waiting, 5)
    assert await storage.probe() and len(heard) == 2  # healthy: nothing to hear



async def test_each_ladder_of_one_game_has_its_own_ratings_and_history(storage: Storage) -> None:
    small = ended("g1", ("alice", "bob"), winner=0)
    large = ended("g2", ("alice", "bob"), winner=1)
    await storage.start_game(small, ladder=True, pair="p1", ladder_name="sim-small")
    await storage.start_game(large, ladder=True, pair="p2", ladder_name="sim-large")
    await storage.finish_game(small, rated=True)
    await storage.finish_game(large, rated=True)
    on_small = await storage.leaderboard("sim-small")
    on_large = await storage.leaderboard("sim-large")
    assert [(r.bot, r.wins, r.ladder) for r in on_small] == [("alice", 1, "sim-small"),
                                                              ("bob", 0, "sim-small")]
    assert [(r.bot, r.wins, r.ladder) for r in on_large] == [("bob", 1, "sim-large"),
                                                              ("alice", 0, "sim-large")]
    assert await storage.leaderboard("sim") == [] and len(await storage.leaderboard()) == 4
    assert (await storage.rating("alice", "sim-small")).wins == 1  # type: ignore[union-attr]
    assert set(await storage.rating_history("sim-large")) == {"alice", "bob"}
    assert len((await storage.rating_history("sim-large"))["alice"]) == 1
    assert [g.ladder_name for g in await storage.games()] == ["sim-large", "sim-small"]
    assert [g.id for g in await storage.games(ladder="sim-small")] == ["g1"]
    assert len(await storage.ladder_pairings(0.0)) == 2
    assert len(await storage.ladder_pairings(0.0, "sim-small")) == 1
    practice = ended("g3", ("alice", "bob"), winner=0)  # an unrated ladder's game
    await storage.start_game(practice, ladder=False, pair="p3", ladder_name="practice")
    await storage.finish_game(practice, rated=False)
    assert len(await storage.ladder_pairings(0.0, "practice")) == 1  # its pairings count
    assert await storage.leaderboard("practice") == []
    friendly = ended("g4", ("alice", "bob"), winner=0)  # no ladder's: not a pairing
    await storage.start_game(friendly, ladder=False, pair="p4")
    assert len(await storage.ladder_pairings(0.0)) == 3
