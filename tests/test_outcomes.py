"""The definitions of the report (outright win, tie, loss, score share, first-player
advantage, team results) checked against a game whose outcome probabilities are known
exactly, draws included: the dice duel of tests/fixtures/dice_duel."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from simkit import analysis, registry, simulate

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
from dice_duel import GAME as DUEL  # noqa: E402

registry.register_game(DUEL)
N = 20_000  # the half-width of a 95% interval of a share is at most 0.7 points


def inside(row, rate: str, exact: float) -> bool:
    """The estimate lies within 4 standard errors of the exact value (the 95% interval's
    half-width is 1.96 of them), so the file's many checks stay clear of chance."""
    est = row["score_share" if rate == "share" else f"{rate}_rate"]
    half = (row[f"{rate}_high"] - row[f"{rate}_low"]) / 2
    return abs(est - exact) <= 4 / 1.96 * half


@pytest.fixture(scope="module")
def duel2():
    return simulate("dice-duel", 2, N, seed=3, workers=1, rotate=False)


def test_two_players_wins_ties_losses_and_shares(duel2):
    seats = analysis.seat_outcomes(duel2.games, duel2.meta).set_index("seat")
    one, two = seats.loc[1], seats.loc[2]
    assert inside(one, "win", 1 / 2) and inside(one, "tie", 1 / 4) and inside(one, "loss", 1 / 4)
    assert inside(two, "win", 1 / 4) and inside(two, "tie", 1 / 4) and inside(two, "loss", 1 / 2)
    assert one["ties"] == two["ties"], "a tie is a tie for both seats"
    assert one["wins"] + two["wins"] + one["ties"] == N, "every game: one winner or a tie"
    assert inside(one, "share", 5 / 8)
    assert one["score_share"] + two["score_share"] == pytest.approx(1.0)
    assert abs(one["advantage"] - 1 / 8) <= 4 / 1.96 * (one["adv_high"] - one["adv_low"]) / 2


def test_first_player_advantage_is_defined_on_score_share(duel2):
    f = analysis.first_player_advantage(duel2.games, duel2.meta).iloc[0]
    near = 4 / 1.96 * (f["ci_high"] - f["ci_low"]) / 2
    assert abs(f["advantage"] - 1 / 8) <= near  # 5/8 - (5/8 + 3/8) / 2
    assert abs(f["first_minus_second"] - 1 / 4) <= 2 * near  # 1/2 - 1/4
    assert f["advantage"] == pytest.approx(f["first_minus_second"] / 2)  # at 2 players
    ends = analysis.endings(duel2.games, duel2.meta)
    tie = ends[(ends["kind"] == "outcome") & (ends["name"] == "tie")].iloc[0]
    assert abs(tie["share"] - 1 / 4) <= 4 / 1.96 * (tie["ci_high"] - tie["ci_low"]) / 2


def test_ties_among_several_seats_share_the_point():
    res = simulate("dice-duel", 3, N, seed=4, workers=1, overrides={"faces": [2, 2, 2, 2]})
    seats = analysis.seat_outcomes(res.games, res.meta)
    for r in seats.itertuples():
        # win alone 1/8; tie 1/2 (all three 2/8, two of them 2/8); share 1/8 + 2/8/3 + 2/8/2
        row = r._asdict()
        assert inside(row, "win", 1 / 8) and inside(row, "tie", 1 / 2)
        assert inside(row, "share", 1 / 3)
    assert seats["score_share"].sum() == pytest.approx(1.0)
    f = analysis.first_player_advantage(res.games, res.meta).iloc[0]
    assert abs(f["advantage"]) <= 4 / 1.96 * (f["ci_high"] - f["ci_low"]) / 2
    assert f["first_minus_second"] != f["first_minus_second"], "only defined at 2 players"


def test_a_team_win_counts_for_each_of_its_seats():
    res = simulate("dice-duel", 4, N, seed=5, workers=1, overrides={"faces": [2, 2, 2, 2]})
    seats = analysis.seat_outcomes(res.games, res.meta).set_index("seat")
    teams = analysis.team_outcomes(res.games, res.meta).set_index("team")
    assert list(teams["seats"]) == ["1+3", "2+4"]
    for s, t in ((1, 1), (3, 1), (2, 2), (4, 2)):
        assert seats.loc[s, "wins"] == teams.loc[t, "wins"]
        # a team wins when its best roll is 2 and the other's is 1: 3/4 * 1/4
        assert inside(seats.loc[s], "win", 3 / 16) and inside(seats.loc[s], "tie", 10 / 16)
        assert inside(seats.loc[s], "share", 3 / 16 + 10 / 32)
    ends = analysis.endings(res.games, res.meta).set_index("name")
    team_win = ends.loc["team win"]
    assert abs(team_win["share"] - 6 / 16) <= 4 / 1.96 * (team_win["ci_high"] -
                                                           team_win["ci_low"]) / 2


def test_games_nobody_wins_do_not_bias_the_advantage():
    res = simulate("dice-duel", 2, 500, seed=6, workers=1, overrides={"max_turns": 1})
    assert (res.games["end_reason"] == "timeout").all()
    seats = analysis.seat_outcomes(res.games, res.meta)
    assert (seats["loss_rate"] == 1).all() and (seats["score_share"] == 0).all()
    f = analysis.first_player_advantage(res.games, res.meta).iloc[0]
    assert f["advantage"] == 0 and f["ci_low"] == 0 == f["ci_high"]


def test_strategy_outcomes_add_up_over_seats(duel2):
    t = analysis.strategy_outcomes(duel2.games, duel2.meta)
    overall = t[t["seat"] == "all"].iloc[0]
    assert overall["seat_games"] == 2 * N
    per = t[t["seat"] != "all"]
    assert per["wins"].sum() == overall["wins"] and per["ties"].sum() == overall["ties"]
    assert overall["score_share"] == pytest.approx(0.5)
