"""The heuristic's v2 behaviours on hand-built tables (strategies/rabbit_hunt.py): each
scenario is built so that the new behaviour picks the sensible move and heuristic-v1's
weights (the same kernel, the new weights off) do not. And heuristic-v1 is today's
heuristic exactly: it replays games recorded with it before v2, move for move."""

import json
from pathlib import Path

import numpy as np
import pytest
from rh_table import E, Table
from simkit.strategies.rabbit_hunt import V1_WEIGHTS, WEIGHTS, choose_rabbit_hunt, hex_distance

from simkit import simulate
from simkit.games.rabbit_hunt import state as S

GOLDEN = Path(__file__).parent / "golden" / "heuristic_v1_games.json"
V2 = np.array(list(WEIGHTS.values()), np.float64)
V1 = np.array(list(V1_WEIGHTS.values()), np.float64)


def choice(t, weights):
    """The move the heuristic picks for the seat to move, from its observation only."""
    moves = t.legal()
    seat = t[S.TO_MOVE]
    arr = np.array(moves, np.int32)
    k = choose_rabbit_hunt(t.params, t.observe(seat), seat, arr, len(moves), weights,
                           np.array([7], np.uint64))
    return moves[k]


def test_heuristic_v1_replays_the_games_of_the_heuristic_before_v2():
    """300 self-play games at each player count recorded with the heuristic before v2
    (turns, decisions and ranks of each game)."""
    want = json.loads(GOLDEN.read_text())
    for n in (2, 3, 4):
        g = simulate("rabbit-hunt", n, 300, seed=77 + n, strategies=["heuristic-v1"] * n,
                     workers=1).games
        got = [[int(g.turns[i]), int(g.decisions[i])]
               + [int(g[f"rank_s{s}"][i]) for s in range(1, n + 1)] for i in range(len(g))]
        assert got == want[str(n)], f"{n} players"


def test_memory_a_card_laid_before_a_show_of_all_three_bunnies_is_no_bunny():
    """P2 laid a card next to P1's farmer, then showed a hand still holding its 3 bunnies:
    that card is a decoy. The card P2 laid after the show, two steps off, may be one.
    v1 spreads the uncaught bunnies evenly and takes the cheaper card."""
    t = Table(2)
    t.strip_ring()
    ring = t.ring()
    before = ring[0]
    t.lay(before, S.EMPTY, seen=2, placer=1)
    show = ring[3]
    t.lay(show, S.SHOW)
    t.to_actions(1)
    t.set_carrots(1, 1)
    t.apply(E(S.M_MOVE, show))  # P2 shows its hand: 3 bunnies and 5 farmland cards
    assert t.hand(1, S.BUNNY) == 3
    after = t.cell(2, -1)
    t.lay(after, S.BUNNY + 1, seen=2, placer=1)
    assert t.steps(t.center, before) == 1 and t.steps(t.center, after) == 2
    t.to_actions(0)
    t.set_carrots(0, 2)
    assert choice(t, V2) == E(S.M_MOVE, after)
    assert choice(t, V1) == E(S.M_MOVE, before)


def test_hands_ending_the_pile_wins_when_the_opponent_still_holds_bunnies():
    """P1 has laid its bunnies; P2 has laid nothing, so holds all three: drawing the last
    two cards ends the game with P2 out by rule a. v1 sees a 0-0 tie and takes a carrot."""
    t = Table(2)
    t.strip_ring()
    for q, r in ((2, -1), (2, 0), (-2, 1)):
        t.lay(t.cell(q, r), S.BUNNY + 0, seen=1, placer=0)
    t.set_pile([S.EMPTY, S.EMPTY])
    t.to_actions(0)
    t.set_carrots(0, 0)
    assert choice(t, V2) == E(S.M_DRAW, 0)
    assert choice(t, V1) == E(S.M_CARROT, 0)
    t.apply(E(S.M_DRAW, 0))
    assert choice(t, V2) == E(S.M_DRAW, 0)
    t.apply(E(S.M_DRAW, 0))
    end, ranks, _ = t.finish()
    assert end == S.PILE_EMPTY and ranks == [1, 2]


