"""Hosted bots on a server (`arena.server.hosted`, `arena.web.endpoints.builds`): programs
uploaded over HTTP are built in the sandbox, their logs kept for their owners; the
server plays each bot with a current build on its ladder under its account name. A
hostile program loses only its own games, the honest games between the others end
normally, games wait for hosted slots, and once the server is closed nothing of any
sandbox is left."""

from __future__ import annotations

import asyncio
import io
import zipfile
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.config import AccountsConfig, HostedConfig
from arena.sandbox.spec import UploadLimits
from arena.server import LadderConfig, TimeControl
from arena.server.hosted import STDERR_BYTES
from clients.sdk import ArenaClient, BuiltinBot, Turn
from tests.server.conftest import make_arena  # noqa: F401 - the fixture
from tests.waiting import wait_for

from .conftest import BOTS, HOSTILE, leftovers

pytestmark = pytest.mark.usefixtures("no_leftovers")

LADDER_CLOCK = TimeControl(move_ms=5000, bank_ms=5000, first_move_ms=10_000, grace_ms=1000)
"""Time enough for honest hosted bots on a loaded machine; a hostile one that stalls
loses within 15 s."""


def _zip(files: dict[str, str]) -> bytes:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return data.getvalue()


HONEST = {name: (BOTS / "python" / name).read_text() for name in ("bot.py", "moves.py")}


class Api:
    """The HTTP API of a test server, with tokens."""

    def __init__(self, session: aiohttp.ClientSession, port: int) -> None:
        self.session = session
        self.base = f"http://127.0.0.1:{port}"

    async def upload(self, token: str | None, name: str, body: bytes | aiohttp.FormData,
                     lang: str | None = "python", **headers: str) -> tuple[int, dict[str, Any]]:
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        query = f"?lang={lang}" if lang else ""
        async with self.session.post(f"{self.base}/api/bots/{name}/builds{query}", data=body,
                                     headers=headers) as response:
            return response.status, await response.json()

    async def get(self, token: str | None, path: str) -> tuple[int, dict[str, Any]]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with self.session.get(self.base + path, headers=headers) as response:
            return response.status, await response.json()

    async def built(self, token: str, name: str, build_id: str) -> dict[str, Any]:
        """The build once finished."""
        async def done() -> dict[str, Any] | None:
            status, build = await self.get(token, f"/api/bots/{name}/builds/{build_id}")
            assert status == 200, build
            return build if build["status"] != "building" else None
        return await wait_for(done, 60, f"build {build_id} finished")  # type: ignore[no-any-return]


