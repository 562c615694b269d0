"""Determinisation (the ``determinize`` kernel the search strategies call; NOTES.md,
Determinisation).

What a seat does not see, and how a determinisation fills it in: the order of the rabbit
deck (its cards are public: CARD_LOC); the House and Forest cards it cannot see (the House
stack, the Forest pool, the others' dealt and kept missions when face down, the House cards
another seat is choosing from). A card the seat saw go back into a stack at time t (its
memory, HOUSE_BACK and FOREST_BACK) is in that stack or in a place filled after t (each
place's time is public: CLOCK, HOUSE_AT, FOREST_AT); the determinisation deals uniformly
among the deals that respect this.

Checked here on random mid-game states of random games at 2, 3 and 4 players, missions
face down and face up, for every seat: the state is sound (check_state holds every seat's
memory to where the cards are), observing it gives back the observation, nothing stays
hidden; the rabbit deck and the mission cards are dealt uniformly among the allowed deals
(chi-square tests over 2,000 draws, in the order the law factors: the latest card seen go
back over the places it can be in, the next over those left, then the cards never seen
over the rest); on states reached by chosen moves, a secret setup choice made and not yet
shown, the House cards another seat is choosing from, a card seen go back and then drawn by
another seat, a redeal, with the exact laws; the memory follows the moves; and the kernel
allocates nothing.
"""

import numpy as np
import pytest
from determinize_checks import assert_uniform_deal
from numba import njit
from numba.core.runtime import _nrt_python, rtsys
from scipy import stats

from simkit.game import HIDDEN
from simkit.games.dolina_krolikow import rules as R
from simkit.games.dolina_krolikow import state as S
from simkit.games.dolina_krolikow.transcript import check_state
from simkit.registry import get_game
from simkit.rng import seed_streams
from simkit.runner import RunSpec, plan

GAME = get_game("dolina-krolikow")
DRAWS = 2000
ALPHA = 1e-4
NEVER = float("inf")
SETUP = (S.PH_SETUP_FOREST, S.PH_SETUP_HOUSE, S.PH_REDEAL)
CHOOSING = (S.PH_SETUP_FOREST, S.PH_SETUP_HOUSE)  # the secret choices, before the reveal


def make_plan(n, face_up=False):
    over = {"missions.face_up": True} if face_up else {}
    return plan(RunSpec.make("dolina-krolikow", n, 1, overrides=over))


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


class Game:
    """A seeded game played by hand or at random, keeping from the moves alone what each
    seat saw go back into a stack, and when (``back[s]``: {("house"|"forest", card): 1 +
    time}), and the clock (mission draws so far)."""

    def __init__(self, n, seed, face_up=False):
        self.pl = make_plan(n, face_up)
        self.params, self.n = self.pl.compiled, n
        streams = np.empty(1 + n, np.uint64)
        seed_streams(np.uint64(seed), n, streams)
        self.chance = streams[0:1].copy()
        self.st = np.empty(self.pl.state_size, np.int32)
        R.new_game(self.params, n, self.st, self.chance)
        self.items = np.zeros((n, len(GAME.item_columns)), np.int32)
        self.buf = np.empty(self.pl.max_moves, np.int32)
        self.back = [{} for _ in range(n)]
        self.secret = []  # the cards the secret choices put back, seen go at the reveal
        self.clock = 0

    def moves(self):
        return self.buf[:R.legal_moves(self.params, self.st, self.buf)].tolist()

    def play(self, move):
        assert move in self.moves()
        b = self.st.copy()
        s, ph = int(b[S.ACTOR]), int(b[S.PHASE])
        R.apply_move(self.params, self.st, move, self.chance, self.items)
        a = self.st
        hand = b[S.FOREST_HAND + 2 * s:S.FOREST_HAND + 2 * s + 2]
        if ph == S.PH_SETUP_FOREST and move != R.F_REDEAL:
            self.secret.append((s, ("forest", int(hand[1 - (move - R.F_KEEP)]))))
        elif ph == S.PH_SETUP_HOUSE and move != R.H_KEEP_ALL:
            card = int(b[S.HOUSE_HAND + 4 * s + move - R.H_DISCARD])
            self.secret.append((s, ("house", card)))
        elif ph == S.PH_REDEAL:
            self.back[s][("forest", int(hand[1 - (move - R.R_KEEP)]))] = self.clock + 1
        elif ph == S.PH_DRAW and move == R.DRAW_TAKE:
            self.clock += 1
        elif ph == S.PH_KEEP:
            self.back[s][("house", int(b[S.DRAWN + 1 - (move - R.KEEP)]))] = self.clock + 1
        if ph == S.PH_SETUP_HOUSE and a[S.PHASE] not in CHOOSING:  # the reveal
            for q, card in self.secret:
                self.back[q][card] = self.clock + 1
            self.secret = []
        t = int(a[S.ACTOR])
        if a[S.PHASE] == S.PH_REDEAL and (ph != S.PH_REDEAL or s != t):  # t's redeal began
            for f in b[S.FOREST_HAND + 2 * t:S.FOREST_HAND + 2 * t + 2]:
                self.back[t][("forest", int(f))] = self.clock + 1
            self.clock += 1

    def random_move(self, rng):
        m = self.moves()
        move = m[rng.integers(len(m))]
        self.play(move)
        return move


