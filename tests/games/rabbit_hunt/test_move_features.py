"""The move_features kernel (NOTES.md, Move features): what a fast policy sees of one legal
move, entry by entry on hand-built tables (the card laid, put back or turned up and its
event, the cell's place, the price, the catch chance, the threat taken off a bunny, a
partner's card at 4 players); and on random games: every entry written and finite, one
observation one vector (a determinisation the seat cannot tell apart gives the same), the
catch chance the seat's memory's (the heuristic reads the same), nothing allocated."""

import numpy as np
import pytest
from numba.core.runtime import _nrt_python, rtsys
from rh_table import E, Table
from simkit.strategies.rabbit_hunt import read_memory

from simkit import registry
from simkit.game import HIDDEN
from simkit.games.rabbit_hunt import rules as R
from simkit.games.rabbit_hunt import state as S
from simkit.games.rabbit_hunt.memory import placer_at
from simkit.jit import kernel
from simkit.rng import game_seeds, seed_streams
from simkit.runner import RunSpec, plan

NAMES = registry.get_game("rabbit-hunt").move_features
KINDS = ("lays_a_card", "draws", "takes_a_carrot", "moves_own_farmer", "looks_at_hand",
         "moves_other_farmer", "peeks", "puts_back", "stops_putting_back")


def vector(params, obs, seat, move) -> np.ndarray:
    out = np.full(len(NAMES), np.nan)
    R.move_features(params, obs, seat, move, out)
    return out


def mf(t, seat, move) -> dict[str, float]:
    """What ``seat`` sees of ``move`` (legal at table ``t``), by name; the entries that are 0
    are left out."""
    assert move in t.legal(), f"move {move >> 16}:{move & 0xFFFF} not legal"
    out = vector(t.params, t.observe(seat), seat, move)
    return {k: v for k, v in zip(NAMES, out.tolist(), strict=True) if v != 0.0}


def test_the_names_are_the_specs_and_each_is_written():
    assert NAMES == R.MOVE_FEATURES and len(NAMES) == R.N_MOVE_FEATURES == 37
    assert set(KINDS) <= set(NAMES)
    t = Table(2)
    for move in t.legal():
        assert np.isfinite(vector(t.params, t.observe(0), 0, move)).all()


# ---- two players ---------------------------------------------------------------------------

def two_player_table():
    """test_features' table. P1 (seat 0) caught two of P2's bunnies, P2 one of P1's. P1
    has one bunny out on (2,0), which P2 has seen, a step from P2's farmer on (1,0), and
    decoys "empty" on (2,-1) and "take 1 carrot" on (1,1). P2 laid its last bunny on (0,-2)
    and an empty card on (-2,0), both unseen by P1, and "draw 1" on (-2,1), which P1 peeked
    at. P1 holds a bunny and a card of every kind; its farmer is home with 3 carrots, P2's
    has 1. 10 cards are left in the pile; the ring round the warehouse is face up."""
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
    t.set_carrots(0, 3)
    t.set_carrots(1, 1)
    t.to_actions(0)
    return t


def where(t, q, r, rival_distance, rivals_in_reach):
    """The cell entries of (q, r): the warehouse's distance is the ring's number (q, r are
    axial), the cards round it are counted by the table."""
    c = t.cell(q, r)
    return {"cell_warehouse_distance": (abs(q) + abs(r) + abs(q + r)) // 2,
            "cell_rival_distance": rival_distance, "cell_rivals_in_reach": rivals_in_reach,
            "cell_cards_around": t.next_to(c)}


def nonzero(d):
    return {k: v for k, v in d.items() if v != 0}


def test_moving_onto_a_rivals_hidden_card_its_bunny_chance_and_the_knock_out():
    t = two_player_table()
    # P2's last bunny, unseen by P1: in its 5 cards or on the 2 it laid, none in the hand
    # with weight C(5,0) C(2,1) = 2, one with C(5,1) = 5: each card a bunny by 1/7. P2 has
    # lost two: a catch knocks it out. 2 steps over cards from home: 2 carrots
    assert mf(t, 0, E(S.M_MOVE, t.cell(0, -2))) == pytest.approx(nonzero({
        "moves_own_farmer": 1, "carrots_spent": 2, "carrots_after": 1, "card_hidden": 1,
        "rival_bunny_chance": 1 / 7, "catch_knocks_out": 1 / 7,
        # P2's farmer on (1,0) is 3 away: a 2-3 step move, its carrot and one to take
        **where(t, 0, -2, rival_distance=3, rivals_in_reach=1)}))
    far = mf(t, 0, E(S.M_MOVE, t.cell(-2, 0)))  # P2's other hidden card: as likely
    assert far["rival_bunny_chance"] == pytest.approx(1 / 7) and far["carrots_spent"] == 2
    assert t.next_to(t.cell(-2, 0)) == far["cell_cards_around"] == 2