async def test_uploads_over_http_are_built_and_their_logs_kept_for_their_owners(
        make_arena: Any, builds: Path, tmp_path: Path) -> None:  # noqa: F811
    arena = await make_arena(hosted=HostedConfig(
        directory=str(builds / "hosted-http"), upload=UploadLimits(archive_bytes=100_000)))
    operator = await arena.add_bot("runner", operator=True)
    alice = await arena.add_bot("alice")
    bob = await arena.add_bot("bob")
    async with aiohttp.ClientSession() as session:
        api = Api(session, arena.server.port)
        status, build = await api.upload(operator, "alice", _zip(HONEST))
        assert status == 202 and build["status"] == "building", build
        assert build["speaks"] == "lines"  # the default: a line program
        done = await api.built(alice, "alice", build["id"])
        assert done["status"] == "ok" and "compileall" in done["log"], done
        status, listed = await api.get(operator, "/api/bots/alice/builds")
        assert status == 200 and listed["current"] == build["id"]
        assert [b["id"] for b in listed["builds"]] == [build["id"]]
        assert "log" not in listed["builds"][0]

        form = aiohttp.FormData()
        form.add_field("file", b"int main(void) { return undeclared; }\n", filename="bot.c")
        status, broken = await api.upload(operator, "alice", form, "c")
        assert status == 202
        failed = await api.built(alice, "alice", broken["id"])
        assert failed["status"] == "failed" and "exit status 1" in failed["detail"]
        assert (failed["detail_code"], failed["detail_params"]) == ("build-exit", {"status": 1})
        assert "undeclared" in failed["log"]
        _, listed = await api.get(alice, "/api/bots/alice/builds")
        assert listed["current"] == build["id"]  # a failed build changes nothing

        status, bad = await api.upload(operator, "alice", b"PK\x03\x04" + b"\0" * 40)
        assert status == 202
        refused = await api.built(alice, "alice", bad["id"])
        assert refused["status"] == "failed" and "refused" in refused["detail"]
        assert (refused["detail_code"], refused["detail_params"]) == ("source-not-zip", {})
        _, listed = await api.get(alice, "/api/bots/alice/builds")
        assert [b["detail_code"] for b in listed["builds"]] == ["source-not-zip", "build-exit", None]

        # who may read and upload
        assert (await api.get(bob, f"/api/bots/alice/builds/{build['id']}"))[0] == 403
        assert (await api.get(None, "/api/bots/alice/builds"))[0] == 401
        assert (await api.get("nonsense", "/api/bots/alice/builds"))[0] == 401
        assert (await api.get(alice, "/api/bots/alice/builds/nope"))[0] == 404
        status, error = await api.upload(alice, "alice", _zip(HONEST))
        assert status == 403 and error["code"] == "forbidden"
        assert (await api.upload(None, "alice", _zip(HONEST)))[0] == 401

        # refused before the body is read
        status, error = await api.upload(operator, "alice", _zip(HONEST), "cobol")
        assert status == 400 and "unknown language 'cobol'" in error["message"]
        assert error["code"] == "bad-upload" and error["reason_code"] == "upload-lang", error
        assert error["reason_params"]["lang"] == "cobol"
        async with session.post(f"{api.base}/api/bots/alice/builds?lang=python&speaks=smoke",
                                data=_zip(HONEST),
                                headers={"Authorization": f"Bearer {operator}"}) as answer:
            error = await answer.json()
            assert answer.status == 400 and "not 'smoke'" in error["message"], error
        status, error = await api.upload(operator, "alice", _zip(HONEST), None)
        assert status == 400 and "?lang=" in error["message"]
        assert error["reason_code"] == "upload-no-lang", error
        status, error = await api.upload(operator, "nobody", _zip(HONEST))
        assert status == 400 and "no bot account 'nobody'" in error["message"]
        assert (error["reason_code"], error["reason_params"]) == ("upload-no-account", {"bot": "nobody"})
        status, error = await api.upload(operator, "alice", b"x" * 100_001)
        assert status == 413 and error["code"] == "too-large"
        assert (error["reason_code"], error["reason_params"]) == ("upload-too-large", {"mib": "0.0954"})

        async def chunked() -> Any:
            for _ in range(20):
                yield b"#" * 10_000

        status, error = await api.upload(operator, "alice", chunked())  # type: ignore[arg-type]
        assert status == 413 and "100000 bytes" in error["message"]
        assert error["reason_code"] == "upload-too-large", error
        status, error = await api.upload(operator, "alice", b"")
        assert status == 400 and "empty" in error["message"]
        assert (error["code"], error["reason_code"]) == ("bad-upload", "upload-empty")
        form = aiohttp.FormData()
        form.add_field("program", b"print(1)\n", filename="bot.py")
        status, error = await api.upload(operator, "alice", form)
        assert status == 400 and (error["code"], error["reason_code"]) == ("bad-upload", "upload-no-file")
        status, spec = await api.get(None, "/api/openapi.json")
        body = spec["paths"]["/api/bots/{name}/builds"]["post"]["requestBody"]["content"]
        assert set(body) == {"application/octet-stream", "multipart/form-data"}
        params = spec["paths"]["/api/bots/{name}/builds"]["post"]["parameters"]
        assert {"lang", "speaks"} <= {param["name"] for param in params}
    assert list((builds / "hosted-http" / ".incoming").iterdir()) == []


