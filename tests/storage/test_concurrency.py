"""Games of one bot that end at the same time are all rated, each from the result of the
one before (PostgreSQL: row locks in one order; SQLite: its one writer thread)."""

from __future__ import annotations

import asyncio

from arena.storage import Storage
from arena.storage.ratings import initial_rating

from .games import ended

GAMES = 40


async def rating_updates(storage: Storage) -> list[tuple[str, str, float, float, float, float]]:
    async with storage.snapshot() as snapshot:
        return [row async for rows in snapshot.rows("rating_updates", 1000) for row in rows]


async def test_games_of_one_bot_ending_at_once_are_all_rated_in_a_chain(storage: Storage) -> None:
    records = [ended(f"g{i:02d}", ("alice", f"opponent{i}") if i % 2 else (f"opponent{i}", "alice"),
                     winner=i % 3 if i % 3 < 2 else None) for i in range(GAMES)]
    for record in records:
        await storage.start_game(record, ladder=True, pair=None)
    await asyncio.gather(*(storage.finish_game(record, rated=True) for record in records))

    alice = await storage.rating("alice", "sim")
    assert alice is not None and alice.games == GAMES
    seats = [record.players.index("alice") for record in records]
    outcomes = [record.outcome.winner for record in records]  # type: ignore[union-attr]
    assert alice.wins == sum(winner == seat for winner, seat in zip(outcomes, seats, strict=True))
    assert alice.draws == outcomes.count(None)
    assert alice.losses == GAMES - alice.wins - alice.draws

    # each update of alice's rating started from the one before: one chain, from the
    # first rating to the stored one, through every game
    updates = [row for row in await rating_updates(storage) if row[1] == "alice"]
    assert len(updates) == GAMES
    after = {(mu, sigma): game_id for game_id, _, _, _, mu, sigma in updates}
    following = {(mu, sigma): (mu_after, sigma_after)
                 for _, _, mu, sigma, mu_after, sigma_after in updates}
    assert len(after) == len(following) == GAMES  # no two updates started from one rating
    fresh = initial_rating("alice", "sim", "sim")
    link, steps = (fresh.mu, fresh.sigma), 0
    while link in following:
        link = following[link]
        steps += 1
    assert steps == GAMES and link == (alice.mu, alice.sigma)
