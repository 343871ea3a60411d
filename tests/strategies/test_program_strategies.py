"""The thesis program's strategies (appendix B) as written, step by step.

Positions are built by hand and the expected moves follow the appendix's code line by
line (the comments walk through it): the sign slip in `applyMove`, the untracked new
word of `SearchStrategy`, `bestProd[j]`, the draw order of `RandomStrategy`, the
inversed weights, the adaptive switch and the mixed strategy's intervals.
"""

from __future__ import annotations

import math
import random

import pytest

from arena.errors import BotSpecError
from arena.games.substitution import GameState, Grammar
from arena.registry import default_registry
from bots.substitution.program.simplified import (
    ProgramSettings,
    Word,
    better_word_metric,
    cs_pow,
    get_rand,
    word_metric,
)
from bots.substitution.program.strategies import (
    AdaptiveRandomStrategy,
    InversedSmartRandomStrategy,
    MixedStrategy,
    Strategy,
)
from tests.strategies.examples import FOUR, THREE
from tests.substitution.tiny import tiny_game

REGISTRY = default_registry()


class Script(random.Random):
    """A generator that returns the given numbers from `random()`, in order."""

    def __init__(self, *values: float) -> None:
        super().__init__(0)
        self.values = list(values)

    def random(self) -> float:
        return self.values.pop(0)


def move_of(spec, groups, mine, bank, roll, rule="thesis-program", rng=None, weights=None, moves=5):
    game = tiny_game(groups, weights, moves=moves, bank_rule=rule)
    state = GameState.create(len(groups), 0, (list(mine), []), list(bank), roll)
    bot = REGISTRY.make_bot(game, spec)
    move = bot.choose_move(game, state, rng or random.Random(0))
    return game, state, str(move)


def verdict(game, state, move):
    after = game.check_move(state, game.parse_move(move))
    return getattr(after, "code", None) or tuple(w.text for w in after.derivations[0])


def test_the_sign_slip_stops_stupid_short_words_after_one_step():
    # Section 4.2's position: derivation A, roll A->BB|aA, bank (0, 2, 2, 1).
    # bestProd: group 1's productions have 2 and 1 nonterminals -> aA.
    # First step (0 1 1): A -> aA. applyMove then does A: 1 - 1 (the left side) - 1
    # (subtracting aA's A) = -1, so no bank group's left side is "held": the turn ends.
    game, state, move = move_of("thesis-stupid-short-words", FOUR, ["A"], [0, 2, 2, 1], 1)
    assert move == "0 1 1"
    assert verdict(game, state, move) == ("aA",)
    strict = tiny_game(FOUR)
    assert verdict(strict, state, move) == "bank-group-applicable"   # A->a still applies
    ours = REGISTRY.make_bot(strict, "stupid-short-words").choose_move(strict, state, random.Random(0))
    assert str(ours) == "0 1 1, 0 3 0"


def test_search_forgets_the_derivation_it_starts():
    # No derivation, roll S->A, bank (A->BB|aA, B->b x2), depth 1. S->A is forced; from
    # A, one bank step: BB (M2 1/9) beats aA (1/27). The new word is a fresh
    # ConvertWord("S") outside the word list, so findMove sees no word: the move ends
    # with two B->b in the bank and BB unfinished.
    game, state, move = move_of("thesis-search:depth=1", THREE, [], [0, 1, 2], 0)
    assert move == "-1 0 0, 0 1 0"
    assert verdict(game, state, move) == ("BB",)
    assert verdict(tiny_game(THREE), state, move) == "bank-group-applicable"


def test_search_loses_track_of_the_nonterminals_it_adds():
    # Derivation A, roll A->BB|aA, bank (B->b x2), depth 1: BB then B->b (bB, M2 1/3)
    # beats aA (no bank step applies; 1/27). applyMove: B = 0 - 2 (BB subtracted) - 1
    # (the left side of B->b) = -3, so the second B->b is never tried.
    game, state, move = move_of("thesis-search:depth=1", THREE, ["A"], [0, 0, 2], 1)
    assert move == "0 1 0, 0 2 0"
    assert verdict(game, state, move) == ("bB",)
    assert verdict(tiny_game(THREE), state, move) == "bank-group-applicable"
    # With depth 4 the search itself finishes the word: the same move under both rules.
    game, state, move = move_of("thesis-search:depth=4", THREE, ["A"], [0, 0, 2], 1)
    assert move == "0 1 0, 0 2 0, 0 2 0"
    assert verdict(tiny_game(THREE), state, move) == ("bb",)


