"""Layer 2: every character's ability and every text card, on hand-built positions."""

import numpy as np

from simkit.game import HIDDEN
from simkit.games.watership_down import rules
from simkit.games.watership_down.state import (
    CARD_E,
    CAUGHT,
    DECIDER,
    DEF,
    DEFEATED,
    ELIL,
    ENSNARED,
    HAND,
    HLESSIL,
    IN_PLAY,
    KNOWN,
    LOCK,
    LOST,
    M_CHAR,
    M_NO,
    M_PASS,
    M_SPACE,
    M_YES,
    N_CARDS,
    P_CARD,
    P_DAND,
    P_ESCAPE,
    P_FLAME,
    P_GROUP,
    P_HOLLY,
    P_QUESTION,
    PHASE,
    Q_BLACKAVAR,
    Q_BLACKBERRY,
    Q_CAT,
    Q_HAZEL,
    Q_HYZ,
    Q_PIPKIN,
    Q_TARGET,
    QUESTION,
    SIDE,
)

from .helpers import (
    BEECH,
    COWSLIP,
    ECCH,
    EFRAFA,
    ENBORNE,
    HAWTHORN,
    HEATHER,
    HONEY,
    NEWTOWN,
    NUTHANGER,
    RIVER,
    ROAD,
    SAND,
    TEST_WOODS,
    C,
    P,
    card,
    chance,
    legal,
    mv,
    params,
    play,
    position,
    status,
    where,
)


def attack_until(build, move, defender):
    """Replay ``move`` on fresh ``build()`` positions until chance picks ``defender``."""
    for seed in range(1, 300):
        st = build()
        ch = chance(seed)
        play(st, move, ch=ch)
        if st[DEF] == C[defender]:
            return st, ch
    raise AssertionError("defender never chosen")


def to_cards(st, ch=None):
    while st[PHASE] == P_QUESTION:
        play(st, M_NO, ch=ch)
    assert st[PHASE] == P_CARD


def obs_of(st, seat):
    o = np.empty_like(st)
    rules.observe(P, st, seat, o)
    return o


# ---- Hazel ------------------------------------------------------------------------------

def test_hazel_takes_companions_when_not_attacking():
    st = position(HLESSIL, hazel=SAND, fiver=SAND, pipkin=SAND, woundwort=EFRAFA)
    play(st, mv("hazel", ENBORNE))
    assert st[PHASE] == P_GROUP
    assert set(legal(st)) == {M_PASS, M_CHAR + C["fiver"], M_CHAR + C["pipkin"]}
    play(st, M_CHAR + C["fiver"])
    play(st, M_PASS)
    assert where(st, "fiver") == ENBORNE and where(st, "pipkin") == SAND
    assert st[SIDE] == ELIL


def test_hazel_group_cannot_attack():
    st = position(HLESSIL, hazel=ROAD, fiver=ROAD, rats=NUTHANGER, woundwort=EFRAFA)
    play(st, mv("hazel", NUTHANGER))
    assert st[PHASE] != P_GROUP


def test_hazel_group_escapes_efrafa_together():
    st = position(HLESSIL, hazel=RIVER, fiver=RIVER, woundwort=HONEY)
    play(st, mv("hazel", EFRAFA))
    play(st, M_CHAR + C["fiver"])
    assert st[PHASE] == P_ESCAPE
    play(st, M_SPACE + BEECH)
    assert where(st, "hazel") == BEECH and where(st, "fiver") == BEECH


# ---- Fiver, Vervain: order of play --------------------------------------------------------

def test_fiver_elil_play_first_and_hlessil_see_it():
    st = position(ELIL, woundwort=NUTHANGER, fiver=ROAD, hazel=SAND)
    play(st, mv("woundwort", ROAD))
    assert st[PHASE] == P_CARD and st[DECIDER] == ELIL
    play(st, card(2))
    assert st[DECIDER] == HLESSIL and obs_of(st, HLESSIL)[CARD_E] == 2