async def test_a_person_uploads_for_their_own_bot_within_their_budgets(
        make_arena: Any, builds: Path) -> None:  # noqa: F811
    arena = await make_arena(
        hosted=HostedConfig(directory=str(builds / "hosted-person")),
        accounts=AccountsConfig(signup="open", builds_per_day=2, versions_per_day=1))
    operator = await arena.add_bot("runner", operator=True)
    await arena.add_bot("alice")
    base = f"http://127.0.0.1:{arena.server.port}"
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
        api = Api(session, arena.server.port)

        async def upload(body: bytes, name: str = "ann-bot", lang: str = "python",
                         **headers: str) -> tuple[int, dict[str, Any]]:
            return await api.upload(None, name, body, lang, **headers)

        async def built(build_id: str) -> dict[str, Any]:
            async def done() -> dict[str, Any] | None:
                status, build = await api.get(None, f"/api/bots/ann-bot/builds/{build_id}")
                assert status == 200, build
                return build if build["status"] != "building" else None
            return await wait_for(done, 60, f"build {build_id} finished")  # type: ignore[no-any-return]

        assert (await upload(_zip(HONEST)))[0] == 401  # nobody signed in
        async with session.post(f"{base}/api/account/signup",
                                json={"name": "ann", "password": "a long enough secret"}) as answer:
            assert answer.status == 200
        async with session.post(f"{base}/api/account/bots", json={"name": "ann-bot"}) as answer:
            assert answer.status == 200
        status, error = await upload(_zip(HONEST), "alice")
        assert status == 403 and error["code"] == "forbidden"  # not her bot
        assert (await api.get(None, "/api/bots/alice/builds"))[0] == 403
        status, error = await upload(_zip(HONEST), Origin="http://evil.example")
        assert status == 403 and error["code"] == "cross-site"

        status, broken = await upload(b"int main(void) { return undeclared; }\n", lang="c")
        assert status == 202, broken
        assert (await built(broken["id"]))["status"] == "failed"
        status, build = await upload(_zip(HONEST))
        assert status == 202, build
        assert (await built(build["id"]))["status"] == "ok"
        status, listed = await api.get(None, "/api/bots/ann-bot/builds")
        assert status == 200 and listed["current"] == build["id"]
        status, versions = await api.get(None, "/api/account/bots/ann-bot/versions")
        assert [(v["version"], v["note"]) for v in versions["versions"]] == [
            (1, ""), (2, f"build {build['id']} (python)")]  # the failed build is none

        status, error = await upload(_zip(HONEST))  # her third upload of the day
        assert status == 429 and error["code"] == "build-budget", error
        assert "at most 2 programs a day" in error["message"]
        status, error = await api.upload(operator, "ann-bot", _zip(HONEST))
        assert status == 409 and error["code"] == "limit-reached", error  # before building
        assert error["reason_code"] == "versions-limit", error  # a page's words for it
        assert "1 versions" in error["message"]
        _, listed = await api.get(None, "/api/bots/ann-bot/builds")
        assert len(listed["builds"]) == 2


async def test_a_server_that_hosts_nothing_says_so(make_arena: Any) -> None:  # noqa: F811
    arena = await make_arena()
    operator = await arena.add_bot("runner", operator=True)
    async with aiohttp.ClientSession() as session:
        status, error = await Api(session, arena.server.port).upload(operator, "alice", b"x")
    assert status == 404 and error["code"] == "not-hosting"


def _hostile_source(tmp_path: Path, name: str, port: int) -> Path:
    """The hostile program `name` as an upload, its argument written in (the server's
    port; ``huge_output:stderr``: what it floods)."""
    name, _, argument = name.partition(":")
    source = tmp_path / f"source-{name}"
    source.mkdir()
    text = (HOSTILE / f"{name}.py").read_text().replace("int(sys.argv[1])", str(port))
    text = text.replace("sys.argv[1]", repr(argument))
    (source / "bot.py").write_text(text)
    return source


@pytest.mark.parametrize("name", ["fork_bomb", "memory_bomb", "infinite_loop", "daemon",
                                  "connect", "huge_output:stderr"])
