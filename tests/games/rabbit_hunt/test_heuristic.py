"""The heuristic against random, seats rotated (issue: at least 75% of 2-player games).
Measured for heuristic-v1: 94.5% at 2 players, 87.7% at 3 (fair share 33%), 66.5% at 4
with a random partner (fair share 50%), 1,500 games each; for v2 (NOTES.md, 2,000 games,
seed 2026): 97.0%, 95.5%, 69.6% of seat-games won. 1,500 games give a 95% interval of about
+-1.2 points, so the thresholds below leave a wide margin while still failing a heuristic
that is merely good."""

import numpy as np

from simkit import simulate


def heuristic_win_rate(players, games, seed):
    g = simulate("rabbit-hunt", players, games, seed=seed,
                 strategies=["heuristic"] + ["random"] * (players - 1), workers=2).games
    won = np.zeros(len(g), bool)
    for s in range(1, players + 1):
        won |= (g[f"strategy_s{s}"] == "heuristic").to_numpy() & (g[f"rank_s{s}"] == 1).to_numpy()
    return won.mean()


def test_heuristic_beats_random_in_three_quarters_of_two_player_games():
    assert heuristic_win_rate(2, 1500, seed=31) > 0.85


def test_heuristic_wins_well_over_a_fair_share_at_three_players():
    assert heuristic_win_rate(3, 1500, seed=32) > 0.6
