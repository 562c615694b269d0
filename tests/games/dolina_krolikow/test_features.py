"""The features kernel of Dolina królików (issue 29): every entry on hand-built states, from
the seat's own view and another's (perspective, missions face down and face up), and the
points and progress it computes held to the rules' own ``seat_score`` and ``progress`` on
random states at 2 to 4 players."""

import numpy as np
import pytest
from test_dolina_rules import (
    CARDS,
    FORESTS,
    GREEN,
    HOUSES,
    ORANGE,
    Table,
    build_family,
    card,
    face,
    forest,
    give_forest,
    house,
)

from simkit.games.dolina_krolikow import rules as R
from simkit.games.dolina_krolikow import state as S
from simkit.rng import seed_streams

C, F = R.PARTIAL_CREDIT, R.FOREST_CREDIT
PUBLIC = [n for n in R.SEAT_FEATURES  # missions are counted only where they are seen
          if n not in ("points_now", "progress", "secured_gain", "started_gain")]


def feats(t, seat):
    """The features of ``seat`` on the table's state, by name (through ``observe``)."""
    obs = np.empty_like(t.state)
    R.observe(t.params, t.state, seat, obs)
    out = np.full(len(R.FEATURES), np.nan)
    R.features(t.params, obs, seat, out)
    assert np.isfinite(out).all()
    return dict(zip(R.FEATURES, out.tolist(), strict=True))


def standing(t):
    out = np.zeros(t.n)
    R.progress(t.params, t.state, out)
    return out


def make_wanderer(t, seat, c):
    t.take_out(c)
    w = 0 if t[S.WAND + 2 * seat] < 0 else 1
    t[S.WAND + 2 * seat + w] = c
    t[S.CARD_LOC + c] = S.LOC_SEAT + 8 * seat + S.LOC_WANDER


def two_houses(**overrides):
    """Past setup, 2 players, at the first House draw: seat 0 keeps 'total any 10' and two
    Houses, a 3-rabbit Family with brown ('has brown 1' done, +1 +2) and a lone Large
    ('size 5', 4 short), a Wanderer, 1 carrot and 2 cabbages; seat 1 nothing."""
    t = Table(2, **overrides)
    t.finish_setup()
    give_forest(t, 0, forest("total any 10"))
    t.set_houses(0, [house("has brown 1"), house("size 5")])
    t.set_houses(1, [])
    build_family(t, 0, 0, "Lw Sb Sb")
    build_family(t, 0, 1, "Lw")
    make_wanderer(t, 0, card("Small spotted: G"))
    t.give_tokens(0, 1, 2, 0)
    t.give_tokens(1, 0, 0, 0)
    assert t[S.PHASE] == S.PH_DRAW and t.problems() == []
    return t


# --- a seat's valley, its points and its missions ---------------------------------------------

def test_own_valley_points_progress_and_missions():
    t = two_houses()
    f = feats(t, 0)
    assert R.seat_score(t.params, t.state, 0) == 3
    progress = 3 + 0.001 * 3 + 1 * C + 2 * C ** 4 + 5 * F ** 6  # round 1: share 1
    assert f["own_points_now"] == 3
    assert f["own_progress"] == pytest.approx(progress)
    assert f["own_progress"] == pytest.approx(standing(t)[0])
    assert {k: f[f"own_{k}"] for k in PUBLIC} == {
        "family_points": 1, "families": 1, "houses": 2, "houses_waiting": 1, "rabbits": 4,
        "large_rabbits": 2, "tokens": 3, "wanderers": 1, "rabbits_secured": 0,
        "large_started": 0, "picks_left_this_round": 3, "cards_in_reach": 0,
        "large_at_risk": 0, "large_finishing_dice": 0}
    assert [f["own_white_rabbits"], f["own_brown_rabbits"], f["own_spotted_rabbits"]] == [2, 2, 0]
    assert [f["own_carrots"], f["own_cabbages"], f["own_cornflowers"]] == [1, 2, 0]
    assert [f["own_house_missions_done"], f["own_house_missions_open"],
            f["own_house_missions_one_short"], f["own_house_rabbits_short"]] == [1, 1, 0, 4]
    assert [f["own_forest_done"], f["own_forest_rabbits_short"], f["own_forest_lost"]] \
        == [0, 6, 0]  # 4 rabbits of 10