def random_states(n, games, seed, face_up, per_game=5):
    """(params, state) at random decisions of random games, and at every secret choice."""
    rng = np.random.default_rng(seed)
    out = []
    for g in range(games):
        game = Game(n, seed * 1000 + g, face_up)
        trail = []
        while not R.is_over(game.st):
            trail.append(game.st.copy())
            game.random_move(rng)
        secret = [st for st in trail if st[S.PHASE] in SETUP or st[S.PHASE] == S.PH_KEEP]
        picks = rng.choice(len(trail), size=per_game, replace=False)
        out += [(game.params, trail[i]) for i in sorted(picks)]
        out += [(game.params, st) for st in secret[:2]]
    return out


# --- the places an observer cannot see, and what it knows of them (the test's own reading
# of state.py, not the kernel's) ------------------------------------------------------------

def places(obs, kind):
    """[(index, time)] of the places of ``kind`` ("house"/"forest") hidden in ``obs``."""
    out = []
    n = int(obs[S.N_PLAYERS])
    if kind == "house":
        out += [(S.HSTACK + i, NEVER) for i in range(S.MAXHC) if obs[S.HSTACK + i] == HIDDEN]
        out += [(S.DRAWN + j, int(obs[S.CLOCK])) for j in range(2)
                if obs[S.DRAWN + j] == HIDDEN]
        for s in range(n):
            out += [(S.HOUSE_HAND + 4 * s + k, 0) for k in range(4)
                    if obs[S.HOUSE_HAND + 4 * s + k] == HIDDEN]
            out += [(S.HOUSE_CARD + s * S.MAXH + h, int(obs[S.HOUSE_AT + s * S.MAXH + h]))
                    for h in range(S.MAXH) if obs[S.HOUSE_CARD + s * S.MAXH + h] == HIDDEN]
    else:
        out += [(S.FPOOL + i, NEVER) for i in range(S.MAXF) if obs[S.FPOOL + i] == HIDDEN]
        for s in range(n):
            at = int(obs[S.FOREST_AT + s])
            for i in (S.FOREST_HAND + 2 * s, S.FOREST_HAND + 2 * s + 1, S.FOREST_KEPT + s):
                if obs[i] == HIDDEN:
                    out.append((i, at))
    return out


def remembered(params, obs, seat, kind):
    """[(card, time it went back)] of the unseen cards ``seat`` saw go back, the latest
    first (ties: the lower card first)."""
    if kind == "house":
        size, back, n = S.MAXHC, S.HOUSE_BACK, int(params[0][R.C_N_HOUSE])
        regions = [(S.HOUSE_CARD, 4 * S.MAXH), (S.HOUSE_HAND, 16), (S.DRAWN, 2)]
    else:
        size, back, n = S.MAXF, S.FOREST_BACK, int(params[0][R.C_N_FOREST])
        regions = [(S.FOREST_HAND, 8), (S.FOREST_KEPT, 4)]
    seen = {int(x) for a, k in regions for x in obs[a:a + k] if x >= 0}
    mem = [(c, int(obs[back + seat * size + c]) - 1) for c in range(n)
           if c not in seen and obs[back + seat * size + c] > 0]
    return sorted(mem, key=lambda m: (-m[1], m[0]))


