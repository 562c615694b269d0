"""Determinisation (the ``determinize`` kernel the search strategies call; NOTES.md,
Determinisation).

What a seat does not see, and how a determinisation fills it in: the day cards still to
come (their order), the deck (its cards and their order) and the cards of the other hands
that nobody saw go in. The unseen cards are all cards less the row, the discard pile,
every army, the seat's own hand and the cards known to be in the other hands (taken from
the row, dealt openly at a first game, the card being paid for); the deck takes its cards
from those it can hold (DECK_CAN: after the discard pile is shuffled in, only that pile's
cards), the other hands the rest.

Checked here on random mid-game states of random games at 2, 3 and 4 players (and at a
first game), for every seat: the state is sound, observing it gives back the observation,
nothing stays hidden; each unseen group is dealt uniformly (a chi-square test over 2,000
draws); on hand-built states, the constraints the observation carries (a card taken from
the row, the card being paid for, the first game's open cards, a reshuffled deck) are kept,
with the law of what is dealt checked exactly; DECK_CAN follows the table's knowledge; and
the kernel allocates nothing.
"""

import numpy as np
import pytest
from determinize_checks import assert_uniform_deal
from numba import njit
from numba.core.runtime import _nrt_python, rtsys
from scipy import stats
from wotw_table import K, Table, ready

from simkit.game import HIDDEN
from simkit.games.war_of_the_wilds import GAME, check_state
from simkit.games.war_of_the_wilds import rules as R
from simkit.games.war_of_the_wilds.state import (
    C_COUNT,
    DAY,
    DAY_ORDER,
    DAYD,
    DECK,
    DECK_CAN,
    DECK_N,
    DISCARD,
    DISCARD_CARD,
    DISCARD_N,
    DRAW,
    DRAW_REFRESH,
    HAND,
    HAND_N,
    KNOWN,
    MAX_DAY_CARDS,
    MAX_KINDS,
    PAY_CARD,
    PAY_RES,
    PH_ACTION,
    PH_MAIN,
    PH_PAY,
    PHASE,
    PLAY,
    PLAYERS,
    PS,
    R_DAYS,
    R_FIRST_A,
    R_FIRST_B,
    R_NDAYS,
    R_NK,
    RETURN_RES,
    ROW,
    SEAT,
    STATE_SIZE,
    TAKE_DECK,
    TAKE_ROW,
    tables,
)
from simkit.rng import seed_streams
from simkit.runner import RunSpec, plan

DRAWS = 2000
ALPHA = 1e-4  # as assert_uniform_deal's


def base(p):
    return PLAYERS + p * PS


def observe(params, st, seat):
    obs = np.empty_like(st)
    R.observe(params, st, seat, obs)
    return obs


def determinisations(params, obs, seat, n, seed=1):
    stream = np.array([seed], np.uint64)
    scratch = np.empty(len(obs), np.int32)
    out = np.empty((n, len(obs)), np.int32)
    for i in range(n):
        R.determinize(params, obs, seat, out[i], stream, scratch)
    return out


def random_states(n, games, seed, per_game=6, overrides=None):
    """(params, state) at random decisions of seeded random games."""
    p = plan(RunSpec.make("war-of-the-wilds", n, 1, overrides=overrides))
    rng = np.random.default_rng(seed)
    moves = np.empty(p.max_moves, np.int32)
    items = np.zeros((n, len(GAME.item_columns)), np.int32)
    out = []
    for g in range(games):
        streams = np.empty(1 + n, np.uint64)
        seed_streams(np.uint64(seed * 1000 + g), n, streams)
        chance = streams[0:1]
        st = np.empty(p.state_size, np.int32)
        R.new_game(p.compiled, n, st, chance)
        trail = [st.copy()]
        while not R.is_over(st):
            m = R.legal_moves(p.compiled, st, moves)
            R.apply_move(p.compiled, st, moves[rng.integers(m)], chance, items)
            trail.append(st.copy())
        for i in sorted(rng.choice(len(trail), size=per_game, replace=False)):
            out.append((p.compiled, trail[i]))
    return out


def known(st, p):
    """The cards of each kind the table knows are in ``p``'s hand (KNOWN, and the card
    being paid for)."""
    k = st[base(p) + KNOWN:base(p) + KNOWN + MAX_KINDS].copy()
    if st[PHASE] == PH_PAY and st[SEAT] == p:
        k[st[PAY_CARD]] = max(k[st[PAY_CARD]], 1)
    return k


