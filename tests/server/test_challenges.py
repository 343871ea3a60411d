"""Challenges, accept policies, their budgets, and seek/pause, through the WebSocket
protocol (the SDK's clients and raw frames) against a real server."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import jsonschema
import pytest

from arena.server import LadderConfig, TimeControl
from arena.server.challenges import AcceptPolicy, Challenge, ChallengeLimits, Challenges
from arena.service import ChallengeError
from arena.storage import PendingChallenge
from clients import ArenaBot, ArenaClient, ChallengeNotice, ChallengeRefused
from clients.sdk import Turn
from protocol import PROTOCOL_VERSION, Message
from protocol.jsonschema import protocol_schema
from tests.waiting import wait_for

from .conftest import SUBST

FAST_LONG = TimeControl(move_ms=1500, bank_ms=1500, first_move_ms=1500, retries=0,
                        grace_ms=1000)
"""A time control of its own for one ladder (`LadderConfig.time_control`)."""

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


async def test_a_person_s_two_bots_play_no_rated_challenge(make_arena):
    """Rated games between two bots of one person would feed one of them rating (what
    the ladder never pairs); unrated ones are played, and another person's bot may be
    challenged rated."""
    arena = await make_arena(ladder=LADDER)
    storage = arena.server.storage
    await storage.add_person("ann", "hash")
    clients = {}
    for name in ("ann-1", "ann-2"):
        token = await storage.add_owned_bot("ann", name, max_bots=5)
        clients[name] = ArenaClient(arena.url, token, Answering(True), reconnect_delay=0.05,
                                    challenges=True, seek=False)
        arena.clients.append((clients[name], asyncio.create_task(clients[name].run())))
        await wait_for(clients[name].connected.is_set)
    await arena.client("bob", Answering(True), challenges=True, seek=False)
    with pytest.raises(ChallengeRefused) as refused:
        await clients["ann-1"].challenge("ann-2", rated=True)
    assert refused.value.code == "bad-challenge" and "bots of ann's" in str(refused.value)
    unrated = await clients["ann-1"].challenge("ann-2", rated=False)
    assert unrated["status"] == "accepted" and unrated["rated"] is False
    games = [await wait_for(lambda gid=gid: _finished(storage, gid)) for gid in unrated["game_ids"]]
    assert not any(game.ladder for game in games)
    assert await storage.rating("ann-1", "substitution") is None
    # stored, then announced: the games are over for the server once they are told
    await wait_for(lambda: not arena.server.live_games_of("ann-2"))
    rated = await clients["ann-2"].challenge("bob", rated=True)
    assert rated["status"] == "accepted" and rated["rated"] is True


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
    # the one ladder is named after its game (LadderConfig.name)
    assert error["code"] == "unknown-ladder" and "'substitution'" in error["message"]
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
    answer = await alice.pause_games(ladder="substitution")
    assert answer.body == {"ladder": "substitution", "seeking": False}
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
    assert (error["code"], error["request_id"]) == ("unknown-ladder", "q")
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
    await send(dave, "challenge", opponent="erin", rated=True, ladder="substitution",
               request_id="q")
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


async def test_a_challenge_plays_on_the_ladder_it_names_with_that_ladder_s_settings(make_arena):
    """With several ladders a challenge, seek or pause must name one (unknown-ladder
    otherwise); the named ladder's settings, time control and ratings are used."""
    short = LadderConfig(game="substitution", settings={**SUBST, "moves": 2}, interval=3600.0,
                         max_games=2, name="short")
    long_ = LadderConfig(game="substitution", settings={**SUBST, "moves": 3}, interval=3600.0,
                         max_games=2, name="long", time_control=FAST_LONG)
    arena = await make_arena(ladders=(short, long_))
    seen: list[Message] = []
    alice, _bob, _ = await _pair(arena, on_message=seen.append)
    with pytest.raises(ChallengeRefused) as refused:
        await alice.challenge("bob", rated=True)
    assert refused.value.code == "unknown-ladder" and "'short', 'long'" in str(refused.value)
    with pytest.raises(ChallengeRefused) as refused:
        await alice.challenge("bob", rated=True, ladder="medium")
    assert refused.value.code == "unknown-ladder"
    status = await alice.challenge("bob", rated=True, ladder="long")
    assert status["status"] == "accepted"
    storage = arena.server.storage
    games = [await wait_for(lambda gid=gid: _finished(storage, gid)) for gid in status["game_ids"]]
    assert {g.ladder_name for g in games} == {"long"} and all(g.ladder for g in games)
    stored = await storage.game(games[0].id)
    assert stored is not None and stored.settings["moves"] == 3
    clocks = [m["time_control"] for m in seen if m.type == "game_start"]
    assert len(clocks) == 2 and all(c["move_ms"] == FAST_LONG.move_ms for c in clocks)
    assert (await storage.rating("alice", "long")).games == 2  # type: ignore[union-attr]
    assert await storage.rating("alice", "short") is None
    # pausing names a ladder too, and pauses that ladder only
    answer = await alice.pause_games(ladder="short")
    assert answer.body == {"ladder": "short", "seeking": False}
    session = arena.server.sessions["alice"]
    assert not session.seeks("short") and not session.seeks("long")  # seek=False in hello
    assert (await alice.seek_games(ladder="long"))["seeking"] is True
    assert session.seeks("long") and not session.seeks("short")
    with pytest.raises(ChallengeRefused) as refused:
        await alice.seek_games()
    assert refused.value.code == "unknown-ladder"


