"""The move_features kernel (NOTES.md, Move features): every entry on a built state, read
through ``observe`` for the deciding seat, as a policy reads it; one vector for two true
states with one observation; finite over random play. Slots are 0-based; P1 is on turn
unless a test says otherwise. ``simkit check`` (tests/test_check.py) runs the generic
contract on every legal move of random play too."""

import numpy as np
import pytest
from avalon_table import E, K, Table, attack, enchant, strengthen

from simkit import registry
from simkit.game import HIDDEN
from simkit.games.avalon import rules as r
from simkit.games.avalon import state as S

P1, P2 = 0, 1
NAMES = registry.get_game("avalon").move_features
SMALL_DECK = {"cards.colours": 2, "cards.knights_per_colour": 2,
              "cards.enchantresses_per_colour": 2, "setup.cards_per_side": 0, "setup.hand": 0}


def move_features(t, move, seat=None):
    """The deciding seat's vector of a legal ``move`` in ``t``'s state, by name."""
    assert move in t.legal(), (move, t.legal())
    seat = int(r.to_move(t.state)) if seat is None else seat
    obs = np.empty_like(t.state)
    r.observe(t.params, t.state, seat, obs)
    out = np.full(len(NAMES), np.nan)
    r.move_features(t.params, obs, seat, move, out)
    assert np.isfinite(out).all()
    return dict(zip(NAMES, out.tolist(), strict=True))


def check(f, **expected):
    """``expected`` the entries not 0; every other 0 (the kind of move and its card's kind
    and colour are in its code, which the policy reads apart)."""
    want = {name: 0.0 for name in NAMES} | expected
    assert f == pytest.approx(want), {n: (f[n], v) for n, v in want.items()
                                      if f[n] != pytest.approx(v)}


def test_the_names_are_the_specs_and_unique():
    assert NAMES == r.MOVE_FEATURES and len(set(NAMES)) == len(NAMES) == 25


# ---- strengthening: the card, the slot, what it opens and closes -----------------------------

def guarded():
    """P1 holds castle_hill (0), plain_a (2) and hill_a (3), P2 Avalon (1) between them
    (revealed: skipped, so slot 2 touches 0 and 3). At plain_a P1 has a red knight to P2's
    blue knight: open to P2's attack now. P2 has a card at face-down slot 6. P1 holds two
    knights and an enchantress, P2 two cards."""
    t = Table().territory(0, "castle_hill", P1).territory(1, "avalon", P2)
    t.territory(2, "plain_a", P1).territory(3, "hill_a", P1)
    t.pile(P1, 2, K("red")).pile(P2, 2, K("blue")).pile(P2, 6, E("violet"))
    t.pile(P1, 0, K("violet"), K("violet")).pile(P1, 3, K("violet"), K("violet"))
    return t.hand(P1, K("red"), K("green"), E("blue")).hand(P2, K("yellow"), E("yellow"))


def test_strengthening_an_own_territory_open_to_attack_closes_it():
    f = move_features(guarded(), strengthen(K("green"), 2))
    # plain_a (3 crowns): 2 : 1 after, no longer open now; next turn P2 lays 1 and attacks
    # with his 2 cards, as before
    check(f, card_copies=1, slot_crowns=3, slot_own=1,
          slot_own_cards=1, slot_next_cards=1, slot_adjacent_own=2, slot_margin_after=1,
          own_open_now_change=-3)
    t = guarded()
    t.state[S.HAND + P2 * S.N_TYPES + E("yellow")] -= 1       # P2 down to one card
    t.state[S.HAND_SIZE + P2] -= 1
    t.state[S.DISCARD + E("yellow")] += 1
    f = move_features(t, strengthen(K("green"), 2))
    assert f["own_open_next_turn_change"] == -3                # one card cannot lay and attack


