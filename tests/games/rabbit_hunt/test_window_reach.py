"""A move's reach as window bit sets (``rules.window_reach``, state.py: the window round a
cell) against the breadth-first search it replaces (``rules.distances``), on the positions
of random games, on the smallest and largest tables, and with other move prices."""

import numpy as np
import pytest

from simkit.games.rabbit_hunt import rules as R
from simkit.games.rabbit_hunt import state as S
from simkit.runner import RunSpec, plan


def window_cells(p, here, bits):
    base = int(p[S.P_WINDOW_AT]) + here * S.WINDOW_CELLS
    return {int(p[base + i]) for i in range(S.WINDOW_CELLS) if (int(bits) >> i) & 1}


def positions(n_players, games, overrides=None, seed=7):
    """Every decision's state of a few random games."""
    pl = plan(RunSpec.make("rabbit-hunt", n_players, 1, overrides=overrides or {}))
    params = pl.compiled
    rng = np.random.default_rng(seed)
    moves = np.empty(pl.max_moves, np.int32)
    items = np.zeros((n_players, len(S.ITEM_COLUMNS)), np.int32)
    for g in range(games):
        state = np.empty(pl.state_size, np.int32)
        chance = np.array([1000 + g], np.uint64)
        R.new_game(params, n_players, state, chance)
        while state[S.END] == S.RUNNING:
            yield params, state.copy()
            n = R.legal_moves(params, state, moves)
            R.apply_move(params, state, moves[rng.integers(n)], chance, items)


def check_reach(params, state):
    p = params[0]
    n_cells = int(p[S.P_CELLS])
    dist = np.empty(n_cells, np.int32)
    for seat in range(state[S.N_PLAYERS]):
        here = int(state[S.FARMER + seat])
        if here < 0:
            continue
        R.distances(p, state, here, dist, 3)
        one, three = R.window_reach(p, state, here)
        assert window_cells(p, here, one) == {c for c in range(n_cells) if dist[c] == 1}
        assert window_cells(p, here, three) == {c for c in range(n_cells) if 1 <= dist[c] <= 3}
        for c in range(n_cells):
            if state[S.CELLS + c] != S.NO_CARD and c != here:
                assert R.move_price(p, state, here, c) == R.move_cost(p, dist[c])


def brute_move_targets(params, state):
    """The farmer's moves as the kernels listed them before the window: every card but its
    own, in cell order, priced by the breadth-first search."""
    p = params[0]
    seat = int(state[S.TO_MOVE])
    here, carrots = int(state[S.FARMER + seat]), int(state[S.CARROTS + seat])
    dist = np.empty(int(p[S.P_CELLS]), np.int32)
    R.distances(p, state, here, dist, 3)
    return [c for c in range(int(p[S.P_CELLS])) if c != here and state[S.CELLS + c] != S.NO_CARD
            and R.move_cost(p, dist[c]) <= carrots]


@pytest.mark.parametrize("n_players", [2, 4])
def test_reach_matches_the_search_in_random_games(n_players):
    for i, (params, state) in enumerate(positions(n_players, 6)):
        if i % 3 == 0:
            check_reach(params, state)


@pytest.mark.parametrize("radius", [3, 8])
def test_reach_on_the_smallest_and_largest_tables(radius):
    # radius 3: the window runs off the table's edge from most cells
    for i, (params, state) in enumerate(positions(2, 4, {"board_radius": radius})):
        if i % 2 == 0:
            check_reach(params, state)


@pytest.mark.parametrize("costs", [
    {},
    {"costs.move_1_step": 0},
    {"costs.move_1_step": 2, "costs.move_2_to_3_steps": 2, "costs.move_anywhere": 4},
    {"costs.move_1_step": 3, "costs.move_2_to_3_steps": 1, "costs.move_anywhere": 5},
])
def test_move_list_in_cell_order_at_every_carrot_count(costs):
    moves = np.empty(4096, np.int32)
    seen = 0
    for params, state in positions(2, 3, costs):
        if state[S.PHASE] != S.PH_ACTION:
            continue
        seat = int(state[S.TO_MOVE])
        for carrots in range(7):
            state[S.CARROTS + seat] = carrots
            n = R.legal_moves(params, state, moves)
            got = [int(m) & 0xFFFF for m in moves[:n] if int(m) >> 16 == S.M_MOVE]
            assert got == brute_move_targets(params, state)
            seen += 1
    assert seen > 100
