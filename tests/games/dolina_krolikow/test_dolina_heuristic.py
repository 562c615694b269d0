"""The heuristic beats random play by a wide margin (the issue's target: 75% at 2 players)."""

import numpy as np

from simkit import simulate


def heuristic_win_rate(players, games):
    names = ",".join(["heuristic"] + ["random"] * (players - 1))
    g = simulate("dolina-krolikow", players, games, seed=11, strategies=names, workers=1).games
    won = sum(((g[f"strategy_s{s}"] == "heuristic") & (g[f"rank_s{s}"] == 1)).to_numpy()
              for s in range(1, players + 1))
    return float(np.mean(won))


def test_heuristic_wins_three_quarters_of_two_player_games():
    assert heuristic_win_rate(2, 200) >= 0.75


def test_heuristic_wins_more_than_a_fair_share_at_four_players():
    assert heuristic_win_rate(4, 200) >= 0.5
