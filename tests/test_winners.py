"""``simkit.results.winners``, the seat loop that tabulates who won, against the row-wise
numpy it replaced (``argmax``, ``all`` and ``sum`` along each game's seats)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as hs

from simkit.results import winners


def rowwise(ranks, teams):
    won = ranks == 1
    n_won = won.sum(axis=1)
    sole = np.where(n_won == 1, won.argmax(axis=1), -1)
    first_team = teams[won.argmax(axis=1)]
    one = (n_won > 0) & np.all(~won | (teams[None, :] == first_team[:, None]), axis=1)
    return sole, first_team, one


@settings(max_examples=200, deadline=None)
@given(hs.integers(2, 4).flatmap(lambda p: hs.tuples(
    hs.lists(hs.lists(hs.integers(0, p), min_size=p, max_size=p), min_size=1, max_size=40),
    hs.lists(hs.integers(0, 1), min_size=p, max_size=p))))
def test_winners_are_those_of_the_rowwise_reductions(case):
    ranks, teams = np.array(case[0], dtype=np.int32), np.array(case[1])
    for got, want in zip(winners(ranks, teams), rowwise(ranks, teams), strict=True):
        assert got.tolist() == want.tolist()


def test_a_shared_win_of_one_team_is_the_team_s_and_no_seat_s():
    ranks = np.array([[1, 2, 1, 2], [1, 1, 2, 2], [2, 2, 2, 2], [2, 1, 2, 2]], dtype=np.int32)
    sole, team, one = winners(ranks, [0, 1, 0, 1])
    assert sole.tolist() == [-1, -1, -1, 1]
    assert team.tolist() == [0, 0, 0, 1] and one.tolist() == [True, False, False, True]
