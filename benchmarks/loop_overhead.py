"""The engine loop's overhead: random games on one core, through the engine and without it.

For Connect Four (examples/connect_four) and Pig (examples/pig_game) it plays the same
games three ways and prints games/s (the median of ``--repeat`` repetitions, interleaved so
that a change of the machine's load hits every way alike):

- ``C kernel``: benchmarks/connect_four.c, compiled here with ``cc -O2`` (Connect Four only;
  skipped, and said so, when there is no ``cc``);
- ``bare numba``: benchmarks/bare_loop.py, a plain loop over the game's rules kernels;
- ``engine``: ``simkit.runner.play_chunk``, the generated driver's batch loop with the
  ``random`` strategy in every seat (no tables are built).

Then the ratio engine/bare, and whether the three played the same games (they use the same
seeds and streams, so their outcomes must agree game for game).

    python benchmarks/loop_overhead.py                     # 1,000,000 games, 5 repetitions
    python benchmarks/loop_overhead.py --games 200000 --repeat 3
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "examples"))

from bare_loop import make_bare_loop, play_bare  # noqa: E402

SEED = 1


def register_examples() -> None:
    from connect_four import GAME as CONNECT_FOUR
    from pig_game import GAME as PIG

    from simkit import registry

    registry.register_game(CONNECT_FOUR)
    registry.register_game(PIG)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def compile_c(tmp: Path) -> Path | None:
    cc = shutil.which("cc")
    if cc is None:
        print("cc not found: the C kernel is skipped")
        return None
    exe = tmp / "connect_four"
    subprocess.run([cc, "-O2", "-o", str(exe), str(HERE / "connect_four.c")], check=True)
    return exe


def run_c(exe: Path, games: int) -> tuple[float, str]:
    out = subprocess.run([str(exe), str(games), str(SEED)], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    return float(out[0].split()[1]), out[1].split(" ", 1)[1]


def checksum(end, decisions, ranks) -> str:
    """The C kernel's checksum line from the outcome arrays of a Connect Four batch."""
    won = ranks == 1
    alone = won.sum(axis=1) == 1
    p1 = int((alone & won[:, 0]).sum())
    p2 = int((alone & won[:, 1]).sum())
    full = int((~alone).sum())
    return f"P1={p1} P2={p2} full={full} drops={int(decisions.sum())}"


def measure(game: str, games: int, repeat: int, exe: Path | None) -> list[tuple]:
    from simkit import registry
    from simkit.runner import RunSpec, plan, play_chunk

    spec = registry.get_game(game)
    p = plan(RunSpec.make(game, 2, games, seed=SEED, strategies="random"))
    loop = make_bare_loop(spec.rules)

    def bare(count):
        return play_bare(loop, p.compiled, 2, len(spec.item_columns), p.state_size,
                         p.max_moves, SEED, count)

    bare(10)  # compile the bare loop (the rules kernels load from numba's cache)
    play_chunk(p, 0, 10)  # load the engine's driver
    times = {"C kernel (cc -O2)": [], "bare numba loop": [], "engine (play_chunk)": []}
    sums = {}
    for _ in range(repeat):
        if exe is not None and game == "connect-four":
            seconds, sums["C kernel (cc -O2)"] = run_c(exe, games)
            times["C kernel (cc -O2)"].append(seconds)
        t0 = time.perf_counter()
        b = bare(games)
        times["bare numba loop"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        c = play_chunk(p, 0, games)
        times["engine (play_chunk)"].append(time.perf_counter() - t0)
    same = all(np.array_equal(b[k], getattr(c, k))
               for k in ("end", "decisions", "scores", "ranks", "items"))
    sums["bare numba loop"] = checksum(b["end"], b["decisions"], b["ranks"])
    sums["engine (play_chunk)"] = checksum(c.end, c.decisions, c.ranks)
    rows = []
    for name, ts in times.items():
        if ts:
            rows.append((game, name, games / statistics.median(ts), sums[name]))
    return rows, same


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    register_examples()
    print(f"random games on one core, median of {args.repeat}; load before: {load()}")
    with tempfile.TemporaryDirectory() as tmp:
        exe = compile_c(Path(tmp))
        results = [measure(g, args.games, args.repeat, exe) for g in ("connect-four", "pig")]
    print(f"{'game':13} {'loop':22} {'games':>10} {'games/s':>10} {'ns/game':>8}  checksum")
    for rows, _ in results:
        for game, name, rate, chk in rows:
            print(f"{game:13} {name:22} {args.games:>10,} {rate:>10,.0f} {1e9 / rate:>8.0f}  "
                  f"{chk if game == 'connect-four' else ''}")
    for rows, same in results:
        rate = {name: r for _, name, r, _ in rows}
        game = rows[0][0]
        line = (f"{game}: engine/bare {rate['engine (play_chunk)'] / rate['bare numba loop']:.2f}"
                f"; engine and bare played the same games: {'yes' if same else 'NO'}")
        if "C kernel (cc -O2)" in rate:
            sums = {name: chk for _, name, _, chk in rows}
            line += (f"; engine/C {rate['engine (play_chunk)'] / rate['C kernel (cc -O2)']:.2f}"
                     f"; C checksum {'matches' if len(set(sums.values())) == 1 else 'DIFFERS'}")
        print(line)
    print(f"load after: {load()}")


if __name__ == "__main__":
    main()
