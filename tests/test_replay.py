"""Any recorded game replays from its seed and ends exactly as its row says, for every
registered game, with every strategy the game has in the seats (the search strategies on a
small budget: a replay decides their moves again and checks them)."""

import pytest

from simkit import registry, simulate
from simkit.replay import replay

CASES = [(name, n) for name, spec in registry.games().items() for n in spec.players]


@pytest.mark.parametrize("game,players", CASES)
def test_replayed_rows_end_as_recorded(game, players):
    names = [f"{n}@8" if s.search else n for n, s in registry.strategies_for(game).items()
             if s.search is None or hasattr(registry.get_game(game).rules, "determinize")]
    seats = ",".join(names[s % len(names)] for s in range(players))
    res = simulate(game, players, 12, seed=8, strategies=seats, workers=1)
    for _, row in res.games.iloc[[0, 5, 11]].iterrows():
        strategies = [str(row[f"strategy_s{s}"]) for s in range(1, players + 1)]
        r = replay(game, players, int(row["seed"]), strategies)
        assert r.end_reason == row["end_reason"]
        assert r.turns == row["turns"] and len(r.moves) == row["decisions"]
        assert r.ranks == [int(row[f"rank_s{s}"]) for s in range(1, players + 1)]
        assert len(r.lines) > len(r.moves)  # a line per decision, plus the setup and end
