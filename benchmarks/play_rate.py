"""Random games per CPU second through the engine's game loop, one core, no tables.

For every game and player count (or ``--game``/``--players``) it plays ``--games`` games
with ``runner.play_chunk`` (the generated driver, random strategies in every seat) and
prints games per CPU second of the best of ``--repeat`` repetitions, with the decisions
played (the same games give the same count). CPU time, not wall time: the figure a busy
machine disturbs least, for comparing one version of the code with another.

    python benchmarks/play_rate.py
    python benchmarks/play_rate.py --game rabbit-hunt --players 4 --games 20000
    PYTHONPATH=/path/to/other/checkout python benchmarks/play_rate.py   # the other code
"""

from __future__ import annotations

import argparse
import os
import time


def rate(game: str, players: int, games: int, repeat: int) -> tuple[float, int]:
    from simkit.runner import RunSpec, plan, play_chunk

    p = plan(RunSpec.make(game, players, games, seed=1, strategies="random"))
    play_chunk(p, 0, 10)  # load (or compile) the driver
    best, decisions = float("inf"), 0
    for _ in range(repeat):
        t = time.process_time()
        chunk = play_chunk(p, 0, games)
        best = min(best, time.process_time() - t)
        decisions = int(chunk.decisions.sum())
    return games / best, decisions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game")
    ap.add_argument("--players", type=int)
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    import simkit
    from simkit import registry

    print(f"simkit from {os.path.dirname(simkit.__file__)}; random play, one core, best of "
          f"{args.repeat}; load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'game':18} {'P':>2} {'games':>8} {'games/CPU-s':>12} {'decisions':>11}")
    for game, spec in registry.games().items():
        if args.game not in (None, game):
            continue
        for n in spec.players:
            if args.players in (None, n):
                r, d = rate(game, n, args.games, args.repeat)
                print(f"{game:18} {n:>2} {args.games:>8,} {r:>12,.0f} {d:>11,}", flush=True)


if __name__ == "__main__":
    main()