def test_moving_onto_ones_own_bunny_or_decoy_or_a_peeked_card():
    t = two_player_table()
    own = mf(t, 0, E(S.M_MOVE, t.cell(2, 0)))
    assert own["own_bunny_there"] == own["own_bunny_seen_there"] == 1  # P2 has seen it
    assert "rival_bunny_chance" not in own and "card_known" not in own
    # its own "take 1 carrot": known, a gift of one carrot to itself, no bunny
    assert mf(t, 0, E(S.M_MOVE, t.cell(1, 1))) == pytest.approx(nonzero({
        "moves_own_farmer": 1, "carrots_spent": 2, "carrots_after": 1, "card_known": 1,
        "card_gives_carrots": 1, **where(t, 1, 1, rival_distance=1, rivals_in_reach=1)}))
    # P2's "draw 1", peeked at: known, no bunny
    peeked = mf(t, 0, E(S.M_MOVE, t.cell(-2, 1)))
    assert peeked["card_known"] == peeked["card_gives_cards"] == 1
    assert "rival_bunny_chance" not in peeked and "card_hidden" not in peeked


def test_moving_onto_a_card_face_up_turns_nothing_up():
    t = two_player_table()
    f = mf(t, 0, E(S.M_MOVE, t.cell(1, -1)))  # the ring: a step, one carrot
    assert f["nothing_to_turn_up"] == 1 and f["carrots_spent"] == 1 and f["carrots_after"] == 2
    assert not {"card_known", "card_hidden", "rival_bunny_chance"} & set(f)


def test_a_bunny_seen_by_nobody_else_is_not_marked_seen():
    t = two_player_table()
    t.lay(t.cell(-1, 2), S.BUNNY + 0, seen=0b01, placer=0)
    f = mf(t, 0, E(S.M_MOVE, t.cell(-1, 2)))
    assert f["own_bunny_there"] == 1 and "own_bunny_seen_there" not in f


def test_draw_carrot_and_look():
    t = two_player_table()
    assert mf(t, 0, E(S.M_DRAW, 0)) == {"draws": 1, "carrots_after": 3}
    assert mf(t, 0, E(S.M_CARROT, 0)) == {"takes_a_carrot": 1, "carrot_gained": 1,
                                          "carrots_after": 4}
    # the look: P2's 5 cards, 5/7 of a bunny expected among them (above), 3 carrots
    assert mf(t, 0, E(S.M_LOOK, 1)) == pytest.approx({
        "looks_at_hand": 1, "carrots_spent": 3, "looked_hand_cards": 5,
        "looked_hand_bunnies": 5 / 7})
    t.set_carrots(0, 6)  # at the cap a carrot is ignored
    assert mf(t, 0, E(S.M_CARROT, 0)) == {"takes_a_carrot": 1, "carrots_after": 6}
    t.set_pile([S.EMPTY])  # the last card: drawing it ends the game
    assert mf(t, 0, E(S.M_DRAW, 0)) == {"draws": 1, "draw_ends_game": 1, "carrots_after": 6}


EVENTS = {
    S.EMPTY: {}, S.CARROT_1: {"card_gives_carrots": 1}, S.CARROT_2: {"card_gives_carrots": 2},
    S.DRAW_1: {"card_gives_cards": 1}, S.DRAW_2: {"card_gives_cards": 2},
    S.STEP_1: {"card_moves_a_farmer": 1}, S.MOVE_ANY: {"card_moves_a_farmer": 1},
    S.TO_WAREHOUSE: {"card_moves_a_farmer": 1}, S.PEEK: {"card_peeks_or_places": 1},
    S.PLACE_CARD: {"card_peeks_or_places": 1}, S.SHOW: {"card_shows_hand": 1},
    S.SHOW_OR_LOSE: {"card_shows_hand": 1, "card_takes_carrots": 1},
    S.ALL_SHOW: {"card_shows_hand": 1, "card_takes_carrots": 1},
    S.TURN_ENDS: {"card_ends_turn": 1}, S.BUNNY: {"card_is_own_bunny": 1},
}


