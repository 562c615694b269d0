"""The 14 farmland events, each turned up by a move onto a face-down card (rulebook:
Events of Farmland Cards; NOTES.md: Events)."""

import pytest
from rh_table import E, Table

from simkit.games.rabbit_hunt import state as S

HIDDEN = -2


def event_table(kind, n=2, carrots=1, **over):
    """P1's action phase, every setup card face up and empty, ``kind`` face down on (1,0)
    one step from P1's farmer; returns (table, that cell)."""
    t = Table(n, **over)
    t.strip_ring()
    c = t.cell(1, 0)
    t.lay(c, kind)
    t.to_actions(0)
    t.set_carrots(0, carrots)
    t.check()
    return t, c


def turn_up(t, c):
    t.apply(E(S.M_MOVE, c))
    assert t.up(c) == 1 and t.seen(c) == 15
    t.check()


def test_every_event_kind_is_counted_as_triggered():
    for kind in range(S.N_FARMLAND):
        t, c = event_table(kind)
        turn_up(t, c)
        assert t.items[0, kind * 3 + S.IT_TRIGGERED] == 1
        assert t.items[:, 2::3][:, :14].sum() == 1


def test_empty_farmland():
    t, c = event_table(S.EMPTY)
    before = t.st.copy()
    turn_up(t, c)
    assert t.carrots(0) == 0 and t.farmland_in_hand(0) == 5
    assert t[S.PHASE] == S.PH_ACTION and t[S.ACTIONS_LEFT] == 1
    assert (t.st[S.HAND:S.CELLS] == before[S.HAND:S.CELLS]).all()


@pytest.mark.parametrize("kind, carrots, after", [
    (S.CARROT_1, 1, 1), (S.CARROT_2, 1, 2),
    (S.CARROT_1, 6, 6), (S.CARROT_2, 6, 6), (S.CARROT_2, 5, 6)])
def test_carrot_events_and_the_cap(kind, carrots, after):
    t, c = event_table(kind, carrots=carrots)
    turn_up(t, c)
    assert t.carrots(0) == after  # paid 1 for the step first
    assert t[S.PHASE] == S.PH_ACTION and t[S.ACTIONS_LEFT] == 1


@pytest.mark.parametrize("kind, cap", [(S.CARROT_1, 6), (S.CARROT_2, 6)])
def test_carrot_event_at_the_cap_is_ignored(kind, cap):
    """A free step (costs.move_1_step=0) onto a carrot card while holding 6."""
    t, c = event_table(kind, carrots=6, **{"costs.move_1_step": 0})
    supply = t[S.SUPPLY]
    turn_up(t, c)
    assert t.carrots(0) == cap and t[S.SUPPLY] == supply


@pytest.mark.parametrize("kind, k", [(S.DRAW_1, 1), (S.DRAW_2, 2)])
def test_draw_events(kind, k):
    t, c = event_table(kind)
    t.set_hand(0, {S.EMPTY: 5})
    t.set_pile([S.EMPTY] * 5 + [S.PEEK, S.SHOW])
    turn_up(t, c)
    assert t.farmland_in_hand(0) == 5 + k
    assert t.hand(0, S.SHOW) == 1 and t.hand(0, S.PEEK) == (k == 2)
    assert t[S.PILE_LEN] == 7 - k
    assert t.items[0, S.SHOW * 3 + S.IT_DRAWN] == 1
    assert t[S.END] == S.RUNNING


def test_draw_two_ends_the_game_when_the_first_empties_the_pile():
    t, c = event_table(S.DRAW_2)
    t.set_pile([S.SHOW])
    turn_up(t, c)
    assert t[S.PILE_LEN] == 0 and t[S.END] == S.PILE_EMPTY
    assert t.farmland_in_hand(0) == 6
    assert t.finish()[0] == S.PILE_EMPTY


def test_draw_two_with_two_cards_left_ends_the_game():
    t, c = event_table(S.DRAW_2)
    t.set_pile([S.SHOW, S.PEEK])
    turn_up(t, c)
    assert t[S.PILE_LEN] == 0 and t[S.END] == S.PILE_EMPTY
    assert t.farmland_in_hand(0) == 7


def test_move_one_step_is_a_decision_and_chains():
    t, c = event_table(S.STEP_1)
    nxt = t.cell(2, -1)
    t.chain([t.cell(2, 0)])
    t.lay(nxt, S.STEP_1)
    last = t.cell(2, 0)
    t.lay(last, S.CARROT_2)
    t.check()
    turn_up(t, c)
    assert t[S.PHASE] == S.PH_STEP and t[S.TO_MOVE] == 0
    # a step to any neighbouring card of (1,0), the warehouse included; no carrots paid
    nbs = {nb for nb in t.neighbours(c) if t.card(nb) != S.NO_CARD}
    assert {m & 0xFFFF for m in t.legal()} == nbs and t.center in nbs
    assert all(m >> 16 == S.M_STEP for m in t.legal())
    t.apply(E(S.M_STEP, nxt))
    assert t.farmer(0) == nxt and t.up(nxt) == 1
    assert t[S.PHASE] == S.PH_STEP  # the second step card chains
    t.apply(E(S.M_STEP, last))
    assert t.farmer(0) == last and t.up(last) == 1 and t.carrots(0) == 2
    assert t[S.PHASE] == S.PH_ACTION and t[S.ACTIONS_LEFT] == 1 and t[S.TURN_SEAT] == 0
    t.check()


