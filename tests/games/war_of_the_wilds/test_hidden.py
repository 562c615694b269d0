"""What each seat sees: on many mid-game states of random games, changing what a seat has
not seen (the deck's order, the day cards still to come, the cards in other hands that the
table did not see go in) leaves its observation alone; and what the table saw stays in it
(the cards taken from the row, hand sizes, the day cards turned over, your own hand)."""

import numpy as np
import pytest

from simkit.game import HIDDEN
from simkit.games.war_of_the_wilds import GAME, check_state
from simkit.games.war_of_the_wilds import rules as R
from simkit.games.war_of_the_wilds.state import (
    ABILITY,
    DAY,
    DAY_ORDER,
    DECK,
    DECK_CAN,
    DECK_N,
    DISCARD_CARD,
    HAND,
    HAND_N,
    KNOWN,
    MAX_KINDS,
    PAY_CARD,
    PH_DISCARD,
    PH_DRAW,
    PH_MAIN,
    PH_OVER,
    PH_PAY,
    PHASE,
    PLAY,
    PLAYERS,
    PS,
    R_DAYS,
    R_FIRST_A,
    R_FIRST_B,
    R_NDAYS,
    ROW,
    SEAT,
    TAKE_ROW,
)
from simkit.rng import seed_streams
from simkit.runner import RunSpec, plan


def random_states(n, games, seed, overrides=None):
    """Mid-game states of random games (a few per game, at random decisions), with the
    game's params: yields (params, state)."""
    p = plan(RunSpec.make("war-of-the-wilds", n, 1, overrides=overrides))
    rng = np.random.default_rng(seed)
    moves = np.empty(p.max_moves, np.int32)
    items = np.zeros((n, len(GAME.item_columns)), np.int32)
    for g in range(games):
        streams = np.empty(1 + n, np.uint64)
        seed_streams(np.uint64(seed * 1000 + g), n, streams)
        chance = streams[0:1]
        state = np.empty(p.state_size, np.int32)
        R.new_game(p.compiled, n, state, chance)
        stops = set(rng.integers(0, 200 * n, 6).tolist())
        k = 0
        while True:
            if k in stops or R.is_over(state):
                yield p.compiled, state.copy()
            if R.is_over(state):
                break
            m = R.legal_moves(p.compiled, state, moves)
            R.apply_move(p.compiled, state, moves[rng.integers(m)], chance, items)
            k += 1


def base(p):
    return PLAYERS + p * PS


def table_saw(st, p, k):
    """How many of kind ``k`` the table knows are in ``p``'s hand: KNOWN, and the card being
    paid for (it was named when played)."""
    seen = int(st[base(p) + KNOWN + k])
    if st[PHASE] == PH_PAY and p == st[SEAT] and k == st[PAY_CARD]:
        seen = max(seen, 1)
    return seen


def unseen_changed(params, state, seat, rng):
    """A copy of ``state`` with what ``seat`` has not seen changed: the deck shuffled, the day
    cards still to come shuffled, and cards no one saw go into another hand swapped with deck
    cards (of a kind the table knows the deck can hold more of, DECK_CAN) or with such cards
    of a third hand. Everything else is kept."""
    st = state.copy()
    P = params[0]
    n = int(st[0])
    dn = int(st[DECK_N])
    rng.shuffle(st[DECK:DECK + dn])
    turned = min(int(st[DAY]), int(P[R_DAYS]))
    rng.shuffle(st[DAY_ORDER + turned:DAY_ORDER + int(P[R_NDAYS])])
    others = [p for p in range(n) if p != seat]
    for _ in range(8):
        p = others[rng.integers(len(others))]
        b = base(p)
        unseen = [k for k in range(MAX_KINDS) if st[b + HAND + k] > table_saw(st, p, k)]
        q = (others + [-1])[rng.integers(len(others) + 1)]  # -1: the deck
        if not unseen or q == p or (q < 0 and dn == 0):
            continue
        k = unseen[rng.integers(len(unseen))]
        if q < 0:  # with a deck card
            i = int(rng.integers(dn))
            if st[DECK + i] != k and (st[DECK:DECK + dn] == k).sum() >= st[DECK_CAN + k]:
                continue
            st[b + HAND + k] -= 1
            st[b + HAND + st[DECK + i]] += 1
            st[DECK + i] = k
            continue
        c = base(q)  # with an unseen card of a third hand
        theirs = [j for j in range(MAX_KINDS) if st[c + HAND + j] > table_saw(st, q, j)]
        if theirs:
            j = theirs[rng.integers(len(theirs))]
            st[b + HAND + k] += -1
            st[c + HAND + k] += 1
            st[c + HAND + j] -= 1
            st[b + HAND + j] += 1
    return st


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("overrides", [{}, {"first_game": True}])
def test_what_a_seat_has_not_seen_does_not_change_its_observation(n, overrides):
    rng = np.random.default_rng(n)
    seen = 0
    for params, state in random_states(n, 25, seed=n, overrides=overrides):
        assert check_state(params, n, state) == []
        for seat in range(n):
            other = unseen_changed(params, state, seat, rng)
            assert check_state(params, n, other) == []
            a = np.empty_like(state)
            b = np.empty_like(state)
            R.observe(params, state, seat, a)
            R.observe(params, other, seat, b)
            diff = np.nonzero(a != b)[0]
            assert len(diff) == 0, (int(state[PHASE]), seat, diff[:10].tolist())
            seen += not np.array_equal(state, other)
    assert seen > 100  # the changes were real