async def test_a_challenge_on_a_ladder_of_varied_starts_plays_a_start_drawn_for_it(make_arena):
    from arena.starts import draw_settings

    params = {"start": [1, 25]}
    varied = LadderConfig(game="heaps", interval=3600.0, name="heaps-varied", generator=params)
    arena = await make_arena(ladders=(varied,))
    alice = await arena.client("alice", "heaps-random", challenges=True, seek=False)
    await arena.client("bob", "heaps-random", challenges=True, seek=False,
                       accept={"mode": "auto"})
    status = await alice.challenge("bob", rated=False)
    assert status["status"] == "accepted"
    storage = arena.server.storage
    games = [await wait_for(lambda gid=gid: _finished(storage, gid)) for gid in status["game_ids"]]
    stored = [await storage.game(game.id) for game in games]
    first, second = stored
    assert first is not None and second is not None
    assert first.settings == second.settings and first.seed != second.seed
    heaps = arena.server.registry.game_class("heaps")
    smaller = min(int(first.seed or 0), int(second.seed or 0))  # stored as decimal text
    assert draw_settings(heaps, params, smaller) == first.settings


async def test_a_challenge_failing_for_its_game_s_settings_names_the_game(make_arena,
                                                                           monkeypatch):
    """A challenge whose games cannot start for a reason of the game's own (its ladder's
    generator draws only starts that are over: the server checked the drawing with one
    seed only) fails with that reason's code and the ``game`` whose words say it (issue
    28: the page says it in its language)."""
    from arena import starts

    varied = LadderConfig(game="heaps", interval=3600.0, name="heaps-varied",
                          generator={"start": [1, 25]})
    arena = await make_arena(ladders=(varied,))
    monkeypatch.setattr("arena.server.app.draw_settings", lambda game, params, seed: (
        starts.draw_settings(game, {"start": [10_000, 10_000], "target": [2, 2]}, seed)))
    alice = await arena.client("alice", "heaps-random", challenges=True, seek=False)
    await arena.client("bob", "heaps-random", challenges=True, seek=False,
                       accept={"mode": "auto"})
    status = await alice.challenge("bob", rated=False)
    assert status["status"] == "failed" and "over already" in status["reason"]
    assert (status["error_code"], status["error_params"]) == (
        "generator-over", {"low": 10_000, "high": 10_000, "game": "heaps"})


