"""Determinisation (the ``determinize`` kernel the search strategies call).

What a seat does not see, and how a determinisation fills it in (NOTES.md,
Determinisation): the territory card of every face-down slot, the types in the other hand
(its size is seen) and the draw pile, order included. The unseen cards are all cards less
the seat's hand, both layouts, the discard pile and an enchantress announced and not yet
answered; they are dealt to the other hand and the pile.

Checked here on random mid-game states, with the game's data and the designer overrides
of the invariant tests, for both seats: the state is sound, observing it gives back the
observation and nothing stays hidden; each unseen group is dealt uniformly (a chi-square
test over 2,000 draws); the constraints the observation carries (a defender asked to
answer holds the card to answer with) are kept on hand-built states, with the law of how
many he holds checked exactly; and the kernel allocates nothing.
"""

import math

import numpy as np
import pytest
from avalon_table import E, K, Table, attack, enchant
from determinize_checks import assert_uniform_deal
from numba import njit
from numba.core.runtime import _nrt_python, rtsys
from scipy import stats

from simkit.game import HIDDEN
from simkit.games.avalon import rules as r
from simkit.games.avalon.state import (
    COUNTER,
    DECK,
    DECK_N,
    DEFEND,
    DISCARD,
    HAND,
    HAND_SIZE,
    HEIGHT,
    N_TERR,
    N_TYPES,
    OWNER,
    PHASE,
    PLAYER,
    SHOWN,
    TERR_CARD,
    TILE_NAMES,
)
from simkit.registry import get_game
from simkit.rng import game_seeds, seed_streams
from simkit.runner import RunSpec, plan

# every territory a stone circle; only one kind of supply tile (two of it)
STONE_CIRCLES = {f"territories.{n}.special": "stone_circle" for n in r.TERRITORY_NAMES}
ONE_TILE_KIND = {**{f"supply.{k}.count": 0 for k in TILE_NAMES},
                 "supply.dark_per_territory.count": 2}
SPEC = get_game("avalon")
DRAWS = 2000
P1, P2 = 0, 1
OVERRIDES = {"data": {}, "two-colours": {"cards.colours": 2},
             "no-hands": {"setup.cards_per_side": 3, "setup.hand": 0},
             "stone-circles": STONE_CIRCLES}
PLANS = {name: plan(RunSpec.make("avalon", 2, 1, overrides=o)) for name, o in OVERRIDES.items()}
DEFAULT = PLANS["data"]


def observe(params, st, seat):
    obs = np.empty_like(st)
    r.observe(params, st, seat, obs)
    return obs


def determinisations(params, obs, seat, n, seed=1):
    stream = np.array([seed], np.uint64)
    scratch = np.empty(len(obs), np.int32)
    out = np.empty((n, len(obs)), np.int32)
    for k in range(n):
        r.determinize(params, obs, seat, out[k], stream, scratch)
    return out


def random_states(pl, n_games, seed, per_game=8):
    """Copies of states at random decisions of seeded random games."""
    rng = np.random.default_rng(seed)
    items = np.zeros((2, len(r.ITEM_COLUMNS)), np.int32)
    moves = np.empty(pl.max_moves, np.int32)
    out = []
    for gs in game_seeds(seed, 0, n_games):
        streams = np.empty(3, np.uint64)
        seed_streams(np.uint64(gs), 2, streams)
        st = np.empty(pl.state_size, np.int32)
        r.new_game(pl.compiled, 2, st, streams[0:1])
        trail = []
        while not r.is_over(st) and r.turn_number(st) < pl.max_turns:
            trail.append(st.copy())
            n = r.legal_moves(pl.compiled, st, moves)
            r.apply_move(pl.compiled, st, moves[rng.integers(n)], streams[0:1], items)
        picks = rng.choice(len(trail), size=min(per_game, len(trail)), replace=False)
        out += [trail[i] for i in sorted(picks)]
    return out


def hand_of(st, seat):
    return st[HAND + seat * N_TYPES:HAND + (seat + 1) * N_TYPES]


def shown_in(st, q):
    """The cards of ``q``'s hand the other seat knows are there."""
    return st[SHOWN + q * N_TYPES:SHOWN + (q + 1) * N_TYPES]


