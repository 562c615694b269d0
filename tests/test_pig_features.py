"""Pig's ``features`` kernel (docs/learning.md), entry by entry on built states, from two
seats (own and next swap)."""

import numpy as np
import pytest
from pig_game import GAME as PIG
from pig_game import rules

from simkit.runner import RunSpec, plan


def built(players: int, seat: int, turn_total: int, banked, turns: int = 0):
    p = plan(RunSpec.make("pig", players, 1))
    state = np.zeros(p.state_size, np.int32)
    state[rules.N_PLAYERS] = players
    state[rules.SEAT] = seat
    state[rules.TURN_TOTAL] = turn_total
    state[rules.TURNS] = turns
    state[rules.WINNER] = -1
    state[rules.BANKED:rules.BANKED + players] = banked
    return p, state


def features(p, state, seat) -> dict[str, float]:
    obs = np.empty_like(state)
    rules.observe(p.compiled, state, seat, obs)
    out = np.full(len(PIG.features), np.nan)
    rules.features(p.compiled, obs, seat, out)
    return dict(zip(PIG.features, out.tolist(), strict=True))


def test_every_entry_of_a_three_player_position():
    # seat 1 on turn with 7 at risk; banks 10, 5, 20; target 30, cap 400; 40 turns played
    p, state = built(3, 1, 7, [10, 5, 20], turns=40)
    f = features(p, state, 1)
    assert f == pytest.approx({
        "own_banked": 5, "own_at_risk": 7, "own_if_held": 12, "own_to_go": 25,
        "own_on_turn": 1,
        "next_banked": 20, "next_at_risk": 0, "next_to_go": 10, "next_on_turn": 0,
        "second_banked": 10, "second_to_go": 20, "second_on_turn": 0,
        "third_banked": 0, "third_to_go": 0, "third_on_turn": 0,
        "best_other_banked": 20, "lead": -15, "target": 30, "turn_fraction": 0.1})


def test_perspective_own_and_next_swap():
    p, state = built(2, 0, 9, [12, 18])
    mine, theirs = features(p, state, 0), features(p, state, 1)
    assert (mine["own_banked"], mine["next_banked"]) == (12, 18)
    assert (theirs["own_banked"], theirs["next_banked"]) == (18, 12)
    assert (mine["own_at_risk"], mine["own_on_turn"]) == (9, 1)
    assert (theirs["next_at_risk"], theirs["next_on_turn"], theirs["own_on_turn"]) == (9, 1, 0)
    assert theirs["own_if_held"] == 18 and mine["own_if_held"] == 21
    assert mine["lead"] == -6 and theirs["lead"] == 6


def test_four_players_fill_the_third_seat():
    p, state = built(4, 2, 4, [1, 2, 3, 29])
    f = features(p, state, 1)
    assert (f["next_banked"], f["second_banked"], f["third_banked"]) == (3, 29, 1)
    assert (f["next_on_turn"], f["next_at_risk"]) == (1, 4)
    assert (f["third_to_go"], f["second_to_go"]) == (29, 1)
    assert f["best_other_banked"] == 29


def move_features(p, state, seat, move) -> dict[str, float]:
    obs = np.empty_like(state)
    rules.observe(p.compiled, state, seat, obs)
    out = np.full(len(PIG.move_features), np.nan)
    rules.move_features(p.compiled, obs, seat, move, out)
    return dict(zip(PIG.move_features, out.tolist(), strict=True))


def test_move_features_say_what_rolling_and_holding_do():
    # seat 0 on turn with 7 at risk and 25 banked; target 30 in a 2-player game
    p, state = built(2, 0, 7, [25, 10])
    assert move_features(p, state, 0, rules.ROLL) == {
        "rolls": 1, "banks": 0, "risks": 7, "wins_now": 0}
    assert move_features(p, state, 0, rules.HOLD) == {
        "rolls": 0, "banks": 7, "risks": 0, "wins_now": 1}
    state[rules.TURN_TOTAL] = 4  # 29: holding does not win yet
    assert move_features(p, state, 0, rules.HOLD)["wins_now"] == 0
    # from the other seat's side, nothing of seat 0's turn total is its own
    assert move_features(p, state, 1, rules.HOLD) == {
        "rolls": 0, "banks": 0, "risks": 0, "wins_now": 0}
