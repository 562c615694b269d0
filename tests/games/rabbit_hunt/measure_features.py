"""What the features kernel costs (NOTES.md: Features (issue 29)), per call, on mid-game
observations of seeded random games, beside ``observe`` on the same states:

    python tests/games/rabbit_hunt/measure_features.py --calls 5000

For each player count: the states of 10 games at decision 40 and 80 (every seat's
observation), the best of 7 timings of ``calls`` calls in a jitted loop, in nanoseconds per
call, the mean over the observations and the slowest one. The learnt player calls both once
per legal move of a decision."""

import argparse

import numpy as np
from measure_determinize import best_of, many_observe, observations
from numba import njit

from simkit.games.rabbit_hunt import rules as R


@njit
def many_features(params, obs, seat, out, calls):
    for _ in range(calls):
        R.features(params, obs, seat, out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=5000)
    args = ap.parse_args()
    for n in (2, 3, 4):
        params, cases = observations(n)
        cost, obs_cost = [], []
        out = np.empty(len(R.FEATURES))
        for st, seat, obs in cases:
            again = np.empty_like(st)
            many_features(params, obs, seat, out, 1)
            many_observe(params, st, seat, again, 1)
            cost.append(best_of(many_features, (params, obs, seat, out), args.calls) * 1e3)
            obs_cost.append(best_of(many_observe, (params, st, seat, again), args.calls) * 1e3)
        print(f"{n} players, {len(cases)} observations: features {np.mean(cost):.0f} ns a "
              f"call (slowest {max(cost):.0f}), observe {np.mean(obs_cost):.0f} ns")


if __name__ == "__main__":
    main()
