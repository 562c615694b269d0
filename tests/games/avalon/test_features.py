"""The features kernel (NOTES.md, Features (issue 29)): every entry on a built state, read
through ``observe`` for a seat, as a learnt player reads it; the two seats' views of one
state swap the side blocks. Slots are 0-based; P1 is on turn unless a test says otherwise.
The generic checks (finite, every entry written, one vector for one observation) are in
tests/test_features.py."""

import numpy as np
import pytest
from avalon_table import E, K, Table, attack, enchant

from simkit import registry
from simkit.games.avalon import rules as r
from simkit.games.avalon import state as S

P1, P2 = 0, 1
FEATURES = registry.get_game("avalon").features
SIDE = r.SIDE_FEATURES
WORTH = 24 / 11 / 4          # a card in crowns (the progress measure's card_crowns)
SMALL_DECK = {"cards.colours": 2, "cards.knights_per_colour": 2,
              "cards.enchantresses_per_colour": 2, "setup.cards_per_side": 0, "setup.hand": 0}


def features(t, seat):
    """The seat's vector of ``t``'s state, as a dict by name."""
    obs = np.empty_like(t.state)
    r.observe(t.params, t.state, seat, obs)
    out = np.full(len(FEATURES), np.nan)
    r.features(t.params, obs, seat, out)
    assert np.isfinite(out).all()
    return dict(zip(FEATURES, out.tolist(), strict=True))


def check(f, **expected):
    got = {name: f[name] for name in expected}
    assert got == pytest.approx(expected), {n: (got[n], v) for n, v in expected.items()
                                            if got[n] != pytest.approx(v)}


def test_the_names_are_the_specs_and_unique():
    assert FEATURES == r.FEATURES and len(set(FEATURES)) == len(FEATURES) == 71
    assert FEATURES[:2 * len(SIDE)] == tuple(f"own_{n}" for n in SIDE) + tuple(
        f"next_{n}" for n in SIDE)


# ---- the board of each side, and the two views of it -----------------------------------------

def board():
    """P1 holds castle_hill, Avalon, plain_a, hill_a (slots 0-3); P2 the stone circle and
    the forest (9, 10); slots 4-8 face down (castle_forest, castle_plain, swamp, plain_b,
    hill_b: 11 crowns, 2.2 each)."""
    t = Table()
    for slot, name in enumerate(("castle_hill", "avalon", "plain_a", "hill_a")):
        t.territory(slot, name, P1)
    t.territory(9, "stone_circle", P2).territory(10, "forest", P2)
    t.pile(P1, 0, K("red")).pile(P1, 2, K("blue"), E("blue")).pile(P1, 3, *[E("red")] * 4)
    t.pile(P1, 4, K("green"), K("green")).pile(P1, 9, K("yellow"), K("yellow"))
    t.pile(P2, 0, K("violet"), K("violet")).pile(P2, 2, E("red")).pile(P2, 4, E("yellow"))
    t.pile(P2, 5, K("blue")).pile(P2, 6, K("yellow")).pile(P2, 9, E("green"))
    t.pile(P2, 10, K("green"))
    t.hand(P1, K("red"), K("red"), E("green"), E("yellow"))
    t.hand(P2, K("blue"), E("violet"), E("violet"))
    return t.discard(K("red"), E("red")).set(S.TURNS, 40)


def test_each_sides_territories_cards_and_supply_counts():
    f = features(board(), P1)
    check(f, own_crowns=9, own_territories=4, own_castles=1, own_avalon=1, own_stone_circle=0,
          own_hand_cards=4, own_layout_cards=11, own_guard_cards=7, own_most_terrain=2,
          own_largest_connected=3, own_terrain_territories=3)     # Avalon neither counts
    check(f, next_crowns=4, next_territories=2, next_castles=0, next_avalon=0,  # nor breaks
          next_stone_circle=1, next_hand_cards=3, next_layout_cards=8, next_guard_cards=2,
          next_most_terrain=2, next_largest_connected=2, next_terrain_territories=2)