async def test_the_sdk_pauses_the_same_ladder_again_after_a_reconnect(make_arena):
    ladders = tuple(LadderConfig(game="substitution", settings={**SUBST, "moves": 2},
                                 interval=3600.0, name=name) for name in ("short", "long"))
    arena = await make_arena(ladders=ladders)
    alice = await arena.client("alice", Answering(None), challenges=True)
    assert (await alice.pause_games(ladder="short"))["seeking"] is False
    old = arena.server.sessions["alice"]
    await alice.drop()
    await wait_for(lambda: arena.server.sessions.get("alice") not in (None, old)
                   and not arena.server.sessions["alice"].seeks("short"))
    assert arena.server.sessions["alice"].seeks("long") and alice.seek  # the hello's: true


async def test_challenges_journal_their_changes_and_another_keeper_restores_them() -> None:
    """What a cluster's leading host stores of its pending challenges (`journal`), and
    how the next takes them over (`restore`): an asked one waits for its answer, one not
    asked yet is answered by the opponent's policy, one past its time expires."""
    told: list[tuple[str, str, dict[str, Any]]] = []
    started: list[str] = []

    async def unrated(name: str, ladder: str) -> None:
        return None

    def start(challenge: Any) -> list[str]:
        started.append(challenge.id)
        return [f"{challenge.id}-0", f"{challenge.id}-1"]

    def keeper() -> Challenges:
        return Challenges(ChallengeLimits(timeout=30.0), notify=lambda *said: told.append(said),
                          start=start, rating=unrated, check=lambda *checked: None,
                          capable=lambda name: True)

    first = keeper()
    journal: list[tuple[str, str, bool]] = []
    sent: list[tuple[str, float]] = []

    class Journal:
        def changed(self, challenge: Challenge) -> None:
            journal.append((challenge.id, challenge.status, challenge.asked))

        def charged(self, name: str, at: float) -> None:
            sent.append((name, at))

    first.journal = Journal()
    first.connected("bob", AcceptPolicy("ask"))
    asked = first.challenge("alice", "bob", rated=False, ladder="sim")
    await wait_for(lambda: asked.asked)
    row = first.stored(asked)
    assert journal == [(asked.id, "pending", False), (asked.id, "pending", True)]
    assert row.asked and 29.0 < row.expires - time.time() <= 30.0
    declined = first.challenge("alice", "bob", rated=False, ladder="sim")
    await wait_for(lambda: declined.asked)
    first.answer("bob", declined.id, accept=False)
    assert journal[-1] == (declined.id, "declined", True)  # ended: stored so
    assert [name for name, _ in sent] == ["alice", "alice"]  # the hourly budget's
    first.close()

    told.clear()
    second = keeper()
    second.connected("carol", AcceptPolicy("auto"))
    rows = [row,  # asked: waits for bob's answer
            PendingChallenge("c-not-asked", "alice", "carol", False, "sim", time.time() + 30),
            PendingChallenge("c-past", "alice", "dave", False, "sim", time.time() - 1,
                             asked=True)]
    assert second.restore(rows) == 3
    assert second.restore(rows) == 0  # known already
    await wait_for(lambda: "c-not-asked" in started, what="carol's policy accepts")
    await wait_for(lambda: second.get("c-past") is not None
                   and second.get("c-past").status == "expired")  # type: ignore[union-attr]
    assert second.get(asked.id).status == "pending"  # type: ignore[union-attr]
    second.answer("bob", asked.id, accept=True)
    assert second.get(asked.id).status == "accepted" and asked.id in started  # type: ignore[union-attr]
    assert ("dave", "challenge_status") in {(name, kind) for name, kind, _ in told}
    second.close()