def test_fiver_reveals_hazel_for_strength_two():
    st, ch = attack_until(lambda: position(ELIL, woundwort=NUTHANGER, fiver=ROAD,
                                           hazel=ROAD), mv("woundwort", ROAD), "fiver")
    assert st[PHASE] == P_QUESTION and st[QUESTION] == Q_HAZEL
    play(st, M_YES, ch=ch)
    assert rules.rabbit_strength(P, st, C["fiver"], ROAD) == 2
    assert st[KNOWN + C["hazel"]] == 1


def test_vervain_plays_first_and_hlessil_see_it():
    st = position(HLESSIL, buckthorn=ROAD, vervain=NUTHANGER, woundwort=EFRAFA)
    play(st, mv("buckthorn", NUTHANGER))
    assert st[DECIDER] == ELIL
    play(st, card(0))
    assert obs_of(st, HLESSIL)[CARD_E] == 0


def test_normal_order_hlessil_first_hidden_from_elil():
    st = position(HLESSIL, buckthorn=ROAD, fox=NUTHANGER, woundwort=EFRAFA)
    play(st, mv("buckthorn", NUTHANGER))
    assert st[DECIDER] == HLESSIL
    play(st, card(3))
    assert obs_of(st, ELIL)[rules.CARD_H] == HIDDEN


# ---- Bigwig, Clover: who is attacked -----------------------------------------------------

def test_bigwig_is_attacked_first():
    for seed in range(1, 30):
        st = position(ELIL, woundwort=NUTHANGER, bigwig=ROAD, fiver=ROAD, pipkin=ROAD,
                      hazel=SAND)
        play(st, mv("woundwort", ROAD), ch=chance(seed))
        assert st[DEF] == C["bigwig"]


def test_clover_is_attacked_last():
    for seed in range(1, 30):
        st = position(ELIL, woundwort=NUTHANGER, clover=ROAD, fiver=ROAD, hazel=SAND)
        play(st, mv("woundwort", ROAD), ch=chance(seed))
        assert st[DEF] == C["fiver"]


# ---- Blackberry ------------------------------------------------------------------------

def test_blackberry_cancels_and_both_play_again():
    st = position(ELIL, woundwort=NUTHANGER, blackberry=ROAD, hazel=SAND)
    play(st, mv("woundwort", ROAD))
    play(st, card(0))                     # hlessil 1
    play(st, card(5))                     # elil 6
    assert st[PHASE] == P_QUESTION and st[QUESTION] == Q_BLACKBERRY
    play(st, M_YES)
    assert st[PHASE] == P_CARD and status(st, "blackberry") == IN_PLAY
    assert card(0) not in legal(st)      # the first round's cards stay played
    play(st, card(8))                     # Kehaar
    assert card(5) not in legal(st)
    play(st, card(0))
    assert where(st, "woundwort") == EFRAFA and status(st, "blackberry") == IN_PLAY
    assert st[PHASE] != P_QUESTION       # the second round cannot be cancelled


def test_blackberry_last_card_may_be_chosen_again():
    st = position(ELIL, woundwort=NUTHANGER, blackberry=ROAD, hazel=SAND)
    for k in range(9):
        st[HAND + HLESSIL * N_CARDS + k] = 1 if k == 4 else 0
    play(st, mv("woundwort", ROAD))
    play(st, card(4))
    play(st, card(0))
    play(st, M_YES)
    assert card(4) in legal(st)


def test_blackberry_defeats_the_snare_he_meets():
    st = position(HLESSIL, blackberry=ROAD, snare=NUTHANGER, woundwort=EFRAFA)
    play(st, mv("blackberry", NUTHANGER))
    assert status(st, "snare") == DEFEATED and where(st, "blackberry") == NUTHANGER


def test_blackberry_frees_an_ensnared_rabbit_by_moving_onto_it():
    st = position(HLESSIL, blackberry=ROAD, snare=NUTHANGER, fiver=NUTHANGER,
                  woundwort=EFRAFA)
    st[ENSNARED] = C["fiver"]
    play(st, mv("blackberry", NUTHANGER))
    assert status(st, "snare") == DEFEATED and st[ENSNARED] == -1


