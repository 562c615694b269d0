"""What `simkit run` costs beyond playing the games, against issue 13's targets.

Prints medians of ``--repeat`` fresh processes (wall and CPU seconds of the process; the
1,000-game runs interleaved with the floor, so that a change of load hits both) and PASS or
MISS against each target:

1. the floor, ``python -c "import numba, pyarrow.parquet"``, and a warm ``simkit run GAME
   --games 1000`` (kernels loaded from numba's cache) of Pig, Connect Four and Rabbit Hunt,
   with its summary and with ``--quiet``: the run with its summary must take at most 0.35 s
   of wall time more than the floor;
2. everything but play, per million games: the CPU seconds of ``simkit run connect-four
   --games 1000000`` (summary printed), less the CPU seconds of playing the same games with
   ``runner.play_chunk`` alone in another process, less the fixed cost (the same for a
   1,000-game run): at most 1 s;
3. end to end: the CPU seconds of that million-game run against the C kernel's
   (benchmarks/connect_four.c, compiled here with ``cc -O2``) playing the same games: at
   most 3 times.

The example games are run as installed plugins when ``pip install -e examples/`` registered
them, else through a few lines that register them before simkit's CLI starts (said so in
the output). The child processes write bytecode caches even when PYTHONDONTWRITEBYTECODE is
set here, as an installed simkit has them. Then one more process shows the phases of a quiet
1,000-game run.

    python benchmarks/fixed_costs.py                      # 5 repeats, a million games
    python benchmarks/fixed_costs.py --repeat 7 --games 2000000
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import entry_points
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples"
FIXED_TARGET = 0.35  # s of wall time beyond the floor, a 1,000-game run
PER_MILLION_TARGET = 1.0  # CPU s per million games, everything but play
C_RATIO_TARGET = 3.0
GAMES = (("pig", 2), ("connect-four", 2), ("rabbit-hunt", 2))

REGISTER = f"""
import sys
sys.path.insert(0, {str(EXAMPLES)!r})
from connect_four import GAME as CONNECT_FOUR
from pig_game import GAME as PIG
from simkit import registry
registry.register_game(CONNECT_FOUR)
registry.register_game(PIG)
"""

CLI = REGISTER + """
from simkit.cli import entry
sys.argv = ["simkit", *sys.argv[1:]]
entry()
"""

PLAY = REGISTER + """
import time
from simkit.runner import RunSpec, chunk_bounds, plan, play_chunk
games = int(sys.argv[1])
p = plan(RunSpec.make("connect-four", 2, games, seed=0))
play_chunk(p, 0, 1)
t0 = time.process_time()
for start, count in chunk_bounds(games, 1):
    play_chunk(p, start, count)
print(time.process_time() - t0)
"""

PHASES = "import time\nt0 = time.perf_counter()\n" + REGISTER + r"""
from simkit.runner import RunSpec, plan, play_chunk, run_games
t1 = time.perf_counter()
registry.games()
t2 = time.perf_counter()
run = RunSpec.make(GAME, PLAYERS, 1000, seed=0, strategies="random")
t3 = time.perf_counter()
play_chunk(plan(run), 0, 1)
t4 = time.perf_counter()
run_games(run, out=OUT, overwrite=True)
t5 = time.perf_counter()
for name, a, b in (("imports (example games, simkit.runner)", t0, t1),
                   ("games and strategies found", t1, t2),
                   ("plan: parameters, driver module", t2, t3),
                   ("compiled driver loaded (numba cache)", t3, t4),
                   ("1,000 games played, folder written", t4, t5)):
    print(f"  {name:40} {b - a:6.3f} s")
