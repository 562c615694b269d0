"""Layer 5: statistics with known values, and the heuristic's floor against random."""

from simkit import simulate
from simkit.games.watership_down.state import DEF, ELIL

from .helpers import NUTHANGER, ROAD, SAND, C, chance, mv, play, position


def test_defender_is_drawn_uniformly():
    counts = {"hazel": 0, "fiver": 0, "pipkin": 0}
    n = 600
    for seed in range(n):
        st = position(ELIL, woundwort=NUTHANGER, hazel=ROAD, fiver=ROAD, pipkin=ROAD,
                      buckthorn=SAND)
        play(st, mv("woundwort", ROAD), ch=chance(seed + 1))
        for name in counts:
            counts[name] += st[DEF] == C[name]
    for name, k in counts.items():    # each 1/3: 200 expected, sd about 11.5
        assert 150 < k < 250, (name, k)


def test_heuristic_beats_random_on_both_sides():
    g = simulate("watership-down", 2, 300, seed=11, strategies="heuristic,random",
                 workers=2).games
    for side in (1, 2):  # seat 1 plays the elil, seat 2 the hlessil
        mine = g[g[f"strategy_s{side}"] == "heuristic"]
        assert (mine["winner"] == side).mean() >= 0.75, side
