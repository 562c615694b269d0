"""How a game feels (reports/feel.py): every curve metric on hand-built curves whose answer
is known, the AUC against its definition, and the two ways of counting (while a run is
played, from its tables) giving the same figures."""

import math

import numpy as np
import pytest
from simkit.reports import feel as F


def _curve(*seats):
    """float32[1, R, P] from each seat's progress turn by turn."""
    return np.array(seats, np.float32).T[None, :, :]


def _one(curve, ranks, teams=(0, 1), turns=None):
    turns = np.array([curve.shape[1] - 1 if turns is None else turns])
    return F.per_game(curve, turns, np.array([ranks]), np.array(teams))


def test_a_winner_who_leads_from_the_middle_on():
    # turns 0..4: seat 2 leads at 1 and 2, seat 1 takes the lead at 3 and keeps it
    m = _one(_curve([0, 1, 1, 4, 6], [0, 2, 3, 3, 3]), [1, 2])
    assert m["winner"][0] == 0
    assert m["decided_at"][0] == pytest.approx(3 / 4)
    assert m["lead_changes"][0] == 1  # turn 0 is a tie: the first sole leader is no change
    assert m["drama"][0] == pytest.approx(2.0)  # 1 against 3 at turn 2
    assert m["behind_share"][0] == pytest.approx(2 / 4)
    assert m["comeback"][0]  # behind is last at two players
    assert m["stall"][0] == 0  # somebody's standing moved every turn


def test_a_winner_who_leads_throughout_never_came_back():
    m = _one(_curve([0, 2, 4, 6], [0, 1, 1, 1]), [1, 2])
    assert m["decided_at"][0] == pytest.approx(1 / 3)  # alone in the lead from turn 1
    assert m["lead_changes"][0] == 0
    assert m["drama"][0] == 0
    assert not m["comeback"][0]
    assert m["stall"][0] == 0


def test_a_winner_the_measure_does_not_show_ahead_is_decided_at_the_end():
    m = _one(_curve([0, 1, 1], [0, 2, 2]), [1, 2])  # a sudden win the standing missed
    assert m["decided_at"][0] == 1.0
    assert m["stall"][0] == pytest.approx(1 / 2)  # nothing moved in the last turn


def test_games_without_a_winner_have_no_winner_metrics():
    m = _one(_curve([0, 1, 2], [0, 2, 1]), [0, 0])  # a timeout: ranks all 0
    assert m["winner"][0] == -1
    assert math.isnan(m["decided_at"][0]) and math.isnan(m["drama"][0])
    assert m["lead_changes"][0] == 1


def test_ties_carry_the_last_sole_leader():
    # leader: -, 1, tie, 1, 2, tie, 2 -> one change (1 -> 2)
    m = _one(_curve([0, 2, 2, 3, 3, 5, 5], [0, 1, 2, 2, 4, 5, 6]), [2, 1])
    assert m["lead_changes"][0] == 1
    assert m["winner"][0] == 1


def test_comeback_at_three_players_means_last():
    # seat 1 (winner) is second at turn 1 (not last), so no comeback ...
    m = _one(_curve([0, 2, 9], [0, 3, 3], [0, 1, 1]), [1, 2, 2], teams=(0, 1, 2))
    assert not m["comeback"][0] and m["drama"][0] == pytest.approx(1.0)
    # ... but last at turn 1 is
    m = _one(_curve([0, 0.5, 9], [0, 3, 3], [0, 1, 1]), [1, 2, 2], teams=(0, 1, 2))
    assert m["comeback"][0]


def test_partners_are_one_team():
    # four seats in two teams (0, 2) and (1, 3); team 2 wins from behind
    curve = _curve([0, 3, 3], [0, 1, 5], [0, 3, 3], [0, 1, 5])
    m = _one(curve, [2, 1, 2, 1], teams=(0, 1, 0, 1))
    assert m["winner"][0] == 1
    assert m["lead_changes"][0] == 1 and m["comeback"][0]
    assert m["seat_lead"][0, -1].tolist() == [-2, 2, -2, 2]


def test_rows_past_the_last_turn_are_ignored():
    curve = _curve([0, 1, 2, 0, 0], [0, 0, 0, 9, 9])  # rows 3 and 4: past the end
    m = _one(curve, [1, 2], turns=2)
    assert m["lead_changes"][0] == 0 and m["drama"][0] == 0
    assert m["decided_at"][0] == pytest.approx(1 / 2)


