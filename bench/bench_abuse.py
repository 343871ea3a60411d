"""Attacks on a live server while honest bots play: what each costs the honest.

Starts `arena serve` in a subprocess with its default limits. Honest bots (SDK random
players, from 127.0.0.1) play games an operator keeps in flight, on the default time
control. Each attack then runs for `--seconds` from another address (127.0.0.2), and
the bench prints per attack:

* the worst event-loop stall: the longest `/healthz` answer, polled every 10 ms by a
  separate process (target < 100 ms); on a machine others share this includes the
  server waiting for a core, so the bench also prints the most CPU any one event-loop
  callback used (`bench/loopwatch.py`): what the server's own code blocked it for;
* the server's RSS growth: its largest RSS during the attack (and until the attack's
  connections are gone) minus its RSS before (target < 50 MiB);
* the honest games lost: games of the honest bots that did not end normally (a
  timeout, a disconnect...) while the attack ran, and honest bots dropped (target 0);
* what the server answered (the attack's own note).

    python bench/bench_abuse.py [--seconds 5] [--honest 8] [--attack NAME ...]

Adding an attack: write ``async def my_attack(ctx: Context) -> str`` (attack for
``ctx.seconds``; connect from ``ctx.attacker_address``, over HTTP with ``ctx.session()``;
return a one-line note of what the server answered) and add it to `ATTACKS`.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import multiprocessing
import os
import random
import sys
import tempfile
import time
import urllib.request
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import aiohttp
from harness import ROOT, arena_server, free_port, memory_kib
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from arena.games.substitution import Settings
from arena.record import read_jsonl, to_jsonl
from arena.storage.sqlite import SQLiteDatabase
from clients.operator import Operator
from clients.sdk import ArenaClient, BuiltinBot
from protocol import PROTOCOL_VERSION, Encoding, RemoteError

ATTACKER = "127.0.0.2"
"""Attackers connect from here (another address than the honest bots' 127.0.0.1)."""
HONEST_SETTINGS = Settings.preset("medium", 20).to_json()


def monitor(port: int, pid: int, pipe: Connection) -> None:
    """A separate process: poll /healthz every 10 ms and the server's RSS; on each
    request from `pipe`, answer the worst latency and the largest RSS since the last."""
    worst, top = 0.0, 0
    url = f"http://127.0.0.1:{port}/healthz"
    while True:
        if pipe.poll():
            if pipe.recv() == "stop":
                return
            pipe.send((worst, top))
            worst, top = 0.0, 0
        started = time.perf_counter()
        with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=30) as reply:
            reply.read()
        worst = max(worst, time.perf_counter() - started)
        with contextlib.suppress(OSError):
            top = max(top, memory_kib(pid)[0])
        time.sleep(0.01)


@dataclass
class Context:
    """What an attack gets: the server, accounts it may use, how long to attack."""

    url: str
    http: str
    seconds: float
    operator: Operator
    tokens: dict[str, str]
    """Accounts for the attacker: ``attacker0``... (bots), ``attack-operator``."""
    honest_games: list[str] = field(default_factory=list)
    """Ids of honest games in flight (to spectate)."""
    db: str = ""
    """The server's database (SQLite): the uploaded attacks revoke their accounts in it."""
    attacker_address: str = ATTACKER

    async def connect(self, encoding: Encoding = Encoding.JSON) -> ClientConnection:
        return await connect(self.url, subprotocols=[encoding.subprotocol],  # type: ignore[list-item]
                             compression=None, ping_interval=None, max_size=None,
                             local_addr=(self.attacker_address, 0), open_timeout=30)

    def session(self) -> aiohttp.ClientSession:
        """An HTTP client connecting from the attacker's address."""
        connector = aiohttp.TCPConnector(local_addr=(self.attacker_address, 0), limit=8)
        return aiohttp.ClientSession(self.http, connector=connector,
                                     timeout=aiohttp.ClientTimeout(total=60))

    async def hello(self, ws: ClientConnection, token: str | None = None,
                    role: str = "bot") -> dict[str, Any]:
        fields: dict[str, Any] = {"type": "hello", "protocol": PROTOCOL_VERSION, "role": role}
        if token is not None:
            fields["token"] = token
        await ws.send(json.dumps(fields))
        answer = json.loads(await ws.recv())
        assert isinstance(answer, dict)
        return answer


Attack = Callable[[Context], Awaitable[str]]


# -- the attacks ----------------------------------------------------------------------------


async def no_attack(ctx: Context) -> str:
    """The baseline: honest play only (what the machine's own noise looks like)."""
    await asyncio.sleep(ctx.seconds)
    return "honest play only: the stall and RSS figures of a quiet server on this machine"


