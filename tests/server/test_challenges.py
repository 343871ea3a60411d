"""Challenges, accept policies, their budgets, and seek/pause, through the WebSocket
protocol (the SDK's clients and raw frames) against a real server."""

from __future__ import annotations

import time

import jsonschema
import pytest

from arena.server import LadderConfig
from arena.server.challenges import ChallengeLimits
from clients import ArenaBot, ChallengeNotice, ChallengeRefused
from clients.sdk import Turn
from protocol import PROTOCOL_VERSION
from protocol.jsonschema import protocol_schema
from tests.waiting import wait_for

from .conftest import SUBST

LADDER = LadderConfig(game="substitution", settings={**SUBST, "moves": 4}, interval=0.05,
                      max_games=2, seed=1)


class Answering(ArenaBot):
    """A bot that plays the first legal move and answers challenges as told."""

    def __init__(self, verdict: bool | None) -> None:
        self.verdict = verdict
        self.notices: list[ChallengeNotice] = []

    def challenged(self, notice: ChallengeNotice) -> bool | None:
        self.notices.append(notice)
        return self.verdict

    def move(self, turn: Turn) -> str:
        return turn.legal_moves(limit=1)[0]


async def _pair(arena, verdict: bool | None = True, **options):
    """alice (the challenger) and bob, both out of the ladder's pairing."""
    alice = await arena.client("alice", Answering(None), challenges=True, seek=False)
    bob_bot = Answering(verdict)
    bob = await arena.client("bob", bob_bot, challenges=True, seek=False, **options)
    return alice, bob, bob_bot


@pytest.mark.parametrize("rated", [True, False])
async def test_an_accepted_challenge_plays_two_games_stored_with_the_rated_flag(make_arena, rated):
    arena = await make_arena(ladder=LADDER)
    alice, bob, bob_bot = await _pair(arena)
    status = await alice.challenge("bob", rated=rated)
    assert status["status"] == "accepted" and status["rated"] is rated
    assert status["challenger"] == "alice" and status["opponent"] == "bob"
    assert len(status["game_ids"]) == 2
    notice, = bob_bot.notices
    assert notice.challenger == "alice" and notice.rated is rated and notice.rating is None
    assert 0 < (notice.expires_ms or 0) <= 60_000
    storage = arena.server.storage
    games = [await wait_for(lambda gid=gid: _finished(storage, gid)) for gid in status["game_ids"]]
    assert [g.players for g in games] == [("alice", "bob"), ("bob", "alice")]
    assert all(g.ladder is rated and g.termination == "normal" for g in games)
    assert games[0].pair == games[1].pair is not None
    assert games[0].seed != games[1].seed  # each its own secret dice, as the ladder's
    rating = await storage.rating("alice", "substitution")
    assert (rating is not None and rating.games == 2) if rated else rating is None
    await wait_for(lambda: len(alice.results) == len(bob.results) == 2)


async def _finished(storage, game_id):
    game = await storage.game(game_id)
    return game if game is not None and game.status == "finished" else None


async def test_a_declined_challenge_starts_nothing(make_arena):
    arena = await make_arena(ladder=LADDER)
    alice, _bob, _ = await _pair(arena, verdict=False)
    status = await alice.challenge("bob")
    assert status["status"] == "declined" and "bob declined" in status["reason"]
    assert "game_ids" not in status.body
    assert not arena.server.bot_games.get("alice")


async def test_policies_auto_decline_and_rating_range(make_arena):
    arena = await make_arena(ladder=LADDER)
    alice = await arena.client("alice", Answering(None), challenges=True, seek=False)
    seen: list[str] = []
    bob = await arena.client("bob", Answering(None), seek=False,
                             accept={"mode": "auto", "min_rating": 5},
                             on_message=lambda m: seen.append(m.type))
    # alice is unrated (0): below bob's range, declined by the policy, bob never asked
    status = await alice.challenge("bob")
    assert status["status"] == "declined"
    assert status["reason"] == "the challenger is rated 0, below 5"
    assert "challenge" not in seen
    answer = await bob.set_policy("auto", max_rating=5)
    assert answer["accept"] == {"mode": "auto", "min_rating": None, "max_rating": 5.0}
    status = await alice.challenge("bob", rated=False)
    assert status["status"] == "accepted" and "challenge" not in seen  # accepted unasked
    await bob.set_policy("decline")
    await wait_for(lambda: not arena.server.bot_games.get("bob"))
    status = await alice.challenge("bob")
    assert status["status"] == "declined" and "declines challenges" in status["reason"]