def test_crowns_open_now_and_next_turn():
    f = features(board(), P1)
    # now: P2's side reaches castle_hill's guard + castle (2 >= 1 + 1) and Avalon's (0 >= 0)
    # next turn, with his 3 cards: plain_a too (lay 1, then attack); hill_a's 4 guards hold
    check(f, own_crowns_open_now=3 + 1, own_crowns_open_next_turn=3 + 1 + 3)
    # P1 reaches the stone circle now (2 >= 1); with 4 cards, the forest too (lay 1, attack)
    check(f, next_crowns_open_now=2, next_crowns_open_next_turn=2 + 2)


def test_slots_its_side_can_attack_and_the_crowns_within_reach():
    f = features(board(), P1)
    # P1: face-down 4, 7, 8 and the stone circle; the two richest: two face-down at 2.2
    check(f, own_slots_attackable=4, own_face_down_attackable=3,
          own_crowns_in_reach=9 + 2.2 + 2.2)
    # P2: castle_hill (2 >= 1 + castle), Avalon, face-down 5-8; castle_hill 3 + one at 2.2
    check(f, next_slots_attackable=6, next_face_down_attackable=4,
          next_crowns_in_reach=4 + 3 + 2.2, next_cheapest_conquest_cards=1)


def test_progress_is_the_games_measure_from_each_view():
    t = board()
    true = np.empty(2)
    r.progress(t.params, t.state, true)
    assert true[P1] == pytest.approx(9 + WORTH * 15 - r.AT_RISK * 4)
    for seat in (P1, P2):
        f = features(t, seat)
        check(f, own_progress=true[seat], next_progress=true[1 - seat],
              progress_lead=true[seat] - true[1 - seat])


def test_the_two_seats_views_swap_the_sides():
    t = board()
    one, two = features(t, P1), features(t, P2)
    for name in SIDE:
        assert one[f"own_{name}"] == two[f"next_{name}"], name
        assert one[f"next_{name}"] == two[f"own_{name}"], name
    assert (one["own_turn"], two["own_turn"]) == (1, 0)
    assert one["own_crowns"] != two["own_crowns"]


# ---- what a conquest open now costs, and how many the turn allows -----------------------------

def reach():
    """P1 holds plain_a and Avalon; P2 castle_hill (slot 4: P1 2 cards to his 1 + castle)
    and the forest (5: 1 to 2); P2 has a card at every face-down slot (7 of them, 15
    crowns)."""
    t = Table().territory(0, "plain_a", P1).territory(1, "avalon", P1)
    t.territory(4, "castle_hill", P2).pile(P2, 4, K("blue")).pile(P1, 4, K("red"), K("red"))
    t.territory(5, "forest", P2).pile(P2, 5, K("blue"), K("blue")).pile(P1, 5, K("red"))
    for slot in (2, 3, 6, 7, 8, 9, 10):
        t.pile(P2, slot, K("green"))
    return t


def test_the_cheapest_conquest_counts_pile_losses_castle_and_avalon():
    t = reach()
    # castle_hill: his 1 card takes 1 of ours, then 2 + 1 + 1 + castle 1 = 5, less Avalon's 1
    check(features(t, P1), own_slots_attackable=1, own_face_down_attackable=0,
          own_cheapest_conquest_cards=1 + 4, own_crowns_in_reach=4 + 3)
    t.set(S.AVALON_USED, 1)
    check(features(t, P1), own_cheapest_conquest_cards=1 + 5)
    # P2 (no Avalon): Avalon or plain_a, unguarded, at 0 : 0: one additional card
    check(features(t, P1), next_slots_attackable=9, next_face_down_attackable=7,
          next_cheapest_conquest_cards=1, next_crowns_in_reach=5 + 3 + 15 / 7)


def test_a_revealed_castle_needs_one_card_more():
    t = Table().territory(4, "castle_hill", P2).pile(P2, 4, K("blue")).pile(P1, 4, K("red"))
    t.hand(P1, K("green"))
    # 1 card to his 1 + castle: not yet (the 10 face-down slots are, at 0 : 0); next turn,
    # with 1 card, P1 cannot lay up and attack
    check(features(t, P1), own_slots_attackable=10, next_crowns_open_now=0,
          next_crowns_open_next_turn=0)
    t.hand(P1, K("green"))
    check(features(t, P1), own_slots_attackable=10, next_crowns_open_next_turn=3)
    t.pile(P1, 4, K("red"))
    check(features(t, P1), own_slots_attackable=11, next_crowns_open_now=3)