def test_laying_a_card_its_kind_and_its_cell():
    t = two_player_table()
    t[S.PHASE] = S.PH_PLACE
    c = t.cell(-1, -1)  # touches (0,-1) and (-1,0) of the ring, and (0,-2)
    assert c in t.placeable()
    for kind, event in EVENTS.items():
        # P2's farmer on (1,0) is 3 away: its carrot and one to take pay a 2-3 step move
        assert mf(t, 0, E(S.M_PLACE, kind * 256 + c)) == {
            "lays_a_card": 1, "card_known": 1, **event, "carrots_after": 3,
            **where(t, -1, -1, rival_distance=3, rivals_in_reach=1)}, S.KINDS + ["bunny"]
    t.set_carrots(1, 0)  # with no carrot P2 reaches only a step away
    assert mf(t, 0, E(S.M_PLACE, S.BUNNY * 256 + c))["cell_rival_distance"] == 3
    assert "cell_rivals_in_reach" not in mf(t, 0, E(S.M_PLACE, S.BUNNY * 256 + c))
    assert len(EVENTS) == S.N_KINDS


def test_the_card_that_replaces_ones_own_bunny():
    t = two_player_table()
    t.apply(E(S.M_MOVE, t.cell(2, 0)))  # P1 turns its own bunny up: a card goes in its place
    assert t[S.PHASE] == S.PH_SWAP
    f = mf(t, 0, E(S.M_SWAP, S.TURN_ENDS))
    assert f["lays_a_card"] == f["card_ends_turn"] == 1
    assert f["cell_warehouse_distance"] == 2 and f["cell_rival_distance"] == 1


def test_moving_a_rivals_farmer_the_threat_taken_off():
    t = two_player_table()
    t[S.PHASE] = S.PH_MOVE_ANY
    # P2's farmer on (1,0) reaches P1's bunny on (2,0), which it has seen
    off = mf(t, 0, E(S.M_MOVE_ANY, 1 * 256 + t.cell(-2, 1)))
    assert off["moves_other_farmer"] == 1
    assert off["threat_taken_off"] == off["seen_threat_taken_off"] == 1
    near = mf(t, 0, E(S.M_MOVE_ANY, 1 * 256 + t.cell(2, -1)))  # next to it still
    assert "threat_taken_off" not in near and "seen_threat_taken_off" not in near
    # P1's own farmer moved by the event turns the card up, as a move does, for free
    own = mf(t, 0, E(S.M_MOVE_ANY, 0 * 256 + t.cell(0, -2)))
    assert own["moves_own_farmer"] == 1 and "carrots_spent" not in own
    assert own["rival_bunny_chance"] == pytest.approx(1 / 7)
    t[S.PHASE] = S.PH_TO_WAREHOUSE
    # home is 2 from the bunny: P2's carrot and one to take still reach it
    home = mf(t, 0, E(S.M_TO_HOME, 1))
    assert home["moves_other_farmer"] == 1 and "threat_taken_off" not in home
    assert "cell_warehouse_distance" not in home  # the warehouse itself: 0
    mine = mf(t, 0, E(S.M_TO_HOME, 0))
    assert mine["moves_own_farmer"] == mine["nothing_to_turn_up"] == 1


def test_a_rival_that_has_not_seen_the_bunny_takes_off_unseen_threat_only():
    t = two_player_table()
    t.lay(t.cell(2, 1), S.BUNNY + 0, seen=0b01, placer=0)  # P1's last bunny, unseen by P2
    t[S.PHASE] = S.PH_MOVE_ANY
    f = mf(t, 0, E(S.M_MOVE_ANY, 1 * 256 + t.cell(-2, 1)))
    assert f["threat_taken_off"] == 2 and f["seen_threat_taken_off"] == 1


def test_a_peek():
    t = two_player_table()
    t[S.PHASE] = S.PH_PEEK
    f = mf(t, 0, E(S.M_PEEK, t.cell(-2, 0)))
    assert f["peeks"] == 1 and f["card_hidden"] == 1
    assert f["rival_bunny_chance"] == pytest.approx(1 / 7)
    known = mf(t, 0, E(S.M_PEEK, t.cell(2, -1)))  # its own decoy: nothing to learn
    assert known["card_known"] == 1 and "card_hidden" not in known


def test_putting_cards_back_after_a_look():
    t = two_player_table()
    t.apply(E(S.M_LOOK, 1))  # P2 decides which cards to put back, in P1's turn
    moves = t.legal()
    assert E(S.M_DONE, 0) in moves
    for move in moves:
        f = mf(t, 1, move)
        if move >> 16 == S.M_DONE:
            assert f == {"stops_putting_back": 1, "carrots_after": 1}
        else:
            assert f == {"puts_back": 1, "card_known": 1, **EVENTS[move & 0xFFFF],
                         "carrots_after": 1}


# ---- four players: a partner's card ----------------------------------------------------------

def four_player_table(**overrides):
    """test_features' table: P1 (seat 0) and P3 (seat 2) against P2 and P4. P3 laid two
    bunnies and a decoy on (0,-2), (1,-2), (2,-2), unseen by P1; P4's bunny on (-2,0) was
    peeked at by P1. P1's farmer is home with two carrots."""
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
    t[S.FARMER + 2] = t.cell(1, 0)
    t[S.FARMER + 3] = t.cell(-1, 1)
    for seat in range(4):
        t.set_carrots(seat, 2 if seat == 0 else 0)
    t.to_actions(0)
    return t


