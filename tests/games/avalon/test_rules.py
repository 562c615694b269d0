"""Layer 2: one scenario per rule of Avalon, on hand-built states, with the rulebook's worked
examples as cases. Slots are 0-based here (the transcript numbers them from 1)."""

import numpy as np
import pytest
from avalon_table import E, K, Table, attack, enchant, strengthen

from simkit.errors import SimkitError
from simkit.games.avalon import rules as r
from simkit.games.avalon import state as S
from simkit.games.avalon.state import (
    AVALON_USED,
    CONQUESTS,
    COUNTER,
    DARK_PENDING,
    DECK,
    DECK_N,
    DEFEND,
    DISCARD_PHASE,
    HAND_SIZE,
    LOSS,
    LOSS_LEFT,
    MAIN,
    OWNER,
    PHASE,
    PLAYER,
    SUPPLY,
    TERR_CARD,
    TILE_AVAIL,
    TURNS,
    WINNER,
)

P1, P2 = 0, 1


# ------------------------------------------------------------------ setup
def test_setup_deals_one_card_per_side_and_five_in_hand():
    t = Table()
    state = t.state
    r.new_game(t.params, 2, state, np.array([3], np.uint64))
    assert not t.check()
    for seat in (P1, P2):
        assert all(len(t.stack(seat, i)) == 1 for i in range(11))
        assert state[HAND_SIZE + seat] == 5
    assert state[DECK_N] == 80 - 22 - 10
    assert (state[OWNER:OWNER + 11] == -1).all(), "territories start face down"
    assert sorted(state[TERR_CARD:TERR_CARD + 11]) == list(range(11))
    assert state[PLAYER] == P1 and state[PHASE] == MAIN


def test_observe_hides_other_hand_draw_pile_and_face_down_territories():
    t = Table().hand(P1, K("red")).hand(P2, E("blue")).territory(0, "avalon", P1)
    obs = np.empty_like(t.state)
    r.observe(t.params, t.state, P1, obs)
    assert obs[r.HAND + r.N_TYPES + E("blue")] == -2
    assert obs[r.HAND + K("red")] == 1
    assert obs[HAND_SIZE + P2] == 1, "the size of a hand is seen"
    assert obs[TERR_CARD] == t.state[TERR_CARD], "a revealed territory is seen"
    assert (obs[TERR_CARD + 1:TERR_CARD + 11] == -2).all()
    assert (obs[DECK:DECK + t.state[DECK_N]] == -2).all()


# ------------------------------------------------------------------ strengthen
def test_strengthen_lays_any_hand_card_on_own_side():
    t = Table().hand(P1, E("green"), K("red"))
    assert strengthen(E("green"), 4) in t.legal() and strengthen(K("red"), 10) in t.legal()
    assert strengthen(K("blue"), 4) not in t.legal(), "only cards in hand"
    t.play(strengthen(E("green"), 4))
    assert t.stack(P1, 4) == [E("green")] and t.hand_of(P1) == {K("red"): 1}
    assert t.state[PHASE] == MAIN and t.state[PLAYER] == P1, "still on turn"
    assert t.item(P1, "enchantress_green:strengthen") == 1


def test_playing_nothing_is_allowed():
    t = Table().hand(P1, K("red"))
    assert r.END_PLAYS in t.legal()
    t.play(r.END_PLAYS)
    assert t.state[PHASE] == SUPPLY


# ------------------------------------------------------------------ enchant
def test_enchant_needs_an_enchantress_of_the_top_enemy_cards_colour():
    t = Table().pile(P2, 3, K("red"), K("blue")).hand(P1, E("red"), K("blue"))
    assert enchant(3) not in t.legal(), "top card is blue; a red enchantress cannot enchant it"
    t2 = Table().pile(P2, 3, K("red"), K("blue")).hand(P1, E("blue"))
    assert enchant(3) in t2.legal()
    assert enchant(5) not in t2.legal(), "nothing to enchant at an empty side"


