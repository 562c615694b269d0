"""Rabbit Hunt's determinisation (NOTES.md: Determinisation): ``rules.determinize`` deals
again, at random, everything a seat has not seen, consistently with what it remembers.

On mid-game states of random and heuristic games at 2, 3 and 4 players, for every seat:
the determinisation passes ``check_state`` (every seat's memory included), observing it
gives back the observation, and play can go on from it soundly. The deal is uniform
(chi-square checks over 2,000 draws, ``assert_uniform_deal``):
- the *pool* (the farmland cards the seat has seen nowhere and knows in no group) over the
  places it can go: the cells and pile cards in no group, the cards put away at setup, and
  each group's unknown cards;
- in each memory group, the owner's bunnies over the places a bunny can be (the hand, the
  cards the owner laid), with the law of how many are in the hand checked exactly where the
  hand's bunny cap cuts it; and the farmland cards over the group's other places.
Hand-built tables check each memory case: a looked-at hand, a shown hand and a card laid
from it, cards put back under the pile, a hand known to hold its 3 bunnies, a hand that
shrank (the cap), the partner in the team game; and the other seats' memory filled in."""

from collections import Counter
from math import comb

import numpy as np
import pytest
from determinize_checks import assert_uniform_deal
from numba import njit
from numba.core.runtime import _nrt_python, rtsys
from rh_table import E, Table, get_plan
from scipy import stats
from simkit.strategies.rabbit_hunt import WEIGHTS, choose_rabbit_hunt

from simkit.game import HIDDEN
from simkit.games.rabbit_hunt import memory as M
from simkit.games.rabbit_hunt import rules as R
from simkit.games.rabbit_hunt import state as S
from simkit.games.rabbit_hunt.transcript import check_state
from simkit.rng import game_seeds, seed_streams

B = S.BUNNY
HEURISTIC = np.array(list(WEIGHTS.values()), np.float64)
DRAWS = 2000
ALPHA = 1e-4  # assert_uniform_deal's
MIN_ROWS = 300  # draws needed for a check made on the draws of one kind only


# ------------------------------------------------------------------ states to determinise
def curious_move(legal, rng):
    """A random legal move, but one that saves carrots for a look at a hand, looks, and puts
    cards back after one, half of the times it can (uniform play seldom looks)."""
    looks = [m for m in legal if m >> 16 in (S.M_LOOK, S.M_RETURN)]
    if rng.random() < 0.5:
        if looks:
            return looks[rng.integers(len(looks))]
        if S.M_CARROT << 16 in legal:
            return S.M_CARROT << 16
    return legal[rng.integers(len(legal))]


def mid_game_states(n, games, stops, heuristic, seed):
    """Copies of the states of seeded games (curious random play, or the heuristic in every
    seat) at ``stops`` random decisions each."""
    p = get_plan(n)
    params = p.compiled
    rng = np.random.default_rng(seed)
    st = np.empty(p.state_size, np.int32)
    obs = np.empty_like(st)
    moves = np.empty(p.max_moves, np.int32)
    items = np.zeros((n, len(S.ITEM_COLUMNS)), np.int32)
    out = []
    for game_seed in game_seeds(seed, 0, games):
        streams = np.empty(1 + n, np.uint64)
        seed_streams(np.uint64(game_seed), n, streams)
        chance = streams[0:1]
        R.new_game(params, n, st, chance)
        trail = []
        while not R.is_over(st):
            k = R.legal_moves(params, st, moves)
            seat = R.to_move(st)
            if heuristic and k > 1:
                R.observe(params, st, seat, obs)
                move = moves[choose_rabbit_hunt(params, obs, seat, moves, k, HEURISTIC,
                                                streams[1 + seat:2 + seat])]
            else:
                move = curious_move(moves[:k].tolist(), rng)
            R.apply_move(params, st, move, chance, items)
            if not R.is_over(st):
                trail.append(st.copy())
        picks = rng.choice(len(trail), size=min(stops, len(trail)), replace=False)
        out += [trail[i] for i in sorted(picks)]
    return params, out


