"""No peeking: the generic checks of every registered game's ``determinize`` kernel (the
optional kernel the search strategies need; see docs/adding-a-game.md).

On states reached by random play, for every seat: a determinisation of the seat's
observation passes ``check_state``; observing it from the same seat gives back exactly the
observation it came from; and the unseen parts are dealt anew from one draw to the next
(a kernel that always deals the same way fails). Per-game tests add the chi-square check
that each unseen card is placed uniformly (tests/determinize_checks.py)."""

from __future__ import annotations

import numpy as np
import pytest

from simkit import registry
from simkit.game import HIDDEN
from simkit.rng import game_seeds, seed_streams
from simkit.runner import RunSpec, plan

CASES = [(name, n) for name, spec in registry.games().items() for n in spec.players
         if hasattr(spec.rules, "determinize")]
STOPS = 6  # mid-game states checked per player count
DRAWS = 24  # determinisations of each observation


def mid_game_states(p, seed: int, stops: int, rng):
    """Copies of the states of one random game at ``stops`` random decisions."""
    spec = registry.get_game(p.run.game)
    rules, n = spec.rules, p.run.players
    streams = np.empty(1 + n, np.uint64)
    seed_streams(np.uint64(seed), n, streams)
    chance = streams[0:1]
    state = np.empty(p.state_size, np.int32)
    moves = np.empty(p.max_moves, np.int32)
    items = np.zeros((n, len(spec.item_columns)), np.int32)
    rules.new_game(p.compiled, n, state, chance)
    trail = [state.copy()]
    while not rules.is_over(state) and rules.turn_number(state) < p.max_turns:
        k = rules.legal_moves(p.compiled, state, moves)
        rules.apply_move(p.compiled, state, moves[rng.integers(k)], chance, items)
        trail.append(state.copy())
    picks = rng.choice(len(trail) - 1, size=min(stops, len(trail) - 1), replace=False)
    return [trail[i] for i in sorted(picks)]


@pytest.mark.parametrize("game,players", CASES)
def test_determinisations_are_consistent_and_fresh(game, players):
    spec = registry.get_game(game)
    p = plan(RunSpec.make(game, players, 1))
    rules, n = spec.rules, players
    rng = np.random.default_rng(players)
    obs = np.empty(p.state_size, np.int32)
    again = np.empty(p.state_size, np.int32)
    det = np.empty(p.state_size, np.int32)
    scratch = np.empty(p.state_size, np.int32)
    stream = np.array([12345], np.uint64)
    for seed in game_seeds(7, 0, 3):
        for state in mid_game_states(p, int(seed), STOPS, rng):
            for seat in range(n):
                rules.observe(p.compiled, state, seat, obs)
                hidden = obs == HIDDEN
                dealt = set()
                for _ in range(DRAWS):
                    rules.determinize(p.compiled, obs, seat, det, stream, scratch)
                    if spec.check_state:
                        problems = spec.check_state(p.compiled, n, det)
                        assert not problems, f"seat {seat + 1}'s determinisation: {problems}"
                    rules.observe(p.compiled, det, seat, again)
                    assert np.array_equal(again, obs), (
                        f"seat {seat + 1}: observing a determinisation changed entries "
                        f"{np.flatnonzero(again != obs)[:10].tolist()}")
                    dealt.add(det[hidden].tobytes())
                if len(set(state[hidden].tolist())) > 1:
                    assert len(dealt) > 1, (f"seat {seat + 1}: {DRAWS} determinisations dealt "
                                            "the unseen parts the same way every time")


def test_pig_hides_nothing_so_its_determinisation_is_the_observation():
    assert ("pig", 2) in CASES


def test_the_uniformity_check_fails_a_kernel_that_always_deals_the_same_way():
    from determinize_checks import assert_uniform_deal

    rng = np.random.default_rng(1)
    pool = np.array([0, 0, 1, 1, 2, 3])
    fair = np.stack([rng.permutation(pool) for _ in range(2000)])
    assert_uniform_deal(fair)
    with pytest.raises(AssertionError, match="not dealt uniformly"):
        assert_uniform_deal(np.tile(pool, (2000, 1)))
    biased = fair.copy()
    biased[:600] = pool  # 30% of draws the same deal
    with pytest.raises(AssertionError, match="not dealt uniformly"):
        assert_uniform_deal(biased)
