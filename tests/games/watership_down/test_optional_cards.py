"""Layer 2: the optional cards El-ahrairah and Gift to the Thousand (cards.optional)."""

from simkit.games.watership_down.state import (
    DECIDER,
    DEFEATED,
    ELIL,
    GIFT,
    HLESSIL,
    IN_PLAY,
    M_GIFT,
    M_NO,
    M_YES,
    OPT_USED,
    P_CARD,
    P_QUESTION,
    PHASE,
    Q_BLACKBERRY,
    Q_EL_E,
    Q_EL_H,
    QUESTION,
    SIDE,
)

from .helpers import BEECH, NUTHANGER, ROAD, SAND, card, legal, mv, params, play, position, status

OPT = params(**{"cards.optional": True})


def attack(**where):
    st = position(HLESSIL, params=OPT, **where)
    return st


def test_off_by_default_nothing_is_offered():
    st = position(HLESSIL, buckthorn=ROAD, fox=NUTHANGER, woundwort=BEECH)
    assert not any(m >= M_GIFT for m in legal(st))
    play(st, mv("buckthorn", NUTHANGER))
    play(st, card(0))
    play(st, card(0))
    assert st[PHASE] != P_QUESTION


def test_gift_adds_two_to_the_attacker_once_a_game():
    st = attack(buckthorn=ROAD, fox=NUTHANGER, woundwort=BEECH, hazel=ROAD)
    assert M_GIFT + mv("buckthorn", NUTHANGER) in _legal(st)
    assert M_GIFT + mv("hazel", NUTHANGER) in _legal(st)
    assert not any(m >= M_GIFT and (m - M_GIFT) % 16 != NUTHANGER for m in _legal(st))
    play(st, M_GIFT + mv("buckthorn", NUTHANGER), params=OPT)
    play(st, card(0), params=OPT)
    play(st, card(1), params=OPT)         # 3 + 1 + 2 against 3 + 2
    while st[PHASE] == P_QUESTION:
        play(st, M_NO, params=OPT)        # neither plays El-ahrairah
    assert status(st, "buckthorn") == IN_PLAY and status(st, "fox") == DEFEATED
    assert st[OPT_USED] & (1 << (2 * HLESSIL + 1)) and st[GIFT] == -1
    st[SIDE] = st[DECIDER] = HLESSIL
    assert not any(m >= M_GIFT for m in _legal(st))


def test_without_gift_the_same_battle_is_lost():
    st = attack(buckthorn=ROAD, fox=NUTHANGER, woundwort=BEECH)
    play(st, mv("buckthorn", NUTHANGER), params=OPT)
    play(st, card(0), params=OPT)
    play(st, card(1), params=OPT)
    while st[PHASE] == P_QUESTION:
        play(st, M_NO, params=OPT)
    assert status(st, "buckthorn") == DEFEATED


def _legal(st):
    return legal(st, OPT)


def test_el_ahrairah_cancels_once_per_game_hlessil_then_elil():
    st = attack(buckthorn=ROAD, fox=NUTHANGER, woundwort=BEECH)
    play(st, mv("buckthorn", NUTHANGER), params=OPT)
    play(st, card(0), params=OPT)
    play(st, card(5), params=OPT)         # 3 + 1 against 3 + 6
    assert st[QUESTION] == Q_EL_H
    play(st, M_NO, params=OPT)
    assert st[QUESTION] == Q_EL_E and st[DECIDER] == ELIL
    play(st, M_YES, params=OPT)           # the elil cancel their own winning result
    assert st[PHASE] == P_CARD
    play(st, card(4), params=OPT)
    play(st, card(0), params=OPT)         # 3 + 5 against 3 + 1
    assert st[PHASE] != P_QUESTION        # the second round cannot be cancelled
    assert status(st, "fox") == DEFEATED
    assert st[OPT_USED] & (1 << (2 * ELIL))


def test_blackberry_then_el_ahrairah_not_both():
    st = position(ELIL, params=OPT, woundwort=NUTHANGER, blackberry=ROAD, hazel=SAND)
    play(st, mv("woundwort", ROAD), params=OPT)
    play(st, card(0), params=OPT)
    play(st, card(5), params=OPT)
    assert st[QUESTION] == Q_BLACKBERRY
    play(st, M_YES, params=OPT)
    play(st, card(1), params=OPT)
    play(st, card(4), params=OPT)
    assert st[PHASE] != P_QUESTION and status(st, "blackberry") == DEFEATED
