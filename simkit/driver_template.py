"""The game loop every game is played by: the template of a generated driver.

This file is never imported as it is. ``simkit.driver`` copies it into a small module per
game whose header binds ``game`` (the game's rules module) and ``choose`` (a dispatch over
the strategies that can play it by their integer code). Numba caches a function only when
everything it calls is a module-level global, so a per-game module is how one loop, written
once, serves every game and every strategy with a warm on-disk cache. The generated module's
name carries a hash of every source it depends on, so a change to any of them recompiles.
"""
# --- bindings: replaced in a generated driver ---
import numpy as np

from simkit.jit import kernel
from simkit.rng import seed_streams

game = None


def choose(code, params, obs, seat, moves, n_moves, weights, stream):  # pragma: no cover
    raise NotImplementedError


# --- end of bindings ---


@kernel
def play_game(params, n_players, seed, codes, needs_obs, weights, max_turns, state, obs, moves,
              items, scores, ranks, trace):
    """Play one game from its ``seed``; seat ``s`` is played by strategy ``codes[s]``.

    Fills ``items`` (int32[P, n_items]), ``scores`` (float64[P]) and ``ranks`` (int32[P]);
    records the first ``len(trace)`` moves in ``trace``. Returns (end reason, turns,
    decisions). A game that reaches ``max_turns`` ends as a timeout (reason 0, no winner).
    """
    streams = np.empty(1 + n_players, np.uint64)
    seed_streams(seed, n_players, streams)
    chance = streams[0:1]
    game.new_game(params, n_players, state, chance)
    decisions = 0
    timed_out = False
    while not game.is_over(state):
        if game.turn_number(state) >= max_turns:
            timed_out = True
            break
        n = game.legal_moves(params, state, moves)
        if n <= 0:
            raise RuntimeError("a game offered no legal move before its end")
        seat = game.to_move(state)
        code = codes[seat]
        k = 0
        if n > 1:
            if needs_obs[code]:
                game.observe(params, state, seat, obs)
            k = choose(code, params, obs, seat, moves, n, weights[code],
                       streams[1 + seat:2 + seat])
            if k < 0 or k >= n:
                raise RuntimeError("a strategy chose a move outside the legal list")
        if decisions < trace.shape[0]:
            trace[decisions] = moves[k]
        game.apply_move(params, state, moves[k], chance, items)
        decisions += 1
    end = game.finish(params, state, scores, ranks)
    if timed_out:
        end = 0
        ranks[:] = 0
    return end, game.turn_number(state), decisions


@kernel
def play_batch(params, n_players, seeds, codes, needs_obs, weights, max_turns, state_size,
               max_moves, out_end, out_turns, out_decisions, out_scores, out_ranks, out_items):
    """Play ``len(seeds)`` games; game ``g`` uses ``seeds[g]`` and seat strategies
    ``codes[g]`` (int32[G, P]). Outputs are per game: ``out_end``/``out_turns``/
    ``out_decisions`` int32[G], ``out_scores`` float64[G, P], ``out_ranks`` int32[G, P],
    ``out_items`` int32[G, P, n_items]. Per-decision data is never kept."""
    state = np.empty(state_size, np.int32)
    obs = np.empty(state_size, np.int32)
    moves = np.empty(max_moves, np.int32)
    trace = np.empty(0, np.int32)
    for g in range(seeds.shape[0]):
        items = out_items[g]
        items[:, :] = 0
        end, turns, decisions = play_game(
            params, n_players, seeds[g], codes[g], needs_obs, weights, max_turns, state, obs,
            moves, items, out_scores[g], out_ranks[g], trace)
        out_end[g] = end
        out_turns[g] = turns
        out_decisions[g] = decisions