def check_uniform(params, obs, seat, dets, kind):
    """The law of a uniform deal among the allowed ones, factor by factor: the latest card
    seen go back lies uniformly over the places it can be in; given where it lies, the next
    over the places it can be in that are left; ...; then the cards never seen fill the
    places left as a uniform permutation. Returns how many factors had a choice."""
    where = places(obs, kind)
    mem = remembered(params, obs, seat, kind)
    taken = np.zeros((len(dets), 0), np.int64)
    choices = 0
    for c, gone in mem:
        allowed = [i for i, t in where if t > gone]
        rows = []
        for d, prev in zip(dets, taken, strict=True):
            free = [i for i in allowed if d[i] not in prev]
            assert d[free].tolist().count(c) == 1, f"{kind} card {c} seen go back at " \
                f"{gone} dealt where it cannot be"
            rows.append(d[free] == c)
        if len(rows[0]) > 1:
            assert_uniform_deal(np.array(rows, np.int64))
            choices += 1
        taken = np.concatenate([taken, np.full((len(dets), 1), c)], axis=1)
    idx = [i for i, _ in where]
    rest = [d[idx][~np.isin(d[idx], [c for c, _ in mem])] for d in dets]
    if len(rest[0]) > 1:
        assert_uniform_deal(np.array(rest))
        choices += 1
    return choices


CASES = [(n, face_up) for n in (2, 3, 4) for face_up in (False, True)]


@pytest.mark.parametrize("n,face_up", CASES)
def test_determinisations_are_sound_and_give_back_the_observation(n, face_up):
    checked = 0
    for params, st in random_states(n, 10, seed=n, face_up=face_up):
        for seat in range(n):
            obs = observe(params, st, seat)
            hidden = (obs == HIDDEN) & (st != HIDDEN)
            for det in determinisations(params, obs, seat, 6, seed=checked + 1):
                assert check_state(params, n, det) == []
                assert np.array_equal(observe(params, det, seat), obs)
                assert not (det[hidden] == HIDDEN).any(), "an entry left hidden"
                deck = det[S.DECK:S.DECK + det[S.DECK_N]]
                assert sorted(deck) == sorted(np.flatnonzero(
                    st[S.CARD_LOC:S.CARD_LOC + S.MAXC] == S.LOC_DECK))
                for s in range(n):  # the others remember nothing; the seat what it does
                    for back, size in ((S.HOUSE_BACK, S.MAXHC), (S.FOREST_BACK, S.MAXF)):
                        row = det[back + s * size:back + (s + 1) * size]
                        assert (row == 0).all() if s != seat else \
                            (row == st[back + s * size:back + (s + 1) * size]).all()
                checked += 1
    assert checked > 300


@pytest.mark.parametrize("n,face_up", CASES)
def test_the_unseen_parts_are_dealt_uniformly(n, face_up):
    choices = 0
    states = [x for x in random_states(n, 3, seed=30 + n, face_up=face_up, per_game=2)
              if not R.is_over(x[1])]
    for i, (params, st) in enumerate(states[:6]):
        seat = (int(st[S.ACTOR]) + i) % n
        obs = observe(params, st, seat)
        dets = determinisations(params, obs, seat, DRAWS, seed=i + 1)
        assert_uniform_deal(dets[:, S.DECK:S.DECK + st[S.DECK_N]])
        for kind in ("house", "forest"):
            choices += check_uniform(params, obs, seat, dets, kind)
    assert choices >= 6


# --- states reached by chosen moves: the constraints an observation carries --------------

def play_setup(game, forest_keep=0, house_move=None):
    """The seat to choose keeps Forest card ``forest_keep`` and discards House card 0 (or
    makes ``house_move``)."""
    game.play(R.F_KEEP + forest_keep)
    game.play(R.H_DISCARD if house_move is None else house_move)


