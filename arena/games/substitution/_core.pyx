# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The substitution game's rules, compiled: states, turns, the referee's checks.

Every derivation keeps its string and, beside it, the count of each nonterminal (the
thesis's `SimplifiedWord`), so applicability checks never scan strings. Each state
also keeps, per player, the total of each nonterminal over all derivations, so "does
any derivation of this player contain A?" is one array lookup.

States are immutable values. A `Turn` is the working copy of one player's turn: the
referee replays a proposed move on it step by step, bots and user interfaces ask it
for the legal next steps. Nothing here does I/O or draws random numbers of its own.

Two bank rules (the `bank_rule` setting, docs/substitution.md): ``strict``, the rules
as the thesis writes them, and ``thesis-program``, what the thesis program's `Game`
class (appendix B, `applyMoves`) really accepts. Every check takes a ``program`` flag:

* the end-of-turn bank obligation is not checked: the program's loop over the bank
  advances its group counter only for groups in the bank, so it only ever reads group
  0 -- an S group in every grammar it shipped, never banked -- and, were group 0 in
  the bank, it would index a derivation's counts by a character code and throw
  (rejected here as ``program-exception``);
* a step whose word index is out of range (-1, below -1 or past the last derivation)
  starts a new derivation if the group rewrites S (also from the bank) and otherwise
  does nothing; a bank group it names still leaves the bank, and a rolled group it
  names is used up (not banked);
* an out-of-range group or production index throws in the program (rejected here);
  the program reads the production before it checks the roll and the bank, and so
  do the checks here.
"""

cimport cython
from libc.stdlib cimport calloc, free, malloc
from cpython.long cimport PyLong_AsLongAndOverflow
from cpython.unicode cimport PyUnicode_DATA, PyUnicode_GET_LENGTH, PyUnicode_KIND, PyUnicode_READ
from libc.string cimport memcpy, memset

cdef extern from "Python.h":
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)
    Py_ssize_t PyUnicode_CopyCharacters(object to, Py_ssize_t to_start, object source,
                                        Py_ssize_t from_start, Py_ssize_t how_many) except -1
    Py_UCS4 PyUnicode_MAX_CHAR_VALUE(object text)
    Py_ssize_t PyUnicode_FindChar(object text, Py_UCS4 ch, Py_ssize_t start, Py_ssize_t end,
                                  int direction) except -2

from arena.game import Rejection
# A Python-level import, not a cimport: this core must load beside a chance.py that runs
# as plain Python (ARENA_PURE=1) as well as beside its compiled extension type.
from arena.chance import ChanceSource

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
PROGRAM_EXCEPTION = "program-exception"

_NOOP = object()   # undo-log entry of a step that changed no derivation (thesis-program)


cdef inline int _letter(str ch):
    cdef Py_UCS4 c = ch[0]
    if c >= 65 and c <= 90:
        return <int>c - 65
    return -1


cdef str _short(str text, int limit=40):
    if text is None:
        return "(text not tracked)"   # counts-only replay; its messages are discarded
    if len(text) <= limit:
        return text
    return text[:limit - 3] + "..."


cdef str _where(int index, int word, int group, int production):
    return f"step {index} ({word} {group} {production})"  # 0-based, as Rejection.step


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
    cdef int *alt_terminals
    cdef int *sparse_start    # per alternative: its nonterminals as (letter, count) pairs
    cdef int *sparse_len
    cdef int *sparse_letter
    cdef int *sparse_count
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
        self.alt_terminals = <int *>calloc(self.n_alts if self.n_alts > 0 else 1, sizeof(int))
        self.sparse_start = <int *>calloc(self.n_alts if self.n_alts > 0 else 1, sizeof(int))
        self.sparse_len = <int *>calloc(self.n_alts if self.n_alts > 0 else 1, sizeof(int))
        self.sparse_letter = <int *>calloc(self.n_alts * NT if self.n_alts > 0 else 1, sizeof(int))
        self.sparse_count = <int *>calloc(self.n_alts * NT if self.n_alts > 0 else 1, sizeof(int))
        if not (self.left and self.alt_start and self.alt_count and self.alt_nt and self.alt_nt_total
                and self.alt_terminals and self.sparse_start and self.sparse_len
                and self.sparse_letter and self.sparse_count):
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
                    else:
                        self.alt_terminals[index] += 1
                self.sparse_start[index] = index * NT
                for k in range(NT):
                    if self.alt_nt[index * NT + k]:
                        self.sparse_letter[index * NT + self.sparse_len[index]] = k
                        self.sparse_count[index * NT + self.sparse_len[index]] = self.alt_nt[index * NT + k]
                        self.sparse_len[index] += 1
                index += 1

    def __dealloc__(self):
        free(self.left)
        free(self.alt_start)
        free(self.alt_count)
        free(self.alt_nt)
        free(self.alt_nt_total)
        free(self.alt_terminals)
        free(self.sparse_start)
        free(self.sparse_len)
        free(self.sparse_letter)
        free(self.sparse_count)


@cython.no_gc
cdef class Derivation:
    """A sentential form: its text and, beside it, the count of each nonterminal.

    `text` is ``None`` only in the summary states of a log replay (`Replay` with
    ``track_text=False``): no log records derivation texts, so none is needed there.

    (States, derivations and turns are not tracked by the cycle collector: they hold
    only strings, numbers and each other in one direction, so they cannot form cycles.)
    """

    cdef readonly str text
    cdef int counts[NT]
    cdef readonly int nonterminals
    cdef readonly int terminals

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
        self.terminals = len(text) - self.nonterminals

    def count(self, str letter):
        """How many times the nonterminal `letter` occurs."""
        cdef int k = _letter(letter) if len(letter) == 1 else -1
        if k < 0:
            raise ValueError(f"{letter!r} is not a nonterminal A-Z")
        return self.counts[k]

    @property
    def finished(self):
        """True once no nonterminal is left: the derivation is a word."""
        return self.nonterminals == 0

    @property
    def score(self):
        """3 + length for a finished word, 0 for a derivation still holding a nonterminal."""
        return 3 + self.terminals if self.nonterminals == 0 else 0

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


cdef Derivation _rewrite(Derivation word, CompiledGrammar g, int group, int alt, bint track_text):
    """`word` with the leftmost occurrence of the group's left nonterminal replaced."""
    cdef Derivation result = Derivation.__new__(Derivation)
    cdef int index = g.alt_start[group] + alt
    cdef int k
    cdef str text
    cdef Py_ssize_t at
    if track_text:
        result.text = _replaced(word.text, g.left[group], <str>g.alt_text[index])
    result.terminals = word.terminals + g.alt_terminals[index]
    memcpy(result.counts, word.counts, sizeof(word.counts))
    result.counts[g.left[group]] -= 1
    for k in range(g.sparse_start[index], g.sparse_start[index] + g.sparse_len[index]):
        result.counts[g.sparse_letter[k]] += g.sparse_count[k]
    result.nonterminals = word.nonterminals - 1 + g.alt_nt_total[index]
    return result


cdef str _replaced(str text, int left, str alt):
    """`text` with its leftmost nonterminal `left` replaced by `alt`, built in one go.

    Both strings are canonical and the result keeps all their characters but one ASCII
    letter, so the larger of their character widths is exactly the result's.
    """
    cdef Py_ssize_t n = len(text), k = len(alt)
    cdef Py_ssize_t at = PyUnicode_FindChar(text, <Py_UCS4>(65 + left), 0, n, 1)
    cdef Py_UCS4 widest = PyUnicode_MAX_CHAR_VALUE(text)
    if PyUnicode_MAX_CHAR_VALUE(alt) > widest:
        widest = PyUnicode_MAX_CHAR_VALUE(alt)
    result = PyUnicode_New(n - 1 + k, widest)
    PyUnicode_CopyCharacters(result, 0, text, 0, at)
    PyUnicode_CopyCharacters(result, at, alt, 0, k)
    PyUnicode_CopyCharacters(result, at + k, text, at + 1, n - at - 1)
    return <str>result


cdef Derivation _fresh(CompiledGrammar g, int group, int alt, bint track_text):
    """A new derivation S => alternative."""
    cdef Derivation result = Derivation.__new__(Derivation)
    cdef int index = g.alt_start[group] + alt
    if track_text:
        result.text = <str>g.alt_text[index]
    result.terminals = g.alt_terminals[index]
    memcpy(result.counts, &g.alt_nt[index * NT], sizeof(result.counts))
    result.nonterminals = g.alt_nt_total[index]
    return result


@cython.no_gc
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
        return (_score(self.derivations[0]), _score(self.derivations[1]))

    def json_parts(self):
        """The derivations' texts (a list per player), the bank and the scores, as lists:
        what `SubstitutionGame.state_to_json` sends, built here because it runs for
        every state the server sends."""
        cdef tuple words
        cdef Derivation word
        texts = []
        for words in self.derivations:
            texts.append([word.text for word in words])
        return (texts, [self.bank_counts[g] for g in range(self.n_groups)],
                [_score(self.derivations[0]), _score(self.derivations[1])])

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


cdef int _score(tuple words):
    """A player's score: 3 + length of every finished word."""
    cdef Derivation word
    cdef int total = 0
    for word in words:
        if word.nonterminals == 0:
            total += 3 + word.terminals
    return total


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


@cython.no_gc
cdef class Turn:
    """One player's turn being built: a working copy of their derivations and the bank.

    Steps are applied one at a time. `legal_steps()` lists what may come next and
    `can_end()` tells whether the turn may stop here; the referee uses the same checks
    to judge a whole move. `finish()` gives the state after the turn.

    With ``program=True`` the checks are the thesis program's (module docstring).
    """

    cdef readonly CompiledGrammar grammar
    cdef readonly GameState base
    cdef readonly int player
    cdef readonly int roll
    cdef readonly bint program
    cdef list words
    cdef int *totals          # the player's nonterminal totals (own copy or borrowed)
    cdef int *bank_counts     # the bank (own copy or borrowed)
    cdef int own_totals[NT]
    cdef int *own_bank
    cdef list steps
    cdef list undo_log
    cdef bint track_text
    cdef bint keep_history    # steps and undo information (not needed to replay logs)
    cdef int n_steps

    def __cinit__(self, CompiledGrammar grammar, GameState base=None, bint program=False, *args):
        self.grammar = grammar
        self.program = program
        self.steps = []
        self.undo_log = []
        self.own_bank = NULL
        self.track_text = True
        self.keep_history = True
        self.n_steps = 0
        if base is not None:
            if base.roll is None:
                raise ValueError("the dice have not been rolled in this state")
            self._own(base)
        # else: set up by _owning() or _borrow()

    cdef void _own(self, GameState base) except *:
        """Work on a private copy of the mover's derivations and of the bank."""
        self.base = base
        self.player = base.turn % 2
        self.roll = base.roll
        self.words = list(base.derivations[self.player])
        memcpy(self.own_totals, base.totals[self.player], sizeof(self.own_totals))
        self.totals = self.own_totals
        self.own_bank = <int *>malloc((base.n_groups if base.n_groups > 0 else 1) * sizeof(int))
        if not self.own_bank:
            raise MemoryError()
        memcpy(self.own_bank, base.bank_counts, base.n_groups * sizeof(int))
        self.bank_counts = self.own_bank

    def __dealloc__(self):
        free(self.own_bank)

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
        cdef int index
        cdef int left
        cdef Derivation target
        index = self.n_steps
        if group < 0 or group >= g.n_groups:
            return Rejection(
                GROUP_OUT_OF_RANGE,
                f"{_where(index, word, group, production)}: there is no group {group} (groups are 0 to {g.n_groups - 1})",
                index,
            )
        left = g.left[group]
        if self.program and (production < 0 or production >= g.alt_count[group]):
            return self._production_problem(index, word, group, production)
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
                + (" any more" if self._used_from_bank(group) else ""),
                index,
            )
        if production < 0 or production >= g.alt_count[group]:
            return self._production_problem(index, word, group, production)
        if self.program and (word < 0 or word >= len(self.words)):
            return None   # a new derivation for an S group, else a step that does nothing
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

    cdef object _production_problem(self, int index, int word, int group, int production):
        cdef CompiledGrammar g = self.grammar
        return Rejection(
            PRODUCTION_OUT_OF_RANGE,
            f"{_where(index, word, group, production)}: group {group} ({g.group_text[group]}) has no production {production} "
            f"(it has {g.alt_count[group]})",
            index,
        )

    cdef object _end_problem(self):
        """``None`` if the turn may end here, else a `Rejection`."""
        cdef CompiledGrammar g = self.grammar
        cdef int group, left, w
        cdef int index = self.n_steps
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
        if self.program:
            if self.bank_counts[0] > 0 and len(self.words) > 0:
                return Rejection(
                    PROGRAM_EXCEPTION,
                    f"the turn ends with group 0 ({g.group_text[0]}) in the bank "
                    f"({self.bank_counts[0]}) and player {self.player} holding derivations: "
                    "the thesis program's end-of-turn bank check then indexes a derivation's "
                    "nonterminal counts by a character code and throws IndexOutOfRangeException",
                    None,
                )
            return None
        for group in range(g.n_groups):
            if self.bank_counts[group] > 0 and self.totals[g.left[group]] > 0:
                w = self._first_holding(g.left[group])
                return Rejection(
                    BANK_GROUP_APPLICABLE,
                    f"the turn ends after {index} step(s) while bank group {group} ({g.group_text[group]}) "
                    f"still applies to derivation {w} ({_short(self.words[w].text)!r})",
                    None,
                )
        return None

    cdef bint _used_from_bank(self, int group):
        cdef int i
        for i in range(1, len(self.steps)):   # (for messages; empty without history)
            if self.steps[i][1] == group:
                return True
        return False

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
        cdef object old
        if word < 0 or word >= len(self.words):
            # -1 (or, under the thesis program's rule, any index out of range)
            if g.left[group] == S_INDEX:
                self.words.append(_fresh(g, group, production, self.track_text))
                old = None
            else:
                old = _NOOP
        else:
            old = <Derivation>self.words[word]
            self.words[word] = _rewrite(<Derivation>old, g, group, production, self.track_text)
            self.totals[g.left[group]] -= 1
        if old is not _NOOP:
            for k in range(g.sparse_start[index], g.sparse_start[index] + g.sparse_len[index]):
                self.totals[g.sparse_letter[k]] += g.sparse_count[k]
        if self.n_steps > 0:
            self.bank_counts[group] -= 1
        self.n_steps += 1
        if self.keep_history:
            self.undo_log.append(old)
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
        self.n_steps -= 1
        word, group, production = self.steps.pop()
        previous = self.undo_log.pop()
        index = g.alt_start[group] + production
        if previous is None:
            self.words.pop()
        elif previous is not _NOOP:
            self.words[word] = previous
            self.totals[g.left[group]] += 1
        if previous is not _NOOP:
            for k in range(g.sparse_start[index], g.sparse_start[index] + g.sparse_len[index]):
                self.totals[g.sparse_letter[k]] -= g.sparse_count[k]
        if self.n_steps > 0:
            self.bank_counts[group] += 1

    def can_end(self):
        """True if the turn may end after the steps applied so far."""
        return self._end_problem() is None

    def end_problem(self):
        """Why the turn may not end here (a `Rejection`), or ``None``."""
        return self._end_problem()

    def legal_steps(self):
        """Every step that may come next, as ``(word, group, production)`` tuples.

        Under the thesis program's rule also a new derivation (-1) for an S group in the
        bank; steps with other out-of-range word indexes, which it accepts too, are not
        listed (they change nothing, or repeat -1).
        """
        cdef CompiledGrammar g = self.grammar
        cdef int group, left, w, a
        result = []
        if self.n_steps == 0:
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
            if self.program and left == S_INDEX and self.bank_counts[group] > 0:
                for a in range(g.alt_count[group]):
                    result.append((-1, group, a))
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
        memcpy(state.totals[self.player], self.totals, NT * sizeof(int))
        if self.n_steps == 0:
            state.bank_counts[self.roll] += 1
            state.derivations = base.derivations
        elif self.player == 0:
            state.derivations = (tuple(self.words), base.derivations[1])
        else:
            state.derivations = (base.derivations[0], tuple(self.words))
        return state