def hand(st, p):
    return st[base(p) + HAND:base(p) + HAND + MAX_KINDS]


def deck_kinds(st):
    return np.bincount(st[DECK:DECK + st[DECK_N]], minlength=MAX_KINDS)


def unseen(params, st, seat):
    """The cards of each kind ``seat`` cannot place, from the true state: those in the deck
    and in the other hands beyond the known ones."""
    u = deck_kinds(st).astype(np.int64)
    for q in range(st[0]):
        if q != seat:
            u += hand(st, q) - known(st, q)
    return u


def binds(params, st, seat):
    """Does what the deck can hold leave some unseen card to the hands for certain?"""
    return (unseen(params, st, seat) > st[DECK_CAN:DECK_CAN + MAX_KINDS]).any()


def hidden_places(det, seat, rng):
    """One draw's unseen cards as a row: each other hand's cards beyond the known ones, in
    a random order (a hand has no order; the shuffle makes each of its places a uniform
    pick from it), then the deck from the bottom."""
    parts = []
    for q in range(det[0]):
        if q != seat:
            extra = hand(det, q) - known(det, q)
            parts.append(rng.permutation(np.repeat(np.arange(MAX_KINDS), extra)))
    return np.concatenate(parts), det[DECK:DECK + det[DECK_N]]


def assert_homogeneous(dealt):
    """Places that hold interchangeable things hold each kind equally often, even when the
    multiset they share varies from draw to draw (a chi-square test of homogeneity)."""
    kinds = np.unique(dealt)
    if len(kinds) < 2 or dealt.shape[1] < 2:
        return
    table = np.stack([(dealt == k).sum(axis=0) for k in kinds], axis=1)
    table = table[:, table.sum(axis=0) > 0]
    p = stats.chi2_contingency(table, correction=False).pvalue
    assert p > ALPHA, f"places not dealt alike (p={p:.2g})"


def assert_law(observed, pmf):
    """``observed`` (int[D]) follows ``pmf`` (dict value -> probability): chi-square, with
    the values of small expectation pooled."""
    values = sorted(pmf)
    exp = np.array([pmf[v] for v in values]) * len(observed)
    obs = np.array([(observed == v).sum() for v in values])
    assert obs.sum() == len(observed), "a value the law does not allow"
    keep = exp >= 5
    f_obs = np.append(obs[keep], obs[~keep].sum())
    f_exp = np.append(exp[keep], exp[~keep].sum())
    if f_exp[-1] == 0:
        f_obs, f_exp = f_obs[:-1], f_exp[:-1]
    if len(f_exp) < 2:
        return
    p = stats.chisquare(f_obs, f_exp).pvalue
    assert p > ALPHA, f"dealt {obs.tolist()} of {values}, not the law (p={p:.2g})"


CASES = [(2, None), (3, None), (4, None), (3, {"first_game": True})]


@pytest.mark.parametrize("n,overrides", CASES)
def test_determinisations_are_sound_and_give_back_the_observation(n, overrides):
    checked = 0
    for params, st in random_states(n, 12, seed=n, per_game=5, overrides=overrides):
        P = params[0]
        for seat in range(n):
            obs = observe(params, st, seat)
            for det in determinisations(params, obs, seat, 8, seed=checked + 1):
                assert check_state(params, n, det) == []
                assert np.array_equal(observe(params, det, seat), obs)
                hidden = (obs == HIDDEN) & (st != HIDDEN)  # a morning's -2 acorns is seen
                assert not (det[hidden] == HIDDEN).any(), "an entry left hidden"
                days = det[DAY_ORDER:DAY_ORDER + P[R_NDAYS]]
                assert sorted(days) == sorted(P[DAYD:DAYD + P[R_NDAYS]])
                assert (det[DAY_ORDER + P[R_NDAYS]:DAY_ORDER + MAX_DAY_CARDS] == -1).all()
                for q in range(n):
                    assert (hand(det, q) >= known(det, q)).all()
                    assert (hand(det, q)[P[R_NK]:] == 0).all()
                assert (det[PLAYERS + n * PS:DECK_CAN] == st[PLAYERS + n * PS:DECK_CAN]).all()
                checked += 1
    assert checked > 300