async def heavy_house_bots(ctx: Context) -> str:
    """Finding 2: games whose house bots search hard (at the settings limits), and
    settings beyond them. The searches run in worker processes on their clocks."""
    heavy = [
        ("heaps", {"rules": {"heaps": 2, "end": {"measure": "sum", "at_least": 1000},
                             "moves": {"any": ["+1", "*2"]}}, "start": [1, 1]}, "heaps-perfect"),
        ("heaps", {"rules": {"heaps": 1, "end": {"measure": "sum", "at_least": 1_000_000},
                             "moves": {"any": ["+1", "*2"]}}, "start": [1]}, "heaps-perfect"),
        ("durak", {"cards": "0110" * 8}, "durak-perfect"),
    ]
    refused = played = 0
    deadline = time.perf_counter() + ctx.seconds

    async def one(game: str, settings: dict[str, Any], bot: str) -> None:
        nonlocal played
        await ctx.operator.play_log(game, settings, [f"house:{bot}", f"house:{bot}"])
        played += 1

    tasks = [asyncio.create_task(one(*spec)) for spec in heavy]
    for settings in ({"rules": {"heaps": 2, "end": {"measure": "sum", "at_least": 50_000},
                                "moves": {"any": ["+1", "*2"]}}, "start": [1, 1]},):
        try:
            await ctx.operator.play_log("heaps", settings, ["house:heaps-perfect"] * 2)
        except RemoteError:
            refused += 1
    await asyncio.sleep(max(0.0, deadline - time.perf_counter()))
    thinking = sum(1 for task in tasks if not task.done())
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return (f"{played} heavy house games over, {thinking} still playing at the end; "
            f"{refused} beyond the limits refused")


async def state_bomb(ctx: Context) -> str:
    """Finding 3: a grammar whose derivations explode, watched by a spectator that
    never reads."""
    bomb = {"moves": 2000, "groups": [{"left": "S", "alternatives": ["S" * 200]}],
            "weights": [1]}
    log = await ctx.operator.play_log("substitution", bomb, ["house:random", "house:random"])
    record = read_jsonl(log.splitlines())
    assert record.outcome is not None
    return f"aborted after {len(record.turns)} turns: {record.outcome.detail[:70]}"


async def slow_readers(ctx: Context) -> str:
    """Finding 3: spectators that follow every honest game and never read."""
    viewers = []
    for game_id in ctx.honest_games[:20]:
        ws = await ctx.connect()
        await ctx.hello(ws, role="spectator")
        await ws.send(json.dumps({"type": "spectate", "game_id": game_id}))
        ws.transport.pause_reading()
        viewers.append(ws)
    await asyncio.sleep(ctx.seconds)
    dropped = 0
    for ws in viewers:
        ws.transport.resume_reading()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(5):
                while True:
                    await ws.recv()
        if ws.close_code == 1008:
            dropped += 1
        ws.transport.abort()
    return f"{len(viewers)} spectators stopped reading; {dropped} dropped as slow consumers"


async def message_flood(ctx: Context) -> str:
    """Finding 9: connections sending pings as fast as they can."""
    closed = sent = 0

    async def flood(token: str) -> None:
        nonlocal closed, sent
        ws = await ctx.connect()
        await ctx.hello(ws, token)
        frame = json.dumps({"type": "ping", "id": 1})
        deadline = time.perf_counter() + ctx.seconds
        reader = asyncio.create_task(ws.wait_closed())
        try:
            while time.perf_counter() < deadline and not reader.done():
                for _ in range(100):
                    await ws.send(frame)
                sent += 100
                await asyncio.sleep(0)
        except ConnectionClosed:
            pass
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(5):
                await ws.wait_closed()
        if time.perf_counter() < deadline:  # cut off before the attack was over
            closed += 1
        reader.cancel()
        ws.transport.abort()

    await asyncio.gather(*(flood(ctx.tokens[f"attacker{i}"]) for i in range(4)))
    return f"{sent} pings sent on 4 connections; {closed} cut off for their rate"


async def connection_flood(ctx: Context) -> str:
    """Finding 9: idle spectators from one address until the descriptors run out."""
    opened: list[ClientConnection] = []
    deadline = time.perf_counter() + ctx.seconds

    async def one() -> None:
        with contextlib.suppress(ConnectionClosed, InvalidStatus, OSError):
            ws = await ctx.connect()
            opened.append(ws)
            await ctx.hello(ws, role="spectator")

    for _ in range(10):  # 300 connections, 30 at a time
        await asyncio.gather(*(one() for _ in range(30)))
    await asyncio.sleep(max(0.0, deadline - time.perf_counter()))
    for ws in opened:
        ws.transport.abort()
    held = sum(1 for ws in opened if ws.close_code is None)
    return f"{held} connections held, {300 - held} refused (per-address limit)"


