"""Search strength and cost: ``mc`` and ``ismcts`` at a few budgets against the game's
heuristic (or random), 2 players, seats rotated, for every game with a ``determinize``
kernel. Prints per game and budget: the search's outright win rate with its 95% Wilson
interval, milliseconds per search decision, the mean and deepest leaf of the tree, and the
share of a decision's time spent outside playouts (estimated against the same number of
bare playouts from determinised states).

Games are played by a Python loop over the game's kernels (the search decides through
``simkit.search.Search``), so the loop's own cost is not the engine's.

    python benchmarks/search_strength.py --games 100 --budgets 50,200,1000
    python benchmarks/search_strength.py --game avalon --games 500 --budgets 400 --against heuristic
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from simkit.reports.analysis import wilson

from simkit import registry
from simkit.rng import game_seeds, seed_streams
from simkit.runner import RunSpec, plan
from simkit.search import Search


def play(p, seats, seed: int, stats: dict) -> np.ndarray:
    """One game; ``seats[s]`` is a Search or a strategy name. Returns the ranks."""
    spec = registry.get_game(p.run.game)
    rules, n = spec.rules, p.run.players
    own = registry.strategies_for(p.run.game)
    streams = np.empty(1 + n, np.uint64)
    seed_streams(np.uint64(seed), n, streams)
    state = np.zeros(p.state_size, np.int32)
    obs = np.zeros(p.state_size, np.int32)
    moves = np.zeros(p.max_moves, np.int32)
    items = np.zeros((n, len(spec.item_columns)), np.int32)
    rules.new_game(p.compiled, n, state, streams[0:1])
    while not rules.is_over(state) and rules.turn_number(state) < p.max_turns:
        k_moves = rules.legal_moves(p.compiled, state, moves)
        k = 0
        if k_moves > 1:
            seat = rules.to_move(state)
            rules.observe(p.compiled, state, seat, obs)
            who = seats[seat]
            if isinstance(who, Search):
                t = time.perf_counter()
                k = who.decide(obs, seat, moves, k_moves, streams[1 + seat:2 + seat])
                stats["seconds"] += time.perf_counter() - t
                stats["decisions"] += 1
            else:
                s = own[who]
                w = np.array(list(s.weights.values()) or [0.0], np.float64)
                k = s.kernel(p.compiled, obs, seat, moves, k_moves, w,
                             streams[1 + seat:2 + seat])
        rules.apply_move(p.compiled, state, moves[k], streams[0:1], items)
    scores = np.zeros(n)
    ranks = np.zeros(n, np.int32)
    rules.finish(p.compiled, state, scores, ranks)
    if rules.turn_number(state) >= p.max_turns:
        ranks[:] = 0
    return ranks


def measure(game: str, kind: str, budget: int, against: str, games: int, rollout: str):
    p = plan(RunSpec.make(game, 2, 1))
    search = Search(p, kind, {"iterations": budget, "rollout": 1.0 if rollout == "heuristic"
                              else 0.0})
    stats = {"seconds": 0.0, "decisions": 0}
    search.ws.stats[:] = 0
    wins = 0
    for i, seed in enumerate(game_seeds(2026, 0, games)):
        me = i % 2
        seats = [search, against] if me == 0 else [against, search]
        ranks = play(p, seats, int(seed), stats)
        wins += int(ranks[me] == 1 and ranks[1 - me] != 1)
    lo, hi = wilson(wins, games)
    it, depth, deepest, _ = search.ws.stats
    return {"game": game, "search": f"{kind}@{budget}", "against": against,
            "win_rate": wins / games, "ci": (float(lo), float(hi)),
            "ms_per_decision": 1000 * stats["seconds"] / max(stats["decisions"], 1),
            "mean_depth": depth / max(it, 1), "max_depth": deepest}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", action="append", help="a game (repeatable; default: every game "
                    "with a determinize kernel)")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--budgets", default="50,200,1000")
    ap.add_argument("--kinds", default="mc,ismcts")
    ap.add_argument("--against", default="heuristic")
    ap.add_argument("--rollout", default="random", choices=["random", "heuristic"])
    args = ap.parse_args()
    names = args.game or [g for g, s in registry.games().items()
                          if hasattr(s.rules, "determinize") and 2 in s.players]
    print(f"{'game':18} {'search':14} {'against':10} {'wins':>7} {'95% CI':>16} "
          f"{'ms/decision':>11} {'depth':>6} {'deepest':>7}")
    for game in names:
        against = args.against
        if against not in registry.strategies_for(game):
            against = "random"
        for kind in args.kinds.split(","):
            for budget in (int(b) for b in args.budgets.split(",")):
                r = measure(game, kind, budget, against, args.games, args.rollout)
                lo, hi = r["ci"]
                print(f"{game:18} {r['search']:14} {r['against']:10} {r['win_rate']:7.1%} "
                      f"[{lo:6.1%}, {hi:6.1%}] {r['ms_per_decision']:11.2f} "
                      f"{r['mean_depth']:6.1f} {r['max_depth']:7.0f}", flush=True)


if __name__ == "__main__":
    main()