def uniform_cases(n, overrides):
    """(params, state, seat) for the uniformity tests: a few mid-game states of random
    games, each seen by a seat in turn."""
    states = random_states(n, 4, seed=20 + n, per_game=2, overrides=overrides)
    states = [(params, st) for params, st in states if not R.is_over(st)][:4]
    return [(params, st, (int(st[SEAT]) + i) % n) for i, (params, st) in enumerate(states)]


def late_cases():
    """States of random 4-player games (they reshuffle the deck late) where the cards the
    deck can hold leave some unseen cards to the hands for certain."""
    out = []
    for params, st in random_states(4, 12, seed=5, per_game=3):
        for seat in range(4):
            if not R.is_over(st) and binds(params, st, seat):
                out.append((params, st, seat))
                break
    assert len(out) >= 3, "too few reshuffled decks among the states"
    return out[:3]


@pytest.mark.parametrize("case", [*CASES, "reshuffled"])
def test_the_unseen_parts_are_dealt_uniformly(case):
    cases = late_cases() if case == "reshuffled" else uniform_cases(*case)
    for i, (params, st, seat) in enumerate(cases):
        check_uniform(params, st, seat, seed=i + 1)
    if case == "reshuffled":
        assert all(binds(params, st, seat) for params, st, seat in cases)


def check_uniform(params, st, seat, seed):
    obs = observe(params, st, seat)
    dets = determinisations(params, obs, seat, DRAWS, seed=seed)
    rng = np.random.default_rng(seed)
    # the day cards to come
    turned = min(max(int(st[DAY]), 0), int(params[0][R_DAYS]))
    days = dets[:, DAY_ORDER + turned:DAY_ORDER + int(params[0][R_NDAYS])]
    assert_uniform_deal(days)
    hands, decks = zip(*(hidden_places(det, seat, rng) for det in dets), strict=True)
    hands, decks = np.array(hands), np.array(decks)
    if not binds(params, st, seat):  # the other hands' unknown places and the deck alike
        assert_uniform_deal(np.concatenate([hands, decks], axis=1))
        return
    # a reshuffled deck: it holds DECK_N of the cards it can hold, drawn at random; the
    # other hands the rest, in no order
    assert_homogeneous(decks)
    assert_homogeneous(hands)
    u = unseen(params, st, seat)
    can = np.minimum(u, st[DECK_CAN:DECK_CAN + MAX_KINDS])
    assert ((np.stack([np.bincount(d, minlength=MAX_KINDS) for d in decks])) <= can).all()
    k = int(np.argmax(np.minimum(can, can.sum() - can)))  # the kind with the widest law
    dn = int(st[DECK_N])
    law = stats.hypergeom(int(can.sum()), int(can[k]), dn)
    assert_law((decks == k).sum(axis=1), {v: law.pmf(v) for v in range(dn + 1)})


# --- hand-built states: the constraints an observation carries ---------------------------

def hidden_extra(dets, q):
    """Each draw's cards of each kind in ``q``'s hand beyond the known ones."""
    return np.stack([hand(d, q) - known(d, q) for d in dets])


def test_a_card_taken_from_the_row_is_always_in_the_hand_that_took_it():
    t = ready(3)
    old = t[ROW]  # a boar in the row instead, as if it had been turned face up
    t._take_from_deck(K["boar"], 1)
    t.state[DECK + t[DECK_N]] = old
    t.state[DECK_N] += 1
    t.state[ROW] = K["boar"]
    t.state[DECK_CAN + old] += 1
    t.state[DECK_CAN + K["boar"]] -= 1
    t.give_card(0, "heron", 2)  # unseen by the others
    t.give_card(2, "crow", 3)  # a third hand nobody sees, where a boar could be dealt
    t.play(DRAW)
    t.play(TAKE_ROW + 0)  # the boar, face up
    t.play(TAKE_DECK)
    assert t.get(0, KNOWN + K["boar"]) == 1 and t.get(0, HAND_N) == 4
    obs = observe(t.params, t.state, 1)
    dets = determinisations(t.params, obs, 1, DRAWS)
    held = np.stack([hand(d, 0) for d in dets])
    assert (held[:, K["boar"]] >= 1).all(), "the boar taken from the row left the hand"
    assert (held.sum(axis=1) == 4).all()
    # the other 3 places: a uniform draw of 3 from the cards the seat cannot place
    u = unseen(t.params, t.state, 1)
    for kind in ("boar", "heron", "mouse_militia"):
        law = stats.hypergeom(int(u.sum()), int(u[K[kind]]), 3)
        assert_law(hidden_extra(dets, 0)[:, K[kind]], {v: law.pmf(v) for v in range(4)})