def observe(params, state, seat):
    obs = np.empty_like(state)
    R.observe(params, state, seat, obs)
    return obs


@njit
def _draws(params, obs, seat, out, stream, scratch):
    state = np.empty_like(obs)
    for d in range(out.shape[0]):
        R.determinize(params, obs, seat, state, stream, scratch)
        out[d] = state


def draws(params, obs, seat, count=DRAWS, seed=1):
    """``count`` determinisations of ``obs`` (int32[count, state_size])."""
    out = np.empty((count, len(obs)), np.int32)
    _draws(params, obs, seat, out, np.array([seed], np.uint64), np.empty_like(obs))
    return out


# ------------------------------------------------------------------ what the seat remembers
class Group:
    """One of seat v's memory groups that holds unseen places, read from its observation:
    the owner, the hand's size (0 for a group cut off from the hand), the cells the owner
    laid (a bunny may lie there), its other cells and pile positions (never a bunny), the
    known cards by kind, the unknown count and the bunny cap."""

    def __init__(self, params, obs, v, g):
        p = params[0]
        r = M.group_at(v, g)
        n_cells = int(p[S.P_CELLS])
        self.row, self.owner = g, int(obs[r + S.G_OWNER])
        self.hand = int(obs[S.IN_HAND + self.owner]) if g < S.MAX_SEATS else 0
        tagged = [c for c in range(n_cells) if obs[S.CELLS + c] == HIDDEN
                  and M.tag_of(int(obs[M.cell_tags_at(p, c)]), v) == g + 1]
        self.laid = [c for c in tagged if obs[M.placer_at(p, c)] == self.owner]
        self.other = [c for c in tagged if obs[M.placer_at(p, c)] != self.owner]
        self.pile = [i for i in range(obs[S.PILE_LEN]) if obs[S.PILE + i] == HIDDEN
                     and M.tag_of(int(obs[S.PILE_TAGS + i]), v) == g + 1]
        self.known = obs[r + S.G_KNOWN:r + S.GROUP_W].astype(np.int64)
        self.unknown = int(obs[r + S.G_UNKNOWN])
        self.cap = int(obs[r + S.G_BUNNY_CAP])
        self.bunnies = int(self.known[B])

    def hand_counts(self, dets):
        """The owner's hand in each draw, by kind (int[D, 15]); zeros for a cut-off group."""
        if self.row >= S.MAX_SEATS:
            return np.zeros((len(dets), S.N_KINDS), np.int64)
        at = S.HAND + self.owner * S.N_KINDS
        return dets[:, at:at + S.N_KINDS].astype(np.int64)

    def contents(self, dets):
        """All the group's cards in each draw, by kind (int[D, 15])."""
        out = self.hand_counts(dets)
        for c in self.laid + self.other:
            out += kinds_of(dets[:, S.CELLS + c])[:, None] == np.arange(S.N_KINDS)
        for i in self.pile:
            out += dets[:, S.PILE + i][:, None] == np.arange(S.N_KINDS)
        return out


def unseen_places(params, obs, v):
    """(free cells, free pile positions, groups): the unseen places in none of v's groups,
    and v's groups that hold unseen places (a hand it does not know, cards it cannot see)."""
    p = params[0]
    n_cells = int(p[S.P_CELLS])
    cells = [c for c in range(n_cells) if obs[S.CELLS + c] == HIDDEN
             and M.tag_of(int(obs[M.cell_tags_at(p, c)]), v) == 0]
    pile = [i for i in range(obs[S.PILE_LEN]) if obs[S.PILE + i] == HIDDEN
            and M.tag_of(int(obs[S.PILE_TAGS + i]), v) == 0]
    groups = []
    for g in range(S.N_GROUPS):
        if obs[M.group_at(v, g) + S.G_OWNER] < 0:
            continue
        if g < S.MAX_SEATS and obs[S.HAND + g * S.N_KINDS] != HIDDEN:
            continue  # a hand it knows card for card
        groups.append(Group(params, obs, v, g))
    return cells, pile, groups


def kinds_of(cards):
    """Cell cards as hand kinds: any seat's bunny is BUNNY."""
    return np.minimum(cards, B)


