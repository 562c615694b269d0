"""Search strength and cost, for every game with a ``determinize`` kernel.

Two parts, each printing one table:

- ``cost``: on positions sampled from heuristic self-play at 2 players (the states where a
  seat had a choice), ``mc`` and ``ismcts`` decide at each budget. Prints CPU milliseconds
  and decisions per CPU second, the mean and deepest leaf of the tree as run.json's
  ``search`` gives them (the mean over every iteration of every position, the deepest of
  all positions), playout decisions per
  iteration, the share of a decision's time spent outside playouts (determinising,
  selecting, expanding, backing up: one minus the time the same number of playout decisions
  takes in bare playouts from the true state), and what ``ismcts@N`` costs against ``mc@N``.
- ``strength``: real runs through the engine (``simkit.runner.run_games``: seats rotated,
  the same seeds for every budget), the search against the game's heuristic at 2 players,
  and against random at every player count. Prints the search's outright win rate with its
  95% Wilson interval, the fair share (1/P, or 1/2 for two teams), PASS when the interval
  is above it, games per CPU minute and CPU milliseconds a search decision (CPU time, not the
  wall clock: the figure a shared machine disturbs least), and the search's mean and deepest
  leaf from run.json.

    python benchmarks/search_strength.py cost --budgets 50,200,1000
    python benchmarks/search_strength.py strength --games 500 --budgets default,1000
    python benchmarks/search_strength.py strength --game avalon --against random --games 100
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from simkit import registry
from simkit.analysis import strategy_outcomes
from simkit.rng import game_seeds, seed_streams
from simkit.runner import RunSpec, plan, run_games
from simkit.search import ROLLOUTS, Search


def positions(game: str, count: int, seed: int = 7) -> list[tuple[np.ndarray, int]]:
    """``count`` (true state, seat to move) pairs at decisions of heuristic self-play."""
    p = plan(RunSpec.make(game, 2, 1))
    spec = registry.get_game(game)
    rules = spec.rules
    own = registry.strategies_for(game)
    name = "heuristic" if "heuristic" in own else "random"
    s = own[name]
    w = np.array(list(s.weights.values()) or [0.0], np.float64)
    found = []
    for g in game_seeds(seed, 0, 1000):
        streams = np.empty(3, np.uint64)
        seed_streams(np.uint64(g), 2, streams)
        state = np.zeros(p.state_size, np.int32)
        obs = np.zeros(p.state_size, np.int32)
        moves = np.zeros(p.max_moves, np.int32)
        items = np.zeros((2, max(1, len(spec.item_columns))), np.int32)
        rules.new_game(p.compiled, 2, state, streams[0:1])
        step = 0
        while not rules.is_over(state) and rules.turn_number(state) < p.max_turns:
            n = rules.legal_moves(p.compiled, state, moves)
            k = 0
            if n > 1:
                seat = int(rules.to_move(state))
                if step % 7 == 0:
                    found.append((state.copy(), seat))
                    if len(found) == count:
                        return found
                step += 1
                rules.observe(p.compiled, state, seat, obs)
                k = s.kernel(p.compiled, obs, seat, moves, n, w, streams[1 + seat:2 + seat])
            rules.apply_move(p.compiled, state, moves[k], streams[0:1], items)
    return found


def cost(game: str, kind: str, budget: int, sample, knobs: dict | None = None) -> dict:
    p = plan(RunSpec.make(game, 2, 1))
    rules = registry.get_game(game).rules
    search = Search(p, kind, {"iterations": budget, **(knobs or {})})
    ws = search.ws
    moves = np.zeros(p.max_moves, np.int32)
    obs = np.zeros(p.state_size, np.int32)
    spent = bare = 0.0  # CPU seconds: process_time, not the wall clock
    playout_decisions = bare_decisions = 0.0
    stats = np.zeros_like(ws.stats)
    deepest = 0.0  # the deepest leaf of any position (summing them meant nothing)
    for i, (state, seat) in enumerate(sample[:1] + sample):
        if i == 0:  # compile (or load) the kernels before timing
            n = rules.legal_moves(p.compiled, state, moves)
            rules.observe(p.compiled, state, seat, obs)
            search.decide(obs, seat, moves, n, np.array([1], np.uint64))
            search.module.bare_playouts(
                p.compiled, state, 1, search.weights, np.array([1], np.uint64), 2,
                p.max_turns, search.teams, search.rollout_weights, ws.state, ws.obs,
                ws.moves, ws.items, ws.scores, ws.ranks, ws.reward, ws.stats[0])
            continue
        n = rules.legal_moves(p.compiled, state, moves)
        rules.observe(p.compiled, state, seat, obs)
        ws.stats[:] = 0
        t = time.process_time()
        search.decide(obs, seat, moves, n, np.array([i + 1], np.uint64))
        spent += time.process_time() - t
        stats += ws.stats
        deepest = max(deepest, float(ws.stats[0, 2]))
        playout_decisions += ws.stats[0, 3]
        ws.stats[:] = 0
        t = time.process_time()
        search.module.bare_playouts(
            p.compiled, state, budget, search.weights, np.array([i + 1], np.uint64), 2,
            p.max_turns, search.teams, search.rollout_weights, ws.state, ws.obs, ws.moves,
            ws.items, ws.scores, ws.ranks, ws.reward, ws.stats[0])
        bare += time.process_time() - t
        bare_decisions += ws.stats[0, 3]
    it, depth, _, _, decisions = stats[0]
    per_playout_decision = bare / max(bare_decisions, 1)
    return {"ms": 1000 * spent / decisions, "per_s": decisions / spent,
            "depth": depth / it, "deepest": deepest, "playout": playout_decisions / it,
            "outside": 1 - per_playout_decision * playout_decisions / spent}


def strength(game: str, search: str, against: str, players: int, games: int,
             workers: int, weights=()) -> dict:
    seats = ",".join([search] + [against] * (players - 1))
    run = RunSpec.make(game, players, games, 2026, seats, weights=list(weights))
    t = time.process_time()  # every worker thread's CPU time
    res = run_games(run, workers=workers)
    cpu = time.process_time() - t
    search = res.meta["strategies"][0]  # with its budget: ismcts -> ismcts@400
    table = strategy_outcomes(res.games, res.meta)
    row = table[(table.strategy == search) & (table.seat == "all")].iloc[0]
    teams = registry.get_game(game).teams(players)
    fair = 1 / len(set(teams))
    return {"win": row["win_rate"], "lo": row["win_low"], "hi": row["win_high"], "fair": fair,
            "per_min": 60 * games / cpu, "cpu": cpu, "search": res.meta["search"][search],
            "name": search}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("part", choices=["cost", "strength"])
    ap.add_argument("--game", action="append", help="a game (repeatable; default: every game "
                    "with a determinize kernel)")
    ap.add_argument("--games", type=int, default=500, help="games a strength row")
    ap.add_argument("--positions", type=int, default=40, help="positions a cost row")
    ap.add_argument("--budgets", default="50,200,1000")
    ap.add_argument("--kinds", default="ismcts")
    ap.add_argument("--against", default="heuristic",
                    choices=["heuristic", "heuristic-v1", "random"],
                    help="the opponent: the game's heuristic (v2), its v1 (issue 12's "
                         "target), or random")
    ap.add_argument("--players", default="", help="player counts for --against random "
                    "(default: every count the game has)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rollout", choices=["auto", "random", "heuristic"],
                    help="cost: the rollout policy (default: the game's own default)")
    ap.add_argument("--weight", action="append", default=[],
                    help="strength: a knob, as simkit run takes it (ismcts.rollout_depth=0)")
    args = ap.parse_args()
    names = args.game or [g for g, s in registry.games().items()
                          if hasattr(s.rules, "determinize") and g not in ("trap",)]
    budgets = [b for b in args.budgets.split(",")]  # "default": the game's own budget
    if args.part == "cost":
        print(f"{'game':18} {'search':14} {'CPU-ms':>8} {'dec/CPU-s':>9} {'depth':>6} "
              f"{'deepest':>7} {'playout':>8} {'outside':>8} {'vs mc':>6}", flush=True)
        for game in names:
            sample = positions(game, args.positions)
            for budget in (int(b) for b in budgets if b != "default"):
                knobs = {"rollout": ROLLOUTS[args.rollout]} if args.rollout else {}
                mc = cost(game, "mc", budget, sample, knobs)
                for kind in args.kinds.split(","):
                    r = mc if kind == "mc" else cost(game, kind, budget, sample, knobs)
                    print(f"{game:18} {kind + '@' + str(budget):14} {r['ms']:8.2f} "
                          f"{r['per_s']:9.1f} {r['depth']:6.2f} {r['deepest']:7.0f} "
                          f"{r['playout']:8.1f} {r['outside']:8.1%} "
                          f"{r['ms'] / mc['ms']:6.2f}", flush=True)
        return
    print(f"{'game':18} {'P':>2} {'search':14} {'against':10} {'games':>6} {'wins':>7} "
          f"{'95% CI':>16} {'fair':>6} {'':4} {'games/CPU-min':>13} {'CPU-ms/dec':>10} "
          f"{'depth':>6} {'deepest':>7}", flush=True)
    for game in names:
        spec = registry.get_game(game)
        counts = [2] if args.against.startswith("heuristic") else (
            [int(c) for c in args.players.split(",")] if args.players else list(spec.players))
        against = args.against
        if against not in registry.strategies_for(game):
            against = "random"
        for players in counts:
            if players not in spec.players:
                continue
            for kind in args.kinds.split(","):
                for budget in budgets:
                    name = kind if budget == "default" else f"{kind}@{budget}"
                    r = strength(game, name, against, players, args.games, args.workers,
                                 args.weight)
                    name = r["name"]
                    ms = 1000 * r["cpu"] / max(r["search"]["decisions"], 1)
                    depth = r["search"]["mean_depth"]
                    verdict = "PASS" if r["lo"] > r["fair"] else "miss"
                    print(f"{game:18} {players:2} {name:14} {against:10} {args.games:6} "
                          f"{r['win']:7.1%} [{r['lo']:6.1%}, {r['hi']:6.1%}] "
                          f"{r['fair']:6.1%} {verdict:4} {r['per_min']:13.1f} {ms:10.1f} "
                          f"{depth if depth is not None else float('nan'):6.2f} "
                          f"{r['search']['max_depth']:7d}", flush=True)


if __name__ == "__main__":
    main()