async def illegal_move_bombs(ctx: Context) -> str:
    """Finding 9: a bot that plays 200 KB illegal moves, game after game."""
    token = ctx.tokens["attacker0"]
    ws = await ctx.connect()
    await ctx.hello(ws, token)
    forfeits = 0
    bomb = "-1 0 0, " * 25_000
    deadline = time.perf_counter() + ctx.seconds

    async def play() -> None:
        nonlocal forfeits
        while True:
            data = json.loads(await ws.recv())
            if data["type"] == "your_turn":
                await ws.send(json.dumps({"type": "move", "game_id": data["game_id"],
                                          "turn": data["turn"], "move": bomb}))
            elif data["type"] == "game_over":
                forfeits += 1

    reader = asyncio.create_task(play())
    games = 0
    while time.perf_counter() < deadline:
        await ctx.operator.play_log("substitution", HONEST_SETTINGS, ["attacker0", "house:random"])
        games += 1
    reader.cancel()
    ws.transport.abort()
    return f"{games} games forfeited with 200 KB moves; stored reasons are quoted short"


async def oversize_frames(ctx: Context) -> str:
    """Frames above max_frame (an error each) and above the WebSocket limit (a close)."""
    ws = await ctx.connect()
    await ctx.hello(ws, ctx.tokens["attacker1"])
    errors = 0
    big = json.dumps({"type": "ping", "id": 1, "pad": "x" * 300_000})
    deadline = time.perf_counter() + ctx.seconds
    with contextlib.suppress(ConnectionClosed):
        while time.perf_counter() < deadline:
            await ws.send(big)
            errors += json.loads(await ws.recv())["code"] == "oversize"
    ws.transport.abort()
    return f"{errors} frames above max_frame answered 'oversize'"


class _Grow:
    """Rewrites the first S of its first word every turn: the word grows each time."""

    def choose_move(self, game: Any, state: Any, rng: random.Random) -> str:
        return "0 0 0" if state.move_number >= 2 else "-1 0 0"


def replay_bomb() -> str:
    """Finding 1's upload: 600 turns of the grammar ``S -> S x 1000`` (about 2 KB
    gzipped), about 300 MB of frames if replayed without limits."""
    from arena.games.substitution.game import SubstitutionGame
    from arena.games.substitution.grammar import Grammar
    from arena.match import Match

    game = SubstitutionGame(Settings(Grammar.from_text("S->" + "S" * 1000 + "\n"), 300))
    match = Match(game, ["a", "b"], seed=1, match_id="bomb")
    match.run([_Grow(), _Grow()], [random.Random(1), random.Random(2)])
    return to_jsonl(match.record())


async def _hammer(ctx: Context, send: Callable[[aiohttp.ClientSession], Awaitable[int]],
                  concurrency: int = 4) -> collections.Counter[int]:
    """Call `send` from `concurrency` tasks for the attack's seconds; the statuses."""
    statuses: collections.Counter[int] = collections.Counter()
    deadline = time.perf_counter() + ctx.seconds

    async def loop(session: aiohttp.ClientSession) -> None:
        while time.perf_counter() < deadline:
            try:
                statuses[await send(session)] += 1
            except (aiohttp.ClientError, OSError):
                statuses[0] += 1  # the server closed the connection on us

    async with ctx.session() as session:
        await asyncio.gather(*(loop(session) for _ in range(concurrency)))
    return statuses


def _counts(statuses: collections.Counter[int]) -> str:
    return ", ".join(f"{count} x {status or 'closed'}" for status, count in
                     sorted(statuses.items()))


async def replay_bombs(ctx: Context) -> str:
    """Finding 1: the replay bomb, uploaded again and again by 4 clients at once."""
    bomb = (await asyncio.to_thread(replay_bomb)).encode()

    async def send(session: aiohttp.ClientSession) -> int:
        async with session.post("/api/replay", data=bomb,
                                headers={"Content-Type": "text/plain"}) as reply:
            await reply.read()
            return reply.status

    statuses = await _hammer(ctx, send)
    return f"replays answered {_counts(statuses)} (400: replay-limit, 429: queue full)"


async def oversize_bodies(ctx: Context) -> str:
    """Uploads of 10 MB (declared) and JSON bodies of 1 MB, refused before they are read."""
    big_json = json.dumps({"text": "S->a" * 250_000}).encode()
    piece = b"x" * 65536
    host, port = ctx.http.removeprefix("http://").split(":")
    statuses: collections.Counter[int] = collections.Counter()
    deadline = time.perf_counter() + ctx.seconds

    async def upload() -> None:  # by hand: a client library would send all 10 MB first
        while time.perf_counter() < deadline:
            with contextlib.suppress(OSError):
                reader, writer = await asyncio.open_connection(
                    host, int(port), local_addr=(ctx.attacker_address, 0))
                writer.write(b"POST /api/replay HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
                             b"text/plain\r\nContent-Length: 10485760\r\n\r\n" + piece)
                head = await reader.readline()
                statuses[int(head.split()[1]) if head else 0] += 1
                writer.close()

    async def send(session: aiohttp.ClientSession) -> int:
        async with session.post("/api/grammars/check", data=big_json,
                                headers={"Content-Type": "application/json"}) as reply:
            await reply.read()
            return reply.status

    json_statuses, *_ = await asyncio.gather(_hammer(ctx, send, 2), upload(), upload())
    return f"10 MB uploads: {_counts(statuses)}; 1 MB JSON bodies: {_counts(json_statuses)}"