def listing(counts, rng):
    """Each row's cards (counts by kind, int[D, kinds], equal row sums) in a random order:
    the cards of a hand, or of a set, hold no order of their own."""
    m = int(counts[0].sum())
    cum = counts.cumsum(axis=1)
    by_kind = (np.arange(m)[None, :, None] >= cum[:, None, :]).sum(axis=2)
    order = rng.random(by_kind.shape).argsort(axis=1)
    return np.take_along_axis(by_kind, order, axis=1)


def removed_counts(params, dets):
    """The farmland cards put away at setup in each draw, by kind: the deck less those in
    the pile, the hands and on the farmland (int[D, 14])."""
    p = params[0]
    deck = p[p[S.P_DECK_AT]:p[S.P_DECK_AT] + S.N_FARMLAND].astype(np.int64)
    kinds = np.arange(S.N_FARMLAND)
    seen = np.zeros((len(dets), S.N_FARMLAND), np.int64)
    for k in kinds:
        seen[:, k] = ((dets[:, S.PILE:S.PILE + S.DECK_MAX] == k).sum(axis=1)
                      + dets[:, S.HAND + k:S.HAND + 4 * S.N_KINDS:S.N_KINDS].sum(axis=1)
                      + (dets[:, S.CELLS:S.CELLS + int(p[S.P_CELLS])] == k).sum(axis=1))
    return deck - seen


# ------------------------------------------------------------------ the uniformity checks
def assert_uniform(dealt, alpha=ALPHA):
    """``assert_uniform_deal`` at the true level ``alpha``. Its chi-square test of
    independence counts the K places' cards as if each were drawn on its own; in one draw
    the K places share out one fixed set of cards, which makes the statistic K/(K-1) times
    larger under a uniform deal (2,000 perfect shuffles of 2 cards fail at its 1e-4 one
    time in 160, 400 repetitions: 15% have p < 0.05). It is handed the level at which its
    statistic, so inflated, means ``alpha``."""
    dealt = np.asarray(dealt)
    places, kinds = dealt.shape[1], len(np.unique(dealt[0]))
    level = alpha
    if places > 1 and kinds > 1:
        dof = (places - 1) * (kinds - 1)
        level = stats.chi2.sf(stats.chi2.isf(alpha, dof) * places / (places - 1), dof)
    assert_uniform_deal(dealt, alpha=level)


def pool_columns(params, obs, v, dets, rng):
    """What each draw deals from the pool, one column per place it can go (int[D, K]): the
    cells and pile cards in no group, the cards put away, each group's unknown cards (the
    group's cards less those it knows). Every column is interchangeable with every other."""
    cells, pile, groups = unseen_places(params, obs, v)
    cols = [kinds_of(dets[:, S.CELLS + c])[:, None] for c in cells]
    cols += [dets[:, S.PILE + i][:, None] for i in pile]
    removed = removed_counts(params, dets)
    assert (removed >= 0).all()
    if removed[0].sum():
        cols.append(listing(removed, rng))
    for g in groups:
        share = g.contents(dets) - g.known
        assert (share >= 0).all(), "a group lost a card it knows"
        assert (share[:, B] == 0).all(), "an unknown card is a bunny"
        assert (share.sum(axis=1) == g.unknown).all()
        if g.unknown:
            cols.append(listing(share[:, :S.N_FARMLAND], rng))
    return np.concatenate(cols, axis=1) if cols else np.zeros((len(dets), 0), np.int64)


def hand_bunnies(g, dets):
    return g.hand_counts(dets)[:, B]


def bunny_law(g):
    """{bunnies in the hand: probability} for a uniform deal of g's bunnies over the hand's
    cards and the cells the owner laid, no more than the cap in the hand."""
    lo, hi = max(0, g.bunnies - len(g.laid)), min(g.bunnies, g.cap, g.hand)
    ways = {j: comb(g.hand, j) * comb(len(g.laid), g.bunnies - j) for j in range(lo, hi + 1)}
    total = sum(ways.values())
    return {j: w / total for j, w in ways.items()}


