"""Hand-built Avalon states for scenario tests.

``Table`` starts from a real deal, then puts every card back in the draw pile, so a test
places exactly the cards it needs (taken from the pile, so the 80 cards stay conserved and
``check_state`` holds)."""

import numpy as np

from simkit.games.avalon import rules as r
from simkit.games.avalon.state import (
    DECK,
    DECK_N,
    DISCARD,
    HAND,
    HAND_SIZE,
    HEIGHT,
    N_TERR,
    N_TYPES,
    OWNER,
    TERR_CARD,
)
from simkit.games.avalon.transcript import check_state, stack
from simkit.registry import get_game
from simkit.runner import RunSpec, plan

NAMES = r.TERRITORY_NAMES
COLOURS = ["red", "blue", "green", "yellow", "violet"]


def K(colour: str) -> int:
    """Card type of a knight of ``colour``."""
    return 2 * COLOURS.index(colour)


def E(colour: str) -> int:
    """Card type of an enchantress of ``colour``."""
    return 2 * COLOURS.index(colour) + 1


def T(name: str) -> int:
    """Territory card id by its item name."""
    return NAMES.index(name)


class Table:
    def __init__(self, overrides=None, seed=7):
        self.plan = plan(RunSpec.make("avalon", 2, 1, overrides=overrides))
        self.params = self.plan.compiled
        self.spec = get_game("avalon")
        self.chance = np.array([seed], np.uint64)
        self.state = np.empty(self.plan.state_size, np.int32)
        self.items = np.zeros((2, len(r.ITEM_COLUMNS)), np.int32)
        r.new_game(self.params, 2, self.state, self.chance)
        self._clear()

    # -- building
    def _clear(self):
        s, nc = self.state, int(self.state[r.M_NCARDS])
        s[DECK + nc:] = -1
        s[HEIGHT:HEIGHT + 2 * N_TERR] = 0
        s[HAND:HAND + 2 * N_TYPES] = 0
        s[HAND_SIZE:HAND_SIZE + 2] = 0
        s[DISCARD:DISCARD + N_TYPES] = 0
        counts = [int(self.state[r.M_KNIGHTS]), int(self.state[r.M_ENCH])]
        deck = [t for t in range(2 * int(self.state[r.M_COLOURS]))
                for _ in range(counts[t & 1])]
        s[DECK:DECK + nc] = -1
        s[DECK:DECK + len(deck)] = deck
        s[DECK_N] = len(deck)

    def take(self, t):
        """Remove one card of type ``t`` from the draw pile."""
        s = self.state
        n = int(s[DECK_N])
        pile = s[DECK:DECK + n]
        k = int(np.flatnonzero(pile == t)[0])
        pile[k], pile[n - 1] = pile[n - 1], pile[k]
        s[DECK + n - 1] = -1
        s[DECK_N] = n - 1
        return t

    def hand(self, seat, *types):
        for t in types:
            r.add_hand(self.state, seat, self.take(t), 1)
        return self

    def pile(self, seat, slot, *types):
        """Lay ``types`` (bottom first) on ``seat``'s side of slot ``slot`` (0-based)."""
        for t in types:
            r.push(self.state, seat, slot, self.take(t))
        return self

    def discard(self, *types):
        for t in types:
            self.state[DISCARD + self.take(t)] += 1
        return self

    def territory(self, slot, name, owner=-1):
        """Put territory card ``name`` in ``slot`` (swapping slots), owned by ``owner``."""
        s = self.state
        card = T(name)
        other = int(np.flatnonzero(s[TERR_CARD:TERR_CARD + N_TERR] == card)[0])
        s[TERR_CARD + other], s[TERR_CARD + slot] = s[TERR_CARD + slot], card
        s[OWNER + slot] = owner
        return self

    def set(self, field, value):
        self.state[field] = value
        return self

    # -- playing
    def legal(self):
        moves = np.empty(self.plan.max_moves, np.int32)
        n = r.legal_moves(self.params, self.state, moves)
        return moves[:n].tolist()

    def play(self, move):
        assert move in self.legal(), f"move {move} not legal; legal: {self.legal()}"
        r.apply_move(self.params, self.state, move, self.chance, self.items)
        problems = check_state(self.params, 2, self.state)
        assert not problems, problems
        return self

    # -- reading
    def stack(self, seat, slot):
        return stack(self.params, self.state, seat, slot)

    def hand_of(self, seat):
        return {t: int(self.state[HAND + seat * N_TYPES + t]) for t in range(N_TYPES)
                if self.state[HAND + seat * N_TYPES + t] > 0}

    def discarded(self):
        return int(self.state[DISCARD:DISCARD + N_TYPES].sum())

    def item(self, seat, column):
        return int(self.items[seat, r.ITEM_COLUMNS.index(column)])

    def check(self):
        return check_state(self.params, 2, self.state)


def strengthen(t, slot):
    return r.STRENGTHEN + t * N_TERR + slot


def attack(t, slot):
    return r.ATTACK + t * N_TERR + slot


def enchant(slot):
    return r.ENCHANT + slot
