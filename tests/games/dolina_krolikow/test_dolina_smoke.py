"""Dolina królików plays to the end at every player count, and its data compiles."""

import pytest

from simkit import data, simulate
from simkit.registry import get_game


@pytest.mark.parametrize("players,rounds", [(2, 8), (3, 9), (4, 8)])
def test_random_games_end_after_the_rulebook_rounds(players, rounds):
    res = simulate("dolina-krolikow", players, 60, seed=3, strategies="random", workers=1)
    assert (res.games["end_reason"] == "rounds_played").all()
    assert (res.games["turns"] == rounds).all()


def test_data_marks_every_value_with_its_source():
    game = get_game("dolina-krolikow")
    assert all(p.source in ("rulebook", "assumed") and p.why for p in game.data.values())
    assert len(data.table(game.data, "rabbits.cards")) == 51
    assert len(data.table(game.data, "missions.house")) == 16
    assert len(data.table(game.data, "missions.forest")) == 9
