"""Determinisation (the ``determinize`` kernel the search strategies call).

What a seat does not see, and how a determinisation fills it in (NOTES.md,
Determinisation): the places of the opponent's unknown characters (dealt to the tokens no
seen character accounts for), the card the opponent holds face down (one of its hand's
cards), the unseen mover, whether Holly moved (for the elil), who has reached the Down.

Checked here on random mid-game states of every board layout, with and without the
optional cards, for both seats: the state is sound, observing it gives back the
observation, nothing stays hidden, and the truth is one of the states it can draw; each
unseen group is dealt uniformly (a chi-square test over 2,000 draws); the constraints the
observation carries are kept on hand-built positions; and the kernel allocates nothing.
"""

import numpy as np
import pytest
from determinize_checks import assert_uniform_deal
from numba import njit
from numba.core.runtime import _nrt_python, rtsys
from scipy import stats

from simkit.game import HIDDEN
from simkit.games.watership_down import rules
from simkit.games.watership_down.state import (
    ATT,
    ATTACKING,
    BB_ONTO_SNARE,
    CARD_E,
    CARD_H,
    CNT,
    DECIDER,
    DOWN_SEEN,
    ELIL,
    ENSNARED,
    HAND,
    HLESSIL,
    HOLLY_LOOK,
    IN_PLAY,
    KNOWN,
    LOC,
    LOCK,
    M_CHAR,
    MOVER,
    N_CARDS,
    N_CHARS,
    N_RABBITS,
    N_SPACES,
    P_CARD,
    P_DAND,
    P_ESCAPE,
    P_GROUP,
    P_HOLLY,
    P_QUESTION,
    P_SETUP,
    PENDING,
    PHASE,
    Q_TARGET,
    QUESTION,
    SEEN_AT,
    STAT,
    STATE_SIZE,
    WINNER,
)
from simkit.rng import game_seeds, seed_streams

from .helpers import (
    EFRAFA,
    HAWTHORN,
    HONEY,
    NEWTOWN,
    NUTHANGER,
    RIVER,
    ROAD,
    SAND,
    SPEC,
    C,
    P,
    card,
    hand,
    legal,
    mv,
    params,
    play,
    position,
)

DRAWS = 2000
BOARDS = {layout: params(**{"board.layout": layout})
          for layout in SPEC.data["board.layout"].choices}
BOARDS["optional-cards"] = params(**{"cards.optional": True})


def side_chars(side):
    return range(N_RABBITS) if side == HLESSIL else range(N_RABBITS, N_CHARS)


def observe(p, st, seat):
    obs = np.empty_like(st)
    rules.observe(p, st, seat, obs)
    return obs


def determinisations(p, obs, seat, n, seed=1):
    """``n`` determinisations of ``obs`` (int32[n, STATE_SIZE])."""
    stream = np.array([seed], np.uint64)
    scratch = np.empty(STATE_SIZE, np.int32)
    out = np.empty((n, STATE_SIZE), np.int32)
    for k in range(n):
        rules.determinize(p, obs, seat, out[k], stream, scratch)
    return out


def random_states(p, n_games, seed, per_game=8):
    """Copies of states at random decisions of seeded random games (setup included)."""
    rng = np.random.default_rng(seed)
    items = np.zeros((2, len(rules.ITEM_COLUMNS)), np.int32)
    moves = np.empty(rules.MAX_MOVES, np.int32)
    out = []
    for gs in game_seeds(seed, 0, n_games):
        streams = np.empty(3, np.uint64)
        seed_streams(np.uint64(gs), 2, streams)
        st = np.empty(STATE_SIZE, np.int32)
        rules.new_game(p, 2, st, streams[0:1])
        trail = []
        while not rules.is_over(st) and rules.turn_number(st) < 300:
            trail.append(st.copy())
            n = rules.legal_moves(p, st, moves)
            rules.apply_move(p, st, moves[rng.integers(n)], streams[0:1], items)
        picks = rng.choice(len(trail), size=min(per_game, len(trail)), replace=False)
        out += [trail[i] for i in sorted(picks)]
    return out


