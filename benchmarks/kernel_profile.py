"""Where a game's random self-play spends its time, kernel by kernel, on one core.

It plays ``--games`` random games (the same games the engine plays with seed 1) in the bare
loop of benchmarks/bare_loop.py, with the processor's cycle counter read around each
kernel call, and prints nanoseconds a decision and the share of the whole loop for
``legal_moves``, ``apply_move``, ``to_move`` with ``is_over``, the random draw and, once a
game, ``new_game`` and ``finish`` (spread over the game's decisions). The cost of reading
the counter is measured and taken off. The kernels run as they do in the engine, on borrowed
arrays and a state that is in the cache, so the figures add up to the loop's own time
(``the rest`` is the loop, with most of the counter's own cost).

With the game's ``phase`` kernel, both are also split by phase, with the legal moves a
decision has on average. ``apply_move`` is also split by the move's value, in buckets of
``move >> --shift``: a game whose moves encode their kind in their high bits (or in ranges,
with a shift of 6 to 8) shows which kind of move is dear. The dearest buckets are printed first.

    python benchmarks/kernel_profile.py                      # every game, 2 players
    python benchmarks/kernel_profile.py --game rabbit-hunt --players 4 --shift 16
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from simkit.jit import borrow, borrow_all  # noqa: E402
from simkit.rng import game_seeds, rand_below, seed_streams  # noqa: E402

N_BUCKETS = 4096


@intrinsic
def cycles(typingctx):
    """The processor's cycle counter (``llvm.readcyclecounter``)."""
    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), []),
                                            "llvm.readcyclecounter")
        return builder.call(fn, [])
    return types.uint64(), codegen


@njit
def counter_cost(n):
    """Cycles of an empty interval between two reads of the counter (the least of n)."""
    least = np.uint64(1 << 40)
    for _ in range(n):
        a = cycles()
        b = cycles()
        if b - a < least:
            least = b - a
    return least


@njit
def cycles_for(n):
    a = cycles()
    s = 0
    for i in range(n):
        s += i & 3
    return cycles() - a, s


def make_loop(rules):
    new_game, legal_moves, apply_move = rules.new_game, rules.legal_moves, rules.apply_move
    is_over, to_move, finish = rules.is_over, rules.to_move, rules.finish
    if hasattr(rules, "phase"):
        phase = rules.phase
    else:
        @njit
        def phase(params, state):
            return 0

    @njit
    def play(params, n_players, seeds, state, moves, streams, items, scores, ranks, shift,
             spent, by_bucket, count_bucket, by_phase):
        """Random games, with the cycles of each kind of call added up in ``spent``:
        0 all, 1 legal_moves, 2 apply_move, 3 to_move + is_over, 4 draw, 5 new_game,
        6 finish, 7 decisions. The arrays are borrowed, as the engine's driver does (no
        reference counts: see ``simkit.jit.borrow``)."""
        params = borrow_all(params)
        state = borrow(state)
        moves = borrow(moves)
        streams = borrow(streams)
        items = borrow(items)
        scores = borrow(scores)
        ranks = borrow(ranks)
        t_all = cycles()
        for g in range(seeds.shape[0]):
            seed_streams(seeds[g], n_players, streams)
            chance = streams[0:1]
            items[:, :] = 0
            a = cycles()
            new_game(params, n_players, state, chance)
            spent[5] += cycles() - a
            while True:
                a = cycles()
                over = is_over(state)
                seat = to_move(state)
                spent[3] += cycles() - a
                if over:
                    break
                ph = min(phase(params, state), by_phase.shape[0] - 1)
                a = cycles()
                n = legal_moves(params, state, moves)
                c = cycles() - a
                spent[1] += c
                by_phase[ph, 0] += c
                by_phase[ph, 1] += n
                k = 0
                if n > 1:
                    a = cycles()
                    k = rand_below(streams[1 + seat:2 + seat], n)
                    spent[4] += cycles() - a
                m = moves[k]
                a = cycles()
                apply_move(params, state, m, chance, items)
                c = cycles() - a
                spent[2] += c
                by_phase[ph, 2] += c
                by_phase[ph, 3] += 1
                b = min(m >> shift, by_bucket.shape[0] - 1)
                by_bucket[b] += c
                count_bucket[b] += 1
                spent[7] += 1
            a = cycles()
            finish(params, state, scores, ranks)
            spent[6] += cycles() - a
        spent[0] += cycles() - t_all

    return play