def unseen_places(dets, q, rng):
    """Each draw's unseen cards as one row: the other hand's cards (less those known to be
    there) in a random order (a hand has no order; the shuffle makes each of its places a
    uniform pick from it), then the draw pile from the bottom."""
    rows = []
    for det in dets:
        held = np.repeat(np.arange(N_TYPES), hand_of(det, q) - shown_in(det, q))
        rows.append(np.concatenate([rng.permutation(held), det[DECK:DECK + det[DECK_N]]]))
    return np.array(rows)


# ---- on random states ---------------------------------------------------------------------

@pytest.mark.parametrize("name", list(PLANS))
def test_determinisations_are_sound_and_give_back_the_observation(name):
    pl = PLANS[name]
    params = pl.compiled
    n_states = n_asked = 0
    for st in random_states(pl, 30, seed=5):
        for seat in (P1, P2):
            obs = observe(params, st, seat)
            for det in determinisations(params, obs, seat, 6, seed=n_states + 1):
                assert not SPEC.check_state(params, 2, det), SPEC.check_state(params, 2, det)
                assert np.array_equal(observe(params, det, seat), obs)
                assert not (det == HIDDEN).any()
                seen = obs != HIDDEN
                assert np.array_equal(det[seen], obs[seen])
            n_states += 1
            n_asked += st[PHASE] in (COUNTER, DEFEND)
    assert n_states > 400 and n_asked > 0, (n_states, n_asked)  # some answers asked for


def test_the_unseen_cards_are_dealt_uniformly_to_the_other_hand_and_the_pile():
    rng = np.random.default_rng(3)
    states = [s for s in random_states(DEFAULT, 12, seed=7, per_game=2)
              if s[PHASE] not in (COUNTER, DEFEND) and s[HAND_SIZE + 1 - s[PLAYER]] > 0]
    assert len(states) >= 4
    for st in states[:4]:
        seat = int(st[PLAYER])
        dets = determinisations(DEFAULT.compiled, observe(DEFAULT.compiled, st, seat), seat,
                                DRAWS)
        assert_uniform_deal(unseen_places(dets, 1 - seat, rng))


def test_the_face_down_territories_are_dealt_uniformly_to_the_face_down_slots():
    states = [s for s in random_states(DEFAULT, 12, seed=8, per_game=1)
              if (s[OWNER:OWNER + N_TERR] < 0).sum() >= 3]
    assert len(states) >= 4
    for st in states[:4]:
        down = [i for i in range(N_TERR) if st[OWNER + i] < 0]
        dets = determinisations(DEFAULT.compiled, observe(DEFAULT.compiled, st, P1), P1, DRAWS)
        assert_uniform_deal(dets[:, [TERR_CARD + i for i in down]])


# ---- what the observation tells: hand-built states ----------------------------------------

def table_with_a_full_pile():
    """A table where P1 sees his hand of four, a few laid-out and discarded cards; P2
    holds three cards; the rest is the draw pile; territory 'avalon' is P1's."""
    t = Table().hand(P1, K("red"), E("red"), K("blue"), E("green"))
    t.hand(P2, K("green"), E("blue"), E("yellow"))
    t.pile(P1, 0, K("violet")).pile(P2, 0, E("violet"), K("yellow"))
    t.discard(K("red"), K("red"), E("blue"))
    t.territory(4, "avalon", P1).territory(7, "castle_hill", P2)
    return t


def test_seen_cards_are_never_dealt_and_revealed_territories_stay():
    t = table_with_a_full_pile()
    obs = observe(t.params, t.state, P1)
    dets = determinisations(t.params, obs, P1, 400)
    total = np.zeros(N_TYPES, int)
    total[:10] = 8
    seen = (hand_of(t.state, P1) + t.state[DISCARD:DISCARD + N_TYPES])
    seen[K("violet")] += 1
    seen[E("violet")] += 1
    seen[K("yellow")] += 1
    for det in dets:
        unseen = hand_of(det, P2) + np.bincount(det[DECK:DECK + det[DECK_N]], minlength=N_TYPES)
        assert np.array_equal(unseen, total - seen)
        assert hand_of(det, P2).sum() == 3 and det[DECK_N] == t.state[DECK_N]
    assert (dets[:, TERR_CARD + 4] == r.TERRITORY_NAMES.index("avalon")).all()
    assert (dets[:, TERR_CARD + 7] == r.TERRITORY_NAMES.index("castle_hill")).all()
    others = set(dets[:, [TERR_CARD + i for i in range(N_TERR) if i not in (4, 7)]].ravel())
    assert others == set(range(N_TERR)) - {3, 0}


