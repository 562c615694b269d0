"""How strong the guided search ``ismcts+learned`` is, and what it costs (issue 30).

For each game at 2 players, on the game's shipped model (or ``--model``):

- ``cost``: CPU ms a decision and a search iteration of the guided search at its default
  budget and of unguided ``ismcts`` at its own, on positions of heuristic self-play
  (``Search.decide``, one thread); the ratio of their costs an iteration (issue 30's bar:
  at most 1.5); and the unguided budget whose ms a decision match the guided one's
  (raised until they do: the budget of the equal-time pairing).
- ``strength``: real runs through the engine, seats rotated, on master seeds of their own
  (``--seed``, default 3030; training draws every seed it uses from sha256-derived master
  seeds, ``simkit.train.derived_seed``, so these games are not games it learnt from): the
  guided search at its default budget against the game's heuristic, and against unguided
  ``ismcts`` at the equal-time budget. Its outright win rate (ties count as not won) with
  its 95% Wilson interval, and PASS when the interval lies above one half.

Each finished pairing is kept in a JSON file (``--state``, default
``benchmarks/guided_strength.json``) and printed as it finishes, so a stopped run has printed
its partial figures and a run started again skips what is done. With ``--runs DIR`` each
pairing is played in a run folder: a pairing stopped part-way (Ctrl-C) prints the figures
of the games it kept and continues from them when run again.

    python benchmarks/guided_strength.py --game rabbit-hunt --games 100
    python benchmarks/guided_strength.py --game dolina-krolikow --cost-only --state /tmp/c.json
    python benchmarks/guided_strength.py --games 200 --workers 1
    python benchmarks/guided_strength.py --game avalon --games 500 --against equal-time \\
        --runs runs/guided-strength
    python benchmarks/guided_strength.py --game dolina-krolikow --games 200 --budget 5000

With ``--budget N`` it plays ``ismcts+learned@N`` against the heuristic instead, after
timing that budget on the positions (issue 30's "at most 250 ms a decision" target).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from simkit import learn, registry
from simkit.analysis import strategy_outcomes
from simkit.errors import SimkitError
from simkit.results import read_run
from simkit.runner import RunSpec, plan, run_games
from simkit.search import Search, knob_defaults

GUIDED = "ismcts+learned"
STATE = Path(__file__).with_name("guided_strength.json")


def positions(game: str, count: int):
    from search_strength import positions as heuristic_positions

    return heuristic_positions(game, count)


def shipped(game: str) -> learn.Model:
    spec = registry.get_game(game)
    return learn.read_model(learn.shipped_model_path(spec, 2), game, 2, tuple(spec.features))


def decision_cost(game: str, kind: str, budget: int, sample, model=None) -> dict:
    """CPU ms a decision and an iteration of ``kind`` at ``budget`` over ``sample``."""
    p = plan(RunSpec.make(game, 2, 1))
    rules = registry.get_game(game).rules
    search = Search(p, kind, {"iterations": budget}, model=model)
    moves = np.zeros(p.max_moves, np.int32)
    obs = np.zeros(p.state_size, np.int32)
    cpu = 0.0
    iterations = decisions = 0
    for i, (state, seat) in enumerate(sample[:1] + sample):
        n = rules.legal_moves(p.compiled, state, moves)
        rules.observe(p.compiled, state, seat, obs)
        search.ws.stats[:] = 0
        t = time.process_time()
        search.decide(obs, seat, moves, n, np.array([i + 1], np.uint64))
        if i:  # the first decision compiles (or loads) the kernels
            cpu += time.process_time() - t
            iterations += int(search.ws.stats[0, 0])
            decisions += 1
    return {"ms": 1000 * cpu / decisions, "us_iteration": 1e6 * cpu / max(iterations, 1)}


def equal_time_budget(game: str, target_ms: float, start: int, sample) -> tuple[int, float]:
    """The smallest unguided ``ismcts`` budget (raised by a quarter at a time from
    ``start``) whose ms a decision reach ``target_ms``, and those ms."""
    budget = max(1, start)
    while True:
        ms = decision_cost(game, "ismcts", budget, sample)["ms"]
        if ms >= target_ms or budget >= 100_000:
            return budget, ms
        budget = max(budget + 1, int(budget * min(1.25, max(1.02, target_ms / ms))))


def match(game: str, seats: list[str], games: int, seed: int, workers: int,
          folder: Path | None = None) -> dict:
    """Play the pairing, seats rotated; in ``folder`` (a run folder) when given, continued
    from the games already there (a stopped pairing, or a smaller one of the same seed: game
    ``i`` does not depend on how many games the run has)."""
    games -= games % 2
    run = RunSpec.make(game, 2, games, seed, seats)
    t0, c0 = time.perf_counter(), time.process_time()
    if folder is None:
        res = run_games(run, workers=workers)
    else:
        run_games(run, out=folder, workers=workers, resume=True, grow=True)
        res = read_run(folder, items=False, trace=False)
    return {**outcome(res), "wall_s": time.perf_counter() - t0,
            "cpu_s": time.process_time() - c0}


def outcome(res) -> dict:
    """The first strategy's outright win rate over the games of ``res``."""
    table = strategy_outcomes(res.games, res.meta)
    name = res.meta["strategies"][0]
    row = table[(table.strategy == name) & (table.seat == "all")].iloc[0]
    return {"strategies": list(res.meta["strategies"]), "games": int(len(res.games)),
            "win": float(row["win_rate"]), "lo": float(row["win_low"]),
            "hi": float(row["win_high"])}


def partial(folder: Path) -> dict | None:
    """The figures of the games a stopped pairing kept in ``folder`` (None: none)."""
    try:
        res = read_run(folder, items=False, trace=False)
    except SimkitError:
        return None
    return {**outcome(res), "wall_s": float("nan"), "cpu_s": float("nan")} \
        if len(res.games) else None


