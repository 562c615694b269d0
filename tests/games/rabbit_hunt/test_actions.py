"""The two actions of a turn: draw, take a carrot, move the farmer (1 / 2 / 3 carrots), and
look at a hand (rulebook: Take Two Actions; NOTES.md: Moving and revealing, Actions)."""

import pytest
from rh_table import E, Table

from simkit.games.rabbit_hunt import state as S

STRIP = [(2, -1), (2, 0), (3, -1), (3, 0), (4, -1), (4, 0), (5, -1), (5, 0)]


def strip_table(n=2, **over):
    """Every setup card turned up empty, plus a strip of empty face-up cards eastwards:
    (k, 0) lies k steps from the warehouse."""
    t = Table(n, **over)
    t.strip_ring()
    t.chain([t.cell(q, r) for q, r in STRIP])
    t.to_actions(0)
    t.check()
    return t


def move_targets(t):
    return {m & 0xFFFF for m in t.legal() if m >> 16 == S.M_MOVE}


def test_draw_action():
    t = Table(2)
    t.to_actions(0)
    top = t.pile()[-1]
    n = t[S.PILE_LEN]
    before = t.hand(0, top)
    t.apply(E(S.M_DRAW, 0))
    assert t.hand(0, top) == before + 1
    assert t[S.PILE_LEN] == n - 1
    assert t[S.ACTIONS_LEFT] == 1 and t[S.TURN_SEAT] == 0
    assert t.items[0, top * 3 + S.IT_DRAWN] == 1
    t.check()


def test_same_action_twice_then_the_turn_passes():
    t = Table(3)
    t.to_actions(0)
    t.apply(E(S.M_DRAW, 0))
    t.apply(E(S.M_DRAW, 0))
    assert t.farmland_in_hand(0) == 7
    assert t[S.TURN_SEAT] == 1 and t[S.TO_MOVE] == 1 and t[S.PHASE] == S.PH_PLACE
    assert t[S.ACTIONS_LEFT] == 2 and t[S.TURNS] == 1
    t.check()


def test_turn_order_wraps_round():
    t = Table(3)
    t.to_actions(2)
    t.apply(E(S.M_CARROT, 0))
    t.apply(E(S.M_CARROT, 0))
    assert t[S.TURN_SEAT] == 0


def test_carrot_action_and_the_cap():
    t = Table(2)
    t.to_actions(0)
    t.apply(E(S.M_CARROT, 0))
    assert t.carrots(0) == 3 and t[S.SUPPLY] == 24 - 5
    t.set_carrots(0, 6)
    supply = t[S.SUPPLY]
    assert E(S.M_CARROT, 0) in t.legal()  # allowed, ignored
    t.apply(E(S.M_CARROT, 0))
    assert t.carrots(0) == 6 and t[S.SUPPLY] == supply
    assert t[S.TURN_SEAT] == 1  # it still used the action
    t.check()


@pytest.mark.parametrize("target, cost", [((1, 0), 1), ((2, 0), 2), ((2, -1), 2),
                                          ((3, 0), 2), ((4, 0), 3), ((5, -1), 3),
                                          ((-1, 0), 1)])
def test_move_costs(target, cost):
    t = strip_table()
    t.set_carrots(0, 6)
    c = t.cell(*target)
    supply = t[S.SUPPLY]
    t.apply(E(S.M_MOVE, c))
    assert t.farmer(0) == c
    assert t.carrots(0) == 6 - cost and t[S.SUPPLY] == supply + cost
    assert t[S.ACTIONS_LEFT] == 1
    t.check()


U_SHAPE = [(2, 0), (3, -1), (4, -2), (4, -3), (3, -3)]


def test_steps_are_counted_over_cards_not_across_gaps():
    """(3,-3) is three hex steps from the warehouse, but with (2,-2) and (3,-2) empty the
    only way runs round a U of cards: 6 steps, so it costs 3 carrots, not 2."""
    t = Table(2)
    t.strip_ring()
    t.chain([t.cell(q, r) for q, r in U_SHAPE])
    t.to_actions(0)
    far, near = t.cell(3, -3), t.cell(3, -1)
    assert t.steps(t.center, far) == 6 and t.steps(t.center, near) == 3
    t.set_carrots(0, 2)
    assert near in move_targets(t) and far not in move_targets(t)
    t.set_carrots(0, 3)
    t.apply(E(S.M_MOVE, far))
    assert t.carrots(0) == 0 and t.farmer(0) == far
    t.check()