async def test_a_hostile_upload_loses_only_its_own_ladder_games(
        make_arena: Any, builds: Path, tmp_path: Path, name: str) -> None:  # noqa: F811
    arena = await make_arena(
        ladder=LadderConfig(game="sim", settings={"vertices": 6}, interval=0.05, seed=3),
        time_control=LADDER_CLOCK, hosted=HostedConfig(directory=str(builds / f"hosted-{name}")))
    server = arena.server
    assert server.uploads is not None and server.hosted is not None
    for account in ("honest-a", "honest-b", "hostile"):
        await arena.add_bot(account)
    for account in ("honest-a", "honest-b"):
        assert (await server.uploads.upload(account, BOTS / "python", "python")).status == "ok"
    hostile = await server.uploads.upload("hostile", _hostile_source(tmp_path, name, server.port),
                                         "python")
    assert hostile.status == "ok"
    await wait_for(lambda: {"honest-a", "honest-b", "hostile"} <= set(server.sessions),
                   what="the hosted bots are connected")
    assert all(server.sessions[account].hosted for account in ("honest-a", "honest-b", "hostile"))

    async def played() -> bool:
        theirs = await server.storage.games(bot="hostile", status="finished", limit=500)
        between = [g for g in await server.storage.games(bot="honest-a", status="finished",
                                                         limit=500)
                   if "hostile" not in g.players]
        return len(theirs) >= 2 and len(between) >= 2

    await wait_for(played, 180, f"{name}: games on the ladder")
    for game in await server.storage.games(bot="hostile", status="finished", limit=500):
        assert game.winner is not None and game.players[1 - game.winner] == "hostile", game
    for game in await server.storage.games(bot="honest-a", status="finished", limit=500):
        if "hostile" not in game.players:
            assert game.termination == "normal", game
    if name == "connect":  # what it found, in its standard error kept for its owner only
        [first, *_] = await server.storage.games(bot="hostile", status="finished", limit=1)
        text = await wait_for(lambda: server.storage.stderr(first.id, "hostile"),
                              what="its standard error is stored")
        assert f"REPORT refused 127.0.0.1:{server.port}" in text and "REPORT connected" not in text
        assert "the program ended" not in text  # it played on, and lost by its move
        stored = await server.storage.game(first.id)
        assert stored is not None and "REPORT" not in stored.log  # not in the public log
        owner = await server.storage.add_bot("hostile", replace=True)  # its owner reads it
        stranger = await arena.add_bot("stranger")
        async with aiohttp.ClientSession() as session:
            api = Api(session, server.port)
            path = f"/api/bots/hostile/games/{first.id}/stderr"
            status, answer = await api.get(owner, path)
            assert status == 200 and answer["stderr"] == text
            assert (await api.get(stranger, path))[0] == 403
    if name == "huge_output:stderr":  # its flood, kept within its bound
        [first, *_] = await server.storage.games(bot="hostile", status="finished", limit=1)
        text = await wait_for(lambda: server.storage.stderr(first.id, "hostile"),
                              what="its standard error is stored")
        assert len(text.encode()) <= STDERR_BYTES + 100 and "more lines not kept" in text
    assert server.health()["status"] == "ok"
    slots = server.hosted_slots
    assert slots is not None and 1 <= slots.peak <= slots.capacity
    await arena.close()
    await wait_for(lambda: leftovers()["processes"] == [], 30, "no process of any sandbox")


async def test_games_of_hosted_bots_wait_for_hosted_slots(
        make_arena: Any, builds: Path) -> None:  # noqa: F811
    arena = await make_arena(
        ladder=LadderConfig(game="sim", settings={"vertices": 6}, interval=0.05, seed=5,
                            pairings_per_hour=0),
        time_control=LADDER_CLOCK,
        hosted=HostedConfig(directory=str(builds / "hosted-slots"), slots=2))
    server = arena.server
    assert server.uploads is not None and server.hosted_slots is not None
    names = ("a", "b", "c", "d")
    for account in names:
        await arena.add_bot(account)
        assert (await server.uploads.upload(account, BOTS / "python", "python")).status == "ok"

    async def finished() -> bool:
        return len(await server.storage.games(status="finished", limit=100)) >= 8

    await wait_for(lambda: server.hosted_slots.waiting > 0,  # type: ignore[union-attr]
                   120, "a game waits for hosted slots")
    await wait_for(finished, 180, "games finished")
    assert server.hosted_slots.peak == 2
    for game in await server.storage.games(status="finished", limit=100):
        assert game.termination == "normal", game
    await arena.close()
    await wait_for(lambda: leftovers()["processes"] == [], 30, "no process of any sandbox")


