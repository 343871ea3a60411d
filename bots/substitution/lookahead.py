"""Placeholder: replaced by the new strategy."""
from arena.bots import BotFactory


def factories() -> list[BotFactory]:
    return []
