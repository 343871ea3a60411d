"""People on the HTTP API: signing up (open, by invitation, closed) and in, the session
cookie, a person's bots, tokens, versions, games and debug lines, and every budget a
stranger meets (sign-ups and sign-ins per address and name, password lengths, bots per
person, versions a day, the password pool's queue)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

import aiohttp
import pytest

from arena.game import Outcome, Termination
from arena.passwords import HashingBusy, Passwords
from arena.record import MatchRecord, Note
from arena.web import PERSON_COOKIE
from arena.web.config import AccountsConfig
from tests.server.conftest import Arena
from tests.waiting import wait_for

PASSWORD = "correct horse battery"


class Browser:
    """One browser: its own cookie jar, requests to the arena's HTTP side."""

    def __init__(self, arena: Arena, session: aiohttp.ClientSession) -> None:
        self.base = f"http://127.0.0.1:{arena.server.port}"
        self.session = session

    async def get(self, path: str, **params: Any) -> tuple[int, Any]:
        async with self.session.get(self.base + path, params=params) as response:
            return response.status, await response.json()

    async def post(self, path: str, body: Any = None, **headers: str) -> tuple[int, Any]:
        async with self.session.post(self.base + path, json=body or {},
                                     headers=headers) as response:
            return response.status, await response.json()

    def cookie(self) -> str | None:
        for cookie in self.session.cookie_jar:
            if cookie.key == PERSON_COOKIE:
                return cookie.value
        return None


@asynccontextmanager
async def browser(arena: Arena) -> AsyncIterator[Browser]:
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
        yield Browser(arena, session)


async def accounts_arena(make_arena, **accounts: Any) -> Arena:
    return await make_arena(accounts=replace(AccountsConfig(), **accounts))


async def test_a_closed_server_s_person_is_added_by_the_operator_and_signs_in(
        make_arena) -> None:
    arena = await accounts_arena(make_arena)
    storage = arena.server.storage
    await storage.add_person("ann", Passwords().hash_now(PASSWORD))
    async with browser(arena) as ann:
        status, error = await ann.post("/api/account/signup", {"name": "eve",
                                                               "password": PASSWORD})
        assert (status, error["code"]) == (403, "signup-closed")
        status, error = await ann.post("/api/account/signin", {"name": "ann",
                                                               "password": "wrong password"})
        assert (status, error["code"]) == (401, "wrong-credentials")
        status, error = await ann.post("/api/account/signin", {"name": "nobody",
                                                               "password": PASSWORD})
        assert (status, error["code"]) == (401, "wrong-credentials")  # the same answer
        assert (await ann.get("/api/account/me"))[1]["name"] is None
        status, error = await ann.get("/api/account/bots")
        assert (status, error["code"]) == (401, "not-signed-in")
        assert await ann.post("/api/account/signin", {"name": "ann", "password": PASSWORD}) \
            == (200, {"name": "ann"})
        token = ann.cookie()
        assert token and await storage.session_person(token) == "ann"
        status, me = await ann.get("/api/account/me")
        assert me["name"] == "ann" and me["signup"] == "closed" and me["limits"]["bots"] == 5
        assert await ann.post("/api/account/signout") == (200, {"name": None})
        assert await storage.session_person(token) is None
        assert (await ann.get("/api/account/me"))[1]["name"] is None


async def test_an_open_server_signs_people_up_within_the_bounds(make_arena) -> None:
    arena = await accounts_arena(make_arena, signup="open", signups_per_client_minute=4)
    async with browser(arena) as ann:
        status, error = await ann.post("/api/account/signup", {"name": "ann",
                                                               "password": "short"})
        assert (status, error["code"]) == (400, "bad-request") and "8 to 256" in error["message"]
        assert (error["reason_code"], error["reason_params"]) == (  # a page's words for it
            "password-length", {"minimum": 8, "maximum": 256, "length": 5})
        status, error = await ann.post("/api/account/signup", {"name": "guest-x",
                                                               "password": PASSWORD})
        assert status == 400 and "reserved" in error["message"]
        assert (error["reason_code"], error["reason_params"]) == ("name-reserved",
                                                                  {"prefix": "guest-"})
        assert await ann.post("/api/account/signup", {"name": "ann", "password": PASSWORD}) \
            == (200, {"name": "ann"})
        assert (await ann.get("/api/account/me"))[1]["name"] == "ann"
    async with browser(arena) as eve:
        status, error = await eve.post("/api/account/signup", {"name": "ann",
                                                               "password": PASSWORD})
        assert (status, error["code"]) == (409, "name-taken")
        status, error = await eve.post("/api/account/signup", {"name": "eve",
                                                               "password": PASSWORD})
        assert (status, error["code"]) == (429, "rate-limited")  # the fifth from one address
    stored = await arena.server.storage.password_hash("ann")
    assert stored is not None and stored.startswith("$argon2id$") and PASSWORD not in stored


