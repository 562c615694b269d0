"""The features kernel (NOTES.md, Features): every entry on a built position, read through
``observe`` for a seat; the two seats of one fully seen position swap their own_ and next_
entries; what the elil cannot see changes nothing of theirs; and on random games the
seat's own progress is the progress kernel's."""

import re

import numpy as np
import pytest

from simkit.games.watership_down import rules
from simkit.games.watership_down.state import (
    CARD_E,
    DEFEATED,
    ELIL,
    ENSNARED,
    HLESSIL,
    IN_PLAY,
    KNOWN,
    LOC,
    LOST,
    OPT_USED,
    P_CARD,
    P_DAND,
    P_ESCAPE,
    P_FLAME,
    P_GROUP,
    P_HOLLY,
    P_MOVE,
    P_QUESTION,
    P_RETREAT,
    PHASE,
    SEEN_AT,
    STAT,
    STATE_SIZE,
    TURN,
)

from .helpers import (
    BEECH,
    BELT,
    EFRAFA,
    HAWTHORN,
    HEATHER,
    HONEY,
    NEAR_HIND,
    NUTHANGER,
    RIVER,
    ROAD,
    SAND,
    SPEC,
    TEST_WOODS,
    C,
    P,
    card,
    chance,
    hand,
    mv,
    params,
    play,
    position,
)

FEATURES = rules.FEATURES
D = rules.MOVE_DISCOUNT


def features(st, seat, params=P):
    """The seat's features of the true state ``st``, through its observation."""
    obs = np.empty(STATE_SIZE, np.int32)
    rules.observe(params, st, seat, obs)
    out = np.full(len(FEATURES), np.nan)
    rules.features(params, obs, seat, out)
    assert np.isfinite(out).all()
    return dict(zip(FEATURES, out.tolist(), strict=True))


def status(st, **statuses):
    for name, s in statuses.items():
        st[STAT + C[name]] = s


def known(st):
    """Every character in play known to the other side: both seats see the whole board."""
    for c in range(len(C)):
        if st[STAT + c] == IN_PLAY:
            st[KNOWN + c] = 1
    return st


def test_the_names_are_the_specs_one_each_in_snake_case():
    assert SPEC.features == FEATURES and SPEC.has_features
    assert len(FEATURES) == 78 and len(set(FEATURES)) == len(FEATURES)
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", n) for n in FEATURES)
    for name in rules.SIDE_FEATURES:      # own_ then next_, side by side
        i = FEATURES.index(f"own_{name}")
        assert FEATURES[i + 1] == f"next_{name}"


# ---- one fully seen position, from both seats --------------------------------------------
#
#   elil: Woundwort and the Cat on The Beech Hanger (the Down), the Dog on Caesar's Belt,
#   the Kestrel on Near Hind Copse, the Snare in Efrafa; Campion, Vervain, the Fox and the
#   Rats defeated. Hlessil: Hazel and Fiver on Heather Wood, Bigwig on The Honeycomb (the
#   Down), Pipkin on The Road, Clover on Nuthanger Farm, Blackberry in Sandleford; Silver
#   and Buckthorn defeated, Holly lost.

def board():
    st = position(ELIL, woundwort=BEECH, cat=BEECH, dog=BELT, kestrel=NEAR_HIND, snare=EFRAFA,
                  hazel=HEATHER, fiver=HEATHER, bigwig=HONEY, pipkin=ROAD, clover=NUTHANGER,
                  blackberry=SAND)
    status(st, campion=DEFEATED, vervain=DEFEATED, fox=DEFEATED, rats=DEFEATED,
           silver=DEFEATED, buckthorn=DEFEATED, holly=LOST)
    hand(st, ELIL, [0, 5, 7])             # 1, 6, Tracker
    hand(st, HLESSIL, [1, 3, 5, 8])       # 2, 4, Retreat Backward, Kehaar
    return known(st)