async def guest_flood(ctx: Context) -> str:
    """Finding 9: one client asks for guest accounts as fast as it can."""
    async def send(session: aiohttp.ClientSession) -> int:
        async with session.post("/api/guest") as reply:
            await reply.read()
            return reply.status

    statuses = await _hammer(ctx, send)
    return f"guest accounts: {_counts(statuses)} (the quota per client address)"


async def cross_site_posts(ctx: Context) -> str:
    """Finding 10 / issue 12: a foreign page's POSTs (a guest, a preset, a bot game)."""
    posts = [("/api/guest", {}), ("/api/grammars", {"name": "evil", "text": "S->a|b\n"}),
             ("/api/match", {"game": "sim", "settings": {"vertices": 5},
                             "bots": ["sim-random", "sim-random"]})]
    turn = 0

    async def send(session: aiohttp.ClientSession) -> int:
        nonlocal turn
        path, body = posts[turn % len(posts)]
        turn += 1
        async with session.post(path, json=body, headers={
                "Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}) as reply:
            await reply.read()
            return reply.status

    statuses = await _hammer(ctx, send)
    return f"cross-site POSTs: {_counts(statuses)}"


async def debug_line_flood(ctx: Context) -> str:
    """Issue 22, finding 2: two bots that write the most debug lines every turn (each of
    the longest size) of fast games, game after game, several at once, for the attack's
    seconds and on until both have been told their day's budget is spent (at most a
    minute more). What the database stores of them is bounded by the daily budget per
    bot (`welcome.limits`)."""
    names = ("attacker2", "attacker3")
    refused: collections.Counter[str] = collections.Counter()
    spent: set[str] = set()
    """The bots told their day's budget is spent."""
    stored: collections.Counter[str] = collections.Counter()
    sent: collections.Counter[str] = collections.Counter()
    budget = 0
    games = 0
    deadline = time.perf_counter() + ctx.seconds

    async def chatty(name: str, ready: asyncio.Event) -> None:
        nonlocal budget
        ws = await ctx.connect()
        await ws.send(json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION, "role": "bot",
                                  "token": ctx.tokens[name], "capabilities": ["legal-moves"]}))
        limits = json.loads(await ws.recv())["limits"]
        budget = limits["max_log_bytes_per_day"]
        text = "x" * limits["max_log_bytes"]  # the longest line kept
        ready.set()
        try:
            while True:
                data = json.loads(await ws.recv())
                if data["type"] == "your_turn":
                    frame = json.dumps({"type": "log", "game_id": data["game_id"], "text": text})
                    for _ in range(limits["max_logs_per_turn"]):
                        await ws.send(frame)
                    sent[name] += limits["max_logs_per_turn"] * len(text)
                    await ws.send(json.dumps({"type": "move", "game_id": data["game_id"],
                                              "turn": data["turn"], "move": data["legal"][0]}))
                elif data["type"] == "error":
                    refused[data["code"]] += 1
                    if data["code"] == "log-budget":
                        spent.add(name)
        finally:
            ws.transport.abort()

    def attacking() -> bool:
        now = time.perf_counter()
        return now < deadline or (len(spent) < len(names) and now < deadline + 60)

    async def games_between(first: str, second: str) -> None:
        nonlocal games
        while attacking():
            log = await ctx.operator.play_log("sim", {"vertices": 6}, [first, second])
            record = read_jsonl(log.splitlines())
            for note in record.notes:
                stored[record.players[note.player]] += len(note.text.encode())
            games += 1
            first, second = second, first

    ready = [asyncio.Event() for _ in names]
    bots = [asyncio.create_task(chatty(name, event)) for name, event in zip(names, ready)]
    await asyncio.gather(*(event.wait() for event in ready))
    await asyncio.gather(*(games_between(*names) for _ in range(6)))
    for bot in bots:
        bot.cancel()
    await asyncio.gather(*bots, return_exceptions=True)
    kib = ", ".join(f"{stored[name] / 1024:.0f} KiB of {sent[name] / 1024:.0f} KiB sent"
                    for name in names)
    seconds = time.perf_counter() - deadline + ctx.seconds
    return (f"{games} games in {seconds:.0f} s; debug lines stored: {kib} (budget "
            f"{budget // 1024} KiB a bot a day); {refused['log-budget']} log-budget notices")


