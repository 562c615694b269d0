"""What a determinisation costs (NOTES.md: Determinisation), per call, on mid-game
observations of seeded random games, beside ``observe`` on the same states:

    python tests/games/rabbit_hunt/measure_determinize.py --calls 5000

For each player count: the states of 10 games at decision 40 and 80 (every seat's
observation), the best of 7 timings of ``calls`` calls in a jitted loop, in microseconds
per call, the mean over the observations and the slowest one."""

import argparse
import timeit
from functools import partial

import numpy as np
from numba import njit

from simkit.games.rabbit_hunt import rules as R
from simkit.games.rabbit_hunt import state as S
from simkit.rng import game_seeds, seed_streams
from simkit.runner import RunSpec, plan


@njit
def many_determinize(params, obs, seat, state, stream, scratch, calls):
    for _ in range(calls):
        R.determinize(params, obs, seat, state, stream, scratch)


@njit
def many_observe(params, state, seat, obs, calls):
    for _ in range(calls):
        R.observe(params, state, seat, obs)


def observations(n, games=10, at=(40, 80)):
    """(params, [(state, seat, observation)]) at decisions ``at`` of random games."""
    p = plan(RunSpec.make("rabbit-hunt", n, 1))
    params = p.compiled
    rng = np.random.default_rng(n)
    st = np.empty(p.state_size, np.int32)
    moves = np.empty(p.max_moves, np.int32)
    items = np.zeros((n, len(S.ITEM_COLUMNS)), np.int32)
    out = []
    for seed in game_seeds(3, 0, games):
        streams = np.empty(1 + n, np.uint64)
        seed_streams(np.uint64(seed), n, streams)
        R.new_game(params, n, st, streams[0:1])
        decision = 0
        while not R.is_over(st) and decision <= max(at):
            k = R.legal_moves(params, st, moves)
            R.apply_move(params, st, moves[rng.integers(k)], streams[0:1], items)
            decision += 1
            if decision in at and not R.is_over(st):
                for seat in range(n):
                    obs = np.empty_like(st)
                    R.observe(params, st, seat, obs)
                    out.append((st.copy(), seat, obs))
    return params, out


def best_of(kernel, args, calls):
    """Microseconds a call of ``kernel(*args, calls)``, the best of 7 timings."""
    return min(timeit.repeat(partial(kernel, *args, calls), number=1, repeat=7)) / calls * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=5000)
    args = ap.parse_args()
    for n in (2, 3, 4):
        params, cases = observations(n)
        det, obs_cost = [], []
        for st, seat, obs in cases:
            state, scratch, again = (np.empty_like(st) for _ in range(3))
            stream = np.array([1], np.uint64)
            many_determinize(params, obs, seat, state, stream, scratch, 1)
            many_observe(params, st, seat, again, 1)
            det.append(best_of(many_determinize, (params, obs, seat, state, stream, scratch),
                               args.calls))
            obs_cost.append(best_of(many_observe, (params, st, seat, again), args.calls))
        print(f"{n} players, {len(cases)} observations: determinize {np.mean(det):.2f} us a "
              f"call (slowest {max(det):.2f}), observe {np.mean(obs_cost):.2f} us")


if __name__ == "__main__":
    main()
