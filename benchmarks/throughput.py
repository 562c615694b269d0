"""Throughput of random self-play for every registered game and player count.

Each measurement runs in a fresh process (so its peak memory is its own): it plays
``--games`` games with random strategies on all local cores, writing the run folder (tables
included) to a temporary directory, after a warm-up that loads the compiled kernels from
numba's cache. Prints the seconds from the first game to the finished run folder (tables
written), games/s and decisions/s over them, the warm-up (loading or, after a source change,
compiling the kernels), the process's peak resident memory, and games per CPU second of the
process over the whole run (warm-up included): on a machine others share, wall-clock rates
move with their load, CPU rates much less.

    python benchmarks/throughput.py                       # every game, 100,000 games each
    python benchmarks/throughput.py --game rabbit-hunt --players 2 --games 1000000
    python benchmarks/throughput.py --cold-start          # also time `simkit run` of 1,000
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def measure(game: str, players: int, games: int, workers: int | None) -> dict:
    from simkit.runner import RunSpec, run_games

    run = RunSpec.make(game, players, games, seed=1, strategies="random")
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        c0 = time.process_time()
        res = run_games(run, out=Path(tmp) / "run", workers=workers)
        wall = time.perf_counter() - t0
        cpu = time.process_time() - c0
        import pyarrow.parquet as pq

        decisions = pq.read_table(Path(tmp) / "run" / "games.parquet",
                                  columns=["decisions"]).column(0).to_numpy().sum()
        size = sum(f.stat().st_size for f in (Path(tmp) / "run").iterdir())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB -> MiB on Linux
    play = res.meta["elapsed_seconds"]  # from the first chunk to the renamed folder
    return {"game": game, "players": players, "games": games,
            "seconds": round(play, 2), "warmup_seconds": round(wall - play, 2),
            "games_per_s": round(games / play), "decisions_per_s": round(decisions / play),
            "peak_mib": round(peak), "folder_mib": round(size / 2**20, 1),
            "backend": res.meta["backend"], "cpu_seconds": round(cpu, 2),
            "games_per_cpu_s": round(games / cpu)}


def cold_start() -> None:
    """`simkit run` of 1,000 games from a fresh process, twice: the second pays no
    compilation (numba's on-disk cache)."""
    with tempfile.TemporaryDirectory() as tmp:
        for i in (1, 2):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "simkit", "run", "rabbit-hunt", "--players",
                            "2", "--games", "1000", "--quiet", "--out", f"{tmp}/r{i}"],
                           check=True)
            print(f"simkit run rabbit-hunt --games 1000, process {i}: "
                  f"{time.perf_counter() - t0:.2f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game")
    ap.add_argument("--players", type=int)
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--workers", type=int)
    ap.add_argument("--cold-start", action="store_true")
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(measure(args.game, args.players, args.games, args.workers)))
        return
    from simkit import registry

    cases = [(g, n) for g, spec in registry.games().items() for n in spec.players
             if (args.game in (None, g)) and (args.players in (None, n))]
    print(f"{os.cpu_count()} cores; random strategies; tables written; load "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'game':18} {'P':>2} {'games':>10} {'s':>8} {'games/s':>9} {'decisions/s':>12} "
          f"{'warm-up s':>9} {'peak MiB':>9} {'folder MiB':>10} {'games/CPU-s':>11}")
    for g, n in cases:
        cmd = [sys.executable, __file__, "--one", "--game", g, "--players", str(n),
               "--games", str(args.games)] + (["--workers", str(args.workers)]
                                              if args.workers else [])
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0:
            print(f"{g:18} {n:>2} failed: {out.stderr.strip().splitlines()[-1:]}")
            continue
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{g:18} {n:>2} {r['games']:>10,} {r['seconds']:>8.2f} {r['games_per_s']:>9,} "
              f"{r['decisions_per_s']:>12,} {r['warmup_seconds']:>9.2f} {r['peak_mib']:>9,} "
              f"{r['folder_mib']:>10} {r['games_per_cpu_s']:>11,}")
    if args.cold_start:
        cold_start()


if __name__ == "__main__":
    main()
