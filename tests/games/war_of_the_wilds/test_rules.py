"""Scenario tests for War of the Wilds: hand-built states, one rule at a time."""

import numpy as np
import pytest

from simkit import data
from simkit.games.war_of_the_wilds import CARD_NAMES, GAME, ITEM_COLUMNS, check_state
from simkit.games.war_of_the_wilds import rules as R
from simkit.games.war_of_the_wilds.state import *  # noqa: F403

K = {name: i for i, name in enumerate(CARD_NAMES)}
DK = {name: i for i, name in enumerate(DAY_NAMES)}  # noqa: F405


class Table:
    """A game on the table: params, state, the chance stream, items."""

    def __init__(self, n=2, overrides=None, seed=7):
        params = data.apply_overrides(GAME.data, overrides or {})
        self.params = GAME.compile(data.values(params), n)
        self.n = n
        self.state = np.empty(R.state_size(self.params, n), np.int32)
        self.chance = np.array([seed], np.uint64)
        self.items = np.zeros((n, len(ITEM_COLUMNS)), np.int32)
        self.moves = np.empty(R.max_moves(self.params, n), np.int32)
        R.new_game(self.params, n, self.state, self.chance)

    # --- reading -------------------------------------------------------------------------
    def b(self, p):
        return PLAYERS + p * PS  # noqa: F405

    def __getitem__(self, key):
        return int(self.state[key])

    def get(self, p, off):
        return int(self.state[self.b(p) + off])

    def legal(self):
        n = R.legal_moves(self.params, self.state, self.moves)
        return self.moves[:n].tolist()

    def item(self, p, col):
        return int(self.items[p, ITEM_COLUMNS.index(col)])

    def army(self, p):
        b = self.b(p)
        return [CARD_NAMES[k] for k in self.state[b + ARMY:b + ARMY + MAX_ARMY] if k >= 0]  # noqa: F405

    # --- building ------------------------------------------------------------------------
    def set(self, p, off, v):
        self.state[self.b(p) + off] = v

    def give_res(self, p, berry=0, twig=0, pebble=0, feather=0):
        for r, v in enumerate((berry, twig, pebble, feather)):
            self.state[PILE + r] += self.get(p, RES + r) - v  # noqa: F405
            self.set(p, RES + r, v)

    def give_card(self, p, name, n=1):
        """Move ``n`` cards of kind ``name`` from the deck into ``p``'s hand."""
        self._take_from_deck(K[name], n)
        self.set(p, HAND + K[name], self.get(p, HAND + K[name]) + n)  # noqa: F405

    def put_creature(self, p, name, flags=0):
        """Put a creature from the deck into ``p``'s army; returns its army place."""
        self._take_from_deck(K[name], 1)
        b = self.b(p)
        for i in range(MAX_ARMY):  # noqa: F405
            if self.state[b + ARMY + i] < 0:  # noqa: F405
                self.state[b + ARMY + i] = K[name]  # noqa: F405
                self.state[b + AFLAG + i] = flags  # noqa: F405
                return i
        raise AssertionError("army full")

    def _take_from_deck(self, k, n):
        st = self.state
        for _ in range(n):
            dn = st[DECK_N]  # noqa: F405
            idx = [i for i in range(dn) if st[DECK + i] == k]  # noqa: F405
            assert idx, f"no {CARD_NAMES[k]} left in the deck"
            i = idx[0]
            st[DECK + i] = st[DECK + dn - 1]  # noqa: F405
            st[DECK + dn - 1] = -1  # noqa: F405
            st[DECK_N] = dn - 1  # noqa: F405

    def set_acorns(self, p, stored=None, buried=None):
        for off, v in ((STORE, stored), (BURIED, buried)):  # noqa: F405
            if v is not None:
                self.state[WILD] += self.get(p, off) - v  # noqa: F405
                self.set(p, off, v)

    def clear_hands(self):
        """Empty every hand (cards back to the deck) and every resource hand."""
        for p in range(self.n):
            for k in range(len(CARD_NAMES)):
                while self.get(p, HAND + k) > 0:  # noqa: F405
                    self.set(p, HAND + k, self.get(p, HAND + k) - 1)  # noqa: F405
                    self.state[DECK + self.state[DECK_N]] = k  # noqa: F405
                    self.state[DECK_N] += 1  # noqa: F405
            self.give_res(p)

    def to_turn(self, seat=0, day_card="quiet_day", day=1, phase=None):
        """Skip setup: day ``day`` with ``day_card`` showing, ``seat``'s turn begins."""
        st = self.state
        if st[PHASE] == PH_SETUP:  # noqa: F405
            self.clear_hands()
            for p in range(self.n):
                self.set(p, RES, 0)  # noqa: F405
            R.refill_row(self.params, st, self.chance)
        st[DAY] = day  # noqa: F405
        st[DAY_CARD] = DK[day_card]  # noqa: F405
        R.start_turn(self.params, st, seat)
        if phase is not None:
            st[PHASE] = phase  # noqa: F405
        self.ok()

    def play(self, move):
        assert move in self.legal(), f"move {move} not legal: {self.legal()}"
        R.apply_move(self.params, self.state, move, self.chance, self.items)
        self.ok()

    def ok(self):
        problems = check_state(self.params, self.n, self.state)
        assert not problems, problems


@pytest.fixture
def t2():
    return Table(2)


# --- setup ---------------------------------------------------------------------------------

def test_setup_deals_five_and_four_resources_then_keep_five(t2):
    t = t2
    assert t[PHASE] == PH_SETUP and t[ACTOR] == 0  # noqa: F405
    for p in range(2):
        assert R.hand_size(t.state, p) == 5 and R.res_total(t.state, p) == 4
    assert t[WILD] == 30  # noqa: F405
    deck_before = t[DECK_N]  # noqa: F405
    t.play(RETURN_RES + 0)  # noqa: F405
    k = [m for m in t.legal() if DISCARD_CARD <= m < RETURN_RES][0]  # noqa: F405
    t.play(k)
    t.play(t.legal()[0])
    t.play(t.legal()[0])
    assert R.hand_size(t.state, 0) + R.res_total(t.state, 0) == 5
    assert t[ACTOR] == 1  # noqa: F405
    assert t[DECK_N] >= deck_before + 1  # noqa: F405


def test_first_game_variant_starts_with_militia_sparrow_and_one_of_each():
    t = Table(3, {"first_game": True})
    assert t[PHASE] == PH_DAWN  # noqa: F405
    for p in range(3):
        assert t.get(p, HAND + K["mouse_militia"]) == 1  # noqa: F405
        assert t.get(p, HAND + K["sparrow"]) == 1  # noqa: F405
        assert R.hand_size(t.state, p) == 2
        assert [t.get(p, RES + r) for r in range(4)] == [1, 1, 1, 1]  # noqa: F405
    t.play(END_PLAY)  # noqa: F405
    assert t[DAY] == 1 and t[PHASE] == PH_ACTION and t[SEAT] == 0  # noqa: F405
    assert sum(t.state[ROW:ROW + 3] >= 0) == 3  # noqa: F405
