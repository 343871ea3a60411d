"""EGE task 49932 as a Python rules file (the seed's `start` and `next`).

A rules file defines `is_over(position, target)`, `next_positions(position, target)`
and `start_positions(target)`; `TARGET`, `HEAPS` and `SYMMETRIC` are optional.
"""

TARGET = 384
HEAPS = 2
SYMMETRIC = True  # (x, y) and (y, x) are the same game: positions are kept sorted


def is_over(position, target):
    x, y = position
    return x * y >= target


def next_positions(position, target):
    x, y = min(position), max(position)
    if x == y:
        return [(x, y + 3)]
    return [(2 * x, y), (x, y + 5)]


def start_positions(target):
    return [(x, y) for x in range(1, target) for y in range(x, target) if x * y < target]
