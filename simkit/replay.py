"""Replay one game from its seed: the moves the strategies made (recorded by the very loop
that plays batches) are applied again one by one, and the game describes each."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simkit import registry
from simkit.rng import seed_streams
from simkit.runner import Plan, plan


@dataclass
class Replay:
    seed: int
    strategies: tuple[str, ...]
    moves: list[int]
    end_reason: str
    ranks: list[int]
    scores: list[float]
    turns: int
    lines: list[str]


def seat_label(seat: int) -> str:
    return f"P{seat + 1}"


def replay_game(p: Plan, seed: int, seat_strategies: list[str] | None = None) -> Replay:
    """Replay the game with ``seed`` under ``p``'s settings; ``seat_strategies`` (one per
    seat) as the run's row recorded them, by default the run's own seat order."""
    spec = registry.get_game(p.run.game)
    n = p.run.players
    names = list(seat_strategies or p.run.strategies)
    codes = np.array([p.driver.code(s) for s in names], dtype=np.int32)
    cap = max(10_000, p.max_turns * 200)
    trace = np.full(cap, -1, dtype=np.int32)
    state = np.empty(p.state_size, np.int32)
    obs = np.empty(p.state_size, np.int32)
    moves = np.empty(p.max_moves, np.int32)
    items = np.zeros((n, len(spec.item_columns)), np.int32)
    scores = np.zeros(n, np.float64)
    ranks = np.zeros(n, np.int32)
    end, turns, decisions = p.driver.module.play_game(
        p.compiled, n, np.uint64(seed), codes, p.driver.needs_obs, p.weights, p.max_turns,
        state, obs, moves, items, scores, ranks, trace)
    if decisions > cap:
        raise RuntimeError(f"game has {decisions} decisions, more than the replay keeps")
    played = trace[:decisions].tolist()

    lines = [f"{spec.name} v{spec.version}, {n} players, seed {seed}",
             "seats: " + ", ".join(f"{seat_label(s)}={names[s]}" for s in range(n))]
    streams = np.empty(1 + n, np.uint64)
    seed_streams(np.uint64(seed), n, streams)
    chance = streams[0:1]
    rules = spec.rules
    st = np.empty(p.state_size, np.int32)
    rules.new_game(p.compiled, n, st, chance)
    if spec.describe_setup is not None:
        lines += spec.describe_setup(p.compiled, n, st.copy())
    scratch = np.zeros_like(items)
    for k, move in enumerate(played):
        before = st.copy()
        seat = int(rules.to_move(st))
        rules.apply_move(p.compiled, st, move, chance, scratch)
        text = (spec.describe_move(p.compiled, n, before, move, st.copy())
                if spec.describe_move is not None else [f"move {move}"])
        lines.append(f"[{k + 1}] {seat_label(seat)}: {text[0] if text else ''}")
        lines += [f"      {t}" for t in text[1:]]
    reason = spec.end_reasons[end]
    winners = [seat_label(s) for s in range(n) if ranks[s] == 1]
    lines.append(f"end: {reason} after {turns} turns and {decisions} decisions; "
                 f"winner(s): {', '.join(winners) or 'none'}; "
                 f"scores: {', '.join(f'{seat_label(s)}={scores[s]:g}' for s in range(n))}")
    return Replay(seed, tuple(names), played, reason, ranks.tolist(), scores.tolist(),
                  int(turns), lines)


def replay(game: str, players: int, seed: int, strategies="random", overrides=None,
           weights=None) -> Replay:
    """Replay a single game by its recorded seed (strategies per seat as in its row)."""
    from simkit.runner import RunSpec, check_seed

    check_seed(seed)
    run = RunSpec.make(game, players, 1, 0, strategies, overrides, rotate=False,
                       weights=weights)
    return replay_game(plan(run), seed)