def test_enchant_without_counter_spell_brings_the_card_over():
    t = Table().pile(P2, 3, K("red"), E("blue")).hand(P1, E("blue"), K("green"))
    t.hand(P2, E("red"), K("blue"))  # no blue enchantress: no counter-spell possible
    t.play(enchant(3))
    assert t.stack(P1, 3) == [E("blue"), E("blue")], "enchanted card on the new enchantress"
    assert t.stack(P2, 3) == [K("red")]
    assert t.state[PHASE] == MAIN and t.state[PLAYER] == P1
    assert t.item(P1, "enchantment:succeeded") == 1
    assert t.item(P1, "enchantress_blue:enchant") == 1


def test_counter_spell_is_the_defenders_decision_and_he_gets_the_enchantress():
    t = Table().pile(P2, 3, K("yellow")).hand(P1, E("yellow"), K("green"))
    t.hand(P2, E("yellow"))
    t.play(enchant(3))
    assert t.state[PHASE] == COUNTER and r.to_move(t.state) == P2
    assert t.legal() == [r.COUNTER_NO, r.COUNTER_YES]
    t.play(r.COUNTER_YES)
    assert t.stack(P2, 3) == [K("yellow"), E("yellow")], "attacked card and counter-spell stay"
    assert t.stack(P1, 3) == []
    assert t.hand_of(P2) == {E("yellow"): 1}, "the attacking enchantress goes to the defender"
    assert t.hand_of(P1) == {K("green"): 1}
    assert t.state[PHASE] == MAIN and r.to_move(t.state) == P1, "the player stays on turn"
    assert t.item(P1, "enchantment:warded_off") == 1
    assert t.item(P2, "enchantress_yellow:counter_spell") == 1


def test_defender_may_decline_the_counter_spell():
    t = Table().pile(P2, 3, K("yellow")).hand(P1, E("yellow")).hand(P2, E("yellow"))
    t.play(enchant(3)).play(r.COUNTER_NO)
    assert t.stack(P1, 3) == [E("yellow"), K("yellow")] and t.stack(P2, 3) == []


# ------------------------------------------------------------------ attack
def test_attack_needs_at_least_as_many_cards_before_laying_the_knight():
    t = Table().pile(P1, 2, K("red")).pile(P2, 2, K("red"), K("blue")).hand(P1, K("green"))
    assert attack(K("green"), 2) not in t.legal(), "1 against 2"
    t.pile(P1, 2, E("red"))
    assert attack(K("green"), 2) in t.legal(), "2 against 2"
    assert attack(K("green"), 5) in t.legal(), "0 against 0 at an empty slot"


def test_only_knights_from_hand_attack_without_the_stone_circle():
    t = Table().hand(P1, E("red"))
    assert not any(r.ATTACK <= m < r.COUNTER_NO for m in t.legal())


def test_an_enchanted_knight_cannot_attack():
    """An enchanted card lands in the layout, never in the hand, and attacks come from the
    hand: the knight brought over can never be the attacking card."""
    t = Table().pile(P2, 3, K("blue")).hand(P1, E("blue"))
    t.play(enchant(3))
    assert t.stack(P1, 3)[-1] == K("blue")
    assert not any(r.ATTACK <= m < r.COUNTER_NO for m in t.legal())


def test_own_territory_cannot_be_attacked():
    t = Table().territory(4, "plain_a", P1).hand(P1, K("red"))
    assert attack(K("red"), 4) not in t.legal()


def test_same_colour_knight_wards_off_the_attack():
    t = Table().pile(P1, 6, E("red")).pile(P2, 6, K("blue")).hand(P1, K("violet"), K("red"))
    t.hand(P2, K("violet"))
    t.play(attack(K("violet"), 6))
    assert t.state[PHASE] == DEFEND and r.to_move(t.state) == P2
    t.play(r.DEFEND_YES)
    assert t.stack(P1, 6)[-1] == K("violet") and t.stack(P2, 6)[-1] == K("violet")
    assert t.state[OWNER + 6] == -1, "not conquered"
    assert t.state[PHASE] == MAIN and r.to_move(t.state) == P1
    assert t.state[CONQUESTS] == 0
    assert t.item(P1, "attack:warded_off") == 1 and t.item(P2, "knight_violet:defend") == 1