def test_crowns_in_reach_only_as_many_conquests_as_the_turn_allows():
    t = reach().set(S.CONQUESTS, 1)
    check(features(t, P1), own_crowns_in_reach=4 + 3, conquests_this_turn=1)
    t.set(S.CONQUESTS, 2)
    check(features(t, P1), own_crowns_in_reach=4,
          next_crowns_in_reach=5 + 3 + 15 / 7)   # the other's next turn allows two


# ---- dark tiles: the cards they bring, and the threat they make -------------------------------

def test_a_dark_tile_lying_before_a_seat_counts_for_its_next_turn():
    t = Table().territory(0, "plain_a", P1).pile(P1, 0, *[K("red")] * 3).pile(P2, 0, K("blue"))
    t.territory(2, "hill_a", P1).pile(P1, 2, K("red")).pile(P2, 2, K("blue"))
    t.territory(5, "forest", P2).territory(6, "castle_plain", P2).hand(P2, K("green"))
    t.set(S.DARK_PENDING + P2, S.TILE_PER_TERRITORY_DARK)    # 1 card a territory: 2
    f = features(t, P1)
    # his 1 + 2 cards: plain_a (3 guards to his 1: lay 2, attack) and hill_a (attack)
    check(f, next_dark_tile_cards=2, own_crowns_open_now=2, own_crowns_open_next_turn=3 + 2)
    check(features(t, P2), own_dark_tile_cards=2, next_dark_tile_cards=0)
    t.set(S.DARK_PENDING + P2, -1)
    check(features(t, P1), next_dark_tile_cards=0, own_crowns_open_next_turn=2)


# ---- hands: the seat's own exactly, the other's as far as it can count -----------------------

def test_own_hand_by_kind_and_colours():
    check(features(board(), P1), own_hand_knights=2, own_hand_enchantresses=2,
          own_knight_colours=1, own_enchantress_colours=2)
    check(features(board(), P2), own_hand_knights=1, own_hand_enchantresses=2,
          own_knight_colours=1, own_enchantress_colours=1)


def small_table():
    """8 cards (red and blue, 2 knights and 2 enchantresses each). P1 holds a red knight and
    a blue enchantress; P2's blue knight tops slot 0, P1's red enchantress slot 1; P2 holds a
    blue knight and a red enchantress, which P1 knows of (SHOWN: a counter-spell brought
    it). Unseen by P1: a red knight, a blue knight, a blue enchantress; the draw pile is 2 of
    them and P2's one unknown card the third."""
    t = Table(overrides=SMALL_DECK)
    t.hand(P1, K("red"), E("blue")).pile(P2, 0, K("blue")).pile(P1, 1, E("red"))
    t.hand(P2, K("blue"), E("red"))
    return t.set(S.SHOWN + P2 * S.N_TYPES + E("red"), 1)


def test_the_other_hand_as_counted_from_the_unseen_cards():
    f = features(small_table(), P1)
    check(f, next_hand_known=1, next_hand_knights_expected=2 / 3,
          next_hand_enchantresses_expected=1 + 1 / 3, unseen_cards=3, draw_pile=2)


def test_chances_of_an_answer_to_an_attack_or_an_enchantment():
    f = features(small_table(), P1)
    # each unseen type is his unknown card with chance 1/3; the red enchantress is known
    check(f, own_attack_unanswered=2 / 3, own_enchant_targets=1,
          own_enchant_unanswered=2 / 3, next_enchant_threats=1)
    # the last blue enchantress seen on the discard pile: no counter-spell; the red knight
    # is now one of the 2 unseen cards
    f = features(small_table().discard(E("blue")), P1)
    check(f, own_attack_unanswered=1 / 2, own_enchant_unanswered=1, unseen_cards=2)