def test_four_players_a_partners_card_and_a_rivals_known_bunny():
    t = four_player_table()
    # P3's three unseen bunnies: each of its 3 cards a bunny by 1/3 (test_features)
    partner = mf(t, 0, E(S.M_MOVE, t.cell(0, -2)))
    assert partner["partner_bunny_chance"] == pytest.approx(1 / 3)
    assert "rival_bunny_chance" not in partner
    # P4's bunny, peeked: a catch for sure; P4 has lost one, so no knock-out
    rival = mf(t, 0, E(S.M_MOVE, t.cell(-2, 0)))
    assert rival["rival_bunny_chance"] == 1 and "catch_knocks_out" not in rival
    # the partner's farmer on (1,0), a step from (2,0), is no rival: P2's on (1,-1) is 2
    # away, and with no carrot reaches only a step
    f = mf(t, 0, E(S.M_MOVE, t.cell(2, 0)))
    assert f["cell_rival_distance"] == 2 and "cell_rivals_in_reach" not in f


def test_four_players_when_partners_catch_each_other():
    t = four_player_table(partners_can_catch=True)
    f = mf(t, 0, E(S.M_MOVE, t.cell(0, -2)))
    assert f["rival_bunny_chance"] == pytest.approx(1 / 3) and "partner_bunny_chance" not in f


# ---- random games ------------------------------------------------------------------------------

def random_decisions(n_players, n_games=2, seed=29):
    """(params, state, obs, seat, legal moves) at every decision of random games."""
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
            k = R.legal_moves(p.compiled, st, moves)
            yield p.compiled, st, obs, seat, moves[:k].copy()
            R.apply_move(p.compiled, st, moves[rng.integers(k)], streams[0:1], items)


@pytest.mark.parametrize("n_players", [2, 3, 4])
def test_random_games_one_observation_one_vector_and_the_memorys_chances(n_players):
    """Every entry written and finite for every legal move; a determinisation (a true state
    the seat cannot tell from this one) gives the same vectors; the catch chance of a
    hidden rival card is the heuristic's reading of the memory."""
    other, obs2, scratch = None, None, None
    stream = np.array([4242], np.uint64)
    checked, chances = 0, 0
    for params, st, obs, seat, moves in random_decisions(n_players):
        if other is None:
            other, obs2, scratch = (np.empty_like(st) for _ in range(3))
        R.determinize(params, obs, seat, other, stream, scratch)
        R.observe(params, other, seat, obs2)
        p = params[0]
        prob = np.zeros(p[S.P_CELLS])
        read_memory(p, obs, seat, prob, np.ones(4), np.zeros(4, np.int64))
        for move in moves:
            v = vector(params, obs, seat, move)
            assert np.isfinite(v).all(), [NAMES[i] for i in np.flatnonzero(~np.isfinite(v))]
            assert np.array_equal(v, vector(params, obs2, seat, move)), move
            kind, c = move >> 16, move & 255
            if kind in (S.M_MOVE, S.M_STEP, S.M_PEEK) and obs[S.CELLS + c] == HIDDEN:
                placer = obs[placer_at(p, c)]
                if placer >= 0 and placer != seat and R.may_catch(p, obs, seat, placer):
                    assert v[NAMES.index("rival_bunny_chance")] == pytest.approx(prob[c])
                    chances += 1
            checked += 1
    assert checked > 1000 and chances > 20


@kernel
def many_calls(params, obs, seat, moves, out, times):
    for _ in range(times):
        for move in moves:
            R.move_features(params, obs, seat, move, out)


def allocations(t, obs, moves, times):
    """NRT allocations of ``times`` rounds of calls (simkit.testing.allocations' way)."""
    out = np.empty(len(NAMES))
    many_calls(t.params, obs, 0, moves, out, 1)  # compile
    was_on = _nrt_python.memsys_stats_enabled()
    _nrt_python.memsys_enable_stats()
    try:
        before = rtsys.get_allocation_stats().alloc
        many_calls(t.params, obs, 0, moves, out, times)
        return rtsys.get_allocation_stats().alloc - before
    finally:
        if not was_on:
            _nrt_python.memsys_disable_stats()


def test_nothing_is_allocated():
    t = two_player_table()
    moves = np.array(t.legal(), np.int32)
    assert len(moves) > 10  # every card: P1 has 3 carrots
    assert allocations(t, t.observe(0), moves, 1) == allocations(t, t.observe(0), moves, 50)
