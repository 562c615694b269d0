"""The driver's ``play_out``: played on from a copy of a game's state (and its streams) it
ends exactly as the game played from its seed does, with search strategies in the seats too,
and it allocates nothing, search decisions included."""

import numpy as np
import pytest
from numba import njit
from numba.core.runtime import _nrt_python, rtsys

from simkit import registry
from simkit.rng import game_seeds, seed_streams
from simkit.runner import RunSpec, plan, workspace

CASES = [("connect-four", 2, "win-block,random"), ("pig", 3, "hold-at,random,first"),
         ("rabbit-hunt", 3, "heuristic,random,random"), ("avalon", 2, "heuristic,random"),
         ("pig", 2, "ismcts@16,mc@9"), ("watership-down", 2, "ismcts@12,heuristic")]


def buffers(p):
    n = p.run.players
    k = len(registry.get_game(p.run.game).item_columns)
    return {"state": np.empty(p.state_size, np.int32), "obs": np.empty(p.state_size, np.int32),
            "moves": np.empty(p.max_moves, np.int32), "items": np.zeros((n, k), np.int32),
            "scores": np.zeros(n), "ranks": np.zeros(n, np.int32),
            "trace": np.full(100_000, -1, np.int32)}


@pytest.mark.parametrize("game,players,strategies", CASES)
def test_play_out_from_a_copy_ends_as_the_game_does(game, players, strategies):
    p = plan(RunSpec.make(game, players, 1, strategies=strategies, rotate=False))
    drv = p.driver.module
    rules = registry.get_game(game).rules
    _, ws = workspace(p)
    for seed in game_seeds(5, 0, 4):
        whole = buffers(p)
        end, turns, decisions = drv.play_game(
            p.compiled, players, seed, p.seat_codes, p.kernels, p.weights,
            p.max_turns, whole["state"], whole["obs"], whole["moves"], whole["items"],
            whole["scores"], whole["ranks"], whole["trace"], ws)
        for k in (0, 1, decisions // 2, decisions - 1):
            # the game up to decision k, from its seed
            head = buffers(p)
            streams = np.empty(1 + players, np.uint64)
            seed_streams(seed, players, streams)
            rules.new_game(p.compiled, players, head["state"], streams[0:1])
            got = drv.play_out(p.compiled, players, p.seat_codes, p.kernels, p.weights,
                               p.max_turns, head["state"], head["obs"], head["moves"], streams,
                               head["items"], head["scores"], head["ranks"], head["trace"], k,
                               ws)
            assert got[0] == -1 and got[2] == k  # stopped by the budget, not ended
            assert np.array_equal(head["trace"][:k], whole["trace"][:k])
            # ... then on from copies of its state, streams and item counts
            tail = buffers(p)
            tail["state"][:] = head["state"]
            tail["items"][:] = head["items"]
            end2, turns2, rest = drv.play_out(
                p.compiled, players, p.seat_codes, p.kernels, p.weights, p.max_turns,
                tail["state"],
                tail["obs"], tail["moves"], streams.copy(), tail["items"], tail["scores"],
                tail["ranks"], tail["trace"], -1, ws)
            assert (end2, turns2, k + rest) == (end, turns, decisions)
            for name in ("items", "scores", "ranks"):
                assert np.array_equal(tail[name], whole[name]), name
            assert np.array_equal(tail["trace"][:rest], whole["trace"][k:decisions])


@pytest.mark.parametrize("game,players,strategies", [
    ("connect-four", 2, "win-block,random"), ("watership-down", 2, "heuristic,random"),
    ("watership-down", 2, "ismcts@20,heuristic"), ("pig", 2, "mc@20,ismcts@20")])
def test_a_playout_allocates_nothing(game, players, strategies):
    """With rules and strategies that allocate nothing themselves (these do; Rabbit Hunt's
    rules and Avalon's and Dolina's heuristics do not), neither does a playout, nor a
    search decision in it."""
    p = plan(RunSpec.make(game, players, 1, strategies=strategies))
    play_out = p.driver.module.play_out

    @njit
    def playouts(params, n, codes, kernels, weights, max_turns, start, state, obs, moves,
                 streams, items, scores, ranks, trace, ws, times):
        decisions = 0
        for _ in range(times):
            state[:] = start
            decisions += play_out(params, n, codes, kernels, weights, max_turns, state, obs,
                                  moves, streams, items, scores, ranks, trace, -1, ws)[2]
        return decisions

    rules = registry.get_game(game).rules
    b = buffers(p)
    streams = np.empty(1 + players, np.uint64)
    seed_streams(np.uint64(11), players, streams)
    start = np.empty(p.state_size, np.int32)
    rules.new_game(p.compiled, players, start, streams[0:1])
    args = (p.compiled, players, p.seat_codes, p.kernels, p.weights, p.max_turns, start,
            b["state"], b["obs"], b["moves"], streams, b["items"], b["scores"], b["ranks"],
            b["trace"][:0], workspace(p)[1])
    playouts(*args, 1)  # compile
    was_on = _nrt_python.memsys_stats_enabled()
    _nrt_python.memsys_enable_stats()
    try:
        counts = []
        for times in (1, 40):
            before = rtsys.get_allocation_stats()
            decisions = playouts(*args, times)
            counts.append(rtsys.get_allocation_stats().alloc - before.alloc)
    finally:
        if not was_on:
            _nrt_python.memsys_disable_stats()
    assert decisions > 40 * 5
    assert counts[0] == counts[1]  # 39 more playouts, not one allocation more