BOARD = {   # the elil's entries, then the hlessil's
    "progress": (3 / 11, 1 - 21 / 46),    # 3 rabbits of 11; 21 of the 46 rows left
    "characters_in_play": (5, 6),
    "characters_defeated": (4, 3),        # Holly lost counts
    "strength_in_play": (5 + 3 + 5 + 1 + 0, 2 + 1 + 4 + 1 + 1 + 2),
    "tokens_at_home": (1, 1),             # the Snare in Efrafa, Blackberry in Sandleford
    "tokens_on_down": (2, 1),
    "forward_moves_left": (2 * 3 + 4 + 5 + 6, 2 * 4 + 3 + 4 + 3 + 6),
    "strength_at_front": (5, 2 + 1 + 1),  # the Dog on row 4; Hazel, Fiver, Pipkin on row 2
    "tokens_unseen": (0, 0),
    "unseen_mean_strength": (0, 0),
    # the elil reach Heather Wood (forward) and The Honeycomb (across the Down); the hlessil
    # The Beech Hanger (Hazel forward, Bigwig across the Down)
    "attacks_available": (2, 1),
    # Woundwort 5 against Hazel and Fiver (1.5 on average) on Heather Wood; Bigwig 4 + 1
    # against Woundwort and the Cat (4 on average) on the Down
    "best_attack_margin": (5 - 1.5, 5 - 4),
    "tokens_threatened": (2, 3),
    "cards_in_hand": (3, 4),
    "number_cards_total": (7, 6),
    "best_number_card": (6, 4),
    "text_cards_in_hand": (1, 2),
    "optional_cards_left": (0, 0),        # cards.optional is off
}


def test_each_sides_entries_on_a_built_position():
    st = board()
    f = features(st, ELIL)
    for name, (elil, hlessil) in BOARD.items():
        assert f[f"own_{name}"] == pytest.approx(elil), name
        assert f[f"next_{name}"] == pytest.approx(hlessil), name


def test_own_and_next_swap_between_the_seats():
    st = board()
    e, h = features(st, ELIL), features(st, HLESSIL)
    for name in rules.SIDE_FEATURES:
        assert e[f"own_{name}"] == h[f"next_{name}"], name
        assert e[f"next_{name}"] == h[f"own_{name}"], name
    assert set(BOARD) == set(rules.SIDE_FEATURES)
    # the notions of one side read the same from both seats on a board both see
    for name in rules.HLESSIL_FEATURES + rules.ELIL_FEATURES:
        assert e[name] == h[name], name


def test_the_warren_and_the_does_on_the_built_position():
    st = board()
    f = features(st, HLESSIL)
    # Clover three moves out (Nuthanger Farm); the three nearest others: Bigwig on the
    # Down, then two of the three one move out
    assert f["doe_nearness"] == pytest.approx(D ** 3)
    assert f["others_nearness"] == pytest.approx((1 + 2 * D) / 3)
    assert f["warren_share"] == pytest.approx(D ** 3)
    assert (f["does_in_play"], f["does_lost"], f["does_on_down"], f["does_threatened"]) == (
        1, 0, 0, 0)
    assert f["elil_down_spaces_held"] == 1 and f["kestrel_in_play"] == 1
    # the hands as dealt above
    assert (f["hlessil_kehaar_in_hand"], f["hlessil_retreat_cards_in_hand"]) == (1, 1)
    assert (f["elil_tracker_in_hand"], f["elil_flaming_stick_in_hand"],
            f["elil_retreat_cards_in_hand"]) == (1, 0, 0)
    progress = np.empty(2)
    rules.progress(P, st, progress)
    assert (f["own_progress"], f["next_progress"]) == (progress[HLESSIL], progress[ELIL])


def test_who_attacks_and_who_defends_first():
    # Bigwig is always the first defender: Woundwort's margin on The Honeycomb is against
    # his 4 + 1, not the mean of Bigwig and Fiver (3.5)
    st = known(position(ELIL, woundwort=BEECH, bigwig=HONEY, fiver=HONEY))
    assert features(st, ELIL)["own_best_attack_margin"] == 5 - 5
    # Woundwort attacks sideways (Caesar's Belt -> Hawthorn Wood); the Fox there cannot
    st = known(position(ELIL, woundwort=BELT, pipkin=HAWTHORN))
    f = features(st, ELIL)
    assert (f["own_attacks_available"], f["own_best_attack_margin"]) == (1, 5 - 1)
    st = known(position(ELIL, fox=BELT, pipkin=HAWTHORN))
    assert features(st, ELIL)["own_attacks_available"] == 0
    # Hawkbit never attacks (the Cat is one step ahead of him); Hazel would
    st = known(position(HLESSIL, hawkbit=HEATHER, cat=BEECH))
    assert features(st, HLESSIL)["own_attacks_available"] == 0
    st = known(position(HLESSIL, hazel=HEATHER, cat=BEECH))
    f = features(st, HLESSIL)
    assert (f["own_attacks_available"], f["own_best_attack_margin"]) == (1, 2 + 1 - 3)


