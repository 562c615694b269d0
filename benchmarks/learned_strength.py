"""How strong ``learned`` is, and what a decision costs (issue 29).

Two parts, each printing one table:

- ``strength``: real runs through the engine, seats rotated, ``learned`` in one seat and the
  opponent in the others: against the game's heuristic (else random; ``--against``) and
  against random, at every player count (``--players``); in a game of teams, learned's
  partners play learned too (Rabbit Hunt at 4: learned's team against the other). Prints
  ``learned``'s outright win rate (ties count as not won) with its 95% Wilson interval, the
  fair share (1/P, 1/2 for two teams), PASS when the interval lies above it, and, against
  random, whether it is also above 1.5 times the fair share (issue 29's bar at 3 and 4
  players). The master seed (``--seed``, default 2029) is a plain run seed: training draws
  every seed it uses from sha256-derived master seeds of its own
  (``simkit.train.derived_seed``), so these games are not games it learnt from.
- ``cost``: the CPU time a decision (``--workers 1``): self-play runs of ``learned``, of
  the heuristic and of ``random`` (the engine's floor), each CPU second divided by the
  decisions its strategy made (forced moves excluded). Prints ms a decision and
  ``learned``'s ratio to the heuristic, raw and above the floor.

Each row is printed when measured, so a stopped run has printed its partial figures;
``--skip N`` starts at the N-th row to resume.

    python benchmarks/learned_strength.py strength --game pig --games 1000
    python benchmarks/learned_strength.py cost --game pig --games 400
    python benchmarks/learned_strength.py strength --model m.npz --game pig --players 3
    python benchmarks/learned_strength.py strength --game pig --against hold-at
    python benchmarks/learned_strength.py cost --game avalon --weight learned.by=values
"""

from __future__ import annotations

import argparse
import time

from simkit import registry
from simkit.analysis import strategy_outcomes
from simkit.runner import RunSpec, run_games


def learnable() -> list[str]:
    return [g for g, s in registry.games().items()
            if s.has_features and hasattr(s.rules, "determinize")]


EXTRA: list[str] = []
"""``--weight learned.KEY=VALUE`` given on the command line (e.g. ``learned.top=2``)."""


def weights(model: str | None) -> list[str]:
    return ([f"learned.model={model}"] if model else []) + EXTRA


def strength(game: str, against: str, players: int, games: int, seed: int, workers: int,
             model: str | None) -> dict:
    teams = registry.get_game(game).teams(players)
    # In a game of teams, learned's partners play learned too: a team is one strategy (the
    # seats rotate by one a game, which keeps every team whole).
    seats = ["learned" if teams[s] == teams[0] else against for s in range(players)]
    games -= games % players
    run = RunSpec.make(game, players, games, seed, seats, weights=weights(model))
    t = time.perf_counter()
    res = run_games(run, workers=workers)
    elapsed = time.perf_counter() - t
    table = strategy_outcomes(res.games, res.meta)
    row = table[(table.strategy == "learned") & (table.seat == "all")].iloc[0]
    fair = 1 / len(set(registry.get_game(game).teams(players)))
    return {"win": row["win_rate"], "lo": row["win_low"], "hi": row["win_high"],
            "fair": fair, "games": games, "per_min": 60 * games / elapsed}


def cost(game: str, strategy: str, games: int, seed: int, model: str | None) -> float:
    """CPU ms a decision of ``strategy`` in 2-player self-play on one worker."""
    run = RunSpec.make(game, 2, games, seed, strategy,
                       weights=weights(model) if strategy == "learned" else [])
    run_games(RunSpec.make(game, 2, 2, seed, strategy,
                           weights=weights(model) if strategy == "learned" else []),
              workers=1)  # compiled before the clock starts
    t = time.process_time()
    res = run_games(run, workers=1)
    cpu = time.process_time() - t
    chosen = int((res.games["decisions"] - res.games["forced"]).sum())
    return 1000 * cpu / max(chosen, 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("part", choices=["strength", "cost"])
    ap.add_argument("--game", action="append",
                    help="a game (repeatable; default: every game with a features kernel)")
    ap.add_argument("--games", type=int, default=500)
    ap.add_argument("--players", default="", help="player counts against random (default: "
                    "every count the game has)")
    ap.add_argument("--seed", type=int, default=2029)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--model", help="a model file (default: the one runs find)")
    ap.add_argument("--against", help="the 2-player opponent (default: heuristic, else "
                    "random)")
    ap.add_argument("--skip", type=int, default=0, help="rows already measured")
    ap.add_argument("--weight", action="append", default=[],
                    help="a weight of learned, learned.KEY=VALUE (repeatable), e.g. "
                    "learned.by=values or learned.top=2")
    args = ap.parse_args()
    EXTRA.extend(args.weight)
    names = args.game or learnable()
    if args.part == "cost":
        print(f"{'game':18} {'learned':>9} {'heuristic':>10} {'random':>8} {'ratio':>6} "
              f"{'above floor':>11}   (CPU ms a decision, 2-player self-play, 1 worker)",
              flush=True)
        for game in names[args.skip:]:
            own = registry.strategies_for(game)
            base = args.against or ("heuristic" if "heuristic" in own else "random")
            ms = {s: cost(game, s, args.games, args.seed, args.model)
                  for s in ("learned", base, "random")}
            floor = ms["random"]
            above = "n/a"  # the heuristic costs no more than the engine's floor
            if ms[base] - floor > 0.05 * floor:
                above = f"{(ms['learned'] - floor) / (ms[base] - floor):.2f}"
            print(f"{game:18} {ms['learned']:9.4f} {ms[base]:10.4f} {floor:8.4f} "
                  f"{ms['learned'] / ms[base]:6.2f} {above:>11}   ({base})", flush=True)
        return
    print(f"{'game':18} {'P':>2} {'against':10} {'games':>6} {'wins':>7} {'95% CI':>16} "
          f"{'fair':>6} {'':4} {'x1.5':>5} {'games/min':>9}", flush=True)
    rows = []
    for game in names:
        spec = registry.get_game(game)
        own = registry.strategies_for(game)
        first = args.against or ("heuristic" if "heuristic" in own else "random")
        counts = [int(c) for c in args.players.split(",")] if args.players else spec.players
        for n in (n for n in counts if n in spec.players):
            rows += [(game, n, a) for a in dict.fromkeys([first, "random"])]
    for game, n, against in rows[args.skip:]:
        r = strength(game, against, n, args.games, args.seed, args.workers, args.model)
        verdict = "PASS" if r["lo"] > r["fair"] else "miss"
        high = "yes" if r["lo"] > 1.5 * r["fair"] else "no"
        print(f"{game:18} {n:2} {against:10} {r['games']:6} {r['win']:7.1%} "
              f"[{r['lo']:6.1%}, {r['hi']:6.1%}] {r['fair']:6.1%} {verdict:4} {high:>5} "
              f"{r['per_min']:9.0f}", flush=True)


if __name__ == "__main__":
    main()