def unknown_chars(obs, seat):
    """The opponent's characters in play whose place ``seat`` does not see."""
    return [c for c in side_chars(1 - seat)
            if obs[STAT + c] == IN_PLAY and obs[LOC + c] == HIDDEN]


def dealt_chars(obs, seat):
    """Those of them the observation does not pin to a space (SEEN_AT, the attacker...):
    the group a determinisation deals at random."""
    return [c for c in unknown_chars(obs, seat) if rules.forced_space(obs, seat, c) < 0]


# ---- on random states ---------------------------------------------------------------------

@pytest.mark.parametrize("board", list(BOARDS))
def test_determinisations_are_sound_and_give_back_the_observation(board):
    p = BOARDS[board]
    n_states = n_hidden = 0
    for st in random_states(p, 40, seed=5):
        for seat in (ELIL, HLESSIL):
            obs = observe(p, st, seat)
            for det in determinisations(p, obs, seat, 6, seed=n_states + 1):
                assert not SPEC.check_state(p, 2, det), SPEC.check_state(p, 2, det)
                assert np.array_equal(observe(p, det, seat), obs)
                assert not (det == HIDDEN).any()
                seen = obs != HIDDEN
                assert np.array_equal(det[seen], obs[seen])
            n_states += 1
            n_hidden += len(unknown_chars(obs, seat)) > 1
    assert n_states > 500 and n_hidden > 300, (n_states, n_hidden)


def possible(p, obs, seat, truth):
    """Could a determinisation of ``obs`` be ``truth``? Every rule the kernel fills in by
    holds on the real state."""
    opp = 1 - seat
    for c in unknown_chars(obs, seat):
        forced = rules.forced_space(truth, seat, c)
        if forced >= 0 and truth[LOC + c] != forced:
            return False
    if obs[MOVER] == HIDDEN:
        m = int(truth[MOVER])
        if rules.side_of(m) != opp or truth[KNOWN + m] != 0 or truth[STAT + m] != IN_PLAY:
            return False
        named = {P_DAND: C["dandelion"], P_GROUP: C["hazel"], P_HOLLY: C["holly"]}
        if truth[ATTACKING] == 1:
            if m != truth[ATT]:
                return False
        elif truth[PHASE] in named:
            if m != named[int(truth[PHASE])]:
                return False
        elif truth[PHASE] == P_ESCAPE and truth[LOC + m] != p[0][rules.G_EFRAFA]:
            return False
    if obs[HOLLY_LOOK] == HIDDEN:
        looks = truth[MOVER] == C["holly"] and truth[PHASE] != P_HOLLY and truth[WINNER] < 0
        if truth[HOLLY_LOOK] != looks:
            return False
    card_at = CARD_E if opp == ELIL else CARD_H
    if obs[card_at] == HIDDEN and truth[HAND + opp * N_CARDS + truth[card_at]] != 1:
        return False
    down = int(truth[DOWN_SEEN])
    for c in range(N_CHARS):
        on = (down >> c) & 1
        if truth[STAT + c] == IN_PLAY and rules.is_down(p[0], truth[LOC + c]) and not on:
            return False
        if truth[STAT + c] == PENDING and on:
            return False
    return True


@pytest.mark.parametrize("board", list(BOARDS))
def test_the_real_state_is_always_one_a_determinisation_could_draw(board):
    """The rules the kernel fills the unseen entries by (the attacker stands on the battle
    space, the mover is the attacker when there is one, Holly's flag follows his move, the
    face-down card is in its hand) hold at 40 decisions of each of 60 random games."""
    p = BOARDS[board]
    n = 0
    for st in random_states(p, 60, seed=6, per_game=40):
        for seat in (ELIL, HLESSIL):
            assert possible(p, observe(p, st, seat), seat, st)
            n += 1
    assert n > 3000