def law(observed, probs):
    """``observed`` (int[D]) follows the probabilities ``probs`` (value -> p): chi-square."""
    values = sorted(probs)
    f_obs = np.array([(observed == v).sum() for v in values])
    assert f_obs.sum() == len(observed), "a value the law does not allow"
    p = stats.chisquare(f_obs, np.array([probs[v] for v in values]) * len(observed)).pvalue
    assert p > ALPHA, f"{f_obs.tolist()} of {values} is not the law (p={p:.2g})"


def test_a_secret_choice_made_is_drawn_anew_for_the_next_chooser():
    """P2 cannot see what P1 chose: its determinisations deal P1's hand among the cards P2
    never saw, and draw P1's choice among those that hand allows, each as likely (a
    determinisation that kept the true choice, or leaned to it, fails)."""
    g = Game(2, seed=11)
    play_setup(g)  # P1 keeps its first Forest card, discards its first House card
    assert g.st[S.PHASE] == S.PH_SETUP_FOREST and g.st[S.ACTOR] == 1
    obs = observe(g.params, g.st, 1)  # P2, about to choose: P1's choice is secret
    assert obs[S.CHOSEN_FOREST] == HIDDEN and obs[S.CHOSEN_HOUSE] == HIDDEN
    assert obs[S.FOREST_KEPT] == -1 and obs[S.HOUSE_COUNT] == 0  # carried out at the reveal
    dets = determinisations(g.params, obs, 1, DRAWS)
    unseen = sorted(set(range(9)) - set(g.st[S.FOREST_HAND + 2:S.FOREST_HAND + 4].tolist()))
    assert len(unseen) == 7  # the pool's 5 and P1's 2, among the 7 P2 never saw
    law(dets[:, S.FOREST_HAND], {f: 1 / 7 for f in unseen})
    law(dets[:, S.CHOSEN_HOUSE], {k: 1 / 5 for k in (0, 1, 2, 3, S.CHOSE_KEEP_ALL)})
    redeal = np.array([R.may_redeal(g.params, d, 0) for d in dets])
    assert 30 < redeal.sum() < DRAWS / 2  # some hands dealt to P1 clash, most do not
    law(dets[~redeal, S.CHOSEN_FOREST], {0: 1 / 2, 1: 1 / 2})
    law(dets[redeal, S.CHOSEN_FOREST], {0: 1 / 3, 1: 1 / 3, S.CHOSE_REDEAL: 1 / 3})
    assert check_uniform(g.params, obs, 1, dets, "forest") == 1
    assert check_uniform(g.params, obs, 1, dets, "house") == 1


def test_a_card_put_back_at_setup_is_remembered_from_the_reveal():
    g = Game(2, seed=11)
    returned = int(g.st[S.FOREST_HAND + 1])
    play_setup(g)  # P1 keeps its first Forest card: the second goes back at the reveal
    assert observe(g.params, g.st, 0)[S.FOREST_BACK + returned] == 0  # still in its hand
    play_setup(g)  # P2 chooses: the reveal
    assert g.st[S.PHASE] not in SETUP
    obs = observe(g.params, g.st, 0)
    assert obs[S.FOREST_BACK + returned] == 1
    dets = determinisations(g.params, obs, 0, DRAWS)
    assert not (dets[:, S.FOREST_KEPT + 1] == returned).any()  # P2's, dealt before
    pool = dets[:, S.FPOOL:S.FPOOL + g.st[S.FPOOL_N]]
    assert ((pool == returned).sum(axis=1) == 1).all()
    assert check_uniform(g.params, obs, 0, dets, "forest") == 2
    assert check_uniform(g.params, obs, 0, dets, "house") >= 1


def to_rounds(g):
    while g.st[S.PHASE] in SETUP:
        play_setup(g) if g.st[S.PHASE] == S.PH_SETUP_FOREST else g.play(g.moves()[0])