def test_defence_ignores_the_card_counts():
    t = Table().pile(P1, 6, E("red"), E("red"), E("red")).hand(P1, K("green"))
    t.hand(P2, K("green"))
    t.play(attack(K("green"), 6)).play(r.DEFEND_YES)
    assert t.state[OWNER + 6] == -1


def test_an_enchantress_cannot_defend_and_no_matching_knight_means_no_decision():
    t = Table().hand(P1, K("green")).hand(P2, E("green"), K("red"))
    t.territory(5, "plain_a")
    t.play(attack(K("green"), 5))
    assert t.state[OWNER + 5] == P1, "conquered at once: the defender had nothing to decide"


# ------------------------------------------------------------------ conquest losses
def test_conquest_at_3_to_1_one_each_then_four_more():
    """Rulebook: 'conquered at a 3 : 1 ratio. First each discards one card; afterwards the
    conqueror must discard for this territory 3 + 1 = 4 additional cards.'"""
    t = Table().territory(2, "plain_a").pile(P1, 2, E("red"), K("blue"))
    t.pile(P2, 2, K("yellow")).hand(P1, K("green"), *[E("violet")] * 4)
    t.play(attack(K("green"), 2))
    assert t.state[OWNER + 2] == P1
    assert t.stack(P2, 2) == []
    assert t.stack(P1, 2) == [E("red"), K("blue")], "the top card (the attacker) went first"
    assert t.discarded() == 2
    assert t.state[PHASE] == LOSS and t.state[LOSS_LEFT] == 4
    for _ in range(4):
        t.play(r.LOSS_HAND + E("violet"))
    assert t.state[PHASE] == MAIN and t.discarded() == 6
    assert t.item(P1, "plain_a:conquered") == 1


def test_conquest_at_1_to_0_one_more():
    """Rulebook: 'at a 1 : 0 ratio, the conqueror at first need discard none and then
    additionally only 0 + 1 = 1 card.'"""
    t = Table().territory(8, "hill_a").hand(P1, K("red"), E("blue"))
    t.play(attack(K("red"), 8))
    assert t.stack(P1, 8) == [K("red")] and t.discarded() == 0
    assert t.state[LOSS_LEFT] == 1
    t.play(r.LOSS_LAYOUT + 8)
    assert t.stack(P1, 8) == [] and t.discarded() == 1 and t.state[PHASE] == MAIN


def test_losses_from_layout_take_the_top_card_first_anywhere():
    t = Table().territory(8, "hill_a").pile(P1, 0, K("red"), E("blue")).hand(P1, K("green"))
    t.pile(P1, 8, E("green"))  # 2 against 0 after laying: 2 more losses
    t.play(attack(K("green"), 8))
    assert t.state[LOSS_LEFT] == 2
    assert set(t.legal()) == {r.LOSS_LAYOUT + 0, r.LOSS_LAYOUT + 8}
    t.play(r.LOSS_LAYOUT + 0)
    assert t.stack(P1, 0) == [K("red")], "the top card (blue enchantress) went first"
    t.play(r.LOSS_LAYOUT + 8)
    assert t.stack(P1, 8) == [E("green")], "from the conquered territory too, top first"


def test_losses_beyond_the_conquerors_cards_are_forgiven():
    t = Table().territory(8, "hill_a").pile(P2, 8, E("red")).pile(P1, 8, K("blue"))
    t.hand(P1, K("green"))
    t.play(attack(K("green"), 8))
    # 2:1 -> each loses 1, then 3 more; only 1 card (the blue knight) is left to pay
    assert t.state[PHASE] == LOSS and t.state[LOSS_LEFT] == 3
    t.play(r.LOSS_LAYOUT + 8)
    assert t.state[PHASE] == MAIN and t.state[LOSS_LEFT] == 0


def test_losses_are_the_conquerors_decisions_one_card_at_a_time():
    t = Table().territory(8, "hill_a").hand(P1, K("red"), E("blue"), K("green"))
    t.play(attack(K("red"), 8))
    assert r.to_move(t.state) == P1
    assert set(t.legal()) == {r.LOSS_HAND + E("blue"), r.LOSS_HAND + K("green"),
                              r.LOSS_LAYOUT + 8}


