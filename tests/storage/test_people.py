"""The shared suite's part on people and their bots (`arena.storage.people`), on SQLite
and on PostgreSQL alike."""

from __future__ import annotations

import asyncio

import pytest

from arena.names import InvalidName
from arena.storage import AccountLimit, Storage
from arena.storage.ratings import INITIAL_SIGMA, VERSION_SIGMA_STEP

from .games import ended, started

HASH = "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA"
"""A password hash as the storage sees it: an opaque text."""


async def test_a_person_is_added_once_and_listed_without_the_hash(storage: Storage) -> None:
    await storage.add_person("ann", HASH)
    with pytest.raises(ValueError, match="taken"):
        await storage.add_person("ann", "other")
    with pytest.raises(InvalidName):
        await storage.add_person("guest-ann", HASH)
    assert await storage.password_hash("ann") == HASH
    assert await storage.password_hash("nobody") is None
    [ann] = await storage.people()
    assert (ann.name, ann.bots) == ("ann", 0)


async def test_an_operator_is_a_person_with_the_flag(storage: Storage) -> None:
    await storage.add_person("ann", HASH)
    await storage.add_person("olga", HASH, operator=True)
    assert [(p.name, p.operator) for p in await storage.people()] == [("ann", False),
                                                                     ("olga", True)]
    assert await storage.is_operator("olga") and not await storage.is_operator("ann")
    assert not await storage.is_operator("nobody")
    assert await storage.set_operator("ann", True) and await storage.is_operator("ann")
    assert await storage.set_operator("olga", False) and not await storage.is_operator("olga")
    assert not await storage.set_operator("nobody", True)


async def test_an_invite_code_signs_up_one_person_only(storage: Storage) -> None:
    code = await storage.add_invite(3600)
    with pytest.raises(ValueError, match="invite"):
        await storage.add_person("ann", HASH, invite="wrong")
    assert await storage.people() == []
    await storage.add_person("ann", HASH, invite=code)
    with pytest.raises(ValueError, match="invite"):
        await storage.add_person("bob", HASH, invite=code)
    expired = await storage.add_invite(-1)
    with pytest.raises(ValueError, match="invite"):
        await storage.add_person("bob", HASH, invite=expired)
    assert [p.name for p in await storage.people()] == ["ann"]


async def test_a_taken_name_leaves_the_invite_code_unused(storage: Storage) -> None:
    await storage.add_person("ann", HASH)
    code = await storage.add_invite(3600)
    with pytest.raises(ValueError, match="taken"):
        await storage.add_person("ann", HASH, invite=code)
    await storage.add_person("bob", HASH, invite=code)


async def test_sessions_name_their_person_until_closed_or_expired(storage: Storage) -> None:
    await storage.add_person("ann", HASH)
    token = await storage.open_session("ann", 3600)
    old = await storage.open_session("ann", -1)
    assert await storage.session_person(token) == "ann"
    assert await storage.session_person(old) is None
    assert await storage.session_person("wrong") is None
    await storage.close_session(token)
    assert await storage.session_person(token) is None
    again = await storage.open_session("ann", 3600)
    assert await storage.set_password_hash("ann", "new")
    assert await storage.session_person(again) is None  # a new password ends the sessions
    assert await storage.password_hash("ann") == "new"
    assert not await storage.set_password_hash("nobody", "new")
    await storage.purge_expired()


async def test_a_person_keeps_only_their_newest_sessions(storage: Storage) -> None:
    await storage.add_person("ann", HASH)
    tokens = [await storage.open_session("ann", 3600, keep=3) for _ in range(5)]
    assert [await storage.session_person(token) for token in tokens] == [
        None, None, "ann", "ann", "ann"]


async def test_a_person_s_bots_have_tokens_owners_and_a_limit(storage: Storage) -> None:
    await storage.add_person("ann", HASH)
    token = await storage.add_owned_bot("ann", "ann-bot", max_bots=2)
    account = await storage.authenticate(token)
    assert account is not None and (account.name, account.owner) == ("ann-bot", "ann")
    await storage.add_owned_bot("ann", "ann-two", max_bots=2)
    with pytest.raises(AccountLimit, match="at most 2 bots"):
        await storage.add_owned_bot("ann", "ann-three", max_bots=2)
    with pytest.raises(ValueError, match="exists"):
        await storage.add_owned_bot("ann", "ann-bot", max_bots=5)
    await storage.add_bot("plain")
    with pytest.raises(ValueError, match="exists"):
        await storage.add_owned_bot("ann", "plain", max_bots=5)
    with pytest.raises(ValueError, match="no person"):
        await storage.add_owned_bot("nobody", "x", max_bots=5)
    assert [(b.name, b.version, b.revoked) for b in await storage.owned_bots("ann")] == [
        ("ann-bot", 1, False), ("ann-two", 1, False)]
    assert (await storage.people())[0].bots == 2
    assert {b.name: b.owner for b in await storage.bots()} == {
        "ann-bot": "ann", "ann-two": "ann", "plain": None}


