"""Replay one game from its seed: the moves the strategies made (recorded by the very loop
that plays batches) are applied again one by one, and the game describes each."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simkit import registry
from simkit.errors import SimkitError
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


TOP_MOVES = 3
"""How many of a search decision's best moves a replay shows."""


CHOICE_SEED = 0x5EA4C4
"""The seed of the determinisation a search summary's candidates are played on."""


def choice_text(p: Plan, state: np.ndarray, seat: int, move: int, seed: int = CHOICE_SEED
                ) -> str:
    """``move`` as ``seat`` saw it while choosing, for a line of a search summary: from the
    seat's observation of ``state`` alone, as the search saw it. The game's
    ``describe_choice`` gets that observation and the move played on one determinisation of
    it (dealt from ``seed``, with chance from a stream of its own), so an unseen card or a
    chance outcome never comes from the true state; the game says only what the
    observation and the move decide. A game without that hook gets the move's number."""
    obs = np.empty(p.state_size, np.int32)
    registry.get_game(p.run.game).rules.observe(p.compiled, state, seat, obs)
    return choice_text_seen(p, obs, seat, move, seed)


def choice_text_seen(p: Plan, obs: np.ndarray, seat: int, move: int, seed: int = CHOICE_SEED
                     ) -> str:
    """``choice_text`` from ``seat``'s observation ``obs`` itself."""
    spec = registry.get_game(p.run.game)
    rules, n = spec.rules, p.run.players
    if spec.describe_choice is None or not hasattr(rules, "determinize"):
        return f"move {move}"
    streams = np.empty(1 + n, np.uint64)
    seed_streams(np.uint64(seed), n, streams)
    after = np.empty_like(obs)
    rules.determinize(p.compiled, obs, seat, after, streams[0:1], np.empty_like(obs))
    rules.apply_move(p.compiled, after, move, streams[1:2],
                     np.zeros((n, max(1, len(p.item_columns))), np.int32))
    return spec.describe_choice(p.compiled, n, obs, move, after)


class _Searches:
    """The run's search seats, decided again from Python at each of their decisions (their
    streams are theirs alone, so this replays them exactly) to show what each search found:
    its best moves with their visits and mean rewards."""

    def __init__(self, p: Plan, names: list[str]):
        from simkit.search import KERNELS, Workspace, load_search

        specs = registry.strategies_for(p.run.game)
        self.p = p
        self.rules = registry.get_game(p.run.game).rules
        self.kind = {}
        for seat, name in enumerate(names):
            base = registry.split_budget(name)[0]
            if specs[base].searches:
                self.kind[seat] = specs[base].search
        if not self.kind:
            return
        module = load_search(p.run.game)
        self.kernels = {k: getattr(module, KERNELS[k]) for k in set(self.kind.values())}
        self.slots = [p.slots.index(nm) for nm in names]
        self.ws = Workspace.make(p.search_nodes, p.run.players, p.state_size, p.max_moves,
                                 len(p.item_columns), len(p.slots), p.learned_features)
        self.obs = np.empty(p.state_size, np.int32)

    def decide(self, seat: int, state: np.ndarray, moves: np.ndarray, n_moves: int,
               streams: np.ndarray):
        """(chosen index, root moves) of ``seat``'s search, or None for a seat that does
        not search."""
        if seat not in self.kind:
            return None
        from simkit.search import call_search, root_moves

        p, ws, slot = self.p, self.ws, self.slots[seat]
        self.rules.observe(p.compiled, state, seat, self.obs)
        kind = self.kind[seat]
        k = call_search(self.kernels[kind], kind, ws, slot, p.compiled, self.obs, seat, moves,
                        n_moves, p.weights[slot], streams[1 + seat:2 + seat], p.run.players,
                        p.max_turns, p.teams, p.rollout_weights)
        return int(k), root_moves(self.kind[seat], ws, moves, n_moves, seat)


def _search_lines(p: Plan, state: np.ndarray, seat: int, legal: np.ndarray,
                  root: list[tuple[int, int, float]]) -> list[str]:
    """A search decision's summary: its visits and its best moves, each told as the seat
    saw it (``choice_text``)."""
    total = sum(v for _, v, _ in root)
    out = [f"      search: {total} visits over {len(root)} moves; best:"]
    for j, visits, mean in root[:TOP_MOVES]:
        out.append(f"        {visits:>6} visits, mean reward {mean:.3f}: "
                   f"{choice_text(p, state, seat, int(legal[j]))}")
    return out