async def test_an_operator_names_hosted_bots_in_a_game_like_connected_ones(
        make_arena: Any, builds: Path) -> None:  # noqa: F811
    """Challenges and tournaments (`arena tournament --remote`) request games by name:
    hosted bots answer to theirs."""
    arena = await make_arena(time_control=LADDER_CLOCK,
                             hosted=HostedConfig(directory=str(builds / "hosted-named")))
    server = arena.server
    assert server.uploads is not None
    for account in ("alice", "bob"):
        await arena.add_bot(account)
        assert (await server.uploads.upload(account, BOTS / "python", "python")).status == "ok"
    await wait_for(lambda: {"alice", "bob"} <= set(server.sessions), what="both hosted")
    record = await server.play_game("sim", {"vertices": 6}, ["alice", "bob"], seed=7)
    assert record.outcome is not None and record.outcome.termination.value == "normal"
    assert record.players == ("alice", "bob")
    await arena.close()
    await wait_for(lambda: leftovers()["processes"] == [], 30, "no process of any sandbox")


async def test_a_hosted_bots_debug_lines_and_stderr_are_its_owners_only(
        make_arena: Any, builds: Path, tmp_path: Path) -> None:  # noqa: F811
    source = tmp_path / "chatty"
    source.mkdir()
    for name, text in HONEST.items():
        (source / name).write_text(text)
    bot = source / "bot.py"
    bot.write_text(bot.read_text().replace(
        '    if keyword == "turn":\n',
        '    if keyword == "turn":\n        print("# secret plan", flush=True)\n'
        '        print("thinking aloud", file=sys.stderr, flush=True)\n'))
    arena = await make_arena(time_control=LADDER_CLOCK,
                             hosted=HostedConfig(directory=str(builds / "hosted-chatty")))
    server = arena.server
    assert server.uploads is not None
    for account in ("alice", "bob"):
        await arena.add_bot(account)
    assert (await server.uploads.upload("alice", source, "python")).status == "ok"
    assert (await server.uploads.upload("bob", BOTS / "python", "python")).status == "ok"
    await wait_for(lambda: {"alice", "bob"} <= set(server.sessions), what="both hosted")
    record = await server.play_game("sim", {"vertices": 6}, ["alice", "bob"], seed=3)
    assert record.outcome is not None and record.outcome.termination.value == "normal"
    text = await wait_for(lambda: server.storage.stderr(record.id, "alice"),
                          what="alice's output is stored")
    assert "# secret plan" in text and "thinking aloud" in text
    stored = await server.storage.game(record.id)
    assert stored is not None and "secret plan" not in stored.log
    assert "thinking aloud" not in stored.log
    await arena.close()


async def test_a_program_its_author_connects_takes_precedence_over_the_hosted_one(
        make_arena: Any, builds: Path) -> None:  # noqa: F811
    arena = await make_arena(hosted=HostedConfig(directory=str(builds / "hosted-author"),
                                                 refresh_interval=0.05))
    server = arena.server
    assert server.uploads is not None and server.hosted is not None
    await arena.add_bot("alice")
    assert (await server.uploads.upload("alice", BOTS / "python", "python")).status == "ok"
    await wait_for(lambda: "alice" in server.sessions and server.sessions["alice"].hosted,
                   what="alice hosted")
    token = await server.storage.add_bot("alice", replace=True)  # its author's own program
    own = ArenaClient(server.url, token, BuiltinBot("random"), reconnect_delay=0.05)
    task = asyncio.create_task(own.run())
    try:
        await wait_for(lambda: "alice" in server.sessions and not server.sessions["alice"].hosted,
                       what="its author's program replaced the hosted one")
        seen = server.hosted.refreshes
        await wait_for(lambda: server.hosted.refreshes >= seen + 5,  # type: ignore[union-attr]
                       what="the runner looked again, several times")
        assert not server.sessions["alice"].hosted and own.connected.is_set()
    finally:
        await own.stop()
        await task
    await wait_for(lambda: "alice" in server.sessions and server.sessions["alice"].hosted,
                   what="hosted again once its author's program left")
    await arena.close()


