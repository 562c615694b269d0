"""Layer 1 for Watership Down: random games end soundly, with check_state after every move."""

import numpy as np
import pytest

from simkit import registry, simulate
from simkit.rng import game_seeds, seed_streams
from simkit.runner import RunSpec, plan


def test_registered_and_data_compiles():
    spec = registry.get_game("watership-down")
    assert spec.players == (2,)
    assert spec.end_reasons[0] == "timeout"


LAYOUTS = list(registry.get_game("watership-down").data["board.layout"].choices)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_random_games_keep_invariants(layout):
    p = plan(RunSpec.make("watership-down", 2, 1, overrides={"board.layout": layout}))
    spec = registry.get_game("watership-down")
    rules = spec.rules
    rng = np.random.default_rng(3)
    for seed in game_seeds(5, 0, 60):
        streams = np.empty(3, np.uint64)
        seed_streams(np.uint64(seed), 2, streams)
        chance = streams[0:1]
        st = np.empty(p.state_size, np.int32)
        moves = np.empty(p.max_moves, np.int32)
        items = np.zeros((2, len(spec.item_columns)), np.int32)
        rules.new_game(p.compiled, 2, st, chance)
        while not rules.is_over(st):
            k = rules.legal_moves(p.compiled, st, moves)
            assert k > 0
            rules.apply_move(p.compiled, st, moves[rng.integers(k)], chance, items)
            assert spec.check_state(p.compiled, 2, st) == []
        assert (items >= 0).all()


def test_batch_finishes():
    res = simulate("watership-down", 2, 100, seed=1, strategies="random", workers=1)
    assert (res.games["end_reason"] != "timeout").all()
