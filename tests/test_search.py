"""The search strategies (simkit/search_template.py) on positions whose answers are known:
a two-ply trap that a tree search solves and flat Monte Carlo does not, decisions that
depend only on the observation and the seat's stream, and a workspace reused without
allocation. Strength against the heuristics is measured in benchmarks/search_strength.py."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from simkit import registry
from simkit.runner import RunSpec, plan
from simkit.search import Search

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
from trap_game import GAME as TRAP  # noqa: E402
from trap_game.rules import SAFE  # noqa: E402

registry.register_game(TRAP)


def opening(p):
    state = np.zeros(p.state_size, np.int32)
    TRAP.rules.new_game(p.compiled, 2, state, np.array([1], np.uint64))
    moves = np.zeros(p.max_moves, np.int32)
    n = TRAP.rules.legal_moves(p.compiled, state, moves)
    return state, moves, n


@pytest.mark.parametrize("budget", [200, 400])
def test_a_tree_sees_the_reply_that_flat_monte_carlo_misses(budget):
    p = plan(RunSpec.make("trap", 2, 1))
    obs, moves, n = opening(p)
    picks = {"mc": [], "ismcts": []}
    for kind in picks:
        search = Search(p, kind, {"iterations": budget})
        for seed in range(20):
            k = search.decide(obs, 0, moves, n, np.array([seed], np.uint64))
            picks[kind].append(int(moves[k]))
    assert all(m == SAFE for m in picks["ismcts"]), picks["ismcts"]
    assert sum(m != SAFE for m in picks["mc"]) >= 18, picks["mc"]


def test_a_decision_depends_only_on_the_observation_and_the_stream():
    p = plan(RunSpec.make("pig", 2, 1))
    search = Search(p, "ismcts", {"iterations": 300})
    state = np.zeros(p.state_size, np.int32)
    rules = registry.get_game("pig").rules
    rules.new_game(p.compiled, 2, state, np.array([3], np.uint64))
    state[2] = 17  # a turn total worth thinking about
    moves = np.zeros(p.max_moves, np.int32)
    n = rules.legal_moves(p.compiled, state, moves)
    obs = np.zeros(p.state_size, np.int32)
    rules.observe(p.compiled, state, 0, obs)
    first = [search.decide(obs.copy(), 0, moves, n, np.array([s], np.uint64))
             for s in range(8)]
    again = [search.decide(obs.copy(), 0, moves, n, np.array([s], np.uint64))
             for s in range(8)]
    assert first == again
    assert (obs == state).all(), "the search never writes the observation"


def test_the_tree_grows_deeper_than_one_ply():
    p = plan(RunSpec.make("pig", 2, 1))
    search = Search(p, "ismcts", {"iterations": 400})
    state = np.zeros(p.state_size, np.int32)
    rules = registry.get_game("pig").rules
    rules.new_game(p.compiled, 2, state, np.array([3], np.uint64))
    moves = np.zeros(p.max_moves, np.int32)
    n = rules.legal_moves(p.compiled, state, moves)
    search.ws.stats[:] = 0
    search.decide(state.copy(), 0, moves, n, np.array([1], np.uint64))
    iterations, depth, deepest, _, decisions = search.ws.stats[0]
    assert decisions == 1 and iterations == 400
    assert depth / iterations > 2 and deepest >= 5
