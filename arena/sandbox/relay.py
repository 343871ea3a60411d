"""The relay inside a WebSocket-speaking hosted bot's sandbox: the sandbox has no network
(its own loopback only), so this script listens on that loopback at ``127.0.0.1:8765``
-- the starter kits' default address -- and carries each connection to the Unix socket
the server bind-mounts at ``/run/arena/arena.sock``, which leads to the server's own
port (`arena.server.hosted`). Then it starts the bot's program (its argv after ``--``)
and ends with it, with its exit status.

It is run by the system's ``python3`` inside the sandbox (a read-only copy in the
sandbox's runtime directory, `arena.sandbox.host`), so it imports nothing but the
standard library. At most `AT_ONCE` connections are carried at a time; more are closed
at once (the server's side counts them too). Everything else is the sandbox's: the
relay is one more process of the bot's tree, under the same limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys

PORT = 8765
"""Where the bot's program connects, inside the sandbox (``ws://127.0.0.1:8765/``)."""
SOCKET = "/run/arena/arena.sock"
"""The server's Unix socket, as the sandbox sees it."""
AT_ONCE = 2
"""Connections carried at the same time (a bot needs one; a second lets it reconnect
before the server has noticed the first one closed)."""
CHUNK = 64 * 1024


async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy `reader` to `writer` until its end, then end `writer`'s side (the server's
    side of the relay, `arena.server.hosted_ws`, carries its connections with it too)."""
    with contextlib.suppress(OSError, ConnectionError):
        while data := await reader.read(CHUNK):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()


async def _carry(open_now: list[int], reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter) -> None:
    if open_now[0] >= AT_ONCE:
        writer.close()
        return
    open_now[0] += 1
    try:
        try:
            up_reader, up_writer = await asyncio.open_unix_connection(SOCKET)
        except OSError:
            return
        try:
            await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        finally:
            up_writer.close()
    finally:
        open_now[0] -= 1
        writer.close()


async def _main(program: list[str]) -> int:
    open_now = [0]
    server = await asyncio.start_server(
        lambda reader, writer: _carry(open_now, reader, writer), "127.0.0.1", PORT)
    async with server:
        child = await asyncio.create_subprocess_exec(*program)
        status = await child.wait()
    return status if status >= 0 else 128 - status


def main(argv: list[str]) -> int:
    """``relay.py -- PROGRAM ARGS...``: relay, run the program, end with it."""
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        print("usage: relay.py -- PROGRAM [ARGS...]", file=sys.stderr)
        return 2
    program = argv[argv.index("--") + 1:]
    try:
        return asyncio.run(_main(program))
    except OSError as error:
        print(f"arena relay: {error}", file=sys.stderr)
        return 125


if __name__ == "__main__":
    os.umask(0o077)
    sys.exit(main(sys.argv[1:]))