# ------------------------------------------------------------------ castles
def _castle_table(p1_cards):
    t = Table().territory(1, "castle_hill", P2).pile(P2, 1, K("red"))
    t.pile(P1, 1, *p1_cards).hand(P1, K("green"), *[E("violet")] * 6)
    return t


def test_castle_attacker_needs_one_more_card():
    assert attack(K("green"), 1) not in _castle_table([E("red")]).legal()
    assert attack(K("green"), 1) in _castle_table([E("red"), E("blue")]).legal()


def test_castle_held_by_one_card_five_more_lost():
    """Rulebook: owner has 1 card; the attacker has 2 before attacking; after the conquest
    1 card from each side is discarded; then 3 (own side) + 1 (enemy) + 1 (castle) = 5."""
    t = _castle_table([E("red"), E("blue")])
    t.play(attack(K("green"), 1))
    assert t.state[OWNER + 1] == P1 and t.discarded() == 2
    assert t.stack(P1, 1) == [E("red"), E("blue")]
    assert t.state[LOSS_LEFT] == 5
    assert t.item(P2, "castle_hill:lost") == 1


def test_a_face_down_castle_has_no_bonus():
    t = Table().territory(1, "castle_hill").pile(P2, 1, K("red")).pile(P1, 1, E("red"))
    t.hand(P1, K("green"), *[E("violet")] * 3)
    assert attack(K("green"), 1) in t.legal()
    t.play(attack(K("green"), 1))
    assert t.state[LOSS_LEFT] == 3, "2 + 1, no castle loss on its first conquest"


def test_castle_bonus_is_only_against_its_owner():
    t = Table().territory(1, "castle_hill", P1).pile(P1, 1, K("red")).set(PLAYER, P2)
    t.hand(P2, K("green"), E("red"))
    t.pile(P2, 1, E("blue"))
    assert attack(K("green"), 1) not in t.legal(), "P1 owns it: 1 + castle against 1"


# ------------------------------------------------------------------ Avalon
def test_avalon_one_loss_fewer():
    """Rulebook: 'Whoever after a conquest would have to give up an additional 3 cards
    loses only 2 cards.'"""
    t = Table().territory(0, "avalon", P1).territory(5, "plain_a").pile(P1, 5, E("red"))
    t.pile(P2, 5, E("blue")).hand(P1, K("green"), *[E("violet")] * 4)
    t.play(attack(K("green"), 5))
    assert t.state[LOSS_LEFT] == 3 and r.LOSS_AVALON in t.legal()
    t.play(r.LOSS_AVALON)
    assert t.state[LOSS_LEFT] == 2 and t.state[AVALON_USED] == 1
    t.play(r.LOSS_HAND + E("violet")).play(r.LOSS_HAND + E("violet"))
    assert t.state[PHASE] == MAIN and t.hand_of(P1) == {E("violet"): 2}
    assert t.item(P1, "avalon_reduction:used") == 1


def test_avalon_only_once_a_turn_on_the_conquest_of_ones_choice():
    t = Table().territory(0, "avalon", P1).territory(5, "plain_a").territory(6, "plain_b")
    t.hand(P1, K("green"), K("red"), *[E("violet")] * 6)
    t.play(attack(K("green"), 5))
    assert r.LOSS_AVALON in t.legal()
    t.play(r.LOSS_HAND + E("violet"))  # pays the first conquest in full
    t.play(attack(K("red"), 6))
    assert r.LOSS_AVALON in t.legal(), "saved for the second conquest"
    t.play(r.LOSS_AVALON)
    assert t.state[PHASE] == MAIN
    t.set(CONQUESTS, 0)  # a third conquest in the same turn (test only): no Avalon left
    t.territory(7, "hill_a").hand(P1, K("blue"))
    t.play(attack(K("blue"), 7))
    assert r.LOSS_AVALON not in t.legal()


def test_avalon_works_again_next_turn():
    t = Table().territory(0, "avalon", P1).set(AVALON_USED, 1).hand(P1, K("red"))
    t.play(r.END_PLAYS).play(r.SUPPLY_TILE + 0)
    assert t.state[AVALON_USED] == 0


