"""What a farmer finds on a face-down card: another's bunny, one's own, a partner's
(rulebook: 'When revealing the farmland card'; NOTES.md: Moving and revealing)."""

import pytest
from rh_table import E, Table

from simkit.games.rabbit_hunt import state as S


def hunt_table(n=2, **over):
    t = Table(n, **over)
    t.strip_ring()
    t.to_actions(0)
    t.set_carrots(0, 3)
    return t


def test_another_players_bunny_is_caught_and_its_place_filled_from_the_pile():
    t = hunt_table(3)
    c = t.cell(1, 0)
    t.lay(c, S.BUNNY + 2, seen=1 << 2, placer=2)
    t.set_pile(t.pile()[:-1] + [S.DRAW_2])
    n = t[S.PILE_LEN]
    t.check()
    t.apply(E(S.M_MOVE, c))
    assert t[S.CAUGHT + 0] == 1 and t[S.LOST + 2] == 1
    assert t.card(c) == S.DRAW_2  # the pile's top card
    assert t.up(c) == 0 and t.seen(c) == 0 and t.placer(c) == -1
    assert t[S.PILE_LEN] == n - 1
    assert t.farmer(0) == c
    assert t.farmland_in_hand(0) == 5  # the new card is not drawn, nor triggered
    assert t.items[0, S.IT_BUNNY_CAUGHT] == 1 and t.items[2, S.IT_BUNNY_LOST] == 1
    assert t[S.PHASE] == S.PH_ACTION and t[S.ACTIONS_LEFT] == 1
    assert t[S.ELIMINATED + 2] == 0
    t.check()


def test_own_bunny_with_cards_in_hand_is_swapped():
    t = hunt_table(2)
    c = t.cell(-1, 1)
    t.lay(c, S.BUNNY + 0, seen=1, placer=0)
    t.set_hand(0, {S.PEEK: 1, S.TURN_ENDS: 1})
    t.check()
    t.apply(E(S.M_MOVE, c))
    assert t[S.PHASE] == S.PH_SWAP and t[S.TO_MOVE] == 0 and t[S.AUX_CELL] == c
    assert t.seen(c) == 15  # shown to all
    assert t.card(c) == S.BUNNY + 0 and t[S.CAUGHT + 0] == 0
    assert sorted(t.legal()) == sorted([E(S.M_SWAP, S.PEEK), E(S.M_SWAP, S.TURN_ENDS),
                                        E(S.M_SWAP, S.BUNNY)])
    t.apply(E(S.M_SWAP, S.TURN_ENDS))
    assert t.card(c) == S.TURN_ENDS and t.up(c) == 0
    assert t.seen(c) == 1 and t.placer(c) == 0  # laid face down, known to its placer only
    assert t.hand(0, S.BUNNY) == 3 and t.hand(0, S.TURN_ENDS) == 0
    assert t[S.PHASE] == S.PH_ACTION and t[S.ACTIONS_LEFT] == 1 and t[S.TO_MOVE] == 0
    assert t[S.ACTIONS_LEFT] == 1  # the laid card's event does not fire
    t.check()


def test_own_bunny_swapped_as_the_last_action_ends_the_turn_after_the_swap():
    t = hunt_table(2)
    t[S.ACTIONS_LEFT] = 1
    c = t.cell(-1, 1)
    t.lay(c, S.BUNNY + 0, seen=1, placer=0)
    t.apply(E(S.M_MOVE, c))
    assert t[S.PHASE] == S.PH_SWAP and t[S.TO_MOVE] == 0
    t.apply(E(S.M_SWAP, S.BUNNY))
    assert t.card(c) == S.BUNNY + 0 and t.seen(c) == 1
    assert t[S.TURN_SEAT] == 1
    t.check()


def test_own_bunny_with_an_empty_hand_is_put_back_seen_by_all():
    t = hunt_table(2)
    t.set_hand(0, {})
    cells = [t.cell(1, 0), t.cell(0, 1), t.cell(-1, 1)]
    for c in cells:
        t.lay(c, S.BUNNY + 0, seen=1, placer=0)
    assert t.hand_total(0) == 0
    t.check()
    t.apply(E(S.M_MOVE, cells[0]))
    assert t.card(cells[0]) == S.BUNNY + 0 and t.up(cells[0]) == 0
    assert t.seen(cells[0]) == 15
    assert t[S.PHASE] == S.PH_ACTION and t[S.ACTIONS_LEFT] == 1
    assert t[S.LOST + 0] == 0 and t[S.CAUGHT + 0] == 0
    assert t.observe(1)[S.CELLS + cells[0]] == S.BUNNY + 0
    assert t.observe(1)[S.CELLS + cells[1]] == -2
    t.check()


@pytest.mark.parametrize("switch", [False, True])
def test_partners_bunny_in_four_players(switch):
    t = hunt_table(4, partners_can_catch=switch)
    assert t.p[S.P_PARTNERS_CATCH] == int(switch)
    c = t.cell(1, 0)
    t.lay(c, S.BUNNY + 2, seen=1 << 2, placer=2)  # P3 is P1's partner
    t.check()
    t.apply(E(S.M_MOVE, c))
    if switch:
        assert t[S.CAUGHT + 0] == 1 and t[S.LOST + 2] == 1
        assert t.card(c) < S.N_FARMLAND and t.seen(c) == 0
    else:
        assert t[S.CAUGHT + 0] == 0 and t[S.LOST + 2] == 0
        assert t.card(c) == S.BUNNY + 2 and t.seen(c) == 15 and t.up(c) == 0
    assert t[S.PHASE] == S.PH_ACTION
    t.check()


def test_opponents_bunny_in_four_players_is_caught():
    t = hunt_table(4)
    c = t.cell(1, 0)
    t.lay(c, S.BUNNY + 3, seen=1 << 3, placer=3)
    t.apply(E(S.M_MOVE, c))
    assert t[S.CAUGHT + 0] == 1 and t[S.LOST + 3] == 1
    t.check()


def test_a_bunny_put_back_can_be_revealed_again():
    """A bunny put back face down is still face down: the next visit reveals it again."""
    t = hunt_table(2)
    t.set_hand(0, {})
    c = t.cell(1, 0)
    for cc in (c, t.cell(0, 1), t.cell(-1, 1)):
        t.lay(cc, S.BUNNY + 0, seen=1, placer=0)
    t.apply(E(S.M_MOVE, c))
    assert t.card(c) == S.BUNNY + 0
    # P2 now goes and catches it
    t.to_actions(1)
    t.set_carrots(1, 1)
    t[S.FARMER + 1] = t.center
    t.apply(E(S.M_MOVE, c))
    assert t[S.CAUGHT + 1] == 1 and t[S.LOST + 0] == 1
    t.check()
