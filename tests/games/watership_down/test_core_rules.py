"""Layer 2: the core rules of Watership Down on hand-built positions."""

import numpy as np

from simkit.game import HIDDEN
from simkit.games.watership_down import rules
from simkit.games.watership_down.state import (
    CARD_H,
    DECIDER,
    DEFEATED,
    E_DOES,
    E_ELEVEN,
    E_NO_MOVE,
    E_WARREN,
    ELIL,
    END,
    HAND,
    HLESSIL,
    IN_PLAY,
    KNOWN,
    LOC,
    LOST,
    M_SPACE,
    N_CARDS,
    P_CARD,
    P_ESCAPE,
    P_MOVE,
    P_SETUP,
    PENDING,
    PHASE,
    SIDE,
    STAT,
    STATE_SIZE,
    TURN,
    WINNER,
)

from .helpers import (
    BEECH,
    BELT,
    COWSLIP,
    ECCH,
    EFRAFA,
    ENBORNE,
    HAWTHORN,
    HEATHER,
    HONEY,
    NEAR_HIND,
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
    col,
    hand,
    items_zero,
    legal,
    mv,
    params,
    play,
    position,
    status,
    where,
)


def test_setup_is_secret_placement_four_at_home_elil_first():
    st = np.empty(STATE_SIZE, np.int32)
    rules.new_game(P, 2, st, chance())
    assert st[PHASE] == P_SETUP and st[DECIDER] == ELIL
    for _ in range(5):
        play(st, legal(st)[0])
    assert st[DECIDER] == HLESSIL
    assert sum(st[LOC + c] == EFRAFA for c in range(14, 23)) == 4
    assert sorted(st[LOC + c] for c in range(14, 23) if st[LOC + c] != EFRAFA) == \
        [BELT, HAWTHORN, TEST_WOODS, NEAR_HIND, RIVER]
    obs = np.empty_like(st)
    rules.observe(P, st, HLESSIL, obs)
    assert all(obs[LOC + c] == HIDDEN for c in range(14, 23))
    for _ in range(5):
        play(st, legal(st)[-1])
    assert sum(st[LOC + c] == SAND for c in range(9)) == 4
    assert st[STAT + C["holly"]] == PENDING
    assert st[PHASE] == P_MOVE and st[SIDE] == ELIL


def test_one_character_one_space_forward():
    st = position(HLESSIL, hazel=SAND, woundwort=EFRAFA)
    assert sorted(legal(st)) == [mv("hazel", ENBORNE), mv("hazel", NEWTOWN)]
    st = position(ELIL, fox=EFRAFA, hazel=SAND)
    assert sorted(legal(st)) == [mv("fox", NEAR_HIND), mv("fox", RIVER)]


def test_move_to_empty_space_ends_the_turn():
    st = position(HLESSIL, hazel=SAND, woundwort=EFRAFA)
    play(st, mv("hazel", ENBORNE))
    assert where(st, "hazel") == ENBORNE and st[SIDE] == ELIL and st[TURN] == 1


def test_battle_higher_total_wins_and_cards_are_secret():
    st = position(HLESSIL, buckthorn=ROAD, rats=NUTHANGER, woundwort=EFRAFA)
    play(st, mv("buckthorn", NUTHANGER))
    assert st[PHASE] == P_CARD and st[DECIDER] == HLESSIL
    play(st, card(0))                     # Buckthorn 3 + 1
    assert st[DECIDER] == ELIL
    obs = np.empty_like(st)
    rules.observe(P, st, ELIL, obs)
    assert obs[CARD_H] == HIDDEN and st[CARD_H] == 0
    play(st, card(0))                     # Rats 2 + 1
    assert status(st, "rats") == DEFEATED and where(st, "buckthorn") == NUTHANGER


def test_tie_defeats_both():
    st = position(HLESSIL, buckthorn=ROAD, rats=NUTHANGER, woundwort=EFRAFA)
    play(st, mv("buckthorn", NUTHANGER))
    play(st, card(0))                     # 3 + 1
    play(st, card(1))                     # 2 + 2
    assert status(st, "buckthorn") == DEFEATED and status(st, "rats") == DEFEATED


def test_winner_fights_the_next_defender():
    st = position(ELIL, woundwort=NUTHANGER, pipkin=ROAD, fiver=ROAD, dog=EFRAFA,
                  hazel=SAND)
    play(st, mv("woundwort", ROAD))
    for _ in range(2):                    # two battles, Woundwort 5+1 beats 1+1
        while st[PHASE] != P_CARD:
            play(st, legal(st)[0])       # decline every question (M_NO sorts first)
        first = st[DECIDER]
        play(st, legal(st)[0])            # the lowest card left
        assert st[DECIDER] == 1 - first
        play(st, legal(st)[0])
    assert status(st, "pipkin") == DEFEATED and status(st, "fiver") == DEFEATED
    assert where(st, "woundwort") == ROAD