async def test_an_invite_only_server_takes_each_code_once(make_arena) -> None:
    arena = await accounts_arena(make_arena, signup="invite", signups_per_client_minute=10)
    code = await arena.server.storage.add_invite(3600)
    async with browser(arena) as ann:
        status, error = await ann.post("/api/account/signup", {"name": "ann",
                                                               "password": PASSWORD})
        assert (status, error["code"]) == (403, "invite-needed")
        status, error = await ann.post("/api/account/signup", {
            "name": "ann", "password": PASSWORD, "invite": "made-up"})
        assert (status, error["code"]) == (403, "bad-invite")
        assert (await ann.post("/api/account/signup", {
            "name": "ann", "password": PASSWORD, "invite": code}))[0] == 200
        status, error = await ann.post("/api/account/signup", {
            "name": "bob", "password": PASSWORD, "invite": code})
        assert (status, error["code"]) == (403, "bad-invite")


async def test_sign_ins_are_limited_per_address_and_per_name(make_arena) -> None:
    arena = await accounts_arena(make_arena, signins_per_client_minute=100,
                                 signins_per_name_minute=2)
    await arena.server.storage.add_person("ann", Passwords().hash_now(PASSWORD))
    async with browser(arena) as eve:
        for _ in range(2):
            assert (await eve.post("/api/account/signin", {"name": "ann",
                                                           "password": "guess guess"}))[0] == 401
        status, error = await eve.post("/api/account/signin", {"name": "ann",
                                                               "password": PASSWORD})
        assert (status, error["code"]) == (429, "rate-limited")  # even the right password
        assert (await eve.post("/api/account/signin", {"name": "bob",
                                                       "password": "guess guess"}))[0] == 401
    few = await accounts_arena(make_arena, signins_per_client_minute=1)
    async with browser(few) as eve:
        assert (await eve.post("/api/account/signin", {"name": "a", "password": "b"}))[0] == 401
        assert (await eve.post("/api/account/signin", {"name": "c", "password": "d"}))[0] == 429


async def test_a_foreign_page_cannot_sign_in_or_make_bots(make_arena) -> None:
    arena = await accounts_arena(make_arena, signup="open")
    async with browser(arena) as ann:
        status, error = await ann.post("/api/account/signup", {"name": "ann",
                                                               "password": PASSWORD},
                                       Origin="https://evil.example")
        assert (status, error["code"]) == (403, "cross-site")
        assert (await ann.post("/api/account/signup", {"name": "ann",
                                                       "password": PASSWORD}))[0] == 200
        status, error = await ann.post("/api/account/bots", {"name": "ann-bot"},
                                       **{"Sec-Fetch-Site": "cross-site"})
        assert (status, error["code"]) == (403, "cross-site")
        assert (await ann.get("/api/account/bots"))[1]["bots"] == []


