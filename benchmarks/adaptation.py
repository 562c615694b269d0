"""Adaptation, shown (issue 30): a card made clearly worse, and a model fine-tuned for it.

One card of a game is made far worse than its worth (by default War of the Wilds' Windfall,
a trick that forages 3 acorns, forages none: ``cards.windfall.amount=0``; ``--set`` gives
another change and ``--card`` the card whose use is counted). A change whose cost the
features show at once (a far higher price) needs no training: the default model already
stops playing the card (Mouse Militia at ``cost_any=6``: 0 plays a game); a card whose
worth lies in what it does later is the test. Then, all at 2 players on the same seeds:

1. ``simkit ... --train BUDGET`` fine-tunes the default model (the shipped one) on the
   changed game (``simkit.tune``: same seed, same model bytes);
2. self-play on the changed game by the default model (``--model-mismatch ok``), by the
   retrained model and by the heuristic, and by the default model and the heuristic on the
   game as it is (with ``--control``, also a model fine-tuned on the game as it is with the
   same budget and seed, on both games: the what-if's other side):
   the card's use per game (``CARD:EVENT`` summed over the seats), and the paired difference
   between the default and the retrained model, game by game on the same deals, with its
   95% interval (t), and their ratio;
3. the retrained model against the default model on the changed game: each seed played
   twice, seats swapped, both greedy; the retrained model's outright win rate (ties are not
   wins) with its 95% Wilson interval.

With ``--why N``, the first N self-play games of the default and of the retrained model on
the changed game are looked at again, decision by decision: where the card was one of several
legal moves, whether its move acts at once or first opens a decision of the seat's own (in War
of the Wilds, a payment of a cost in "any" cards from two kinds or more: the afterstate the
model values is then the pending payment, the card still in hand), how often it was played,
and the model's value of it against the other moves, as played and once the card has acted.

Every step is a folder under ``--out`` (a run folder, or the retrained model in simkit's
cache); run again, it plays only what is missing, and it prints each figure as it is
measured, so a stopped benchmark has printed its partial figures.

    python benchmarks/adaptation.py --train 4000g --games 500 --workers 1 --why 200
    python benchmarks/adaptation.py --game dolina-krolikow --set scoring.house_failed_basic=-6 \
        --card house --event drawn --train 4000g --games 500 --match-games 500 --control
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from simkit import data, registry, tune
from simkit.runner import RunSpec, is_complete, run_games


def use_per_game(folder: Path, column: str) -> np.ndarray:
    """The card's events per game (summed over the seats), in game order."""
    items = pq.read_table(folder / "items.parquet", columns=["game", column]).to_pandas()
    return items.groupby("game")[column].sum().sort_index().to_numpy(np.float64)