# -- issue 22: compressed bodies, replay amplification (findings 1 and 7) ----------------------


def gzip_bomb(mib: int = 256) -> bytes:
    """Finding 1's body: `mib` MiB of newlines, gzipped (256 MiB: about 260 KB)."""
    import zlib

    deflate = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = b"\n" * (1 << 20)
    return b"".join(deflate.compress(chunk) for _ in range(mib)) + deflate.flush()


async def _compressed_bodies(ctx: Context, clients: int) -> str:
    """`clients` clients post the gzip bomb again and again, to the replay upload (which
    reads bodies) and to POST /api/guest (which never does), declared gzip."""
    bomb = await asyncio.to_thread(gzip_bomb)
    turn = 0

    async def send(session: aiohttp.ClientSession) -> int:
        nonlocal turn
        path, kind = (("/api/replay", "text/plain"), ("/api/guest", "application/json"))[turn % 2]
        turn += 1
        async with session.post(path, data=bomb, headers={
                "Content-Type": kind, "Content-Encoding": "gzip"}) as reply:
            await reply.read()
            return reply.status

    statuses = await _hammer(ctx, send, clients)
    return (f"{len(bomb) // 1000} KB bombs of 256 MiB: {_counts(statuses)} "
            "(415: refused unread, nothing inflated)")


async def compressed_bodies_4(ctx: Context) -> str:
    """Finding 1, at 4 clients (the issue's 4.5 s stall)."""
    return await _compressed_bodies(ctx, 4)


async def compressed_bodies_6(ctx: Context) -> str:
    """Finding 1, at 6 clients (the issue's 10.4 s stall)."""
    return await _compressed_bodies(ctx, 6)


def amplifying_log() -> str:
    """Finding 7's upload: 800 turns of the grammar ``S -> S x 100``, a 47 KB log whose
    replay is 32 MB of JSON, just within the replay limits."""
    from arena.games.substitution.game import SubstitutionGame
    from arena.games.substitution.grammar import Grammar
    from arena.match import Match

    game = SubstitutionGame(Settings(Grammar.from_text("S->" + "S" * 100 + "\n"), 400))
    match = Match(game, ["a", "b"], seed=1, match_id="amplifier")
    match.run([_Grow(), _Grow()], [random.Random(1), random.Random(2)])
    return to_jsonl(match.record())


async def replay_amplification(ctx: Context) -> str:
    """Finding 7: 4 clients upload the 47 KB log again and again and read each 32 MB
    answer (gzipped, as browsers ask for it)."""
    log = (await asyncio.to_thread(amplifying_log)).encode()
    answered = 0

    async def send(session: aiohttp.ClientSession) -> int:
        nonlocal answered
        async with session.post("/api/replay", data=log, headers={
                "Content-Type": "text/plain", "Accept-Encoding": "gzip"}) as reply:
            async for chunk in reply.content.iter_any():
                answered += len(chunk)
            return reply.status

    statuses = await _hammer(ctx, send)
    return (f"{len(log) // 1000} KB logs: {_counts(statuses)}; "
            f"{answered / 1e6:.0f} MB of frames answered")


ATTACKS: dict[str, Attack] = {
    "none": no_attack,
    "heavy-house-bots": heavy_house_bots,
    "state-bomb": state_bomb,
    "slow-readers": slow_readers,
    "message-flood": message_flood,
    "connection-flood": connection_flood,
    "illegal-move-bombs": illegal_move_bombs,
    "oversize-frames": oversize_frames,
    "replay-bombs": replay_bombs,
    "oversize-bodies": oversize_bodies,
    "guest-flood": guest_flood,
    "cross-site-posts": cross_site_posts,
    "debug-line-flood": debug_line_flood,
    "compressed-bodies-4": compressed_bodies_4,
    "compressed-bodies-6": compressed_bodies_6,
    "replay-amplification": replay_amplification,
}
"""Every attack the bench runs, by name (see the module docstring to add one)."""


HOSTILE = ROOT / "tests" / "sandbox" / "hostile"
HOSTILE_CONTROL = {"move_ms": 1000, "bank_ms": 1000, "first_move_ms": 2000}
"""The hostile hosted bots' games: short, since each of them ends on time or worse."""