def snare_catches_beside_blackberry(p):
    """The Snare attacks a stack of Blackberry and Fiver and catches Fiver (chance picks)."""
    for seed in range(1, 100):
        st = position(ELIL, params=p, snare=NUTHANGER, blackberry=ROAD, fiver=ROAD,
                      hazel=SAND)
        play(st, mv("snare", ROAD), params=p, ch=chance(seed))
        if st[CAUGHT] == C["fiver"]:
            return st
    raise AssertionError("the Snare never caught Fiver")


def test_blackberry_standing_by_does_not_defeat_the_snare():
    # "whether he encounters it directly or moves onto a space with an ensnared rabbit":
    # the Snare caught Fiver beside him; he neither met it nor moved onto its space.
    st = snare_catches_beside_blackberry(P)
    assert status(st, "snare") == IN_PLAY and where(st, "blackberry") == ROAD
    assert st[SIDE] == HLESSIL
    play(st, mv("hazel", NEWTOWN))        # a turn passes: still held
    assert status(st, "snare") == IN_PLAY and st[ENSNARED] == C["fiver"]


def test_blackberry_moving_with_hazel_onto_the_ensnared_rabbit_defeats_the_snare():
    st = position(HLESSIL, hazel=NEWTOWN, blackberry=NEWTOWN, snare=ROAD, fiver=ROAD,
                  woundwort=EFRAFA)
    st[ENSNARED] = C["fiver"]
    play(st, mv("hazel", ROAD))
    play(st, M_CHAR + C["blackberry"])
    assert status(st, "snare") == DEFEATED and st[ENSNARED] == -1


def test_blackberry_on_the_snares_space_switch_defeats_it():
    p = params(**{"abilities.blackberry_snare_on_his_space": True})
    st = snare_catches_beside_blackberry(p)
    assert status(st, "snare") == DEFEATED and st[ENSNARED] == -1
    assert status(st, "fiver") == IN_PLAY and where(st, "fiver") == ROAD


def test_blackberry_has_no_replay_when_the_cat_plays_no_cards():
    st = position(ELIL, cat=NUTHANGER, blackberry=ROAD, hazel=SAND)
    play(st, mv("cat", ROAD))
    assert st[QUESTION] == Q_CAT
    play(st, M_YES)
    assert st[PHASE] != P_QUESTION
    assert status(st, "blackberry") == DEFEATED     # 2 against 3, no cards


# ---- Dandelion ---------------------------------------------------------------------------

def test_dandelion_moves_twice():
    st = position(HLESSIL, dandelion=SAND, woundwort=EFRAFA)
    play(st, mv("dandelion", ENBORNE))
    assert st[PHASE] == P_DAND and M_PASS in legal(st)
    play(st, mv("dandelion", ECCH))
    assert where(st, "dandelion") == ECCH and st[SIDE] == ELIL


def test_dandelion_no_second_move_after_an_attack():
    st = position(HLESSIL, dandelion=ROAD, rats=NUTHANGER, woundwort=EFRAFA)
    play(st, mv("dandelion", NUTHANGER))
    play(st, card(4))
    play(st, card(0))
    assert st[SIDE] == ELIL


def test_dandelion_second_move_after_efrafa():
    st = position(HLESSIL, dandelion=RIVER, woundwort=HONEY)
    play(st, mv("dandelion", EFRAFA))
    play(st, M_SPACE + ROAD)
    assert st[PHASE] == P_DAND
    play(st, mv("dandelion", NUTHANGER))
    assert where(st, "dandelion") == NUTHANGER


# ---- Pipkin, Silver, Hawkbit, Strawberry -------------------------------------------------