cdef Turn _owning(CompiledGrammar grammar, GameState state, bint program=False):
    """`Turn(grammar, state, program)` without the Python-level constructor call (hot loops)."""
    cdef Turn turn = Turn.__new__(Turn, grammar, None, program)
    turn._own(state)
    return turn


cdef object _empty_move_problem(CompiledGrammar g, GameState state):
    """Why the empty move is illegal in `state` (the roll applies somewhere), or None.

    The same under both bank rules: the thesis program checks an empty move as written.
    """
    cdef int roll = state.roll
    cdef int left = g.left[roll]
    cdef int player = state.turn % 2
    if left != S_INDEX and state.totals[player][left] == 0:
        return None
    return _owning(g, state)._end_problem()


cdef GameState _banked(GameState state):
    """The state after an empty move: the rolled group goes to the bank."""
    cdef GameState after = _copy_state(state)
    after.turn = state.turn + 1
    after.roll = None
    after.bank_counts[<int>state.roll] += 1
    return after


def check_turn(CompiledGrammar grammar, GameState state, steps, bint program=False):
    """Judge a whole move: the state after it, or the `Rejection` of its first defect.

    `state` must hold the roll. `steps` is a sequence of ``(word, group, production)``.
    ``program=True`` judges by the thesis program's bank rule.
    """
    cdef Turn turn
    cdef int word, group, production
    if not steps and state.roll is not None:
        problem = _empty_move_problem(grammar, state)
        if problem is not None:
            return problem
        return _banked(state)
    if state.roll is None:
        raise ValueError("the dice have not been rolled in this state")
    turn = _owning(grammar, state, program)
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


