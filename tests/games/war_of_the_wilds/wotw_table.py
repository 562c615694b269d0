"""A War of the Wilds table for scenario tests: hand-built states and the steps that
reach them (pytest imports it through this folder's conftest)."""

import numpy as np

from simkit import data
from simkit.games.war_of_the_wilds import CARD_NAMES, GAME, check_state, kind_names
from simkit.games.war_of_the_wilds import rules as R
from simkit.games.war_of_the_wilds.state import *  # noqa: F403

K = {name: i for i, name in enumerate(CARD_NAMES)}
DK = {name: i for i, name in enumerate(DAY_NAMES)}  # noqa: F405


class Table:
    """A game on the table: params, state, the chance stream, items."""

    def __init__(self, n=2, overrides=None, seed=7):
        values = data.values(data.apply_overrides(GAME.data, overrides or {}))
        self.params = GAME.compile(values, n)
        self.kinds = kind_names(self.params)  # the table's card kinds (an override may add)
        self.columns = GAME.columns_for(values)
        self.n = n
        self.state = np.empty(R.state_size(self.params, n), np.int32)
        self.chance = np.array([seed], np.uint64)
        self.items = np.zeros((n, len(self.columns)), np.int32)
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
        return int(self.items[p, self.columns.index(col)])

    def army(self, p):
        b = self.b(p)
        return [self.kinds[k] for k in self.state[b + ARMY:b + ARMY + MAX_ARMY] if k >= 0]  # noqa: F405

    # --- building ------------------------------------------------------------------------
    def set(self, p, off, v):
        self.state[self.b(p) + off] = v

    def give_res(self, p, berry=0, twig=0, pebble=0, feather=0):
        for r, v in enumerate((berry, twig, pebble, feather)):
            self.state[PILE + r] += self.get(p, RES + r) - v  # noqa: F405
            self.set(p, RES + r, v)  # noqa: F405

    def give_card(self, p, name, n=1):
        """Move ``n`` cards of kind ``name`` from the deck into ``p``'s hand."""
        k = self.kinds.index(name)
        self._take_from_deck(k, n)
        self.set(p, HAND + k, self.get(p, HAND + k) + n)  # noqa: F405
        self.set(p, HAND_N, self.get(p, HAND_N) + n)  # noqa: F405

    def put_creature(self, p, name, flags=0):
        """Put a creature from the deck into ``p``'s army; returns its army place."""
        k = self.kinds.index(name)
        self._take_from_deck(k, 1)
        b = self.b(p)
        for i in range(MAX_ARMY):  # noqa: F405
            if self.state[b + ARMY + i] < 0:  # noqa: F405
                self.state[b + ARMY + i] = k  # noqa: F405
                self.state[b + AFLAG + i] = flags  # noqa: F405
                return i
        raise AssertionError("army full")

    def _take_from_deck(self, k, n):
        st = self.state
        for _ in range(n):
            dn = st[DECK_N]  # noqa: F405
            idx = [i for i in range(dn) if st[DECK + i] == k]  # noqa: F405
            assert idx, f"no {self.kinds[k]} left in the deck"
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
            for k in range(len(self.kinds)):
                while self.get(p, HAND + k) > 0:  # noqa: F405
                    self.set(p, HAND + k, self.get(p, HAND + k) - 1)  # noqa: F405
                    self.set(p, HAND_N, self.get(p, HAND_N) - 1)  # noqa: F405
                    self.set(p, KNOWN + k, 0)  # noqa: F405
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
            R.refill_row(self.params[0], st, self.chance)
        st[DAY] = day  # noqa: F405
        st[DAY_CARD] = DK[day_card]  # noqa: F405
        R.start_turn(self.params[0], st, seat)
        if phase is not None:
            st[PHASE] = phase  # noqa: F405
        self.ok()

    def play(self, move):
        assert move in self.legal(), f"move {move} not legal: {self.legal()}"
        R.apply_move(self.params, self.state, move, self.chance, self.items)
        self.ok()

    def play_paid(self, move, *kinds):
        """Play a card and pay for it: the resource kinds named (``"berry"``...), in order,
        at each choice the payment step asks; with none named, the first way offered."""
        self.play(move)
        kinds = list(kinds)
        while self.state[PHASE] == PH_PAY:  # noqa: F405
            r = RESOURCE_NAMES.index(kinds.pop(0)) if kinds else self.legal()[0] - PAY_RES  # noqa: F405
            self.play(PAY_RES + r)  # noqa: F405
        assert not kinds, f"no choice left for {kinds}"

    def end_after_attacks(self):
        """The step after the attacks (abilities, swaps, offers) is open: end the turn."""
        assert self.state[PHASE] == PH_AFTER, PHASE_NAMES[self.state[PHASE]]  # noqa: F405
        self.play(END_PLAY)  # noqa: F405

    def ok(self):
        problems = check_state(self.params, self.n, self.state)
        assert not problems, problems


def morning(t, card):
    """Turn over ``card`` as the next day's card."""
    t.state[DAY_ORDER + t[DAY]] = DK[card]  # noqa: F405
    R.start_day(t.params[0], t.state, t.chance, t.items)
    t.ok()


def ready(n=2, seat=0, day_card="quiet_day", overrides=None):
    t = Table(n, overrides)
    t.to_turn(seat, day_card)
    return t


def main_phase(t):
    t.state[PHASE] = PH_MAIN  # noqa: F405


def attack(t, targets):
    """From the play step: end playing and assign each asked creature to ``targets`` in order
    (a seat, or None to stay home)."""
    t.play(END_PLAY)  # noqa: F405
    for tgt in targets:
        assert t[PHASE] == PH_ASSIGN  # noqa: F405
        t.play(STAY if tgt is None else ATTACK + tgt)  # noqa: F405