def test_move_one_step_as_the_last_action_ends_the_turn_after_the_step():
    t, c = event_table(S.STEP_1)
    t[S.ACTIONS_LEFT] = 1
    turn_up(t, c)
    assert t[S.PHASE] == S.PH_STEP and t[S.TO_MOVE] == 0 and t[S.TURN_SEAT] == 0
    t.apply(E(S.M_STEP, t.center))
    assert t[S.TURN_SEAT] == 1 and t.farmer(0) == t.center


def test_move_one_step_onto_a_bunny_catches_it():
    t, c = event_table(S.STEP_1)
    b = t.cell(1, -1)
    t.lay(b, S.BUNNY + 1, seen=2, placer=1)
    turn_up(t, c)
    t.apply(E(S.M_STEP, b))
    assert t[S.CAUGHT + 0] == 1 and t[S.LOST + 1] == 1
    t.check()


def test_move_any_farmer_choices():
    t, c = event_table(S.MOVE_ANY, n=3)
    t[S.FARMER + 2] = t.cell(-1, 0)
    turn_up(t, c)
    assert t[S.PHASE] == S.PH_MOVE_ANY and t[S.TO_MOVE] == 0
    cards = [x for x in t.cards_on_table() if x != t.center]
    expected = {E(S.M_MOVE_ANY, who * 256 + x) for who in range(3) for x in cards
                if x != t.farmer(who)}
    assert set(t.legal()) == expected and len(t.legal()) == len(expected)


def test_move_any_own_farmer_reveals():
    t, c = event_table(S.MOVE_ANY)
    far = t.cell(-1, 1)
    t.lay(far, S.CARROT_2)
    turn_up(t, c)
    t.apply(E(S.M_MOVE_ANY, 0 * 256 + far))
    assert t.farmer(0) == far and t.up(far) == 1 and t.carrots(0) == 2
    assert t[S.PHASE] == S.PH_ACTION and t[S.ACTIONS_LEFT] == 1
    t.check()


def test_move_any_own_farmer_without_reveal_switch():
    t, c = event_table(S.MOVE_ANY, move_any_reveals_own=False)
    far = t.cell(-1, 1)
    t.lay(far, S.CARROT_2)
    turn_up(t, c)
    t.apply(E(S.M_MOVE_ANY, 0 * 256 + far))
    assert t.farmer(0) == far and t.up(far) == 0 and t.carrots(0) == 0
    t.check()


def test_move_any_other_farmer_does_not_reveal():
    t, c = event_table(S.MOVE_ANY)
    far = t.cell(-1, 1)
    t.lay(far, S.BUNNY + 0, seen=1, placer=0)
    turn_up(t, c)
    t.apply(E(S.M_MOVE_ANY, 1 * 256 + far))
    assert t.farmer(1) == far and t.card(far) == S.BUNNY + 0 and t.seen(far) == 1
    assert t[S.CAUGHT + 1] == 0
    assert t[S.PHASE] == S.PH_ACTION and t[S.TO_MOVE] == 0
    t.check()


@pytest.mark.parametrize("who", [0, 1])
def test_farmer_to_warehouse(who):
    t, c = event_table(S.TO_WAREHOUSE, n=3)
    t[S.FARMER + 1] = t.cell(0, 1)
    t[S.ELIMINATED + 2] = 1
    t[S.FARMER + 2] = -1
    turn_up(t, c)
    assert t[S.PHASE] == S.PH_TO_WAREHOUSE
    assert sorted(t.legal()) == [E(S.M_TO_HOME, 0), E(S.M_TO_HOME, 1)]
    t.apply(E(S.M_TO_HOME, who))
    assert t.farmer(who) == t.center
    assert t.farmer(1 - who) == (c if who == 1 else t.cell(0, 1))
    assert t[S.PHASE] == S.PH_ACTION and t[S.ACTIONS_LEFT] == 1


def test_peek():
    t, c = event_table(S.PEEK)
    hidden = [t.cell(-1, 1), t.cell(0, -1)]
    t.lay(hidden[0], S.BUNNY + 1, seen=2, placer=1)
    t.lay(hidden[1], S.TURN_ENDS)
    turn_up(t, c)
    assert t[S.PHASE] == S.PH_PEEK and t[S.TO_MOVE] == 0
    assert sorted(m & 0xFFFF for m in t.legal()) == sorted(hidden)
    assert t.observe(0)[S.CELLS + hidden[0]] == HIDDEN
    t.apply(E(S.M_PEEK, hidden[0]))
    assert t.seen(hidden[0]) == 2 | 1 and t.up(hidden[0]) == 0
    assert t.observe(0)[S.CELLS + hidden[0]] == S.BUNNY + 1
    assert t.observe(0)[S.CELLS + hidden[1]] == HIDDEN
    assert t[S.PHASE] == S.PH_ACTION and t[S.ACTIONS_LEFT] == 1
    t.check()


