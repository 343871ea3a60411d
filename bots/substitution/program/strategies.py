"""The thesis program's strategy classes (appendix B), move for move.

Each `make_move` takes what the program's `Game` hands a strategy -- the player's
simplified words (fresh copies), the move number (the round, from 0), the rolled group
and a copy of the bank -- and returns the move as a list of `PrimaryMove` steps
``(word, group, production)``. They mutate their copies as the C# does, with its sign
slip (`simplified.apply_step`), so they lose track of the nonterminals they add and
usually stop using the bank after the first step on a word: moves the program's
referee accepted and the strict rules reject.

`random.NextDouble()` is the generator's ``random()``; `Random.Next(n)` is
``int(random() * n)``. Where the C# throws, `ProgramError` is raised.
"""

from __future__ import annotations

import functools
import random

from bots.substitution.program.simplified import (
    NOT_COMPUTED,
    ProgramError,
    ProgramSettings,
    Step,
    Word,
    apply_step,
    apply_steps,
    bank_remove,
    better_word_metric,
    cs_sqrt,
    find_matches,
    get_rand,
    stupid_word_metric,
    word_metric,
)

__all__ = [
    "AdaptiveRandomStrategy",
    "BetterSmartRandomStrategy",
    "ImprovedRandomStrategy",
    "InversedSmartRandomStrategy",
    "MixedStrategy",
    "RandomStrategy",
    "SearchStrategy",
    "ShortWordsStrategy",
    "SmartRandomStrategy",
    "Strategy",
    "StupidShortWordsStrategy",
]

INT_MAX = 2**31 - 1


class Strategy:
    """The program's abstract `Strategy`: one `make_move` per turn, nothing kept
    between turns but the tables computed from the settings (`beforeStart`)."""

    def __init__(self, settings: ProgramSettings) -> None:
        self.settings = settings

    def make_move(self, player: int, move_number: int, roll: int, words: list[Word],
                  bank: list[int], rng: random.Random) -> list[Step]:
        raise NotImplementedError


class StepByStep(Strategy):
    """The loop the random and short-words classes share: the first step for the roll,
    then one bank step at a time, each taken out of the bank copy and applied to the
    strategy's own words (with the sign slip) before the next is chosen."""

    def make_move(self, player: int, move_number: int, roll: int, words: list[Word],
                  bank: list[int], rng: random.Random) -> list[Step]:
        move: list[Step] = []
        while True:
            step = self.first(words, roll, rng) if not move else self.next(words, bank, rng)
            if step is None:
                return move
            if move:
                bank_remove(bank, step[1])
            move.append(step)
            apply_step(self.settings, step, words)

    def first(self, words: list[Word], group: int, rng: random.Random) -> Step | None:
        """`findFirstMove`: the step for the rolled group, or ``None`` (nothing applies)."""
        raise NotImplementedError

    def next(self, words: list[Word], bank: list[int], rng: random.Random) -> Step | None:
        """`findMove`: a bank step, or ``None`` when no bank group seems to apply."""
        raise NotImplementedError


# -- RandomStrategy and its weighted variants ---------------------------------------------


class RandomStrategy(StepByStep):
    """`RandomStrategy`: the rolled group's production, then its word; then, while a
    bank group is "applicable", group, production, word -- all weighted draws. An S
    group, from the bank too, may start a new word."""

    def group_weights(self, indexes: list[int]) -> list[float]:
        return [1.0] * len(indexes)

    def production_weights(self, group: int) -> list[float]:
        return [1.0] * len(self.settings.groups[group].rights)

    def word_weights(self, words: list[Word]) -> list[float]:
        return [1.0] * len(words)

    def first(self, words: list[Word], group: int, rng: random.Random) -> Step | None:
        settings = self.settings
        indexes = find_matches(words, settings.left[group])
        allowed = [words[i] for i in indexes]
        if settings.is_s[group]:
            indexes.append(-1)
            allowed.append(settings.s_word())
        if not indexes:
            return None
        production = get_rand(self.production_weights(group), rng.random())
        word = indexes[get_rand(self.word_weights(allowed), rng.random())]
        return (word, group, production)

    def next(self, words: list[Word], bank: list[int], rng: random.Random) -> Step | None:
        settings = self.settings
        indexes: list[list[int]] = []
        allowed: list[list[Word]] = []
        for g in range(settings.n):
            found = find_matches(words, settings.left[g])
            indexes.append(found)
            allowed.append([words[i] for i in found])
            if settings.is_s[g]:
                found.append(-1)
                allowed[-1].append(settings.s_word())
        groups = [g for g in range(settings.n) if indexes[g] and bank[g] > 0]
        if not groups:
            return None
        group = groups[get_rand(self.group_weights(groups), rng.random())]
        production = get_rand(self.production_weights(group), rng.random())
        word = indexes[group][get_rand(self.word_weights(allowed[group]), rng.random())]
        return (word, group, production)