@pytest.mark.parametrize("carrots, reach", [(0, 0), (1, 1), (2, 3), (3, 99), (6, 99)])
def test_a_move_needs_the_carrots(carrots, reach):
    t = strip_table()
    t.set_carrots(0, carrots)
    cards = [c for c in t.cards_on_table() if c != t.center]
    expected = {c for c in cards if t.steps(t.center, c) <= reach}
    assert move_targets(t) == expected
    assert t.center not in move_targets(t)  # never where the farmer stands


def test_six_carrots_move_twice_anywhere():
    t = strip_table()
    t.set_carrots(0, 6)
    t.apply(E(S.M_MOVE, t.cell(5, 0)))
    assert t.carrots(0) == 3
    assert t.cell(-1, 0) in move_targets(t)
    t.apply(E(S.M_MOVE, t.cell(-1, 0)))
    assert t.carrots(0) == 0 and t.farmer(0) == t.cell(-1, 0)
    assert t[S.TURN_SEAT] == 1
    t.check()


def test_moving_onto_the_warehouse_does_nothing():
    t = strip_table()
    t[S.FARMER + 0] = t.cell(1, 0)
    t.set_carrots(0, 1)
    assert t.center in move_targets(t)
    before = t.st.copy()
    t.apply(E(S.M_MOVE, t.center))
    assert t.farmer(0) == t.center and t.carrots(0) == 0
    assert t.card(t.center) == S.WAREHOUSE and t[S.PHASE] == S.PH_ACTION
    assert (t.st[S.CELLS:] == before[S.CELLS:]).all()
    t.check()


def test_moving_onto_a_face_up_card_does_nothing():
    t = strip_table()
    c = t.cell(1, 0)
    t.lay(c, S.CARROT_2, up=1, seen=15)
    t.set_carrots(0, 1)
    t.apply(E(S.M_MOVE, c))
    assert t.carrots(0) == 0  # no second carrot event
    assert t.items[0].sum() == 0
    t.check()


def test_only_the_destination_is_revealed():
    t = strip_table()
    path = [t.cell(1, 0), t.cell(2, 0), t.cell(2, -1), t.cell(1, -1)]
    for c in path:
        t.lay(c, S.DRAW_1)
    dest = t.cell(3, 0)
    t.lay(dest, S.CARROT_1)
    t.set_carrots(0, 2)
    t.apply(E(S.M_MOVE, dest))
    assert t.up(dest) == 1 and t.seen(dest) == 15
    assert t.carrots(0) == 1  # paid 2, then the event's carrot
    for c in path:
        assert t.up(c) == 0 and t.seen(c) == 0
    assert t.farmland_in_hand(0) == 5
    assert t.items[0, S.CARROT_1 * 3 + S.IT_TRIGGERED] == 1
    t.check()


def test_a_revealed_card_stays_face_up_and_its_event_happens_once():
    t = strip_table()
    c = t.cell(1, 0)
    t.lay(c, S.CARROT_2)
    t.set_carrots(0, 2)
    t.apply(E(S.M_MOVE, c))
    assert t.carrots(0) == 3 and t.up(c) == 1 and t.card(c) == S.CARROT_2
    t.apply(E(S.M_MOVE, t.center))
    t.to_actions(0)
    t.apply(E(S.M_MOVE, c))
    assert t.carrots(0) == 1
    t.check()


# ------------------------------------------------------------------ looking at a hand
def look_table():
    t = Table(3)
    t.to_actions(0)
    t.set_carrots(0, 4)
    t.set_hand(1, {S.EMPTY: 2, S.DRAW_2: 1, S.PEEK: 1})
    t.set_pile([S.CARROT_1] * 10 + [S.TURN_ENDS, S.SHOW, S.MOVE_ANY])
    t.check()
    return t