def check_bunnies(g, dets, rng, done):
    """The owner's bunnies: exactly the known count, only on places a bunny can be, as many
    in the hand as the exact law says, and uniform over the places they can be (the hand's
    cards listed in a random order, since a hand has none)."""
    if g.bunnies == 0:
        return
    j = hand_bunnies(g, dets)
    laid = (dets[:, [S.CELLS + c for c in g.laid]] == B + g.owner).astype(np.int64)
    assert (j + laid.sum(axis=1) == g.bunnies).all(), "a bunny lost, or where it cannot be"
    law = bunny_law(g)
    assert set(np.unique(j).tolist()) <= set(law), "more bunnies in a hand than it can hold"
    if len(law) > 1:
        seen = np.array([(j == x).sum() for x in law])
        expected = np.array(list(law.values())) * len(j)
        assert stats.chisquare(seen, expected).pvalue > ALPHA, (
            f"bunnies in the hand {seen.tolist()}, expected {law}")
        done["bunny law"] += 1
    if not g.laid:
        return  # all in the hand: nothing to spread
    if g.cap >= min(g.bunnies, g.hand):  # the cap cuts nothing: every place is alike
        cols = np.concatenate([listing(np.stack([g.hand - j, j], axis=1), rng), laid], axis=1)
    else:  # the cells alike among themselves, given how many bunnies the hand holds
        cols = laid[j == Counter(j.tolist()).most_common(1)[0][0]]
    if cols.shape[1] > 1 and len(cols) >= MIN_ROWS and 0 < cols[0].sum() < cols.shape[1]:
        assert_uniform(cols)
        done["bunnies"] += 1


def check_farmland(g, dets, rng, done):
    """The group's farmland cards over its places but those holding bunnies: uniform, in
    the draws that laid the bunnies and dealt the group's cards alike (every such way drawn
    at least MIN_ROWS times; the hand's cards listed in a random order)."""
    hand = g.hand_counts(dets)
    laid = kinds_of(dets[:, [S.CELLS + c for c in g.laid]])
    key = np.concatenate([hand[:, B:], laid == B, g.contents(dets)], axis=1)
    rows, inverse, counts = np.unique(key, axis=0, return_inverse=True, return_counts=True)
    for k in np.flatnonzero(counts >= MIN_ROWS):
        pick = inverse.ravel() == k
        free = ~rows[k][1:1 + len(g.laid)].astype(bool)
        places = [laid[pick][:, free], kinds_of(dets[pick][:, [S.CELLS + c for c in g.other]]),
                  dets[pick][:, [S.PILE + i for i in g.pile]]]
        if sum(x.shape[1] for x in places) == 0:
            continue  # all in the hand: nothing to spread
        if g.hand > rows[k][0]:
            places.append(listing(hand[pick, :S.N_FARMLAND], rng))
        cols = np.concatenate(places, axis=1)
        if cols.shape[1] > 1 and len(np.unique(cols[0])) > 1:
            assert_uniform(cols)
            done["farmland"] += 1


def check_uniform(params, obs, v, done, seed=0):
    """Every uniformity check on DRAWS determinisations of seat v's observation; ``done``
    counts the checks made. Returns the draws."""
    rng = np.random.default_rng(seed)
    dets = draws(params, obs, v)
    cols = pool_columns(params, obs, v, dets, rng)
    if cols.shape[1] > 1:
        assert_uniform(cols)
        done["pool"] += 1
    for g in unseen_places(params, obs, v)[2]:
        check_bunnies(g, dets, rng, done)
        check_farmland(g, dets, rng, done)
    return dets


# ------------------------------------------------------------------ random and heuristic games
CASES = [(n, h) for n in (2, 3, 4) for h in (False, True)]


def live_seats(st):
    return [v for v in range(st[S.N_PLAYERS]) if st[S.ELIMINATED + v] == 0]