def test_perspective_own_and_next_swap_and_hidden_missions_do_not_count():
    t = two_houses()
    mine, theirs = feats(t, 0), feats(t, 1)
    for k in PUBLIC:
        assert theirs[f"next_{k}"] == mine[f"own_{k}"], k
        assert mine[f"next_{k}"] == theirs[f"own_{k}"], k
    assert theirs["own_points_now"] == mine["next_points_now"] == 0
    # seat 0's missions lie face down: seat 1 counts its Family and what the lone Large
    # would add, not the House and Forest missions
    assert theirs["next_points_now"] == 1
    assert theirs["next_progress"] == pytest.approx(1 + 0.003 + 1 * C)
    up = two_houses(**{"missions.face_up": True})
    theirs = feats(up, 1)
    assert theirs["next_points_now"] == 3
    assert theirs["next_progress"] == pytest.approx(standing(up)[0])


def test_missions_one_short_spoiled_done_and_lost():
    t = Table(2, **{"advanced.scoring": True})
    t.finish_setup()
    give_forest(t, 0, forest("every has brown 1"))
    t.set_houses(0, [house("has white 3"), house("only brown"), house("size 4"),
                     house("has spotted 3")])
    build_family(t, 0, 0, "Lw Sw")  # one white rabbit short
    build_family(t, 0, 1, "Lb Sw")  # a white rabbit: never only brown
    build_family(t, 0, 2, "Lb Sb Sw Ss")  # done
    build_family(t, 0, 3, "Ls")  # not yet a Family; two spotted rabbits short
    f = feats(t, 0)
    assert [f["own_white_rabbits"], f["own_brown_rabbits"], f["own_spotted_rabbits"]] == [4, 3, 2]
    assert [f["own_house_missions_done"], f["own_house_missions_open"],
            f["own_house_missions_one_short"], f["own_house_rabbits_short"]] == [1, 2, 1, 3]
    # 3 Families +1 +1 +2, 'size 4' +2, three missions uncompleted -2 each (orange
    # column); the Forest mission: the first Family has no brown rabbit, one short
    assert f["own_points_now"] == R.seat_score(t.params, t.state, 0) == 4 + 2 - 6
    assert [f["own_forest_done"], f["own_forest_rabbits_short"], f["own_forest_lost"]] \
        == [0, 1, 0]
    t.house_rabbit(0, 0, card("Small brown: O"))
    f = feats(t, 0)
    assert [f["own_forest_done"], f["own_forest_rabbits_short"], f["own_forest_lost"]] \
        == [1, 0, 0]
    assert f["own_points_now"] == R.seat_score(t.params, t.state, 0) == 4 + 2 - 6 + 5
    late = two_houses()
    late[S.ROUND] = 7  # the last round: 3 picks left, the Forest mission is 6 rabbits short
    f = feats(late, 0)
    assert [f["own_forest_done"], f["own_forest_rabbits_short"], f["own_forest_lost"]] \
        == [0, 0, 1]
    assert f["own_house_missions_open"] == 0  # 'size 5' is 4 rabbits short


# Rabbits still to add to an empty House for its mission: a Family is 2, more if the
# mission asks for more rabbits
EMPTY_SHORT = {"has brown 1": 2, "only brown": 2, "has white 3": 3, "rainbow": 3,
               "only white": 2, "only spotted": 2, "has spotted 3": 3, "has brown 3": 3,
               "size 4": 4, "large 2": 2, "small 3": 4, "none white": 2, "none spotted": 2,
               "none brown": 2, "size 5": 5, "mono": 2}
# ... and for a Forest mission with no House yet: 3 a Family to come
NO_HOUSE_SHORT = {"every has brown 1": 3, "every has white 1": 3, "every has spotted 1": 3,
                  "count 3 size 2": 9, "count 2 large 2": 6, "count 1 size 5": 3,
                  "count 2 mono": 6, "total spotted 6": 6, "total any 10": 10}


def test_setup_counts_the_cards_chosen_in_secret():
    t = Table(2)
    houses = [R.H_DISCARD + k for k in range(4)]
    hand = [HOUSES[t[S.HOUSE_HAND + k]] for k in range(4)]
    kept_forest = FORESTS[t[S.FOREST_HAND + 1]]
    f = feats(t, 0)
    assert f["phase_setup"] == 1 and f["own_to_move"] == 1
    assert f["own_house_missions_open"] == 4  # the House cards dealt, none discarded yet
    assert f["own_houses"] == 4 and f["next_houses"] == 0  # Houses to come: its own only
    assert f["own_house_rabbits_short"] == sum(EMPTY_SHORT[h] for h in hand)
    assert f["own_forest_rabbits_short"] == 0  # no Forest card chosen
    t.play(R.F_KEEP + 1)
    t.play(houses[2])
    f = feats(t, 0)
    assert f["own_forest_rabbits_short"] == NO_HOUSE_SHORT[kept_forest]
    assert f["own_house_missions_open"] == 3 and f["own_houses"] == 3
    assert f["own_house_rabbits_short"] == sum(EMPTY_SHORT[h] for h in hand) \
        - EMPTY_SHORT[hand[2]]
    assert f["own_to_move"] == 0 and f["own_points_now"] == 0
    assert feats(t, 1)["own_forest_rabbits_short"] == 0  # seat 1 has not chosen
    assert feats(t, 1)["next_houses"] == 0  # seat 0's choice is secret
    t.finish_setup()  # the reveal: the Houses kept are on the table, for everyone
    assert feats(t, 0)["own_houses"] == feats(t, 1)["next_houses"] == 3