def test_with_an_empty_pile_the_other_hand_is_everything_unseen():
    t = table_with_a_full_pile()
    st = t.state
    n = int(st[DECK_N])
    for k in range(n):                    # the whole pile goes to the discard pile, face up
        st[DISCARD + st[DECK + k]] += 1
        st[DECK + k] = -1
    st[DECK_N] = 0
    assert not t.check()
    dets = determinisations(t.params, observe(t.params, st, P1), P1, 50)
    assert (dets[:, HAND + N_TYPES:HAND + 2 * N_TYPES] == hand_of(st, P2)).all()


def hypergeometric_given_one(marked, n, m):
    """P(j of ``marked`` cards in a uniform hand of ``m`` from ``n``), given j >= 1."""
    pmf = {j: math.comb(marked, j) * math.comb(n - marked, m - j)
           for j in range(1, min(marked, m) + 1) if m - j <= n - marked}
    total = sum(pmf.values())
    return {j: w / total for j, w in pmf.items()}


def hands_given(unseen, m, must):
    """The exact law of a hand of ``m`` dealt uniformly from the ``unseen`` cards (counts
    by type), given that it holds a card of type ``must``: {hand counts: probability}."""
    law = {}

    def grow(t, left, hand):
        if t == len(unseen):
            if left == 0 and hand[must] >= 1:
                ways = (math.comb(u, h) for u, h in zip(unseen, hand, strict=True))
                law[tuple(hand)] = math.prod(ways)
            return
        for h in range(min(left, unseen[t]) + 1):
            grow(t + 1, left - h, hand + [h])

    grow(0, m, [])
    total = sum(law.values())
    return {h: w / total for h, w in law.items()}


def check_holding(t, must, seat):
    """The defender (not ``seat``) is asked to answer: every determinisation gives him a
    card of type ``must``; his hand follows the exact law of a uniform deal given that
    (a chi-square test over every possible hand), and given his hand the pile is in a
    uniform order."""
    q = 1 - seat
    obs = observe(t.params, t.state, seat)
    dets = determinisations(t.params, obs, seat, DRAWS)
    hands = [tuple(int(x) for x in hand_of(d, q)[:4]) for d in dets]
    assert all(h[must] >= 1 for h in hands)
    unseen = hand_of(dets[0], q) + np.bincount(dets[0][DECK:DECK + dets[0][DECK_N]],
                                               minlength=N_TYPES)
    assert not unseen[4:].any()           # two colours: four types
    law = hands_given([int(u) for u in unseen[:4]], int(t.state[HAND_SIZE + q]), must)
    assert set(hands) <= set(law) and len(law) > 3
    cells = sorted(law, key=law.get, reverse=True)
    big = [h for h in cells if law[h] * DRAWS >= 5]  # the rest pooled in one cell
    observed = [hands.count(h) for h in big] + [sum(hands.count(h) for h in cells
                                                    if h not in big)]
    expected = [law[h] * DRAWS for h in big] + [DRAWS * sum(law[h] for h in cells
                                                            if h not in big)]
    if expected[-1] < 5:                  # too small a pool: into the last cell
        rest_observed, rest_expected = observed.pop(), expected.pop()
        observed[-1] += rest_observed
        expected[-1] += rest_expected
    assert stats.chisquare(observed, expected).pvalue > 1e-4
    common = np.array([h == cells[0] for h in hands])
    assert common.sum() > 200
    assert_uniform_deal(np.stack([d[DECK:DECK + d[DECK_N]] for d in dets[common]]))


TWO_COLOURS = {"cards.colours": 2}
RED, BLUE = "red", "blue"