@pytest.mark.parametrize("n,heuristic", CASES)
def test_a_determinisation_is_sound_and_observed_as_the_observation(n, heuristic):
    params, states = mid_game_states(n, games=10, stops=4, heuristic=heuristic, seed=40 + n)
    again = np.empty_like(states[0])
    checked = 0
    for st in states:
        for v in range(n):
            obs = observe(params, st, v)
            for det in draws(params, obs, v, count=8, seed=v + 1):
                assert check_state(params, n, det) == []
                R.observe(params, det, v, again)
                assert np.array_equal(again, obs), np.flatnonzero(again != obs)[:10]
                checked += 1
    assert checked >= 10 * 4 * n * 8 * 0.9


@pytest.mark.parametrize("n,heuristic", CASES)
def test_play_goes_on_soundly_from_a_determinisation(n, heuristic):
    """The other seats' memory, filled in, is one the game's own memory keeping can carry
    on from: random play (up to 60 decisions on) keeps every seat's memory sound."""
    params, states = mid_game_states(n, games=5, stops=2, heuristic=heuristic, seed=60 + n)
    rng = np.random.default_rng(n)
    moves = np.empty(R.max_moves(params, n), np.int32)
    items = np.zeros((n, len(S.ITEM_COLUMNS)), np.int32)
    chance = np.array([7], np.uint64)
    for st in states:
        for v in live_seats(st):
            w = draws(params, observe(params, st, v), v, count=1, seed=v)[0]
            for _ in range(60):
                if R.is_over(w):
                    break
                k = R.legal_moves(params, w, moves)
                R.apply_move(params, w, curious_move(moves[:k].tolist(), rng), chance, items)
                assert check_state(params, n, w) == []


@pytest.mark.parametrize("n,heuristic", CASES)
def test_the_unseen_cards_are_dealt_uniformly(n, heuristic):
    params, states = mid_game_states(n, games=3, stops=2, heuristic=heuristic, seed=80 + n)
    done = Counter()
    for i, st in enumerate(states):
        for v in live_seats(st):
            check_uniform(params, observe(params, st, v), v, done, seed=i)
    assert done["pool"] >= len(states) * 2 * 0.9
    assert done["bunnies"] + done["bunny law"] > 0 and done["farmland"] > 0, done


def test_the_checks_fail_a_deal_that_is_not_uniform():
    """Each uniformity check above fails on draws made less random: the pool's cards kept
    in place in 30% of the draws, the bunnies put in the hand as often as possible, the
    farmland cards of a group kept in place."""
    t, c = shown_then_laid()
    obs = t.observe(1)
    rng = np.random.default_rng(0)
    dets = draws(t.params, obs, 1)
    [g] = [g for g in unseen_places(t.params, obs, 1)[2] if g.owner == 0]
    # the pool
    cols = pool_columns(t.params, obs, 1, dets, rng)
    assert_uniform(cols)
    biased = cols.copy()
    biased[:600] = cols[0]
    with pytest.raises(AssertionError, match="not dealt uniformly"):
        assert_uniform(biased)
    # the bunnies: one more in the hand, off the card laid, whenever the card holds one
    done = Counter()
    check_bunnies(g, dets, rng, done)
    assert done["bunnies"] == 1
    moved = dets.copy()
    on_card = moved[:, S.CELLS + c] == B + g.owner
    moved[on_card, S.CELLS + c] = S.CARROT_2
    moved[on_card, S.HAND + g.owner * S.N_KINDS + B] += 1
    moved[on_card, S.HAND + g.owner * S.N_KINDS + S.CARROT_2] -= 1
    with pytest.raises(AssertionError, match="bunnies in the hand"):
        check_bunnies(g, moved, rng, Counter())
    # the farmland cards: the card laid always the hand's empty card when it is farmland
    done = Counter()
    check_farmland(g, dets, rng, done)
    assert done["farmland"] == 1
    kept = dets.copy()
    swap = (kept[:, S.CELLS + c] == S.CARROT_2) & (
        kept[:, S.HAND + g.owner * S.N_KINDS + S.EMPTY] == 1)
    kept[swap, S.CELLS + c] = S.EMPTY
    kept[swap, S.HAND + g.owner * S.N_KINDS + S.EMPTY] -= 1
    kept[swap, S.HAND + g.owner * S.N_KINDS + S.CARROT_2] += 1
    with pytest.raises(AssertionError, match="not dealt uniformly"):
        check_farmland(g, kept, rng, Counter())