# ------------------------------------------------------------------ stone circle
def test_stone_circle_lets_enchantresses_attack_and_knights_still_defend():
    t = Table().territory(0, "stone_circle", P1).territory(4, "plain_a")
    t.hand(P1, E("red"), E("red")).hand(P2, K("red"))
    assert attack(E("red"), 4) in t.legal()
    t.play(attack(E("red"), 4))
    assert t.state[PHASE] == DEFEND, "a red knight wards off the red enchantress"
    t.play(r.DEFEND_YES)
    assert t.stack(P2, 4) == [K("red")]
    t.play(attack(E("red"), 4 + 1))
    assert t.state[OWNER + 5] == P1
    assert t.item(P1, "enchantress_red:attack") == 2


def test_stone_circle_works_in_the_turn_it_is_conquered():
    t = Table().territory(0, "stone_circle").hand(P1, K("red"), E("blue"), E("green"))
    assert attack(E("blue"), 3) not in t.legal()
    t.play(attack(K("red"), 0)).play(r.LOSS_HAND + E("green"))
    assert attack(E("blue"), 3) in t.legal()


# ------------------------------------------------------------------ conquest limit, owners
def test_at_most_two_conquests_a_turn_failed_attacks_do_not_count():
    t = Table().hand(P1, *[K("red")] * 6).hand(P2, K("red"))
    t.territory(3, "plain_a").territory(4, "plain_b").territory(5, "hill_a")
    t.play(attack(K("red"), 3)).play(r.DEFEND_YES)
    t.play(attack(K("red"), 4)).play(r.LOSS_HAND + K("red"))
    t.play(attack(K("red"), 5)).play(r.LOSS_HAND + K("red"))
    assert t.state[CONQUESTS] == 2
    assert not any(r.ATTACK <= m < r.COUNTER_NO for m in t.legal())


def test_conquering_an_enemy_territory_turns_it_over():
    t = Table().territory(4, "forest", P2).hand(P1, K("red"), K("blue"))
    t.play(attack(K("red"), 4))
    assert t.state[OWNER + 4] == P1
    assert t.item(P2, "forest:lost") == 1 and t.item(P1, "forest:conquered") == 1


# ------------------------------------------------------------------ supply
def _owner_of(t, seat, names):
    for slot, name in enumerate(names):
        if name:
            t.territory(slot, name, seat)
    return t


def test_supply_terrain_example_gives_2_light_and_4_dark():
    """Rulebook: 2 x forest, 1 x plain, 1 x hill gives 2 cards (light) and 4 (dark)."""
    t = _owner_of(Table(), P1, ["castle_forest", "forest", "plain_a", "hill_a"])
    assert r.tile_cards(t.state, P1, S.TILE_TERRAIN_LIGHT) == 2
    assert r.tile_cards(t.state, P1, S.TILE_TERRAIN_DARK) == 4


def test_supply_connected_example_avalon_between_gives_3():
    """Rulebook: 4 adjacent territories with Avalon between them give 3 cards."""
    t = _owner_of(Table(), P1, [None, "plain_a", "avalon", "hill_a", "forest"])
    assert r.tile_cards(t.state, P1, S.TILE_CONNECTED_LIGHT) == 3
    t.territory(7, "hill_b", P1)
    assert r.tile_cards(t.state, P1, S.TILE_CONNECTED_LIGHT) == 3, "gap at 5, 6"


def test_a_face_down_or_enemy_territory_interrupts_the_connected_area():
    t = _owner_of(Table(), P1, ["plain_a", None, "hill_a"])
    assert r.tile_cards(t.state, P1, S.TILE_CONNECTED_LIGHT) == 1
    t.territory(1, "forest", P2)
    assert r.tile_cards(t.state, P1, S.TILE_CONNECTED_LIGHT) == 1


def test_supply_per_territory_skips_avalon_and_swamp():
    t = _owner_of(Table(), P1, ["avalon", "swamp", "plain_a", "hill_a"])
    assert r.tile_cards(t.state, P1, S.TILE_PER_TERRITORY_DARK) == 2
    assert r.tile_cards(t.state, P1, S.TILE_FIXED_DARK) == 4
    assert r.tile_cards(t.state, P1, S.TILE_FIXED_LIGHT) == 2