def test_pipkin_reveal_gives_the_others_plus_one():
    st, ch = attack_until(lambda: position(ELIL, woundwort=NUTHANGER, pipkin=ROAD,
                                           buckthorn=ROAD, hazel=SAND),
                          mv("woundwort", ROAD), "buckthorn")
    assert st[QUESTION] == Q_PIPKIN
    play(st, M_YES, ch=ch)
    assert rules.rabbit_strength(P, st, C["buckthorn"], ROAD) == 4
    assert rules.rabbit_strength(P, st, C["pipkin"], ROAD) == 1


def test_pipkin_is_not_offered_for_himself():
    st, ch = attack_until(lambda: position(ELIL, woundwort=NUTHANGER, pipkin=ROAD,
                                           buckthorn=ROAD, hazel=SAND),
                          mv("woundwort", ROAD), "pipkin")
    assert st[PHASE] == P_CARD


def test_silver_defeats_the_rats_at_once():
    st = position(HLESSIL, silver=ROAD, rats=NUTHANGER, woundwort=EFRAFA)
    play(st, mv("silver", NUTHANGER))
    assert status(st, "rats") == DEFEATED and st[SIDE] == ELIL


def test_hawkbit_cannot_attack():
    st = position(HLESSIL, hawkbit=ROAD, rats=NUTHANGER, woundwort=EFRAFA)
    assert mv("hawkbit", NUTHANGER) not in legal(st)
    assert mv("hawkbit", HONEY) in legal(st)


def test_strawberry_is_five_on_the_down():
    st = position(HLESSIL, strawberry=BEECH, woundwort=EFRAFA)
    assert rules.rabbit_strength(P, st, C["strawberry"], BEECH) == 5
    assert rules.rabbit_strength(P, st, C["strawberry"], ROAD) == 2


# ---- Holly -------------------------------------------------------------------------------

def test_holly_looks_at_an_adjacent_elil_who_cannot_be_mixed():
    st = position(HLESSIL, holly=ROAD, fox=HAWTHORN, dog=HAWTHORN, woundwort=EFRAFA)
    play(st, mv("holly", HONEY))
    assert st[PHASE] == P_HOLLY and M_SPACE + HAWTHORN in legal(st)
    play(st, M_SPACE + HAWTHORN)
    seen = [e for e in ("fox", "dog") if st[LOCK + C[e]] == 1]
    assert len(seen) == 1 and st[KNOWN + C[seen[0]]] == 1     # not mixed at turn end
    assert obs_of(st, HLESSIL)[rules.LOC + C[seen[0]]] == HAWTHORN
    other = "dog" if seen[0] == "fox" else "fox"
    rules.place(P, st, C[other], BEECH, np.zeros((2, len(rules.ITEM_COLUMNS)), np.int32))
    assert st[LOCK + C[seen[0]]] == 0     # an elil leaving the space lifts the lock


def test_holly_look_only_when_he_moves_on_his_own():
    st = position(HLESSIL, hazel=ROAD, holly=ROAD, fox=HAWTHORN, woundwort=EFRAFA)
    play(st, mv("hazel", HONEY))
    play(st, M_CHAR + C["holly"])
    assert st[PHASE] != P_HOLLY


# ---- Hyzenthlay, Blackavar, Campion ------------------------------------------------------

def test_hyzenthlay_retreats_sideways_before_cards():
    st = position(ELIL, woundwort=NUTHANGER, hyzenthlay=ROAD, hazel=SAND)
    play(st, mv("woundwort", ROAD))
    assert st[QUESTION] == Q_HYZ
    play(st, M_YES)
    assert where(st, "hyzenthlay") == HEATHER and where(st, "woundwort") == ROAD


def test_hyzenthlay_cannot_retreat_from_campion():
    st = position(ELIL, campion=NUTHANGER, hyzenthlay=ROAD, hazel=SAND)
    play(st, mv("campion", ROAD))
    assert st[PHASE] == P_CARD


def test_blackavar_retreats_forward_when_attacking():
    st = position(HLESSIL, blackavar=ROAD, fox=NUTHANGER, woundwort=EFRAFA)
    play(st, mv("blackavar", NUTHANGER))
    assert st[QUESTION] == Q_BLACKAVAR
    play(st, M_YES)
    assert where(st, "blackavar") == TEST_WOODS and status(st, "fox") == IN_PLAY