def test_the_house_cards_another_seat_chooses_from_may_be_the_one_seen_go_back():
    g = Game(2, seed=5)
    discarded = int(g.st[S.HOUSE_HAND + 0])
    to_rounds(g)  # both discard their first House card
    assert g.back[0][("house", discarded)] == 1
    g.play(R.DRAW_PASS)  # P1 does not draw
    g.play(R.DRAW_TAKE)  # P2 draws two and chooses
    assert g.st[S.PHASE] == S.PH_KEEP and g.st[S.ACTOR] == 1 and g.st[S.CLOCK] == 1
    obs = observe(g.params, g.st, 0)
    assert (obs[S.DRAWN:S.DRAWN + 2] == HIDDEN).all()
    dets = determinisations(g.params, obs, 0, DRAWS)
    stack = int(g.st[S.HSTACK_N])
    in_drawn = (dets[:, S.DRAWN:S.DRAWN + 2] == discarded).any(axis=1)
    law(in_drawn.astype(int), {1: 2 / (stack + 2), 0: stack / (stack + 2)})
    # never among P2's three dealt Houses
    assert not (dets[:, S.HOUSE_CARD + S.MAXH:S.HOUSE_CARD + S.MAXH + 3] == discarded).any()
    check_uniform(g.params, obs, 0, dets, "house")


def test_a_card_seen_go_back_may_be_in_a_house_drawn_after():
    for seed in range(8, 60):  # a game where P1 first sees that card in its draw
        g = Game(3, seed=seed)
        dealt = g.st[S.HOUSE_HAND:S.HOUSE_HAND + 4].tolist()
        to_rounds(g)
        g.play(R.DRAW_TAKE)  # P1 draws two, keeps the first: the second goes back
        second = int(g.st[S.DRAWN + 1])
        if second not in dealt:
            break
    assert ("house", second) not in g.back[0]
    g.play(R.KEEP + 0)
    assert g.back[0][("house", second)] == 2  # went back at time 1
    while g.st[S.PHASE] == S.PH_WANDER_ADD:
        g.play(R.WAND_DONE)
    g.play(R.DRAW_TAKE)  # P2 draws (time 2) and keeps one
    g.play(R.KEEP + 1)
    g.play(R.DRAW_PASS)  # P3 does not
    obs = observe(g.params, g.st, 0)
    dets = determinisations(g.params, obs, 0, DRAWS)
    new = S.HOUSE_CARD + S.MAXH + int(g.st[S.HOUSE_COUNT + 1]) - 1
    assert g.st[S.HOUSE_AT + new - S.HOUSE_CARD] == 2
    stack = int(g.st[S.HSTACK_N])
    law((dets[:, new] == second).astype(int), {1: 1 / (stack + 1), 0: stack / (stack + 1)})
    old = [S.HOUSE_CARD + s * S.MAXH + h for s in (1, 2) for h in range(2)]  # dealt at 0
    assert not np.isin(dets[:, old], second).any()
    assert check_uniform(g.params, obs, 0, dets, "house") >= 2


def test_after_a_redeal_a_forest_card_seen_go_back_may_be_the_redealers():
    for seed in range(400):  # a game whose setup has a redeal (random choices)
        g = Game(2, seed=seed)
        rng = np.random.default_rng(seed)
        while g.st[S.PHASE] in SETUP and not (g.st[S.PHASE] == S.PH_REDEAL):
            m = g.moves()
            g.play(R.F_REDEAL if R.F_REDEAL in m else m[rng.integers(len(m))])
        if g.st[S.PHASE] == S.PH_REDEAL and g.st[S.REDEAL:S.REDEAL + 2].sum() == 1:
            break
    else:
        pytest.fail("no redeal in 400 games")
    t = int(g.st[S.ACTOR])
    s = 1 - t
    assert g.st[S.FOREST_AT + t] == 1 and g.st[S.CLOCK] == 1
    mine = [c for (kind, c), v in g.back[s].items() if kind == "forest"]
    assert len(mine) == 1  # s kept one and put one back (time 0), before the redeal
    obs = observe(g.params, g.st, s)
    dets = determinisations(g.params, obs, s, DRAWS)
    pool = int(g.st[S.FPOOL_N])
    hand = dets[:, S.FOREST_HAND + 2 * t:S.FOREST_HAND + 2 * t + 2]
    law((hand == mine[0]).any(axis=1).astype(int), {1: 2 / (pool + 2), 0: pool / (pool + 2)})
    assert check_uniform(g.params, obs, s, dets, "forest") >= 1
    g.play(R.R_KEEP + 0)  # the redealer keeps one, puts one back (time 1)
    obs = observe(g.params, g.st, s)
    dets = determinisations(g.params, obs, s, DRAWS)
    pool = int(g.st[S.FPOOL_N])
    kept = (dets[:, S.FOREST_KEPT + t] == mine[0]).astype(int)
    law(kept, {1: 1 / (pool + 1), 0: pool / (pool + 1)})


