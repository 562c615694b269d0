"""Layer 1: every registered game, at every player count, under random play.

Games are stepped from Python with the game's own kernels, so every state can be checked:
legal moves are never empty before the end, moves are distinct, ``observe`` leaves the state
alone, the game's conservation laws (``check_state``) hold after every move, and the game
ends before its turn cap."""

import numpy as np
import pytest

from simkit import registry
from simkit.rng import game_seeds, seed_streams
from simkit.runner import RunSpec, plan

GAMES_PER_COUNT = 6
CASES = [(name, n) for name, spec in registry.games().items() for n in spec.players]


def step_random_game(p, seed, rng):
    spec = registry.get_game(p.run.game)
    rules, n = spec.rules, p.run.players
    streams = np.empty(1 + n, np.uint64)
    seed_streams(np.uint64(seed), n, streams)
    chance = streams[0:1]
    state = np.empty(p.state_size, np.int32)
    moves = np.empty(p.max_moves, np.int32)
    obs = np.empty(p.state_size, np.int32)
    items = np.zeros((n, len(spec.item_columns)), np.int32)
    rules.new_game(p.compiled, n, state, chance)
    problems = spec.check_state(p.compiled, n, state) if spec.check_state else []
    assert not problems, f"after setup: {problems}"
    decisions = 0
    while not rules.is_over(state):
        assert rules.turn_number(state) < p.max_turns, "random game reached the turn cap"
        k = rules.legal_moves(p.compiled, state, moves)
        assert k > 0, f"no legal move at decision {decisions}"
        assert len(set(moves[:k].tolist())) == k, "duplicate legal moves"
        seat = rules.to_move(state)
        assert 0 <= seat < n
        before = state.copy()
        rules.observe(p.compiled, state, seat, obs)
        assert np.array_equal(before, state), "observe changed the state"
        rules.apply_move(p.compiled, state, moves[rng.integers(k)], chance, items)
        decisions += 1
        if spec.check_state:
            problems = spec.check_state(p.compiled, n, state)
            assert not problems, f"after decision {decisions}: {problems}"
    scores = np.zeros(n)
    ranks = np.zeros(n, np.int32)
    end = rules.finish(p.compiled, state, scores, ranks)
    assert 1 <= end < len(spec.end_reasons)
    assert ((ranks >= 1) & (ranks <= n)).all()
    assert (items >= 0).all()
    return decisions


@pytest.mark.parametrize("game,players", CASES)
def test_random_play_keeps_invariants(game, players):
    p = plan(RunSpec.make(game, players, 1))
    rng = np.random.default_rng(players)
    for seed in game_seeds(99, 0, GAMES_PER_COUNT):
        assert step_random_game(p, int(seed), rng) > 0


@pytest.mark.parametrize("game,players", CASES)
def test_batch_rows_are_sound(game, players):
    from simkit import simulate

    res = simulate(game, players, 200, seed=5, workers=1)
    g = res.games
    assert len(g) == 200 and g["game"].tolist() == list(range(200))
    assert (g["end_reason"] != "timeout").mean() > 0.95
    ranks = g[[f"rank_s{s}" for s in range(1, players + 1)]].to_numpy()
    finished = g["end_reason"] != "timeout"
    assert (ranks[finished.to_numpy()] >= 1).all()
    assert len(res.items) == 200 * players