def test_the_stone_circle_lets_enchantresses_attack():
    t = Table(overrides=SMALL_DECK).hand(P1, E("blue")).hand(P2, K("red"))
    assert features(t, P1)["own_attack_unanswered"] == 0    # no knight: no attack
    t.territory(5, "stone_circle", P1)
    # a blue knight wards it off: 2 of the 7 unseen cards, one of which is his hand
    check(features(t, P1), own_attack_unanswered=5 / 7)


# ---- the table: face-down slots, piles, supply tiles ------------------------------------------

def test_face_down_slots_piles_and_tiles():
    t = board()
    f = features(t, P1)
    check(f, face_down_slots=5, face_down_crowns_each=2.2, draw_pile=80 - 26 - 2,
          discard_pile=2, unseen_cards=80 - 26 - 2 + 3, tiles_face_up=9,
          own_best_light_tile=3, own_best_dark_tile=4)     # 3 connected; 4 cards
    check(features(t, P2), own_best_light_tile=2, own_best_dark_tile=4)
    for kind in (S.TILE_CONNECTED_LIGHT, S.TILE_FIXED_DARK, S.TILE_TERRAIN_DARK):
        t.set(S.TILE_AVAIL + kind, 0)
    check(features(t, P1), tiles_face_up=5, own_best_light_tile=2,
          own_best_dark_tile=3)                             # 1 card a territory with terrain
    for kind in range(S.N_TILE_KINDS):
        t.set(S.TILE_AVAIL + kind, 0)
    # none face up: the choice will find them all turned over again
    check(features(t, P1), tiles_face_up=0, own_best_light_tile=3, own_best_dark_tile=4)


# ---- the turn: its count, whose it is, the phase of the decision -----------------------------

def test_turns_played_and_the_fraction_of_the_cap():
    check(features(board(), P1), turns_played=40, turns_fraction_of_cap=40 / 400)
    t = Table(overrides={"max_turns": 80}).set(S.TURNS, 20)
    check(features(t, P2), turns_played=20, turns_fraction_of_cap=0.25, own_turn=0)


def phases(f):
    return [n for n in ("phase_play", "phase_answer", "phase_losses", "phase_supply",
                        "phase_discard") if f[n] == 1]


def test_the_phases_of_a_turn_an_attack_and_its_losses():
    t = Table().territory(1, "avalon", P1).territory(3, "plain_b")
    t.hand(P1, K("red"), *[K("blue")] * 4).hand(P2, K("red"))
    f = features(t, P1)
    assert phases(f) == ["phase_play"] and f["own_turn"] == 1
    t.play(attack(K("red"), 3))                        # P2 holds a red knight: he answers
    f = features(t, P2)
    assert phases(f) == ["phase_answer"] and f["own_turn"] == 0
    check(f, announced_attack_crowns=23 / 10, announced_enchantment=0)   # face down
    t.play(r.DEFEND_NO)                                # conquered at 1 : 0: one more card
    f = features(t, P1)
    assert phases(f) == ["phase_losses"]
    check(f, losses_owed=1, conquests_this_turn=1, avalon_used_this_turn=0,
          announced_attack_crowns=0, own_crowns=1 + 3)
    t.play(r.LOSS_AVALON)
    f = features(t, P1)
    assert phases(f) == ["phase_play"]
    check(f, losses_owed=0, avalon_used_this_turn=1)
    t.play(r.END_PLAYS)
    assert phases(features(t, P1)) == ["phase_supply"]
    t.play(r.SUPPLY_TILE + S.TILE_FIXED_LIGHT)         # 4 + 2 cards: over the hand limit
    assert phases(features(t, P1)) == ["phase_discard"]


def test_an_announced_enchantment_and_its_card_in_the_air():
    t = Table().pile(P2, 5, K("green")).hand(P1, E("green")).hand(P2, E("green"))
    t.play(enchant(5))
    assert t.state[S.PHASE] == S.COUNTER
    for seat in (P1, P2):
        f = features(t, seat)
        assert phases(f) == ["phase_answer"]
        check(f, announced_enchantment=1, announced_attack_crowns=0)
    # P1's enchantress is in the air: not unseen; P2's one card is
    check(features(t, P1), unseen_cards=t.state[S.DECK_N] + 1)


# ---- cost ------------------------------------------------------------------------------------