def load(path: Path) -> dict:
    return json.loads(path.read_text()) if path.exists() else {}


def save(path: Path, done: dict) -> None:
    tmp = path.with_suffix(".json.partial")
    tmp.write_text(json.dumps(done, indent=1, sort_keys=True))
    os.replace(tmp, path)


def show(key: str, r: dict) -> None:
    if "win" in r:
        verdict = "PASS" if r["lo"] > 0.5 else "-"
        print(f"{key:48} {r['games']:5d} games  {100 * r['win']:5.1f}% "
              f"[{100 * r['lo']:5.1f}, {100 * r['hi']:5.1f}] {verdict:4}  "
              f"wall {r['wall_s']:6.0f} s  cpu {r['cpu_s']:6.0f} s", flush=True)
    else:
        print(f"{key:48} guided {r['guided_ms']:6.2f} ms a decision "
              f"({r['guided_us']:6.1f} us an iteration at @{r['guided_budget']}), unguided "
              f"{r['ismcts_ms']:6.2f} ms ({r['ismcts_us']:6.1f} us at @{r['ismcts_budget']}): "
              f"{r['ratio']:.2f}x an iteration; equal time: ismcts@{r['equal_budget']} "
              f"({r['equal_ms']:.2f} ms)", flush=True)


def pairing(a, game: str, guided: str, against: str, key: str, done: dict) -> None:
    """Play (or continue, or keep) the pairing ``guided`` against ``against``; print it."""
    if key not in done or done[key]["games"] < a.games - a.games % 2:
        folder = a.runs / f"{game}-{guided}-vs-{against}-s{a.seed}" if a.runs else None
        print(f"{key}: playing {a.games} games"
              + (f" in {folder} (continued where it stopped)" if folder else ""), flush=True)
        try:
            done[key] = match(game, [guided, against], a.games, a.seed, a.workers, folder)
        except KeyboardInterrupt:
            kept = partial(folder) if folder else None
            if kept:
                show(f"{key} (stopped, partial)", kept)
            print("stopped: run the same command again to continue", flush=True)
            raise SystemExit(130) from None
        save(a.state, done)
    show(key, done[key])


def budget_pairing(a, game: str, done: dict) -> None:
    """The guided search at ``--budget`` against the heuristic, its CPU ms a decision
    measured first on the positions (``--workers 1``'s figure: one thread)."""
    guided = f"{GUIDED}@{a.budget}"
    key = f"{game} {guided} cost"
    if key not in done:
        c = decision_cost(game, "guided", a.budget, positions(game, a.positions), shipped(game))
        done[key] = {"budget": a.budget, "ms": c["ms"], "us": c["us_iteration"]}
        save(a.state, done)
    print(f"{key:48} {done[key]['ms']:6.1f} ms a decision ({done[key]['us']:.1f} us an "
          "iteration)", flush=True)
    pairing(a, game, guided, "heuristic", f"{game} {guided} vs heuristic seed {a.seed}", done)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", action="append", help="a game (repeatable; default: all five)")
    ap.add_argument("--games", type=int, default=100, help="games a pairing")
    ap.add_argument("--positions", type=int, default=20, help="positions the costs time")
    ap.add_argument("--seed", type=int, default=3030)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--state", type=Path, default=STATE)
    ap.add_argument("--runs", type=Path, help="play each pairing in a run folder under this "
                    "one, so that a stopped pairing continues where it stopped (and a "
                    "pairing grows to a larger --games on the same seeds)")
    ap.add_argument("--against", action="append", choices=["heuristic", "equal-time"],
                    help="the pairings to play (repeatable; default: both)")
    ap.add_argument("--cost-only", action="store_true",
                    help="measure the costs (the cost line) and play no pairing")
    ap.add_argument("--budget", type=int,
                    help="play the guided search at this budget against the heuristic (and "
                    "time it on the positions first: its ms a decision), in place of the "
                    "default pairings: issue 30's 'at most 250 ms' target")
    a = ap.parse_args()
    games = a.game or [g for g, s in registry.games().items()
                       if s.has_features and learn.shipped_model_path(s, 2).is_file()]
    done = load(a.state)
    start = time.process_time()
    for game in games:
        key = f"{game} cost"
        if key not in done:
            model = shipped(game)
            sample = positions(game, a.positions)
            g_budget = int(knob_defaults(game, "guided")["iterations"])
            u_budget = int(knob_defaults(game)["iterations"])
            g = decision_cost(game, "guided", g_budget, sample, model)
            u = decision_cost(game, "ismcts", u_budget, sample)
            eq, eq_ms = equal_time_budget(game, g["ms"], int(u_budget * g["ms"] / u["ms"]),
                                          sample)
            done[key] = {"guided_budget": g_budget, "guided_ms": g["ms"],
                         "guided_us": g["us_iteration"], "ismcts_budget": u_budget,
                         "ismcts_ms": u["ms"], "ismcts_us": u["us_iteration"],
                         "ratio": g["us_iteration"] / u["us_iteration"], "equal_budget": eq,
                         "equal_ms": eq_ms}
            save(a.state, done)
        show(key, done[key])
        if a.budget:
            budget_pairing(a, game, done)
            continue
        pairings = {"heuristic": "heuristic",
                    "equal-time": f"ismcts@{done[key]['equal_budget']}"}
        for against in () if a.cost_only else (pairings[n] for n in a.against or pairings):
            pairing(a, game, GUIDED, against, f"{game} {GUIDED} vs {against} seed {a.seed}",
                    done)
    print(f"this run: {time.process_time() - start:.0f} s of CPU in this process")


if __name__ == "__main__":
    main()