cdef int _pick_holder(list words, int left, bint new_allowed, double r):
    """The derivation a uniform draw `r` picks among those holding `left`, in order,
    followed by -1 (a new derivation) when allowed."""
    cdef Py_ssize_t w, count = 0, n = len(words)
    cdef int chosen
    for w in range(n):
        if (<Derivation>words[w]).counts[left] > 0:
            count += 1
    chosen = _pick_uniform(count + (1 if new_allowed else 0), r)
    for w in range(n):
        if (<Derivation>words[w]).counts[left] > 0:
            if chosen == 0:
                return <int>w
            chosen -= 1
    return -1


def random_turn(CompiledGrammar grammar, GameState state, random):
    """A uniformly random legal turn (thesis Algorithm 1 with equal weights).

    The draws follow the thesis program's order: for the rolled group, production then
    derivation; then, while some bank group applies, group, production, derivation.
    `random` is a function returning floats in [0, 1).
    """
    cdef Turn turn
    cdef CompiledGrammar g = grammar
    cdef int group = state.roll, left = g.left[group], production, w, n, choice, k
    cdef int candidates[1024]
    if left != S_INDEX and state.totals[state.turn % 2][left] == 0:
        return ()
    turn = _owning(grammar, state)
    production = _pick_uniform(g.alt_count[group], random())
    w = _pick_holder(turn.words, left, left == S_INDEX, random())
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
        w = _pick_holder(turn.words, left, False, random())
        turn._apply(w, group, production)
    return tuple(turn.steps)