def spread_states(p, seat, n_games=40, seed=8):
    """Random mid-game states where ``seat`` does not see four or more of the opponent's
    characters, whose tokens lie on two spaces or more; one a game."""
    out = []
    scratch = np.empty(STATE_SIZE, np.int32)
    det = np.empty(STATE_SIZE, np.int32)
    for st in random_states(p, n_games, seed, per_game=1):
        obs = observe(p, st, seat)
        chars = dealt_chars(obs, seat)
        rules.determinize(p, obs, seat, det, np.array([1], np.uint64), scratch)
        if len(chars) >= 4 and len({int(det[LOC + c]) for c in chars}) > 1:
            out.append(st)
    return out


@pytest.mark.parametrize("seat", [ELIL, HLESSIL])
def test_unknown_characters_are_dealt_uniformly_over_the_unseen_tokens(seat):
    """For each of four mid-game states: the place dealt to each unknown character of the
    opponent, over 2,000 determinisations."""
    cases = spread_states(P, seat)
    assert len(cases) >= 4
    for st in cases[:4]:
        obs = observe(P, st, seat)
        chars = dealt_chars(obs, seat)
        dets = determinisations(P, obs, seat, DRAWS)
        assert_uniform_deal(dets[:, [LOC + c for c in chars]])


def test_at_the_hlessil_setup_the_nine_elil_are_dealt_over_their_nine_tokens():
    st = np.empty(STATE_SIZE, np.int32)
    rules.new_game(P, 2, st, np.array([3], np.uint64))
    while st[DECIDER] == ELIL:
        play(st, legal(st)[0])
    assert st[PHASE] == P_SETUP
    obs = observe(P, st, HLESSIL)
    elil = list(side_chars(ELIL))
    assert all(obs[LOC + e] == HIDDEN for e in elil)
    dets = determinisations(P, obs, HLESSIL, DRAWS)
    assert (dets[:, LOC + np.array(elil)] == EFRAFA).sum(axis=1).tolist() == [4] * DRAWS
    assert_uniform_deal(dets[:, [LOC + e for e in elil]])


def test_the_face_down_card_is_one_of_the_hands_cards_uniformly():
    """The hlessil have chosen a card face down from a hand of six; the elil's
    determinisations put it on each of the six alike (the hand shows all six: the chosen
    card stays in it until the reveal)."""
    st = position(HLESSIL, buckthorn=ROAD, fox=NUTHANGER, woundwort=EFRAFA)
    hand(st, HLESSIL, [0, 2, 3, 5, 7, 8])
    play(st, mv("buckthorn", NUTHANGER))
    while st[PHASE] != P_CARD:
        play(st, legal(st)[0])
    play(st, card(5))
    assert st[DECIDER] == ELIL
    obs = observe(P, st, ELIL)
    assert obs[CARD_H] == HIDDEN
    dets = determinisations(P, obs, ELIL, DRAWS)
    held = [0, 2, 3, 5, 7, 8]
    assert set(dets[:, CARD_H].tolist()) == set(held)   # never a card played since refill
    assert_uniform_deal(np.stack([dets[:, CARD_H] == k for k in held], axis=1))


def test_an_unseen_mover_about_to_escape_is_one_of_the_unknown_rabbits_in_efrafa():
    """Hazel's group of two, neither known to the elil, has entered Efrafa and is to escape
    (the hlessil decide where): the elil see two tokens there and not which is Hazel, the
    mover. Every determinisation's mover is in Efrafa, and over the draws each unknown
    rabbit is the mover alike (the two tokens are dealt at random too)."""
    st = position(HLESSIL, hazel=RIVER, fiver=RIVER, pipkin=SAND, bigwig=SAND,
                  buckthorn=SAND, dandelion=NEWTOWN, woundwort=HONEY)
    play(st, mv("hazel", EFRAFA))
    play(st, M_CHAR + C["fiver"])
    assert st[PHASE] == P_ESCAPE and st[MOVER] == C["hazel"]
    obs = observe(P, st, ELIL)
    assert obs[MOVER] == HIDDEN
    dets = determinisations(P, obs, ELIL, DRAWS)
    movers = dets[:, MOVER]
    assert (dets[np.arange(DRAWS), LOC + movers] == EFRAFA).all()
    unknown = unknown_chars(obs, ELIL)
    assert set(movers.tolist()) == set(unknown)
    assert_uniform_deal(np.stack([movers == c for c in unknown], axis=1))


