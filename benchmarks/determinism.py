"""The same master seed gives the same games.parquet on 1 worker, 2 workers and a Dask
LocalCluster, through the command line as a user runs it. Prints each file's digest.

    python benchmarks/determinism.py                       # rabbit-hunt, 3 players, 20,000
    python benchmarks/determinism.py --game avalon --players 2 --games 50000
"""

import argparse
import hashlib
import subprocess
import tempfile
from pathlib import Path

import pyarrow.parquet as pq


def digest(path: Path) -> str:
    table = pq.read_table(path).to_pandas()
    return hashlib.sha256(table.to_csv(index=False).encode()).hexdigest()[:16]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="rabbit-hunt")
    ap.add_argument("--players", default="3")
    ap.add_argument("--games", default="20000")
    ap.add_argument("--seed", default="11")
    args = ap.parse_args()
    from distributed import LocalCluster

    cmd = ["simkit", "run", args.game, "--players", args.players, "--games", args.games,
           "--seed", args.seed, "--quiet"]
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for w in ("1", "2"):
            subprocess.run(cmd + ["--workers", w, "--out", f"{tmp}/w{w}"], check=True)
            out[f"{w} worker(s)"] = digest(Path(tmp) / f"w{w}" / "games.parquet")
        with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as c:
            subprocess.run(cmd + ["--scheduler", c.scheduler_address, "--out", f"{tmp}/d"],
                           check=True)
            out["Dask LocalCluster"] = digest(Path(tmp) / "d" / "games.parquet")
    print(" ".join(cmd))
    for k, v in out.items():
        print(f"  {k:18} games.parquet sha256 {v}")
    print("identical" if len(set(out.values())) == 1 else "DIFFERENT")


if __name__ == "__main__":
    main()