# -- replaying recorded games ---------------------------------------------------------

cdef Turn _borrow(CompiledGrammar grammar, list words, int *totals, int *bank, int player, int roll,
                  bint track_text, bint program):
    """A turn working directly on a live board (no copies): used to replay logs."""
    cdef Turn turn = Turn.__new__(Turn, grammar, None, program)
    turn.track_text = track_text
    turn.keep_history = track_text   # a counts-only replay never undoes: it starts over
    turn.player = player
    turn.roll = roll
    turn.words = words
    turn.totals = totals
    turn.bank_counts = bank
    return turn


cdef Py_ssize_t _parse_into(str text, long *out, Py_ssize_t capacity):
    """Read a plain move string into `out` (3 numbers a step); the number of steps, or
    -1 to leave the string to `MoveString.parse` (it is not plain, or too long).

    Only strings made of digits, '-', ',', spaces and tabs in the exact move syntax are
    read here; anything else (including every malformed move) goes to the real parser,
    which gives the verdict and its message. So this accepts a subset of what
    `MoveString.parse` accepts, with the same result.
    """
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), pos = 0, count = 0
    cdef int kind = PyUnicode_KIND(text)
    cdef void *data = PyUnicode_DATA(text)
    cdef Py_UCS4 c
    cdef long value
    cdef int field, digits
    cdef bint negative
    while pos < n and _blank(PyUnicode_READ(kind, data, pos)):
        pos += 1
    if pos == n:
        return 0
    while True:
        if count >= capacity:
            return -1
        while pos < n and _blank(PyUnicode_READ(kind, data, pos)):
            pos += 1
        for field in range(3):
            if field > 0:
                if pos >= n or not _blank(PyUnicode_READ(kind, data, pos)):
                    return -1
                while pos < n and _blank(PyUnicode_READ(kind, data, pos)):
                    pos += 1
            negative = pos < n and PyUnicode_READ(kind, data, pos) == u'-'
            if negative:
                pos += 1
            value = 0
            digits = 0
            while pos < n:
                c = PyUnicode_READ(kind, data, pos)
                if c < u'0' or c > u'9':
                    break
                value = value * 10 + (<long>c - 48)
                digits += 1
                pos += 1
            if digits == 0 or digits > 9:
                return -1
            out[3 * count + field] = -value if negative else value
        while pos < n and _blank(PyUnicode_READ(kind, data, pos)):
            pos += 1
        count += 1
        if pos == n:
            return count
        if PyUnicode_READ(kind, data, pos) != u',':
            return -1
        pos += 1


