"""The skill ladder, measured: for every game (or the ones named), a 2-player ladder of
random, the heuristic and ISMCTS at two budgets, N games a pairing, on this machine.

Prints, per game: the wall time, the ratings with their 95% intervals, the first-player
advantage at each level, and the ladder's own overhead (scheduling, tables, the fit and the
summary: the ladder's wall time minus its runs' playing time, over that playing time; the
target is under 5%).

    python benchmarks/ladder.py --games 200                        # every game, ~ an hour
    python benchmarks/ladder.py --game avalon --games 50 --budgets 25,100
    python benchmarks/ladder.py --game pig --games 400 --budgets 10,40   (Pig from examples/)
    python benchmarks/ladder.py --games 200 --levels random,heuristic-v1,heuristic
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from simkit import registry
from simkit.ladder import LadderSpec, estimate, measure_costs, run_ladder, say_duration

GAMES = ("watership-down", "war-of-the-wilds", "avalon", "rabbit-hunt", "dolina-krolikow")


def one(game: str, games: int, budgets: list[int], workers: int | None, seed: int,
        levels: list[str] | None = None) -> dict:
    own = registry.strategies_for(game)
    if not levels:
        levels = ["random", "heuristic" if "heuristic" in own else "hold-at"]
        levels += [f"ismcts@{b}" for b in budgets]
    lad = LadderSpec.make(game, 2, levels, games, seed=seed)
    costs = measure_costs(lad)
    est = estimate(lad, costs, workers or 2)
    out = Path(tempfile.mkdtemp(prefix="simkit-ladder-")) / "lad"
    started = time.perf_counter()
    try:
        doc = run_ladder(lad, out, workers=workers)
        wall = time.perf_counter() - started
        summary = json.loads((out / "summary.json").read_text())
    finally:
        shutil.rmtree(out.parent, ignore_errors=True)
    return {"game": game, "levels": levels, "wall": wall, "estimate": est["seconds"],
            "doc": doc, "summary": summary}


def show(r: dict) -> None:
    doc, s = r["doc"], r["summary"]
    print(f"\n{r['game']}: {len(doc['schedule'])} runs, {s['match_games']:,} match games + "
          f"{s['level_games']:,} a level; wall {say_duration(r['wall'])} (estimated "
          f"{say_duration(r['estimate'])}); overhead {100 * doc['overhead_share']:.2f}% of "
          f"{doc['run_seconds']:.1f} s of play")
    by = {b["level"]: b for b in s["balance"]}
    print(f"  {'level':<14}{'rating':>8}  {'95% interval':<16}{'FPA (points)':>14}  interval")
    for x in sorted(s["ratings"]["ratings"], key=lambda x: x["rating"]):
        f = by[x["strategy"]]["first_player_advantage"]
        lo = f"[{x['ci_low']:.0f}, {x['ci_high']:.0f}]" if x["se"] else "anchor"
        print(f"  {x['strategy']:<14}{x['rating']:>8.0f}  {lo:<16}{100 * f['advantage']:>+14.1f}"
              f"  [{100 * f['ci_low']:+.1f}, {100 * f['ci_high']:+.1f}]")
    for v in s["verdicts"]:
        print(f"  - {v}")
    from simkit.reports.ladder import matrix_frame

    print("  win matrix (row's score against column):")
    for line in matrix_frame(s).to_string(index=False).splitlines():
        print(f"    {line}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", action="append", help="a game (repeatable; default: all five)")
    ap.add_argument("--games", type=int, default=200, help="games a pairing")
    ap.add_argument("--budgets", default="50,200", help="the two ISMCTS budgets")
    ap.add_argument("--workers", type=int)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--levels", help="the levels instead, comma-separated (e.g. "
                                     "random,heuristic-v1,heuristic)")
    a = ap.parse_args()
    if a.game and "pig" in a.game:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
        from pig_game import GAME

        registry.register_game(GAME)
    budgets = [int(b) for b in a.budgets.split(",")]
    print(f"ladder benchmark: {a.games} games a pairing, ismcts at {budgets}, seed {a.seed}, "
          f"workers {a.workers or 'all'}")
    for game in a.game or GAMES:
        show(one(game, a.games, budgets, a.workers, a.seed,
                 a.levels.split(",") if a.levels else None))


if __name__ == "__main__":
    main()