def _play(p: Plan, seed: int, names: list[str]):
    """Play the game of ``seed`` with ``names`` seated by the run's own loop: (every move
    played, end reason code, turns, decisions, ranks, scores)."""
    from simkit.runner import workspace

    n = p.run.players
    codes = np.array([p.slots.index(s) for s in names], dtype=np.int32)
    cap = max(10_000, p.max_turns * 200)
    trace = np.full(cap, -1, dtype=np.int32)
    state = np.empty(p.state_size, np.int32)
    obs = np.empty(p.state_size, np.int32)
    moves = np.empty(p.max_moves, np.int32)
    items = np.zeros((n, len(p.item_columns)), np.int32)
    scores = np.zeros(n, np.float64)
    ranks = np.zeros(n, np.int32)
    _, arrays = workspace(p)
    end, turns, decisions = p.driver.module.play_game(
        p.compiled, n, np.uint64(seed), codes, p.kernels, p.weights, p.max_turns,
        state, obs, moves, items, scores, ranks, trace, arrays)
    if decisions > cap:
        raise RuntimeError(f"game has {decisions} decisions, more than the replay keeps")
    return trace[:decisions].tolist(), end, turns, decisions, ranks, scores


def state_at(p: Plan, seed: int, names: list[str], decision: int) -> tuple[np.ndarray, int,
                                                                           int]:
    """The true state of the game of ``seed`` (``names`` seated) just before its decision
    number ``decision`` (from 1, as a replay numbers them), the seat to move there and the
    move it played."""
    played = _play(p, seed, names)[0]
    if not 1 <= decision <= len(played):
        raise SimkitError(f"the decision must be a number from 1 to {len(played):,} (the "
                          f"game's decisions), not {decision!r}")
    rules = registry.get_game(p.run.game).rules
    streams = np.empty(1 + p.run.players, np.uint64)
    seed_streams(np.uint64(seed), p.run.players, streams)
    st = np.empty(p.state_size, np.int32)
    rules.new_game(p.compiled, p.run.players, st, streams[0:1])
    scratch = np.zeros((p.run.players, max(1, len(p.item_columns))), np.int32)
    for move in played[:decision - 1]:
        rules.apply_move(p.compiled, st, move, streams[0:1], scratch)
    return st, int(rules.to_move(st)), played[decision - 1]


def replay_game(p: Plan, seed: int, seat_strategies: list[str] | None = None) -> Replay:
    """Replay the game with ``seed`` under ``p``'s settings; ``seat_strategies`` (one per
    seat) as the run's row recorded them, by default the run's own seat order. At a search
    seat's decision it also shows the search's best moves (visits, mean reward)."""

    spec = registry.get_game(p.run.game)
    n = p.run.players
    names = list(seat_strategies or p.run.strategies)
    for name in names:
        if name not in p.slots:
            raise SimkitError(f"strategy {name!r} is not one of this run's: "
                              f"{', '.join(p.slots)}")
    played, end, turns, decisions, ranks, scores = _play(p, seed, names)

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
    searches = _Searches(p, names)
    legal = np.empty(p.max_moves, np.int32)
    scratch = np.zeros((n, len(p.item_columns)), np.int32)
    for k, move in enumerate(played):
        before = st.copy()
        seat = int(rules.to_move(st))
        found = None
        if searches.kind:
            n_legal = int(rules.legal_moves(p.compiled, st, legal))
            if n_legal > 1:
                found = searches.decide(seat, st, legal, n_legal, streams)
                if found is not None and int(legal[found[0]]) != move:
                    raise RuntimeError(f"the replayed search of {seat_label(seat)} chose "
                                       f"another move at decision {k + 1}")
        rules.apply_move(p.compiled, st, move, chance, scratch)
        text = (spec.describe_move(p.compiled, n, before, move, st.copy())
                if spec.describe_move is not None else [f"move {move}"])
        lines.append(f"[{k + 1}] {seat_label(seat)}: {text[0] if text else ''}")
        if found is not None:
            # right under the decision: the move's later lines may already head the next
            # seat's turn
            lines += _search_lines(p, before, seat, legal, found[1])
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