cdef inline bint _blank(Py_UCS4 c):
    return c == u' ' or c == u'\t'


cdef enum:
    PARSE_CAPACITY = 4096   # steps read by the fast parser; longer moves go to MoveString


def fast_parse(str text):
    """The steps the fast parser reads, or ``None`` where the real parser must decide.

    (`SubstitutionGame.parse_move` reads every move the server receives with it: a
    move of up to 64 steps is read into the stack, a longer one into the heap.)"""
    cdef long small[3 * 64]
    cdef long *buffer = small
    # a step takes at least five characters ("0 0 0"): no move has more steps than this
    cdef Py_ssize_t capacity = PyUnicode_GET_LENGTH(text) // 5 + 1, count, i
    if capacity > PARSE_CAPACITY:
        capacity = PARSE_CAPACITY
    if capacity > 64:
        buffer = <long *>malloc(3 * capacity * sizeof(long))
        if not buffer:
            raise MemoryError()
    try:
        count = _parse_into(text, buffer, capacity)
        if count < 0:
            return None
        return tuple([(buffer[3 * i], buffer[3 * i + 1], buffer[3 * i + 2]) for i in range(count)])
    finally:
        if buffer != small:
            free(buffer)


def format_steps(tuple steps):
    """``str(MoveString(steps))``, the canonical move string, built here: the server
    writes it for every move it records. Steps must be triples of C longs (else
    OverflowError or TypeError: `SubstitutionGame.format_move` then asks `MoveString`)."""
    cdef long word, group, production
    parts = []
    for step in steps:
        w, g, p = step
        if type(w) is not int or type(g) is not int or type(p) is not int:
            raise TypeError("a step is three integers")  # a bool would print as a word
        word, group, production = w, g, p
        parts.append(f"{word} {group} {production}")
    return ", ".join(parts)