class SmartRandomStrategy(RandomStrategy):
    """`SmartRandomStrategy`: weights M2 (the program's `countMetric`); words weigh
    their `countWordMetric`."""

    def __init__(self, settings: ProgramSettings) -> None:
        super().__init__(settings)
        self.net, self.prods = self.before_start()
        self.sums = settings.letter_sums(self.net)

    def before_start(self) -> tuple[list[float], list[list[float]]]:
        return self.settings.count_metric()

    def group_weights(self, indexes: list[int]) -> list[float]:
        return [self.net[i] for i in indexes]

    def production_weights(self, group: int) -> list[float]:
        return list(self.prods[group])

    def word_weights(self, words: list[Word]) -> list[float]:
        return [word_metric(w.counts, self.sums) for w in words]


class BetterSmartRandomStrategy(SmartRandomStrategy):
    """`BetterSmartRandomStrategy`: M3 (`countBetterMetric`), square roots; words weigh
    the square root of the M2-style product over the M3 values."""

    def before_start(self) -> tuple[list[float], list[list[float]]]:
        return self.settings.count_better_metric()

    def group_weights(self, indexes: list[int]) -> list[float]:
        return [cs_sqrt(self.net[i]) for i in indexes]

    def production_weights(self, group: int) -> list[float]:
        return [cs_sqrt(m) for m in self.prods[group]]

    def word_weights(self, words: list[Word]) -> list[float]:
        return [cs_sqrt(word_metric(w.counts, self.sums)) for w in words]


class InversedSmartRandomStrategy(SmartRandomStrategy):
    """`InversedSmartRandomStrategy`: M3; a group weighs 1.01 - its metric (0 if its
    metric is 0), every production of a group the same 1.01 - the *group's* metric (0
    for a production whose metric is 0), a word 1.01 - its `countBetterWordMetric`."""

    def before_start(self) -> tuple[list[float], list[list[float]]]:
        return self.settings.count_better_metric()

    def group_weights(self, indexes: list[int]) -> list[float]:
        return [0.0 if self.net[i] == 0 else 1.01 - self.net[i] for i in indexes]

    def production_weights(self, group: int) -> list[float]:
        return [0.0 if m == 0 else 1.01 - self.net[group] for m in self.prods[group]]

    def word_weights(self, words: list[Word]) -> list[float]:
        weights = []
        for word in words:
            m = better_word_metric(word.counts, self.sums)
            weights.append(0.0 if m == 0 else 1.01 - m)
        return weights


class ImprovedRandomStrategy(SmartRandomStrategy):
    """`ImprovedRandomStrategy` (in the program, not in the thesis's tables): its
    "stupid" tables are also filled by `countMetric`, so groups and productions weigh
    their M2 (0 stays 0, 1 becomes 0.01) and words their count sum (0 if their M2 is 0,
    0.01 if it is 1)."""

    @staticmethod
    def _weight(m: float) -> float:
        return 0.0 if m == 0 else 0.01 if m == 1 else m

    def group_weights(self, indexes: list[int]) -> list[float]:
        return [self._weight(self.net[i]) for i in indexes]

    def production_weights(self, group: int) -> list[float]:
        return [self._weight(m) for m in self.prods[group]]

    def word_weights(self, words: list[Word]) -> list[float]:
        weights = []
        for word in words:
            m = word_metric(word.counts, self.sums)
            weights.append(0.0 if m == 0 else 0.01 if m == 1 else float(stupid_word_metric(word.counts)))
        return weights


# -- the short-words strategies ---------------------------------------------------------


