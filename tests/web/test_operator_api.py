"""The operators' endpoints (/api/operator/...): an operator (a person with the flag)
reads people, bots, running games and the storage's health; a person who is not one,
and a browser signed in as nobody, get 403 ``not-operator``."""

from __future__ import annotations

from dataclasses import replace

from arena.game import Outcome, Termination
from arena.passwords import Passwords
from arena.record import MatchRecord
from tests.web.test_accounts_api import PASSWORD, accounts_arena, browser

ENDPOINTS = ("/api/operator/people", "/api/operator/bots", "/api/operator/games",
             "/api/operator/health")


async def test_an_operator_sees_people_bots_games_and_health_and_nobody_else_does(
        make_arena) -> None:
    arena = await accounts_arena(make_arena)
    storage = arena.server.storage
    hashed = Passwords().hash_now(PASSWORD)
    await storage.add_person("olga", hashed, operator=True)
    await storage.add_person("ann", hashed)
    await arena.client("solo")  # an operator's bot account, connected
    guest_name, _ = await storage.add_guest(3600)
    record = MatchRecord(game="sim", settings={"vertices": 5}, players=("solo", "rival"),
                         turns=(), outcome=None, seed=1, id="g1")
    await storage.start_game(record, ladder=False, pair=None)
    await storage.start_game(replace(record, id="g2"), ladder=False, pair=None)
    await storage.finish_game(replace(record, id="g2",
                                      outcome=Outcome(0, None, Termination.NORMAL)))
    async with browser(arena) as guest, browser(arena) as ann, browser(arena) as olga:
        for path in ENDPOINTS:
            status, error = await guest.get(path)
            assert (status, error["code"]) == (403, "not-operator"), path
            assert "sign in" in error["message"]
        assert (await ann.post("/api/account/signin", {"name": "ann", "password": PASSWORD}))[0] == 200
        assert (await ann.post("/api/account/bots", {"name": "ann-bot"}))[0] == 200
        assert (await ann.get("/api/account/me"))[1]["operator"] is False
        for path in ENDPOINTS:
            status, error = await ann.get(path)
            assert (status, error["code"]) == (403, "not-operator"), path
            assert "ann is not an operator" in error["message"]
        assert (await olga.post("/api/account/signin", {"name": "olga",
                                                        "password": PASSWORD}))[0] == 200
        assert (await olga.get("/api/account/me"))[1]["operator"] is True
        status, people = await olga.get("/api/operator/people")
        assert status == 200 and people["operator"] == "olga"
        assert [(p["name"], p["bots"], p["operator"]) for p in people["people"]] == [
            ("ann", 1, False), ("olga", 0, True)]
        status, bots = await olga.get("/api/operator/bots")
        listed = {b["name"]: b for b in bots["bots"]}
        assert guest_name not in listed and bots["guests"] == 1  # counted, not listed
        assert (listed["ann-bot"]["owner"], listed["ann-bot"]["version"],
                listed["ann-bot"]["connected"]) == ("ann", 1, False)
        assert (listed["solo"]["owner"], listed["solo"]["version"],
                listed["solo"]["connected"]) == (None, None, True)
        status, games = await olga.get("/api/operator/games")
        assert [(g["id"], g["status"], g["here"]) for g in games["games"]] == [
            ("g1", "running", False)]
        status, health = await olga.get("/api/operator/health")
        assert status == 200 and health["status"] == "ok" and "solo" in health["connected_bots"]
        assert health["storage"].endswith("arena.sqlite") and health["disk"]["free"] > 0
        assert health["resumed_games"] == 0
        # taking the flag away takes effect at the next request
        assert await storage.set_operator("olga", False)
        status, error = await olga.get("/api/operator/people")
        assert (status, error["code"]) == (403, "not-operator")


async def test_the_openapi_document_lists_the_operator_endpoints(make_arena) -> None:
    arena = await accounts_arena(make_arena)
    async with browser(arena) as reader:
        status, document = await reader.get("/api/openapi.json")
    assert status == 200
    for path in ENDPOINTS:
        operation = document["paths"][path]["get"]
        assert operation["security"] == [{"session": []}] and "403" in operation["responses"]