def test_face_up_missions_leave_only_the_stacks_and_the_cards_being_chosen():
    g = Game(3, seed=2, face_up=True)
    to_rounds(g)
    g.play(R.DRAW_TAKE)
    obs = observe(g.params, g.st, 1)
    hidden = {i for i, _ in places(obs, "house")} | {i for i, _ in places(obs, "forest")}
    stacks = set(range(S.HSTACK, S.HSTACK + g.st[S.HSTACK_N])) | set(
        range(S.FPOOL, S.FPOOL + g.st[S.FPOOL_N])) | {S.DRAWN, S.DRAWN + 1}
    assert hidden == stacks
    dets = determinisations(g.params, obs, 1, DRAWS)
    assert check_uniform(g.params, obs, 1, dets, "house") >= 1


# --- the memory and the times follow the moves --------------------------------------------

@pytest.mark.parametrize("n,face_up", CASES)
def test_what_a_seat_saw_go_back_is_in_its_observation_alone(n, face_up):
    rng = np.random.default_rng(40 + n)
    remembered_some = 0
    for k in range(6):
        g = Game(n, seed=100 * n + k, face_up=face_up)
        came = {}  # house place -> the clock when its card came
        while not R.is_over(g.st):
            counts = g.st[S.HOUSE_COUNT:S.HOUSE_COUNT + n].copy()
            clock, drawing = g.clock, g.st[S.PHASE] == S.PH_DRAW
            move = g.random_move(rng)
            for s in range(n):  # kept at setup (before a redeal the move may start), or drawn
                for h in range(int(counts[s]), int(g.st[S.HOUSE_COUNT + s])):
                    came[s * S.MAXH + h] = clock + (drawing and move == R.DRAW_TAKE)
            assert g.st[S.CLOCK] == g.clock
            for i, t in came.items():
                assert g.st[S.HOUSE_AT + i] == t
            for s in range(n):
                obs = observe(g.params, g.st, s)
                for q in range(n):
                    for kind, back, size in (("house", S.HOUSE_BACK, S.MAXHC),
                                             ("forest", S.FOREST_BACK, S.MAXF)):
                        row = obs[back + q * size:back + (q + 1) * size]
                        if q != s:
                            assert (row == HIDDEN).all()
                        else:
                            want = [g.back[s].get((kind, c), 0) for c in range(size)]
                            assert row.tolist() == want
                            remembered_some += sum(x > 0 for x in want)
    assert remembered_some > 100


def test_check_state_flags_a_card_seen_go_back_in_a_place_filled_before():
    g = Game(2, seed=5)
    discarded = int(g.st[S.HOUSE_HAND + 0])
    to_rounds(g)
    st = g.st.copy()
    other = int(st[S.HOUSE_CARD + S.MAXH])  # P2's first House, dealt at time 0
    i = [j for j in range(st[S.HSTACK_N]) if st[S.HSTACK + j] == discarded][0]
    st[S.HSTACK + i], st[S.HOUSE_CARD + S.MAXH] = other, discarded
    assert any("go back" in p for p in check_state(g.params, 2, st))


# --- the kernel allocates nothing ---------------------------------------------------------

@njit
def _many(params, obs, seat, state, stream, scratch, n):
    for _ in range(n):
        R.determinize(params, obs, seat, state, stream, scratch)


def test_the_kernel_allocates_nothing():
    params, st = random_states(3, 1, seed=3, face_up=False, per_game=1)[0]
    state = np.empty(S.STATE_SIZE, np.int32)
    scratch = np.empty(S.STATE_SIZE, np.int32)
    stream = np.array([1], np.uint64)
    for seat in range(3):
        obs = observe(params, st, seat)
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