# --- the round: the draft, the table, the turn ------------------------------------------------

DRAFT_CARDS = ["Small white: O", "Small white: G", "Small brown: G1", "Small white: *6",
               "Large white: O O", "Large brown: G G", "Small white: B3", "Small brown: B"]


def draft(**overrides):
    """Round 1's first pick, 2 players, every die an orange six, the cards of DRAFT_CARDS
    at positions 1 to 8; seat 0 holds no token, seat 1 two cabbages (a green recolour)."""
    t = Table(2, **overrides)
    t.to_picks()
    t.set_houses(0, [house("size 5")])
    t.set_houses(1, [house("size 4")])
    for pos, text in enumerate(DRAFT_CARDS):
        t.put(pos, card(text))
    t.roll(*[face(ORANGE, 6)] * 9)
    t.give_tokens(0, 0, 0, 0)
    t.give_tokens(1, 0, 2, 0)
    return t


def test_the_draft_cards_in_reach_picks_left_and_rabbits_secured():
    t = draft()
    f = feats(t, 0)
    assert f["phase_draft"] == 1 and f["own_to_move"] == 1 and f["own_pick_order"] == 0
    # seat 0: the orange card, any six, the orange Large; seat 1 also the green ones
    assert [f["own_cards_in_reach"], f["next_cards_in_reach"]] == [3, 5]
    assert [f["own_picks_left_this_round"], f["next_picks_left_this_round"]] == [3, 3]
    t.play(t.place_move(0, 4, face(ORANGE, 6)))  # seat 0 starts the orange Large
    f = feats(t, 1)
    assert f["own_pick_order"] == 1 and f["own_to_move"] == 1
    assert [f["next_large_started"], f["next_rabbits_secured"]] == [1, 0]
    assert [f["own_cards_in_reach"], f["next_cards_in_reach"]] == [4, 3]  # its mark
    assert [f["own_picks_left_this_round"], f["next_picks_left_this_round"]] == [3, 2]
    t.play(t.place_move(1, 0, face(ORANGE, 6)))  # seat 1 takes the orange Small
    t.play(t.place_move(2, 4, face(ORANGE, 6)))  # seat 0 completes its Large
    f = feats(t, 0)
    assert [f["own_large_started"], f["own_rabbits_secured"], f["next_rabbits_secured"]] \
        == [0, 1, 1]
    assert [f["own_picks_left_this_round"], f["next_picks_left_this_round"]] == [1, 2]
    while t[S.PHASE] == S.PH_PICK:
        t.play(R.RES + [d for d in range(9) if t[S.DIE_USE + d] == -1][0])
    f = feats(t, 0)
    assert f["phase_leftover"] == 1 and f["own_cards_in_reach"] == 0
    assert [f["own_picks_left_this_round"], f["next_picks_left_this_round"]] == [0, 0]
    t.play(R.LEFT_PASS)
    f = feats(t, 0)  # the rabbits wait for their Houses: still secured
    assert f["phase_place"] == 1 and f["own_rabbits_secured"] == f["next_rabbits_secured"] == 1
    t.play(t.moves()[0])
    f = feats(t, 1)
    assert [f["own_rabbits_secured"], f["next_rabbits_secured"]] == [1, 0]
    assert f["next_rabbits"] == 1 and f["next_large_rabbits"] == 1