def test_a_defender_asked_for_a_counter_spell_holds_the_enchantress():
    """P1 enchants P2's blue knight; P2 has a blue enchantress among three cards and is
    asked (COUNTER). In P1's view P2's hand is hidden, but being asked shows he holds one:
    every determinisation has it, and no more often than a fair deal would."""
    t = Table(TWO_COLOURS).pile(P2, 3, K(BLUE)).hand(P1, E(BLUE), K(RED))
    t.hand(P2, E(BLUE), K(RED), E(RED))
    t.play(enchant(3))
    assert t.state[PHASE] == COUNTER and r.to_move(t.state) == P2
    check_holding(t, E(BLUE), P1)


def test_a_defender_asked_to_ward_off_an_attack_holds_a_knight_of_its_colour():
    t = Table(TWO_COLOURS).hand(P1, K(BLUE), K(RED)).hand(P2, K(BLUE), E(RED))
    t.play(attack(K(BLUE), 5))
    assert t.state[PHASE] == DEFEND and r.to_move(t.state) == P2
    check_holding(t, K(BLUE), P1)
    # the defender himself sees his hand: nothing to deal but the pile
    dets = determinisations(t.params, observe(t.params, t.state, P2), P2, 20)
    assert (dets[:, HAND + N_TYPES:HAND + 2 * N_TYPES] == hand_of(t.state, P2)).all()


def test_the_announced_enchantress_is_in_the_air_not_in_a_hand_or_the_pile():
    t = Table().pile(P2, 3, K("yellow")).hand(P1, E("yellow")).hand(P2, E("yellow"))
    t.play(enchant(3))
    for seat in (P1, P2):
        for det in determinisations(t.params, observe(t.params, t.state, seat), seat, 100):
            assert not SPEC.check_state(t.params, 2, det)
            dealt = (hand_of(det, 1 - seat)
                     + np.bincount(det[DECK:DECK + det[DECK_N]], minlength=N_TYPES))
            assert dealt[E("yellow")] == (7 if seat == P1 else 6)  # P2's own is seen by P2


def test_the_hypergeometric_draw_matches_the_exact_law_at_its_edges():
    """One marked card in a hand of one from sixty: always that card; ten marked in a hand
    of five from twelve: at least three (the hand cannot avoid them)."""
    stream = np.array([5], np.uint64)
    assert {r.hypergeometric_at_least_one(stream, 1, 60, 1) for _ in range(50)} == {1}
    draws = [r.hypergeometric_at_least_one(stream, 10, 12, 5) for _ in range(DRAWS)]
    law = hypergeometric_given_one(10, 12, 5)
    assert set(draws) <= set(law) and min(law) == 3
    observed = [draws.count(j) for j in sorted(law)]
    assert stats.chisquare(observed, [law[j] * DRAWS for j in sorted(law)]).pvalue > 1e-4


def test_layouts_and_the_public_table_are_never_changed():
    st = random_states(DEFAULT, 2, seed=9, per_game=2)[-1]
    for seat in (P1, P2):
        obs = observe(DEFAULT.compiled, st, seat)
        for det in determinisations(DEFAULT.compiled, obs, seat, 50):
            assert np.array_equal(det[HEIGHT:DECK], st[HEIGHT:DECK])
            assert np.array_equal(det[DECK + DEFAULT.compiled[0][r.M_NCARDS - r.RULES]:],
                                  st[DECK + DEFAULT.compiled[0][r.M_NCARDS - r.RULES]:])
            assert np.array_equal(hand_of(det, seat), hand_of(st, seat))


# ---- what the seat remembers: the enchantress a counter-spell brings into a hand -------

def countered():
    """P1 enchants P2's yellow knight; P2, holding two yellow enchantresses and a red
    knight, counter-spells: P1's enchantress goes into P2's hand, as both see."""
    t = Table().pile(P2, 3, K("yellow")).hand(P1, E("yellow"), K("green"))
    t.hand(P2, E("yellow"), E("yellow"), K("red"))
    t.play(enchant(3)).play(r.COUNTER_YES)
    return t