def test_wood_holds_at_most_two_of_a_player():
    st = position(HLESSIL, hazel=SAND, fiver=HEATHER, pipkin=HEATHER, bigwig=ENBORNE,
                  woundwort=EFRAFA)
    assert mv("bigwig", HEATHER) not in legal(st)
    assert mv("bigwig", ECCH) in legal(st)


def test_watership_down_bonus_and_cross_attack():
    st = position(HLESSIL, buckthorn=BEECH, vervain=HONEY, woundwort=EFRAFA)
    assert mv("buckthorn", HONEY) in legal(st)
    assert rules.rabbit_strength(P, st, C["buckthorn"], HONEY) == 4
    st2 = position(HLESSIL, buckthorn=BEECH, woundwort=EFRAFA)
    assert mv("buckthorn", HONEY) not in legal(st2)
    st3 = position(ELIL, vervain=HONEY, buckthorn=BEECH)
    assert mv("vervain", BEECH) in legal(st3)


def test_efrafa_escape_to_any_available_space_and_hyzenthlay_joins():
    st = position(HLESSIL, silver=RIVER, woundwort=HONEY, dog=HAWTHORN, rats=COWSLIP)
    play(st, mv("silver", EFRAFA))
    assert st[PHASE] == P_ESCAPE
    opts = {m - M_SPACE for m in legal(st)}
    assert EFRAFA not in opts and HONEY not in opts and HAWTHORN not in opts
    assert BEECH in opts and SAND in opts
    play(st, M_SPACE + BEECH)
    assert where(st, "silver") == BEECH
    assert where(st, "hyzenthlay") == BEECH and status(st, "hyzenthlay") == IN_PLAY


def test_escape_skips_a_wood_with_two_rabbits():
    st = position(HLESSIL, silver=RIVER, pipkin=HEATHER, fiver=HEATHER, woundwort=BEECH)
    play(st, mv("silver", EFRAFA))
    assert M_SPACE + HEATHER not in legal(st)


def test_warren_four_rabbits_with_a_doe_at_end_of_turn():
    st = position(HLESSIL, hazel=BEECH, fiver=BEECH, clover=HONEY, bigwig=ROAD,
                  woundwort=EFRAFA)
    play(st, mv("bigwig", HONEY))
    assert st[WINNER] == HLESSIL and st[END] == E_WARREN


def test_no_warren_without_a_doe():
    st = position(HLESSIL, hazel=BEECH, fiver=BEECH, silver=HONEY, bigwig=ROAD,
                  woundwort=EFRAFA)
    play(st, mv("bigwig", HONEY))
    assert st[WINNER] < 0


def test_elil_win_both_does_defeated():
    st = position(ELIL, woundwort=NUTHANGER, clover=ROAD, hazel=SAND)
    st[STAT + C["hyzenthlay"]] = DEFEATED
    play(st, mv("woundwort", ROAD))
    play(st, card(0))
    play(st, card(0))
    assert st[WINNER] == ELIL and st[END] == E_DOES


def test_elil_win_eleven_rabbits_defeated():
    st = position(ELIL, woundwort=NUTHANGER, bigwig=ROAD, hazel=SAND, clover=SAND)
    for r in ["fiver", "blackberry", "dandelion", "pipkin", "silver", "buckthorn",
              "hawkbit", "holly", "strawberry"]:
        st[STAT + C[r]] = DEFEATED
    st[STAT + C["blackavar"]] = LOST
    play(st, mv("woundwort", ROAD))
    play(st, card(0))
    play(st, card(5))
    assert st[WINNER] == ELIL and st[END] == E_ELEVEN


def test_no_legal_move_loses():
    st = position(HLESSIL, hazel=SAND, kestrel=ENBORNE)
    play(st, mv("hazel", NEWTOWN))        # the Kestrel can still attack from anywhere
    assert st[WINNER] < 0
    st = position(HLESSIL, hazel=ENBORNE, rats=SAND)
    play(st, mv("hazel", ECCH))           # the Rats at Sandleford cannot go forward
    assert st[WINNER] == HLESSIL and st[END] == E_NO_MOVE


def test_identities_hidden_until_revealed_and_mixed_again():
    st = position(HLESSIL, buckthorn=ROAD, rats=NUTHANGER, fox=HONEY, woundwort=EFRAFA)
    obs = np.empty_like(st)
    rules.observe(P, st, HLESSIL, obs)
    assert obs[LOC + C["rats"]] == HIDDEN
    play(st, mv("buckthorn", NUTHANGER))
    assert st[KNOWN + C["buckthorn"]] == 1 and st[KNOWN + C["rats"]] == 1
    play(st, card(4))
    play(st, card(0))                     # Buckthorn 8 beats the Rats 3
    rules.observe(P, st, ELIL, obs)
    # Clover and Blackavar joined on Nuthanger: the rabbits there are shuffled
    assert obs[LOC + C["buckthorn"]] == HIDDEN