# ---- what the elil cannot see ---------------------------------------------------------------

def unseen_rabbits():
    """The rabbits unknown to the elil: Hazel and Clover on The Honeycomb, Fiver on Heather
    Wood, Bigwig mixed on The Road (seen there: SEEN_AT), Pipkin in Sandleford."""
    st = position(ELIL, woundwort=BEECH, dog=NEAR_HIND, hazel=HONEY, clover=HONEY,
                  fiver=HEATHER, bigwig=ROAD, pipkin=SAND)
    st[KNOWN + C["woundwort"]] = 1
    st[SEEN_AT + C["bigwig"]] = ROAD
    return st


def test_the_elil_count_tokens_they_cannot_place_at_the_mean():
    st = unseen_rabbits()
    f = features(st, ELIL)
    assert f["next_tokens_unseen"] == 5
    assert f["next_unseen_mean_strength"] == pytest.approx((2 + 1 + 1 + 1) / 4)  # not Bigwig
    assert f["own_tokens_unseen"] == 1    # the Dog; Woundwort is known
    assert f["own_unseen_mean_strength"] == 5
    # Woundwort reaches Heather Wood (1.25) and The Honeycomb (2 tokens at 1.25 + 1 for the
    # Down); the rabbits could attack The Beech Hanger from both
    assert f["own_attacks_available"] == 2 and f["own_tokens_threatened"] == 1
    assert f["own_best_attack_margin"] == pytest.approx(5 - 1.25)
    assert f["next_attacks_available"] == 1 and f["next_tokens_threatened"] == 3
    assert f["next_best_attack_margin"] == pytest.approx(1.25 + 1 - 5)
    # the front row: Bigwig seen on The Road at 4, Fiver's token at the mean
    assert f["next_strength_at_front"] == pytest.approx(4 + 1.25)
    # Clover unseen: she may be either token on the Down as far as the elil know
    assert f["doe_nearness"] == 1.0 and f["does_on_down"] == 0
    h = features(st, HLESSIL)             # the hlessil know where she is, and Bigwig
    assert h["doe_nearness"] == 1.0 and h["does_on_down"] == 1 and h["does_threatened"] == 1
    assert h["own_unseen_mean_strength"] == pytest.approx(1.25)
    assert h["own_best_attack_margin"] == pytest.approx(2 + 1 - 5)   # Hazel on the Down


def test_the_elils_entries_ignore_which_unseen_rabbit_is_which():
    st = unseen_rabbits()
    before = features(st, ELIL)
    swapped = st.copy()                   # Hazel and Fiver change tokens
    swapped[LOC + C["hazel"]], swapped[LOC + C["fiver"]] = HEATHER, HONEY
    assert features(swapped, ELIL) == before
    assert features(swapped, HLESSIL) != features(st, HLESSIL)


def test_a_doe_the_elil_cannot_place_counts_on_the_nearest_unplaced_token():
    st = position(ELIL, woundwort=EFRAFA, clover=NUTHANGER, hazel=SAND, fiver=TEST_WOODS)
    f, h = features(st, ELIL), features(st, HLESSIL)
    assert h["doe_nearness"] == pytest.approx(D ** 3)        # Nuthanger Farm: three moves
    assert f["doe_nearness"] == pytest.approx(D ** 2)        # Test Woods' token: two
    st[KNOWN + C["clover"]] = 1
    assert features(st, ELIL)["doe_nearness"] == pytest.approx(D ** 3)


# ---- the turn and the decision -------------------------------------------------------------

def test_the_turn_and_whose_decision():
    st = np.empty(STATE_SIZE, np.int32)
    rules.new_game(P, 2, st, chance())
    f = features(st, ELIL)
    assert (f["turns_played"], f["own_turn"], f["own_decision"], f["decision_is_setup"]) == (
        0, 1, 1, 1)
    assert all(f[f"{k}_to_join"] == 1 for k in ("holly", "strawberry", "clover", "hyzenthlay",
                                                "blackavar"))
    st = position(HLESSIL, hazel=SAND, woundwort=EFRAFA)
    st[TURN] = 30
    e, h = features(st, ELIL), features(st, HLESSIL)
    assert e["turns_played"] == 30 and e["turns_fraction_of_cap"] == pytest.approx(30 / 300)
    assert (e["own_turn"], e["own_decision"], h["own_turn"], h["own_decision"]) == (0, 0, 1, 1)