def profile(game: str, players: int, games: int, shift: int, top: int) -> None:
    from simkit import registry
    from simkit.runner import RunSpec, plan

    spec = registry.get_game(game)
    p = plan(RunSpec.make(game, players, games, seed=1, strategies="random"))
    play = make_loop(spec.rules)
    empty = int(counter_cost(100_000))
    cycles_for(10)  # compile it before timing it
    t0 = time.perf_counter()
    ticks, _ = cycles_for(50_000_000)
    hz = ticks / (time.perf_counter() - t0)

    def run(count):
        spent = np.zeros(8, np.uint64)
        by = np.zeros(N_BUCKETS, np.uint64)
        nb = np.zeros(N_BUCKETS, np.int64)
        ph = np.zeros((16, 4), np.uint64)
        play(p.compiled, players, game_seeds(1, 0, count), np.empty(p.state_size, np.int32),
             np.empty(p.max_moves, np.int32), np.empty(1 + players, np.uint64),
             np.zeros((players, len(p.item_columns)), np.int32),
             np.empty(players, np.float64), np.empty(players, np.int32), shift, spent, by, nb, ph)
        return spent.astype(np.float64), by.astype(np.float64), nb, ph.astype(np.float64)

    run(10)  # compile
    spent, by, nb, by_phase = run(games)
    d = spent[7]
    calls = {1: d, 2: d, 3: d + games, 5: games, 6: games}
    ns = 1e9 / hz / d
    print(f"\n{game}, {players} players: {games:,} random games, {int(d):,} decisions "
          f"({d / games:.1f} a game), state {p.state_size} int32, up to {p.max_moves} moves; "
          f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"  {'':22} {'ns/decision':>11} {'share':>6}")
    total = spent[0]
    names = {1: "legal_moves", 2: "apply_move", 3: "to_move + is_over", 4: "random draw",
             5: "new_game", 6: "finish"}
    rest = total
    for i, name in names.items():
        net = max(spent[i] - calls.get(i, 0) * empty, 0.0)
        rest -= spent[i]
        print(f"  {name:22} {net * ns:>11.1f} {net / total:>6.0%}")
    print(f"  {'the rest (the loop)':22} {rest * ns:>11.1f} {rest / total:>6.0%}")
    print(f"  {'all':22} {total * ns:>11.1f}   ({games / (total / hz):,.0f} games/s on one "
          "core, with the counter)")
    if spec.has_phases:
        print("  by phase (ns a call; legal moves on average; share of decisions):")
        for i, name in enumerate(spec.phases):
            k = by_phase[i, 3]
            if k:
                print(f"    {name:18} legal_moves {(by_phase[i, 0] / k - empty) * 1e9 / hz:>7.1f} "
                      f"ns ({by_phase[i, 1] / k:>5.1f} moves)  apply_move "
                      f"{(by_phase[i, 2] / k - empty) * 1e9 / hz:>7.1f} ns  {k / d:>6.1%}")
    order = np.argsort(-by)
    print(f"  apply_move by move >> {shift}, dearest first (ns a move, share of moves, share "
          "of apply_move's time):")
    for b in order[:top]:
        if nb[b] == 0:
            break
        print(f"    {int(b) << shift:>9}.. {(by[b] / nb[b] - empty) * 1e9 / hz:>8.1f} ns "
              f"{nb[b] / d:>6.1%} {by[b] / spent[2]:>6.1%}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--shift", type=int, default=6)
    ap.add_argument("--top", type=int, default=12)
    args = ap.parse_args()
    from simkit import registry

    names = [args.game] if args.game else list(registry.games())
    for g in names:
        if args.players in registry.get_game(g).players:
            profile(g, args.players, args.games, args.shift, args.top)


if __name__ == "__main__":
    main()