def _terminals_of_best(settings: ProgramSettings, best: list[int], group: int, j: int) -> int:
    """``simplifiedProductions[group][bestProd[j]].terminals``: `beforeStart`'s tie-break
    reads the best production of group *j* (an index slip for group `group`), which
    throws when there is no such group or `group` has no production of that number."""
    if j >= len(best):
        raise ProgramError(f"beforeStart: bestProd[{j}] is out of range ({len(best)} groups)")
    other = best[j]
    rights = settings.groups[group].right_terminals
    if other >= len(rights):
        raise ProgramError(f"beforeStart: group {group} has no production bestProd[{j}] = {other}")
    return rights[other]


class ShortWordsFamily(StepByStep):
    """What both short-words classes do with the roll: each group's best production
    (`best`, from `beforeStart`) goes to the best word holding the group's left side,
    a new word (the word "S") offered last for an S group."""

    best: list[int]

    def _best_word(self, candidates: list[int], words: list[Word]) -> int:
        raise NotImplementedError

    def first(self, words: list[Word], group: int, rng: random.Random) -> Step | None:
        settings = self.settings
        allowed = find_matches(words, settings.left[group])
        if settings.is_s[group]:
            allowed.append(-1)
        if not allowed:
            return None
        return (self._best_word(allowed, words), group, self.best[group])


class StupidShortWordsStrategy(ShortWordsFamily):
    """`StupidShortWordsStrategy` (M1): each group's production with the fewest
    nonterminals; the rolled group to the word with the fewest (a new word counts as
    "S"); then the first "applicable" bank group (all its group metrics are 0) to the
    word with the fewest tracked nonterminals."""

    def __init__(self, settings: ProgramSettings) -> None:
        super().__init__(settings)
        self.net, self.prods = settings.count_stupid_metric()
        self.best = [0] * settings.n
        for i, group in enumerate(settings.groups):
            least = INT_MAX
            for j, metric in enumerate(self.prods[i]):
                if metric < least or (
                    metric == least
                    and group.right_terminals[j] > _terminals_of_best(settings, self.best, i, j)
                ):
                    least = metric
                    self.best[i] = j

    def next(self, words: list[Word], bank: list[int], rng: random.Random) -> Step | None:
        settings = self.settings
        allowed = [find_matches(words, settings.left[g]) for g in range(settings.n)]
        group = -1
        least = INT_MAX
        for i in range(settings.n):
            if allowed[i] and bank[i] > 0 and self.net[i] < least:
                least = self.net[i]
                group = i
        if group == -1:
            return None
        return (self._best_word(allowed[group], words), group, self.best[group])

    def _best_word(self, candidates: list[int], words: list[Word]) -> int:
        """The candidate with the fewest (tracked) nonterminals, the first on ties; -1 is
        the word "S"."""
        chosen = -1
        least = INT_MAX
        for i, index in enumerate(candidates):
            word = self.settings.s_word() if index == -1 else words[index]
            metric = stupid_word_metric(word.counts)
            if metric < least:
                least = metric
                chosen = i
        return candidates[chosen]


class ShortWordsStrategy(ShortWordsFamily):
    """`ShortWordsStrategy` (M2): each group's production with the largest metric; the
    rolled group to the word with the largest `countWordMetric`; then the "applicable"
    bank group with the largest group metric to the word with the largest metric."""

    def __init__(self, settings: ProgramSettings) -> None:
        super().__init__(settings)
        self.net, self.prods = settings.count_metric()
        self.sums = settings.letter_sums(self.net)
        self.best = [0] * settings.n
        for i, group in enumerate(settings.groups):
            most = -1.0
            for j, metric in enumerate(self.prods[i]):
                if most == -1 or metric > most or (
                    metric == most
                    and group.right_terminals[j] > _terminals_of_best(settings, self.best, i, j)
                ):
                    most = metric
                    self.best[i] = j

    def _best_word(self, candidates: list[int], words: list[Word]) -> int:
        chosen = -1
        best = -1.0
        for i, index in enumerate(candidates):
            word = self.settings.s_word() if index == -1 else words[index]
            metric = word_metric(word.counts, self.sums)
            if metric > best:
                best = metric
                chosen = i
        if chosen == -1:
            raise ProgramError("no word's metric exceeds -1 (List index -1)")
        return candidates[chosen]

    def next(self, words: list[Word], bank: list[int], rng: random.Random) -> Step | None:
        settings = self.settings
        allowed = [find_matches(words, settings.left[g]) for g in range(settings.n)]
        group = -1
        best = -1.0
        for i in range(settings.n):
            if allowed[i] and bank[i] > 0 and self.net[i] > best:
                best = self.net[i]
                group = i
        if group == -1:
            return None
        return (self._best_word(allowed[group], words), group, self.best[group])