async def test_a_person_s_bots_tokens_versions_games_and_debug_lines(make_arena) -> None:
    arena = await accounts_arena(make_arena, signup="open", bots_per_person=2,
                                 versions_per_day=1)
    storage = arena.server.storage
    async with browser(arena) as ann, browser(arena) as bob:
        await ann.post("/api/account/signup", {"name": "ann", "password": PASSWORD})
        await bob.post("/api/account/signup", {"name": "bob", "password": PASSWORD})
        status, made = await ann.post("/api/account/bots", {"name": "ann-bot"})
        assert status == 200 and made["version"] == 1
        account = await storage.authenticate(made["token"])
        assert account is not None and account.owner == "ann"
        status, error = await bob.post("/api/account/bots", {"name": "ann-bot"})
        assert (status, error["code"]) == (409, "name-taken")
        for bad, code, params in (("my bot!", "name-invalid", {"name": "my bot!"}),
                                  ("House:x", "name-reserved", {"prefix": "house:"})):
            status, error = await bob.post("/api/account/bots", {"name": bad})
            assert (status, error["code"], error["reason_code"]) == (400, "bad-request", code)
            assert error["reason_params"] == params, bad
        assert (await ann.post("/api/account/bots", {"name": "ann-two"}))[0] == 200
        status, error = await ann.post("/api/account/bots", {"name": "ann-three"})
        assert (status, error["code"]) == (409, "limit-reached")
        assert "at most 2 bots" in error["message"]
        assert (error["reason_code"], error["reason_params"]) == ("bots-limit", {"most": 2})
        # the token: rotated by its owner only; the old one stops working
        status, error = await bob.post("/api/account/bots/ann-bot/token")
        assert (status, error["code"]) == (404, "unknown-bot")
        status, rotated = await ann.post("/api/account/bots/ann-bot/token")
        assert status == 200 and rotated["token"] != made["token"]
        assert await storage.authenticate(made["token"]) is None
        assert (await storage.authenticate(rotated["token"])).name == "ann-bot"  # type: ignore[union-attr]
        # a game of version 1 with debug lines of both seats
        record = MatchRecord(game="sim", settings={"vertices": 5}, players=("ann-bot", "rival"),
                             turns=(), outcome=Outcome(0, None, Termination.NORMAL), seed=1,
                             id="g1", notes=(Note(0, 0, "mine"), Note(1, 1, "theirs")))
        await storage.start_game(replace(record, outcome=None, notes=()), ladder=False,
                                 pair=None)
        await storage.finish_game(record)
        status, error = await ann.post("/api/account/bots/ann-bot/versions",
                                       {"note": "x" * 201})
        assert status == 400 and "200 characters" in error["message"]
        status, version = await ann.post("/api/account/bots/ann-bot/versions",
                                         {"note": "deeper"})
        assert (status, version["version"], version["note"]) == (200, 2, "deeper")
        status, error = await ann.post("/api/account/bots/ann-two/versions", {"note": ""})
        assert (status, error["code"]) == (409, "limit-reached")  # one a day, of all bots
        assert (error["reason_code"], error["reason_params"]) == ("versions-limit", {"most": 1})
        status, listed = await ann.get("/api/account/bots/ann-bot/versions")
        assert [(v["version"], v["games"]) for v in listed["versions"]] == [(1, 1), (2, 0)]
        status, games = await ann.get("/api/account/bots/ann-bot/games")
        assert [(g["id"], g["version"]) for g in games["games"]] == [("g1", 1)]
        status, lines = await ann.get("/api/account/bots/ann-bot/games/g1/debug")
        assert lines["seats"] == [0] and lines["lines"] == [{"turn": 0, "seat": 0,
                                                             "text": "mine"}]
        assert (await bob.get("/api/account/bots/ann-bot/games/g1/debug"))[0] == 404
        assert (await ann.get("/api/account/bots/ann-two/games/g1/debug"))[0] == 404
        status, mine = await ann.get("/api/account/bots")
        assert [(b["name"], b["version"], b["connected"]) for b in mine["bots"]] == [
            ("ann-bot", 2, False), ("ann-two", 1, False)]


async def test_the_password_pool_refuses_beyond_its_queue() -> None:
    entered, release = threading.Event(), threading.Event()

    class Slow:
        def hash(self, password: str) -> str:
            entered.set()
            release.wait(30)
            return "hashed"

    passwords = Passwords(threads=1, queue=1, hasher=Slow())  # type: ignore[arg-type]
    try:
        first = asyncio.ensure_future(passwords.hash(PASSWORD))
        await wait_for(entered.is_set)
        with pytest.raises(HashingBusy, match="1 passwords"):
            await passwords.hash(PASSWORD)
        release.set()
        assert await first == "hashed"
        release.clear()
        entered.clear()
        release.set()
        assert await passwords.hash(PASSWORD) == "hashed"  # the slot is free again
    finally:
        release.set()
        passwords.close()


async def test_a_wrong_password_and_an_unknown_name_both_cost_a_check() -> None:
    passwords = Passwords()
    try:
        stored = await passwords.hash(PASSWORD)
        assert await passwords.verify(stored, PASSWORD)
        assert not await passwords.verify(stored, "wrong")
        assert not await passwords.verify(None, PASSWORD)
        assert not await passwords.verify("not a hash", PASSWORD)
    finally:
        passwords.close()


async def test_a_person_s_changes_a_minute_are_limited(make_arena) -> None:
    arena = await accounts_arena(make_arena, signup="open", changes_per_person_minute=2)
    async with browser(arena) as ann:
        await ann.post("/api/account/signup", {"name": "ann", "password": PASSWORD})
        assert (await ann.post("/api/account/bots", {"name": "ann-bot"}))[0] == 200
        assert (await ann.post("/api/account/bots/ann-bot/token"))[0] == 200
        status, error = await ann.post("/api/account/bots/ann-bot/versions", {"note": ""})
        assert (status, error["code"]) == (429, "rate-limited")
        assert "changes to your bots" in error["message"]
        assert (await ann.get("/api/account/bots"))[0] == 200  # reading is not a change


async def test_the_openapi_document_names_the_session_cookie(make_arena) -> None:
    arena = await accounts_arena(make_arena)
    async with browser(arena) as reader:
        status, document = await reader.get("/api/openapi.json")
    assert status == 200
    scheme = document["components"]["securitySchemes"]["session"]
    assert (scheme["type"], scheme["in"], scheme["name"]) == ("apiKey", "cookie", PERSON_COOKIE)
    paths = document["paths"]
    assert paths["/api/account/bots"]["post"]["security"] == [{"session": []}]
    assert paths["/api/account/bots/{bot}/games/{id}/debug"]["get"]["security"] == [
        {"session": []}]
    assert "security" not in paths["/api/account/signin"]["post"]
    assert "401" in paths["/api/account/bots"]["get"]["responses"]
