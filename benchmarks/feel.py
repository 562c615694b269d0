"""What measuring how a game feels costs, on this machine (docs/metrics.md).

For each game with a ``progress`` kernel (and Pig), at 2 players, it plays the same run of
``--games`` games three ways, interleaved ``--repeat`` times (a change of the machine's
load then hits every way alike), on one worker, tables written to a temporary folder and
the summary counted:

- ``plain``: no trace (the counters of branching and forced moves are always on);
- ``traced``: the first ``--trace`` games traced turn by turn (``--trace-turns``), their
  curves written to trace.parquet and summarised;
- and the figures the trace gives (decided at, lead changes, AUC at half time), so the run
  is seen to measure something.

It prints the median wall time of each and the traced run's extra cost as a share of the
plain one's (the target: at most 10% for a 10,000-game trace). ``--kingmaking K`` also
times the replay of K games at ``--km-players`` players (``--kingmaking``), per replayed
game.

    python benchmarks/feel.py                          # 50,000 games, 10,000 traced
    python benchmarks/feel.py --game rabbit-hunt --games 100000 --repeat 5
    python benchmarks/feel.py --game pig --kingmaking 200 --strategies hold-at  # not random
    python benchmarks/feel.py table --game avalon --strategies random,heuristic,ismcts \
        --games 2000 --search-games 100          # the NOTES.md table
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "examples"))


def _register() -> None:
    from pig_game import GAME as PIG

    from simkit import registry

    if "pig" not in registry.games():
        registry.register_game(PIG)


def _timed(run, workers: int) -> tuple[float, dict]:
    from simkit.reports.summary import summary_dict

    from simkit.runner import run_games

    tmp = Path(tempfile.mkdtemp(prefix="simkit-feel-"))
    try:
        started = time.perf_counter()
        res = run_games(run, out=tmp / "r", workers=workers, tally=True)
        feel = summary_dict(res.tally, res.meta)["feel"]
        return time.perf_counter() - started, feel
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def measure(game: str, players: int, games: int, trace: int, repeat: int, workers: int,
            strategies: str) -> None:
    from simkit.runner import RunSpec, plan, play_chunk

    plain = RunSpec.make(game, players, games, seed=1, strategies=strategies)
    traced = RunSpec.make(game, players, games, seed=1, strategies=strategies, trace=trace)
    for run in (plain, traced):
        play_chunk(plan(run), 0, 1)  # compile outside the clock
    times = {"plain": [], "traced": []}
    feel = None
    for _ in range(repeat):
        times["plain"].append(_timed(plain, workers)[0])
        t, feel = _timed(traced, workers)
        times["traced"].append(t)
    a, b = statistics.median(times["plain"]), statistics.median(times["traced"])
    print(f"{game} {players}p, {strategies}, {games:,} games, {trace:,} traced, {workers} "
          f"worker(s), median of {repeat}: plain {a:.2f} s ({games / a:,.0f} games/s), "
          f"traced {b:.2f} s: +{100 * (b - a) / a:.1f}%")
    d, lc = feel["decided_at"], feel["lead_changes"]
    half = next(x for x in feel["auc"] if abs(x["fraction"] - 0.5) < 1e-9)
    print(f"  decided at {100 * d['mean']:.1f}% [{100 * d['ci_low']:.1f}, "
          f"{100 * d['ci_high']:.1f}], lead changes {lc['mean']:.2f}, AUC at half time "
          f"{half['auc']:.3f}, uncertainty {feel['uncertainty']['mean']:.3f}; legal moves a "
          f"decision {feel['branching']['mean']:.2f}, forced {100 * feel['forced']['mean']:.1f}%")


def kingmaking(game: str, players: int, games: int, strategies: str) -> None:
    from simkit.runner import RunSpec, plan, play_chunk

    plain = RunSpec.make(game, players, games, seed=1, strategies=strategies)
    kings = RunSpec.make(game, players, games, seed=1, strategies=strategies,
                         kingmaking=games)
    play_chunk(plan(kings), 0, 1)
    a, _ = _timed(plain, 1)
    b, feel = _timed(kings, 1)
    print(f"{game} {players}p, {strategies}: {games:,} games replayed for kingmakers in "
          f"{b - a:.2f} s ({1000 * (b - a) / games:.1f} ms a game, "
          f"{(b - a) / max(a, 1e-9):.0f}x the games' own play); kingmaking by the last seat "
          f"{100 * feel['kingmaking']['rate']:.1f}% [{100 * feel['kingmaking']['ci_low']:.1f}, "
          f"{100 * feel['kingmaking']['ci_high']:.1f}], pivotal decisions "
          f"{feel['pivotal']['mean']:.2f} a game")


def _pct(r) -> str:
    if not r or r.get("mean", r.get("rate")) is None:
        return "n/a"
    v = r.get("mean", r.get("rate"))
    return f"{100 * v:.1f}% [{100 * r['ci_low']:.1f}, {100 * r['ci_high']:.1f}]"


def _num(r, digits=2) -> str:
    if not r or r.get("mean") is None:
        return "n/a"
    return f"{r['mean']:.{digits}f} [{r['ci_low']:.{digits}f}, {r['ci_high']:.{digits}f}]"


def table(game: str, players: int, strategies: list[str], games: int, search_games: int,
          workers: int) -> None:
    """A markdown table of every feel figure in each strategy's self-play (for NOTES.md)."""
    from simkit.runner import RunSpec

    print(f"{game}, {players} players, self-play, every game traced, seed 1 "
          f"(`python benchmarks/feel.py table --game {game} --players {players} "
          f"--strategies {','.join(strategies)} --games {games} --search-games "
          f"{search_games}`):\n")
    print("| strategy | games | decided at | lead changes | drama | comebacks | uncertainty "
          "| AUC at 50% | legal moves a decision | forced | timeouts |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in strategies:
        n = search_games if name.split("@")[0] in ("ismcts", "mc") else games
        run = RunSpec.make(game, players, n, seed=1, strategies=name, trace="all")
        _, m = _timed(run, workers)
        half = next((x for x in m.get("auc") or [] if abs(x["fraction"] - 0.5) < 1e-9), None)
        auc = f"{half['auc']:.2f} [{half['ci_low']:.2f}, {half['ci_high']:.2f}]" if half \
            else "n/a"
        print(f"| {name} | {n:,} | {_pct(m.get('decided_at'))} | {_num(m.get('lead_changes'))} "
              f"| {_num(m.get('drama'))} | {_pct(m.get('comebacks'))} "
              f"| {_num(m.get('uncertainty'))} | {auc} | {_num(m.get('branching'), 1)} "
              f"| {_pct(m.get('forced'))} | {_pct(m.get('timeouts'))} |")
    unit = m.get("progress_unit") or "points"
    print(f"\nDrama is in {unit}. Intervals are 95% (docs/metrics.md).")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", nargs="?", default="cost", choices=["cost", "table"],
                    help="cost: what a trace costs (default); table: the figures of each "
                         "strategy's self-play as a markdown table")
    ap.add_argument("--game", action="append", help="default: every game with progress")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=50_000)
    ap.add_argument("--trace", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--strategies", default="random")
    ap.add_argument("--kingmaking", type=int, default=0)
    ap.add_argument("--km-players", type=int, default=3)
    ap.add_argument("--search-games", type=int, default=100,
                    help="table: games for a search strategy")
    a = ap.parse_args()
    _register()
    from simkit import registry

    games = a.game or sorted(n for n, g in registry.games().items() if g.has_progress)
    print(f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for game in games:
        if a.mode == "table":
            table(game, a.players, a.strategies.split(","), a.games, a.search_games,
                  a.workers)
            continue
        if a.kingmaking:
            kingmaking(game, a.km_players, a.kingmaking, a.strategies)
        else:
            measure(game, a.players, a.games, min(a.trace, a.games), a.repeat, a.workers,
                    a.strategies)


if __name__ == "__main__":
    main()