async def test_a_challenge_that_fails_on_acceptance_says_why_by_code() -> None:
    """A challenge accepted that the server can no longer play (a bot busy by then) ends
    ``failed`` with the refusal's English `reason` and its code and params
    (``error_code``, ``error_params``: a page says it in its language, issue 28); a
    failure without a code (the games could not start) is ``start-failed``."""
    told: list[dict[str, Any]] = []
    busy = {"now": False}

    async def unrated(name: str, ladder: str) -> None:
        return None

    def check(challenger: str, opponent: str, rated: bool, ladder: str) -> None:
        if busy["now"]:
            raise ChallengeError("bad-challenge", f"bot {challenger!r} plays 2 games already",
                                 reason="bot-busy", bot=challenger, count=2, limit=2)

    def start(challenge: Any) -> list[str]:
        raise RuntimeError("no room for the games")

    keeper = Challenges(ChallengeLimits(timeout=30.0), notify=lambda *said: told.append(said[2]),
                        start=start, rating=unrated, check=check, capable=lambda name: True)
    keeper.connected("bob", AcceptPolicy("ask"))
    try:
        first = keeper.challenge("alice", "bob", rated=False, ladder="sim")
        await wait_for(lambda: first.asked)
        busy["now"] = True
        keeper.answer("bob", first.id, accept=True)
        fields = first.status_fields()
        assert fields["status"] == "failed" and "plays 2 games" in fields["reason"]
        assert (fields["error_code"], fields["error_params"]) == (
            "bad-challenge", {"reason": "bot-busy", "bot": "alice", "count": 2, "limit": 2})
        assert told[-1] == fields  # as both bots hear it
        jsonschema.validate({"type": "challenge_status", **fields}, protocol_schema())
        busy["now"] = False
        second = keeper.challenge("alice", "bob", rated=False, ladder="sim")
        await wait_for(lambda: second.asked)
        keeper.answer("bob", second.id, accept=True)
        fields = second.status_fields()
        assert fields["status"] == "failed" and fields["reason"] == "no room for the games"
        assert (fields["error_code"], fields["error_params"]) == ("start-failed", {})
    finally:
        keeper.close()


def quiet_keeper(per_hour: int = 20) -> tuple[Challenges, list[tuple[str, str, dict[str, Any]]]]:
    """A `Challenges` whose opponents answer nothing, and what it told."""
    told: list[tuple[str, str, dict[str, Any]]] = []

    async def unrated(name: str, ladder: str) -> None:
        return None

    keeper = Challenges(ChallengeLimits(timeout=30.0, per_hour=per_hour),
                        notify=lambda *said: told.append(said), start=lambda c: [],
                        rating=unrated, check=lambda *checked: None, capable=lambda name: True)
    return keeper, told


async def test_the_next_keeper_counts_the_challenges_sent_within_the_hour() -> None:
    """The hourly budget outlives its keeper: the next counts what was stored."""
    keeper, _ = quiet_keeper(per_hour=3)
    now = time.time()
    keeper.restore([], [("alice", now - 100.0), ("alice", now - 50.0), ("bob", now - 10.0)])
    keeper.connected("bob", AcceptPolicy("ask"))
    keeper.challenge("alice", "bob", rated=False, ladder="sim")  # her third this hour
    with pytest.raises(ChallengeError) as refused:
        keeper.challenge("alice", "bob", rated=False, ladder="sim")
    assert refused.value.params["reason"] == "per-hour"
    keeper.restore([], [("alice", now - 100.0)])  # fewer stored than counted here: kept
    with pytest.raises(ChallengeError):
        keeper.challenge("alice", "bob", rated=False, ladder="sim")
    keeper.close()


async def test_giving_up_tells_the_bots_only_of_the_ends_stored() -> None:
    """A keeper that stops keeping (its host lost the lead) cancels a challenge, both
    bots told, only once its end is stored as its own; one whose end cannot be stored
    is forgotten untold, for the next keeper to take over."""
    keeper, told = quiet_keeper()
    keeper.connected("bob", AcceptPolicy("ask"))
    kept = keeper.challenge("alice", "bob", rated=False, ladder="sim")
    lost = keeper.challenge("alice", "bob", rated=False, ladder="sim")
    await wait_for(lambda: kept.asked and lost.asked)
    told.clear()

    async def written(challenge: Challenge) -> bool:
        return challenge is kept

    assert await keeper.give_up("stopped", written) == 1
    assert not keeper.open
    assert sorted((name, fields["challenge_id"], fields["status"]) for name, _, fields in told) \
        == [("alice", kept.id, "cancelled"), ("bob", kept.id, "cancelled")]
    assert keeper.get(kept.id) is kept and keeper.get(lost.id) is None
    with pytest.raises(ChallengeError):  # no answer reaches a challenge given up
        keeper.answer("bob", lost.id, accept=True)
    keeper.close()