def test_hands_no_draw_that_ends_a_pile_one_loses():
    """P1 still holds its bunnies: ending the pile now loses (rule a), so it wastes the
    action instead. v1, at the carrot cap with nothing to hunt, draws the last card."""
    t = Table(2)
    t.strip_ring()
    t.set_pile([S.EMPTY])
    t.to_actions(0)
    t.set_carrots(0, 6)
    assert choice(t, V2) == E(S.M_CARROT, 0)
    assert choice(t, V1) == E(S.M_DRAW, 0)


def protect_table():
    """P1's bunny hidden two steps from the warehouse, where P2's farmer stands with a
    carrot (enough to reach it next turn); a face-up card four steps from the bunny."""
    t = Table(2)
    t.strip_ring()
    bunny = t.cell(2, -1)
    t.lay(bunny, S.BUNNY + 0, seen=1, placer=0)
    far = t.cell(-2, 1)
    t.chain([far])
    t.set_carrots(1, 1)
    t[S.TURN_SEAT] = t[S.TO_MOVE] = 0
    t[S.ACTIONS_LEFT] = 1
    return t, bunny, far


def test_protect_move_any_farmer_sends_the_hunter_away_from_ones_bunny():
    t, bunny, far = protect_table()
    t[S.PHASE] = S.PH_MOVE_ANY
    assert hex_distance(t.coords, far, bunny) == 4
    assert choice(t, V2) == E(S.M_MOVE_ANY, 1 * 256 + far)
    assert choice(t, V1) >> 8 & 0xFF == 0  # v1 moves its own farmer (onto a face-up card)


def test_protect_farmer_to_warehouse_spares_a_hunter_far_from_ones_bunny():
    """P2's farmer stands four steps from P1's bunny; the warehouse is two: P1 sends its
    own farmer home rather than bring the hunter closer. v1 always sends an opponent."""
    t, bunny, far = protect_table()
    t[S.FARMER + 1] = far
    t[S.FARMER + 0] = t.ring()[0]
    t[S.PHASE] = S.PH_TO_WAREHOUSE
    assert choice(t, V2) == E(S.M_TO_HOME, 0)
    assert choice(t, V1) == E(S.M_TO_HOME, 1)


def test_rescue_an_own_bunny_the_opponent_has_seen():
    """P2 has peeked at P1's bunny: P1 turns it up itself, takes it back and lays a decoy
    in its place. v1 never moves onto its own bunny."""
    t = Table(2)
    t.strip_ring()
    bunny = t.cell(2, -1)
    t.lay(bunny, S.BUNNY + 0, seen=1 | 2, placer=0)
    t.to_actions(0)
    t[S.FARMER + 0] = t.cell(1, 0)
    t.set_carrots(0, 1)
    assert choice(t, V2) == E(S.M_MOVE, bunny)
    assert choice(t, V1) == E(S.M_CARROT, 0)
    t.apply(E(S.M_MOVE, bunny))
    assert t[S.PHASE] == S.PH_SWAP
    t.apply(choice(t, V2))
    assert t.hand(0, S.BUNNY) == 3 and t.card(bunny) < S.BUNNY


@pytest.mark.parametrize("weights", [V1, V2])
def test_the_heuristic_sees_only_its_observation(weights):
    """Redealing what P1 cannot see leaves its choice unchanged (the same observation)."""
    t = Table(2)
    t.strip_ring()
    t.lay(t.cell(2, -1), S.EMPTY, seen=2, placer=1)
    t.to_actions(0)
    t.set_carrots(0, 2)
    first = choice(t, weights)
    t.set_hand(1, {S.TURN_ENDS: 5})
    assert choice(t, weights) == first


def test_memory_a_card_the_partner_laid_may_be_its_bunny():
    """4 players: a free step (the "move 1 step" event) next to a card P3, P1's partner,
    laid while holding its three bunnies: it is a bunny one time in three, and turning it
    up would show it to all. P1 steps onto a face-up card instead; v1 took the partner's
    card for a card nobody laid and turned it up."""
    t = Table(4)
    t.strip_ring()
    partner_card = t.ring()[0]
    t.lay(partner_card, S.EMPTY, seen=4, placer=2)
    t[S.TURN_SEAT] = t[S.TO_MOVE] = 0
    t[S.ACTIONS_LEFT] = 1
    t[S.PHASE] = S.PH_STEP
    assert choice(t, V1) == E(S.M_STEP, partner_card)
    picked = choice(t, V2)
    assert picked >> 16 == S.M_STEP and t.up(picked & 0xFFFF) == 1
