"""Scenario tests for the heuristic's v2 behaviours (issue 16), on hand-built states: partial
credit for missions on the way, and denying the next player the die or card it most needs.
Each position is built so that the first heuristic (``heuristic-v1``) plays it otherwise,
and so does the new kernel with the behaviour's weight at 0."""

import sys
from pathlib import Path

import numpy as np

from simkit.games.dolina_krolikow import rules as R
from simkit.games.dolina_krolikow import state as S
from simkit.registry import strategies_for

sys.path.insert(0, str(Path(__file__).parent))
from test_dolina_rules import (  # noqa: E402
    BLUE,
    GREEN,
    ORANGE,
    Table,
    card,
    face,
    forest,
    give_forest,
    house,
)

STRATEGIES = strategies_for("dolina-krolikow")
V2, V1 = STRATEGIES["heuristic"], STRATEGIES["heuristic-v1"]


def weights(spec, **changed):
    w = {**spec.weights, **changed}
    return np.array([w[k] for k in spec.weights], np.float64)


def choice(t, spec, **changed):
    """The move ``spec`` (its weights, with ``changed``) makes for the seat to move."""
    seat = t[S.ACTOR]
    obs = np.empty_like(t.state)
    R.observe(t.params, t.state, seat, obs)
    moves = np.array(t.moves(), np.int32)
    k = spec.kernel(t.params, obs, seat, moves, len(moves), weights(spec, **changed),
                    np.array([1], np.uint64))
    return int(moves[k])


def clear_table(t, keep=()):
    """Every rabbit on the table but those at the positions in ``keep`` back into the deck."""
    for pos in range(8):
        c = t[S.POS_CARD + pos]
        if pos in keep or c < 0:
            continue
        t[S.DECK + t[S.DECK_N]] = c
        t[S.DECK_N] += 1
        t[S.CARD_LOC + c] = S.LOC_DECK
        t[S.POS_CARD + pos] = -1