async def test_a_program_its_author_connects_to_another_gateway_takes_precedence_too(
        make_arena: Any, builds: Path) -> None:  # noqa: F811
    arena = await make_arena(hosted=HostedConfig(directory=str(builds / "hosted-elsewhere"),
                                                 refresh_interval=0.05))
    server = arena.server
    assert server.uploads is not None and server.hosted is not None
    elsewhere = {"alice"}  # what the other gateways' presence says (arena.cluster.elsewhere)
    server.taken_elsewhere = elsewhere.__contains__
    await arena.add_bot("alice")
    assert (await server.uploads.upload("alice", BOTS / "python", "python")).status == "ok"
    seen = server.hosted.refreshes
    await wait_for(lambda: server.hosted.refreshes >= seen + 5,  # type: ignore[union-attr]
                   what="the runner looked again, several times")
    assert "alice" not in server.sessions and "alice" not in server.hosted.bots
    elsewhere.clear()  # its author's program left
    await wait_for(lambda: "alice" in server.sessions and server.sessions["alice"].hosted,
                   what="hosted once its author's program left")
    await arena.close()


async def test_a_game_that_ends_while_it_waits_for_slots_leaves_the_queue(
        make_arena: Any, builds: Path) -> None:  # noqa: F811
    arena = await make_arena(time_control=LADDER_CLOCK,
                             hosted=HostedConfig(directory=str(builds / "hosted-queue"), slots=1))
    server = arena.server
    slots = server.hosted_slots
    assert server.uploads is not None and slots is not None
    for account in ("alice", "bob"):
        await arena.add_bot(account)
        assert (await server.uploads.upload(account, BOTS / "python", "python")).status == "ok"
    await wait_for(lambda: {"alice", "bob"} <= set(server.sessions), what="both hosted")
    async with slots.hold(1):  # the machine is busy
        live = server.start_game("sim", {"vertices": 6}, ["alice", "bob"])
        await wait_for(lambda: slots.waiting == 1, what="the game waits for a slot")
        assert not live.over
        server.games.abort(live, "the operator changed its mind")
        record = await asyncio.wait_for(asyncio.shield(server.games.task_of(live)), 20)
        assert record.outcome is not None and "changed its mind" in (record.outcome.detail or "")
        assert slots.waiting == 0 and slots.used == 1
    assert slots.used == 0
    await arena.close()


async def test_a_game_resumed_after_a_restart_holds_hosted_slots_like_a_new_one(
        make_arena: Any, builds: Path) -> None:  # noqa: F811
    hosted = HostedConfig(directory=str(builds / "hosted-resumed"), slots=2)
    arena = await make_arena(time_control=LADDER_CLOCK, hosted=hosted)
    server = arena.server
    slots = server.hosted_slots
    assert server.uploads is not None and slots is not None
    for account in ("alice", "bob"):
        await arena.add_bot(account)
        assert (await server.uploads.upload(account, BOTS / "python", "python")).status == "ok"
    await wait_for(lambda: {"alice", "bob"} <= set(server.sessions), what="both hosted")
    async with slots.hold(2):  # the machine is busy: the game is stored, not begun
        live = server.start_game("sim", {"vertices": 6}, ["alice", "bob"])
        await wait_for(lambda: slots.waiting == 1, what="the game waits for its slots")
        await arena.close()  # it stays running in storage
    again = await make_arena(time_control=LADDER_CLOCK, hosted=hosted)
    resumed = again.server
    assert resumed.hosted_slots is not None and live.id in resumed.games.live

    async def finished() -> Any:
        game = await resumed.storage.game(live.id)
        return game if game is not None and game.status != "running" else None

    game = await wait_for(finished, 120, "the resumed game finished")
    assert game.termination == "normal", game
    assert resumed.hosted_slots.peak == 2  # its two hosted seats held a slot each
    await again.close()