def test_who_reached_the_down_is_a_fair_coin_where_nothing_says():
    """Hazel and Fiver, unknown to the elil, stand on the Honeycomb and the Road: whoever a
    determinisation puts on the Down has reached it; the other, and Woundwort, are coins;
    a rabbit not yet in the game has not."""
    st = position(HLESSIL, hazel=HONEY, fiver=ROAD, woundwort=EFRAFA)
    st[DOWN_SEEN] = 1 << C["hazel"]
    obs = observe(P, st, ELIL)
    dets = determinisations(P, obs, ELIL, DRAWS)
    bits = (dets[:, DOWN_SEEN][:, None] >> np.arange(N_CHARS)) & 1
    on_down = dets[:, LOC + C["hazel"]] == HONEY
    assert 0 < on_down.sum() < DRAWS
    assert bits[on_down, C["hazel"]].all() and bits[~on_down, C["fiver"]].all()
    for c in range(N_CHARS):
        if st[STAT + c] == PENDING:
            assert not bits[:, c].any()
    for coin in (bits[~on_down, C["hazel"]], bits[on_down, C["fiver"]],
                 bits[:, C["woundwort"]]):
        assert stats.binomtest(int(coin.sum()), len(coin)).pvalue > 1e-4


# ---- what the observation tells: hand-built positions -------------------------------------

def test_seen_characters_stay_where_they_are_and_fill_their_tokens():
    """Woundwort was revealed on the Road, which holds one more elil token; the Fox, seen
    by Holly, stays on Hawthorn Wood. The unseen elil fill only the tokens left: one on the
    Road, one beside the Fox, four in Efrafa."""
    st = position(HLESSIL, woundwort=ROAD, kestrel=ROAD, fox=HAWTHORN, dog=HAWTHORN,
                  cat=EFRAFA, rats=EFRAFA, vervain=EFRAFA, campion=EFRAFA, buckthorn=SAND)
    st[KNOWN + C["woundwort"]] = 1
    st[KNOWN + C["fox"]] = 1
    st[LOCK + C["fox"]] = 1
    obs = observe(P, st, HLESSIL)
    dets = determinisations(P, obs, HLESSIL, 400)
    assert (dets[:, LOC + C["woundwort"]] == ROAD).all()
    assert (dets[:, LOC + C["fox"]] == HAWTHORN).all()
    unseen = [C[n] for n in ("kestrel", "dog", "cat", "rats", "vervain", "campion")]
    at = dets[:, [LOC + c for c in unseen]]
    assert ((at == ROAD).sum(axis=1) == 1).all() and ((at == HAWTHORN).sum(axis=1) == 1).all()
    assert ((at == EFRAFA).sum(axis=1) == 4).all()
    for c in unseen:                        # each unseen elil gets each kind of token
        assert {ROAD, HAWTHORN, EFRAFA} == set(dets[:, LOC + c].tolist())


def test_a_character_mixed_where_it_was_seen_stays_on_that_space():
    """Woundwort, revealed on the Road, is joined there by the Kestrel: after the shuffle
    the hlessil do not know which token he is but know he is on the Road (SEEN_AT). Every
    determinisation puts him there; the Road's other token is any of the three unknown
    elil, uniformly."""
    st = position(ELIL, woundwort=ROAD, kestrel=NUTHANGER, fox=EFRAFA, cat=EFRAFA,
                  buckthorn=SAND)
    st[KNOWN + C["woundwort"]] = 1
    play(st, mv("kestrel", ROAD))
    obs = observe(P, st, HLESSIL)
    assert obs[LOC + C["woundwort"]] == HIDDEN and obs[SEEN_AT + C["woundwort"]] == ROAD
    dets = determinisations(P, obs, HLESSIL, DRAWS)
    assert (dets[:, LOC + C["woundwort"]] == ROAD).all()
    assert dealt_chars(obs, HLESSIL) == [C["cat"], C["fox"], C["kestrel"]]
    assert_uniform_deal(dets[:, [LOC + C[n] for n in ("cat", "fox", "kestrel")]])