async def test_rotating_a_token_replaces_it_for_the_owner_only(storage: Storage) -> None:
    await storage.add_person("ann", HASH)
    await storage.add_person("bob", HASH)
    old = await storage.add_owned_bot("ann", "ann-bot", max_bots=5)
    with pytest.raises(ValueError, match="no bot"):
        await storage.rotate_token("bob", "ann-bot")
    new = await storage.rotate_token("ann", "ann-bot")
    assert await storage.authenticate(old) is None
    assert (await storage.authenticate(new)).name == "ann-bot"  # type: ignore[union-attr]
    await storage.revoke_bot("ann-bot")
    with pytest.raises(ValueError, match="revoked"):
        await storage.rotate_token("ann", "ann-bot")


async def test_a_removed_person_s_bots_are_revoked_and_their_games_kept(storage: Storage) -> None:
    await storage.add_person("ann", HASH)
    token = await storage.add_owned_bot("ann", "ann-bot", max_bots=5)
    session = await storage.open_session("ann", 3600)
    record = ended("g1", ("ann-bot", "other"), 0)
    await storage.start_game(started(record), ladder=False, pair=None)
    await storage.finish_game(record)
    assert await storage.remove_person("ann")
    assert not await storage.remove_person("ann")
    assert await storage.authenticate(token) is None
    assert await storage.session_person(session) is None
    assert await storage.owned_bots("ann") == []
    assert [g.id for g in await storage.games(bot="ann-bot")] == ["g1"]


async def test_a_version_keeps_the_rating_with_a_wider_sigma_and_its_own_games(
        storage: Storage) -> None:
    await storage.add_person("ann", HASH)
    await storage.add_person("bob", HASH)
    await storage.add_owned_bot("ann", "ann-bot", max_bots=5)
    for index in range(40):  # version 1 plays forty rated games, drawn: sigma shrinks
        record = ended(f"v1-{index}", ("ann-bot", "rival"), None)
        await storage.start_game(started(record), ladder=True, pair=None)
        await storage.finish_game(record, rated=True)
    before = await storage.rating("ann-bot", "sim")
    assert before is not None and before.sigma < INITIAL_SIGMA - VERSION_SIGMA_STEP
    with pytest.raises(ValueError, match="no bot"):
        await storage.add_version("bob", "ann-bot", "theft", per_day=5)
    second = await storage.add_version("ann", "ann-bot", "deeper search", per_day=5)
    assert second.version == 2
    after = await storage.rating("ann-bot", "sim")
    assert after is not None
    assert after.mu == pytest.approx(before.mu)
    assert after.sigma == pytest.approx(before.sigma + VERSION_SIGMA_STEP)
    assert after.games == before.games
    unrated = ended("v2-0", ("rival", "ann-bot"), 1)
    await storage.start_game(started(unrated), ladder=False, pair=None)
    await storage.finish_game(unrated)
    versions = await storage.bot_versions("ann-bot")
    assert [(v.version, v.note, v.games, v.rated_games) for v in versions] == [
        (1, "", 40, 40), (2, "deeper search", 1, 0)]
    assert versions[0].rating == pytest.approx(before.conservative)
    assert len(versions[0].history) == 40 and versions[0].history[-1][1] == versions[0].rating
    assert versions[1].rating is None and versions[1].history == ()
    assert await storage.versions_played("ann-bot", ["v1-0", "v2-0", "none"]) == {
        "v1-0": 1, "v2-0": 2}
    assert await storage.versions_played("rival", ["v1-0"]) == {}  # a bot of nobody's
    assert (await storage.owned_bots("ann"))[0].version == 2
    assert await storage.bot_versions("rival") == []


async def test_a_new_version_s_sigma_never_exceeds_a_new_bot_s(storage: Storage) -> None:
    await storage.add_person("ann", HASH)
    await storage.add_owned_bot("ann", "ann-bot", max_bots=5)
    record = ended("g", ("ann-bot", "rival"), None)
    await storage.start_game(started(record), ladder=True, pair=None)
    await storage.finish_game(record, rated=True)
    await storage.add_version("ann", "ann-bot", "", per_day=5)
    rating = await storage.rating("ann-bot", "sim")
    assert rating is not None and rating.sigma == pytest.approx(INITIAL_SIGMA)


async def test_versions_a_day_are_counted_over_all_of_a_person_s_bots(storage: Storage) -> None:
    await storage.add_person("ann", HASH)
    await storage.add_owned_bot("ann", "one", max_bots=5)
    await storage.add_owned_bot("ann", "two", max_bots=5)
    await storage.add_version("ann", "one", "", per_day=2)
    await storage.add_version("ann", "two", "", per_day=2)
    with pytest.raises(AccountLimit, match="at most 2 versions a day"):
        await storage.add_version("ann", "one", "", per_day=2)
    assert [b.version for b in await storage.owned_bots("ann")] == [2, 2]


async def test_concurrent_bots_of_one_person_keep_the_limit(storage: Storage) -> None:
    await storage.add_person("ann", HASH)
    results = await asyncio.gather(
        *(storage.add_owned_bot("ann", f"bot{index}", max_bots=3) for index in range(8)),
        return_exceptions=True)
    assert sum(isinstance(result, str) for result in results) == 3
    assert all(isinstance(result, str | AccountLimit) for result in results)
    assert len(await storage.owned_bots("ann")) == 3
