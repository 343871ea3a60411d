"""A minimal arena bot in Python without the SDK: raw `websockets` and JSON.

    pip install websockets
    ARENA_TOKEN=... python bot.py ws://127.0.0.1:8765/ [--games N]

It plays any game: a random move from the turn's `legal` list, or, when there are too
many to list (the substitution game), a move built step by step: a random legal next
step until the move may end, asking the server with `legal` requests. See
docs/bots.md for every message.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys

import websockets


async def play(url: str, token: str, games: int | None) -> None:
    async with websockets.connect(url, subprotocols=["arena.v1.json"]) as ws:

        async def send(message: dict) -> None:
            await ws.send(json.dumps(message))

        await send({"type": "hello", "protocol": 1, "role": "bot", "token": token,
                    "capabilities": ["legal-moves"], "client": "python-example"})
        answers: asyncio.Queue[dict] = asyncio.Queue()  # legal_steps, errors of a request
        asking = asyncio.Lock()  # one legal request at a time: answers come in order
        finished = 0

        async def build(turn: dict) -> str:
            """A random legal move, one step at a time."""
            steps, options = "", turn["legal_steps"]
            while options["steps"] and not (options["can_end"] and random.random() < 0.3):
                step = random.choice(options["steps"])
                steps = step if not steps else steps + options["separator"] + step
                async with asking:
                    await send({"type": "legal", "game_id": turn["game_id"],
                                "turn": turn["turn"], "steps": steps})
                    answer = await answers.get()
                if answer["type"] != "legal_steps":
                    raise RuntimeError(answer["message"])
                options = answer["legal_steps"]
            return steps

        async def move(turn: dict) -> None:
            if turn["legal"] is not None:
                choice = random.choice(turn["legal"])
            else:
                choice = await build(turn)
            await send({"type": "log", "game_id": turn["game_id"], "text": f"playing {choice!r}"})
            await send({"type": "move", "game_id": turn["game_id"], "turn": turn["turn"],
                        "move": choice})

        tasks = set()
        async for frame in ws:
            message = json.loads(frame)
            kind = message["type"]
            if kind == "welcome":
                ladder = message.get("ladder")
                print(f"connected as {message['bot']}; ladder: "
                      f"{ladder['game'] if ladder else 'none'}", file=sys.stderr)
            elif kind == "your_turn":
                task = asyncio.create_task(move(message))  # the reader keeps reading
                tasks.add(task)
                task.add_done_callback(tasks.discard)
            elif kind == "legal_steps" or (kind == "error" and asking.locked()):
                await answers.put(message)
            elif kind == "error":
                print(f"error {message['code']}: {message['message']}", file=sys.stderr)
                if message["fatal"]:
                    return
            elif kind == "game_over":
                finished += 1
                print(f"game {message['game_id']}: {message['result']} "
                      f"({message['termination']}: {message['reason']})", file=sys.stderr)
                if games is not None and finished >= games:
                    return


def main() -> None:
    args = sys.argv[1:]
    games = None
    if "--games" in args:
        at = args.index("--games")
        games = int(args[at + 1])
        del args[at:at + 2]
    url = args[0] if args else "ws://127.0.0.1:8765/"
    asyncio.run(play(url, os.environ["ARENA_TOKEN"], games))


if __name__ == "__main__":
    main()