def test_the_ensnared_rabbit_and_its_snare_lie_face_up():
    st = position(ELIL, snare=NUTHANGER, buckthorn=ROAD, fiver=SAND, hazel=SAND,
                  woundwort=EFRAFA, cat=EFRAFA)
    play(st, mv("snare", ROAD))
    assert st[ENSNARED] == C["buckthorn"]
    for seat in (ELIL, HLESSIL):
        dets = determinisations(P, observe(P, st, seat), seat, 200)
        assert (dets[:, LOC + C["snare"]] == ROAD).all()
        assert (dets[:, LOC + C["buckthorn"]] == ROAD).all()
        assert (dets[:, ENSNARED] == C["buckthorn"]).all()


def test_the_attacker_stands_on_the_battle_space_before_it_is_revealed():
    """Woundwort attacks the Road, where the Snare holds Buckthorn beside Fiver: the elil
    first choose their target (Q_TARGET), before the battlers are revealed. The hlessil see
    who attacks; every determinisation has him on the Road, and he is the mover."""
    st = position(ELIL, snare=NUTHANGER, buckthorn=ROAD, woundwort=HONEY, fiver=SAND,
                  cat=EFRAFA, dog=EFRAFA)
    play(st, mv("snare", ROAD))
    st[rules.LOC + C["fiver"]] = ROAD
    rules.recount(st)
    st[rules.SIDE] = ELIL
    st[DECIDER] = ELIL
    st[KNOWN + C["snare"]] = 1
    play(st, mv("woundwort", ROAD))
    assert st[PHASE] == P_QUESTION and st[QUESTION] == Q_TARGET
    obs = observe(P, st, HLESSIL)
    assert obs[LOC + C["woundwort"]] == HIDDEN and obs[ATT] == C["woundwort"]
    dets = determinisations(P, obs, HLESSIL, 300)
    assert (dets[:, LOC + C["woundwort"]] == ROAD).all()
    assert (dets[:, MOVER] == C["woundwort"]).all()
    assert set(dets[:, LOC + C["cat"]].tolist()) == {EFRAFA}


def test_blackberry_joining_the_busy_snare_in_hazels_group_is_on_its_space():
    st = position(HLESSIL, hazel=NEWTOWN, blackberry=NEWTOWN, pipkin=NEWTOWN, snare=ROAD,
                  fiver=ROAD, woundwort=EFRAFA)
    st[ENSNARED] = C["fiver"]
    st[KNOWN + C["snare"]] = 1
    st[KNOWN + C["fiver"]] = 1
    play(st, mv("hazel", ROAD))             # onto the busy Snare: no battle
    play(st, M_CHAR + C["blackberry"])
    assert st[PHASE] == P_GROUP and st[BB_ONTO_SNARE] == 1   # Pipkin may still come
    obs = observe(P, st, ELIL)
    dets = determinisations(P, obs, ELIL, 300)
    assert (dets[:, LOC + C["blackberry"]] == ROAD).all()
    assert (dets[:, MOVER] == C["hazel"]).all()


def test_holly_moving_is_remembered_for_his_look_after_the_battle():
    """Holly attacks (revealed: he is the mover the elil see); HOLLY_LOOK is hidden from
    the elil, and every determinisation sets it, so a search plays his look afterwards."""
    st = position(HLESSIL, holly=ROAD, fox=NUTHANGER, dog=HAWTHORN, woundwort=EFRAFA)
    play(st, mv("holly", NUTHANGER))
    while not (st[PHASE] == P_CARD and st[DECIDER] == ELIL):
        play(st, legal(st)[0])
    assert st[HOLLY_LOOK] == 1
    obs = observe(P, st, ELIL)
    assert obs[HOLLY_LOOK] == HIDDEN and obs[MOVER] == C["holly"]
    assert (determinisations(P, obs, ELIL, 50)[:, HOLLY_LOOK] == 1).all()