def t_interval(x: np.ndarray) -> tuple[float, float, float]:
    from scipy.stats import t

    m = float(x.mean())
    h = float(t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 \
        else float("inf")
    return m, m - h, m + h


def wilson(k: float, n: int) -> tuple[float, float]:
    z = 1.959964
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def play(name: str, run: RunSpec, out: Path, workers: int) -> Path:
    folder = out / name
    if not is_complete(folder, run):
        t0 = time.perf_counter()
        run_games(run, out=folder, workers=workers, overwrite=True)
        print(f"  ({name}: {run.games:,} games in {time.perf_counter() - t0:.0f} s)", flush=True)
    return folder


def head_to_head(game: str, over: dict, new, old, games: int, seed: int,
                 workers: int) -> dict:
    """``new`` against ``old`` on the changed game: each seed twice, seats swapped."""
    from simkit.rng import game_seeds
    from simkit.train import Table, stack_rows

    table = Table(game, 2, tuple(sorted((k, data.freeze(v)) for k, v in over.items())))
    pairs = games // 2
    seeds = np.repeat(game_seeds(seed, 0, pairs), 2)
    seat_rows = np.ones((2 * pairs, 2), np.int32)
    seat_rows[0::2, 0] = 0
    seat_rows[1::2, 1] = 0
    rows = stack_rows([table.row(new), table.row(old)])
    res = table.play(rows, seat_rows, seeds, record=False, workers=workers)
    won = ((res.shares == 1.0) & (seat_rows == 0)).any(axis=1)
    lo, hi = wilson(float(won.sum()), len(won))
    return {"games": int(len(won)), "win_rate": float(won.mean()), "lo": lo, "hi": hi}


PENDING_STEPS = 8
"""Sub-decisions of its own (a payment's cards, say) a move may open before the card acts."""


def card_move(rules, compiled, state, move, seat, col, chance, items):
    """How ``move`` plays the card (its ``col`` event for ``seat``) from ``state``: ("at
    once", the afterstate) when applying it fires the event; ("pending", the state once the
    card has acted) when it fires only after further decisions of the seat's own that the
    move opens (a payment in more than one way: completed here by their first legal move);
    else (None, None): not the card's move."""
    a = state.copy()
    items[:, :] = 0
    moves = np.empty(512, np.int32)
    rules.apply_move(compiled, a, move, chance.copy(), items)
    if items[seat, col] > 0:
        return "at once", a
    for _ in range(PENDING_STEPS):
        if rules.is_over(a) or int(rules.to_move(a)) != seat:
            break
        if rules.legal_moves(compiled, a, moves) < 1:
            break
        rules.apply_move(compiled, a, moves[0], chance.copy(), items)
        if items[seat, col] > 0:
            return "pending", a
    return None, None


def why(run: RunSpec, column: str, games: int) -> pd.DataFrame:
    """At each decision of the first ``games`` games of ``run`` (self-play by ``learned``)
    where a legal move plays the card (a move code that played it at once somewhere, see
    ``card_move``): the legal moves' count, whether the card was played there, whether its
    move acts at once or opens a decision of the seat's own first (a payment), and the
    model's value of it minus its value of the best other move and of the last legal move
    (the end of the step, in War of the Wilds)."""
    from simkit.replay import _play
    from simkit.rng import game_seeds, seed_streams
    from simkit.runner import plan
    from simkit.search import Workspace, load_search

    p = plan(run)
    rules = registry.get_game(run.game).rules
    n = run.players
    col = p.item_columns.index(column)
    module = load_search(run.game)
    ws = Workspace.make(p.search_nodes, n, p.state_size, p.max_moves, len(p.item_columns),
                        len(p.slots), p.learned_features)
    items = np.zeros((n, len(p.item_columns)), np.int32)
    legal = np.empty(p.max_moves, np.int32)
    obs = np.empty(p.state_size, np.int32)
    rows, codes = [], set()
    for g, seed in enumerate(game_seeds(run.seed, 0, games)):
        trace = _play(p, int(seed), [run.strategies[0]] * n)[0]
        streams = np.empty(1 + n, np.uint64)
        seed_streams(np.uint64(seed), n, streams)
        st = np.empty(p.state_size, np.int32)
        rules.new_game(p.compiled, n, st, streams[0:1])
        scratch = np.zeros_like(items)
        values_stream = streams[1:2].copy()
        for move in trace:
            k = int(rules.legal_moves(p.compiled, st, legal))
            seat = int(rules.to_move(st))
            found = []
            for j in range(k if k > 1 else 0):
                if not codes or int(legal[j]) in codes:
                    how, settled = card_move(rules, p.compiled, st, int(legal[j]), seat, col,
                                             streams[0:1], items)
                    if how:
                        found.append((j, how, settled))
            codes |= {int(legal[j]) for j, how, _ in found if how == "at once"}
            if found:
                rules.observe(p.compiled, st, seat, obs)
                module.learned_scores(p.compiled, obs, seat, legal[:k].copy(), k, p.weights[0],
                                      values_stream, n, p.max_turns, p.teams, ws.state,
                                      ws.after, ws.obs, ws.items, ws.scores, ws.ranks,
                                      ws.reward, ws.feat, ws.values)
                v = ws.values[:k].copy()
                for j, how, settled in found:
                    # the value the move would have if its afterstate showed the card acting
                    seen = module.afterstate_value(p.compiled, settled, seat, p.weights[0], n,
                                                   p.max_turns, p.teams, ws.obs, ws.scores,
                                                   ws.ranks, ws.reward, ws.feat)
                    rows.append({"game": g, "legal": k, "how": how,
                                 "played": int(legal[j]) == move,
                                 "minus_best_other": v[j] - np.delete(v, j).max(),
                                 "minus_last": v[j] - v[k - 1],
                                 "tied": int((v == v[j]).sum()) > 1,
                                 "settled_minus_last": seen - v[k - 1]})
            rules.apply_move(p.compiled, st, move, streams[0:1], scratch)
    return pd.DataFrame(rows)


def say_why(label: str, d, games: int) -> None:
    """One line per way the card's move acts: decisions, how often it was played, its
    value against the best other move."""
    if d.empty:
        print(f"{label}: the card was never one of several legal moves")
        return
    for how, part in d.groupby("how"):
        print(f"{label:32} {how:8} {len(part):6,} decisions, played in {part.played.sum():5,}"
              f" ({part.played.sum() / games:.3f} a game); value minus the best other move "
              f"{part.minus_best_other.mean():+.4f} (played: "
              f"{part[part.played].minus_best_other.mean():+.4f}); minus the last legal move "
              f"{part.minus_last.mean():+.4f}, above it in {(part.minus_last > 0).mean():.0%};"
              f" valued once the card has acted: {part.settled_minus_last.mean():+.4f}, above "
              f"it in {(part.settled_minus_last > 0).mean():.0%}; valued exactly as another "
              f"legal move in {part.tied.mean():.0%}", flush=True)


def paying(game: str):
    """A test of a state: is its seat in the middle of paying for a card it has played (the
    card not acted yet)? None for a game without such a step here."""
    if game != "war-of-the-wilds":
        return None
    from simkit.games.war_of_the_wilds.state import PH_PAY, PHASE

    return lambda state: state[PHASE] == PH_PAY


def settled_use(run: RunSpec, column: str, games: int, settle: bool, seed: int) -> np.ndarray:
    """The card's use a game in ``games`` self-play games of ``run``'s model, played by a
    Python loop (the model's values, its best move, ties at random): with ``settle``, a move
    that leaves its card to pay for is valued once the payment is made (its first legal
    choices) and the card has acted, not at the payment still to make. A what-if for a fix,
    not the kernels' play: without ``settle`` it plays as they do, on other streams."""
    from simkit.rng import game_seeds, seed_streams
    from simkit.runner import plan
    from simkit.search import Workspace, load_search

    p = plan(run)
    rules = registry.get_game(run.game).rules
    pending = paying(run.game)
    n = run.players
    col = p.item_columns.index(column)
    module = load_search(run.game)
    ws = Workspace.make(p.search_nodes, n, p.state_size, p.max_moves, len(p.item_columns),
                        len(p.slots), p.learned_features)
    ties = np.random.default_rng(seed)
    legal, more = np.empty(p.max_moves, np.int32), np.empty(p.max_moves, np.int32)
    obs, det, scratch = (np.empty(p.state_size, np.int32) for _ in range(3))
    uses = np.zeros(games)
    for g, game_seed in enumerate(game_seeds(seed, 0, games)):
        streams = np.empty(1 + n, np.uint64)
        seed_streams(np.uint64(game_seed), n, streams)
        st = np.empty(p.state_size, np.int32)
        rules.new_game(p.compiled, n, st, streams[0:1])
        items = np.zeros((n, len(p.item_columns)), np.int32)
        spent = np.zeros_like(items)
        while not rules.is_over(st) and rules.turn_number(st) < p.max_turns:
            k = int(rules.legal_moves(p.compiled, st, legal))
            seat = int(rules.to_move(st))
            move = legal[0]
            if k > 1:
                own = streams[1 + seat:2 + seat]
                rules.observe(p.compiled, st, seat, obs)
                module.learned_scores(p.compiled, obs, seat, legal[:k].copy(), k, p.weights[0],
                                      own, n, p.max_turns, p.teams, ws.state, ws.after, ws.obs,
                                      ws.items, ws.scores, ws.ranks, ws.reward, ws.feat,
                                      ws.values)
                v = ws.values[:k].copy()
                if settle:
                    rules.determinize(p.compiled, obs, seat, det, own, scratch)
                    for j in range(k):
                        a = det.copy()
                        rules.apply_move(p.compiled, a, legal[j], own, spent)
                        if not pending(a):
                            continue
                        for _ in range(PENDING_STEPS):
                            rules.legal_moves(p.compiled, a, more)
                            rules.apply_move(p.compiled, a, more[0], own, spent)
                            if not pending(a):
                                break
                        v[j] = module.afterstate_value(p.compiled, a, seat, p.weights[0], n,
                                                       p.max_turns, p.teams, ws.obs, ws.scores,
                                                       ws.ranks, ws.reward, ws.feat)
                best = np.flatnonzero(v == v.max())
                move = legal[best[ties.integers(len(best))]]
            rules.apply_move(p.compiled, st, move, streams[0:1], items)
        uses[g] = items[:, col].sum()
    return uses


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="war-of-the-wilds")
    ap.add_argument("--set", dest="sets", action="append",
                    help="the change (repeatable; default cards.windfall.amount=0)")
    ap.add_argument("--card", default="windfall")
    ap.add_argument("--event", default="played")
    ap.add_argument("--train", default="4000g", help="the fine-tuning's budget (--train)")
    ap.add_argument("--games", type=int, default=500, help="games a self-play run")
    ap.add_argument("--match-games", type=int, default=500,
                    help="games of retrained against default model")
    ap.add_argument("--seed", type=int, default=2031)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--control", action="store_true",
                    help="also fine-tune the default model on the game as it is (same budget "
                         "and seed: the what-if's other side) and count its use")
    ap.add_argument("--why", type=int, default=0, metavar="N",
                    help="also look at N games of each model's self-play on the changed game: "
                         "where the card was one of several legal moves, how its move acts "
                         "(at once, or after a payment of its own) and its value")
    ap.add_argument("--settled", type=int, default=0, metavar="N",
                    help="War of the Wilds: also play N games of the default model on each "
                         "game by a Python loop, as the kernels play and with each card play "
                         "valued once its payment is made (what a fix of the pending payment "
                         "would do)")
    a = ap.parse_args()
    sets = a.sets or ["cards.windfall.amount=0"]
    over = data.parse_overrides(sets)
    column = f"{a.card}:{a.event}"
    out = a.out or Path("runs") / f"adaptation-{a.game}-s{a.seed}"
    out.mkdir(parents=True, exist_ok=True)
    spec = registry.get_game(a.game)
    print(f"{a.game}, 2 players, changed: {', '.join(sets)}; counting {column}; seed {a.seed}",
          flush=True)
    started, cpu = time.perf_counter(), time.process_time()

    plan = tune.plan_tuning(a.game, 2, over, tune.parse_budget(a.train), a.seed)
    default = plan.base.model
    print(f"default model {default.digest[:12]} ({plan.base.source}); {plan.describe()}"
          + ("" if plan.done else f", about {plan.estimate_seconds(a.workers):.0f} s"),
          flush=True)
    new = plan.train(a.workers, lambda text: print(f"  {text}", flush=True))
    gen = new.card["training"]["generation"]
    print(f"retrained model {new.digest[:12]}: generation {gen} of its training "
          f"({'the default model was never beaten' if not gen else 'accepted'})", flush=True)
    (out / "models.json").write_text(json.dumps({"default": default.digest,
                                                 "retrained": new.digest,
                                                 "retrained_file": str(plan.out)}, indent=1))

    def run(strategy: str, model, changed: bool) -> RunSpec:
        models = {"learned": model} if strategy == "learned" else None
        return RunSpec.make(a.game, 2, a.games, a.seed, [strategy], over if changed else {},
                            True, model_mismatch=True, models=models)

    control = []
    if a.control:  # the what-if's other side: the same fine-tuning on the game as it is
        same = tune.plan_tuning(a.game, 2, {}, tune.parse_budget(a.train), a.seed)
        print(f"control: {same.describe()} (the game as it is)", flush=True)
        kept = same.train(a.workers, lambda text: print(f"  {text}", flush=True))
        control = [("control model, game as it is", "control-as-is", run("learned", kept, False)),
                   ("control model, changed game", "control-changed",
                    run("learned", kept, True))]
    rows = [("default model, game as it is", "default-as-is", run("learned", default, False)),
            ("default model, changed game", "default-changed", run("learned", default, True)),
            ("retrained model, changed game", "retrained-changed", run("learned", new, True)),
            (f"{spec.strong}, changed game", "strong-changed", run(spec.strong, None, True))]
    if spec.strong != "heuristic" and "heuristic" in registry.strategies_for(a.game):
        rows.append(("heuristic, changed game", "heuristic-changed",
                     run("heuristic", None, True)))
    rows += [("heuristic, game as it is", "heuristic-as-is", run("heuristic", None, False))] \
        if "heuristic" in registry.strategies_for(a.game) else []
    rows += control
    uses = {}
    print(f"\n{'self-play (' + column + ' a game)':40} {'mean':>8} {'95% interval':>18}")
    for label, name, r in rows:
        uses[name] = use_per_game(play(name, r, out, a.workers), column)
        m, lo, hi = t_interval(uses[name])
        print(f"{label:40} {m:8.3f} [{lo:7.3f}, {hi:7.3f}]", flush=True)
    if a.why:
        print(f"\nwhere the card was one of several legal moves ({a.why} games of each):")
        for label, name, r in rows:
            if name in ("default-changed", "retrained-changed"):
                say_why(label, why(r, column, a.why), a.why)
    if a.settled and not paying(a.game):
        print(f"\n--settled: {a.game} has no payment step known here (only war-of-the-wilds "
              "has); skipped", flush=True)
    if a.settled and paying(a.game):
        print(f"\nthe default model valuing a card play once paid ({a.settled} games a row, "
              "a Python loop):")
        for label, name, r in rows:
            if name in ("default-as-is", "default-changed"):
                for settle in (False, True):
                    m, lo, hi = t_interval(settled_use(r, column, a.settled, settle,
                                                       a.seed + 2))
                    how = "once paid" if settle else "as played"
                    print(f"{label + ', ' + how:40} {m:8.3f} [{lo:7.3f}, {hi:7.3f}]",
                          flush=True)
    d = uses["default-changed"] - uses["retrained-changed"]
    m, lo, hi = t_interval(d)
    before, after = uses["default-changed"].mean(), uses["retrained-changed"].mean()
    half = "at most half" if after <= before / 2 else "more than half"
    ratio = (f"{after / before:.2f} times as often ({half})" if before > 0
             else "(the default model does not use it at all)")
    print(f"\ndefault minus retrained on the changed game, paired by deal: {m:+.3f} "
          f"[{lo:+.3f}, {hi:+.3f}] a game (interval {'excludes' if lo > 0 or hi < 0 else 'holds'}"
          f" 0); the retrained model uses it {ratio}", flush=True)
    if a.control:
        d = uses["control-as-is"] - uses["retrained-changed"]
        m, lo, hi = t_interval(d)
        print(f"what-if, each side its own fine-tuned model: {m:+.3f} [{lo:+.3f}, {hi:+.3f}] "
              "fewer a game on the changed game than on the game as it is", flush=True)
    h = head_to_head(a.game, over, new, default, a.match_games, a.seed + 1, a.workers)
    print(f"retrained against default model on the changed game: won {h['win_rate']:.1%} "
          f"[{h['lo']:.1%}, {h['hi']:.1%}] of {h['games']:,} (seats swapped; ties not won): "
          f"{'beats it' if h['lo'] > 0.5 else 'does not clearly beat it'}", flush=True)
    print(f"\nwall {time.perf_counter() - started:.0f} s, CPU {time.process_time() - cpu:.0f} s "
          "(this process; a training that was already done is not counted)")


if __name__ == "__main__":
    main()
