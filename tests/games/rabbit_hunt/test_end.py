"""Elimination, the end when the pile is used up, and winner determination a-e
(rulebook: End of the Game, Winner Determination; NOTES.md: The end)."""

import pytest
from rh_table import E, Table

from simkit.games.rabbit_hunt import state as S

RING_FREE = [(0, 1), (-1, 1), (-1, 0)]


def hunt(n=3, **over):
    t = Table(n, **over)
    t.strip_ring()
    t.to_actions(0)
    t.set_carrots(0, 3)
    return t


def last_bunny_table(n=3):
    """P2 (seat 1) has lost two bunnies; the third lies on (1,0), one step from P1."""
    t = hunt(n)
    t.lose_bunnies(1, 0, 2)
    c = t.cell(1, 0)
    t.lay(c, S.BUNNY + 1, seen=2, placer=1)
    t.set_hand(1, {S.DRAW_1: 2, S.PEEK: 1})
    t[S.FARMER + 1] = t.cell(0, 1)
    t.check()
    return t, c


def test_elimination_when_all_three_bunnies_are_caught():
    t, c = last_bunny_table(3)
    pile = t[S.PILE_LEN]
    t.apply(E(S.M_MOVE, c))
    assert t[S.LOST + 1] == 3 and t[S.CAUGHT + 0] == 3
    assert t[S.ELIMINATED + 1] == 1 and t.farmer(1) == -1
    assert t.hand_total(1) == 0
    assert t[S.PILE_LEN] == pile - 1 + 3  # one filled the hole, three shuffled in
    assert sorted(t.pile()).count(S.PEEK) >= 1
    assert t[S.END] == S.RUNNING  # P1 and P3 are left
    t.check()
    # P2 no longer takes turns, nor can be looked at or moved
    assert 1 not in {m & 0xFFFF for m in t.legal() if m >> 16 == S.M_LOOK}
    t.apply(E(S.M_CARROT, 0))
    assert t[S.TURN_SEAT] == 2
    t.apply(t.legal()[0])  # P3 places
    t.apply(E(S.M_CARROT, 0))
    t.apply(E(S.M_CARROT, 0))
    assert t[S.TURN_SEAT] == 0
    t.check()


def test_elimination_shuffles_the_hand_into_the_pile():
    """The cards go into the pile at random places (shuffled), not just on top."""
    tops = set()
    for seed in range(8):
        t, c = last_bunny_table(3)
        t.chance[0] = seed
        t.set_hand(1, {S.PEEK: 3})
        t.set_pile([S.EMPTY] * 20)
        t.apply(E(S.M_MOVE, c))
        pile = t.pile()
        assert pile.count(S.PEEK) == 3 and len(pile) == 22
        tops.add(tuple(i for i, k in enumerate(pile) if k == S.PEEK))
    assert len(tops) > 1


@pytest.mark.parametrize("bunnies_in_hand", [0, 2])
def test_last_standing_in_two_players(bunnies_in_hand):
    t, c = last_bunny_table(2)
    # P1 still holds some bunnies: the last one standing wins anyway
    spots = [t.cell(q, r) for q, r in RING_FREE][:3 - bunnies_in_hand]
    for x in spots:
        t.lay(x, S.BUNNY + 0, seen=1, placer=0)
    t.apply(E(S.M_MOVE, c))
    assert t[S.END] == S.LAST_STANDING and t[S.ELIMINATED + 1] == 1
    end, ranks, scores = t.finish()
    assert end == S.LAST_STANDING
    assert ranks == [1, 2] and scores == [3, 0]


def test_last_standing_in_three_players():
    t, c = last_bunny_table(3)
    t.lose_bunnies(2, 0, 3)
    t[S.ELIMINATED + 2] = 1
    t[S.FARMER + 2] = -1
    t.set_hand(2, {})
    t.check()
    t.apply(E(S.M_MOVE, c))
    assert t[S.END] == S.LAST_STANDING
    end, ranks, _ = t.finish()
    assert ranks[0] == 1 and ranks[1] > 1 and ranks[2] > 1


def test_four_players_a_team_plays_on_while_one_partner_is_in():
    t = hunt(4)
    t.lose_bunnies(1, 0, 2)
    c = t.cell(1, 0)
    t.lay(c, S.BUNNY + 1, seen=2, placer=1)
    t.check()
    t.apply(E(S.M_MOVE, c))
    assert t[S.ELIMINATED + 1] == 1 and t[S.END] == S.RUNNING
    t.apply(E(S.M_CARROT, 0))
    assert t[S.TURN_SEAT] == 2  # P2 skipped
    # now P4 falls too: the P1+P3 team is left
    t.to_actions(2)
    t.set_carrots(2, 3)
    t[S.FARMER + 2] = t.center
    t.lose_bunnies(3, 2, 2)
    d = t.cell(0, 1)
    t.lay(d, S.BUNNY + 3, seen=8, placer=3)
    t.check()
    t.apply(E(S.M_MOVE, d))
    assert t[S.END] == S.LAST_STANDING
    end, ranks, scores = t.finish()
    assert ranks[0] == ranks[2] == 1 and ranks[1] == ranks[3] == 2
    t.check()