def dice_left(t, *faces):
    """Dice 0.. show ``faces`` and lie on the table; the others are taken (in the Garden)."""
    for d in range(9):
        if d < len(faces):
            t[S.DIE_FACE + d] = faces[d]
            t[S.DIE_USE + d] = -1
        else:
            t[S.DIE_FACE + d] = face(d // 3, 6)
            t[S.DIE_USE + d] = S.USE_GARDEN


# --- partial credit for missions -------------------------------------------------------------
def to_place(t, seat, c):
    t.take_out(c)
    t[S.PEND_N], t[S.PEND_I] = 1, 0
    t[S.PEND_SEAT], t[S.PEND_CARD] = seat, c
    t[S.CARD_LOC + c] = S.LOC_PENDING
    t[S.PHASE], t[S.ACTOR] = S.PH_PLACE, seat


def test_a_rabbit_goes_where_it_brings_a_mission_closer():
    """Both Houses become a two-rabbit Family either way (the same points now); House 1's
    'has brown 3' is one rabbit nearer with a brown Small in it, House 0's 'has white 3' is
    not. v1 sees no difference until a mission is complete and takes the first House."""
    t = Table(2)
    t.to_picks()
    t.set_houses(1, [])  # seat 1 may hold the cards wanted
    give_forest(t, 0, forest("total spotted 6"))  # no white or brown rabbit changes it
    t.set_houses(0, [house("has white 3"), house("has brown 3")])
    t.house_rabbit(0, 0, card("Large white: O O"))
    t.house_rabbit(0, 1, card("Large brown: G G"))
    to_place(t, 0, card("Small brown: O"))
    assert sorted(t.moves()) == [R.HOUSE, R.HOUSE + 1]
    assert choice(t, V2) == R.HOUSE + 1
    assert choice(t, V2, mission=0.0) == R.HOUSE
    assert choice(t, V1) == R.HOUSE


def test_a_rabbit_stays_out_of_a_house_whose_mission_it_would_spoil():
    """A white Small in House 0 ('only brown', a brown Large in it) would make that mission
    impossible; House 1 ('has spotted 3', a white Large) loses nothing by it."""
    t = Table(2)
    t.to_picks()
    t.set_houses(1, [])  # seat 1 may hold the cards wanted
    give_forest(t, 0, forest("total spotted 6"))  # no white or brown rabbit changes it
    t.set_houses(0, [house("only brown"), house("has spotted 3")])
    t.house_rabbit(0, 0, card("Large brown: G G"))
    t.house_rabbit(0, 1, card("Large white: O O"))
    to_place(t, 0, card("Small white: O"))
    assert choice(t, V2) == R.HOUSE + 1
    assert choice(t, V2, mission=0.0) == R.HOUSE
    assert choice(t, V1) == R.HOUSE


def test_no_credit_for_a_mission_that_cannot_be_finished_in_the_picks_left():
    """The same placement as above in the last round: no pick is left to finish either
    mission, so only the points now count and the two Houses are alike."""
    t = Table(2)
    t.to_picks()
    t.set_houses(1, [])  # seat 1 may hold the cards wanted
    give_forest(t, 0, forest("total spotted 6"))  # no white or brown rabbit changes it
    t.set_houses(0, [house("has white 3"), house("has brown 3")])
    t.house_rabbit(0, 0, card("Large white: O O"))
    t.house_rabbit(0, 1, card("Large brown: G G"))
    to_place(t, 0, card("Small brown: O"))
    t[S.ROUND] = t.params[0][R.C_ROUNDS] - 1
    assert choice(t, V2) == R.HOUSE


def test_a_die_goes_on_the_rabbit_that_brings_a_mission_closer():
    """At the pick: an orange 6 can take a white or a brown Small rabbit ('O' both), each
    making a two-rabbit Family with the lone Large in a House, the same points. Only the
    brown one brings 'has brown 3' nearer; v1 takes the first card."""
    t = Table(2)
    t.to_picks()
    t.set_houses(1, [])
    give_forest(t, 0, forest("total spotted 6"))
    t.set_houses(0, [house("has brown 3")])
    t.house_rabbit(0, 0, card("Large brown: G G"))
    t.put(0, card("Small white: O"))
    t.put(1, card("Small brown: O"))
    clear_table(t, keep=(0, 1))
    dice_left(t, face(ORANGE, 6))
    t.give_tokens(0, 0, 0, 0)
    white, brown = t.place_move(0, 0, face(ORANGE, 6)), t.place_move(0, 1, face(ORANGE, 6))
    assert sorted(t.moves()) == [R.RES, white, brown]
    assert choice(t, V2) == brown
    assert choice(t, V2, mission=0.0) == white
    assert choice(t, V1) == white


# --- denial ------------------------------------------------------------------------------------
def seat0_picks_before_seat1(t):
    """Seat 0's second pick of the round (seat 1 picks next)."""
    t[S.STEP], t[S.ACTOR], t[S.PICKER] = 2, 0, 0
    assert t[S.FIRST] == 0


def test_take_the_only_die_that_finishes_the_opponents_large_rabbit():
    """Seat 1 has started 'Large brown: G G' with a green die and, without tokens, only the
    green 5 left on the table finishes it. Seat 0 can use no card and takes a die for
    resources: the green 5 gives it a little less than the orange or blue 6 (1.14 against
    1.23) but costs seat 1 its rabbit and the die it spent."""
    t = Table(2)
    t.to_picks()
    seat0_picks_before_seat1(t)
    started = card("Large brown: G G")
    t.put(0, started)
    clear_table(t, keep=(0,))
    dice_left(t, face(ORANGE, 6), face(GREEN, 5), face(BLUE, 6), face(GREEN, 3))
    t[S.DIE_USE + 3] = 0  # seat 1's green 3 on the card
    t[S.POS_OWNER], t[S.POS_D1] = 1, face(GREEN, 3)
    t.give_tokens(0, 0, 0, 0)
    t.give_tokens(1, 0, 0, 0)
    assert sorted(t.moves()) == [R.RES, R.RES + 1, R.RES + 2]
    assert choice(t, V2) == R.RES + 1
    assert choice(t, V2, deny=0.0) == R.RES
    assert choice(t, V1) == R.RES


def test_take_the_card_with_the_die_the_opponent_needs_for_the_other():
    """Two Small white rabbits, worth the same to seat 0: 'O' (an orange die) and '*6' (six
    pips). Dice: an orange 6 and a green 6. Whichever card seat 0 takes with the die that
    fits it, seat 1 takes the other with the other die, except when seat 0 puts the orange
    6 on the '*6' card: the green 6 then fits nothing. v1 takes the first of the equal
    moves (the orange 6 on 'O')."""
    t = Table(2)
    t.to_picks()
    seat0_picks_before_seat1(t)
    t.put(0, card("Small white: O"))
    t.put(1, card("Small white: *6"))
    clear_table(t, keep=(0, 1))
    dice_left(t, face(ORANGE, 6), face(GREEN, 6))
    t.give_tokens(0, 0, 0, 0)
    t.give_tokens(1, 0, 0, 0)
    block = t.place_move(0, 1, face(ORANGE, 6))
    first = t.place_move(0, 0, face(ORANGE, 6))
    assert {first, block, t.place_move(1, 1, face(GREEN, 6))} <= set(t.moves())
    assert choice(t, V2) == block
    assert choice(t, V2, deny=0.0) == first
    assert choice(t, V1) == first


def test_no_denial_at_the_last_pick_of_the_round():
    """The same position at the round's last pick (seat 1's): nobody picks after it, so
    there is nothing to deny and the first of the equal moves is taken."""
    t = Table(2)
    t.to_picks()
    t[S.STEP], t[S.ACTOR], t[S.PICKER] = 5, 1, 1  # seat 1 picks last (first player 0)
    t.put(0, card("Small white: O"))
    t.put(1, card("Small white: *6"))
    clear_table(t, keep=(0, 1))
    dice_left(t, face(ORANGE, 6), face(GREEN, 6))
    t.give_tokens(0, 0, 0, 0)
    t.give_tokens(1, 0, 0, 0)
    assert choice(t, V2) == t.place_move(0, 0, face(ORANGE, 6))
