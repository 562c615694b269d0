"""The heuristic (v2) on hand-built positions: one test for each behaviour v2 added, each
also run with ``heuristic-v1`` (the same kernel with the v2 weights off), which chooses
otherwise. NOTES.md, Heuristic (v2)."""

import numpy as np

from simkit import registry
from simkit.games.watership_down import rules
from simkit.games.watership_down.state import (
    DECIDER,
    ELIL,
    HLESSIL,
    KNOWN,
    LOC,
    M_CHAR,
    P_CARD,
    P_SETUP,
    PHASE,
)

from .helpers import (
    BEECH,
    BELT,
    COWSLIP,
    ENBORNE,
    HAWTHORN,
    HEATHER,
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
    hand,
    legal,
    mv,
    play,
    position,
)
from .helpers import (
    EFRAFA as EFRAFA_,
)

STRATEGIES = registry.strategies_for("watership-down")


def choose(st, name="heuristic", seed=1, **weights):
    """The move strategy ``name`` picks for the seat to decide, from that seat's view."""
    spec = STRATEGIES[name]
    w = np.array([weights.get(k, v) for k, v in spec.weights.items()], np.float64)
    seat = int(st[DECIDER])
    obs = np.empty_like(st)
    rules.observe(P, st, seat, obs)
    moves = np.array(legal(st) + [0] * (rules.MAX_MOVES - len(legal(st))), np.int32)
    n = len(legal(st))
    k = spec.kernel(P, obs, seat, moves, n, w, np.array([seed], np.uint64))
    return int(moves[k])


def test_v1_is_the_same_kernel_with_the_v2_weights_off():
    new, old = STRATEGIES["heuristic"], STRATEGIES["heuristic-v1"]
    assert new.kernel is old.kernel and list(new.weights) == list(old.weights)
    for k in ("count_cards", "placement", "doe_safety", "e_deny", "e_deny_join", "e_budget"):
        assert old.weights[k] == 0.0


# ---- the cards are counted ---------------------------------------------------------------

def rats_attack_bigwig():
    """The Rats (2) attack Bigwig (4) on The Road; the hlessil choose their card first."""
    st = position(ELIL, rats=NUTHANGER, bigwig=ROAD, hazel=SAND)
    play(st, mv("rats", ROAD))
    assert st[PHASE] == P_CARD and st[DECIDER] == HLESSIL
    return st


def test_no_high_number_into_a_flaming_stick():
    # The elil hold nothing but the Flaming Stick: whatever the rabbit plays, he must
    # retreat. v1 throws its 5 after it (a fair fight by its estimate); v2 counts the
    # elil's hand and gives up its cheapest card, the 1.
    st = rats_attack_bigwig()
    hand(st, ELIL, [8])                       # elil cards: 1..6, retreat, tracker, stick
    assert choose(st) == card(0)
    assert choose(st, "heuristic-v1") == card(4)
    assert choose(st, count_cards=0.0) == card(4)


def test_the_smallest_number_that_surely_wins():
    # The elil hold only their 1 and 2: Bigwig 4 + 1 beats Rats 2 + 2. v1 plays its 5.
    st = rats_attack_bigwig()
    hand(st, ELIL, [0, 1])
    assert choose(st) == card(0)
    assert choose(st, "heuristic-v1") == card(4)


def test_elil_keep_their_six_when_the_rabbits_hold_only_a_one():
    # Woundwort (5) attacks Buckthorn (3), whose hand is down to the 1: any elil number
    # wins. v1 plays the 6; v2 the 1.
    st = position(ELIL, woundwort=NUTHANGER, buckthorn=ROAD, hazel=SAND)
    play(st, mv("woundwort", ROAD))
    hand(st, HLESSIL, [0])
    play(st, card(0))                         # face down: the elil see only the hand
    assert st[PHASE] == P_CARD and st[DECIDER] == ELIL
    assert choose(st) == card(0)
    assert choose(st, "heuristic-v1") == card(5)


# ---- the rabbits are placed ---------------------------------------------------------------

def hlessil_setup(name, seed):
    """Play both setups, the hlessil's with strategy ``name``; where each rabbit starts."""
    st = np.empty(rules.STATE_SIZE, np.int32)
    rules.new_game(P, 2, st, chance())
    for c in ("dog", "vervain", "kestrel", "campion", "cat"):
        play(st, M_CHAR + C[c])
    while st[PHASE] == P_SETUP:
        play(st, choose(st, name, seed=seed))
    return {n: int(st[LOC + c]) for n, c in C.items() if c < 9}


def test_rabbits_are_placed_by_their_gifts():
    # Bigwig on The Road (the step before Clover's farm), Silver and Buckthorn on the
    # second row, Dandelion on the first, Hazel, Fiver and Pipkin at home together.
    # v1 placed them at random.
    for seed in range(1, 6):
        at = hlessil_setup("heuristic", seed)
        assert at["bigwig"] == ROAD
        assert at["hazel"] == at["fiver"] == at["pipkin"] == SAND
        assert {at["silver"], at["buckthorn"]} == {3, 4}
        assert at["dandelion"] in (1, 2)
    old = [hlessil_setup("heuristic-v1", seed) for seed in range(1, 6)]
    assert any(at["bigwig"] != ROAD or at["hazel"] != SAND for at in old)


# ---- Clover is kept out of the elil's reach ----------------------------------------------

def test_clover_does_not_walk_next_to_woundwort():
    # Clover on Nuthanger Farm can only step to Test Woods, beside Woundwort (seen on
    # Hawthorn Wood; he may attack sideways) and in reach of the Kestrel. The other move
    # takes Buckthorn off the Beech Hanger. v1 walks Clover in; v2 gives up the Down space.
    st = position(HLESSIL, clover=NUTHANGER, buckthorn=BEECH, woundwort=HAWTHORN,
                  kestrel=EFRAFA_, dog=EFRAFA_, fox=RIVER)
    st[KNOWN + C["woundwort"]] = 1
    st[KNOWN + C["kestrel"]] = 1
    assert choose(st, "heuristic-v1") == mv("clover", TEST_WOODS)
    assert choose(st) // 16 == C["buckthorn"]
    assert choose(st, doe_safety=0.0) == mv("clover", TEST_WOODS)


# ---- the elil deny Hyzenthlay the Down, and budget their forward moves --------------------

def test_elil_fill_the_empty_down_space_while_hyzenthlay_waits():
    # Hyzenthlay appears where the first escape from Efrafa lands, and it cannot land on
    # elil. Vervain holds the Beech Hanger; the Rats can fill the Honeycomb. v1 rather
    # brings Woundwort next to Hazel on Cowslip's Warren; v2 closes the Down.
    st = position(ELIL, vervain=BEECH, rats=HAWTHORN, woundwort=NEAR_HIND, hazel=COWSLIP,
                  fiver=SAND)
    assert choose(st, "heuristic-v1") == mv("woundwort", BELT)
    assert choose(st) == mv("rats", HONEY)
    assert choose(st, e_deny=0.0) == mv("woundwort", BELT)


def test_elil_do_not_strand_a_character_in_sandleford():
    # Three elil with eight forward moves between them. v1 sends the Dog from The Enborne
    # into Sandleford, where it can never move again; v2 spends a move of Woundwort's,
    # who has most to spare.
    st = position(ELIL, dog=ENBORNE, woundwort=EFRAFA_, cat=EFRAFA_, hazel=HEATHER)
    assert choose(st, "heuristic-v1") == mv("dog", SAND)
    assert choose(st) // 16 == C["woundwort"]
    assert choose(st, e_budget=0.0) == mv("dog", SAND)