def test_the_card_being_paid_for_is_in_the_payers_hand():
    t = ready(2)
    t.give_card(0, "windfall")  # circled 1: berry, twig or pebble (a choice)
    t.give_card(0, "sparrow", 2)
    t.give_res(0, berry=1, twig=1, pebble=1)
    t.state[PHASE] = PH_MAIN
    t.play(PLAY + 4 * K["windfall"])
    assert t[PHASE] == PH_PAY and t[PAY_CARD] == K["windfall"]
    obs = observe(t.params, t.state, 1)
    dets = determinisations(t.params, obs, 1, DRAWS)
    held = np.stack([hand(d, 0) for d in dets])
    assert (held[:, K["windfall"]] >= 1).all(), "the card being paid for is not in the hand"
    for d in dets[:50]:
        st = d.copy()
        R.apply_move(t.params, st, PAY_RES + 0, t.chance.copy(), t.items.copy())
        assert check_state(t.params, 2, st) == []  # the payment goes through
    # the other 2 places, a uniform draw of 2 from the unseen cards, windfalls included
    u = unseen(t.params, t.state, 1)
    law = stats.hypergeom(int(u.sum()), int(u[K["windfall"]]), 2)
    assert_law(hidden_extra(dets, 0)[:, K["windfall"]], {v: law.pmf(v) for v in range(3)})


def test_the_first_games_open_cards_stay_in_every_hand():
    t = Table(4, {"first_game": True})
    P = t.params[0]
    a, b = int(P[R_FIRST_A]), int(P[R_FIRST_B])
    obs = observe(t.params, t.state, 2)
    for det in determinisations(t.params, obs, 2, 200):
        for q in range(4):
            assert hand(det, q)[a] == 1 and hand(det, q)[b] == 1 and hand(det, q).sum() == 2


def test_setup_keeps_the_hand_sizes_and_deals_the_rest():
    t = Table(3)
    t.play([m for m in t.legal() if DISCARD_CARD <= m < RETURN_RES][0])  # a card back
    assert t.get(0, HAND_N) == 4 and t[DECK_N] == 108 - 15 + 1
    obs = observe(t.params, t.state, 1)
    dets = determinisations(t.params, obs, 1, DRAWS)
    assert (np.stack([hand(d, q).sum() for d in dets for q in (0, 2)]) == [4, 5] * DRAWS).all()
    rng = np.random.default_rng(0)
    hands, decks = zip(*(hidden_places(d, 1, rng) for d in dets), strict=True)
    assert_uniform_deal(np.concatenate([np.array(hands), np.array(decks)], axis=1))


def test_the_day_cards_never_turned_are_dealt_after_the_last_day():
    t = Table(2, {"days": 3})
    t.to_turn(1, day=3)
    R.end_turn(t.params[0], t.state, t.chance, t.items)
    assert R.is_over(t.state)
    obs = observe(t.params, t.state, 0)
    dets = determinisations(t.params, obs, 0, DRAWS)
    assert (dets[:, DAY_ORDER:DAY_ORDER + 3] == t.state[DAY_ORDER:DAY_ORDER + 3]).all()
    assert_uniform_deal(dets[:, DAY_ORDER + 3:DAY_ORDER + 20])


def reshuffled():
    """P1 holds every boar not in the row, and nobody saw them go in; the deck is empty and
    every other card but the row is in the discard pile. P1 draws twice from the deck: the
    pile is shuffled in first."""
    t = ready(2)
    st = t.state
    t.give_card(0, "boar", int((st[DECK:DECK + st[DECK_N]] == K["boar"]).sum()))
    for i in range(st[DECK_N]):
        st[DISCARD + st[DISCARD_N]] = st[DECK + i]
        st[DISCARD_N] += 1
        st[DECK + i] = -1
    st[DECK_N] = 0
    t.ok()
    pile = np.bincount(st[DISCARD:DISCARD + st[DISCARD_N]], minlength=MAX_KINDS)
    t.play(DRAW)
    t.play(TAKE_DECK)
    assert (t.state[DECK_CAN:DECK_CAN + MAX_KINDS] == pile).all()  # the pile is the deck
    assert t[DISCARD_N] == 0 and t[DECK_N] == pile.sum() - 1
    t.play(TAKE_DECK)
    assert (t.state[DECK_CAN:DECK_CAN + MAX_KINDS] == pile).all()  # drawn face down
    return t, pile


