"""Layer 5: the whole pipeline (seeds, engine, tables, analysis) against values known
exactly.

Pig to 1 point where both players hold as soon as they can: on each turn the player to
move wins unless the die shows a 1, so with a d-sided die seat 1 wins with probability
(1 - 1/d) / (1 - 1/d^2) = d / (d + 1): 6/7 with six faces."""

import numpy as np
from scipy.stats import binomtest
from simkit.reports.analysis import first_player_advantage, seat_outcomes

from simkit import simulate


def test_first_player_wins_pig_to_one_point_six_times_in_seven():
    res = simulate("pig", 2, 6000, seed=21, strategies="hold-at",
                   overrides={"target": 1}, weights=["hold-at.threshold=1"])
    g = res.games
    wins = int((g["rank_s1"] == 1).sum())
    assert binomtest(wins, len(g), 6 / 7).pvalue > 1e-3
    seat1 = seat_outcomes(g, res.meta).iloc[0]
    assert seat1["seat"] == 1
    assert seat1["win_low"] < 6 / 7 < seat1["win_high"]
    fpa = first_player_advantage(g, res.meta).iloc[0]
    assert fpa["ci_low"] < 6 / 7 - 1 / 2 < fpa["ci_high"]  # the mean share is exactly 1/2
    assert fpa["fms_low"] < 6 / 7 - 1 / 7 < fpa["fms_high"]
    assert fpa["p_value"] < 1e-12


def test_a_ten_sided_die_changes_the_exact_value():
    res = simulate("pig", 2, 6000, seed=22, strategies="hold-at",
                   overrides={"target": 1, "die_faces": 10}, weights=["hold-at.threshold=1"])
    wins = int((res.games["rank_s1"] == 1).sum())
    assert binomtest(wins, 6000, 10 / 11).pvalue > 1e-3
    assert np.isclose(res.games["turns"].mean(), 1 / (1 - 0.1), atol=0.05)
