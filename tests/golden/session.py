"""Replaying (or recording) a golden transcript against a real server (`transcript`)."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from arena.app import Arena as ArenaApp
from arena.seeds import seed_commitment
from arena.server import ServerConfig, TimeControl
from protocol import Encoding
from tests.golden.transcript import Step, dumps, normalise, parse, substitute
from tests.server.conftest import Arena

QUIET = 0.5
"""Recording only: seconds without a frame after which the server has said all it will."""


class Replay:
    """One transcript's run: the server, the connection, the names bound so far."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena
        self.ws: ClientConnection | None = None
        self.encoding = Encoding.JSON
        self.names: dict[str, str] = {}
        self.game_id: str | None = None
        self.commitment: str | None = None
        self.tokens: dict[str, str] = {}
        self.written: list[str] = []
        self.mismatches: list[str] = []

    async def step(self, step: Step) -> None:
        if step.kind == "connect":
            if self.ws is not None:
                self.ws.transport.abort()
            self.encoding = Encoding.from_subprotocol(f"arena.v1.{step.arg}")
            self.ws = await connect(self.arena.url, subprotocols=[self.encoding.subprotocol],
                                    compression=None, max_size=None)
        elif step.kind == "opponent":
            name, moves = step.arg
            await self.arena.client(name, lambda turn, moves=moves: moves[str(turn.turn)])
        elif step.kind == "start":
            spec = step.arg
            live = self.arena.server.start_game(
                spec["game"], spec["settings"], spec["players"], seed=spec["seed"],
                time_control=TimeControl(**spec["time_control"]))
            self.game_id = live.id
            self.names["GAME"] = live.id
            self.commitment = seed_commitment(live.id, spec["seed"])
        elif step.kind == "send":
            data = step.arg
            if data.get("type") == "hello" and data.get("token") == "TOKEN":
                name = data["bot"]
                if name not in self.tokens:
                    self.tokens[name] = await self.arena.add_bot(name)
                data = {**data, "token": self.tokens[name]}
            assert self.ws is not None
            await self.ws.send(self.encoding.encode(substitute(data, self.names)))
        elif step.kind == "frame":
            assert self.ws is not None
            await self.ws.send(step.arg)
        elif step.kind == "expect":
            received = await self.receive()
            if received != step.arg:
                self.mismatches.append(
                    f"line {step.line}: expected\n  {dumps(step.arg)}\ngot\n  {dumps(received)}")
        elif step.kind == "close":
            code = await self.closed()
            if code != step.arg:
                self.mismatches.append(f"line {step.line}: expected close {step.arg}, got {code}")

    async def receive(self, timeout: float = 20.0) -> Any:
        """The next server message, normalised (a close is said as ``{"close": CODE}``)."""
        assert self.ws is not None
        try:
            async with asyncio.timeout(timeout):
                frame = await self.ws.recv()
        except ConnectionClosed as closed:
            return {"close": closed.rcvd.code if closed.rcvd else None}
        data = self.encoding.decode(frame, max_size=1 << 30)
        return normalise(data, self.game_id, self.commitment)

    async def closed(self) -> int | None:
        assert self.ws is not None
        with contextlib.suppress(ConnectionClosed):
            async with asyncio.timeout(20):
                frame = await self.ws.recv()
            del frame
            return -1  # a frame, where the close was expected
        return self.ws.close_code

    async def record_until_quiet(self) -> None:
        while self.ws is not None:
            try:
                async with asyncio.timeout(QUIET):
                    frame = await self.ws.recv()
            except TimeoutError:
                return
            except ConnectionClosed:
                self.written.append(f"<close {self.ws.close_code}")
                self.ws = None
                return
            data = self.encoding.decode(frame, max_size=1 << 30)
            self.written.append("< " + dumps(normalise(data, self.game_id, self.commitment)))


async def run(path: Path, db: Path, *, record: bool = False) -> Replay:
    """Play `path` against a new server; with `record`, collect what the server says."""
    config = ServerConfig(host="127.0.0.1", port=0, db=str(db), ping_interval=None)
    app = ArenaApp(config)
    await app.start()
    arena = Arena(app)
    replay = Replay(arena)
    try:
        for step in parse(path):
            if record:
                if step.kind in ("expect", "close"):
                    continue
                replay.written.append(step.text)
                await replay.step(step)
                if step.kind in ("send", "frame", "start"):
                    await replay.record_until_quiet()
            else:
                await replay.step(step)
    finally:
        if replay.ws is not None:
            replay.ws.transport.abort()
        await arena.close()
    return replay


def rewrite(path: Path, written: list[str]) -> None:
    """Keep the transcript's comments and blank lines, replace its steps."""
    out: list[str] = []
    pending = list(written)
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.rstrip()
        if not line or line.startswith("#"):
            out.append(line)
            continue
        if line.startswith("<"):
            continue
        # a client step: write it, then the server lines recorded after it
        assert pending and pending[0] == line, (line, pending[:1])
        out.append(pending.pop(0))
        while pending and pending[0].startswith("<"):
            out.append(pending.pop(0))
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