def replay_recorded(run_dir, game_index: int, model_weights=()) -> Replay:
    """Replay game ``game_index`` of the run folder ``run_dir`` as it was played (its
    strategies by seat, data and weights from run.json; ``model_weights``: the
    ``--weight SLOT.model=FILE`` of its learned seats), and check that it ends as its row
    says (a SimkitError otherwise: the game changed since). ``simkit replay --run`` and the
    workbench's replay viewer both call it."""
    from simkit.results import check_run, read_game_row, seat_column
    from simkit.runner import RunSpec

    meta = check_run(run_dir)
    done = meta["games_completed"]
    if not 0 <= game_index < max(done, 1):
        raise SimkitError(f"--game must be a game index from 0 to {done - 1:,} in "
                          f"{run_dir}, not {game_index:,}")
    rows = read_game_row(run_dir, game_index)
    if rows.empty:
        raise SimkitError(f"{run_dir} has no game {game_index} "
                          f"(it has {meta['games_completed']:,})")
    row = rows.iloc[0]
    n = int(meta["players"])
    names = [str(row[seat_column("strategy", s + 1)]) for s in range(n)]
    spec_run = RunSpec.make(meta["game"], n, 1, 0, names, meta["overrides"], False,
                            [f"{s}.{k}={v}" for s, w in meta["strategy_weights"].items()
                             for k, v in w.items()] + list(model_weights),
                            model_mismatch=bool(meta.get("model_mismatch")))
    r = replay_game(plan(spec_run), int(row["seed"]), names)
    recorded = [int(row[seat_column("rank", s + 1)]) for s in range(n)]
    if r.end_reason != row["end_reason"] or r.ranks != recorded or r.turns != row["turns"]:
        raise SimkitError(f"replay ended {r.end_reason} with ranks {r.ranks} after "
                          f"{r.turns} turns, but the row says {row['end_reason']}, "
                          f"{recorded}, {row['turns']}: was the game changed since?")
    return r


def folder_models(folder, weights=()) -> list[str]:
    """``--weight SLOT.model=FILE`` for each learned slot of the run in ``folder`` (its
    run.json's ``models``, copied into it), unless ``weights`` give one: a run resumes, or
    replays, with the models it was played with."""
    import json
    from pathlib import Path

    try:
        meta = json.loads((Path(folder) / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    models = meta.get("models") if isinstance(meta, dict) else None
    given = {w.partition("=")[0].strip() for w in weights}
    out = []
    for slot, m in (models or {}).items():
        if isinstance(m, dict) and f"{slot}.model" not in given \
                and f"{slot.partition('@')[0]}.model" not in given:
            out.append(f"{slot}.model={Path(folder) / m.get('file', f'models/{slot}.npz')}")
    return out


def run_game(folder, game_index: int):
    """The game ``game_index`` of the run folder ``folder`` as it was played: (a RunSpec of
    the run's game, players, data, weights and models, seating the row's strategies without
    rotation; the row; the strategy of each seat), or one line naming what is wrong."""
    from pathlib import Path

    from simkit.results import check_run, read_game_row, seat_column
    from simkit.runner import RunSpec

    folder = Path(folder)
    meta = check_run(folder)
    done = meta["games_completed"]
    if not isinstance(game_index, int) or not 0 <= game_index < max(done, 1):
        raise SimkitError(f"the game must be an index from 0 to {done - 1:,} in {folder}, "
                          f"not {game_index!r}")
    rows = read_game_row(folder, game_index)
    if rows.empty:
        raise SimkitError(f"{folder} has no game {game_index} (it has {done:,})")
    row = rows.iloc[0]
    n = int(meta["players"])
    names = [str(row[seat_column("strategy", s + 1)]) for s in range(n)]
    run = RunSpec.make(meta["game"], n, 1, 0, names, meta["overrides"], False,
                       [f"{s}.{k}={v}" for s, w in meta["strategy_weights"].items()
                        for k, v in w.items()] + folder_models(folder, ()),
                       model_mismatch=bool(meta.get("model_mismatch")))
    return run, row, names