def test_strengthening_a_face_down_slot_makes_it_attackable():
    t = guarded()
    f = move_features(t, strengthen(E("blue"), 6))
    each = (2 + 2 + 1 + 2 + 3 + 2 + 3) / 7     # the seven cards not turned over
    check(f, card_copies=1, card_last_of_kind=1,
          slot_crowns=each, slot_next_cards=1, slot_margin_after=0,
          slot_attackable_change=each)
    # the castle's +1 counts for its owner: 3 : 0 after at castle_hill
    assert move_features(t, strengthen(K("red"), 0))["slot_margin_after"] == 3 + 1
    assert move_features(t, strengthen(K("red"), 0))["slot_castle"] == 1


# ---- enchanting and attacking: chances, gains, costs ---------------------------------------

def small():
    """8 cards (red and blue, 2 knights and 2 enchantresses each)."""
    return Table(overrides=SMALL_DECK)


def test_an_enchantment_swings_three_cards_at_its_slot():
    # P1 holds a red enchantress and a blue knight; P2's red knight tops face-down slot 5;
    # P2 holds one card: unseen by P1 a red knight, a red enchantress, a blue knight, two
    # blue enchantresses: P2's card is the red enchantress with chance 1/5
    t = small().hand(P1, E("red"), K("blue")).pile(P2, 5, K("red")).hand(P2, E("blue"))
    f = move_features(t, enchant(5))
    check(f, card_copies=1, card_last_of_kind=1,
          slot_crowns=24 / 11, slot_next_cards=1, slot_margin_after=2,
          slot_attackable_change=24 / 11, warded_chance=1 / 5)


def castle_attack():
    """P1 holds Avalon (slot 0, its reduction unused) and attacks P2's castle_plain (slot
    4, 2 crowns): 2 red knights to his blue enchantress (+1 castle). P1 holds a blue knight;
    P2 one card, a blue knight with chance 1/4 (unseen: a blue knight, a blue enchantress,
    two red enchantresses)."""
    t = small().territory(0, "avalon", P1).territory(4, "castle_plain", P2)
    t.pile(P1, 4, K("red"), K("red")).pile(P2, 4, E("blue"))
    return t.hand(P1, K("blue")).hand(P2, E("red"))


def test_attacking_an_enemy_castle():
    f = move_features(castle_attack(), attack(K("blue"), 4))
    # conquered: his 1 card takes 1 of ours, then 3 + 1 + castle 1 = 5, less Avalon's 1;
    # the slot keeps 2 of ours (+1 castle, now ours); he needs 3 + 1 cards to take it back
    check(f, card_copies=1, card_last_of_kind=1, slot_crowns=2,
          slot_next=1, slot_castle=1, slot_own_cards=2, slot_next_cards=1,
          slot_margin_after=3, slot_attackable_change=-2, warded_chance=1 / 4,
          crowns_change=0.75 * 2, next_crowns_change=-0.75 * 2, conquest_cards=1 + 4,
          retake_margin=1 - 4)
    t = castle_attack().set(S.AVALON_USED, 1)
    assert move_features(t, attack(K("blue"), 4))["conquest_cards"] == 1 + 5


def test_a_conquest_that_wins_the_game():
    # P1 holds 13 crowns; the six cards not turned over: five of 2 crowns, the Swamp of 1
    t = Table()
    for slot, name in enumerate(("castle_hill", "plain_a", "plain_b", "hill_b", "avalon")):
        t.territory(slot, name, P1)
    t.hand(P1, K("red"))
    f = move_features(t, attack(K("red"), 7))         # face down, 0 : 0, P2 holds nothing
    each = 11 / 6
    check(f, card_copies=1, card_last_of_kind=1, slot_crowns=each,
          slot_margin_after=1, slot_attackable_change=-each,
          crowns_change=each, wins_game_chance=5 / 6, conquest_cards=0, retake_margin=-2)


# ---- the defender's answers ------------------------------------------------------------------

def defended():
    """P2 holds plain_b (slot 3, 3 crowns) with a blue enchantress; P1, with a green knight
    there, attacks with a red knight; P2 holds a red and a blue knight: he answers."""
    t = Table().territory(3, "plain_b", P2).pile(P2, 3, E("blue")).pile(P1, 3, K("green"))
    t.hand(P1, K("red")).hand(P2, K("red"), K("blue"))
    return t.play(attack(K("red"), 3))