# ------------------------------------------------------------------ hand-built tables
def looked_at_table(pile):
    """3 players; P1 (seat 0) has 6 carrots to look at P2, whose hand is 2 empty, a draw-2,
    a peek and its 3 bunnies."""
    t = Table(3)
    t.set_hand(1, {S.EMPTY: 2, S.DRAW_2: 1, S.PEEK: 1})
    t.set_pile(pile)
    t.to_actions(0)
    t.set_carrots(0, 6)
    return t


def det_of(t, v, count=DRAWS, seed=1):
    return draws(t.params, t.observe(v), v, count, seed)


def hands(dets, o):
    return dets[:, S.HAND + o * S.N_KINDS:S.HAND + (o + 1) * S.N_KINDS]


def uniform(t, v):
    """The uniformity checks on seat v's observation of a hand-built table."""
    done = Counter()
    return check_uniform(t.params, t.observe(v), v, done), done


def test_a_looked_at_hand_is_kept_by_the_looker_only():
    t = looked_at_table([S.CARROT_1] * 6 + [S.TURN_ENDS, S.SHOW, S.DRAW_1, S.PEEK])
    t.apply(E(S.M_LOOK, 1))
    t.apply(E(S.M_DONE, 0))
    dets, done = uniform(t, 0)
    assert (hands(dets, 1) == t.hand(1)).all()
    assert done["pool"] == 1
    dets, _ = uniform(t, 2)  # P3 saw nothing: P2's farmland cards are dealt from the pool
    assert (hands(dets, 1)[:, B] == 3).all()
    assert len(np.unique(hands(dets, 1), axis=0)) > 20


def shown_then_laid():
    """P1 turns up "show your hand" (2 farmland cards and 3 bunnies, seen by all), then
    lays its take-2-carrots face down."""
    t = Table(3)
    t.strip_ring()
    show = t.cell(1, 0)
    t.lay(show, S.SHOW)
    t.set_hand(0, {S.EMPTY: 1, S.CARROT_2: 1})
    t.to_actions(0)
    t.set_carrots(0, 4)
    t.apply(E(S.M_MOVE, show))
    t[S.PHASE] = S.PH_PLACE
    laid = t.cell(2, -1)
    t.apply(E(S.M_PLACE, S.CARROT_2 * 256 + laid))
    return t, laid


def test_a_shown_hand_and_the_card_laid_from_it_hold_the_cards_shown():
    t, laid = shown_then_laid()
    shown = np.zeros(S.N_KINDS, np.int64)
    shown[[S.EMPTY, S.CARROT_2, B]] = [1, 1, 3]
    for v in (1, 2):
        dets, done = uniform(t, v)
        held = hands(dets, 0).astype(np.int64)
        on_card = kinds_of(dets[:, S.CELLS + laid])
        held[np.arange(len(dets)), on_card] += 1
        assert (held == shown).all()
        # the card laid is any of the five shown, alike: a bunny 3 times in 5
        freq = Counter(on_card.tolist())
        assert abs(freq[B] / len(dets) - 3 / 5) < 0.04
        assert done["bunnies"] == 1 and done["farmland"] == 1
    # once the card is turned up, the hand is known again, and kept
    t.to_actions(1)
    t.set_carrots(1, 3)
    t.apply(E(S.M_MOVE, laid))
    assert (hands(det_of(t, 2, 50), 0) == t.hand(0)).all()


def put_back_two():
    """P1 looks at P2, who puts its draw-2 and an empty card under the pile and draws two."""
    t = looked_at_table([S.CARROT_1] * 8 + [S.TURN_ENDS, S.SHOW, S.DRAW_1, S.PEEK])
    t.apply(E(S.M_LOOK, 1))
    t.apply(E(S.M_RETURN, S.DRAW_2))
    t.apply(E(S.M_RETURN, S.EMPTY))
    t.apply(E(S.M_DONE, 0))
    return t