"""


def child_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(cmd: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=child_env())
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def median_of(cmd: list[str], repeat: int) -> tuple[float, float]:
    runs = [timed(cmd) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def simkit_cmd() -> tuple[list[str], str]:
    """How to start `simkit` with the example games registered."""
    installed = {ep.name for ep in entry_points(group="simkit.games")}
    if {"pig", "connect-four"} <= installed:
        return [sys.executable, "-m", "simkit"], "examples installed as plugins"
    return [sys.executable, "-c", CLI], "examples registered by a wrapper (not installed)"


def c_kernel(tmp: Path, games: int, repeat: int) -> float | None:
    cc = shutil.which("cc")
    if cc is None:
        return None
    exe = tmp / "connect_four"
    subprocess.run([cc, "-O2", "-o", str(exe), str(HERE / "connect_four.c")], check=True)
    return median_of([str(exe), str(games), "0"], repeat)[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--games", type=int, default=1_000_000,
                    help="games of the Connect Four run of targets 2 and 3")
    args = ap.parse_args()
    simkit, how = simkit_cmd()
    print(f"{os.cpu_count()} cores; load before: {load()}; median of {args.repeat} processes; "
          f"{how}")
    with tempfile.TemporaryDirectory() as tmp:
        def run(game, players, games, *extra):
            return simkit + ["run", game, "--players", str(players), "--games", str(games),
                             "--overwrite", "--out", f"{tmp}/{game}", *extra]

        for game, players in GAMES:  # warm numba's cache and the bytecode caches
            subprocess.run(run(game, players, 1000, "--quiet"), check=True, env=child_env())
        # interleaved (floor, then every run, repeat): a change of the machine's load
        # then hits the floor and the runs alike
        cmds = {"floor": [sys.executable, "-c", "import numba, pyarrow.parquet"]}
        for game, players in GAMES:
            cmds[game] = run(game, players, 1000)
            cmds[game + " --quiet"] = run(game, players, 1000, "--quiet")
        times = {k: [] for k in cmds}
        for _ in range(args.repeat):
            for k, cmd in cmds.items():
                times[k].append(timed(cmd))
        med = {k: (statistics.median(t[0] for t in v), statistics.median(t[1] for t in v))
               for k, v in times.items()}
        floor = med["floor"]
        print(f"\n1. fixed cost: a warm run of 1,000 games (target: at most {FIXED_TARGET} s "
              "of wall time beyond the floor, with its summary)")
        print(f"{'':46} {'wall s':>7} {'CPU s':>7} {'beyond floor':>12}")
        label = 'python -c "import numba, pyarrow.parquet"'
        print(f"{label:46} {floor[0]:7.3f} {floor[1]:7.3f}")
        fixed_cpu = {}
        for game, _ in GAMES:
            for label in (game, game + " --quiet"):
                wall, cpu = med[label]
                beyond = wall - floor[0]
                mark = "" if label.endswith("--quiet") else \
                    f"  {verdict(beyond <= FIXED_TARGET)}"
                print(f"{'simkit run ' + label:46} {wall:7.3f} {cpu:7.3f} {beyond:12.3f}{mark}")
            fixed_cpu[game] = med[game][1]
        n = args.games
        reps = max(1, min(args.repeat, 3))
        print(f"\n2. and 3. simkit run connect-four --games {n:,} (summary printed), "
              f"median of {reps}")
        big = median_of(run("connect-four", 2, n), reps)
        plays = []
        for _ in range(reps):
            out = subprocess.run([sys.executable, "-c", PLAY, str(n)], check=True,
                                 capture_output=True, text=True, env=child_env())
            plays.append(float(out.stdout.split()[-1]))
        play = statistics.median(plays)
        c = c_kernel(Path(tmp), n, reps)
        rest = (big[1] - play - fixed_cpu["connect-four"]) * 1e6 / n
        print(f"  the run: {big[0]:.2f} s wall, {big[1]:.2f} s CPU; play alone "
              f"(play_chunk, one thread): {play:.2f} s CPU; fixed cost (1,000 games): "
              f"{fixed_cpu['connect-four']:.2f} s CPU")
        print(f"2. everything but play: {rest:.2f} CPU s per million games (target "
              f"{PER_MILLION_TARGET}): {verdict(rest <= PER_MILLION_TARGET)}")
        if c is None:
            print("3. end to end: no cc, so no C kernel to compare with")
        else:
            ratio = big[1] / c
            print(f"3. end to end: {big[1]:.2f} CPU s against the C kernel's {c:.2f} (cc -O2): "
                  f"{ratio:.2f} times (target at most {C_RATIO_TARGET}): "
                  f"{verdict(ratio <= C_RATIO_TARGET)}")
        print("\nphases of a quiet run of 1,000 Connect Four games (one process):")
        code = f"GAME, PLAYERS, OUT = 'connect-four', 2, {tmp + '/phases'!r}\n" + PHASES
        subprocess.run([sys.executable, "-c", code], check=True, env=child_env())
    print(f"load after: {load()}")


if __name__ == "__main__":
    main()
