"""The heuristic's v2 behaviours on hand-built states: each position is built so that the
sensible move is plain, and each test also checks that ``heuristic-v1`` (the same kernel
with the new weights off) plays the old move there. Slots are 0-based."""

import numpy as np
import pytest
from avalon_table import E, K, Table, attack, strengthen

from simkit.games.avalon import rules as r
from simkit.games.avalon.state import CONQUESTS
from simkit.registry import strategies_for

SPECS = strategies_for("avalon")


def chosen(t, strategy):
    """The move ``strategy`` picks for the seat to move, from that seat's observation."""
    spec = SPECS[strategy]
    seat = int(r.to_move(t.state))
    obs = np.empty_like(t.state)
    r.observe(t.params, t.state, seat, obs)
    moves = np.array(t.legal(), np.int32)
    weights = np.array(list(spec.weights.values()), np.float64)
    k = spec.kernel(t.params, obs, seat, moves, len(moves), weights, np.array([3], np.uint64))
    return int(moves[k])


def attacked_with_last_knight(owner):
    """P1 attacks slot 2 at 4:3 with a red knight; P2's only knight is red. ``owner`` of
    slot 2 (plain_a, 3 crowns): -1 (face down) or 1 (P2's)."""
    t = (Table().territory(2, "plain_a", owner)
         .pile(0, 2, E("blue"), E("blue"), E("green"))
         .pile(1, 2, E("yellow"), E("yellow"), E("violet"))
         .hand(0, K("red"), E("violet")).hand(1, K("red"), E("blue"), E("green")))
    return t.play(attack(K("red"), 2))


def test_a_last_knight_is_kept_rather_than_spent_on_a_cheap_face_down_slot():
    """Saved: about 2.2 crowns (a face-down slot's expected crowns), less 7 cards of
    losses the conquest would cost P1; kept: P2's last knight."""
    t = attacked_with_last_knight(-1)
    assert t.legal() == [r.DEFEND_NO, r.DEFEND_YES]
    assert chosen(t, "heuristic") == r.DEFEND_NO
    assert chosen(t, "heuristic-v1") == r.DEFEND_YES


def test_an_own_territory_is_defended_even_with_the_last_knight():
    t = attacked_with_last_knight(1)
    assert chosen(t, "heuristic") == r.DEFEND_YES


def test_a_conquest_that_would_win_the_game_is_always_warded_off():
    t = attacked_with_last_knight(-1)
    t.territory(5, "castle_hill", 0).territory(6, "plain_b", 0).territory(7, "hill_b", 0)
    t.territory(8, "castle_forest", 0).territory(9, "castle_plain", 0)
    t.territory(10, "avalon", 0)  # P1: 14 crowns; a face-down slot is worth 2 on average
    assert chosen(t, "heuristic") == r.DEFEND_YES


def test_a_counter_spell_is_always_made():
    """The attacking enchantress comes into the defender's hand: it costs no card."""
    t = (Table().pile(1, 3, K("green")).hand(0, E("green"), K("red"))
         .hand(1, E("green")))
    t.play(r.ENCHANT + 3)
    assert t.legal() == [r.COUNTER_NO, r.COUNTER_YES]
    assert chosen(t, "heuristic") == r.COUNTER_YES


def exposed_by_its_losses():
    """P1 owns plain_a (3 crowns) at slot 5 guarded by 2 cards; P2, with 2 cards for his
    next turn, cannot attack it (he needs 2 cards there, then a knight). P1 holds one red
    knight and could take any face-down slot at 1:0, paying 1 loss: v1's payment takes it
    from plain_a's guard (worth less than the knight just laid), which opens plain_a to
    P2's counter-attack."""
    return (Table().territory(5, "plain_a", 0).pile(0, 5, E("blue"), E("yellow"))
            .hand(0, K("red")).hand(1, E("green"), E("violet")))


def is_attack(move):
    return r.ATTACK <= move < r.COUNTER_NO


def test_no_conquest_whose_losses_open_a_territory_to_the_counter_attack():
    t = exposed_by_its_losses()
    assert attack(K("red"), 3) in t.legal()
    assert is_attack(chosen(t, "heuristic-v1"))
    assert chosen(t, "heuristic") == r.END_PLAYS


def test_the_same_conquest_is_made_when_the_guard_can_spare_a_card():
    t = exposed_by_its_losses().pile(0, 5, E("red"))  # three guards: one can go
    assert is_attack(chosen(t, "heuristic"))


@pytest.mark.parametrize("strategy,colour", [("heuristic", "green"), ("heuristic-v1", "red")])
def test_a_territory_is_strengthened_with_a_card_that_cannot_be_enchanted_there(
        strategy, colour):
    """P1 guards plain_a (slot 4, no card there) holding a red and a green knight and a
    yellow enchantress; every green enchantress is in the discard pile, so a green top card
    cannot be enchanted. v1 lays the first type it holds most of (red). (Two conquests
    are made already this turn: no attack tempts it.)"""
    t = (Table().territory(4, "plain_a", 0).discard(*[E("green")] * 8).set(CONQUESTS, 2)
         .hand(0, K("red"), K("green"), E("yellow")).hand(1, K("blue"), E("red"), K("violet")))
    assert chosen(t, strategy) == strengthen(K(colour), 4)


def test_strengthening_keeps_the_enchantress_and_the_last_knight():
    """With two enchantresses of one colour and two knights, v1 lays an enchantress (held
    most); v2 keeps the enchantresses (they enchant and counter-spell) and lays a knight,
    one of two (the last knight would be kept for an attack)."""
    t = (Table().territory(4, "plain_a", 0).set(CONQUESTS, 2)
         .hand(0, E("blue"), E("blue"), K("red"), K("green")).hand(1, K("violet")))
    assert chosen(t, "heuristic-v1") == strengthen(E("blue"), 4)
    assert chosen(t, "heuristic") in (strengthen(K("red"), 4), strengthen(K("green"), 4))