def hosted(program: str, *args: str) -> Attack:
    """Issue 26: a hostile program (tests/sandbox/hostile/PROGRAM.py), built as a bot and
    hosted on this machine as a server's machine can host one today (``arena connect
    --exec "arena bots run DIR"``, a process of its own), plays game after game against
    a house bot for the attack's seconds, or until its program is gone for good. Needs
    root and bubblewrap (`make sandbox`)."""

    async def attack(ctx: Context) -> str:
        from arena.sandbox.build import build_bot
        from arena.sandbox.host import SandboxUnavailable, probe_host

        try:
            probe_host()
        except SandboxUnavailable as error:
            return f"not run: {error}"
        port = ctx.http.rsplit(":", 1)[1]
        with tempfile.TemporaryDirectory(prefix="bench-hostile-") as tmp:
            Path(tmp).chmod(0o755)
            source = Path(tmp) / "source"
            source.mkdir()
            (source / "bot.py").write_text((HOSTILE / f"{program}.py").read_text())
            built = await asyncio.to_thread(build_bot, source, "python", Path(tmp) / "build")
            manifest = built.bot.directory / "manifest.json"
            data = json.loads(manifest.read_text())
            data["command"] += [arg.replace("PORT", port) for arg in args]
            manifest.write_text(json.dumps(data))
            runner = f"{sys.executable} -m arena bots run {built.bot.directory}"
            bridge = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "arena", "connect", "--url", ctx.url, "--token",
                ctx.tokens["attacker0"], "--exec", runner, stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
            lost = games = 0
            gone = ""
            try:
                deadline = time.perf_counter() + ctx.seconds
                connect_by = time.perf_counter() + 30
                while time.perf_counter() < deadline:
                    try:
                        log = await ctx.operator.play_log(
                            "substitution", HONEST_SETTINGS, ["attacker0", "house:random"],
                            time_control=HOSTILE_CONTROL)
                    except RemoteError:  # not connected (yet, or any more)
                        if games or time.perf_counter() > connect_by:
                            gone = "; then its program was gone, and the bot with it"
                            break
                        await asyncio.sleep(0.1)
                        continue
                    outcome = read_jsonl(log.splitlines()).outcome
                    games += 1
                    lost += outcome is not None and outcome.winner == 1
            finally:
                if bridge.returncode is None:
                    bridge.terminate()  # the bridge tells the program quit, then kills it
                    try:
                        await asyncio.wait_for(bridge.wait(), 15)
                    except TimeoutError:
                        bridge.kill()
                        await bridge.wait()
        left = await _sandbox_leftovers()
        after = "nothing of it left" if not left else f"{len(left)} of its processes LEFT"
        return f"hosted, it lost {lost} of {games} games{gone}; {after}"

    attack.__doc__ = f"Issue 26: the hostile hosted program {program}."
    return attack


async def _sandbox_leftovers(seconds: float = 15.0) -> set[int]:
    """The processes of any sandbox uid still alive after `seconds` (none, we hope)."""
    from arena.sandbox import tree
    from arena.sandbox.spec import SandboxSpec

    spec = SandboxSpec()
    deadline = time.perf_counter() + seconds
    while True:
        with os.scandir("/proc") as entries:
            pids = [int(entry.name) for entry in entries if entry.name.isdigit()]
        left = {pid for pid, uids in tree.process_uids(pids).items()
                if any(spec.uid_base <= uid < spec.uid_base + spec.uids for uid in uids)
                and not tree.is_zombie(pid)}
        if not left or time.perf_counter() > deadline:
            return left
        await asyncio.sleep(0.1)


HOSTED_ATTACKS = {
    "hosted-fork-bomb": hosted("fork_bomb"),
    "hosted-memory-bomb": hosted("memory_bomb"),
    "hosted-disk-filler": hosted("disk_filler"),
    "hosted-connect": hosted("connect", "PORT"),
    "hosted-reads-secrets": hosted("reads_secrets"),
    "hosted-setuid": hosted("setuid", "/bot/bot.py"),
    "hosted-infinite-loop": hosted("infinite_loop"),
    "hosted-daemon": hosted("daemon"),
    "hosted-huge-output": hosted("huge_output", "both"),
    "hosted-closed-stdout": hosted("closed_stdout"),
}
ATTACKS.update(HOSTED_ATTACKS)