def test_auc_is_the_chance_a_winner_scores_above_a_loser():
    rng = np.random.default_rng(1)
    s = rng.normal(size=300)
    y = rng.random(300) < 0.4
    s[y] += 0.7
    s = np.round(s, 1)  # ties count half
    pos, neg = s[y], s[~y]
    brute = ((pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])).mean()
    assert F.auc(s, y) == pytest.approx(brute)
    w = rng.poisson(1.0, 300).astype(float)
    pw, nw = w[y], w[~y]
    wbrute = (((pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :]))
              * pw[:, None] * nw[None, :]).sum() / (pw.sum() * nw.sum())
    assert F.auc(s, y, w) == pytest.approx(wbrute)


def _fake_run(seed=0, games=400, rows=12):
    """Games where seat 1 wins when its random walk ends ahead: a standing that predicts."""
    rng = np.random.default_rng(seed)
    steps = rng.integers(0, 3, size=(games, rows, 2)).astype(np.float32)
    steps[:, 0] = 0
    curve = np.cumsum(steps, axis=1)
    turns = rng.integers(4, rows, size=games)
    end = curve[np.arange(games), turns]
    ranks = np.where((end[:, 0] > end[:, 1])[:, None], [1, 2], [2, 1])
    ranks = np.where((end[:, 0] == end[:, 1])[:, None], 1, ranks).astype(np.int32)
    counts = rng.integers(1, 5, size=(games, 1, 4)).astype(np.int64)
    counts[:, :, 3] = counts[:, :, 2] ** 2
    counts[:, :, 1] = 0
    return curve, turns, ranks, counts, np.ones(games, np.int64)


def test_the_leader_predicts_better_as_the_game_goes_on():
    curve, turns, ranks, counts, end = _fake_run()
    t = F.FeelTally(2, [0, 1])
    t.add(counts, end, ranks, turns, curve)
    m = t.metrics()
    aucs = [a["auc"] for a in m["auc"]]
    assert aucs[-1] == pytest.approx(1.0)  # at the end the standing is the result
    assert aucs[1] < aucs[5] < aucs[-1]
    assert all(a["ci_low"] <= a["auc"] <= a["ci_high"] for a in m["auc"])
    assert 0 < m["uncertainty"]["mean"] < 1


def test_a_standing_that_says_nothing_is_uncertain():
    curve, turns, ranks, counts, end = _fake_run()
    rng = np.random.default_rng(5)
    ranks = np.where(rng.random(len(ranks))[:, None] < 0.5, [1, 2], [2, 1]).astype(np.int32)
    t = F.FeelTally(2, [0, 1])
    t.add(counts, end, ranks, turns, curve)
    u = t.metrics()["uncertainty"]
    assert u["mean"] > 0.8 and u["ci_low"] < 1


def test_branching_and_forced_moves_are_ratios_over_decisions():
    counts = np.array([[[4, 1, 10, 40]], [[6, 3, 12, 30]]], np.int64)
    t = F.FeelTally(2, [0, 1])
    t.add(counts, np.array([1, 0]), np.array([[1, 2], [0, 0]]), np.array([5, 6]))
    m = t.metrics()
    assert m["decisions"] == 10
    assert m["branching"]["mean"] == pytest.approx(22 / 10)
    assert m["forced"]["mean"] == pytest.approx(4 / 10)
    assert m["branching_sd"] == pytest.approx(math.sqrt(70 / 10 - 2.2**2))
    assert m["timeouts"]["count"] == 1 and m["draws"]["count"] == 0
    assert m["traced_games"] == 0 and "decided_at" not in m


def test_counting_by_chunks_equals_counting_at_once():
    curve, turns, ranks, counts, end = _fake_run(games=300)
    whole = F.FeelTally(2, [0, 1])
    whole.add(counts, end, ranks, turns, curve)
    parts = F.FeelTally(2, [0, 1])
    for a, b in ((0, 120), (120, 300)):
        parts.add(counts[a:b], end[a:b], ranks[a:b], turns[a:b], curve[a:b], a)
    mw, mp = whole.metrics(), parts.metrics()
    for key in ("decided_at", "lead_changes", "drama", "stall", "comebacks", "branching"):
        for k, v in mw[key].items():
            assert mp[key][k] == pytest.approx(v, rel=1e-9), (key, k)
    assert mp["auc"] == mw["auc"]
    assert len(mp["examples"]) == F.EXAMPLE_GAMES