def test_warding_off_an_attack_or_letting_it_through():
    t = defended()
    assert t.state[S.PHASE] == S.DEFEND
    f = move_features(t, r.DEFEND_YES)
    check(f, card_copies=1, slot_crowns=3, slot_own=1,
          slot_own_cards=1, slot_next_cards=2)     # 2 : 2, still open
    f = move_features(t, r.DEFEND_NO)
    # lost: his 2 cards less our 1 stay there; his losses: our 1, then 2 + 1
    check(f, slot_crowns=3, slot_own=1, slot_own_cards=1, slot_next_cards=2,
          slot_margin_after=-1, own_open_now_change=-3,
          crowns_change=-3, next_crowns_change=3, next_conquest_cards=1 + 3)


def test_letting_through_a_conquest_that_wins_him_the_game():
    t = Table()
    for slot, name in enumerate(("castle_hill", "plain_a", "plain_b", "hill_b", "avalon")):
        t.territory(slot, name, P1)                               # 13 crowns
    t.territory(5, "forest", P2).hand(P1, K("red")).hand(P2, K("red"))
    t.play(attack(K("red"), 9))
    # face down: 2, 2, 1, 2, 2 crowns (castle_forest, castle_plain, swamp, stone_circle,
    # hill_a): 2 of them win him the game
    f = move_features(t, r.DEFEND_NO)
    assert f["next_wins_game_chance"] == pytest.approx(4 / 5)
    assert move_features(t, r.DEFEND_YES)["next_wins_game_chance"] == 0


def test_a_counter_spell_or_not():
    t = Table().pile(P2, 5, K("green")).hand(P1, E("green")).hand(P2, E("green"))
    t.play(enchant(5))
    assert t.state[S.PHASE] == S.COUNTER
    each = 24 / 11
    f = move_features(t, r.COUNTER_YES)    # the attacking enchantress comes into the hand
    check(f, card_copies=1, card_last_of_kind=1, slot_crowns=each,
          slot_own_cards=1, slot_margin_after=2)
    f = move_features(t, r.COUNTER_NO)     # his enchantress and our knight go to his side
    check(f, slot_crowns=each, slot_own_cards=1,
          slot_margin_after=-2, slot_attackable_change=-each)


# ---- losses, tiles, discards, the end of the plays -------------------------------------------

def conquered():
    """P1 owns Avalon (slot 1) and conquers face-down slot 3 (plain_b, 3 crowns) at 1 : 0;
    P2 keeps his red knight: one additional card owed."""
    t = Table().territory(1, "avalon", P1).territory(3, "plain_b")
    t.hand(P1, K("red"), *[K("blue")] * 4).hand(P2, K("red"))
    return t.play(attack(K("red"), 3)).play(r.DEFEND_NO)


def test_paying_a_conquest_loss():
    t = conquered()
    assert t.state[S.PHASE] == S.LOSS and t.state[S.LOSS_LEFT] == 1
    check(move_features(t, r.LOSS_AVALON))
    check(move_features(t, r.LOSS_HAND + K("blue")), card_copies=4)
    # the knight guarding plain_b: it is then open to P2 now and next turn
    check(move_features(t, r.LOSS_LAYOUT + 3), slot_crowns=3, slot_own=1, slot_own_cards=1,
          own_open_now_change=3, own_open_next_turn_change=3)
    t.state[S.LOSS_LEFT] = 3
    assert move_features(t, r.LOSS_HAND + K("blue"))["losses_owed_after"] == 2
    assert move_features(t, r.LOSS_AVALON)["losses_owed_after"] == 2


