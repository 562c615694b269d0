"""Cold and warm `simkit run` times: what the first run of a game pays to compile.

For every game (or ``--game``) and line-up it runs ``simkit run GAME --games 1000 --quiet``
in a fresh process twice: first with an empty ``SIMKIT_CACHE_DIR`` (nothing compiled: the
cold first run), then again with that cache (warm). Prints both wall times and their
difference, the compilation, and the same in CPU seconds of the process and its children
(the compile-ahead helpers of ``simkit.ahead``, which compile on other cores: wall time is
the figure a user waits for, CPU time the one a busy machine disturbs least).

    python benchmarks/compile_time.py                        # every game, random and mix
    python benchmarks/compile_time.py --game avalon --lineup mix
    python benchmarks/compile_time.py --alone                # one process (no helpers)
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time


def lineups(game: str, players: int) -> dict[str, str]:
    from simkit import registry

    own = [name for name, s in registry.strategies_for(game).items()
           if name not in ("random", "first") and s.search is None]  # the game's heuristic
    return {"random": "random", "mix": ",".join([own[0] if own else "first"]
                                                + ["random"] * (players - 1))}


def timed_run(game: str, players: int, strategies: str, cache: str, out: str,
              alone: bool = False):
    """(wall seconds, CPU seconds) of one `simkit run` (``alone``: without helpers)."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["SIMKIT_CACHE_DIR"] = cache
    env["SIMKIT_COMPILE_AHEAD"] = "0" if alone else "1"
    cmd = [sys.executable, "-m", "simkit", "run", game, "--players", str(players), "--games",
           "1000", "--strategies", strategies, "--quiet", "--overwrite", "--out", out]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game")
    ap.add_argument("--lineup", choices=("random", "mix"))
    ap.add_argument("--alone", action="store_true",
                    help="compile in the run's process only (SIMKIT_COMPILE_AHEAD=0)")
    args = ap.parse_args()
    from simkit import registry

    print(f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"{'one process' if args.alone else 'with compile-ahead helpers'}")
    print(f"{'game':18} {'strategies':28} {'cold s':>7} {'warm s':>7} {'compile s':>9} "
          f"{'cold CPU':>8} {'warm CPU':>8} {'compile CPU':>11}")
    for game, spec in registry.games().items():
        if args.game not in (None, game):
            continue
        players = spec.players[0]
        for label, strategies in lineups(game, players).items():
            if args.lineup not in (None, label):
                continue
            with tempfile.TemporaryDirectory() as tmp:
                cold = timed_run(game, players, strategies, f"{tmp}/cache", f"{tmp}/r1",
                                 args.alone)
                warm = timed_run(game, players, strategies, f"{tmp}/cache", f"{tmp}/r2",
                                 args.alone)
            print(f"{game:18} {strategies:28} {cold[0]:7.1f} {warm[0]:7.1f} "
                  f"{cold[0] - warm[0]:9.1f} {cold[1]:8.1f} {warm[1]:8.1f} "
                  f"{cold[1] - warm[1]:11.1f}", flush=True)
    print(f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