def test_a_counter_spelled_enchantress_is_known_to_be_in_the_defenders_hand():
    t = countered()
    assert t.hand_of(P2) == {E("yellow"): 2, K("red"): 1}
    for seat in (P1, P2):
        assert shown_in(observe(t.params, t.state, seat), P2).tolist() == [
            1 if k == E("yellow") else 0 for k in range(N_TYPES)]
    # P1's view is the same whether P2 held one yellow enchantress or two before
    one = Table().pile(P2, 3, K("yellow")).hand(P1, E("yellow"), K("green"))
    one.hand(P2, E("yellow"), K("red"), K("red"))
    one.play(enchant(3)).play(r.COUNTER_YES)
    a, b = observe(t.params, t.state, P1), observe(one.params, one.state, P1)
    assert np.array_equal(a[SHOWN:SHOWN + 2 * N_TYPES], b[SHOWN:SHOWN + 2 * N_TYPES])


def test_determinisations_keep_the_known_enchantress_and_deal_the_rest_uniformly():
    t = countered()
    dets = determinisations(t.params, observe(t.params, t.state, P1), P1, DRAWS)
    assert (dets[:, HAND + N_TYPES + E("yellow")] >= 1).all()
    assert (dets[:, HAND_SIZE + P2] == 3).all()
    assert 0 < (dets[:, HAND + N_TYPES + E("yellow")] >= 2).sum() < DRAWS
    assert_uniform_deal(unseen_places(dets, P2, np.random.default_rng(4)))


def test_what_is_known_of_a_hand_goes_with_the_first_card_of_its_type_to_leave_it():
    """P2 lays a yellow enchantress on his turn: P1 cannot tell whether it was the one he
    knew of, so nothing more is known of P2's hand; the red knight P2 lays changes
    nothing."""
    t = countered()
    t.play(r.END_PLAYS).play(r.SUPPLY_TILE + 0)
    while t.state[PLAYER] != P2:
        t.play(t.legal()[0])
    t.play(r.STRENGTHEN + K("red") * N_TERR + 0)
    assert shown_in(t.state, P2)[E("yellow")] == 1
    t.play(r.STRENGTHEN + E("yellow") * N_TERR + 1)
    assert shown_in(t.state, P2)[E("yellow")] == 0
    assert t.hand_of(P2).get(E("yellow"), 0) >= 1    # he still holds one: P1 cannot know


@pytest.mark.parametrize("seed", [1, 2])
def test_the_known_cards_are_always_in_the_hand_on_random_games(seed):
    """check_state holds SHOWN to the hand; counter-spells happen and are remembered."""
    n_shown = 0
    for st in random_states(DEFAULT, 60, seed=seed, per_game=30):
        assert not SPEC.check_state(DEFAULT.compiled, 2, st)
        n_shown += int(st[SHOWN:SHOWN + 2 * N_TYPES].sum() > 0)
    assert n_shown > 5, n_shown  # of 1,800 states: random play seldom counter-spells


# ---- cost -----------------------------------------------------------------------------------

@njit
def _many(params, obs, seat, state, stream, scratch, n):
    for _ in range(n):
        r.determinize(params, obs, seat, state, stream, scratch)


def test_the_kernel_allocates_nothing():
    t = Table().pile(P2, 3, K("yellow")).hand(P1, E("yellow")).hand(P2, E("yellow"), K("red"))
    t.play(enchant(3))                    # the constrained deal too
    params = t.params
    cases = [(observe(params, t.state, P1), P1),
             (observe(params, random_states(DEFAULT, 1, seed=10, per_game=1)[0], P2), P2)]
    state = np.empty(len(t.state), np.int32)
    scratch = np.empty(len(t.state), np.int32)
    stream = np.array([1], np.uint64)
    for obs, seat in cases:
        _many(params, obs, seat, state, stream, scratch, 1)
        _nrt_python.memsys_enable_stats()
        try:
            counts = []
            for n in (1, 1000):
                before = rtsys.get_allocation_stats().alloc
                _many(params, obs, seat, state, stream, scratch, n)
                counts.append(rtsys.get_allocation_stats().alloc - before)
        finally:
            _nrt_python.memsys_disable_stats()
        assert counts[0] == counts[1], f"allocations grow with the calls: {counts}"
