"""The features kernel (NOTES.md, Features (issue 29)): what the learnt players see of a
position, entry by entry on hand-built tables, from two seats of one table (own and next
swap), with partners at 4 players, a player out at 3; and on random games: the bunnies add
up, the chances are the seat's memory's (the heuristic reads the same), nothing allocated."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from rh_table import E, Table  # noqa: E402
from simkit.strategies.rabbit_hunt import read_memory, win_chances  # noqa: E402

from simkit import registry  # noqa: E402
from simkit.game import HIDDEN  # noqa: E402
from simkit.games.rabbit_hunt import rules as R  # noqa: E402
from simkit.games.rabbit_hunt import state as S  # noqa: E402
from simkit.games.rabbit_hunt.memory import face_up_at, placer_at  # noqa: E402
from simkit.rng import game_seeds, seed_streams  # noqa: E402
from simkit.runner import RunSpec, plan  # noqa: E402

NAMES = registry.get_game("rabbit-hunt").features
OTHERS = ("next", "second", "third")


def features(t, seat) -> dict[str, float]:
    """The vector ``seat`` sees of table ``t``, by name, read through ``observe``."""
    obs = t.observe(seat)
    out = np.full(len(NAMES), np.nan)
    R.features(t.params, obs, seat, out)
    return dict(zip(NAMES, out.tolist(), strict=True))


def block(f, who) -> dict[str, float]:
    return {k.removeprefix(who + "_"): v for k, v in f.items() if k.startswith(who + "_")}


def test_the_names_are_the_specs_and_each_is_written():
    assert NAMES == R.FEATURES and len(NAMES) == R.N_FEATURES == 74
    assert all(f"own_hand_{kind}" in NAMES for kind in S.KINDS)
    for who in OTHERS:
        assert [n for n in NAMES if n.startswith(who + "_")] == [
            f"{who}_{what}" for what in R.OTHER_FEATURES]
    f = features(Table(2), 0)
    assert np.isfinite(list(f.values())).all()


# ---- two players, one table seen from both seats --------------------------------------------

def two_player_table():
    """P1 (seat 0) caught two of P2's bunnies, P2 one of P1's. P1 has one bunny out on
    (2,0), which P2 has seen, next to P2's farmer, and two decoys; it holds one bunny and a
    card of every kind (two "take 2 carrots"). P2 laid its last bunny on (0,-2) and an empty
    card on (-2,0), both unseen by P1, and "draw 1" on (-2,1), which P1 peeked at. P1's
    farmer is home; each has one carrot; 10 cards are left in the pile, 30 turns played."""
    t = Table(2)
    t.strip_ring()
    t.lose_bunnies(1, 0, 2)
    t.lose_bunnies(0, 1, 1)
    t.lay(t.cell(2, 0), S.BUNNY + 0, seen=0b11, placer=0)
    t.lay(t.cell(2, -1), S.EMPTY, seen=0b01, placer=0)
    t.lay(t.cell(1, 1), S.CARROT_1, seen=0b01, placer=0)
    t.lay(t.cell(0, -2), S.BUNNY + 1, seen=0b10, placer=1)
    t.lay(t.cell(-2, 0), S.EMPTY, seen=0b10, placer=1)
    t.lay(t.cell(-2, 1), S.DRAW_1, seen=0b11, placer=1)
    t.set_hand(0, {k: 2 if k == S.CARROT_2 else 1 for k in range(S.N_FARMLAND)})
    t.set_pile([S.EMPTY] * 10)
    t[S.FARMER + 1] = t.cell(1, 0)
    t.set_carrots(0, 1)
    t.set_carrots(1, 1)
    t[S.TURNS] = 30
    t.to_actions(0)
    return t


def test_own_entries_hand_bunnies_and_threats():
    f = features(two_player_table(), 0)
    hand = {k: v for k, v in f.items() if k.startswith("own_hand_")}
    assert hand == {f"own_hand_{k}": (2.0 if k == "take_2_carrots" else 1.0) for k in S.KINDS}
    assert f["own_carrots"] == 1 and f["own_bunnies_in_hand"] == 1
    assert f["own_bunnies_hidden"] == 1 and f["own_decoys_hidden"] == 2
    assert f["own_caught"] == 2 and f["own_lost"] == 1
    # P2 has seen the bunny on (2,0), and its farmer is one step away with a carrot
    assert f["own_bunnies_seen"] == f["own_bunnies_threatened"] == f["own_bunnies_exposed"] == 1
    assert f["own_bunny_warehouse_distance"] == 2
    assert f["own_on_turn"] == 1


def test_the_other_seat_as_the_memory_knows_it():
    f = features(two_player_table(), 0)
    # P1's memory of P2's hand: one bunny unseen, in the hand (5 cards) or on the 2 hidden
    # cards it laid: none in the hand with weight C(5,0) C(2,1) = 2, one with C(5,1) = 5
    assert block(f, "next") == pytest.approx({
        "carrots": 1, "cards_in_hand": 5, "bunnies_in_hand": 5 / 7, "clean_chance": 2 / 7,
        "bunnies_hidden": 2 / 7, "caught": 1, "lost": 2, "out": 0, "threat": 1,
        "on_turn": 0})
    for who in ("second", "third"):  # absent at 2 players
        assert set(block(f, who).values()) == {0.0}


def test_the_hunt_the_side_and_the_clock():
    f = features(two_player_table(), 0)
    assert f["opp_hidden_cards"] == 2 and f["known_bunnies_to_catch"] == 0
    assert f["expected_bunnies_to_catch"] == pytest.approx(2 / 7)
    assert f["best_bunny_chance"] == pytest.approx(1 / 7)
    # both of P2's hidden cards are 2 steps from home: 2 carrots, P1 has 1
    assert f["best_bunny_chance_in_reach"] == 0 and f["carrots_short_of_best"] == 1
    assert (f["side_caught"], f["side_lost"], f["caught_lead"]) == (2, 1, 1)
    assert f["side_clean_chance"] == 0 and f["side_win_if_pile_ends"] == 0  # a bunny in hand
    assert f["partner_bunnies_threatened"] == 0
    start = 45 - 6 - 2 * 5  # 75 cards, 30 put away at 2 players, the ring, the hands
    assert f["pile_left"] == 10 and f["pile_share_left"] == pytest.approx(10 / start)
    assert f["turn_share_of_cap"] == pytest.approx(30 / 600)
    assert f["actions_left"] == 2
    assert f["to_place"] == f["event_pending"] == f["putting_back"] == 0


def test_perspective_the_same_table_from_the_other_seat():
    t = two_player_table()
    mine, theirs = features(t, 0), features(t, 1)
    for a, b in [("own_caught", "next_caught"), ("own_lost", "next_lost"),
                 ("own_carrots", "next_carrots"), ("own_on_turn", "next_on_turn")]:
        assert (mine[a], mine[b]) == (theirs[b], theirs[a]), (a, b)
    # P1's farmer, home with a carrot and one to take, reaches P2's bunny 2 steps away
    assert theirs["own_bunnies_threatened"] == theirs["next_threat"] == 1
    assert theirs["own_bunnies_in_hand"] == 0 and theirs["own_bunnies_hidden"] == 1
    assert theirs["own_decoys_hidden"] == 2 and theirs["own_bunnies_seen"] == 0
    assert theirs["own_bunnies_exposed"] == 0
    assert theirs["next_cards_in_hand"] == 16
    # P2 saw P1's bunny; P1's other unseen bunny is in its 16 cards or on its 2 decoys
    assert theirs["next_bunnies_in_hand"] == pytest.approx(16 / 18)
    assert theirs["next_clean_chance"] == pytest.approx(2 / 18)
    assert theirs["next_bunnies_hidden"] == pytest.approx(1 + 2 / 18)
    assert theirs["known_bunnies_to_catch"] == 1 and theirs["best_bunny_chance"] == 1
    assert theirs["best_bunny_chance_in_reach"] == 1 and theirs["carrots_short_of_best"] == 0
    assert theirs["expected_bunnies_to_catch"] == pytest.approx(1 + 2 / 18)
    assert theirs["caught_lead"] == -1 and theirs["side_clean_chance"] == 1
    # P2 is clean; P1 is clean with chance 1/9 and then wins on bunnies caught (rule b)
    assert theirs["side_win_if_pile_ends"] == pytest.approx(8 / 9)


# ---- four players: partners ------------------------------------------------------------------

def four_player_table(**overrides):
    """P1 (seat 0) and P3 (seat 2) against P2 and P4. P1 caught one of P2's, P3 one of
    P4's, P4 one of P1's. P1 has laid its two bunnies, on (2,0) and (-2,2), the second next
    to P4's farmer; P3 laid two bunnies and a decoy on (0,-2), (1,-2), (2,-2), the last two
    next to P2's farmer; P4 laid a bunny on (-2,0), which P1 peeked at. No farmer has a
    carrot but P1, with two."""
    t = Table(4, **overrides)
    t.strip_ring()
    t.lose_bunnies(1, 0, 1)
    t.lose_bunnies(3, 2, 1)
    t.lose_bunnies(0, 3, 1)
    for q, r in [(2, 0), (-2, 2)]:
        t.lay(t.cell(q, r), S.BUNNY + 0, seen=0b0001, placer=0)
    for (q, r), card in [((0, -2), S.BUNNY + 2), ((1, -2), S.BUNNY + 2), ((2, -2), S.EMPTY)]:
        t.lay(t.cell(q, r), card, seen=0b0100, placer=2)
    t.lay(t.cell(-2, 0), S.BUNNY + 3, seen=0b1001, placer=3)
    t[S.FARMER + 1] = t.cell(1, -1)
    t[S.FARMER + 2] = t.cell(1, 0)      # next to P1's bunny, but a partner does not catch
    t[S.FARMER + 3] = t.cell(-1, 1)
    for seat in range(4):
        t.set_carrots(seat, 2 if seat == 0 else 0)
    t.to_actions(0)
    return t


def test_four_players_the_partner_is_the_second_seat():
    f = features(four_player_table(), 0)
    # P3's 3 unseen bunnies: in its 6 cards or on the 3 it laid, j in the hand with weight
    # C(6, j) C(3, 3 - j) = 1, 18, 45, 20: 2 expected in the hand, none with chance 1/84
    assert block(f, "second") == pytest.approx({
        "carrots": 0, "cards_in_hand": 6, "bunnies_in_hand": 2, "clean_chance": 1 / 84,
        "bunnies_hidden": 1, "caught": 1, "lost": 0, "out": 0, "threat": 0, "on_turn": 0})
    assert block(f, "next") == pytest.approx({
        "carrots": 0, "cards_in_hand": 7, "bunnies_in_hand": 2, "clean_chance": 0,
        "bunnies_hidden": 0, "caught": 0, "lost": 1, "out": 0, "threat": 0, "on_turn": 0})
    assert block(f, "third") == pytest.approx({
        "carrots": 0, "cards_in_hand": 6, "bunnies_in_hand": 1, "clean_chance": 0,
        "bunnies_hidden": 1, "caught": 1, "lost": 1, "out": 0, "threat": 1, "on_turn": 0})
    assert f["own_bunnies_in_hand"] == 0 and f["own_bunnies_hidden"] == 2
    assert f["own_bunnies_threatened"] == 1 and f["own_bunnies_seen"] == 0


def test_four_players_the_side_is_the_team():
    f = features(four_player_table(), 0)
    assert (f["side_caught"], f["side_lost"], f["caught_lead"]) == (2, 1, 1)
    assert f["side_clean_chance"] == pytest.approx(1 / 84)  # P1's hand is clean, P3's maybe
    # the other team holds bunnies for certain: the team wins if P3's hand is clean
    assert f["side_win_if_pile_ends"] == pytest.approx(1 / 84)
    # two of P3's three hidden cards are a step from P2's farmer, each a bunny by 1/3
    assert f["partner_bunnies_threatened"] == pytest.approx(2 / 3)
    # the partner's cards are no hunt: only P4's peeked bunny, two steps from home
    assert f["opp_hidden_cards"] == 0 and f["known_bunnies_to_catch"] == 1
    assert f["expected_bunnies_to_catch"] == 1 and f["best_bunny_chance_in_reach"] == 1


def test_four_players_from_the_other_seats():
    t = four_player_table()
    f1, f2 = features(t, 1), features(t, 2)
    # from P2, P1 (on turn, two carrots) is the third seat; its two bunnies, unseen by P2,
    # are in its 5 cards or on the 2 it laid: j in the hand with weight C(5, j) C(2, 2 - j)
    assert (f1["third_carrots"], f1["third_on_turn"], f1["third_caught"]) == (2, 1, 1)
    assert f1["third_clean_chance"] == pytest.approx(1 / 21)
    assert f1["third_bunnies_in_hand"] == pytest.approx(30 / 21)
    assert f1["third_bunnies_hidden"] == pytest.approx(2 - 30 / 21)
    assert f1["caught_lead"] == -1
    # from P3, P1 is the partner, the second seat; the team's totals are P1's
    assert (f2["second_carrots"], f2["second_on_turn"], f2["second_caught"]) == (2, 1, 1)
    f0 = features(t, 0)
    for name in ("side_caught", "side_lost", "caught_lead"):
        assert f2[name] == f0[name]


def test_four_players_a_team_plays_on_with_one_partner_out():
    t = Table(4)
    t.lose_bunnies(3, 0, 3)
    t[S.ELIMINATED + 3] = 1
    t[S.FARMER + 3] = -1
    t.set_hand(3, {})
    t.set_carrots(3, 0)
    f = features(t, 0)
    assert (f["third_out"], f["third_lost"], f["third_cards_in_hand"]) == (1, 3, 0)
    g = features(t, 1)                  # P2's partner is out; P2's side is P2 alone now
    assert (g["second_out"], g["side_lost"], g["caught_lead"]) == (1, 3, -3)
    assert g["side_clean_chance"] == 0  # P2 still holds its three bunnies


def test_four_players_when_partners_catch_each_other():
    f = features(four_player_table(partners_can_catch=True), 0)
    assert f["second_threat"] == 1             # P3's farmer is a step from P1's bunny
    assert f["opp_hidden_cards"] == 3          # P3's hidden cards are a hunt now
    assert f["expected_bunnies_to_catch"] == pytest.approx(1 + 3 * (1 / 3))
    # P1's own farmer (2 carrots and one to take) reaches every card of P3's too
    assert f["partner_bunnies_threatened"] == pytest.approx(1)


# ---- three players: a player out ------------------------------------------------------------

def test_a_player_out_and_the_seat_absent_at_three():
    t = Table(3)
    t.lose_bunnies(1, 0, 3)
    t[S.ELIMINATED + 1] = 1
    t[S.FARMER + 1] = -1
    t.set_hand(1, {})
    t.set_carrots(1, 0)
    f = features(t, 0)
    assert (f["next_out"], f["next_lost"], f["next_cards_in_hand"]) == (1, 3, 0)
    assert f["next_bunnies_in_hand"] == 0 and f["second_out"] == 0
    assert f["second_cards_in_hand"] == 8 and f["second_bunnies_in_hand"] == 3
    assert set(block(f, "third").values()) == {0.0}
    g = features(t, 2)                  # from P3, P1 is next and P2 (out) second
    assert (g["next_caught"], g["second_out"], g["second_lost"]) == (3, 1, 3)


# ---- the decision under way ------------------------------------------------------------------

def test_a_new_game_the_placement():
    f = features(Table(2), 0)
    assert f["to_place"] == 1 and f["own_on_turn"] == 1 and f["actions_left"] == 2
    assert f["own_bunnies_in_hand"] == 3 and f["pile_share_left"] == 1
    assert f["own_bunny_warehouse_distance"] == 8  # none out: past the table's edge (radius 7)


def test_an_events_choice_and_the_put_backs():
    t = Table(2)
    t.strip_ring()
    t.lay(t.cell(1, 0), S.PEEK, placer=-1)              # face down, next to the farmer
    t.lay(t.cell(2, 0), S.EMPTY, placer=-1)             # something left to peek at
    t.to_actions(0)
    t.apply(E(S.M_MOVE, t.cell(1, 0)))
    f = features(t, 0)
    assert f["event_pending"] == 1 and f["actions_left"] == 1 and f["to_place"] == 0
    t = Table(2)
    t.strip_ring()
    t.set_carrots(0, 3)
    t.to_actions(0)
    t.apply(E(S.M_LOOK, 1))                              # P2 now decides its put-backs
    f = features(t, 1)
    assert f["putting_back"] == 1 and f["own_on_turn"] == 0 and f["next_on_turn"] == 1


def test_the_turn_is_a_share_of_the_data_turn_cap():
    t = Table(2, max_turns=120)
    t[S.TURNS] = 30
    assert features(t, 0)["turn_share_of_cap"] == pytest.approx(0.25)


# ---- random games ------------------------------------------------------------------------------

def random_observations(n_players, n_games=4, seed=29):
    """(params, obs, seat) at every decision of ``n_games`` random games."""
    p = plan(RunSpec.make("rabbit-hunt", n_players, 1))
    rng = np.random.default_rng(seed)
    st = np.empty(p.state_size, np.int32)
    moves = np.empty(p.max_moves, np.int32)
    items = np.zeros((n_players, len(S.ITEM_COLUMNS)), np.int32)
    streams = np.empty(1 + n_players, np.uint64)
    for g_seed in game_seeds(seed, 0, n_games):
        seed_streams(np.uint64(g_seed), n_players, streams)
        R.new_game(p.compiled, n_players, st, streams[0:1])
        while not R.is_over(st):
            seat = R.to_move(st)
            obs = np.empty_like(st)
            R.observe(p.compiled, st, seat, obs)
            yield p.compiled, obs, seat
            k = R.legal_moves(p.compiled, st, moves)
            R.apply_move(p.compiled, st, moves[rng.integers(k)], streams[0:1], items)


def hidden_by(params, obs, seat, owner, prob):
    """The bunnies of ``owner`` expected face down, from the heuristic's chances ``prob``."""
    p = params[0]
    total = 0.0
    for c in range(p[S.P_CELLS]):
        v = obs[S.CELLS + c]
        if v in (S.NO_CARD, S.WAREHOUSE) or obs[face_up_at(p, c)] or obs[placer_at(p, c)] != owner:
            continue
        total += prob[c] if v == HIDDEN else float(v == S.BUNNY + owner)
    return total


