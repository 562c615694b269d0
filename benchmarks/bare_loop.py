"""A bare numba loop of random games over a game's rules kernels: what a game author writes
to time the rules alone, and the yardstick the engine's loop is measured against
(``benchmarks/loop_overhead.py``).

It plays exactly the games the engine plays with random strategies (the same seeds and
streams; the seat's stream is drawn from only when there is a choice) and keeps the same
per-game outputs (end reason, decisions, scores, ranks, items), but has no turn cap, no
strategy dispatch and no observation: nothing but the rules' kernels and the random draw.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.rng import game_seeds, rand_below, seed_streams


def make_bare_loop(rules):
    """A jitted ``play_random(params, n_players, seeds, state, moves, streams, out_end,
    out_decisions, out_scores, out_ranks, out_items)`` over ``rules``' kernels."""
    new_game, legal_moves, apply_move = rules.new_game, rules.legal_moves, rules.apply_move
    is_over, to_move, finish = rules.is_over, rules.to_move, rules.finish

    @njit(nogil=True)
    def play_random(params, n_players, seeds, state, moves, streams, out_end, out_decisions,
                    out_scores, out_ranks, out_items):
        for g in range(seeds.shape[0]):
            seed_streams(seeds[g], n_players, streams)
            chance = streams[0:1]
            items = out_items[g]
            items[:, :] = 0
            new_game(params, n_players, state, chance)
            decisions = 0
            while not is_over(state):
                n = legal_moves(params, state, moves)
                seat = to_move(state)
                k = 0
                if n > 1:
                    k = rand_below(streams[1 + seat:2 + seat], n)
                apply_move(params, state, moves[k], chance, items)
                decisions += 1
            out_end[g] = finish(params, state, out_scores[g], out_ranks[g])
            out_decisions[g] = decisions

    return play_random


def play_bare(loop, params, n_players: int, n_items: int, state_size: int, max_moves: int,
              master_seed: int, count: int) -> dict[str, np.ndarray]:
    """Games 0 .. count-1 of master seed ``master_seed``, played by ``loop``."""
    seeds = game_seeds(master_seed, 0, count)
    out = {"end": np.empty(count, np.int32), "decisions": np.empty(count, np.int32),
           "scores": np.empty((count, n_players), np.float64),
           "ranks": np.empty((count, n_players), np.int32),
           "items": np.empty((count, n_players, n_items), np.int32)}
    loop(params, n_players, seeds, np.empty(state_size, np.int32), np.empty(max_moves, np.int32),
         np.empty(1 + n_players, np.uint64), out["end"], out["decisions"], out["scores"],
         out["ranks"], out["items"])
    return out