def uploaded(program: str, *args: str) -> Attack:
    """Issue 26: a hostile program uploaded to the server (``POST /api/bots/NAME/builds``
    by an operator, built there) and played by the server itself as the account
    ``up-PROGRAM``, game after game against a house bot for the attack's seconds; then
    the account is revoked, so the server stops hosting it."""

    async def attack(ctx: Context) -> str:
        from arena.sandbox.host import SandboxUnavailable, probe_host

        try:
            probe_host()
        except SandboxUnavailable as error:
            return f"not run: {error}"
        name = f"up-{program.replace('_', '-')}"
        port = ctx.http.rsplit(":", 1)[1]
        text = (HOSTILE / f"{program}.py").read_text()
        if args:  # what the program takes as its argument, written in
            text = text.replace("sys.argv[1]", repr(args[0].replace("PORT", port)))
        headers = {"Authorization": f"Bearer {ctx.tokens['attack-operator']}"}
        async with ctx.session() as http:
            async with http.post(f"/api/bots/{name}/builds?lang=python", headers=headers,
                                 data=text.encode()) as reply:
                build = await reply.json()
                if reply.status != 202:
                    return f"upload refused: {reply.status} {build}"
            while build["status"] == "building":
                await asyncio.sleep(0.2)
                async with http.get(f"/api/bots/{name}/builds/{build['id']}",
                                    headers=headers) as reply:
                    build = await reply.json()
        if build["status"] != "ok":
            return f"its build failed: {build.get('detail')}"
        lost = games = 0
        try:
            deadline = time.perf_counter() + ctx.seconds
            connect_by = time.perf_counter() + 30
            while time.perf_counter() < deadline:
                try:
                    log = await ctx.operator.play_log(
                        "substitution", HONEST_SETTINGS, [name, "house:random"],
                        time_control=HOSTILE_CONTROL)
                except RemoteError:  # not hosted yet
                    if time.perf_counter() > connect_by:
                        return "the server never hosted it"
                    await asyncio.sleep(0.1)
                    continue
                outcome = read_jsonl(log.splitlines()).outcome
                games += 1
                lost += outcome is not None and outcome.winner == 1
        finally:
            database = SQLiteDatabase(ctx.db)
            try:
                database.revoke_bot(name)  # the runner stops hosting it within seconds
            finally:
                database.close()
        left = await _sandbox_leftovers()
        after = "nothing of it left" if not left else f"{len(left)} of its processes LEFT"
        return f"uploaded and hosted by the server, it lost {lost} of {games} games; {after}"

    attack.__doc__ = f"Issue 26: the hostile program {program}, uploaded to the server."
    return attack


UPLOADED_ATTACKS = {
    "uploaded-fork-bomb": uploaded("fork_bomb"),
    "uploaded-memory-bomb": uploaded("memory_bomb"),
    "uploaded-connect": uploaded("connect", "PORT"),
    "uploaded-infinite-loop": uploaded("infinite_loop"),
    "uploaded-daemon": uploaded("daemon"),
    "uploaded-huge-output": uploaded("huge_output", "both"),
}
ATTACKS.update(UPLOADED_ATTACKS)


# -- the honest players ---------------------------------------------------------------------


class Honest:
    """Honest bots playing games an operator keeps in flight; counts the games lost."""

    def __init__(self, url: str, tokens: dict[str, str], operator_token: str) -> None:
        self.url = url
        # the bots' accounts: honest00, honest01... (honest-operator only requests games)
        self.names = sorted(name for name in tokens if name.startswith("honest")
                            and name != "honest-operator")
        self.clients = [ArenaClient(url, tokens[name], BuiltinBot("random"), reconnect=True,
                                    reconnect_delay=0.05) for name in self.names]
        self.operator = Operator(url, operator_token)
        self.tasks: list[asyncio.Task[Any]] = []
        self.in_flight: dict[int, str] = {}
        self.results: list[tuple[float, str]] = []
        self.stopping = False

    async def start(self) -> None:
        self.tasks = [asyncio.create_task(client.run()) for client in self.clients]
        for client in self.clients:
            await asyncio.wait_for(client.connected.wait(), 30)
        await self.operator.connect()
        for index in range(0, len(self.names) - 1, 2):
            self.tasks.append(asyncio.create_task(
                self.pair(index, self.names[index], self.names[index + 1])))

    async def pair(self, index: int, a: str, b: str) -> None:
        while not self.stopping:
            log = await self.operator.play_log("substitution", HONEST_SETTINGS, [a, b])
            record = read_jsonl(log.splitlines())
            assert record.outcome is not None
            self.results.append((time.perf_counter(), record.outcome.termination.value))
            a, b = b, a

    def lost_since(self, since: float) -> int:
        return sum(1 for at, how in self.results if at >= since and how != "normal")

    def reconnects(self) -> int:
        return sum(client.connections - 1 for client in self.clients)

    def live_games(self, server_http: str) -> list[str]:
        with urllib.request.urlopen(f"{server_http}/api/games?status=running&limit=50",
                                    timeout=10) as reply:
            return [game["id"] for game in json.loads(reply.read())["games"]]

    async def stop(self) -> None:
        self.stopping = True
        for client in self.clients:
            await client.stop()
        await self.operator.close()
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


Row = tuple[str, float, float, int, str, float]
"""An attack's name, worst stall (ms), RSS growth (MiB), honest games lost, note, the
most CPU one loop callback used (ms)."""


