"""Game setting and the placement step (rulebook: Game Setting; Place One Card on
Farmland; NOTES.md: the farmland is a hex grid)."""

import pytest
from rh_table import E, Table

from simkit.games.rabbit_hunt import state as S


@pytest.mark.parametrize("n, removed", [(2, 30), (3, 15), (4, 0)])
def test_setup(n, removed):
    t = Table(n)
    t.check()
    assert t[S.REMOVED] == removed
    assert t[S.N_PLAYERS] == n
    # six face-down cards round the warehouse, nothing else on the table
    ring = t.ring()
    assert sorted(t.cards_on_table()) == sorted(ring + [t.center])
    assert t.card(t.center) == S.WAREHOUSE
    for c in ring:
        assert 0 <= t.card(c) < S.N_FARMLAND
        assert t.up(c) == 0 and t.seen(c) == 0 and t.placer(c) == -1
    # pile: the deck less the put-away cards, the ring and the hands
    assert t[S.PILE_LEN] == 75 - removed - 6 - 5 * n
    for s in range(n):
        assert t.farmland_in_hand(s) == 5
        assert t.hand(s, S.BUNNY) == 3
        assert t.carrots(s) == 2
        assert t.farmer(s) == t.center
        assert t[S.ELIMINATED + s] == 0
        assert t[S.CAUGHT + s] == 0 and t[S.LOST + s] == 0
    for s in range(n, 4):
        assert t[S.ELIMINATED + s] == 1 and t.farmer(s) == -1
    assert t[S.SUPPLY] == 24 - 2 * n
    # P1 places first
    assert t[S.TURN_SEAT] == 0 and t[S.TO_MOVE] == 0 and t[S.PHASE] == S.PH_PLACE
    assert t[S.ACTIONS_LEFT] == 2
    assert t[S.END] == S.RUNNING


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_setup_deck_composition(seed):
    """With 4 players nothing is put away: ring + hands + pile hold the whole deck."""
    t = Table(4, seed=seed)
    counts = [0] * S.N_FARMLAND
    for c in t.ring():
        counts[t.card(c)] += 1
    for s in range(4):
        for k in range(S.N_FARMLAND):
            counts[k] += t.hand(s, k)
    for k in t.pile():
        counts[k] += 1
    assert counts == [12, 8, 4, 8, 4, 4, 4, 4, 4, 4, 3, 6, 4, 6]


def test_first_placements_are_the_six_gaps_between_ring_cards():
    t = Table(2)
    moves = t.legal()
    cells = {m & 255 for m in moves}
    expected = {t.cell(q, r) for q, r in [(2, -1), (1, -2), (-1, -1), (-2, 1), (-1, 2), (1, 1)]}
    assert cells == expected
    assert cells == set(t.placeable())
    # every kind in hand crossed with every cell, nothing else
    kinds = {k for k in range(S.N_KINDS) if t.hand(0, k) > 0}
    assert sorted(moves) == sorted(E(S.M_PLACE, k * 256 + c) for k in kinds for c in cells)


def test_placement_needs_two_neighbours_and_an_empty_cell():
    t = Table(2)
    a = t.cell(2, -1)
    t.apply(E(S.M_PLACE, S.EMPTY * 256 + a) if t.hand(0, S.EMPTY) else
            E(S.M_PLACE, S.BUNNY * 256 + a))
    t.check()
    # the placed cell now takes no second card; (3,-2) touches only (2,-1): not placeable,
    # (2,-2) touches (2,-1) and (1,-1): placeable, (3,-1) touches (2,-1) and ... only one card
    t.to_actions(1)
    t[S.PHASE] = S.PH_PLACE
    cells = {m & 255 for m in t.legal()}
    assert a not in cells and t.center not in cells
    assert not set(t.ring()) & cells
    assert t.cell(2, -2) in cells and t.cell(3, -1) not in cells
    assert t.cell(3, -2) not in cells and t.cell(2, 0) in cells
    assert cells == set(t.placeable())


def test_placing_a_card_lays_it_face_down_seen_by_its_placer():
    t = Table(3)
    t.set_hand(0, {S.CARROT_2: 1})
    c = t.cell(1, 1)
    t.apply(E(S.M_PLACE, S.BUNNY * 256 + c))
    t.check()
    assert t.card(c) == S.BUNNY + 0
    assert t.up(c) == 0 and t.seen(c) == 1 and t.placer(c) == 0
    assert t.hand(0, S.BUNNY) == 2
    assert t[S.PHASE] == S.PH_ACTION and t[S.TO_MOVE] == 0 and t[S.ACTIONS_LEFT] == 2
    assert t.items[0, S.IT_BUNNY_PLACED] == 1
    # neighbour counts grew
    assert t.next_to(t.cell(2, 0)) == 2 and t.next_to(t.cell(0, 2)) == 2
    assert t.next_to(t.cell(1, 2)) == 1
    c2 = t.cell(2, -1)
    t[S.PHASE] = S.PH_PLACE
    t.apply(E(S.M_PLACE, S.CARROT_2 * 256 + c2))
    assert t.card(c2) == S.CARROT_2 and t.placer(c2) == 0 and t.seen(c2) == 1
    assert t.items[0, S.CARROT_2 * 3 + S.IT_PLACED] == 1
    assert t.hand(0, S.CARROT_2) == 0
    t.check()


def test_only_one_placement_per_turn():
    t = Table(2)
    t.apply(t.legal()[0])
    assert all(m >> 16 != S.M_PLACE for m in t.legal())


def test_empty_hand_skips_the_placement():
    t = Table(2)
    t.set_hand(1, {})
    for _ in range(3):
        t.lay(t.placeable()[0], S.BUNNY + 1)
    assert t.hand_total(1) == 0
    t.check()
    # P1 places, takes two carrots; P2's turn starts with the actions
    t.apply(t.legal()[0])
    t.apply(E(S.M_CARROT, 0))
    t.apply(E(S.M_CARROT, 0))
    assert t[S.TURN_SEAT] == 1 and t[S.TO_MOVE] == 1
    assert t[S.PHASE] == S.PH_ACTION and t[S.ACTIONS_LEFT] == 2
    assert all(m >> 16 != S.M_PLACE for m in t.legal())
    t.check()


def test_bunnies_alone_in_hand_must_still_be_placed():
    t = Table(2)
    t.set_hand(0, {})
    t[S.PHASE] = S.PH_PLACE
    moves = t.legal()
    assert moves and all(m >> 16 == S.M_PLACE and (m & 0xFFFF) >> 8 == S.BUNNY for m in moves)
    t.check()