cdef inline bint _is_int(object value, long expected):
    return type(value) is int and value == expected


cdef class Replay:
    """Replays recorded turns on one live board while every recorded fact checks out.

    It judges each move with the same step checks as the referee (a borrowing `Turn`),
    and compares the roll (with the seed's dice, if given) and the bank after the turn.
    At the first turn it cannot vouch for it stops, undoing that turn, and leaves the
    judging of it to the referee, which reports the defect. `index` is the number of
    turns replayed; `state()` is the state before turn `index`.

    With ``track_text=False`` it keeps only the counts of each derivation (no log
    records derivation texts); its `state()` is then a summary, good for who is to act
    and the scores. ``program=True`` judges by the thesis program's bank rule.
    """

    cdef CompiledGrammar grammar
    cdef int n_groups
    cdef int turn_limit
    cdef list words
    cdef int totals[2][NT]
    cdef int *bank
    cdef long *steps          # the parsed steps of the current move
    cdef long *cumulative     # cumulative chance weights, for drawing the expected roll
    cdef long total_weight
    cdef readonly int index
    cdef readonly object pending_chance
    cdef readonly bint track_text
    cdef list movers          # one borrowing Turn per player, reset every turn

    def __cinit__(self, CompiledGrammar grammar, int turn_limit, bint track_text=True,
                  bint program=False):
        self.grammar = grammar
        self.track_text = track_text
        self.n_groups = grammar.n_groups
        self.turn_limit = turn_limit
        self.words = [[], []]
        memset(self.totals, 0, sizeof(self.totals))
        self.bank = <int *>calloc(self.n_groups if self.n_groups > 0 else 1, sizeof(int))
        self.steps = <long *>malloc(3 * PARSE_CAPACITY * sizeof(long))
        self.cumulative = <long *>malloc((self.n_groups if self.n_groups > 0 else 1) * sizeof(long))
        if not self.bank or not self.steps or not self.cumulative:
            raise MemoryError()
        self.index = 0
        self.pending_chance = None
        self.movers = [
            _borrow(grammar, <list>self.words[p], &self.totals[p][0], self.bank, p, 0, track_text,
                    program)
            for p in range(2)
        ]

    def __dealloc__(self):
        free(self.bank)
        free(self.steps)
        free(self.cumulative)

    def state(self):
        """The state before turn `index` (the dice not yet rolled)."""
        cdef GameState state = _new_state(self.n_groups)
        state.turn = self.index
        state.roll = None
        state.derivations = (tuple(self.words[0]), tuple(self.words[1]))
        memcpy(state.bank_counts, self.bank, self.n_groups * sizeof(int))
        memcpy(state.totals, self.totals, sizeof(self.totals))
        return state

    def run(self, turns, dice=None, outcomes=None):
        """Replay `turns` (records with turn, player, move, chance, facts) from the start.

        `dice` is a `ChanceSource` seeded like the game (or ``None``) and `outcomes` the
        chance outcomes it draws from. Returns `index`.
        """
        cdef Turn turn
        cdef int i, player, roll, k, word, group, production
        cdef Py_ssize_t total_turns = len(turns)
        cdef Py_ssize_t count
        cdef tuple rec
        cdef object draw = None
        cdef long r
        cdef int g
        if dice is not None:
            if not isinstance(dice, ChanceSource) or not self._weights(outcomes):
                return self.index
            draw = dice.draw
        for i in range(total_turns):
            record = turns[i]
            if not isinstance(record, tuple) or len(<tuple>record) != 5:
                return self.index
            rec = <tuple>record      # turn, player, move, chance, facts (a TurnRecord)
            player = i % 2
            if i >= self.turn_limit or not _is_int(rec[0], i) or not _is_int(rec[1], player):
                return self.index
            chance = rec[3]
            if type(chance) is not int or chance < 0 or chance >= self.n_groups:
                return self.index
            roll = chance
            if draw is not None:
                # ChanceSource.sample's draw, in C: first group whose cumulative weight
                # exceeds floor(random() * total).
                r = <long>(<double>draw() * self.total_weight)
                g = 0
                while g < self.n_groups - 1 and r >= self.cumulative[g]:
                    g += 1
                self.pending_chance = g
                if g != roll:
                    return self.index
            move = rec[2]
            if type(move) is not str:
                return self.index
            count = _parse_into(<str>move, self.steps, PARSE_CAPACITY)
            if count < 0:
                return self.index
            facts = rec[4]
            bank_fact = (<dict>facts).get("bank") if type(facts) is dict else None
            if type(bank_fact) is not list or len(bank_fact) != self.n_groups:
                return self.index
            turn = <Turn>self.movers[player]
            turn.roll = roll
            turn.n_steps = 0
            if turn.keep_history:
                turn.steps.clear()
                turn.undo_log.clear()
            if not self._play(turn, count, <list>bank_fact):
                return self.index
            self.pending_chance = None
            self.index = i + 1
        return self.index

    cdef bint _play(self, Turn turn, Py_ssize_t count, list bank_fact):
        """Apply the `count` parsed steps and check the bank fact; on any problem undo the
        turn and return False."""
        cdef int word, group, production, k, expected
        cdef Py_ssize_t i
        for i in range(count):
            word = self.steps[3 * i]
            group = self.steps[3 * i + 1]
            production = self.steps[3 * i + 2]
            if turn._step_problem(word, group, production) is not None:
                self._undo_all(turn)
                return False
            turn._apply(word, group, production)
        if turn._end_problem() is not None:
            self._undo_all(turn)
            return False
        cdef int overflow
        cdef bint empty = turn.n_steps == 0
        for k in range(self.n_groups):
            expected = self.bank[k] + (1 if (empty and k == turn.roll) else 0)
            value = bank_fact[k]
            if type(value) is not int or PyLong_AsLongAndOverflow(value, &overflow) != expected or overflow:
                self._undo_all(turn)
                return False
        if empty:
            self.bank[turn.roll] += 1
        return True

    cdef bint _weights(self, outcomes) except -1:
        """Load the cumulative weights of `outcomes` ((group, weight) pairs, in order)."""
        cdef long total = 0
        cdef int g
        if len(outcomes) != self.n_groups:
            return False
        for g in range(self.n_groups):
            value, weight = outcomes[g]
            if value != g:
                return False
            total += <long>weight
            self.cumulative[g] = total
        self.total_weight = total
        return True

    cdef void _undo_all(self, Turn turn):
        """Restore the board (only a text-tracking replay keeps its board after a stop)."""
        if turn.keep_history:
            while turn.steps:
                turn.undo()