def test_cards_put_back_are_known_to_their_returner_and_followed_by_the_looker():
    t = put_back_two()
    # P2 knows the two cards at the bottom of the pile
    dets = det_of(t, 1)
    assert (dets[:, S.PILE:S.PILE + 2] == [S.EMPTY, S.DRAW_2]).all()
    # P1 saw the hand: the hand and the two cards under the pile hold the 4 farmland cards
    # it saw and 2 it did not; the two under the pile are of those six, uniformly
    dets, done = uniform(t, 0)
    seen = np.zeros(S.N_KINDS, np.int64)
    seen[[S.EMPTY, S.DRAW_2, S.PEEK]] = [2, 1, 1]
    g = [g for g in unseen_places(t.params, t.observe(0), 0)[2] if g.owner == 1][0]
    assert g.pile == [0, 1] and g.unknown == 2
    assert (g.contents(dets) >= seen).all()
    assert done["pool"] == 1
    # in P1's determinisations P2 knows what it put back (as it does in the game)
    for det in dets[:20]:
        assert all(M.tag_of(int(det[S.PILE_TAGS + i]), 1) == S.KNOWN_TAG for i in (0, 1))
        mine = observe(t.params, det, 1)
        assert (mine[S.PILE:S.PILE + 2] == det[S.PILE:S.PILE + 2]).all()


def test_a_hand_known_to_hold_its_three_bunnies_always_holds_them():
    """After the put-back, P1 (who saw the hand) and P3 (who saw the cards go under the
    pile, never a bunny) both know P2's hand holds all 3 bunnies."""
    t = put_back_two()
    for v in (0, 2):
        assert M.bunnies_in_hand(t.p, t.observe(v), v, 1) == (3, 3)
        dets = det_of(t, v)
        assert (hands(dets, 1)[:, B] == 3).all()
        assert (dets[:, S.PILE:S.PILE + t[S.PILE_LEN]] < S.N_FARMLAND).all()
    # a card laid from a hand known to hold bunnies only is a bunny (P3 did not see the
    # hand: for it one of the three may be the card P2 laid before)
    t = Table(3)
    t.strip_ring()
    t.set_hand(1, {})
    t.lay(t.cell(1, 1), S.EMPTY, seen=2, placer=1)
    t.set_pile([S.CARROT_1] * 10)
    t.to_actions(0)
    t.set_carrots(0, 3)
    t.apply(E(S.M_LOOK, 1))
    t.apply(E(S.M_DONE, 0))
    t[S.TURN_SEAT] = t[S.TO_MOVE] = 1
    t[S.PHASE] = S.PH_PLACE
    laid = t.placeable()[0]
    t.apply(E(S.M_PLACE, B * 256 + laid))
    assert (det_of(t, 0, 200)[:, S.CELLS + laid] == B + 1).all()
    assert (det_of(t, 2, 400)[:, S.CELLS + laid] != B + 1).any()


def test_a_hand_that_shrank_holds_no_more_bunnies_than_its_cap():
    """P2 lays two empty cards and two bunnies, keeping one bunny, then draws two: three
    bunnies among the hand (3 cards) and the four laid, at most one in the hand. Of the
    C(3, j) * C(4, 3 - j) ways, 4 put none in the hand and 18 one."""
    t = Table(2)
    t.set_hand(1, {S.EMPTY: 2})
    laid = [t.cell(1, 1), t.cell(2, -1), t.cell(-1, 2), t.cell(-2, 1)]
    for c in laid:
        t[S.TURN_SEAT] = t[S.TO_MOVE] = 1
        t[S.PHASE] = S.PH_PLACE
        t.apply(E(S.M_PLACE, (S.EMPTY if t.hand(1, S.EMPTY) else B) * 256 + c))
    t.to_actions(1)
    t.apply(E(S.M_DRAW, 0))
    t.apply(E(S.M_DRAW, 0))
    g = [g for g in unseen_places(t.params, t.observe(0), 0)[2] if g.owner == 1][0]
    assert (g.hand, sorted(g.laid), g.cap, g.bunnies) == (3, sorted(laid), 1, 3)
    assert bunny_law(g) == {0: 4 / 22, 1: 18 / 22}
    dets, done = uniform(t, 0)
    assert (hands(dets, 1)[:, B] <= 1).all()
    assert done["bunny law"] == 1 and done["bunnies"] == 1