# -- the search strategy ------------------------------------------------------------------

Found = tuple[float, int, tuple[tuple[int, int], ...]]
"""A `searchMove` result: metric, terminals added, and the (group, production) steps."""

MEMO_LIMIT = 400_000


class SearchStrategy(Strategy):
    """`SearchStrategy(depth)`: the rolled group goes to the word with the best metric
    (a new word if it rewrites S and "S" is strictly better), with the production whose
    `searchMove` continuation (bank steps on that word, up to `depth`) ends best; then,
    while some tracked word has an "applicable" bank group, the best such word whose
    metric is not exactly 1 gets its best continuation.

    `searchMove` is memoised: its result depends only on the word's counts, the bank
    (a count above the depth left acts like the depth left) and the depth left --
    terminals only break ties, and they add up along a sequence.
    """

    def __init__(self, settings: ProgramSettings, depth: int = 4) -> None:
        super().__init__(settings)
        self.depth = depth
        self.net, self.prods = settings.count_metric()
        self.sums = settings.letter_sums(self.net)
        # bounded memos (least recently used entries go first), one per strategy
        self._metric = functools.lru_cache(maxsize=200_000)(self._metric_of)
        self._search = functools.lru_cache(maxsize=MEMO_LIMIT)(self._search_from)

    def metric(self, counts: list[int]) -> float:
        return self._metric(tuple(counts))

    def _metric_of(self, counts: tuple[int, ...]) -> float:
        return word_metric(counts, self.sums)

    def make_move(self, player: int, move_number: int, roll: int, words: list[Word],
                  bank: list[int], rng: random.Random) -> list[Step]:
        metrics = [self.metric(w.counts) for w in words]
        first = self._first(words, metrics, bank, roll)
        if not first:
            return []
        move = list(first)
        while True:
            more = self._next(words, metrics, bank)
            if not more:
                return move
            move += more

    def search(self, counts: list[int], bank: list[int], depth: int) -> Found:
        """`searchMove` from a word's counts with `depth` steps left."""
        return self._search(tuple(counts), tuple([min(depth, b) for b in bank]), depth)

    def _search_from(self, counts_key: tuple[int, ...], bank_key: tuple[int, ...],
                     depth: int) -> Found:
        """`search` of a memo key: a bank count above `depth` acts as `depth` (at most
        `depth` groups are applied on the way down), so the key's bank gives the same."""
        counts = list(counts_key)
        bank = list(bank_key)
        best: Found | None = None
        if depth > 0:
            settings = self.settings
            for g, group in enumerate(settings.groups):
                if bank[g] <= 0 or counts[group.left] <= 0:
                    continue
                bank[g] -= 1
                counts[group.left] -= 1
                for k, right in enumerate(group.right_counts):
                    for j, c in enumerate(right):
                        if c:
                            counts[j] += c
                    metric, added, steps = self.search(counts, bank, depth - 1)
                    added += group.right_terminals[k]
                    if best is None or best[0] == NOT_COMPUTED or metric > best[0] or (
                        metric == best[0] and added > best[1]
                    ):
                        best = (metric, added, ((g, k),) + steps)
                    for j, c in enumerate(right):
                        if c:
                            counts[j] -= c
                counts[group.left] += 1
                bank[g] += 1
        if best is None:
            best = (self.metric(counts), 0, ())
        return best

    def _first(self, words: list[Word], metrics: list[float], bank: list[int], roll: int) -> list[Step] | None:
        settings = self.settings
        group = settings.groups[roll]
        best_metric = -1.0
        index = 0
        word: Word | None = None
        for i in find_matches(words, group.left):
            if metrics[i] > best_metric:
                best_metric = metrics[i]
                index = i
                word = words[i]
        if settings.is_s[roll] and best_metric < word_metric(settings.s_word().counts, self.sums):
            index = -1
            word = settings.s_word()
        elif best_metric == -1:
            return None
        assert word is not None
        chosen: Found | None = None
        counts = list(word.counts)
        counts[group.left] -= 1
        for k, right in enumerate(group.right_counts):
            child = [a + b for a, b in zip(counts, right)]
            metric, added, steps = self.search(child, bank, self.depth)
            added += group.right_terminals[k]
            if chosen is None or chosen[0] == NOT_COMPUTED or metric > chosen[0] or (
                metric == chosen[0] and added > chosen[1]
            ):
                chosen = (metric, added, ((roll, k),) + steps)
        assert chosen is not None
        target = len(words) if index == -1 else index
        move = [(index, roll, chosen[2][0][1])] + [(target, g, k) for g, k in chosen[2][1:]]
        bank[roll] += 1          # the program puts the rolled group back before applyMove
        apply_steps(settings, move, bank, word)   # (a new word is not in `words`)
        return move

    def _next(self, words: list[Word], metrics: list[float], bank: list[int]) -> list[Step] | None:
        settings = self.settings
        allowed = []
        for i, word in enumerate(words):
            for g in range(settings.n):
                if word.counts[settings.left[g]] > 0 and bank[g] > 0:
                    allowed.append(i)
        if not allowed:
            return None
        chosen = -1
        best = -1.0
        for i, index in enumerate(allowed):
            metric = self.metric(words[index].counts)
            if metric > best and metric != 1:
                best = metric
                chosen = i
        if chosen == -1:
            raise ProgramError("every candidate word's metric is 1, NaN or below -1 (List index -1)")
        index = allowed[chosen]
        metric, _, steps = self.search(list(words[index].counts), bank, self.depth)
        move = [(index, g, k) for g, k in steps]
        metrics[index] = metric
        apply_steps(settings, move, bank, words[index])
        return move