def test_light_tile_draws_now_dark_tile_at_the_start_of_the_next_turn():
    t = Table()
    t.play(r.END_PLAYS).play(r.SUPPLY_TILE + S.TILE_FIXED_LIGHT)
    assert t.state[HAND_SIZE + P1] == 2 and t.state[PLAYER] == P2
    t.play(r.END_PLAYS).play(r.SUPPLY_TILE + S.TILE_FIXED_DARK)
    assert t.state[HAND_SIZE + P2] == 0 and t.state[DARK_PENDING + P2] == S.TILE_FIXED_DARK
    t.play(r.END_PLAYS).play(r.SUPPLY_TILE + S.TILE_FIXED_LIGHT)
    assert t.state[PLAYER] == P2 and t.state[HAND_SIZE + P2] == 4
    assert t.state[DARK_PENDING + P2] == -1


def test_dark_tile_counts_territories_when_drawn():
    """'if the opponent conquers territories on his turn, he can see to it that one receives
    fewer cards than planned'"""
    t = _owner_of(Table(), P1, ["plain_a", "hill_a", "forest"])
    t.play(r.END_PLAYS).play(r.SUPPLY_TILE + S.TILE_PER_TERRITORY_DARK)
    t.hand(P2, K("red"))
    t.play(attack(K("red"), 0)).play(r.LOSS_LAYOUT + 0)
    t.play(r.END_PLAYS).play(r.SUPPLY_TILE + S.TILE_FIXED_LIGHT)
    assert t.state[PLAYER] == P1 and t.state[HAND_SIZE + P1] == 2


def test_used_tiles_are_turned_over_when_all_nine_are_used():
    t = Table()
    taken = []
    for _ in range(9):
        kind = next(k for k in range(6) if t.state[TILE_AVAIL + k] > 0)
        taken.append(kind)
        t.play(r.END_PLAYS)
        while t.state[PHASE] != SUPPLY:
            t.play(t.legal()[0])
        t.play(r.SUPPLY_TILE + kind)
        while t.state[PHASE] == DISCARD_PHASE:
            t.play(t.legal()[0])
        if len(taken) < 9:
            assert t.state[TILE_AVAIL + kind] == [2, 2, 1, 2, 1, 1][kind] - taken.count(kind)
    assert t.state[TILE_AVAIL:TILE_AVAIL + 6].sum() == 0
    t.play(r.END_PLAYS)
    lying = t.state[DARK_PENDING + 1 - t.state[PLAYER]]
    assert t.state[TILE_AVAIL:TILE_AVAIL + 6].sum() == 9 - (lying >= 0)


def test_hand_limit_after_drawing_is_paid_by_the_players_discards():
    t = Table().hand(P1, *[K("red")] * 4, E("blue"))
    t.play(r.END_PLAYS).play(r.SUPPLY_TILE + S.TILE_FIXED_LIGHT)
    assert t.state[PHASE] == DISCARD_PHASE and t.state[HAND_SIZE + P1] == 7
    t.play(r.DISCARD_CARD + E("blue"))
    assert t.state[PHASE] == DISCARD_PHASE
    t.play(t.legal()[0])
    assert t.state[PLAYER] == P2 and t.state[HAND_SIZE + P1] == 5


def test_any_number_of_cards_during_the_turn():
    t = Table().hand(P1, *[K("red")] * 3).hand(P2, *[K("blue")] * 4)
    t.play(r.END_PLAYS).play(r.SUPPLY_TILE + S.TILE_FIXED_DARK)
    t.play(r.END_PLAYS).play(r.SUPPLY_TILE + S.TILE_FIXED_DARK)
    assert t.state[PLAYER] == P1 and t.state[HAND_SIZE + P1] == 7, "no limit at the start"


