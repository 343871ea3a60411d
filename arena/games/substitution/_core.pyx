# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The substitution game's rules, compiled: states, turns, the referee's checks.

Every derivation keeps its string and, beside it, the count of each nonterminal (the
thesis's `SimplifiedWord`), so applicability checks never scan strings. Each state
also keeps, per player, the total of each nonterminal over all derivations, so "does
any derivation of this player contain A?" is one array lookup.

States are immutable values. A `Turn` is the working copy of one player's turn: the
referee replays a proposed move on it step by step, bots and user interfaces ask it
for the legal next steps. Nothing here does I/O or draws random numbers of its own.
"""

from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset

from arena.game import Rejection

cdef enum:
    NT = 26          # nonterminals are the letters A-Z
    S_INDEX = 18     # 'S' - 'A'

# Rejection codes (stable, documented in docs/substitution.md).
MALFORMED = "malformed"
NOT_ROLLED_GROUP = "not-rolled-group"
GROUP_OUT_OF_RANGE = "group-out-of-range"
PRODUCTION_OUT_OF_RANGE = "production-out-of-range"
WORD_OUT_OF_RANGE = "word-out-of-range"
NONTERMINAL_MISSING = "nonterminal-missing"
NEW_DERIVATION_NOT_S = "new-derivation-not-s"
NEW_DERIVATION_FROM_BANK = "new-derivation-from-bank"
NOT_IN_BANK = "not-in-bank"
ROLLED_GROUP_UNAPPLIED = "rolled-group-unapplied"
BANK_GROUP_APPLICABLE = "bank-group-applicable"


cdef inline int _letter(str ch):
    cdef Py_UCS4 c = ch[0]
    if c >= 65 and c <= 90:
        return <int>c - 65
    return -1


cdef str _short(str text, int limit=40):
    if len(text) <= limit:
        return text
    return text[:limit - 3] + "..."


cdef str _where(int index, int word, int group, int production):
    return f"step {index + 1} ({word} {group} {production})"


cdef class CompiledGrammar:
    """A grammar turned into flat arrays for the hot loops."""

    cdef readonly int n_groups
    cdef readonly object grammar
    cdef int *left
    cdef int *alt_start
    cdef int *alt_count
    cdef int n_alts
    cdef int *alt_nt          # n_alts rows of NT counts
    cdef int *alt_nt_total
    cdef list alt_text
    cdef list left_char
    cdef list group_text

    def __cinit__(self, grammar):
        cdef int g, a, k, index
        groups = grammar.groups
        self.grammar = grammar
        self.n_groups = len(groups)
        self.n_alts = sum(len(group.alternatives) for group in groups)
        self.left = <int *>malloc(self.n_groups * sizeof(int))
        self.alt_start = <int *>malloc(self.n_groups * sizeof(int))
        self.alt_count = <int *>malloc(self.n_groups * sizeof(int))
        self.alt_nt = <int *>calloc(self.n_alts * NT, sizeof(int))
        self.alt_nt_total = <int *>calloc(self.n_alts, sizeof(int))
        if not (self.left and self.alt_start and self.alt_count and self.alt_nt and self.alt_nt_total):
            raise MemoryError()
        self.alt_text = []
        self.left_char = []
        self.group_text = []
        index = 0
        for g in range(self.n_groups):
            group = groups[g]
            self.left[g] = _letter(group.left)
            self.left_char.append(group.left)
            self.group_text.append(str(group))
            self.alt_start[g] = index
            self.alt_count[g] = len(group.alternatives)
            for text in group.alternatives:
                self.alt_text.append(text)
                for ch in text:
                    k = _letter(ch)
                    if k >= 0:
                        self.alt_nt[index * NT + k] += 1
                        self.alt_nt_total[index] += 1
                index += 1

    def __dealloc__(self):
        free(self.left)
        free(self.alt_start)
        free(self.alt_count)
        free(self.alt_nt)
        free(self.alt_nt_total)

    def group_left(self, int group):
        return self.left_char[group]


cdef class Derivation:
    """A sentential form: its text and, beside it, the count of each nonterminal."""

    cdef readonly str text
    cdef int counts[NT]
    cdef readonly int nonterminals

    def __init__(self, str text):
        cdef int k
        self.text = text
        memset(self.counts, 0, sizeof(self.counts))
        self.nonterminals = 0
        for ch in text:
            k = _letter(ch)
            if k >= 0:
                self.counts[k] += 1
                self.nonterminals += 1

    def count(self, str letter):
        """How many times the nonterminal `letter` occurs."""
        cdef int k = _letter(letter) if len(letter) == 1 else -1
        if k < 0:
            raise ValueError(f"{letter!r} is not a nonterminal A-Z")
        return self.counts[k]

    @property
    def terminals(self):
        return len(self.text) - self.nonterminals

    @property
    def finished(self):
        """True once no nonterminal is left: the derivation is a word."""
        return self.nonterminals == 0

    @property
    def score(self):
        """3 + length for a finished word, 0 for a derivation still holding a nonterminal."""
        return 3 + len(self.text) if self.nonterminals == 0 else 0

    def __eq__(self, other):
        return isinstance(other, Derivation) and (<Derivation>other).text == self.text

    def __hash__(self):
        return hash(self.text)

    def __repr__(self):
        return f"Derivation({self.text!r})"

    def __str__(self):
        return self.text

    def __reduce__(self):
        return (Derivation, (self.text,))


cdef Derivation _rewrite(Derivation word, CompiledGrammar g, int group, int alt):
    """`word` with the leftmost occurrence of the group's left nonterminal replaced."""
    cdef Derivation result = Derivation.__new__(Derivation)
    cdef int index = g.alt_start[group] + alt
    cdef int k
    cdef str text = word.text
    cdef Py_ssize_t at = text.find(<str>g.left_char[group])
    result.text = text[:at] + <str>g.alt_text[index] + text[at + 1:]
    memcpy(result.counts, word.counts, sizeof(word.counts))
    result.counts[g.left[group]] -= 1
    for k in range(NT):
        result.counts[k] += g.alt_nt[index * NT + k]
    result.nonterminals = word.nonterminals - 1 + g.alt_nt_total[index]
    return result


cdef Derivation _fresh(CompiledGrammar g, int group, int alt):
    """A new derivation S => alternative."""
    cdef Derivation result = Derivation.__new__(Derivation)
    cdef int index = g.alt_start[group] + alt
    result.text = <str>g.alt_text[index]
    memcpy(result.counts, &g.alt_nt[index * NT], sizeof(result.counts))
    result.nonterminals = g.alt_nt_total[index]
    return result


cdef class GameState:
    """Everything about a game between two moves: both players' derivations, the shared
    bank, how many turns were made, and the pending roll (``None`` before the dice)."""

    cdef readonly int turn
    cdef readonly tuple derivations
    cdef readonly object roll
    cdef int n_groups
    cdef int *bank_counts
    cdef int totals[2][NT]

    def __dealloc__(self):
        free(self.bank_counts)

    @staticmethod
    def create(int n_groups, int turn=0, derivations=((), ()), bank=None, roll=None):
        """A state from its parts (derivation texts or `Derivation` objects)."""
        cdef GameState state = _new_state(n_groups)
        cdef int p, k, g
        cdef Derivation word
        if len(derivations) != 2:
            raise ValueError("derivations must be a pair (one sequence per player)")
        if turn < 0:
            raise ValueError("turn must not be negative")
        state.turn = turn
        state.roll = roll
        players = []
        for p in range(2):
            words = tuple(w if isinstance(w, Derivation) else Derivation(w) for w in derivations[p])
            players.append(words)
            for word in words:
                for k in range(NT):
                    state.totals[p][k] += word.counts[k]
        state.derivations = tuple(players)
        if bank is not None:
            if len(bank) != n_groups:
                raise ValueError(f"the bank has {len(bank)} counts for {n_groups} groups")
            for g in range(n_groups):
                if bank[g] < 0:
                    raise ValueError("bank counts must not be negative")
                state.bank_counts[g] = bank[g]
        return state

    @property
    def bank(self):
        """How many copies of each group the shared bank holds."""
        return tuple([self.bank_counts[g] for g in range(self.n_groups)])

    @property
    def player(self):
        """The player whose turn it is (player 0 moves first)."""
        return self.turn % 2

    @property
    def move_number(self):
        """The 0-based round: both players have made this many turns before it."""
        return self.turn // 2

    def with_roll(self, roll):
        """The same state with the dice rolled."""
        cdef GameState state = _copy_state(self)
        state.roll = roll
        return state

    def holds(self, int player, str letter):
        """True if some derivation of `player` contains the nonterminal `letter`."""
        cdef int k = _letter(letter)
        return k >= 0 and self.totals[player][k] > 0

    def scores(self):
        """Each player's score: 3 + length of every finished word."""
        return tuple(sum(word.score for word in words) for words in self.derivations)

    def _key(self):
        return (
            self.turn,
            self.roll,
            self.bank,
            tuple(tuple(w.text for w in words) for words in self.derivations),
        )

    def __eq__(self, other):
        return isinstance(other, GameState) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (
            f"GameState(turn={self.turn}, roll={self.roll!r}, bank={self.bank}, "
            f"derivations={tuple(tuple(w.text for w in ws) for ws in self.derivations)})"
        )

    def __reduce__(self):
        return (
            GameState.create,
            (self.n_groups, self.turn, self.derivations, self.bank, self.roll),
        )


cdef GameState _new_state(int n_groups):
    cdef GameState state = GameState.__new__(GameState)
    state.n_groups = n_groups
    state.bank_counts = <int *>calloc(n_groups if n_groups > 0 else 1, sizeof(int))
    if not state.bank_counts:
        raise MemoryError()
    memset(state.totals, 0, sizeof(state.totals))
    state.derivations = ((), ())
    return state


cdef GameState _copy_state(GameState source):
    cdef GameState state = _new_state(source.n_groups)
    state.turn = source.turn
    state.roll = source.roll
    state.derivations = source.derivations
    memcpy(state.bank_counts, source.bank_counts, source.n_groups * sizeof(int))
    memcpy(state.totals, source.totals, sizeof(source.totals))
    return state


cdef class Turn:
    """One player's turn being built: a working copy of their derivations and the bank.

    Steps are applied one at a time. `legal_steps()` lists what may come next and
    `can_end()` tells whether the turn may stop here; the referee uses the same checks
    to judge a whole move. `finish()` gives the state after the turn.
    """

    cdef readonly CompiledGrammar grammar
    cdef readonly GameState base
    cdef readonly int player
    cdef readonly int roll
    cdef list words
    cdef int totals[NT]
    cdef int *bank_counts
    cdef list steps
    cdef list undo_log

    def __cinit__(self, CompiledGrammar grammar, GameState base):
        if base.roll is None:
            raise ValueError("the dice have not been rolled in this state")
        self.grammar = grammar
        self.base = base
        self.player = base.turn % 2
        self.roll = base.roll
        self.words = list(base.derivations[self.player])
        memcpy(self.totals, base.totals[self.player], sizeof(self.totals))
        self.bank_counts = <int *>malloc((base.n_groups if base.n_groups > 0 else 1) * sizeof(int))
        if not self.bank_counts:
            raise MemoryError()
        memcpy(self.bank_counts, base.bank_counts, base.n_groups * sizeof(int))
        self.steps = []
        self.undo_log = []

    def __dealloc__(self):
        free(self.bank_counts)

    # -- reading ---------------------------------------------------------------------

    @property
    def derivations(self):
        """The player's derivations as they stand in this partial turn."""
        return tuple(self.words)

    @property
    def bank(self):
        return tuple([self.bank_counts[g] for g in range(self.grammar.n_groups)])

    @property
    def applied(self):
        """The steps applied so far, as ``(word, group, production)`` tuples."""
        return tuple(self.steps)

    def holds(self, str letter):
        cdef int k = _letter(letter)
        return k >= 0 and self.totals[k] > 0

    # -- checking ----------------------------------------------------------------------

    cdef object _step_problem(self, int word, int group, int production):
        """``None`` if the step may be applied next, else a `Rejection`."""
        cdef CompiledGrammar g = self.grammar
        cdef int index = len(self.steps)
        cdef int left
        cdef Derivation target
        if group < 0 or group >= g.n_groups:
            return Rejection(
                GROUP_OUT_OF_RANGE,
                f"{_where(index, word, group, production)}: there is no group {group} (groups are 0 to {g.n_groups - 1})",
                index,
            )
        left = g.left[group]
        if index == 0:
            if group != self.roll:
                return Rejection(
                    NOT_ROLLED_GROUP,
                    f"{_where(index, word, group, production)}: the first step must apply the rolled group {self.roll}, not group {group}",
                    index,
                )
        elif self.bank_counts[group] <= 0:
            return Rejection(
                NOT_IN_BANK,
                f"{_where(index, word, group, production)}: group {group} ({g.group_text[group]}) is not in the bank"
                + (" any more" if self.base.bank_counts[group] > 0 else ""),
                index,
            )
        if production < 0 or production >= g.alt_count[group]:
            return Rejection(
                PRODUCTION_OUT_OF_RANGE,
                f"{_where(index, word, group, production)}: group {group} ({g.group_text[group]}) has no production {production} "
                f"(it has {g.alt_count[group]})",
                index,
            )
        if word == -1:
            if index > 0:
                return Rejection(
                    NEW_DERIVATION_FROM_BANK,
                    f"{_where(index, word, group, production)}: only the rolled S group may start a new derivation",
                    index,
                )
            if left != S_INDEX:
                return Rejection(
                    NEW_DERIVATION_NOT_S,
                    f"{_where(index, word, group, production)}: group {group} ({g.group_text[group]}) is not an S group and cannot start a new derivation",
                    index,
                )
            return None
        if word < -1 or word >= len(self.words):
            return Rejection(
                WORD_OUT_OF_RANGE,
                f"{_where(index, word, group, production)}: there is no derivation {word} (player {self.player} has {len(self.words)}; -1 starts a new one)",
                index,
            )
        target = <Derivation>self.words[word]
        if target.counts[left] <= 0:
            return Rejection(
                NONTERMINAL_MISSING,
                f"{_where(index, word, group, production)}: derivation {word} ({_short(target.text)!r}) has no {g.left_char[group]} "
                f"for group {group} ({g.group_text[group]})",
                index,
            )
        return None

    cdef object _end_problem(self):
        """``None`` if the turn may end here, else a `Rejection`."""
        cdef CompiledGrammar g = self.grammar
        cdef int group, left, w
        cdef int index = len(self.steps)
        if index == 0:
            left = g.left[self.roll]
            if left == S_INDEX:
                return Rejection(
                    ROLLED_GROUP_UNAPPLIED,
                    f"the rolled group {self.roll} ({g.group_text[self.roll]}) is an S group and must be applied",
                    None,
                )
            if self.totals[left] > 0:
                return Rejection(
                    ROLLED_GROUP_UNAPPLIED,
                    f"the rolled group {self.roll} ({g.group_text[self.roll]}) applies to derivation "
                    f"{self._first_holding(left)} ({_short(self.words[self._first_holding(left)].text)!r}) "
                    "and must be applied",
                    None,
                )
            return None
        for group in range(g.n_groups):
            if self.bank_counts[group] > 0 and self.totals[g.left[group]] > 0:
                w = self._first_holding(g.left[group])
                return Rejection(
                    BANK_GROUP_APPLICABLE,
                    f"the turn ends after step {index} while bank group {group} ({g.group_text[group]}) "
                    f"still applies to derivation {w} ({_short(self.words[w].text)!r})",
                    None,
                )
        return None

    cdef int _first_holding(self, int left):
        cdef int w
        for w in range(len(self.words)):
            if (<Derivation>self.words[w]).counts[left] > 0:
                return w
        return -1

    cdef void _apply(self, int word, int group, int production):
        cdef CompiledGrammar g = self.grammar
        cdef int index = g.alt_start[group] + production
        cdef int k
        cdef Derivation old
        if word == -1:
            self.words.append(_fresh(g, group, production))
            self.undo_log.append(None)
        else:
            old = <Derivation>self.words[word]
            self.words[word] = _rewrite(old, g, group, production)
            self.undo_log.append(old)
            self.totals[g.left[group]] -= 1
        for k in range(NT):
            self.totals[k] += g.alt_nt[index * NT + k]
        if len(self.steps) > 0:
            self.bank_counts[group] -= 1
        self.steps.append((word, group, production))

    # -- building (bots, user interfaces) ---------------------------------------------

    def check(self, int word, int group, int production):
        """Why the step may not come next (a `Rejection`), or ``None`` if it may."""
        return self._step_problem(word, group, production)

    def apply(self, int word, int group, int production):
        """Apply a step; raise `ValueError` with the rejection message if it is illegal."""
        problem = self._step_problem(word, group, production)
        if problem is not None:
            raise ValueError(problem.message)
        self._apply(word, group, production)

    def undo(self):
        """Take back the last step; raise `IndexError` if there is none."""
        cdef CompiledGrammar g = self.grammar
        cdef int word, group, production, index, k
        cdef Derivation old
        if not self.steps:
            raise IndexError("no step to undo")
        word, group, production = self.steps.pop()
        previous = self.undo_log.pop()
        index = g.alt_start[group] + production
        if word == -1:
            self.words.pop()
        else:
            self.words[word] = previous
            self.totals[g.left[group]] += 1
        for k in range(NT):
            self.totals[k] -= g.alt_nt[index * NT + k]
        if len(self.steps) > 0:
            self.bank_counts[group] += 1

    def can_end(self):
        """True if the turn may end after the steps applied so far."""
        return self._end_problem() is None

    def end_problem(self):
        """Why the turn may not end here (a `Rejection`), or ``None``."""
        return self._end_problem()

    def legal_steps(self):
        """Every step that may come next, as ``(word, group, production)`` tuples."""
        cdef CompiledGrammar g = self.grammar
        cdef int group, left, w, a
        result = []
        if not self.steps:
            group = self.roll
            left = g.left[group]
            if left == S_INDEX:
                for a in range(g.alt_count[group]):
                    result.append((-1, group, a))
            for w in range(len(self.words)):
                if (<Derivation>self.words[w]).counts[left] > 0:
                    for a in range(g.alt_count[group]):
                        result.append((w, group, a))
            return result
        for group in range(g.n_groups):
            left = g.left[group]
            if self.bank_counts[group] <= 0 or self.totals[left] <= 0:
                continue
            for w in range(len(self.words)):
                if (<Derivation>self.words[w]).counts[left] > 0:
                    for a in range(g.alt_count[group]):
                        result.append((w, group, a))
        return result

    def words_holding(self, int group):
        """Indexes of the derivations the group could rewrite now."""
        cdef int left = self.grammar.left[group]
        cdef int w
        return [w for w in range(len(self.words)) if (<Derivation>self.words[w]).counts[left] > 0]

    def applicable_bank_groups(self):
        """Bank groups that apply to some derivation now (they must be used)."""
        cdef CompiledGrammar g = self.grammar
        cdef int group
        return [
            group for group in range(g.n_groups)
            if self.bank_counts[group] > 0 and self.totals[g.left[group]] > 0
        ]

    def finish(self):
        """The state after this turn; raise `ValueError` if the turn may not end here."""
        problem = self._end_problem()
        if problem is not None:
            raise ValueError(problem.message)
        return self._finish()

    cdef GameState _finish(self):
        cdef GameState base = self.base
        cdef GameState state = _new_state(base.n_groups)
        state.turn = base.turn + 1
        state.roll = None
        memcpy(state.bank_counts, self.bank_counts, base.n_groups * sizeof(int))
        memcpy(state.totals, base.totals, sizeof(base.totals))
        memcpy(state.totals[self.player], self.totals, sizeof(self.totals))
        if not self.steps:
            state.bank_counts[self.roll] += 1
            state.derivations = base.derivations
        elif self.player == 0:
            state.derivations = (tuple(self.words), base.derivations[1])
        else:
            state.derivations = (base.derivations[0], tuple(self.words))
        return state


def check_turn(CompiledGrammar grammar, GameState state, steps):
    """Judge a whole move: the state after it, or the `Rejection` of its first defect.

    `state` must hold the roll. `steps` is a sequence of ``(word, group, production)``.
    """
    cdef Turn turn = Turn(grammar, state)
    cdef int word, group, production
    for step in steps:
        word, group, production = step
        problem = turn._step_problem(word, group, production)
        if problem is not None:
            return problem
        turn._apply(word, group, production)
    problem = turn._end_problem()
    if problem is not None:
        return problem
    return turn._finish()


cdef inline int _pick_uniform(int n, double r):
    """The thesis's weighted pick with equal weights: first i with r*n - (i+1) <= 0."""
    cdef double rest = r * n
    cdef int i
    for i in range(n):
        rest -= 1.0
        if rest <= 0:
            return i
    return 0


def random_turn(CompiledGrammar grammar, GameState state, random):
    """A uniformly random legal turn (thesis Algorithm 1 with equal weights).

    The draws follow the thesis program's order: for the rolled group, production then
    derivation; then, while some bank group applies, group, production, derivation.
    `random` is a function returning floats in [0, 1).
    """
    cdef Turn turn = Turn(grammar, state)
    cdef CompiledGrammar g = grammar
    cdef int group = turn.roll, left = g.left[group], production, w, n, choice, k
    cdef int candidates[1024]
    cdef list holding
    holding = [w for w in range(len(turn.words)) if (<Derivation>turn.words[w]).counts[left] > 0]
    if left == S_INDEX:
        holding.append(-1)
    if not holding:
        return ()
    production = _pick_uniform(g.alt_count[group], random())
    w = holding[_pick_uniform(len(holding), random())]
    turn._apply(w, group, production)
    while True:
        n = 0
        for k in range(g.n_groups):
            if turn.bank_counts[k] > 0 and turn.totals[g.left[k]] > 0 and n < 1024:
                candidates[n] = k
                n += 1
        if n == 0:
            break
        group = candidates[_pick_uniform(n, random())]
        left = g.left[group]
        production = _pick_uniform(g.alt_count[group], random())
        holding = [w for w in range(len(turn.words)) if (<Derivation>turn.words[w]).counts[left] > 0]
        w = holding[_pick_uniform(len(holding), random())]
        turn._apply(w, group, production)
    return tuple(turn.steps)