def test_a_large_rabbit_started_at_risk_and_the_dice_that_can_finish_it():
    t = draft()
    t.play(t.place_move(0, 4, face(ORANGE, 6)))  # seat 0 starts the orange Large
    f = feats(t, 1)  # eight orange sixes left, each finishes it
    assert [f["next_large_started"], f["next_large_at_risk"]] == [1, 0]
    assert [f["next_large_finishing_dice"], f["own_large_finishing_dice"]] == [8, 0]
    for d in range(1, 9):  # the dice left turn green: no token of seat 0's recolours one
        t[S.DIE_FACE + d] = face(GREEN, 6)
    f = feats(t, 1)
    assert [f["next_large_at_risk"], f["next_large_finishing_dice"]] == [1, 0]
    assert f["own_large_finishing_dice"] == 0  # seat 1 has started none
    t[S.DIE_FACE + 8] = face(ORANGE, 6)  # one die could finish it: a rival may take it
    f = feats(t, 1)
    assert [f["next_large_at_risk"], f["next_large_finishing_dice"]] == [0, 1]
    t.give_tokens(0, 2, 0, 0)  # two carrots recolour any die orange
    f = feats(t, 1)
    assert [f["next_large_at_risk"], f["next_large_finishing_dice"]] == [0, 8]
    t.give_tokens(0, 0, 0, 0)
    t[S.DIE_FACE + 8] = face(GREEN, 6)
    while t[S.PHASE] == S.PH_PICK:  # the picks run out with the card one die short
        t.play(R.RES + [d for d in range(9) if t[S.DIE_USE + d] == -1][0])
    f = feats(t, 0)
    assert [f["own_large_started"], f["own_large_at_risk"], f["own_picks_left_this_round"]] \
        == [1, 1, 0]
    t.play(R.LEFT_PASS)
    assert t.items[0, R.I_FAILED] == 1  # and it was lost


def test_the_gain_of_a_rabbit_secured_or_started_is_what_it_adds_to_progress_at_best():
    """``secured_gain`` and ``started_gain``: each rabbit's best House by ``progress`` (the
    Forest mission aside), seen by its seat; another seat sees its Families' part only."""
    t = two_houses()  # House 0: 'has brown 1', Lw Sb Sb; House 1: 'size 5', a lone Lw
    small, large = card("Small brown: G1"), card("Large white: O O")
    for pos, c in ((0, small), (1, large)):
        t.put(pos, c)
        t[S.POS_OWNER + pos] = 0
        t[S.POS_D1 + pos] = face(GREEN, 1)
    t[S.FOREST_KEPT] = -1  # the gain leaves the Forest mission aside

    def best(c, houses):
        base = standing(t)[0]
        gains = []
        for h in houses:
            u = t.state.copy()
            R.add_to_house(t.params, u, 0, h, c)
            out = np.zeros(2)
            R.progress(t.params, u, out)
            gains.append(out[0] - base)
        return max(gains)

    f = feats(t, 0)
    assert f["own_rabbits_secured"] == 1 and f["own_large_started"] == 1
    assert f["own_secured_gain"] == pytest.approx(best(small, [0, 1]))
    assert f["own_started_gain"] == pytest.approx(best(large, [0, 1]))
    assert f["own_secured_gain"] > 0 and f["own_started_gain"] > 0
    # seat 1 sees no mission of seat 0's: a Small rabbit completes House 1's Family (1
    # point, where its credit was 0.4 of it), or makes House 0's Family of 3 one of 4 (the
    # size table: 1 point more); the Large one makes House 0's a Family with two Large
    seen = feats(t, 1)
    sizes = [t.params[0][R.O_SIZE + n] for n in range(6)]
    assert t[S.ROUND] == 0 and sizes[2:5] == [1, 1, 2]
    assert seen["next_secured_gain"] == pytest.approx(max(sizes[4] - sizes[3], 1 - C))
    assert seen["next_started_gain"] == pytest.approx(
        sizes[4] - sizes[3] + t.params[0][R.C_TWO_LARGE])


def test_a_pick_being_paid_for_is_made():
    t = draft()
    t.give_tokens(0, 1, 1, 1)  # a six made a five: two tokens, carrot and cabbage or not
    t.put(3, card("Small brown: *5"))
    t.play(t.place_move(0, 3, face(ORANGE, 5)))
    assert t[S.PHASE] == S.PH_PAY
    f = feats(t, 0)
    assert [f["own_carrots"], f["own_cabbages"], f["own_cornflowers"]] == [1, 1, 1]  # unpaid
    assert f["phase_draft"] == 1 and f["own_picks_left_this_round"] == 2
    assert f["own_rabbits_secured"] == 1


