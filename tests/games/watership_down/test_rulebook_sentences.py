"""Layer 2: the rulebook's own examples and parenthetical cases, sentence by sentence."""

from simkit.games.watership_down import rules
from simkit.games.watership_down.state import (
    DECIDER,
    DEF,
    ELIL,
    ENSNARED,
    HLESSIL,
    M_PASS,
    M_SPACE,
    M_YES,
    P_ESCAPE,
    P_HOLLY,
    PHASE,
    Q_TARGET,
    QUESTION,
    SIDE,
)

from .helpers import (
    BEECH,
    EFRAFA,
    HAWTHORN,
    HONEY,
    NEAR_HIND,
    NUTHANGER,
    RIVER,
    ROAD,
    SAND,
    TEST_WOODS,
    C,
    P,
    card,
    chance,
    items_zero,
    legal,
    mv,
    play,
    position,
    where,
)


def test_holly_in_efrafa_looks_from_the_space_he_escapes_to():
    # "If Holly moves into Efrafa, he cannot use the power from Efrafa, but may use it on
    # an elil character next to the space he escapes to."
    st = position(HLESSIL, holly=RIVER, fox=NEAR_HIND, dog=HAWTHORN)
    play(st, mv("holly", EFRAFA))
    assert st[PHASE] == P_ESCAPE
    play(st, M_SPACE + HONEY)
    assert st[PHASE] == P_HOLLY
    assert set(legal(st)) == {M_PASS, M_SPACE + HAWTHORN}    # next to the Honeycomb


def test_holly_attacks_retreats_and_looks_from_the_retreat_space():
    # "He may, however, use it if he attacks and subsequently retreats, in which case the
    # elil character he looks at must be adjacent to the space he retreats to."
    st = position(HLESSIL, holly=ROAD, rats=NUTHANGER, fox=RIVER, dog=BEECH)
    play(st, mv("holly", NUTHANGER))
    play(st, card(7))                     # Retreat Forward: Nuthanger -> Test Woods
    play(st, card(0))
    assert where(st, "holly") == TEST_WOODS
    assert st[PHASE] == P_HOLLY and M_SPACE + RIVER in legal(st)


def test_holly_no_look_after_being_attacked():
    # "...not when he ... retreats after being attacked"
    st = position(ELIL, fox=NUTHANGER, holly=ROAD, dog=BEECH, hazel=SAND)
    play(st, mv("fox", ROAD))
    play(st, card(5))
    play(st, card(0))
    assert st[PHASE] != P_HOLLY and st[SIDE] == HLESSIL


def test_no_retreat_into_a_space_holding_opponents():
    # "You may not retreat into a space containing any opponent's characters"
    st = position(ELIL, kestrel=BEECH, buckthorn=RIVER, fox=EFRAFA, hazel=SAND)
    play(st, mv("kestrel", RIVER))
    play(st, card(7))                     # Retreat Forward: only Efrafa, which holds the Fox
    play(st, card(0))                     # so no effect: 3 + 0 against 1 + 1
    assert where(st, "buckthorn") == RIVER and where(st, "kestrel") == -1


def test_retreat_forward_into_an_empty_efrafa_escapes():
    # "This happens even when a rabbit retreats forward to Efrafa."
    st = position(ELIL, kestrel=BEECH, buckthorn=RIVER, hazel=SAND)
    play(st, mv("kestrel", RIVER))
    play(st, card(7))                     # Retreat Forward: River Test -> Efrafa
    play(st, card(0))
    assert st[PHASE] == P_ESCAPE and st[DECIDER] == HLESSIL
    play(st, M_SPACE + HONEY)
    assert where(st, "buckthorn") == HONEY
    assert where(st, "hyzenthlay") == HONEY and st[SIDE] == HLESSIL


def test_bigwig_before_the_ensnared_rabbit():
    # "...unless Bigwig is present, in which case he must be attacked first"
    st = position(ELIL, snare=NUTHANGER, buckthorn=ROAD, bigwig=SAND, woundwort=HONEY)
    play(st, mv("snare", ROAD))
    st[SIDE] = st[DECIDER] = ELIL
    rules.place(P, st, C["bigwig"], ROAD, items_zero())
    play(st, mv("woundwort", ROAD))
    assert st[DEF] == C["bigwig"]


def test_ensnared_clover_is_attacked_last():
    # "...or Clover is the ensnared rabbit, in which case she may not be attacked until she
    # is the last rabbit remaining in the space"
    for seed in range(1, 20):
        st = position(ELIL, snare=NUTHANGER, clover=ROAD, hazel=SAND, woundwort=HONEY)
        play(st, mv("snare", ROAD))
        assert st[ENSNARED] == C["clover"]
        st[SIDE] = st[DECIDER] = ELIL
        rules.place(P, st, C["hazel"], ROAD, items_zero())
        play(st, mv("woundwort", ROAD), ch=chance(seed))
        assert st[DEF] == C["hazel"]


def test_elil_may_pick_the_ensnared_or_a_random_other():
    st = position(ELIL, snare=NUTHANGER, buckthorn=ROAD, hazel=SAND, woundwort=HONEY)
    play(st, mv("snare", ROAD))
    st[SIDE] = st[DECIDER] = ELIL
    rules.place(P, st, C["hazel"], ROAD, items_zero())
    play(st, mv("woundwort", ROAD))
    assert st[QUESTION] == Q_TARGET and st[DECIDER] == ELIL
    play(st, M_YES)
    assert st[DEF] == C["buckthorn"]

