"""The ladder's verdict on whether balance has settled (docs/ladder.md, "Has balance
settled?"), on constructed ladder results: the top two levels' rating gap and the paired
change of a figure between their self-play."""

import numpy as np
import pandas as pd
import pytest
from simkit.reports.analysis import compare_runs
from simkit.reports.ladder import MOVING, SETTLED, UNSURE, settle_verdict


def gap(d, half):
    return {"difference": d, "ci_low": d - half, "ci_high": d + half}


def verdict(d, lo, hi, rating=None, games=2000, fair=0.01):
    return settle_verdict("First-player advantage", d, lo, hi, games, rating or gap(200, 50),
                          fair, 400, "ismcts", "heuristic")


def test_settled_needs_the_top_rated_apart_and_the_change_inside_fair():
    v = verdict(0.002, -0.004, 0.008)
    assert v["state"] == SETTLED and "has settled" in v["text"] and "inside ±1" in v["text"]
    assert "ismcts is rated 200 [150, 250] Elo above heuristic" in v["text"]
    # the same change with the top two not rated apart: more match games, not settled
    v = verdict(0.002, -0.004, 0.008, rating=gap(40, 60))
    assert v["state"] == UNSURE and v["more_match_games"] == pytest.approx(400 * (60 / 40) ** 2
                                                                         - 400, abs=1)
    assert "more games a pairing to rate ismcts above heuristic" in v["text"]


@pytest.mark.parametrize("d,lo,hi,way", [(-0.05, -0.07, -0.03, "falls"),
                                         (0.03, 0.01, 0.05, "rises")])
def test_still_moving_when_the_interval_excludes_zero_and_says_which_way(d, lo, hi, way):
    v = verdict(d, lo, hi)
    assert v["state"] == MOVING and f"still moving: it {way} by" in v["text"]
    assert "from heuristic to ismcts" in v["text"]
    v = verdict(d, lo, hi, rating=gap(10, 30))
    assert v["state"] == MOVING and "not yet clearly rated above" in v["text"]


def test_a_change_inside_fair_with_a_wide_interval_needs_more_level_games():
    # 0.2 points [-1.8, +2.2] over 500 games: to fit inside +-1 the half-width must shrink
    # from 2.0 to 0.8 points, (2.0 / 0.8)^2 = 6.25 times the games: about 2,625 more
    v = verdict(0.002, -0.018, 0.022, games=500)
    assert v["state"] == UNSURE and v["more_level_games"] == 2625
    assert "about 2,625 more level games" in v["text"]
    # a change beyond fair whose interval holds 0: enough games to exclude 0
    v = verdict(0.015, -0.005, 0.035, games=500)
    assert v["state"] == UNSURE and v["more_level_games"] == pytest.approx(500 * (2 / 1.5) ** 2
                                                                         - 500, abs=1)


def test_a_figure_without_an_interval_is_not_enough_games():
    v = verdict(float("nan"), None, None)
    assert v["state"] == UNSURE and "no interval yet" in v["text"]


def test_the_paired_change_comes_from_the_same_deals():
    """Two constructed level runs on the same 400 deals: the top level's seat 1 wins 3 of 4
    deals where the level below won 1 of 2, so the first-player advantage rises by about
    25 points (seat 1 share minus the mean share) and the verdict says so."""
    rng = np.random.default_rng(1)
    n = 400
    below = rng.random(n) < 0.5
    top = np.where(below, True, rng.random(n) < 0.5)

    def games(seat1_won):
        return pd.DataFrame({"game": np.arange(n), "rank_s1": np.where(seat1_won, 1, 2),
                             "rank_s2": np.where(seat1_won, 2, 1)})

    t = compare_runs(games(below), games(top))
    row = t[t["measure"] == "first-player advantage"].iloc[0]
    v = verdict(row["difference"], row["ci_low"], row["ci_high"], games=n)
    assert v["state"] == MOVING and "rises" in v["text"]
    assert 0.18 < row["difference"] < 0.32


def test_two_levels_rated_alike_get_no_count_of_games_a_pairing():
    """A rating gap of a rounding error (two levels that scored alike) made the count of
    games a pairing astronomical (3.8e18 in Rabbit Hunt's shipped ladder)."""
    v = verdict(0.0, -0.3, 0.3, rating=gap(1e-13, 330), games=7)
    assert v["state"] == UNSURE and v["more_match_games"] is None
    assert "are rated alike" in v["text"]
    assert verdict(0.0, -0.3, 0.3, rating=gap(40, 60))["more_match_games"] == 500


def test_a_change_of_zero_width_from_a_few_games_is_not_settled():
    """Four paired level games that all gave one difference have a t interval of zero
    width, inside any band: it is no evidence, so the verdict is not "settled"."""
    v = verdict(0.0, 0.0, 0.0, games=4)
    assert v["state"] == UNSURE and "give one change" in v["text"]