def test_the_turn_the_rounds_and_the_phases():
    t = two_houses()
    f = feats(t, 1)
    assert f["phase_houses"] == 1 and sum(f[f"phase_{p}"] for p in R.PHASES) == 1
    assert f["own_to_move"] == 0 and f["own_pick_order"] == 1
    t[S.ROUND], t[S.FIRST] = 3, 1
    f = feats(t, 1)
    assert f["rounds_fraction"] == 3 / 8 and f["rounds_fraction_of_cap"] == 3 / 30
    assert f["own_pick_order"] == 0 and feats(t, 0)["own_pick_order"] == 1
    t[S.ROUND], t[S.OVER], t[S.PHASE] = 8, 1, S.PH_OVER
    f = feats(t, 0)
    assert f["rounds_fraction"] == 1 and f["own_to_move"] == 0
    assert sum(f[f"phase_{p}"] for p in R.PHASES) == 0
    assert f["own_picks_left_this_round"] == 0 and f["own_progress"] == pytest.approx(3.003)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_seats_in_play_order_and_absent_seats_zero(players):
    t = Table(players)
    t.finish_setup()
    smalls = [card(c) for c in CARDS if c.startswith("Small")
              and t[S.CARD_LOC + card(c)] == S.LOC_DECK]
    for s in range(players):
        t.give_tokens(s, 0, s, 1)  # seat s holds s + 1 tokens
        for _ in range(1 + s % 2):  # and 1, 2, 1, 2 Wanderers
            make_wanderer(t, s, smalls.pop())
    assert t.problems() == []
    for seat in range(players):
        f = feats(t, seat)
        for k, who in enumerate(R.SEATS):
            s = (seat + k) % players
            expected = (s + 1, 1 + s % 2) if k < players else (0, 0)
            assert (f[f"{who}_tokens"], f[f"{who}_wanderers"]) == expected, (seat, who)
            if k >= players:
                assert all(f[f"{who}_{n}"] == 0 for n in R.SEAT_FEATURES)


# --- the points and progress it counts are the rules' own -------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_seat_block_is_that_seats_own_view_and_its_points_the_rules_own(players):
    """On random states: each seat's block in any seat's view is what that seat sees of
    itself (its points and progress where its missions are shown: its own view, and every
    view once face-up missions are shown), the points and progress are ``seat_score`` and
    ``progress``, and every entry of every block is met non-zero."""
    met = set()
    for face_up in (False, True):
        t = Table(players, **{"missions.face_up": face_up})
        moves = np.empty(R.MAX_MOVES, np.int32)
        for g in range(3):
            streams = np.empty(1 + players, np.uint64)
            seed_streams(np.uint64(100 + g), players, streams)
            chance, rng = streams[0:1], np.random.default_rng(g)
            R.new_game(t.params, players, t.state, chance)
            decision = 0
            while not R.is_over(t.state):
                if decision % 5 == 0:
                    check_views(t, players, face_up, met)
                n = R.legal_moves(t.params, t.state, moves)
                R.apply_move(t.params, t.state, moves[rng.integers(n)], chance, t.items)
                decision += 1
    # random seats never make a Wanderer (a rabbit that fits none of their Houses):
    # test_seats_in_play_order_and_absent_seats_zero gives them some
    expected = {(k, name) for k in range(players) for name in R.SEAT_FEATURES
                if name != "wanderers"}
    assert expected - met == set()


def check_views(t, players, face_up, met):
    values = standing(t)
    views = [feats(t, seat) for seat in range(players)]
    shown = face_up and t[S.PHASE] >= S.PH_DRAW
    for seat in range(players):
        for k in range(players):
            s = (seat + k) % players
            block = {name: views[seat][f"{R.SEATS[k]}_{name}"] for name in R.SEAT_FEATURES}
            met.update((k, name) for name, v in block.items() if v != 0)
            setup = t[S.PHASE] < S.PH_DRAW  # its own Houses to come are its secret
            assert all(block[name] == views[s][f"own_{name}"] for name in PUBLIC
                       if not (setup and name == "houses" and k > 0))
            if k == 0 or shown:
                assert block["points_now"] == R.seat_score(t.params, t.state, s)
                assert block["progress"] == pytest.approx(values[s], abs=1e-9)


def test_the_names():
    assert len(R.FEATURES) == len(set(R.FEATURES)) == 94
    assert R.FEATURES[:2] == ("own_points_now", "own_progress")
    assert R.FEATURES[R.N_SEAT] == "next_points_now"
    assert R.FEATURES[-len(R.PHASES):] == tuple(f"phase_{p}" for p in R.PHASES)
    assert [CARDS[card(c)] for c in DRAFT_CARDS] == DRAFT_CARDS
    assert set(EMPTY_SHORT) == set(HOUSES) and set(NO_HOUSE_SHORT) == set(FORESTS)