def test_empty_draw_pile_reshuffles_the_discard_pile():
    t = Table()
    while t.state[DECK_N] > 2:
        t.discard(int(t.state[DECK + t.state[DECK_N] - 1]))
    t.play(r.END_PLAYS).play(r.SUPPLY_TILE + S.TILE_FIXED_DARK)
    t.play(r.END_PLAYS).play(r.SUPPLY_TILE + S.TILE_FIXED_LIGHT)
    assert t.state[HAND_SIZE + P1] == 4
    assert t.state[DECK_N] == 80 - 2 - 4


# ------------------------------------------------------------------ winning
def _crowns_table(names):
    return _owner_of(Table(), P1, names)


def test_win_at_the_end_of_the_turn_with_15_crowns():
    # 3 + 2 + 2 + 3 + 3 = 13, and a 2-crown hill_a to conquer
    t = _crowns_table(["castle_hill", "castle_forest", "castle_plain", "plain_a", "plain_b"])
    t.territory(8, "hill_a").hand(P1, K("red"), E("blue"))
    t.play(attack(K("red"), 8)).play(r.LOSS_HAND + E("blue"))
    assert r.crowns(t.state, P1) == 15
    assert not r.is_over(t.state), "only at the end of the turn"
    t.play(r.END_PLAYS).play(r.SUPPLY_TILE + S.TILE_FIXED_DARK)
    assert r.is_over(t.state) and t.state[WINNER] == P1
    scores, ranks = np.zeros(2), np.zeros(2, np.int32)
    assert r.END_REASONS[r.finish(t.params, t.state, scores, ranks)] == "crowns_reached"
    assert ranks.tolist() == [1, 2] and scores.tolist() == [15, 0]
    assert t.item(P1, "hill_a:held_at_end") == 1


def test_14_crowns_do_not_win():
    t = _crowns_table(["castle_hill", "castle_forest", "castle_plain", "plain_a", "swamp",
                       "stone_circle", "avalon"])
    assert r.crowns(t.state, P1) == 14
    t.play(r.END_PLAYS).play(r.SUPPLY_TILE + S.TILE_FIXED_DARK)
    assert not r.is_over(t.state) and t.state[TURNS] == 1


def test_win_threshold_is_a_designers_number():
    t = Table(overrides={"rules.win_crowns": 3}).territory(0, "plain_a", P1)
    t.play(r.END_PLAYS).play(r.SUPPLY_TILE + S.TILE_FIXED_DARK)
    assert t.state[WINNER] == P1


def test_exhausted_cards_end_the_game_on_crowns():
    t = Table().territory(0, "plain_a", P2)
    while t.state[DECK_N] > 0:
        t.pile(P1, 3, int(t.state[DECK + t.state[DECK_N] - 1]))
    t.play(r.END_PLAYS).play(r.SUPPLY_TILE + S.TILE_FIXED_LIGHT)
    assert r.is_over(t.state)
    scores, ranks = np.zeros(2), np.zeros(2, np.int32)
    assert r.END_REASONS[r.finish(t.params, t.state, scores, ranks)] == "cards_exhausted"
    assert ranks.tolist() == [2, 1]


@pytest.mark.parametrize("bad", [{"setup.hand": 20, "setup.cards_per_side": 3}])
def test_impossible_setups_are_refused(bad):
    with pytest.raises(SimkitError):
        Table(overrides=bad)


def test_avalon_reduces_the_losses_of_its_own_conquest():
    """'the special functions of conquered territory cards apply from now on': Avalon is
    turned to the conqueror before the losses are paid."""
    t = Table().territory(6, "avalon").hand(P1, K("red"), E("blue"))
    t.play(attack(K("red"), 6))
    assert t.state[LOSS_LEFT] == 1 and r.LOSS_AVALON in t.legal()
    t.play(r.LOSS_AVALON)
    assert t.state[PHASE] == MAIN and t.hand_of(P1) == {E("blue"): 1}


def test_a_dark_tile_lying_before_a_player_is_not_turned_over():
    t = Table()
    t.state[TILE_AVAIL:TILE_AVAIL + 6] = 0
    t.set(DARK_PENDING + P2, S.TILE_FIXED_DARK)
    t.state[TILE_AVAIL + S.TILE_FIXED_LIGHT] = 0
    r.go_to_supply(t.state)
    assert t.state[TILE_AVAIL:TILE_AVAIL + 6].tolist() == [2, 2, 1, 1, 1, 1]