def test_blackavar_cannot_retreat_from_campion():
    st = position(HLESSIL, blackavar=ROAD, campion=NUTHANGER, woundwort=EFRAFA)
    play(st, mv("blackavar", NUTHANGER))
    assert st[PHASE] == P_CARD


def test_campion_makes_retreat_cards_useless():
    st = position(HLESSIL, buckthorn=ROAD, campion=NUTHANGER, woundwort=EFRAFA)
    play(st, mv("buckthorn", NUTHANGER))
    play(st, card(5))                     # Retreat Backward: no effect
    play(st, card(0))                     # 3 against 3 + 1
    assert status(st, "buckthorn") == DEFEATED


def test_campion_flaming_stick_still_works():
    st = position(HLESSIL, buckthorn=ROAD, campion=NUTHANGER, woundwort=EFRAFA)
    play(st, mv("buckthorn", NUTHANGER))
    play(st, card(0))
    play(st, card(8))
    if st[PHASE] == P_FLAME:
        play(st, legal(st)[0])
    assert status(st, "buckthorn") == IN_PLAY and where(st, "buckthorn") != NUTHANGER


# ---- the elil ------------------------------------------------------------------------------

def test_woundwort_attacks_in_any_direction():
    st = position(ELIL, woundwort=HONEY, fox=BEECH, buckthorn=TEST_WOODS, fiver=NUTHANGER)
    moves = legal(st)
    assert mv("woundwort", TEST_WOODS) in moves and mv("woundwort", NUTHANGER) in moves
    assert mv("woundwort", HAWTHORN) not in moves           # backward, not an attack
    assert mv("fox", 10) not in moves


def test_cat_may_have_no_cards_played():
    st = position(HLESSIL, buckthorn=ROAD, cat=NUTHANGER, woundwort=EFRAFA)
    play(st, mv("buckthorn", NUTHANGER))
    assert st[PHASE] == P_QUESTION and st[QUESTION] == Q_CAT and st[DECIDER] == ELIL
    play(st, M_YES)
    assert status(st, "buckthorn") == DEFEATED and status(st, "cat") == DEFEATED


def test_cat_decides_after_the_hlessil_options():
    st = position(ELIL, cat=NUTHANGER, hyzenthlay=ROAD, hazel=SAND)
    play(st, mv("cat", ROAD))
    assert st[QUESTION] == Q_HYZ
    play(st, M_NO)
    assert st[QUESTION] == Q_CAT


def test_dog_and_fox_in_woods():
    st = position(ELIL, dog=HAWTHORN, fox=HAWTHORN, hazel=SAND)
    assert rules.elil_strength(P, st, C["dog"], HAWTHORN) == 3
    assert rules.elil_strength(P, st, C["dog"], ROAD) == 5
    assert rules.elil_strength(P, st, C["fox"], HAWTHORN) == 5
    assert rules.elil_strength(P, st, C["fox"], ROAD) == 3


def test_kestrel_attacks_from_anywhere():
    st = position(ELIL, kestrel=EFRAFA, buckthorn=SAND, hazel=ECCH)
    moves = legal(st)
    assert mv("kestrel", SAND) in moves and mv("kestrel", ECCH) in moves
    assert mv("kestrel", ROAD) not in moves


# ---- text cards ----------------------------------------------------------------------------

def test_kehaar_sends_every_elil_home():
    st = position(HLESSIL, buckthorn=ROAD, fox=NUTHANGER, rats=NUTHANGER, woundwort=BEECH)
    play(st, mv("buckthorn", NUTHANGER))
    to_cards(st)
    play(st, card(8))
    play(st, card(0))
    assert where(st, "fox") == EFRAFA and where(st, "rats") == EFRAFA
    assert where(st, "buckthorn") == NUTHANGER