def test_hand_refills_after_the_last_card():
    st = position(HLESSIL, buckthorn=ROAD, rats=NUTHANGER, woundwort=EFRAFA)
    hand(st, HLESSIL, [4])
    play(st, mv("buckthorn", NUTHANGER))
    play(st, card(4))                     # face down: still one of the hand's cards
    assert [st[HAND + HLESSIL * N_CARDS + k] for k in range(9)] == [0, 0, 0, 0, 1, 0, 0, 0, 0]
    play(st, card(0))                     # revealed: it leaves, and the hand comes back
    assert all(st[HAND + HLESSIL * N_CARDS + k] == 1 for k in range(9))
    assert st[HAND + ELIL * N_CARDS + 0] == 0


def test_card_items_count_played_won_lost():
    st = position(HLESSIL, buckthorn=ROAD, rats=NUTHANGER, woundwort=EFRAFA)
    it = items_zero()
    play(st, mv("buckthorn", NUTHANGER), items=it)
    play(st, card(4), items=it)
    play(st, card(0), items=it)
    assert it[HLESSIL, col("card_hlessil_5:played")] == 1
    assert it[HLESSIL, col("card_hlessil_5:won")] == 1
    assert it[ELIL, col("card_elil_1:lost")] == 1
    assert it[ELIL, col("rats:defeated")] == 1
    assert it[HLESSIL, col("clover:joined")] == 1


def test_observe_hides_who_moved_and_the_unrevealed_tokens():
    st = position(HLESSIL, hazel=SAND, fiver=SAND, woundwort=EFRAFA)
    play(st, mv("hazel", ENBORNE))        # Hazel's group is being chosen
    assert st[rules.MOVER] == C["hazel"]
    obs = np.empty_like(st)
    rules.observe(P, st, ELIL, obs)
    assert obs[rules.MOVER] == HIDDEN and obs[LOC + C["hazel"]] == HIDDEN
    st = position(ELIL, fox=EFRAFA, dog=EFRAFA, hazel=SAND)
    play(st, mv("fox", RIVER))
    rules.observe(P, st, HLESSIL, obs)
    assert obs[LOC + C["fox"]] == HIDDEN
    assert obs[rules.CNT + ELIL * 16 + RIVER] == 1     # the token itself is seen
    rules.observe(P, st, ELIL, obs)
    assert obs[LOC + C["fox"]] == RIVER and obs[LOC + C["hazel"]] == HIDDEN


def test_same_seed_same_games_whatever_the_workers():
    from simkit import simulate
    a = simulate("watership-down", 2, 40, seed=9, strategies="heuristic,random", workers=1)
    b = simulate("watership-down", 2, 40, seed=9, strategies="heuristic,random", workers=2)
    assert a.games.drop(columns=[c for c in a.games if "time" in c]).equals(
        b.games.drop(columns=[c for c in b.games if "time" in c]))
    assert a.items.equals(b.items)


def test_warren_also_counts_at_the_end_of_an_elil_turn():
    def build(p=P):
        return position(ELIL, params=p, hazel=BEECH, fiver=HONEY, clover=HONEY,
                        buckthorn=COWSLIP, fox=BELT)
    st = build()
    play(st, mv("fox", COWSLIP))
    play(st, card(6))                     # Retreat Sideways: Cowslip's Warren -> Beech Hanger
    play(st, card(0))
    assert where(st, "buckthorn") == BEECH
    assert st[WINNER] == HLESSIL and st[END] == E_WARREN
    off = params(**{"rules.warren_check_every_turn": False})
    st = build(off)
    play(st, mv("fox", COWSLIP), params=off)
    play(st, card(6), params=off)
    play(st, card(0), params=off)
    assert st[WINNER] < 0 and st[SIDE] == HLESSIL


def test_one_field_override_changes_play_as_the_field_says():
    """--set "board.diamond-7.spaces.Heather Wood.wooded=false": Heather Wood is open
    ground, so a third rabbit may stand there (the test above, on changed data)."""
    p = params(**{"board.diamond-7.spaces.Heather Wood.wooded": False})
    st = position(HLESSIL, p, hazel=SAND, fiver=HEATHER, pipkin=HEATHER, bigwig=ENBORNE,
                  woundwort=EFRAFA)
    assert mv("bigwig", HEATHER) in legal(st, p)


def test_a_battle_card_changed_in_one_field_fights_with_its_new_value():
    """--set cards.elil.1.value=3: the Rats with their "1" card now total 2 + 3 and beat
    Buckthorn's 3 + 1 (with the card's value 1 they lose, as above)."""
    p = params(**{"cards.elil.1.value": 3})
    st = position(HLESSIL, p, buckthorn=ROAD, rats=NUTHANGER, woundwort=EFRAFA)
    play(st, mv("buckthorn", NUTHANGER), p)
    play(st, card(0), p)
    play(st, card(0), p)
    assert status(st, "buckthorn") == DEFEATED and status(st, "rats") == IN_PLAY
