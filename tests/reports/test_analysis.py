"""Statistics checked against values known exactly."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from simkit.reports import analysis as A
from simkit.reports.summary import summary_text
from statsmodels.stats.proportion import confint_proportions_2indep

from simkit.errors import SimkitError

from .conftest import item_fixture, make_games, random_games

Z = 1.959963984540054


def wilson_by_hand(x, n):
    p = x / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return centre - half, centre + half


def ranks_seat1_wins(g, p):
    r = np.full((g, p), 2)
    r[:, 0] = 1
    return r


# --- Wilson intervals ----------------------------------------------------------------------


@pytest.mark.parametrize("x,n,lo,hi", [
    (5, 10, 0.2366, 0.7634),  # textbook value
    (0, 10, 0.0, 0.2775),     # z^2 / (n + z^2)
    (10, 10, 0.7225, 1.0),
    (81, 263, 0.2553, 0.3662),
])
def test_wilson_known_values(x, n, lo, hi):
    got_lo, got_hi = A.wilson(x, n)
    assert got_lo == pytest.approx(lo, abs=5e-5)
    assert got_hi == pytest.approx(hi, abs=5e-5)
    assert (got_lo, got_hi) == pytest.approx(wilson_by_hand(x, n), abs=1e-12)


def test_seat_outcomes_counts_and_wilson():
    ranks = np.array([[1, 2]] * 7 + [[2, 1]] * 3)
    t = A.seat_outcomes(make_games(ranks), {})
    assert list(t.seat) == [1, 2] and list(t.name) == ["seat 1", "seat 2"]
    assert list(t.wins) == [7, 3] and list(t.ties) == [0, 0] and list(t.losses) == [3, 7]
    assert list(t.games) == [10, 10]
    assert t.win_rate.tolist() == [0.7, 0.3]
    assert (t.win_low[0], t.win_high[0]) == pytest.approx(wilson_by_hand(7, 10))
    assert t.score_share.tolist() == [0.7, 0.3]
    assert t.advantage.tolist() == pytest.approx([0.2, -0.2])


def test_seat_outcomes_name_the_sides_of_an_asymmetric_game():
    t = A.seat_outcomes(make_games(np.array([[1, 2], [2, 1]])), {"seat_names": ["elil",
                                                                                "hlessil"]})
    assert list(t.name) == ["seat 1 (elil)", "seat 2 (hlessil)"]


def test_ties_are_not_wins():
    ranks = np.array([[1, 1]] * 6 + [[1, 2]] * 3 + [[2, 1]] * 1)
    t = A.seat_outcomes(make_games(ranks), {}).set_index("seat")
    assert t.loc[1, "wins"] == 3 and t.loc[1, "ties"] == 6 and t.loc[1, "losses"] == 1
    assert t.loc[2, "wins"] == 1 and t.loc[2, "ties"] == 6
    assert t.loc[1, "win_rate"] + t.loc[2, "win_rate"] + t.loc[1, "tie_rate"] == 1.0
    assert t.loc[1, "score_share"] == pytest.approx(0.3 + 0.6 / 2)


# --- first-player advantage -----------------------------------------------------------------


@pytest.mark.parametrize("p", [2, 3, 4])
def test_fpa_seat1_always_wins(p):
    t = A.first_player_advantage(make_games(ranks_seat1_wins(600, p)), {})
    row = t.iloc[0]
    assert row.players == p
    assert row.seat1_win_rate == 1.0
    assert row.fair_share == pytest.approx(1 / p)
    assert row.advantage == pytest.approx(1 - 1 / p)
    assert row.ci_low == pytest.approx(1 - 1 / p)
    assert row.ci_high == pytest.approx(1 - 1 / p)
    assert row.p_value == 0.0


def test_fpa_perfectly_balanced_alternating():
    ranks = np.array([[1, 2], [2, 1]] * 500)
    row = A.first_player_advantage(make_games(ranks), {}).iloc[0]
    assert row.advantage == 0.0
    assert row.p_value == pytest.approx(1.0)
    assert row.ci_low < 0 < row.ci_high


def test_fpa_fair_random_games_not_significant_and_matches_ttest():
    rng = np.random.default_rng(7)
    winner = rng.integers(0, 3, 3000)
    ranks = np.where(np.arange(3)[None, :] == winner[:, None], 1, 2)
    row = A.first_player_advantage(make_games(ranks), {}).iloc[0]
    d = (winner == 0) - 1 / 3
    assert row.advantage == pytest.approx(d.mean())
    assert row.p_value == pytest.approx(stats.ttest_1samp(d, 0).pvalue)
    assert row.p_value > 0.05
    assert abs(row.advantage) < 0.03
    half = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / math.sqrt(len(d))
    assert row.ci_high - row.ci_low == pytest.approx(2 * half)


def test_fpa_with_ties_and_timeouts_uses_fair_share_of_same_games():
    # 100 ties (both rank 1), 100 seat-1 wins, 100 timeouts (all rank 0), 100 seat-2 wins
    ranks = np.array([[1, 1]] * 100 + [[1, 2]] * 100 + [[0, 0]] * 100 + [[2, 1]] * 100)
    row = A.first_player_advantage(make_games(ranks), {}).iloc[0]
    assert row.seat1_win_rate == pytest.approx(0.25)  # outright: ties are not wins
    assert row.seat1_score_share == pytest.approx((50 + 100) / 400)
    assert row.fair_share == pytest.approx((100 + 100 + 0 + 100) / 2 / 400)
    # d: tie 0, seat-1 win +0.5, timeout 0, seat-2 win -0.5
    assert row.advantage == pytest.approx(0.0)
    assert row.first_minus_second == pytest.approx(0.0)
    ends = A.endings(make_games(ranks), {"end_reasons": ["timeout", "target_reached"]})
    out = ends[ends.kind == "outcome"].set_index("name")["count"]
    assert out.to_dict() == {"one winner": 200, "team win": 0, "tie": 100, "no winner": 100}
    er = ends[ends.kind == "end reason"].set_index("name")["count"]
    assert er.to_dict() == {"timeout": 100, "target_reached": 300}


def test_teams_win_together_no_tie():
    # Rabbit Hunt's 4 players on teams 1,2,1,2; team 1 (seats 1 and 3) wins 3 games in 4
    team0 = [1, 2, 1, 2]
    team1 = [2, 1, 2, 1]
    ranks = np.array([team0, team0, team0, team1] * 100)
    games = make_games(ranks, teams=[0, 1, 0, 1])
    row = A.first_player_advantage(games, {}).iloc[0]
    assert row.fair_share == pytest.approx(0.5)
    assert row.seat1_win_rate == pytest.approx(0.75)
    assert row.advantage == pytest.approx(0.25)
    ends = A.endings(games, {})
    out = ends[ends.kind == "outcome"].set_index("name")["count"]
    assert out["team win"] == 400 and out["tie"] == 0
    seats = A.seat_outcomes(games, {})
    assert seats.win_rate.tolist() == pytest.approx([0.75, 0.25, 0.75, 0.25])
    assert seats.tie_rate.tolist() == [0, 0, 0, 0]
    teams = A.team_outcomes(games, {})
    assert teams.seats.tolist() == ["1+3", "2+4"]
    assert teams.win_rate.tolist() == pytest.approx([0.75, 0.25])
    # the same rank pattern without teams is a tie
    ends = A.endings(make_games(ranks), {})
    assert ends.set_index("name").loc["tie", "count"] == 400


# --- strategy win rates, endings, length -----------------------------------------------------


def test_strategy_outcomes_over_seats_and_per_seat():
    # rotation: even games a in seat 1, odd games b in seat 1; seat 1 always wins
    games = make_games(ranks_seat1_wins(1000, 2))
    t = A.strategy_outcomes(games, {"strategies": ["a", "b"]})
    allseats = t[t.seat == "all"].set_index("strategy")
    assert allseats.loc["a", "seat_games"] == 1000
    assert allseats.loc["a", "win_rate"] == pytest.approx(0.5)
    per = t[t.seat != "all"].set_index(["strategy", "seat"])
    assert per.loc[("a", 1), "win_rate"] == 1.0
    assert per.loc[("a", 2), "win_rate"] == 0.0
    assert per.loc[("b", 1), "seat_games"] == 500
    # strategies that never sat are left out
    assert set(t.strategy) == {"a", "b"}


def test_strategy_in_two_seats_counts_each_seat():
    strategies = np.array([["a", "a", "b"]] * 30)
    ranks = np.array([[1, 2, 2], [2, 2, 1], [2, 1, 2]] * 10)
    t = A.strategy_outcomes(make_games(ranks, strategies=strategies), {})
    a = t[(t.strategy == "a") & (t.seat == "all")].iloc[0]
    assert (a.seat_games, a.wins) == (60, 20)


def test_game_length_quantiles():
    games = make_games(ranks_seat1_wins(101, 2), turns=np.arange(101))
    t = A.game_length(games, {}).set_index("measure")
    assert t.loc["turns", "mean"] == 50
    assert t.loc["turns", "median"] == 50
    assert t.loc["turns", "p05"] == 5
    assert t.loc["turns", "max"] == 100
    assert t.loc["decisions", "mean"] == 100


def test_several_player_counts_in_one_table():
    g2 = make_games(ranks_seat1_wins(200, 2))
    g3 = make_games(np.array([[2, 1, 2]] * 300))
    t = A.first_player_advantage(pd.concat([g2, g3], ignore_index=True), {})
    assert t.players.tolist() == [2, 3]
    assert t.advantage.tolist() == pytest.approx([0.5, -1 / 3])
    assert t.games.tolist() == [200, 300]


# --- item value --------------------------------------------------------------------------------


def test_item_value_known_difference(tmp_path):
    games, items = item_fixture()
    t = A.item_value(games, {"item_columns": ["x:made", "never:made"]}, items).set_index("item")
    x = t.loc["x:made"]
    assert x.seat_games == 2000 and x.occurred == 1000
    assert x.win_rate_occurred == pytest.approx(0.7)
    assert x.win_rate_not == pytest.approx(0.3)
    assert x.difference == pytest.approx(0.4)
    lo, hi = confint_proportions_2indep(700, 1000, 300, 1000, method="newcomb", compare="diff")
    assert (x.ci_low, x.ci_high) == pytest.approx((lo, hi))
    assert x.ci_low < 0.4 < x.ci_high and x.ci_low > 0.3
    assert x.p_value < 1e-10
    assert x.mean_count == pytest.approx(1.0) and x.mean_count_occurred == pytest.approx(2.0)
    assert bool(x.enough)
    never = t.loc["never:made"]
    assert never.occurred == 0 and not never.enough and math.isnan(never.difference)
    # streamed from parquet in tiny batches: the same table
    path = tmp_path / "items.parquet"
    items.to_parquet(path)
    t2 = A.item_value(games, {}, path, batch_rows=7).set_index("item")
    pd.testing.assert_frame_equal(t, t2.loc[t.index])


def test_item_value_ignores_rows_without_a_game():
    games, items = item_fixture()
    extra = items.iloc[:10].copy()
    extra["game"] += 10_000
    t = A.item_value(games, {}, pd.concat([items, extra])).set_index("item")
    assert t.loc["x:made", "seat_games"] == 2000


# --- compare_runs ------------------------------------------------------------------------------


def test_compare_identical_runs_zero_width():
    games, _ = random_games()
    t = A.compare_runs(games, games.copy(), {"game": "x"}, {"game": "x"})
    assert (t.difference == 0).all()
    assert (t.ci_low == 0).all() and (t.ci_high == 0).all()
    assert (t.p_value == 1).all()
    assert (t.n == 4000).all()


def test_compare_known_shift_recovered_with_pairing():
    base, winner = random_games()
    changed = base.copy()
    # flip 400 of seat 2's wins to seat 1; every game 3 turns longer
    flip = np.flatnonzero(winner == 1)[:400]
    changed.loc[flip, "rank_s1"] = 1
    changed.loc[flip, "rank_s2"] = 2
    changed["turns"] = changed["turns"] + 3
    # pairing is by game index, not row order
    changed = changed.sample(frac=1, random_state=1)
    t = A.compare_runs(base, changed, {}, {}).set_index(["measure", "group"])
    s0 = t.loc[("win rate", "seat 1")]
    assert s0.difference == pytest.approx(0.1)
    assert s0.ci_low < 0.1 < s0.ci_high
    # paired: d is 1 in 400 games and 0 elsewhere
    d = np.zeros(4000)
    d[:400] = 1
    half = stats.t.ppf(0.975, 3999) * d.std(ddof=1) / math.sqrt(4000)
    assert s0.ci_high - s0.ci_low == pytest.approx(2 * half)
    assert s0.p_value < 1e-10
    turns = t.loc[("mean turns", "per game")]
    assert turns.difference == pytest.approx(3.0)
    assert (turns.ci_low, turns.ci_high) == pytest.approx((3.0, 3.0))
    fpa = t.loc[("first-player advantage", "seat 1 share - mean share")]
    assert fpa.difference == pytest.approx(0.1)  # fair share stays 0.5 in every game
    # strategies rotate: a gains in its seat-1 games, loses in its seat-2 games
    a = t.loc[("win rate", "strategy a")]
    b = t.loc[("win rate", "strategy b")]
    assert a.difference + b.difference == pytest.approx(0.0)


def test_compare_strategy_swap_ratio_pairing():
    # the changed run replaces b by c: b exists only in base, c only in changed
    base, _ = random_games(1000)
    changed = base.copy()
    for s in range(2):
        col = changed[f"strategy_s{s + 1}"].astype(str).replace("b", "c")
        changed[f"strategy_s{s + 1}"] = pd.Categorical(col, categories=["a", "c"])
    t = A.compare_runs(base, changed, {}, {}).set_index(["measure", "group"])
    assert t.loc[("win rate", "strategy a"), "difference"] == 0
    assert math.isnan(t.loc[("win rate", "strategy b"), "changed"])
    assert math.isnan(t.loc[("win rate", "strategy c"), "base"])


def test_compare_items_independent():
    games, items = item_fixture()
    t = A.compare_runs(games, games, {}, {}, items, items)
    rows = t[t.measure == "item value"].set_index("group")
    x = rows.loc["x:made"]
    assert x.base == pytest.approx(0.4) and x.difference == 0
    se = math.sqrt(2 * (0.7 * 0.3 / 1000 + 0.3 * 0.7 / 1000))
    assert x.ci_high == pytest.approx(Z * se)
    assert x.method.startswith("independent")


def test_compare_rejects_different_games_and_player_counts():
    g2, _ = random_games(100)
    g3, _ = random_games(100, p=3)
    with pytest.raises(SimkitError, match="different games"):
        A.compare_runs(g2, g2, {"game": "pig"}, {"game": "avalon"})
    with pytest.raises(SimkitError, match="player count"):
        A.compare_runs(g2, g3, {}, {})
    later = g2.copy()
    later["game"] += 1000
    with pytest.raises(SimkitError, match="no game index in common"):
        A.compare_runs(g2, later, {}, {})


# --- summary text ------------------------------------------------------------------------------


def test_summary_text_fits_100_columns_and_says_the_numbers():
    games = make_games(np.array([[1, 2, 2], [2, 2, 1], [1, 1, 2], [0, 0, 0]] * 50),
                       names=("a-strategy-with-a-very-long-name-indeed", "b", "c", "d"))
    meta = {"game": "pig", "game_version": "1", "master_seed": 5, "complete": False,
            "games": 1000, "end_reasons": ["timeout", "target_reached"]}
    text = summary_text(games, meta)
    assert max(len(line) for line in text.splitlines()) <= 100
    lines = text.splitlines()
    assert lines[2].startswith("3 players, a-strategy")  # the headline, then the verdicts
    assert lines[lines.index("Verdict") - 1] == "" and lines.index("Verdict") <= 5
    assert "INCOMPLETE" in text
    assert "seat 1" in text and "strategy b" in text
    assert "first-player advantage" in text
    assert "tie 50 (25.0%)" in text and "timeout 50 (25.0%)" in text


def test_compare_item_occurrence_is_paired():
    games, items = item_fixture()
    changed = items.copy()
    # the event now also occurs for seat 1 in 100 games where it did not before
    newly = np.flatnonzero((items["seat"] == 1) & (items["x:made"] == 0))[:100]
    changed.loc[newly, "x:made"] = 1
    t = A.compare_runs(games, games, {}, {}, items, changed)
    occ = t[t.measure == "item occurrence"].set_index("group")
    x = occ.loc["x:made"]
    assert x.base == pytest.approx(0.5)
    assert x.difference == pytest.approx(100 / 2000)  # 100 more of 2000 seat-games
    d = np.zeros(1000)
    d[:100] = 0.5  # per game: one of the two seats more
    r = A.mean_ci(d)
    assert (x.ci_low, x.ci_high, x.p_value) == pytest.approx((r["ci_low"], r["ci_high"],
                                                              r["p_value"]))
    assert x.n == 1000 and x.method == "paired by game"
    never = occ.loc["never:made"]
    assert never.difference == 0 and never.ci_low == 0 == never.ci_high


def test_compare_item_occurrence_streams_in_small_aligned_windows(tmp_path, monkeypatch):
    games, items = item_fixture()
    changed = items.copy()
    changed.loc[::3, "x:made"] = 5
    pb, pc = tmp_path / "b.parquet", tmp_path / "c.parquet"
    items.to_parquet(pb, row_group_size=333)
    changed.to_parquet(pc, row_group_size=500)
    whole = A.compare_runs(games, games, {}, {}, items, changed)
    monkeypatch.setattr(A._aligned_windows, "__defaults__", (7,))
    streamed = A.compare_runs(games, games, {}, {}, pb, pc)
    pd.testing.assert_frame_equal(whole, streamed)


def test_compare_items_of_an_incomplete_run_use_the_common_games():
    games, items = item_fixture()
    t = A.compare_runs(games.iloc[:300], games, {}, {}, items.iloc[:600], items)
    occ = t[t.measure == "item occurrence"].set_index("group")
    assert occ.loc["x:made", "n"] == 300
    assert occ.loc["x:made", "difference"] == 0


def test_item_value_by_strategy_splits_the_seat_games():
    rng = np.random.default_rng(11)
    games, winner = random_games(3000, p=3)
    won = np.arange(3)[None, :] == winner[:, None]
    # strategy a meets the item mostly when winning, b and c at random
    strat = np.stack([games[f"strategy_s{s + 1}"].astype(str).to_numpy() for s in range(3)], 1)
    p_occ = np.where(strat == "a", np.where(won, 0.8, 0.2), 0.5)
    occurs = rng.random(won.shape) < p_occ
    items = pd.DataFrame({"game": np.repeat(games.game.to_numpy(), 3),
                          "seat": np.tile(np.arange(1, 4), 3000),
                          "x:seen": occurs.ravel().astype(np.uint16)})
    t = A.item_value(games, {"strategies": ["a", "b", "c"]}, items, by_strategy=True)
    assert t.strategy.tolist() == ["a", "b", "c"]
    assert t.seat_games.sum() == 9000
    for row in t.itertuples():
        mine = (strat == row.strategy).ravel()
        w, o = won.ravel()[mine], occurs.ravel()[mine]
        assert row.seat_games == mine.sum()
        assert row.occurred == o.sum()
        assert row.win_rate_occurred == pytest.approx(w[o].mean())
        assert row.win_rate_not == pytest.approx(w[~o].mean())
    a = t.set_index("strategy").loc["a"]
    b = t.set_index("strategy").loc["b"]
    assert a.ci_low > 0.3  # strong association for a
    assert b.ci_low < 0 < b.ci_high  # none for b
    overall = A.item_value(games, {}, items).iloc[0]
    assert overall.occurred == t.occurred.sum()


def test_item_value_pooled_from_strategy_counts_equals_a_pooled_pass():
    games, items = item_fixture()
    counts = A.item_counts(items, games, {}, by_strategy=True)
    assert set(counts.strategy) == {"a", "b"}
    pooled = A.item_value_from_counts(counts)
    pd.testing.assert_frame_equal(pooled, A.item_value(games, {}, items))


# --- the same numbers as scipy.stats and statsmodels, to the last bit ----------------------


def test_distribution_constants_are_scipy_stats_own():
    from scipy import special

    assert A.Z95 == float(stats.norm.ppf(0.975)) == float(special.ndtri(0.975))
    assert A._WILSON_Z == float(stats.norm.isf(0.025)) == float(-special.ndtri(0.025))


def test_the_statistics_import_scipy_when_needed_or_prepared():
    """Importing them imports no scipy (0.08 s of a small run's summary); ``prepare`` imports
    it on a thread of its own, and a t interval works either way."""
    import subprocess
    import sys

    code = ("import sys, numpy as np\nimport simkit.reports.stats as s\n"
            "print('scipy.special' in sys.modules)\n"
            "if sys.argv[1] == 'prepare':\n    s.prepare(); s._preparing.join()\n"
            "print('scipy.special' in sys.modules)\n"
            "print(round(s.mean_ci(np.array([1.0, 2.0, 4.0]))['ci_high'], 6))\n")
    for how, imported in (("prepare", "True"), ("lazy", "False")):
        out = subprocess.run([sys.executable, "-c", code, how], capture_output=True,
                             text=True, check=True).stdout.split()
        assert out == ["False", imported, "6.127916"]  # scipy.stats.t: 6.127916


def test_wilson_and_newcomb_and_ztest_equal_statsmodels_bit_for_bit():
    from statsmodels.stats.proportion import proportion_confint, proportions_ztest

    rng = np.random.default_rng(5)
    nobs = np.concatenate([[1, 2, 3, 10, 263, 10**6], rng.integers(1, 10**7, 60)])
    count = np.array([rng.integers(0, n + 1) for n in nobs])
    count[:3] = [0, 2, 1]  # none, all, some
    lo, hi = A.wilson(count, nobs)
    want_lo, want_hi = proportion_confint(count.astype(float), nobs.astype(float),
                                          alpha=0.05, method="wilson")
    assert np.array_equal(lo, want_lo) and np.array_equal(hi, want_hi)
    for (w1, n1), (w0, n0) in zip(zip(count, nobs, strict=True),
                                  zip(count[::-1], nobs[::-1], strict=True), strict=True):
        w1, n1, w0, n0 = int(w1), int(n1), int(w0), int(n0)
        assert A._newcomb(w1, n1, w0, n0) == tuple(
            float(v) for v in confint_proportions_2indep(w1, n1, w0, n0, method="newcomb",
                                                         compare="diff", alpha=0.05))
        if 0 < w1 + w0 < n1 + n0:
            assert A._two_proportion_p(w1, n1, w0, n0) == float(
                proportions_ztest([w1, w0], [n1, n0])[1])


@pytest.mark.parametrize("n", [2, 3, 7, 30, 1000, 200_001])
def test_mean_ci_equals_scipy_t_interval_and_ttest_bit_for_bit(n):
    rng = np.random.default_rng(n)
    for x in (rng.normal(0.01, 1, n), rng.integers(-1, 2, n) / 2, rng.random(n) / 3 - 0.1):
        r = A.mean_ci(x)
        se = float(x.std(ddof=1)) / math.sqrt(n)
        half = float(stats.t.ppf(0.975, n - 1)) * se
        assert (r["ci_low"], r["ci_high"]) == (r["mean"] - half, r["mean"] + half)
        assert r["p_value"] == float(stats.ttest_1samp(x, 0.0).pvalue)
        assert A._t_two_sided_p(r["mean"] / se, n - 1) == float(
            2 * stats.t.sf(abs(r["mean"]) / se, n - 1))
        assert A._normal_two_sided_p(r["mean"] / se) == float(
            2 * stats.norm.sf(abs(r["mean"]) / se))