async def test_an_upload_from_the_command_line_is_played_by_a_running_server(
        make_arena: Any, builds: Path) -> None:  # noqa: F811
    hosted = builds / "hosted-cli-server"
    arena = await make_arena(hosted=HostedConfig(directory=str(hosted), refresh_interval=0.1))
    server = arena.server
    await arena.add_bot("alice")
    result = await asyncio.to_thread(
        CliRunner().invoke, main, ["bots", "upload", "alice", str(BOTS / "python"), "--lang",
                                   "python", "--db", server.config.db, "--hosted-dir",
                                   str(hosted)])
    assert result.exit_code == 0, result.output
    await wait_for(lambda: "alice" in server.sessions and server.sessions["alice"].hosted,
                   what="the server hosts the build it read from the database")
    await arena.close()


CPU_LADDER_CLOCK = TimeControl(move_ms=150, bank_ms=0, first_move_ms=5000, grace_ms=1000,
                               kind="cpu")
"""Time for a program to start on its first move; 150 ms of CPU time on each later one
(within a wall-time ceiling of 10.15 s)."""


def _timing_source(tmp_path: Path, how: str, milliseconds: int) -> Path:
    """tests/sandbox/bots/timing.py as an upload: `how` (``sleep``, ``burn``) written in."""
    source = tmp_path / f"source-{how}"
    source.mkdir()
    text = (BOTS / "timing.py").read_text().replace(
        "sys.argv[1], int(sys.argv[2])", f"{how!r}, {milliseconds}")
    (source / "bot.py").write_text(text)
    return source


class _SlowBot(BuiltinBot):
    """A connected bot that waits 400 ms of wall time (no CPU time) before each move."""

    async def move(self, turn: Turn) -> str:  # type: ignore[override]
        await asyncio.sleep(0.4)
        return str(super().move(turn))


async def test_a_cpu_ladder_times_hosted_bots_by_cpu_time_and_connected_ones_by_wall_time(
        make_arena: Any, builds: Path, tmp_path: Path) -> None:  # noqa: F811
    arena = await make_arena(
        ladder=LadderConfig(game="sim", settings={"vertices": 6}, interval=0.05, seed=3,
                            time_control=CPU_LADDER_CLOCK),
        hosted=HostedConfig(directory=str(builds / "hosted-cpu-clock")))
    server = arena.server
    assert server.uploads is not None
    for account, how in (("sleeper", "sleep"), ("burner", "burn")):
        await arena.add_bot(account)
        upload = await server.uploads.upload(account, _timing_source(tmp_path, how, 400),
                                             "python")
        assert upload.status == "ok", upload
    token = await arena.add_bot("connected")
    connected = ArenaClient(server.url, token, _SlowBot("sim-random"), reconnect_delay=0.05)
    task = asyncio.create_task(connected.run())
    try:
        async def met() -> bool:
            games = await server.storage.games(status="finished", limit=100)
            for game in games:  # checked as they come: a wrong loser fails at once
                assert game.termination == "timeout", game  # one of them was too slow
                loser = game.players[1 - game.winner]
                # 400 ms of sleep a move: far over 150 ms, yet the sleeper never loses
                assert loser != "sleeper", game
                if loser == "burner":  # 400 ms of CPU time a move: over its 150 ms of it
                    assert "150 ms and its 0 ms bank of CPU time on turn" in game.reason, game
                else:  # the connected bot's 400 ms of wall time, on the wall clock
                    assert game.reason.startswith(
                        "connected used 150 ms and its 0 ms bank on turn"), game
            # every two of them played, and the sleeper made a move after its first
            pairs = {frozenset(game.players) for game in games}
            return len(pairs) == 3 and any(
                (game.turns + 1 - game.players.index("sleeper")) // 2 >= 2
                for game in games if "sleeper" in game.players)

        await wait_for(met, 120, "each pair played on the ladder")
    finally:
        await connected.stop()
        await task
    await arena.close()
    await wait_for(lambda: leftovers()["processes"] == [], 30, "no process of any sandbox")