def test_peek_with_nothing_face_down_does_nothing():
    t, c = event_table(S.PEEK)
    turn_up(t, c)
    assert t[S.PHASE] == S.PH_ACTION and t[S.ACTIONS_LEFT] == 1


def test_place_a_card_event():
    t, c = event_table(S.PLACE_CARD)
    t.set_hand(0, {S.DRAW_1: 1})
    turn_up(t, c)
    assert t[S.PHASE] == S.PH_EXTRA_PLACE and t[S.TO_MOVE] == 0
    moves = t.legal()
    cells = set(t.placeable())
    assert set(moves) == {E(S.M_PLACE, k * 256 + x) for k in (S.DRAW_1, S.BUNNY) for x in cells}
    x = min(cells)
    t.apply(E(S.M_PLACE, S.DRAW_1 * 256 + x))
    assert t.card(x) == S.DRAW_1 and t.seen(x) == 1 and t.placer(x) == 0
    assert t[S.PHASE] == S.PH_ACTION and t[S.ACTIONS_LEFT] == 1
    t.check()


def test_place_a_card_event_with_an_empty_hand_does_nothing():
    t, c = event_table(S.PLACE_CARD)
    t.set_hand(0, {})
    for x in [t.cell(0, 1), t.cell(-1, 1), t.cell(-1, 0)]:
        t.lay(x, S.BUNNY + 0, up=0, seen=1, placer=0)
    turn_up(t, c)
    assert t[S.PHASE] == S.PH_ACTION and t[S.ACTIONS_LEFT] == 1


@pytest.mark.parametrize("bunnies", [True, False])
def test_show_hand(bunnies):
    t, c = event_table(S.SHOW, carrots=4)
    if not bunnies:
        for x in [t.cell(0, 1), t.cell(-1, 1), t.cell(-1, 0)]:
            t.lay(x, S.BUNNY + 0, seen=1, placer=0)
    turn_up(t, c)
    assert (t.observe(1)[S.HAND:S.HAND + S.N_KINDS] == t.hand(0)).all()
    assert t.carrots(0) == 3  # never loses carrots


@pytest.mark.parametrize("bunnies", [True, False])
def test_show_hand_or_lose_carrots(bunnies):
    t, c = event_table(S.SHOW_OR_LOSE, carrots=4)
    if not bunnies:
        for x in [t.cell(0, 1), t.cell(-1, 1), t.cell(-1, 0)]:
            t.lay(x, S.BUNNY + 0, seen=1, placer=0)
    supply = t[S.SUPPLY]
    turn_up(t, c)
    assert (t.observe(1)[S.HAND:S.HAND + S.N_KINDS] == t.hand(0)).all()
    if bunnies:
        assert t.carrots(0) == 0 and t[S.SUPPLY] == supply + 4
    else:
        assert t.carrots(0) == 3 and t[S.SUPPLY] == supply + 1


def test_everyone_shows():
    t, c = event_table(S.ALL_SHOW, n=4, carrots=4)
    # P2 has no bunny left in hand; P4 is out
    for x in [t.cell(0, 1), t.cell(-1, 1), t.cell(-1, 0)]:
        t.lay(x, S.BUNNY + 1, seen=2, placer=1)
    t.set_carrots(1, 5)
    t.set_carrots(2, 3)
    t.set_carrots(3, 2)
    t.lose_bunnies(3, 0, 3)
    t.lose_bunnies(0, 1, 0)
    t[S.ELIMINATED + 3] = 1
    t[S.FARMER + 3] = -1
    t.set_hand(3, {})
    t.check()
    turn_up(t, c)
    assert [t.carrots(s) for s in range(4)] == [0, 5, 0, 2]
    for s in range(4):  # P4 is out and shows nothing, but its hand is known to be empty
        for viewer in range(4):
            assert (t.observe(viewer)[S.HAND + s * S.N_KINDS:S.HAND + (s + 1) * S.N_KINDS]
                    == t.hand(s)).all()


def test_turn_ends_after_the_first_action():
    t, c = event_table(S.TURN_ENDS)
    turn_up(t, c)
    assert t[S.TURN_SEAT] == 1 and t[S.TO_MOVE] == 1 and t[S.ACTIONS_LEFT] == 2


def test_turn_ends_found_by_a_step_event():
    t, c = event_table(S.STEP_1)
    e = t.cell(1, -1)
    t.lay(e, S.TURN_ENDS)
    turn_up(t, c)
    t.apply(E(S.M_STEP, e))
    assert t[S.TURN_SEAT] == 1 and t[S.TO_MOVE] == 1
    t.check()