def test_the_partner_in_the_team_game_is_dealt_like_any_other_hand():
    t = Table(4)
    t.strip_ring()
    x = t.cell(2, -1)
    t.lay(x, B + 2, seen=4, placer=2)  # P3, P1's partner, laid a bunny
    t.to_actions(0)
    t.set_carrots(0, 6)
    # P1 knows no more of its partner's hand than of an opponent's: the bunny is on x as
    # often as one of P3's 7 cards and x holds one of its 3 bunnies, 3 times in 8
    dets, done = uniform(t, 0)
    assert abs((dets[:, S.CELLS + x] == B + 2).mean() - 3 / 8) < 0.04
    assert len(np.unique(hands(dets, 2), axis=0)) > 20
    assert done["bunnies"] >= 1
    t.apply(E(S.M_LOOK, 2))  # a look at one's partner is a look like any other
    t.apply(E(S.M_DONE, 0))
    assert (hands(det_of(t, 0, 100), 2) == t.hand(2)).all()
    assert len(np.unique(hands(det_of(t, 1, 200), 2), axis=0)) > 10
    # the partner's bunny turned up is shown and put back where it was, seen by all
    t.apply(E(S.M_MOVE, x))
    for v in range(4):
        assert (det_of(t, v, 100)[:, S.CELLS + x] == B + 2).all()


def test_the_other_seats_memory_is_what_the_table_showed_them():
    """In P3's determinisations P1 has forgotten what its look showed it (P3 cannot know
    what P1 saw): each seat knows of another hand its owner's bunnies that it has not seen,
    in the hand or among the face-down cards the owner laid that it has not seen."""
    t = put_back_two()
    params = t.params
    n_cells = t.n_cells
    for det in det_of(t, 2, 30):
        for u in (0, 1):
            for o in range(3):
                if o == u:
                    continue
                r = M.group_at(u, o)
                laid = [c for c in range(n_cells) if R.face_down(t.p, det, c)
                        and det[M.placer_at(t.p, c)] == o and not (det[M.seen_at(t.p, c)] >> u) & 1]
                unseen = det[S.HAND + o * S.N_KINDS + B] + sum(det[S.CELLS + c] == B + o
                                                                for c in laid)
                assert det[r + S.G_KNOWN + B] == unseen
                assert (det[r + S.G_KNOWN:r + S.G_KNOWN + S.N_FARMLAND] == 0).all()
        # P1's observation of that world shows P2's hand hidden again
        assert (observe(params, det, 0)[S.HAND + S.N_KINDS:S.HAND + 2 * S.N_KINDS]
                == HIDDEN).all()
        assert (observe(params, det, 2)[S.HAND + S.N_KINDS:S.HAND + 2 * S.N_KINDS]
                == HIDDEN).all()


# ------------------------------------------------------------------ cost
@njit
def _many(params, obs, seat, state, stream, scratch, n):
    for _ in range(n):
        R.determinize(params, obs, seat, state, stream, scratch)


def test_the_kernel_allocates_nothing():
    params, states = mid_game_states(4, games=1, stops=3, heuristic=False, seed=5)
    state = np.empty_like(states[0])
    scratch = np.empty_like(state)
    stream = np.array([1], np.uint64)
    for st in states:
        for v in live_seats(st):
            obs = observe(params, st, v)
            _many(params, obs, v, state, stream, scratch, 1)
            _nrt_python.memsys_enable_stats()
            try:
                counts = []
                for n in (1, 1000):
                    before = rtsys.get_allocation_stats().alloc
                    _many(params, obs, v, state, stream, scratch, n)
                    counts.append(rtsys.get_allocation_stats().alloc - before)
            finally:
                _nrt_python.memsys_disable_stats()
            assert counts[0] == counts[1], f"allocations grow with the calls: {counts}"