def test_the_game_ends_when_the_pile_is_used_up_by_a_draw():
    t = Table(3)
    t.to_actions(0)
    t.set_pile([S.EMPTY])
    t.apply(E(S.M_DRAW, 0))
    assert t[S.END] == S.PILE_EMPTY and t[S.PILE_LEN] == 0
    assert t[S.TURN_SEAT] == 0  # immediately: no further turn starts
    t.check()


def test_the_game_ends_when_filling_a_caught_bunnys_place_empties_the_pile():
    t = hunt(3)
    c = t.cell(1, 0)
    t.lay(c, S.BUNNY + 2, seen=4, placer=2)
    t.set_pile([S.EMPTY])
    t.apply(E(S.M_MOVE, c))
    assert t[S.CAUGHT + 0] == 1 and t[S.END] == S.PILE_EMPTY
    t.check()


# ------------------------------------------------------------------ winner a-e
def scoring_table(n=2):
    """A table to lay out the end position on; ``over`` then ends it by the pile."""
    t = Table(n)
    t.strip_ring()
    t.to_actions(0)
    return t


def over(t):
    """The pile is used up: the game is over and ranked."""
    t.set_pile([])
    t[S.END] = S.PILE_EMPTY
    t.check()
    end, ranks, scores = t.finish()
    assert end == S.PILE_EMPTY
    return ranks, scores


def dispose(t, seat, cells):
    for x in cells:
        t.lay(x, S.BUNNY + seat, seen=1 << seat, placer=seat)


def test_rule_a_bunny_in_hand_loses():
    t = scoring_table()
    t.lose_bunnies(1, 0, 2)  # P1 caught two ...
    t.lay(t.cell(1, 0), S.BUNNY + 1, seen=2, placer=1)
    # ... but still holds one of its own
    dispose(t, 0, [t.cell(0, 1), t.cell(-1, 1)])
    assert t.hand(0, S.BUNNY) == 1 and t.hand(1, S.BUNNY) == 0
    ranks, scores = over(t)
    assert ranks == [2, 1] and scores == [2, 0]


def test_rule_b_most_bunnies_caught():
    t = scoring_table()
    t.lose_bunnies(1, 0, 2)
    t.lose_bunnies(0, 1, 1)
    dispose(t, 0, [t.cell(0, 1), t.cell(-1, 1)])
    dispose(t, 1, [t.cell(1, 0)])
    ranks, scores = over(t)
    assert ranks == [1, 2] and scores == [2, 1]


def test_rule_b_then_c_in_three_players():
    t = scoring_table(3)
    # P1 and P2 each caught one; P1 lost one, P2 lost two; P3 caught two
    t.lose_bunnies(2, 0, 1)
    t.lose_bunnies(1, 2, 2)
    t.lose_bunnies(0, 1, 1)
    dispose(t, 0, [t.cell(0, 1), t.cell(-1, 1)])
    dispose(t, 1, [t.cell(1, 0)])
    dispose(t, 2, [t.cell(1, -1), t.cell(0, -1)])
    assert [t[S.CAUGHT + s] for s in range(3)] == [1, 1, 2]
    ranks, scores = over(t)
    assert ranks == [2, 3, 1] and scores == [1, 1, 2]


def test_rule_c_fewest_own_caught():
    t = scoring_table(3)
    t.lose_bunnies(2, 0, 1)
    t.lose_bunnies(2, 1, 1)
    t.lose_bunnies(0, 2, 1)
    dispose(t, 0, [t.cell(0, 1), t.cell(-1, 1)])
    dispose(t, 1, [t.cell(1, 0), t.cell(1, -1), t.cell(0, -1)])
    dispose(t, 2, [t.cell(-1, 0)])
    ranks, _ = over(t)
    assert ranks == [2, 1, 3]  # P1 and P2 caught 1 each; P2 lost none


U_SHAPE = [(2, 0), (3, -1), (4, -2), (4, -3), (3, -3)]
LINE = [(0, 2), (0, 3), (0, 4)]


def rule_d_table():
    """b and c tied (each caught two of the other's); one bunny each left to place."""
    t = scoring_table()
    t.chain([t.cell(q, r) for q, r in U_SHAPE + LINE])
    t.lose_bunnies(0, 1, 2)
    t.lose_bunnies(1, 0, 2)
    return t