def test_a_reshuffled_deck_holds_only_the_pile_shuffled_in():
    t, pile = reshuffled()
    boars = t.get(0, HAND + K["boar"])
    assert pile[K["boar"]] == 0 and boars >= 3 and t.get(0, HAND_N) == boars + 2
    obs = observe(t.params, t.state, 1)
    dets = determinisations(t.params, obs, 1, DRAWS)
    for d in dets:
        assert (deck_kinds(d) <= pile).all()  # never a boar: they are in P1's hand
    held = np.stack([hand(d, 0) for d in dets])
    assert (held[:, K["boar"]] == boars).all()
    # P1's two other cards: a uniform draw of 2 from the pile (the deck is the rest of it)
    for kind in ("mouse_militia", "sparrow", "windfall"):
        law = stats.hypergeom(int(pile.sum()), int(pile[K[kind]]), 2)
        assert_law(held[:, K[kind]], {v: law.pmf(v) for v in range(3)})
    assert_homogeneous(dets[:, DECK:DECK + t[DECK_N]])


def test_cards_turned_face_up_leave_what_the_deck_can_hold():
    t, pile = reshuffled()
    row = t.state[ROW:ROW + 3].copy()
    t.state[PHASE] = PH_ACTION
    t.play(DRAW_REFRESH)  # the row to the discard pile, three new cards from the deck
    new = t.state[ROW:ROW + 3]
    expected = pile - np.bincount(new, minlength=MAX_KINDS)
    assert (t.state[DECK_CAN:DECK_CAN + MAX_KINDS] == expected).all()
    assert (t.state[DISCARD:DISCARD + 3] == row).all()  # public, not in the deck
    obs = observe(t.params, t.state, 1)
    for d in determinisations(t.params, obs, 1, 300):
        assert (deck_kinds(d) <= expected).all()


def test_check_state_flags_a_deck_holding_more_than_the_table_knows_it_can():
    t, _ = reshuffled()
    st = t.state.copy()
    st[DECK] = K["boar"]  # a boar swapped in from P1's hand
    st[base(0) + HAND + K["boar"]] -= 1
    st[base(0) + HAND + t[DECK]] += 1
    assert any("more than the table knows" in p for p in check_state(t.params, 2, st))


def test_what_the_deck_can_hold_is_public_and_starts_as_every_card():
    t = Table(3)
    cards = tables(t.params)[0]
    assert (t.state[DECK_CAN:DECK_CAN + len(cards)] == cards[:, C_COUNT]).all()
    for seat in range(3):
        obs = observe(t.params, t.state, seat)
        assert (obs[DECK_CAN:DECK_CAN + MAX_KINDS] == t.state[DECK_CAN:DECK_CAN + MAX_KINDS]).all()
    assert STATE_SIZE == DECK_CAN + MAX_KINDS


# --- the kernel allocates nothing ---------------------------------------------------------

@njit
def _many(params, obs, seat, state, stream, scratch, n):
    for _ in range(n):
        R.determinize(params, obs, seat, state, stream, scratch)


def test_the_kernel_allocates_nothing():
    t, _ = reshuffled()
    cases = [(observe(t.params, t.state, 1), 1)]
    params, st = random_states(4, 1, seed=3, per_game=1)[0]
    cases.append((observe(params, st, 2), 2))
    state = np.empty(STATE_SIZE, np.int32)
    scratch = np.empty(STATE_SIZE, np.int32)
    stream = np.array([1], np.uint64)
    for obs, seat in cases:
        pr = t.params if seat == 1 else params
        _many(pr, obs, seat, state, stream, scratch, 1)
        _nrt_python.memsys_enable_stats()
        try:
            counts = []
            for n in (1, 1000):
                before = rtsys.get_allocation_stats().alloc
                _many(pr, obs, seat, state, stream, scratch, n)
                counts.append(rtsys.get_allocation_stats().alloc - before)
        finally:
            _nrt_python.memsys_disable_stats()
        assert counts[0] == counts[1], f"allocations grow with the calls: {counts}"

