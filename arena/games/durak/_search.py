"""Pure-Python alpha-beta search for single-suit Durak: the reference for `_core.CSearch`.

Same contract as the compiled class (see `_core.pyx`): positions are bit masks over the
original cards (`remaining`, and `mover`, the cards of the player to lay), values are
encoded payoffs for the mover (`arena.games.durak.values`). Used when the extension is
not built, and by the tests to cross-check the compiled search.
"""

from __future__ import annotations

INF = 1_000_000_000


class PySearch:
    """Alpha-beta with a transposition table of (lower, upper) bounds."""

    def __init__(self, n: int, weights: list[int] | None, draw_rule: bool) -> None:
        self.n = n
        self.weights = list(weights) if weights is not None else [1] * n
        self.weighted = weights is not None
        self.draw_rule = draw_rule
        self.table: dict[int, tuple[int, int]] = {}
        self.nodes = 0

    def table_size(self) -> int:
        return len(self.table)

    def clear(self) -> None:
        self.table.clear()

    def value(self, remaining: int, mover: int, alpha: int = -INF, beta: int = INF) -> int:
        return self._search(remaining, mover, alpha, beta)

    def lay_value(
        self, remaining: int, mover: int, card: int, alpha: int = -INF, beta: int = INF
    ) -> int:
        return self._lay(remaining, mover, card, alpha, beta)

    def reply_value(
        self, remaining: int, mover: int, card: int, beat: int, alpha: int = -INF, beta: int = INF
    ) -> int:
        return self._reply(remaining, mover, card, beat, alpha, beta)

    # -- internals ----------------------------------------------------------------------

    def _wsum(self, mask: int) -> int:
        if not self.weighted:
            return mask.bit_count()
        total = 0
        while mask:
            low = mask & -mask
            total += self.weights[low.bit_length() - 1]
            mask ^= low
        return total

    def _ran_out(self, left: int) -> int:
        if left == 0 and not self.draw_rule:
            return 1
        return 2 * left

    def _key(self, remaining: int, mover: int) -> int:
        if self.weighted:
            return (remaining << 64) | mover
        code = 0
        k = 0
        while remaining:
            low = remaining & -remaining
            if not mover & low:
                code |= 1 << k
            k += 1
            remaining ^= low
        return code | (1 << k)

    def _reply(
        self, remaining: int, mover: int, card: int, beat: int, alpha: int, beta: int
    ) -> int:
        cbit = 1 << card
        left = mover & ~cbit
        other = remaining & ~mover
        if beat < 0:
            if left == 0:
                return self._ran_out(self._wsum(other | cbit))
            return self._search(remaining, left, alpha, beta)
        dbit = 1 << beat
        other &= ~dbit
        if left == 0:
            return self._ran_out(self._wsum(other))
        if other == 0:
            return -self._ran_out(self._wsum(left))
        return -self._search(remaining & ~cbit & ~dbit, other, -beta, -alpha)

    def _beats(self, remaining: int, mover: int, card: int) -> list[int]:
        other = remaining & ~mover
        beats: list[int] = []
        previous_other = False
        for d in range(card + 1, self.n):
            if not (remaining >> d) & 1:
                continue
            if (other >> d) & 1:
                if not (previous_other and not self.weighted and beats):
                    beats.append(d)
                previous_other = True
            else:
                previous_other = False
        return beats

    def _lay(self, remaining: int, mover: int, card: int, alpha: int, beta: int) -> int:
        beats = self._beats(remaining, mover, card)
        order = [beats[0], -1, *beats[1:]] if beats else [-1]
        worst = INF
        for beat in order:
            v = self._reply(remaining, mover, card, beat, alpha, min(beta, worst))
            if v < worst:
                worst = v
                if worst <= alpha:
                    break
        return worst

    def _search(self, remaining: int, mover: int, alpha: int, beta: int) -> int:
        key = self._key(remaining, mover)
        lower, upper = self.table.get(key, (-INF, INF))
        if lower == upper or lower >= beta:
            return lower
        if upper <= alpha:
            return upper
        alpha = max(alpha, lower)
        beta = min(beta, upper)
        a0, b0 = alpha, beta
        self.nodes += 1
        best = -INF
        cards = mover
        while cards:
            cbit = cards & -cards
            cards ^= cbit
            v = self._lay(remaining, mover, cbit.bit_length() - 1, alpha, beta)
            if v > best:
                best = v
                if best > alpha:
                    alpha = best
                    if alpha >= beta:
                        break
        if best <= a0:
            upper = min(upper, best)
        elif best >= b0:
            lower = max(lower, best)
        else:
            lower = upper = best
        self.table[key] = (lower, upper)
        return best