def test_random_draws_the_production_then_the_word():
    # Rolled group: production weights (1, 1), r = 0.6 -> 1.2 - 1 > 0, 0.2 - 1 <= 0 ->
    # production 1 (aA); words (A, A), r = 0.9 -> word 1. The bank is empty: done.
    _, _, move = move_of("thesis-random", THREE, ["A", "A"], [0, 0, 0], 1, rng=Script(0.6, 0.9))
    assert move == "1 1 1"
    _, _, move = move_of("thesis-random", THREE, ["A", "A"], [0, 0, 0], 1, rng=Script(0.1, 0.1))
    assert move == "0 1 0"
    # A new derivation is offered last for an S group: words (A, "S"), r = 0.99 -> -1.
    _, _, move = move_of("thesis-random", ["S->A", "A->a"], ["A"], [0, 0], 0, rng=Script(0.0, 0.99))
    assert move == "-1 0 0"
    # Bank steps draw group, production, word; the slip hides the A that aA adds, so
    # after "0 1 1" (A: 1 - 1 - 1) the banked A->a is never drawn.
    _, _, move = move_of("thesis-random", FOUR, ["A"], [0, 0, 0, 1], 1, rng=Script(0.9, 0.0))
    assert move == "0 1 1"


def test_get_rand_is_the_programs_weighted_choice():
    assert get_rand([1.0, 1.0, 2.0], 0.0) == 0        # 0 - 1 <= 0
    assert get_rand([1.0, 1.0, 2.0], 0.5) == 1        # 2 - 1 > 0, 1 - 1 <= 0
    assert get_rand([0.0, 0.0], 0.7) == 0             # 0 - 0 <= 0 at once
    assert get_rand([math.inf, 1.0], 0.5) == 0        # inf - inf is NaN: never <= 0 -> 0
    assert get_rand([1.0, math.nan], 0.5) == 0


def test_short_words_best_production_reads_another_groups_best():
    # All productions of S have M2 = 1, so terminals break the ties, compared with
    # production bestProd[j] -- group j's best so far, 0 while unset: j = 1: zzz (3) >
    # x (1) -> zzz; j = 2: yy (2) > bestProd[2] = 0 of group 0, x (1) -> yy.
    groups = ["S->x|zzz|yy", "B->b", "C->c"]
    _, _, move = move_of("thesis-short-words", groups, [], [0, 0, 0], 0)
    assert move == "-1 0 2"
    game = tiny_game(groups)
    ours = REGISTRY.make_bot(game, "short-words")
    assert str(ours.choose_move(game, GameState.create(3, 0, ([], []), None, 0), random.Random(0))) == "-1 0 1"
    # With only two groups bestProd[2] does not exist: the program throws in beforeStart.
    with pytest.raises(BotSpecError, match="bestProd\\[2\\] is out of range"):
        REGISTRY.make_bot(tiny_game(["S->x|zzz|yy", "B->b"], bank_rule="thesis-program"),
                          "thesis-short-words")


def test_program_metrics_start_every_production_not_computed():
    # S->A, A->a|aA, weights 1 1 (total 2). The program's sweeps: S->A: A's groups are
    # all "not computed", so 0; A->a: 1; A->aA: 1 x 0.5 = 0.5 ... A converges on its
    # terminal production, S on 0.5.
    settings = ProgramSettings(Grammar.of(["S->A", "A->a|aA"], (1, 1)), 10)
    net, prods = settings.count_metric()
    assert net == [0.5, 1.0]
    assert prods == [[0.5], [1.0, 0.5]]
    assert settings.chars == ("S", "A")
    net3, _ = settings.count_better_metric()
    assert net3 == [0.5, 1.0]
    stupid_net, stupid_prods = settings.count_stupid_metric()
    assert stupid_net == [0, 0] and stupid_prods == [[1], [0, 1]]


def test_csharp_float_semantics():
    assert cs_pow(0.0, 0) == 1.0 and cs_pow(0.0, 2) == 0.0 and cs_pow(0.0, -1) == math.inf
    assert cs_pow(1e-200, -2) == math.inf
    sums = [0.25, 0.0]
    assert word_metric([1, -1], sums) == math.inf            # 0 ** -1
    assert math.isnan(word_metric([1, -1], [0.0, 0.0]))     # 0 x inf
    assert word_metric([-2, 0], sums) == 16.0
    assert better_word_metric([2, -1], sums) == 0.125        # negatives are ignored
    assert better_word_metric([0, -3], sums) == 1.0


def test_inversed_weights_give_every_production_the_groups_weight():
    settings = ProgramSettings(Grammar.of(THREE), 10)
    strategy = InversedSmartRandomStrategy(settings)
    net = strategy.net
    assert strategy.production_weights(1) == [1.01 - net[1], 1.01 - net[1]]
    assert strategy.group_weights([2]) == [1.01 - net[2]]
    word = Word([0, 1, 0], 0)
    m = better_word_metric(word.counts, strategy.sums)
    assert strategy.word_weights([word]) == [1.01 - m]


class Recorder(Strategy):
    def __init__(self, settings, name, calls):
        super().__init__(settings)
        self.name, self.calls = name, calls

    def make_move(self, player, move_number, roll, words, bank, rng):
        self.calls.append(self.name)
        return []