@pytest.mark.parametrize("n_players", [2, 3, 4])
def test_random_games_the_bunnies_add_up_and_the_chances_are_the_memorys(n_players):
    bunnies = 3
    checked = 0
    for params, obs, seat in random_observations(n_players):
        out = np.full(len(NAMES), np.nan)
        R.features(params, obs, seat, out)
        f = dict(zip(NAMES, out.tolist(), strict=True))
        assert f["own_bunnies_in_hand"] + f["own_bunnies_hidden"] + f["own_lost"] == bunnies
        prob, clean = np.zeros(params[0][S.P_CELLS]), np.ones(4)
        read_memory(params[0], obs, seat, prob, clean, np.zeros(4, np.int64))
        wins = np.zeros(4)
        win_chances(obs, clean, wins)
        for k, who in enumerate(OTHERS[:n_players - 1]):
            o = (seat + k + 1) % n_players
            if f[f"{who}_out"]:
                continue
            assert f[f"{who}_bunnies_in_hand"] + f[f"{who}_bunnies_hidden"] + f[
                f"{who}_lost"] == pytest.approx(bunnies)
            assert f[f"{who}_clean_chance"] == pytest.approx(clean[o])
            assert f[f"{who}_bunnies_hidden"] == pytest.approx(
                hidden_by(params, obs, seat, o, prob))
        unit = seat % 2 if n_players == 4 else seat
        assert f["side_win_if_pile_ends"] == pytest.approx(wins[unit])
        assert 0 <= f["best_bunny_chance_in_reach"] <= f["best_bunny_chance"] <= 1
        checked += 1
    assert checked > 100