@pytest.mark.parametrize("phase,kind", [(P_MOVE, "move"), (P_DAND, "move"), (P_GROUP, "move"),
                                        (P_ESCAPE, "move"), (P_HOLLY, "move"),
                                        (P_QUESTION, "question"), (P_CARD, "card"),
                                        (P_RETREAT, "retreat"), (P_FLAME, "retreat")])
def test_the_kind_of_decision_is_one_of_five(phase, kind):
    st = position(HLESSIL, hazel=SAND, woundwort=EFRAFA)
    st[PHASE] = phase
    f = features(st, HLESSIL)
    kinds = ["setup", "move", "question", "card", "retreat"]
    assert [f[f"decision_is_{k}"] for k in kinds] == [float(k == kind) for k in kinds]


def test_a_finished_game_awaits_no_decision():
    st = position(HLESSIL, hazel=SAND, woundwort=EFRAFA)
    rules.win(st, HLESSIL, rules.E_WARREN)
    f = features(st, HLESSIL)
    assert f["own_decision"] == 0 and f["own_progress"] == 1.0
    assert sum(f[f"decision_is_{k}"] for k in ("setup", "move", "question", "card",
                                               "retreat")) == 0


# ---- a battle ------------------------------------------------------------------------------

def test_a_battle_from_both_seats():
    # Bigwig attacks Woundwort on The Beech Hanger (the Down: Bigwig 4 + 1)
    st = position(HLESSIL, bigwig=HEATHER, woundwort=BEECH, dog=BELT)
    f = features(st, HLESSIL)
    assert (f["in_battle"], f["own_battler_strength"]) == (0, 0)
    play(st, mv("bigwig", BEECH))
    assert st[PHASE] == P_CARD
    h = features(st, HLESSIL)
    assert (h["in_battle"], h["own_side_attacking"], h["decision_is_card"]) == (1, 1, 1)
    assert (h["own_battler_strength"], h["next_battler_strength"]) == (5, 5)
    assert (h["own_tokens_on_battle_space"], h["next_tokens_on_battle_space"]) == (1, 1)
    play(st, card(3))                     # the 4, face down
    h, e = features(st, HLESSIL), features(st, ELIL)
    assert (h["own_battle_card_value"], h["own_battle_card_is_text"]) == (4, 0)
    assert (e["next_battle_card_value"], e["next_battle_card_face_down"]) == (0, 1)
    assert (e["own_side_attacking"], e["own_battler_strength"], e["next_battler_strength"]) == (
        0, 5, 5)
    assert e["own_decision"] == 1 and e["own_turn"] == 0


def test_the_elils_card_face_up_before_fivers():
    # Woundwort attacks Fiver: the elil play first, face up (NOTES.md, Battles)
    st = position(ELIL, woundwort=BELT, fiver=BEECH, hazel=SAND)
    hand(st, ELIL, [5, 7])                # 6, Tracker
    play(st, mv("woundwort", BEECH))
    play(st, card(7))                     # Tracker, face up
    h = features(st, HLESSIL)
    assert st[CARD_E] == 7 and st[PHASE] == P_CARD
    assert (h["next_battle_card_value"], h["next_battle_card_is_text"],
            h["next_battle_card_face_down"]) == (0, 1, 0)
    assert h["own_battler_strength"] == 1 + 1 and h["elil_tracker_in_hand"] == 1
    st = position(ELIL, woundwort=BELT, fiver=BEECH, hazel=SAND)
    play(st, mv("woundwort", BEECH))
    play(st, card(5))                     # the 6
    assert features(st, HLESSIL)["next_battle_card_value"] == 6


# ---- the rest of the board -----------------------------------------------------------------