def test_rule_d_closest_bunny_in_steps_over_cards():
    """P2's bunny at (3,-3) is 3 hex cells from the warehouse but 6 steps over cards; P1's
    at (0,4) is 4 cells and 4 steps away: P1's is the closer."""
    t = rule_d_table()
    p1, p2 = t.cell(0, 4), t.cell(3, -3)
    assert t.steps(t.center, p1) == 4 and t.steps(t.center, p2) == 6
    dispose(t, 0, [p1])
    dispose(t, 1, [p2])
    assert over(t)[0] == [1, 2]


def test_rule_d_the_other_way_round():
    t = rule_d_table()
    dispose(t, 0, [t.cell(0, 4)])
    dispose(t, 1, [t.cell(3, -1)])  # 3 steps
    assert over(t)[0] == [2, 1]


def test_rule_d_uses_the_nearest_bunny_only():
    t = scoring_table()
    t.chain([t.cell(q, r) for q, r in U_SHAPE + LINE])
    dispose(t, 0, [t.cell(0, 2), t.cell(0, 3), t.cell(2, 0)])  # 2, 3 and 2 steps
    dispose(t, 1, [t.cell(1, 0), t.cell(3, -3), t.cell(4, -3)])  # 1, 6 and 5 steps
    assert over(t)[0] == [2, 1]


def test_rule_d_no_bunny_on_the_farmland_counts_as_farthest():
    """Among the players who lost by rule a the order still follows b-d: P1 (one bunny in
    hand, two on the farmland) ranks ahead of P2 (all three in hand)."""
    t = scoring_table(3)
    t.chain([t.cell(q, r) for q, r in LINE])
    dispose(t, 0, [t.cell(0, 3), t.cell(0, 4)])
    dispose(t, 2, [t.cell(1, 0), t.cell(1, -1), t.cell(0, -1)])
    assert t.hand(0, S.BUNNY) == 1 and t.hand(1, S.BUNNY) == 3
    assert over(t)[0] == [2, 3, 1]


def test_rule_e_full_tie_shares_the_win():
    t = scoring_table(3)
    dispose(t, 0, [t.cell(1, 0), t.cell(1, -1), t.cell(0, -1)])
    dispose(t, 1, [t.cell(-1, 0), t.cell(-1, 1), t.cell(0, 1)])
    # P3 holds its three bunnies: out of the running (rule a)
    assert over(t)[0] == [1, 1, 3]


def test_nobody_eligible_nobody_ranks_first():
    t = scoring_table(3)
    t.lose_bunnies(1, 0, 1)
    ranks, _ = over(t)
    assert list(ranks) == [3, 3, 3]  # nobody wins: all share the last place (NOTES.md)


def test_four_players_teams_share_ranks():
    t = scoring_table(4)
    # team P1+P3 disposed of all; P2 is out, P4 still holds one: team P2+P4 loses (a)
    dispose(t, 0, [t.cell(1, 0), t.cell(1, -1), t.cell(0, -1)])
    dispose(t, 2, [t.cell(-1, 0), t.cell(-1, 1), t.cell(0, 1)])
    t.lose_bunnies(1, 3, 3)
    t.lose_bunnies(3, 1, 2)
    t[S.ELIMINATED + 1] = 1
    t[S.FARMER + 1] = -1
    t.set_hand(1, {})
    ranks, scores = over(t)
    assert ranks[0] == ranks[2] == 1 and ranks[1] == ranks[3] == 2
    assert scores == [0, 2, 0, 3]


def test_four_players_rule_b_sums_the_team():
    t = scoring_table(4)
    t.chain([t.cell(q, r) for q, r in LINE])
    t.lose_bunnies(1, 0, 1)  # P1 caught 1
    t.lose_bunnies(0, 3, 1)  # P4 caught 1
    t.lose_bunnies(3, 1, 1)  # P2 caught 1: team P2+P4 caught 2 against 1
    dispose(t, 0, [t.cell(1, 0), t.cell(1, -1)])
    dispose(t, 1, [t.cell(0, -1), t.cell(-1, 0)])
    dispose(t, 2, [t.cell(-1, 1), t.cell(0, 1), t.cell(0, 2)])
    dispose(t, 3, [t.cell(0, 3), t.cell(0, 4)])
    ranks, _ = over(t)
    assert ranks == [2, 1, 2, 1]


def test_four_players_rule_a_one_partner_holding_a_bunny_sinks_the_team():
    t = scoring_table(4)
    t.chain([t.cell(q, r) for q, r in LINE])
    t.lose_bunnies(1, 0, 2)  # P1 caught 2
    dispose(t, 0, [t.cell(1, 0), t.cell(1, -1), t.cell(0, -1)])
    dispose(t, 1, [t.cell(-1, 0)])
    dispose(t, 2, [t.cell(-1, 1), t.cell(0, 1)])  # P3 still holds one
    dispose(t, 3, [t.cell(0, 2), t.cell(0, 3), t.cell(0, 4)])
    ranks, _ = over(t)
    assert ranks == [2, 1, 2, 1]