def public_hands(before, move, after, known):
    """The table's record of the cards known to be in each hand, kept from the moves alone:
    a card taken from the row is known; a card played or discarded (face up) leaves the
    known ones of its kind one fewer (if it was not the known one, one known is still there
    but the table cannot tell which)."""
    s = int(before[SEAT])
    ph = int(before[PHASE])
    if ph == PH_DRAW and TAKE_ROW <= move < TAKE_ROW + 5:
        known[s][int(before[ROW + move - TAKE_ROW])] += 1
    left = None
    if ph == PH_DISCARD:
        left = move - DISCARD_CARD
    elif after[PHASE] != PH_PAY and ph == PH_MAIN and PLAY <= move < ABILITY:
        left = (move - PLAY) // 4  # played at once, its payment left no choice
    elif after[PHASE] != PH_PAY and ph == PH_PAY:
        left = int(before[PAY_CARD])  # played once paid for
    if left is not None:
        known[s][left] = max(0, known[s][left] - 1)


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("first_game", [False, True])
def test_what_the_table_saw_stays_in_every_observation(n, first_game):
    """'First game: everyone starts with a Mouse Militia, a Sparrow': known to all."""
    over = {"first_game": True} if first_game else {}
    p = plan(RunSpec.make("war-of-the-wilds", n, 1, overrides=over))
    params = p.compiled
    P = params[0]
    rng = np.random.default_rng(10 + n)
    moves = np.empty(p.max_moves, np.int32)
    items = np.zeros((n, len(GAME.item_columns)), np.int32)
    obs = np.empty(p.state_size, np.int32)
    taken = 0
    for g in range(8):
        streams = np.empty(1 + n, np.uint64)
        seed_streams(np.uint64(77 + g), n, streams)
        chance = streams[0:1]
        st = np.empty(p.state_size, np.int32)
        R.new_game(params, n, st, chance)
        known = [[0] * MAX_KINDS for _ in range(n)]
        if first_game:
            for q in range(n):
                for k in (int(P[R_FIRST_A]), int(P[R_FIRST_B])):
                    known[q][k] += 1
        while not R.is_over(st):
            m = R.legal_moves(params, st, moves)
            move = int(moves[rng.integers(m)])
            before = st.copy()
            R.apply_move(params, st, move, chance, items)
            public_hands(before, move, st, known)
            taken += before[PHASE] == PH_DRAW and move < TAKE_ROW + 5
            turned = min(int(st[DAY]), int(P[R_DAYS]))
            for seat in range(n):
                R.observe(params, st, seat, obs)
                for q in range(n):
                    b = base(q)
                    hand = st[b + HAND:b + HAND + MAX_KINDS]
                    if q == seat:  # your own hand, card by card
                        assert (obs[b + HAND:b + HAND + MAX_KINDS] == hand).all()
                    else:  # theirs: how many cards, and those the table saw go in
                        assert (obs[b + HAND:b + HAND + MAX_KINDS] == HIDDEN).all()
                        assert obs[b + KNOWN:b + KNOWN + MAX_KINDS].tolist() == known[q]
                    assert obs[b + HAND_N] == hand.sum()
                # the day cards turned over so far, and none to come
                assert (obs[DAY_ORDER:DAY_ORDER + turned] == st[DAY_ORDER:DAY_ORDER + turned]).all()
                assert (obs[DAY_ORDER + turned:DAY_ORDER + int(P[R_NDAYS])] == HIDDEN).all()
                assert (obs[DECK:DECK + st[DECK_N]] == HIDDEN).all()
        assert st[PHASE] == PH_OVER
    assert taken > 20