def test_kehaar_has_no_effect_in_efrafa():
    st = position(HLESSIL, buckthorn=RIVER, fox=EFRAFA, woundwort=BEECH)
    play(st, mv("buckthorn", EFRAFA))
    play(st, card(8))
    play(st, card(0))                     # 3 + 0 against 3 + 1
    assert status(st, "buckthorn") == DEFEATED


def test_kehaar_with_elil_retreat_backwards():
    st, ch = attack_until(lambda: position(HLESSIL, buckthorn=ROAD, fox=NUTHANGER,
                                           dog=NUTHANGER, woundwort=BEECH),
                          mv("buckthorn", NUTHANGER), "fox")
    play(st, card(8), ch=ch)
    play(st, card(6), ch=ch)
    assert where(st, "fox") == TEST_WOODS and where(st, "dog") == EFRAFA


def test_elil_text_card_first_retreat_against_retreat():
    st = position(HLESSIL, buckthorn=ROAD, fox=NUTHANGER, woundwort=BEECH)
    play(st, mv("buckthorn", NUTHANGER))
    play(st, card(6))                     # Retreat Sideways
    play(st, card(6))                     # Retreat Backwards: the elil's goes first
    assert where(st, "fox") == TEST_WOODS and where(st, "buckthorn") == NUTHANGER


def test_tracker_cancels_a_retreat():
    st = position(HLESSIL, buckthorn=ROAD, rats=NUTHANGER, woundwort=BEECH)
    play(st, mv("buckthorn", NUTHANGER))
    play(st, card(5))
    play(st, card(7))                     # Tracker: no retreat; 3 against 2
    assert status(st, "rats") == DEFEATED and where(st, "buckthorn") == NUTHANGER


def test_retreat_card_moves_the_rabbit_back():
    st = position(ELIL, fox=NUTHANGER, buckthorn=ROAD, hazel=SAND)
    play(st, mv("fox", ROAD))
    play(st, card(5))                     # Retreat Backward
    play(st, card(5))
    assert where(st, "buckthorn") == NEWTOWN and where(st, "fox") == ROAD


def test_flaming_stick_retreats_in_different_directions():
    st = position(ELIL, woundwort=NUTHANGER, hazel=ROAD, fiver=ROAD, pipkin=ROAD,
                  buckthorn=ROAD, hawkbit=SAND)
    play(st, mv("woundwort", ROAD))
    to_cards(st)
    for _ in range(2):
        play(st, card(8) if st[DECIDER] == ELIL else card(0))
    assert st[PHASE] == P_FLAME
    seen = set()
    while st[PHASE] == P_FLAME:
        m = legal(st)[0]
        seen.add(m % 16)
        play(st, m)
    dirs = {0 if t in (HONEY, NUTHANGER) else 1 if t == NEWTOWN else 2 for t in seen}
    assert len(dirs) == len(seen) == 3
    alive = [r for r in ("hazel", "fiver", "pipkin", "buckthorn")
             if status(st, r) == IN_PLAY]
    assert len(alive) == 3 and all(where(st, r) != ROAD for r in alive)


# ---- the Snare -----------------------------------------------------------------------------

def snared(**extra):
    st = position(ELIL, snare=NUTHANGER, buckthorn=ROAD, **extra)
    play(st, mv("snare", ROAD))
    return st


