"""Design exploration, measured on this machine. Three parts, each printing its figures:

- ``sweep``: Rabbit Hunt at 2 players, 5 points of carrots.cap x 20,000 games (common
  seeds): wall time, the runs' own play time, and the sweep's overhead (everything but
  playing: planning, writing, the summary with its paired bootstraps) as a share of play.
- ``sensitivity``: every numeric key of Rabbit Hunt at 2 players, a step down and up, N
  games a point: wall time, the number of runs, the overhead, and the keys that move the
  seat spread after Holm's correction.
- ``balance``: an automatic balancing of the first-player advantage under heuristic play,
  on a game and numbers given, with the trials it took and the confirmed figures on fresh
  games (target: estimate within +-1 point, 95% interval within +-2).

    python benchmarks/explore.py sweep --games 20000
    python benchmarks/explore.py sensitivity --games 20000 --strategies heuristic
    python benchmarks/explore.py balance --game avalon --vary setup.hand=3..7 \
        --vary rules.hand_limit=4..7 --vary rules.win_crowns=12..18 --trials 40
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from simkit.explore import make_sensitivity, make_sweep, run_explore


def _run_seconds(out: Path, spec) -> float:
    return sum(json.loads((out / p.folder / "run.json").read_text())["elapsed_seconds"]
               for p in spec.points)


def _timed(spec, workers):
    from simkit.runner import plan, play_chunk

    play_chunk(plan(spec.run_spec(spec.points[0], games=1)), 0, 1)  # compile outside the clock
    out = Path(tempfile.mkdtemp(prefix="simkit-explore-")) / "x"
    started = time.perf_counter()
    try:
        summary = run_explore(spec, out, workers=workers)
        wall = time.perf_counter() - started
        play = _run_seconds(out, spec)
    finally:
        shutil.rmtree(out.parent, ignore_errors=True)
    return summary, wall, play


def sweep(a) -> None:
    spec = make_sweep("rabbit-hunt", 2, [f"carrots.cap={a.values}"], a.games, seed=a.seed,
                      strategies=a.strategies)
    summary, wall, play = _timed(spec, a.workers)
    games = a.games * len(spec.points)
    print(f"sweep: rabbit-hunt 2p, carrots.cap={a.values}, {len(spec.points)} points x "
          f"{a.games:,} games ({a.strategies}): wall {wall:.1f} s, play {play:.1f} s, "
          f"{games / wall:,.0f} games/s; overhead {100 * (wall - play) / play:.1f}% of play")
    for v in summary["verdicts"]:
        print(f"  - {v}")


def sensitivity(a) -> None:
    spec = make_sensitivity("rabbit-hunt", 2, a.games, seed=a.seed, strategies=a.strategies)
    summary, wall, play = _timed(spec, a.workers)
    moved = [k["key"] for k in summary["ranked"] if k["moves"]]
    print(f"sensitivity: rabbit-hunt 2p, {len(summary['ranked'])} numbers, "
          f"{len(spec.points)} runs x {a.games:,} games ({a.strategies}): wall {wall:.1f} s, "
          f"play {play:.1f} s; overhead {100 * (wall - play) / play:.1f}% of play")
    print(f"  moves the seat spread (Holm 95%): {', '.join(moved) or 'none'}")
    print(f"  skipped (refused by the game's laws): {len(summary['skipped'])}")


def balance(a) -> None:
    from simkit.balance import make_balance, run_balance

    spec = make_balance(a.game, a.players, a.vary, ["first-player-advantage"], a.trials,
                        a.games, a.confirm, a.confirm_games, 0.01, a.seed, a.strategies)
    out = Path(tempfile.mkdtemp(prefix="simkit-balance-")) / "b"
    started = time.perf_counter()
    try:
        s = run_balance(spec, out, workers=a.workers)
    finally:
        shutil.rmtree(out.parent, ignore_errors=True)
    wall = time.perf_counter() - started
    print(f"balance: {a.game} {a.players}p ({a.strategies}), {s['trials_played']} trials of "
          f"{a.games:,} games ({s['sampler']}), confirmations of {a.confirm_games:,} fresh "
          f"games: wall {wall:.0f} s")
    base = s["today"]
    print(f"  today: {', '.join(f'{k}={v}' for k, v in base.items())}")
    for c in s["confirmed"]:  # in points (simkit.balance)
        fa = c["first_player_advantage"]
        label = "today" if c["trial"] is None else f"trial {c['trial']:>3}"
        print(f"  {label}: {', '.join(f'{k}={v}' for k, v in c['setting'].items())}"
              f"  FPA {fa['estimate']:+.2f} [{fa['ci_low']:+.2f}, {fa['ci_high']:+.2f}]"
              f"  {'MEETS' if c['meets_target'] else 'misses'}")
    for v in s["verdicts"]:
        print(f"  - {v}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("part", choices=["sweep", "sensitivity", "balance"])
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--values", default="3..7", help="sweep: the carrots.cap values")
    ap.add_argument("--strategies", default="heuristic")
    ap.add_argument("--workers", type=int)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--game", default="avalon")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--vary", action="append", default=[])
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--confirm", type=int, default=3)
    ap.add_argument("--confirm-games", type=int, default=20_000)
    a = ap.parse_args()
    {"sweep": sweep, "sensitivity": sensitivity, "balance": balance}[a.part](a)


if __name__ == "__main__":
    main()