async def run(args: argparse.Namespace) -> list[Row]:
    port = free_port()
    url, http = f"ws://127.0.0.1:{port}/", f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "abuse.sqlite")
        storage = SQLiteDatabase(db)
        tokens = {f"honest{i:02d}": storage.add_bot(f"honest{i:02d}") for i in range(args.honest)}
        tokens.update({f"attacker{i}": storage.add_bot(f"attacker{i}") for i in range(4)})
        tokens["honest-operator"] = storage.add_bot("honest-operator", operator=True)
        tokens["attack-operator"] = storage.add_bot("attack-operator", operator=True)
        for name in UPLOADED_ATTACKS:  # the accounts the server hosts uploads for
            storage.add_bot("up-" + name.removeprefix("uploaded-"))
        storage.close()
        Path(tmp).chmod(0o755)  # the hosted builds: reachable by the sandboxes' uids
        hosting = ("--hosted-dir", str(Path(tmp) / "hosted")) if _can_host() else ()
        watch = Path(tmp) / "loopwatch.txt"
        watch.touch()
        async with arena_server(
                port, db, "--no-ladder", *hosting, preamble="import loopwatch",
                env={"PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'bench'}",
                     "ARENA_LOOPWATCH": str(watch)}) as server:
            rows = await attack_all(args, server.pid, url, http, tokens, watch)
    return rows


def _can_host() -> bool:
    """Whether this machine runs sandboxes (root and bubblewrap: `make sandbox`)."""
    from arena.sandbox.host import SandboxUnavailable, probe_host

    try:
        probe_host()
    except SandboxUnavailable:
        return False
    return True


async def attack_all(args: argparse.Namespace, pid: int, url: str, http: str,
                     tokens: dict[str, str], watch: Path) -> list[Row]:
    """Honest play, then each attack in turn (see the module docstring)."""
    rows: list[Row] = []
    context = multiprocessing.get_context("spawn")
    mine, theirs = context.Pipe()
    watcher = context.Process(target=monitor, args=(int(http.rsplit(":", 1)[1]), pid, theirs))
    try:
        honest = Honest(url, tokens, tokens["honest-operator"])
        await honest.start()
        watcher.start()
        await asyncio.sleep(2)  # warm up: workers forked, tables loaded, games going
        for name in args.attack or list(ATTACKS):
            async with Operator(url, tokens["attack-operator"]) as operator:
                ctx = Context(url, http, args.seconds, operator, tokens,
                              await asyncio.to_thread(honest.live_games, http),
                              db=str(Path(watch).with_name("abuse.sqlite")))
                await asyncio.sleep(1)
                await asyncio.to_thread(mine.send, "reset")
                await asyncio.to_thread(mine.recv)
                before = memory_kib(pid)[0]
                since, reconnects = time.perf_counter(), honest.reconnects()
                try:
                    note = await asyncio.wait_for(ATTACKS[name](ctx), args.seconds + 120)
                except Exception as error:  # noqa: BLE001 - the bench reports it and goes on
                    note = f"the attack failed: {type(error).__name__}: {error}"
            await asyncio.sleep(2)  # its connections close, its games end
            await asyncio.to_thread(mine.send, "report")
            worst, top = await asyncio.to_thread(mine.recv)
            lost = honest.lost_since(since) + honest.reconnects() - reconnects
            started_at = time.time() - (time.perf_counter() - since)
            blocked = max((float(line.split()[1]) for line in
                           watch.read_text().splitlines()
                           if float(line.split()[0]) >= started_at), default=0.0)
            rows.append((name, worst * 1000, max(0, top - before) / 1024, lost, note,
                         blocked))
            print(f"{name:20s} {worst * 1000:9.1f} {blocked:9.1f} "
                  f"{max(0, top - before) / 1024:9.1f} {lost:5d}   {note}", flush=True)
        await honest.stop()
    finally:
        with contextlib.suppress(Exception):
            mine.send("stop")
            watcher.join(timeout=10)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per attack")
    parser.add_argument("--honest", type=int, default=8, help="honest bots (pairs play)")
    parser.add_argument("--attack", action="append", choices=sorted(ATTACKS),
                        help="run only this attack (repeatable); default: all")
    args = parser.parse_args()
    print(f"{args.honest} honest bots playing; each attack for {args.seconds:g} s from "
          f"{ATTACKER}; targets: stall < 100 ms, RSS growth < 50 MiB, no honest game lost")
    print(f"{'attack':20s} {'stall ms':>9s} {'loop CPU':>9s} {'RSS MiB':>9s} {'lost':>5s}"
          f"   the server's answer")
    rows = asyncio.run(run(args))
    failed = [r[0] for r in rows if r[1] >= 100 or r[2] >= 50 or r[3] > 0]
    print("all targets met" if not failed else f"targets missed by: {', '.join(failed)}")


if __name__ == "__main__":
    main()