async def test_a_protocol_1_bot_sees_nothing_new_and_declines(make_arena):
    arena = await make_arena(ladder=LADDER)
    alice = await arena.client("alice", Answering(None), challenges=True, seek=False)
    seen: list[str] = []
    old = await arena.client("old", Answering(True), on_message=lambda m: seen.append(m.type))
    assert old.welcome is not None and "challenges" not in old.welcome["capabilities"]
    assert "challenges_per_hour" not in old.welcome["limits"]
    assert alice.welcome is not None and "challenges" in alice.welcome["capabilities"]
    await arena.server.ladder.stop()  # the old bot seeks: keep it free for the challenge
    await wait_for(lambda: not arena.server.bot_games.get("old"))
    status = await alice.challenge("old")
    assert status["status"] == "declined" and status["reason"] == "the bot takes no challenges"
    assert not {"challenge", "challenge_status"} & set(seen)


async def test_challenges_are_rate_limited_with_a_clear_error(make_arena):
    arena = await make_arena(ladder=LADDER, challenges=ChallengeLimits(per_hour=2, pending=1))
    alice, _bob, _ = await _pair(arena, verdict=False)
    assert alice.welcome is not None
    limits = alice.welcome["limits"]
    assert (limits["challenges_per_hour"], limits["challenges_pending"]) == (2, 1)
    assert (await alice.challenge("bob"))["status"] == "declined"
    with pytest.raises(ChallengeRefused) as refused:  # refused ones count too
        await alice.challenge("alice")
    assert refused.value.code == "bad-challenge"
    with pytest.raises(ChallengeRefused) as refused:
        await alice.challenge("bob")
    assert refused.value.code == "challenge-limit"
    assert "2 challenges in the last hour" in str(refused.value)
    assert "limits.challenges_per_hour" in str(refused.value)


async def test_unanswered_challenges_expire_and_pending_ones_are_capped(make_arena):
    arena = await make_arena(ladder=LADDER, challenges=ChallengeLimits(timeout=0.3, pending=1))
    alice, bob, bob_bot = await _pair(arena, verdict=None)
    await arena.client("carol", Answering(None), challenges=True, seek=False)
    raw = await arena.raw()
    token = await arena.add_bot("dave")
    welcome = await raw.hello(token, capabilities=["challenges"], seek=False)
    assert welcome["limits"]["challenge_timeout"] == 0.3
    await raw.send("challenge", opponent="bob", rated=False, request_id="q1")
    pending = await raw.recv()
    assert pending["status"] == "pending" and pending["request_id"] == "q1"
    # bob has one challenge to answer already: the cap
    status_or_error = None
    with pytest.raises(ChallengeRefused) as refused:
        status_or_error = await alice.challenge("bob")
    assert status_or_error is None and refused.value.code == "challenge-limit"
    ended = await raw.expect("challenge_status")
    assert ended["status"] == "expired" and ended["reason"] == "no answer within 0.3 s"
    notice = bob_bot.notices[0]
    await bob.accept_challenge(notice.challenge_id)  # too late
    await wait_for(lambda: any(e.code == "unknown-challenge" for e in bob.errors))
    assert not arena.server.bot_games.get("bob")


async def test_a_rated_challenge_respects_the_pair_cap(make_arena):
    ladder = LadderConfig(game="substitution", settings={**SUBST, "moves": 2},
                          interval=0.05, max_games=4, pairings_per_hour=1)
    arena = await make_arena(ladder=ladder)
    alice, _bob, _ = await _pair(arena)
    assert (await alice.challenge("bob", rated=True))["status"] == "accepted"
    with pytest.raises(ChallengeRefused) as refused:
        await alice.challenge("bob", rated=True)
    assert refused.value.code == "bad-challenge" and "pairings_per_hour" in str(refused.value)
    assert (await alice.challenge("bob", rated=False))["status"] == "accepted"


async def test_bad_challenges_get_errors(make_arena):
    arena = await make_arena(ladder=LADDER)
    raw = await arena.raw()
    await raw.hello(await arena.add_bot("dave"), capabilities=["challenges"],
                    accept={"mode": "sometimes"})
    error = await raw.recv()
    assert error["code"] == "bad-policy" and "'sometimes'" in error["message"]
    await raw.send("challenge", opponent="nobody", rated=False, request_id="q")
    error = await raw.recv()
    assert (error["code"], error["request_id"]) == ("bad-challenge", "q")
    assert error["message"] == "bot 'nobody' is not connected"
    await raw.send("challenge", opponent="x", rated=False, ladder="other")
    error = await raw.recv()
    assert error["code"] == "unknown-ladder" and "'main'" in error["message"]
    await raw.send("challenge", opponent="x", rated=False, rating=99.0)
    error = await raw.recv()
    assert error["code"] == "bad-challenge" and error["message"].startswith("rating: the server's")
    await raw.send("decline", challenge_id="c0")
    assert (await raw.recv())["code"] == "unknown-challenge"
    spectator = await arena.raw()
    await spectator.hello(None, role="spectator")
    await spectator.send("seek")
    assert (await spectator.recv())["code"] == "unexpected"