def test_adaptive_switches_when_nonterminals_times_coef_reach_the_moves_left():
    settings = ProgramSettings(Grammar.of(THREE), 50)
    strategy = AdaptiveRandomStrategy(settings, coef=10.0)
    calls: list[str] = []
    strategy.starting = Recorder(settings, "start", calls)
    strategy.finishing = Recorder(settings, "finish", calls)
    words = [Word([0, 2, 1], 0), Word([0, 0, 0], 3)]            # 3 nonterminals
    for move_number in (19, 20, 21):                           # 30 < 50 - n ?
        strategy.make_move(0, move_number, 1, words, [0, 0, 0], random.Random(0))
    assert calls == ["start", "finish", "finish"]


def test_mixed_draws_next_of_the_sum_in_the_programs_order():
    # Points named (random 1, short 2, search 3, adaptive 4); the program keeps them in
    # the order better-smart-random, search, short words, adaptive: Next(10) below 1 is
    # random, below 4 search, below 6 short words, else adaptive.
    settings = ProgramSettings(Grammar.of(THREE), 50)
    strategy = MixedStrategy(settings, 1, 2, 3, 4)
    calls: list[str] = []
    strategy.strategies = tuple(
        Recorder(settings, name, calls) for name in ("random", "search", "short", "adaptive")
    )
    for r in (0.05, 0.1, 0.35, 0.4, 0.59, 0.6, 0.99):
        strategy.make_move(0, 0, 1, [], [0, 0, 0], Script(r))
    assert calls == ["random", "search", "search", "short", "short", "adaptive", "adaptive"]


def test_a_failing_strategy_forfeits_with_its_reason():
    game = tiny_game(THREE, bank_rule="thesis-program")
    bot = REGISTRY.make_bot(game, "thesis-search")
    state = GameState.create(3, 0, (["A"], []), [0, 0, 0], 1)

    def fail(*args):
        from bots.substitution.program.simplified import ProgramError

        raise ProgramError("List index -1")

    bot.strategy.make_move = fail
    move = bot.choose_move(game, state, random.Random(0))
    assert "List index -1" in move and bot.failures == 1
    from arena.match import Match

    match = Match(game, ["a", "b"], seed=0)
    assert match.submit(0, move).rejection.code == "malformed"


@pytest.mark.parametrize("grammar", ["classic", "low-s", "medium", "low", "trap"])
def test_program_bots_play_whole_games_legally_under_the_programs_rule(grammar):
    from arena.games.substitution import Settings, SubstitutionGame
    from arena.match import play_match
    from arena.validate import validate_record

    game = SubstitutionGame(Settings.preset(grammar, 60, "thesis-program"))
    specs = ["thesis-random", "thesis-smart-random", "thesis-better-smart-random",
             "thesis-inversed-smart-random", "thesis-improved-random", "thesis-stupid-short-words",
             "thesis-short-words", "thesis-search:depth=1", "thesis-search:depth=4",
             "thesis-adaptive-random:omega=10", "thesis-adaptive-random:finish=short-words",
             "thesis-mixed:points=1,1,1,10"]
    for index, spec in enumerate(specs):
        other = specs[(index + 1) % len(specs)]
        bots = [REGISTRY.make_bot(game, spec), REGISTRY.make_bot(game, other)]
        match = play_match(game, bots, seed=index, names=[spec, other])
        assert match.outcome.termination.value == "normal", match.outcome.detail
        assert validate_record(match.record()) is None


def test_smart_random_weighs_productions_by_their_m2():
    # THREE (weights 1 1 1): the program's sweeps give A->BB 1/9 (B->b: 1/3 each B) and
    # A->aA 1/27 (A is worth (1/9) / 3). Roll A->BB|aA, words A and aA (equal metrics).
    settings = ProgramSettings(Grammar.of(THREE), 5)
    from bots.substitution.program.strategies import SmartRandomStrategy

    strategy = SmartRandomStrategy(settings)
    assert strategy.prods[1] == pytest.approx([1 / 9, 1 / 27])
    # r = 0.9: 0.9 x 4/27 - 1/9 > 0, then - 1/27 <= 0 -> aA; r = 0 -> the first word.
    _, _, move = move_of("thesis-smart-random", THREE, ["A", "aA"], [0, 0, 0], 1, rng=Script(0.9, 0.0))
    assert move == "0 1 1"
    # r = 0.5: 0.5 x 4/27 - 1/9 <= 0 -> BB; r = 0.99 -> the second word.
    _, _, move = move_of("thesis-smart-random", THREE, ["A", "aA"], [0, 0, 0], 1, rng=Script(0.5, 0.99))
    assert move == "1 1 0"


def test_better_smart_random_takes_square_roots_of_m3():
    settings = ProgramSettings(Grammar.of(THREE), 5)
    from bots.substitution.program.strategies import BetterSmartRandomStrategy

    strategy = BetterSmartRandomStrategy(settings)
    net3, prods3 = settings.count_better_metric()
    assert strategy.production_weights(1) == [math.sqrt(m) for m in prods3[1]]
    assert strategy.group_weights([0, 2]) == [math.sqrt(net3[0]), math.sqrt(net3[2])]
    word = Word([0, 1, 1], 2)                                    # "aAB"-like counts
    sums = settings.letter_sums(net3)
    assert strategy.word_weights([word]) == [math.sqrt(sums[1] * sums[2])]