def test_a_partly_revealed_hand_deals_the_face_down_card_from_what_is_left():
    """After a refill the hand holds what has not been revealed since; the face-down card
    is never one already played."""
    st = position(HLESSIL, buckthorn=ROAD, fox=NUTHANGER, woundwort=EFRAFA)
    hand(st, HLESSIL, [4, 6])
    play(st, mv("buckthorn", NUTHANGER))
    while st[PHASE] != P_CARD:
        play(st, legal(st)[0])
    play(st, card(6))
    obs = observe(P, st, ELIL)
    dets = determinisations(P, obs, ELIL, DRAWS)
    assert set(dets[:, CARD_H].tolist()) == {4, 6}
    assert stats.binomtest(int((dets[:, CARD_H] == 4).sum()), DRAWS).pvalue > 1e-4


def test_own_side_and_the_public_table_are_never_changed():
    st = random_states(P, 3, seed=9, per_game=3)[-1]
    for seat in (ELIL, HLESSIL):
        obs = observe(P, st, seat)
        for det in determinisations(P, obs, seat, 50):
            for c in side_chars(seat):
                assert det[LOC + c] == st[LOC + c]
            assert np.array_equal(det[CNT:CNT + 2 * N_SPACES], st[CNT:CNT + 2 * N_SPACES])
            assert np.array_equal(det[STAT:STAT + N_CHARS], st[STAT:STAT + N_CHARS])


# ---- cost -----------------------------------------------------------------------------------

@njit
def _many(p, obs, seat, state, stream, scratch, n):
    for _ in range(n):
        rules.determinize(p, obs, seat, state, stream, scratch)


def test_the_kernel_allocates_nothing():
    st = random_states(P, 1, seed=10, per_game=1)[0]
    obs = observe(P, st, HLESSIL)
    state = np.empty(STATE_SIZE, np.int32)
    scratch = np.empty(STATE_SIZE, np.int32)
    stream = np.array([1], np.uint64)
    _many(P, obs, HLESSIL, state, stream, scratch, 1)
    _nrt_python.memsys_enable_stats()
    try:
        counts = []
        for n in (1, 1000):
            before = rtsys.get_allocation_stats().alloc
            _many(P, obs, HLESSIL, state, stream, scratch, n)
            counts.append(rtsys.get_allocation_stats().alloc - before)
    finally:
        _nrt_python.memsys_disable_stats()
    assert counts[0] == counts[1], f"allocations grow with the calls: {counts}"


def test_declining_the_ensnared_target_with_only_clover_left_draws_the_ensnared():
    # The question is asked when another rabbit could be drawn, but a determinisation may
    # deal Clover (drawn last) as the only other token on the space: "no" then draws the
    # ensnared rabbit instead of drawing from nobody (a search crashed there).
    from simkit.games.watership_down.state import (
        ATT,
        ATTACKING,
        BSPACE,
        DEF,
        ENSNARED,
        KNOWN,
        M_NO,
        P_QUESTION,
        Q_TARGET,
        QUESTION,
        S_WAIT,
        STEP,
    )

    from .helpers import HONEY, ROAD, SAND, position
    st = position(ELIL, woundwort=ROAD, snare=ROAD, buckthorn=ROAD, clover=ROAD, hazel=SAND,
                  rats=HONEY)
    st[ENSNARED] = C["buckthorn"]
    st[KNOWN + C["buckthorn"]] = st[KNOWN + C["snare"]] = 1
    st[ATT], st[BSPACE], st[ATTACKING] = C["woundwort"], ROAD, 1
    st[PHASE], st[DECIDER], st[QUESTION], st[STEP] = P_QUESTION, ELIL, Q_TARGET, S_WAIT
    rules.apply_move(P, st, M_NO, np.array([1], np.uint64),
                     np.zeros((2, len(rules.ITEM_COLUMNS)), np.int32))
    assert st[DEF] == C["buckthorn"] or st[STAT + C["buckthorn"]] != IN_PLAY