def test_look_needs_three_carrots_and_a_live_player():
    t = look_table()
    looks = {m & 0xFFFF for m in t.legal() if m >> 16 == S.M_LOOK}
    assert looks == {1, 2}
    t[S.ELIMINATED + 2] = 1
    t[S.FARMER + 2] = -1
    looks = {m & 0xFFFF for m in t.legal() if m >> 16 == S.M_LOOK}
    assert looks == {1}
    t[S.ELIMINATED + 2] = 0
    t[S.FARMER + 2] = t.center
    t.set_carrots(0, 2)
    assert not [m for m in t.legal() if m >> 16 == S.M_LOOK]


def test_look_at_a_hand_the_looked_at_seat_returns_cards_and_redraws():
    t = look_table()
    t.apply(E(S.M_LOOK, 1))
    assert t.carrots(0) == 1 and t[S.SUPPLY] == 24 - 1 - 4
    assert t[S.ACTIONS_LEFT] == 1  # one action
    assert t[S.PHASE] == S.PH_RETURN and t[S.TO_MOVE] == 1 and t[S.TURN_SEAT] == 0
    g = t.group(0, 1)  # P1 saw it: knows it exactly
    assert (g.places, g.unknown, g.known) == (0, 0, t.hand_kinds(1))
    obs = t.observe(0)
    assert (obs[S.HAND + S.N_KINDS:S.HAND + 2 * S.N_KINDS] == t.hand(1)).all()
    assert (t.observe(2)[S.HAND + S.N_KINDS:S.HAND + 2 * S.N_KINDS] == -2).all()
    # bunnies cannot go back; every farmland kind in hand can, or stop
    assert sorted(t.legal()) == sorted([E(S.M_RETURN, S.EMPTY), E(S.M_RETURN, S.DRAW_2),
                                        E(S.M_RETURN, S.PEEK), E(S.M_DONE, 0)])
    t.apply(E(S.M_RETURN, S.DRAW_2))
    t.apply(E(S.M_RETURN, S.EMPTY))
    assert t.pile()[:2] == [S.EMPTY, S.DRAW_2]  # at the bottom
    assert t[S.TO_MOVE] == 1 and t[S.PHASE] == S.PH_RETURN
    t.check()
    t.apply(E(S.M_DONE, 0))
    # redrew as many from the top
    assert t.hand(1, S.MOVE_ANY) == 1 and t.hand(1, S.SHOW) == 1
    assert t.hand(1, S.DRAW_2) == 0 and t.hand(1, S.EMPTY) == 1 and t.hand(1, S.PEEK) == 1
    assert t.hand(1, S.BUNNY) == 3
    assert t[S.PILE_LEN] == 13 and t.pile()[-1] == S.TURN_ENDS
    assert t.items[1, S.MOVE_ANY * 3 + S.IT_DRAWN] == 1  # the redraw counts as drawing
    assert t.items[1, S.SHOW * 3 + S.IT_DRAWN] == 1 and t.items[0].sum() == 0
    # back to the looker's turn
    assert t[S.TO_MOVE] == 0 and t[S.PHASE] == S.PH_ACTION and t[S.ACTIONS_LEFT] == 1
    # the hand changed: P1 no longer knows it
    assert (t.observe(0)[S.HAND + S.N_KINDS:S.HAND + 2 * S.N_KINDS] == -2).all()
    t.check()


def test_look_returning_nothing_keeps_the_hand_known():
    t = look_table()
    t.set_carrots(0, 6)
    hand = t.hand(1)
    t.apply(E(S.M_LOOK, 1))
    t.apply(E(S.M_DONE, 0))
    assert (t.hand(1) == hand).all()
    assert (t.observe(0)[S.HAND + S.N_KINDS:S.HAND + 2 * S.N_KINDS] == hand).all()
    t.apply(E(S.M_LOOK, 2))  # six carrots: two hands
    assert t[S.TO_MOVE] == 2
    t.apply(E(S.M_DONE, 0))
    assert t.carrots(0) == 0 and t[S.TURN_SEAT] == 1
    t.check()


def test_look_with_only_bunnies_in_hand_offers_only_done():
    t = look_table()
    t.set_hand(1, {})
    t.apply(E(S.M_LOOK, 1))
    assert t.legal() == [E(S.M_DONE, 0)]