# -- adaptive and mixed -------------------------------------------------------------------


class AdaptiveRandomStrategy(Strategy):
    """`AdaptiveRandomStrategy(coef)`: the inversed smart random strategy while
    nonterminals x coef < NumberOfMoves - moveNumber, then the finishing strategy (the
    program's: search at depth 4; its commented-out alternative: short words)."""

    def __init__(self, settings: ProgramSettings, coef: float = 10.0, finish: str = "search",
                 depth: int = 4) -> None:
        super().__init__(settings)
        self.coef = coef
        self.starting = InversedSmartRandomStrategy(settings)
        self.finishing: Strategy
        if finish == "search":
            self.finishing = SearchStrategy(settings, depth)
        elif finish == "short-words":
            self.finishing = ShortWordsStrategy(settings)
        else:
            raise ValueError(f"unknown finishing strategy {finish!r}")

    def make_move(self, player: int, move_number: int, roll: int, words: list[Word],
                  bank: list[int], rng: random.Random) -> list[Step]:
        nonterminals = sum(sum(w.counts) for w in words)
        if nonterminals * self.coef < self.settings.moves - move_number:
            return self.starting.make_move(player, move_number, roll, words, bank, rng)
        return self.finishing.make_move(player, move_number, roll, words, bank, rng)


class MixedStrategy(Strategy):
    """`MixedStrategy`: each turn ``Random.Next(sum of points)`` picks, in the program's
    order, better smart random, search, short words or adaptive random."""

    def __init__(self, settings: ProgramSettings, random_points: int = 1, short_points: int = 1,
                 search_points: int = 1, adaptive_points: int = 1, depth: int = 4,
                 coef: float = 10.0) -> None:
        super().__init__(settings)
        self.points = (random_points, search_points, short_points, adaptive_points)
        self.total = sum(self.points)
        if self.total <= 0:
            raise ValueError("the points must not all be zero")
        self.strategies: tuple[Strategy, ...] = (
            BetterSmartRandomStrategy(settings),
            SearchStrategy(settings, depth),
            ShortWordsStrategy(settings),
            AdaptiveRandomStrategy(settings, coef, "search", depth),
        )

    def make_move(self, player: int, move_number: int, roll: int, words: list[Word],
                  bank: list[int], rng: random.Random) -> list[Step]:
        rest = int(rng.random() * self.total)
        for points, strategy in zip(self.points, self.strategies):
            rest -= points
            if rest < 0:
                return strategy.make_move(player, move_number, roll, words, bank, rng)
        return []
