"""The fixed costs of `simkit run`: what a warm run of 1,000 games costs beyond importing
numba and pyarrow, and where it goes.

Prints the median of ``--repeat`` fresh processes (wall and CPU seconds) for:

- ``python -c "import numba, pyarrow.parquet"``: the floor every run pays;
- ``simkit run GAME --games 1000 --quiet`` (warm: the kernels load from numba's cache);
- the same without ``--quiet``: the summary the CLI prints (re-reading games.parquet, the
  statistics and their imports) is the difference;

then, in one more fresh process, the phases of a quiet run: imports, finding the games and
strategies, the plan (parameters and driver), loading the compiled driver, playing and
writing the folder.

    python benchmarks/fixed_costs.py                    # rabbit-hunt, 2 players
    python benchmarks/fixed_costs.py --game avalon --repeat 7
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

PHASES = r"""
import sys, time
t0 = time.perf_counter()
from simkit.runner import RunSpec, plan, play_chunk, run_games
from simkit import registry
t1 = time.perf_counter()
registry.games()
t2 = time.perf_counter()
run = RunSpec.make(GAME, PLAYERS, 1000, seed=0, strategies="random")
t3 = time.perf_counter()
play_chunk(plan(run), 0, 1)
t4 = time.perf_counter()
run_games(run, out=OUT, overwrite=True)
t5 = time.perf_counter()
for name, a, b in (("imports (simkit.runner)", t0, t1), ("games and strategies found", t1, t2),
                   ("plan: parameters, driver module", t2, t3),
                   ("compiled driver loaded (numba cache)", t3, t4),
                   ("1,000 games played, folder written", t4, t5)):
    print(f"  {name:38} {b - a:6.3f} s")
"""


def timed(cmd: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def median_of(cmd: list[str], repeat: int) -> tuple[float, float]:
    runs = [timed(cmd) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="rabbit-hunt")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    py = sys.executable
    print(f"load before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"median of {args.repeat} processes")
    with tempfile.TemporaryDirectory() as tmp:
        run = [py, "-m", "simkit", "run", args.game, "--players", str(args.players),
               "--games", "1000", "--overwrite", "--out", f"{tmp}/run"]
        subprocess.run(run + ["--quiet"], check=True)  # warm numba's cache
        floor = median_of([py, "-c", "import numba, pyarrow.parquet"], args.repeat)
        quiet = median_of(run + ["--quiet"], args.repeat)
        loud = median_of(run, args.repeat)
        print(f"{'':44} {'wall s':>7} {'CPU s':>7}")
        for name, (wall, cpu) in (('python -c "import numba, pyarrow.parquet"', floor),
                                  ("simkit run --games 1000 --quiet", quiet),
                                  ("simkit run --games 1000 (with summary)", loud)):
            print(f"{name:44} {wall:7.3f} {cpu:7.3f}")
        for name, a, b in (("run beyond the imports", quiet, floor),
                           ("the summary (CLI, reports)", loud, quiet)):
            print(f"{name:44} {a[0] - b[0]:7.3f} {a[1] - b[1]:7.3f}")
        print("phases of a quiet run (one process):")
        code = (f"GAME, PLAYERS, OUT = {args.game!r}, {args.players}, {tmp + '/phases'!r}\n"
                + PHASES)
        subprocess.run([py, "-c", code], check=True)
    print(f"load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
