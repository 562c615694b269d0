"""Ratings (Bradley-Terry / Plackett-Luce) and the win matrix, on games with known answers."""

import numpy as np
import pytest
from simkit.reports.ratings import ELO, expected_score, fit_ratings, rating_difference, win_matrix


def _pairs(rng, theta, home, games):
    """Two-player games between strategies of log-strength ``theta``, seat 1 worth
    ``home``: (codes, ranks, seat 1 won)."""
    codes = np.array([rng.choice(len(theta), 2, replace=False) for _ in range(games)])
    p = 1 / (1 + np.exp(-(theta[codes[:, 0]] + home - theta[codes[:, 1]])))
    won = rng.random(games) < p
    ranks = np.where(won[:, None], [1, 2], [2, 1])
    return codes, ranks, won


def test_two_player_fit_is_statsmodels_logistic_regression_on_the_same_games():
    import statsmodels.api as sm

    rng = np.random.default_rng(7)
    codes, ranks, won = _pairs(rng, np.array([0.0, 0.6, 1.4]), 0.3, 3000)
    fit = fit_ratings(codes, ranks, ["a", "b", "c"], anchor="a", prior_games=0)
    x = np.zeros((len(codes), 3))
    x[np.arange(len(codes)), codes[:, 0]] += 1
    x[np.arange(len(codes)), codes[:, 1]] -= 1
    x = np.column_stack([x[:, 1:], np.ones(len(codes))])  # a is the anchor; seat 1's term
    glm = sm.GLM(won.astype(float), x, family=sm.families.Binomial()).fit()
    got = [r["rating"] / ELO for r in fit["ratings"]][1:]
    np.testing.assert_allclose(got, glm.params[:2], atol=1e-5)
    np.testing.assert_allclose([r["se"] / ELO for r in fit["ratings"]][1:], glm.bse[:2],
                               rtol=1e-3)
    assert fit["seats"][1]["effect"] / ELO == pytest.approx(-glm.params[2], abs=1e-5)
    assert fit["model"] == "Bradley-Terry" and fit["converged"]


def test_a_tie_counts_as_half_a_win_for_each_side():
    # 30 wins of a, 10 of b and 20 ties == 40 wins of a and 20 of b, each at half weight
    # ... which is the same likelihood as 40 : 20 at full weight of half the ties
    with_ties = np.array([[1, 2]] * 30 + [[2, 1]] * 10 + [[1, 1]] * 20)
    as_wins = np.array([[1, 2]] * 40 + [[2, 1]] * 20)
    codes_t = np.tile([0, 1], (len(with_ties), 1))
    codes_w = np.tile([0, 1], (len(as_wins), 1))
    # seat terms would differ (the ties sit in both orders); rotate seats to cancel them
    codes_t = np.concatenate([codes_t, codes_t[:, ::-1]])
    with_ties = np.concatenate([with_ties, with_ties[:, ::-1]])
    codes_w = np.concatenate([codes_w, codes_w[:, ::-1]])
    as_wins = np.concatenate([as_wins, as_wins[:, ::-1]])
    a = fit_ratings(codes_t, with_ties, ["a", "b"], prior_games=0)
    b = fit_ratings(codes_w, as_wins, ["a", "b"], prior_games=0)
    assert a["ratings"][1]["rating"] == pytest.approx(b["ratings"][1]["rating"], abs=1e-4)
    assert a["ratings"][1]["rating"] == pytest.approx(-ELO * np.log(2), abs=1e-3)  # 2 : 1


def test_games_nobody_won_and_all_ties_give_equal_ratings():
    codes = np.array([[0, 1], [1, 0]] * 20)
    fit = fit_ratings(codes, np.zeros((40, 2), int), ["a", "b"])
    assert fit["ratings"][1]["rating"] == pytest.approx(0, abs=1e-6)


def test_a_strategy_that_never_lost_gets_a_finite_rating_from_the_prior():
    codes = np.array([[0, 1], [1, 0]] * 50)
    ranks = np.array([[1, 2], [2, 1]] * 50)  # a always wins
    fit = fit_ratings(codes, ranks, ["a", "b"], anchor="b")
    r = fit["ratings"][0]
    assert np.isfinite(r["rating"]) and 500 < r["rating"] < 2000 and r["ci_low"] > 0
    unregularised = fit_ratings(codes, ranks, ["a", "b"], anchor="b", prior_games=0.1)
    assert unregularised["ratings"][0]["rating"] > r["rating"]  # less prior: further out


def test_plackett_luce_recovers_known_strengths_and_seats_at_four_players():
    rng = np.random.default_rng(11)
    theta = np.array([0.0, 0.5, 1.0, 2.0])
    delta = np.array([0.0, 0.25, -0.2, 0.1])
    games = 3000
    codes = np.array([rng.permutation(4) for _ in range(games)])
    ranks = np.zeros((games, 4), int)
    for g in range(games):
        left = list(range(4))
        place = 1
        while left:
            w = np.exp(theta[codes[g, left]] + delta[left])
            pick = rng.choice(len(left), p=w / w.sum())
            ranks[g, left.pop(pick)] = place
            place += 1
    fit = fit_ratings(codes, ranks, list("abcd"), prior_games=0)
    assert fit["model"] == "Plackett-Luce"
    for r, t in zip(fit["ratings"][1:], theta[1:], strict=True):
        assert abs(r["rating"] / ELO - t) < 3.5 * r["se"] / ELO
    for s, d in zip(fit["seats"][1:], delta[1:], strict=True):
        assert abs(s["effect"] / ELO - d) < 3.5 * s["se"] / ELO
    d = rating_difference(fit, "d", "c")
    assert d["ci_low"] < ELO * (theta[3] - theta[2]) < d["ci_high"]


def test_win_matrix_counts_ranks_pair_by_pair_with_ties_as_halves():
    codes = np.array([[0, 1, 2], [2, 0, 1], [1, 2, 0]])
    ranks = np.array([[1, 2, 3], [1, 1, 3], [3, 2, 1]])
    m = {(r["row"], r["column"]): r for r in win_matrix(codes, ranks, np.arange(3),
                                                         ["a", "b", "c"])}
    # a against b: game 1 a ahead (1), game 2 a (seat 2, rank 1) vs b (seat 3, rank 3): 1,
    # game 3 a (seat 3, rank 1) vs b (seat 1, rank 3): 1
    assert m["a", "b"]["score"] == 1.0 and m["b", "a"]["score"] == 0.0
    # a against c: 1, tie (1/2), 1 -> 5/6
    assert m["a", "c"]["score"] == pytest.approx(5 / 6)
    assert m["a", "c"]["games"] == 3 and m["a", "b"]["ci_high"] == 1.0
    assert m["a", "b"]["ci_low"] < 1.0  # Wilson: never a zero-width interval


def test_teammates_are_not_compared_in_the_win_matrix():
    codes = np.array([[0, 1, 0, 1], [0, 0, 1, 1]])
    ranks = np.array([[1, 2, 1, 2], [1, 1, 1, 1]])
    teams = np.array([0, 1, 0, 1])
    m = {(r["row"], r["column"]): r for r in win_matrix(codes, ranks, teams, ["a", "b"])}
    # game 2 pairs a (seat 1) with b (seats 2 and 4): opponents tie; a and a are not compared
    assert m["a", "b"]["games"] == 2 and m["a", "b"]["score"] == pytest.approx(0.75)


def test_expected_score_is_the_elo_curve():
    assert expected_score(0) == 0.5
    assert expected_score(400) == pytest.approx(10 / 11)