def test_joiners_ensnared_rabbit_efrafa_and_the_down():
    st = position(HLESSIL, hazel=NEAR_HIND, fiver=RIVER, holly=SAND, hyzenthlay=BEECH,
                  bigwig=BEECH, woundwort=HONEY, snare=BEECH, cat=BELT)
    status(st, clover=LOST, blackavar=DEFEATED)
    st[ENSNARED] = C["bigwig"]
    known(st)
    f = features(st, HLESSIL)
    assert [f[f"{k}_to_join"] for k in ("holly", "strawberry", "clover", "hyzenthlay",
                                        "blackavar")] == [0, 1, 0, 0, 0]
    assert f["rabbit_ensnared"] == 1
    assert f["rabbits_next_to_efrafa"] == 2
    assert (f["does_in_play"], f["does_lost"], f["does_on_down"]) == (1, 1, 1)
    assert f["does_threatened"] == 1     # Woundwort across the Down
    assert f["elil_down_spaces_held"] == 2 and f["kestrel_in_play"] == 0  # the busy Snare too
    # Hyzenthlay against the Cat on Caesar's Belt (against Woundwort on the Down, 3 - 5);
    # the ensnared Bigwig (4 + 1 against Woundwort's 5) does not attack
    assert f["own_best_attack_margin"] == 2 - 3
    assert f["own_attacks_available"] == 2


def test_characters_that_could_move():
    # the Dog in Sandleford has nowhere to go (NOTES.md, The board); the Fox and the Snare do
    st = position(ELIL, dog=SAND, fox=BELT, snare=RIVER, hazel=ROAD)
    assert features(st, ELIL)["own_characters_with_a_move"] == 2
    st[ENSNARED] = C["hazel"]             # a busy Snare (on Hazel's space, as it would be)
    st[LOC + C["snare"]] = ROAD
    rules.recount(st)
    assert features(st, ELIL)["own_characters_with_a_move"] == 1


def test_optional_cards_left():
    with_optional = params(**{"cards.optional": True})
    st = position(HLESSIL, params=with_optional, hazel=SAND, woundwort=EFRAFA)
    st[OPT_USED] = 0
    f = features(st, HLESSIL, with_optional)
    assert (f["own_optional_cards_left"], f["next_optional_cards_left"]) == (2, 2)
    st[OPT_USED] = 1 << (2 * HLESSIL)     # the hlessil's El-ahrairah played
    f = features(st, HLESSIL, with_optional)
    assert (f["own_optional_cards_left"], f["next_optional_cards_left"]) == (1, 2)


def test_the_hands_as_dealt():
    st = position(HLESSIL, hazel=SAND, woundwort=EFRAFA)
    f = features(st, ELIL)
    assert (f["own_cards_in_hand"], f["own_number_cards_total"], f["own_best_number_card"],
            f["own_text_cards_in_hand"]) == (9, 21, 6, 3)
    assert (f["next_cards_in_hand"], f["next_number_cards_total"], f["next_best_number_card"],
            f["next_text_cards_in_hand"]) == (9, 15, 5, 4)
    assert (f["hlessil_kehaar_in_hand"], f["hlessil_retreat_cards_in_hand"],
            f["elil_tracker_in_hand"], f["elil_flaming_stick_in_hand"],
            f["elil_retreat_cards_in_hand"]) == (1, 3, 1, 1, 1)


# ---- random games ---------------------------------------------------------------------------

def test_each_seats_progress_is_the_progress_kernels_on_random_games():
    """The hlessil see every rabbit and the elil's rows are public, and the elil's hunt
    counts statuses: so the hlessil's view of both sides' progress, and the elil's of their
    own, are ``progress``'s. (The elil's view of the warren is not: they cannot place every
    rabbit.)"""
    moves, ch, rng = np.empty(rules.MAX_MOVES, np.int32), chance(5), np.random.default_rng(5)
    items = np.zeros((2, len(rules.ITEM_COLUMNS)), np.int32)
    st = np.empty(STATE_SIZE, np.int32)
    progress = np.empty(2)
    checked = 0
    for _ in range(10):
        rules.new_game(P, 2, st, ch)
        while not rules.is_over(st) and rules.turn_number(st) < 300:
            rules.progress(P, st, progress)
            e, h = features(st, ELIL), features(st, HLESSIL)
            assert e["own_progress"] == h["next_progress"] == pytest.approx(progress[ELIL])
            assert h["own_progress"] == pytest.approx(progress[HLESSIL])
            checked += 1
            k = rules.legal_moves(P, st, moves)
            rules.apply_move(P, st, moves[rng.integers(k)], ch, items)
    assert checked > 300