# -- the move-by-move rules of one game, for the match loop -------------------------

cdef class Rules:
    """Who acts, the chance outcomes, applying a roll and judging a move, for one
    grammar and game length. `SubstitutionGame` binds these methods as its own so that
    the match loop calls compiled code directly on every move."""

    cdef readonly CompiledGrammar grammar
    cdef readonly int turn_limit
    cdef readonly tuple outcomes
    cdef readonly bint program

    def __cinit__(self, CompiledGrammar grammar, int turn_limit, tuple outcomes, bint program=False):
        self.grammar = grammar
        self.turn_limit = turn_limit
        self.outcomes = outcomes
        self.program = program

    def to_act(self, GameState state):
        """The player to move, -1 while the dice are to be rolled, -2 once the game is over."""
        if state.turn >= self.turn_limit:
            return -2
        if state.roll is None:
            return -1
        return state.turn % 2

    def chance_outcomes(self, state):
        return self.outcomes

    def apply_chance(self, GameState state, outcome):
        """`state` with the roll `outcome` (a group index); TypeError/ValueError if bad."""
        if type(outcome) is not int:
            raise TypeError(f"a roll is a group index, not {type(outcome).__name__}")
        if outcome < 0 or outcome >= self.grammar.n_groups:
            raise ValueError(
                f"there is no group {outcome} (groups are 0 to {self.grammar.n_groups - 1})"
            )
        if state.roll is not None:
            raise ValueError("the dice were already rolled for this turn")
        return state.with_roll(outcome)

    def check_move(self, GameState state, move):
        """The state after `move` (a `MoveString`), or the `Rejection` of its first defect."""
        if state.roll is None or state.turn >= self.turn_limit:
            return Rejection("not-to-move", "nobody is to move in this state")
        return check_turn(self.grammar, state, move.steps, self.program)