def test_only_a_knight_wards_off_an_enchantress_attacking_through_the_stone_circle():
    t = Table().territory(0, "stone_circle", P1).territory(4, "plain_a")
    t.hand(P1, E("red"), E("blue")).hand(P2, E("red"))
    t.play(attack(E("red"), 4))
    assert t.state[OWNER + 4] == P1, "a red enchantress cannot defend"


def test_the_player_on_turn_wins_not_the_other():
    t = _owner_of(Table(), P2, ["castle_hill", "castle_forest", "castle_plain", "plain_a",
                                "plain_b", "hill_b"])
    assert r.crowns(t.state, P2) == 16
    t.play(r.END_PLAYS).play(r.SUPPLY_TILE + S.TILE_FIXED_DARK)
    assert t.state[WINNER] == -1, "P2's crowns count at the end of P2's turn"
    t.play(r.END_PLAYS).play(r.SUPPLY_TILE + S.TILE_FIXED_DARK)
    assert t.state[WINNER] == P2


def test_exhausted_cards_can_be_scored_as_a_draw():
    t = Table(overrides={"rules.cards_exhausted": "draw"}).territory(0, "plain_a", P2)
    while t.state[DECK_N] > 0:
        t.pile(P1, 3, int(t.state[DECK + t.state[DECK_N] - 1]))
    t.play(r.END_PLAYS).play(r.SUPPLY_TILE + S.TILE_FIXED_LIGHT)
    scores, ranks = np.zeros(2), np.zeros(2, np.int32)
    assert r.END_REASONS[r.finish(t.params, t.state, scores, ranks)] == "cards_exhausted"
    assert ranks.tolist() == [1, 1]


def test_check_state_catches_a_lost_card_a_bad_phase_and_changed_rules():
    t = Table().hand(P1, K("red"))
    assert not t.check()
    t.state[r.HAND + K("red")] = 0  # the card vanishes (hand size still says 1)
    assert any("hand size" in p for p in t.check())
    assert any("cards by type" in p for p in t.check())
    t = Table().set(PHASE, LOSS)
    assert any("losses owed" in p for p in t.check())
    t = Table()
    t.state[S.M_WIN] = 99
    assert any("RULES block" in p for p in t.check())


# ------------------------------------------------------------------ the card lists as data
def test_one_field_override_changes_play_as_the_field_says():
    """--set territories.swamp.crowns=2: the 14 crowns that do not win above make 15."""
    held = ["castle_hill", "castle_forest", "castle_plain", "plain_a", "swamp", "stone_circle",
            "avalon"]
    for swamp, wins in ((1, False), (2, True)):
        t = _owner_of(Table(overrides={"territories.swamp.crowns": swamp}), P1, held)
        assert r.crowns(t.state, P1) == 13 + swamp
        t.play(r.END_PLAYS).play(r.SUPPLY_TILE + S.TILE_FIXED_DARK)
        assert r.is_over(t.state) == wins and (t.state[WINNER] == P1) == wins


def test_a_territory_renamed_in_its_list_is_reported_and_told_under_its_new_name():
    from simkit import data
    from simkit.games.avalon import GAME, territory_names
    from simkit.games.avalon.transcript import describe_setup

    assert [n for n, _ in data.table(GAME.data, "territories")] == r.TERRITORY_NAMES
    rows = [{"name": "bog" if n == "swamp" else n, **{f: p.value for f, p in row.items()}}
            for n, row in data.table(GAME.data, "territories")]
    t = Table(overrides={"territories": rows})
    assert territory_names(t.params)[r.TERRITORY_NAMES.index("swamp")] == "bog"
    assert "bog:conquered" in t.plan.item_columns and "swamp:conquered" not in \
        t.plan.item_columns
    assert "bog" in describe_setup(t.params, 2, t.state)[-2]
    with pytest.raises(SimkitError, match="the row has 11 territory cards"):
        Table(overrides={"territories": rows[:10]})
