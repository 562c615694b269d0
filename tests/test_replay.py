"""Any recorded game replays from its seed and ends exactly as its row says, for every
registered game, with every strategy the game has in the seats (the search strategies on a
small budget: a replay decides their moves again and checks them)."""

import pytest

from simkit import registry, simulate
from simkit.replay import replay

CASES = [(name, n) for name, spec in registry.games().items() for n in spec.players]


def has_model(game: str, players: int) -> bool:
    """Whether ``learned`` has a model of ``game`` at ``players`` (the default data)."""
    from simkit import data, learn

    spec = registry.get_game(game)
    if not spec.has_features or not hasattr(spec.rules, "determinize"):
        return False
    digest = data.data_digest(spec.data)
    try:
        learn.find_model(spec, players, digest, digest)
    except Exception:  # noqa: BLE001 - no model (or none that fits): not seated
        return False
    return True


def seated(game: str, players: int, name: str, s) -> bool:
    if s.search == "learned":
        return has_model(game, players)
    return s.search is None or hasattr(registry.get_game(game).rules, "determinize")


@pytest.mark.parametrize("game,players", CASES)
def test_replayed_rows_end_as_recorded(game, players):
    names = [f"{n}@8" if s.searches else n for n, s in registry.strategies_for(game).items()
             if seated(game, players, n, s)]
    seats = ",".join(names[s % len(names)] for s in range(players))
    res = simulate(game, players, 12, seed=8, strategies=seats, workers=1)
    for _, row in res.games.iloc[[0, 5, 11]].iterrows():
        strategies = [str(row[f"strategy_s{s}"]) for s in range(1, players + 1)]
        r = replay(game, players, int(row["seed"]), strategies)
        assert r.end_reason == row["end_reason"]
        assert r.turns == row["turns"] and len(r.moves) == row["decisions"]
        assert r.ranks == [int(row[f"rank_s{s}"]) for s in range(1, players + 1)]
        assert len(r.lines) > len(r.moves)  # a line per decision, plus the setup and end