def test_the_supply_tiles_and_the_discards():
    t = Table().territory(2, "plain_a", P1).territory(3, "hill_a", P1)
    t.territory(5, "forest", P1).hand(P1, *[K("red")] * 4, E("blue"))
    check(move_features(t, r.END_PLAYS))
    t.play(r.END_PLAYS)
    check(move_features(t, r.SUPPLY_TILE + S.TILE_FIXED_LIGHT), tile_cards_now=2,
          tile_cards_over_limit=2)
    check(move_features(t, r.SUPPLY_TILE + S.TILE_CONNECTED_LIGHT), tile_cards_now=2,
          tile_cards_over_limit=2)                                     # plain_a, hill_a
    check(move_features(t, r.SUPPLY_TILE + S.TILE_PER_TERRITORY_DARK),
          tile_cards_next_turn=3)                                      # a card a territory
    t.play(r.SUPPLY_TILE + S.TILE_FIXED_LIGHT)                 # 2 cards drawn: 7 in hand
    hand = t.hand_of(P1)
    enchantresses = sum(n for card, n in hand.items() if card & 1)
    check(move_features(t, r.DISCARD_CARD + E("blue")), card_copies=hand[E("blue")],
          card_last_of_kind=float(enchantresses == 1))
    check(move_features(t, r.DISCARD_CARD + K("red")), card_copies=hand[K("red")])


# ---- honest and finite ---------------------------------------------------------------------

def test_two_true_states_with_one_observation_give_one_vector_for_every_move():
    """The other hand, the draw pile and the face-down territories dealt anew
    (``determinize``) from P1's view of a position of random play: each legal move of P1's
    reads the same."""
    rng = np.random.default_rng(5)
    t = Table(seed=11)
    spec = t.spec
    t.state[:] = 0
    r.new_game(t.params, 2, t.state, t.chance)
    seen, moves, differ = 0, 0, 0
    other, scratch, stream = (np.empty_like(t.state), np.empty_like(t.state),
                              np.array([3], np.uint64))
    for step in range(400):
        if r.is_over(t.state):
            break
        legal = t.legal()
        if step % 5 == 0 and len(legal) > 1:
            seat = int(r.to_move(t.state))
            obs, obs2 = np.empty_like(t.state), np.empty_like(t.state)
            r.observe(t.params, t.state, seat, obs)
            r.determinize(t.params, obs, seat, other, stream, scratch)
            differ += not np.array_equal(other, t.state)
            r.observe(t.params, other, seat, obs2)
            for move in legal:
                v, w = np.full(len(NAMES), np.nan), np.full(len(NAMES), np.nan)
                r.move_features(t.params, obs, seat, move, v)
                r.move_features(t.params, obs2, seat, move, w)
                assert np.isfinite(v).all() and np.array_equal(v, w), spec.move_label(
                    t.params, 2, move)
                moves += 1
            seen += 1
        r.apply_move(t.params, t.state, legal[rng.integers(len(legal))], t.chance, t.items)
    assert seen > 20 and moves > 200 and differ > 20


def test_it_reads_neither_the_other_hand_nor_the_draw_pile():
    """Stricter than through ``observe``: the true state, with the face-down territories
    alone hidden, read by the kernel for P1, and the same with other cards in P2's hand
    (and so in the draw pile): one vector a move."""
    t = Table().territory(2, "plain_a", P1).pile(P2, 2, K("red")).pile(P1, 4, E("red"))
    t.hand(P1, K("red"), E("blue"), K("green")).hand(P2, K("blue"), E("green"))
    other = Table().territory(2, "plain_a", P1).pile(P2, 2, K("red")).pile(P1, 4, E("red"))
    other.hand(P1, K("red"), E("blue"), K("green")).hand(P2, E("red"), K("yellow"))
    views = []
    for table in (t, other):
        view = table.state.copy()
        hidden = view[S.OWNER:S.OWNER + S.N_TERR] < 0
        view[S.TERR_CARD:S.TERR_CARD + S.N_TERR][hidden] = HIDDEN
        views.append(view)
    assert not np.array_equal(*views)
    for move in t.legal():
        v, w = np.full(len(NAMES), np.nan), np.full(len(NAMES), np.nan)
        r.move_features(t.params, views[0], P1, move, v)
        r.move_features(t.params, views[1], P1, move, w)
        assert np.array_equal(v, w), t.spec.move_label(t.params, 2, move)