def test_snare_catches_without_cards_and_paralyses():
    st = snared(hazel=SAND)
    assert st[ENSNARED] == C["buckthorn"] and st[KNOWN + C["snare"]] == 1
    assert st[SIDE] == HLESSIL
    assert not any(m // 16 == C["buckthorn"] for m in legal(st) if m < 368)


def test_snare_falls_to_a_group_of_six():
    st = snared(bigwig=NEWTOWN)
    play(st, mv("bigwig", ROAD))          # 3 + 4 >= 6: not a battle, the Snare falls
    assert status(st, "snare") == DEFEATED and st[ENSNARED] == -1


def test_snare_falls_in_efrafa():
    st = position(HLESSIL, buckthorn=RIVER, snare=EFRAFA, woundwort=BEECH)
    play(st, mv("buckthorn", EFRAFA))
    assert status(st, "snare") == DEFEATED and st[PHASE] == P_ESCAPE


def test_rabbit_caught_while_attacking_fights_on_with_useless_cards():
    for seed in range(1, 100):
        st = position(HLESSIL, buckthorn=ROAD, snare=NUTHANGER, rats=NUTHANGER,
                      woundwort=BEECH)
        ch = chance(seed)
        play(st, mv("buckthorn", NUTHANGER), ch=ch)
        if st[ENSNARED] == C["buckthorn"]:
            break
    assert st[ENSNARED] == C["buckthorn"] and st[DEF] == C["rats"]
    play(st, card(4), ch=ch)              # a 5 that has no effect
    play(st, card(0), ch=ch)              # 3 against 2 + 1: both fall
    assert status(st, "buckthorn") == DEFEATED and status(st, "rats") == DEFEATED
    assert st[ENSNARED] == -1             # no rabbit left: face down again, and free
    assert st[KNOWN + C["snare"]] == 1    # but alone on its space: still known


def test_snare_face_down_again_is_mixed_with_the_elil_on_its_space():
    st = snared(hazel=SAND, woundwort=HONEY)
    st[SIDE] = st[DECIDER] = ELIL
    play(st, mv("woundwort", ROAD))       # the ensnared Buckthorn is the only one there
    play(st, card(0))
    play(st, card(0))                     # 3 + 1 against 5 + 1
    assert status(st, "buckthorn") == DEFEATED and st[ENSNARED] == -1
    assert where(st, "snare") == ROAD and where(st, "woundwort") == ROAD
    assert st[KNOWN + C["snare"]] == 0 and st[KNOWN + C["woundwort"]] == 0


def test_elil_may_choose_the_ensnared_rabbit():
    st = snared(fiver=SAND, woundwort=HONEY)
    st[rules.LOC + C["fiver"]] = ROAD
    st[SIDE] = ELIL
    st[DECIDER] = ELIL
    play(st, mv("woundwort", ROAD))
    assert st[QUESTION] == Q_TARGET and st[DECIDER] == ELIL
    play(st, M_YES)
    assert st[DEF] == C["buckthorn"]


def test_snare_meets_a_survivor_after_its_rabbit_falls():
    st = snared(fiver=SAND, woundwort=HONEY)
    st[rules.LOC + C["fiver"]] = ROAD
    st[SIDE] = ELIL
    st[DECIDER] = ELIL
    play(st, mv("woundwort", ROAD))
    play(st, M_YES)                       # attack the ensnared Buckthorn
    play(st, card(0))
    play(st, card(0))                     # 3 + 1 against 5 + 1
    assert status(st, "buckthorn") == DEFEATED
    to_cards(st)                          # Fiver: the elil play first
    play(st, card(1))
    play(st, card(8))                     # Kehaar: Woundwort is driven home
    assert where(st, "woundwort") == EFRAFA
    assert st[ENSNARED] == C["fiver"]


def test_flaming_stick_defeats_an_ensnared_rabbit():
    st = snared(fiver=SAND, woundwort=HONEY)
    st[rules.LOC + C["fiver"]] = ROAD
    st[SIDE] = ELIL
    st[DECIDER] = ELIL
    play(st, mv("woundwort", ROAD))
    play(st, M_NO)                        # attack Fiver
    to_cards(st)
    play(st, card(8))                     # the elil play first against Fiver
    play(st, card(0))
    while st[PHASE] == P_FLAME:
        play(st, legal(st)[0])
    assert status(st, "buckthorn") == DEFEATED and status(st, "fiver") == IN_PLAY


# ---- joining rabbits ---------------------------------------------------------------------

def test_strawberry_joins_at_cowslips_warren():
    st = position(HLESSIL, buckthorn=ECCH, woundwort=EFRAFA)
    play(st, mv("buckthorn", COWSLIP))
    assert where(st, "strawberry") == COWSLIP


def test_holly_joins_at_sandleford_when_the_down_is_reached():
    st = position(HLESSIL, buckthorn=HEATHER, woundwort=EFRAFA)
    play(st, mv("buckthorn", BEECH))
    assert where(st, "holly") == SAND


def test_joiner_lost_when_sandleford_holds_elil():
    st = position(HLESSIL, buckthorn=HEATHER, rats=SAND, woundwort=EFRAFA)
    play(st, mv("buckthorn", BEECH))
    assert status(st, "holly") == LOST


def test_joiner_falls_back_to_sandleford():
    p = params(**{"joining.strawberry.appears": "The Road"})
    st = position(HLESSIL, params=p, buckthorn=ECCH, rats=ROAD, woundwort=EFRAFA)
    play(st, mv("buckthorn", COWSLIP), params=p)
    assert where(st, "strawberry") == SAND


def test_blackavar_joins_when_a_rabbit_defeats_an_elil():
    st = position(HLESSIL, buckthorn=ROAD, rats=NUTHANGER, woundwort=BEECH)
    play(st, mv("buckthorn", NUTHANGER))
    play(st, card(4))
    play(st, card(0))
    assert where(st, "blackavar") == NUTHANGER and where(st, "clover") == NUTHANGER


def test_blackavar_does_not_join_when_a_rabbit_only_survives_an_attack():
    # 'gains new rabbits by entering spaces or defeating enemies': by default the rabbits
    # must defeat an elil on their own turn; joining.blackavar.trigger = defeat_elil also
    # counts an elil that attacks and loses.
    for trigger, joins in (("defeat_elil_attacking", False), ("defeat_elil", True)):
        p = params(**{"joining.blackavar.trigger": trigger})
        st = position(ELIL, params=p, kestrel=EFRAFA, buckthorn=ROAD, hazel=SAND)
        play(st, mv("kestrel", ROAD), params=p)
        play(st, card(0), params=p)
        play(st, card(0), params=p)       # Buckthorn 3 + 1 against the Kestrel's 1 + 1
        assert status(st, "kestrel") == DEFEATED and st[SIDE] == HLESSIL
        assert (status(st, "blackavar") == IN_PLAY) == joins, trigger


def test_blackavar_joins_when_the_rabbits_defeat_the_snare_on_their_turn():
    st = position(HLESSIL, bigwig=NEWTOWN, snare=ROAD, buckthorn=ROAD, woundwort=EFRAFA)
    st[ENSNARED] = C["buckthorn"]
    play(st, mv("bigwig", ROAD))          # a group of 4 + 3: the Snare falls
    assert status(st, "snare") == DEFEATED and where(st, "blackavar") == ROAD


def test_blackavar_does_not_appear_in_efrafa():
    st = position(HLESSIL, buckthorn=RIVER, rats=EFRAFA, woundwort=BEECH)
    play(st, mv("buckthorn", EFRAFA))
    play(st, card(4))
    play(st, card(0))
    play(st, M_SPACE + ROAD)
    assert where(st, "blackavar") == SAND and where(st, "hyzenthlay") == ROAD


def test_pipkin_revealed_once_helps_every_fight_of_the_battle():
    for seed in range(1, 200):
        st = position(ELIL, woundwort=NUTHANGER, pipkin=ROAD, buckthorn=ROAD, silver=ROAD,
                      hazel=SAND)
        ch = chance(seed)
        play(st, mv("woundwort", ROAD), ch=ch)
        if st[DEF] != C["buckthorn"]:
            continue
        play(st, M_YES, ch=ch)            # reveal Pipkin
        play(st, card(0), ch=ch)          # Buckthorn 3 + 1 + 1 = 5
        play(st, card(5), ch=ch)          # Woundwort 5 + 6 = 11
        if st[DEF] == C["silver"]:
            break
    assert status(st, "buckthorn") == DEFEATED and st[DEF] == C["silver"]
    assert st[PHASE] == P_CARD            # not asked again
    assert rules.rabbit_strength(P, st, C["silver"], ROAD) == 4