async def test_seek_and_pause_take_a_bot_in_and_out_of_the_pairing(make_arena):
    ladder = LadderConfig(game="substitution", settings={**SUBST, "moves": 30},
                          house=("random",), interval=3600.0, max_games=2, seed=1)
    arena = await make_arena(ladder=ladder)
    server = arena.server
    slow = Answering(None)
    alice = await arena.client("alice", slow, seek=False)
    assert server._ladder_candidates() == []  # paused from the hello on
    assert server.ladder.tick(time.time()) == 0
    assert (await alice.seek_games())["seeking"] is True
    assert "alice" in server._ladder_candidates()
    assert server.ladder.tick(time.time()) == 1
    playing = set(server.bot_games["alice"])
    assert len(playing) == 2
    answer = await alice.pause_games(ladder="main")
    assert answer.body == {"ladder": "main", "seeking": False}
    # the games in flight go on to their end; no new pairing
    await wait_for(lambda: len(alice.results) == 2)
    assert all(r.termination == "normal" for r in alice.results)
    assert not server.bot_games.get("alice")
    assert server._ladder_candidates() == [] and server.ladder.tick(time.time()) == 0
    # kept across a reconnect: the SDK says seek false in its next hello
    await alice.drop()
    await wait_for(lambda: alice.connections == 2 and alice.connected.is_set())
    assert "alice" in server.sessions and not server.sessions["alice"].seeking
    raw = await arena.raw()
    await raw.send("hello", protocol=PROTOCOL_VERSION, role="bot",
                   token=await arena.add_bot("bob"))
    await raw.expect("welcome")
    assert "bob" in server._ladder_candidates()  # no seek field: seeking, as before


async def test_without_a_ladder_there_is_nothing_to_seek_or_challenge_on(arena):
    raw = await arena.raw()
    welcome = await raw.hello(await arena.add_bot("dave"), capabilities=["challenges"])
    assert welcome["ladder"] is None and "challenges" in welcome["capabilities"]
    await raw.send("pause")
    error = await raw.recv()
    assert error["code"] == "unknown-ladder" and "no ladder" in error["message"]
    await arena.client("erin", Answering(True), challenges=True)
    await raw.send("challenge", opponent="erin", rated=False, request_id="q")
    error = await raw.recv()
    assert (error["code"], error["request_id"]) == ("bad-challenge", "q")
    assert "no ladder" in error["message"]


async def test_the_frames_of_a_challenge_follow_the_json_schema(make_arena):
    """A challenge by hand, both sides raw: every frame either way validates against the
    published JSON Schema (`arena schema`), the new limits and capability included."""
    validator = jsonschema.Draft202012Validator(protocol_schema())
    arena = await make_arena(ladder=LADDER)
    frames: list[dict] = []
    dave, erin = await arena.raw(), await arena.raw()

    async def send(raw, type, **fields):
        frames.append({"type": type, **fields})
        await raw.send(type, **fields)

    async def recv(raw, type):
        frame = await raw.expect(type)
        frames.append(frame)
        return frame

    for raw, name, extra in ((dave, "dave", {}),
                             (erin, "erin", {"accept": {"mode": "ask", "min_rating": -5}})):
        await send(raw, "hello", protocol=PROTOCOL_VERSION, role="bot", seek=False,
                   token=await arena.add_bot(name), capabilities=["challenges"], **extra)
        welcome = await recv(raw, "welcome")
        assert welcome["limits"]["challenges_per_hour"] == 20
    await send(dave, "challenge", opponent="erin", rated=True, ladder="main", request_id="q")
    pending = await recv(dave, "challenge_status")
    notice = await recv(erin, "challenge")
    assert notice["challenge_id"] == pending["challenge_id"] and notice["rating"] is None
    await send(erin, "policy", accept={"mode": "auto", "min_rating": None, "max_rating": 30})
    assert (await recv(erin, "policy"))["accept"]["max_rating"] == 30
    await send(erin, "decline", challenge_id=notice["challenge_id"], reason="not now")
    ended = await recv(dave, "challenge_status")
    assert (ended["status"], ended["reason"]) == ("declined", "not now")
    assert (await recv(erin, "challenge_status"))["status"] == "declined"
    await send(dave, "seek")
    assert (await recv(dave, "seeking"))["seeking"] is True
    await send(dave, "challenge", opponent="nobody", rated=False)
    await recv(dave, "error")
    assert len(frames) == 16
    for frame in frames:
        errors = sorted(validator.iter_errors(frame), key=str)
        assert not errors, (frame, errors[0].message)
