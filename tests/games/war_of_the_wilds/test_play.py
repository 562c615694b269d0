"""Whole games of War of the Wilds: conservation through random games, the heuristic's
strength, determinism, the replay."""

import numpy as np
import pytest

import simkit
from simkit import data
from simkit.games.war_of_the_wilds import GAME, ITEM_COLUMNS, check_state
from simkit.games.war_of_the_wilds import rules as R
from simkit.rng import seed_streams


def play_random(n, seed, overrides=None):
    """Step one random game, checking the conservation laws after every decision."""
    params = GAME.compile(data.values(data.apply_overrides(GAME.data, overrides or {})), n)
    streams = np.empty(1 + n, np.uint64)
    seed_streams(np.uint64(seed), n, streams)
    chance = streams[0:1]
    state = np.empty(R.state_size(params, n), np.int32)
    moves = np.empty(R.max_moves(params, n), np.int32)
    items = np.zeros((n, len(ITEM_COLUMNS)), np.int32)
    rng = np.random.default_rng(seed)
    R.new_game(params, n, state, chance)
    days_seen = set()
    while not R.is_over(state):
        k = R.legal_moves(params, state, moves)
        assert k > 0
        R.apply_move(params, state, moves[rng.integers(k)], chance, items)
        assert check_state(params, n, state) == []
        days_seen.add(int(state[R.DAY]))
    assert R.turn_number(state) == 16 * n
    return params, state, items, days_seen


# Relentless on Bands, fliers and a third attack: units that lose their lead in one fight
# and go on to the next
RELENTLESS = {"cards.mouse_militia.words": ["band", "relentless"],
              "cards.bee_swarm.words": ["flying", "band", "relentless"],
              "cards.crow.words": ["flying", "relentless"],
              "relentless_attacks": 3}


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("variant", [{}, {"first_game": True}, RELENTLESS])
def test_acorns_and_cards_conserved_through_random_games(n, variant):
    for seed in range(4):
        params, state, items, days = play_random(n, 1000 * n + seed, variant)
        assert days >= set(range(1, 17))
        # every seat saw 16 day cards
        seen = [c for c in ITEM_COLUMNS if c.endswith(":seen")]
        idx = [ITEM_COLUMNS.index(c) for c in seen]
        assert (items[:, idx].sum(axis=1) == 16).all()
        homes = [ITEM_COLUMNS.index(c) for c in ITEM_COLUMNS if c.startswith("home_")]
        assert (items[:, homes].sum(axis=1) == 1).all()


def win_rate(n, games, seed=11):
    strategies = ",".join(["heuristic"] + ["random"] * (n - 1))
    g = simkit.simulate("war-of-the-wilds", n, games, seed=seed, strategies=strategies,
                        workers=1).games
    wins = sum(((g[f"strategy_s{s}"] == "heuristic") & (g[f"rank_s{s}"] == 1)).sum()
               for s in range(1, n + 1))
    return wins / len(g)


def test_heuristic_beats_random_at_two_players():
    assert win_rate(2, 400) >= 0.75


@pytest.mark.parametrize("n", [3, 4])
def test_heuristic_wins_well_over_a_fair_share(n):
    assert win_rate(n, 400) >= 2.0 / n


def test_same_seed_same_tables_whatever_the_workers():
    a = simkit.simulate("war-of-the-wilds", 3, 60, seed=4, strategies="heuristic,random,random",
                        workers=1)
    b = simkit.simulate("war-of-the-wilds", 3, 60, seed=4, strategies="heuristic,random,random",
                        workers=2)
    assert a.games.equals(b.games) and a.items.equals(b.items)
