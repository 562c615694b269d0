"""Advice from Python: the move a strategy would play at a decision, and how it rates every
legal move (docs/search.md, "Advice").

``simkit.advice(game, observation, seat, strategy)`` decides from the seat's observation
alone (as ``observe`` gives it): the legal moves are those of one determinisation of it
(the seat knows its options), and the strategy decides as it does in a run, drawing only
from a stream of ``seed``. So two true states that the seat cannot tell apart get the same
advice, and the advice says nothing the seat could not know. ``simkit.advice_at(run folder,
game index, decision)`` takes the position from a recorded game (the decision numbered as
``simkit replay`` numbers them) and, by default, asks the strategy that played it.

A search (``mc``, ``ismcts``, ``ismcts+learned``) rates each move by its visits and its mean
reward for the seat (score shares, 0 to 1); ``learned`` by its score: with a model that
has a policy, the policy's score of the move (its logit times the temperature it was
distilled at, in score shares: only differences between moves mean something), else the
model's value (the seat's expected score share after the move); any other strategy gives its
move alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simkit import registry
from simkit.errors import SimkitError
from simkit.rng import seed_streams

ADVICE_SEED = 0
"""The default seed of an advice's stream (its determinisations, its playouts)."""


@dataclass(frozen=True)
class Rating:
    """One legal move as the strategy rated it: ``visits`` and ``mean_reward`` for a
    search (None for a move it never tried), ``value`` for ``learned``."""

    move: int
    label: str
    visits: int | None = None
    mean_reward: float | None = None
    value: float | None = None


@dataclass(frozen=True)
class Advice:
    """The move ``strategy`` would play for ``seat`` (its code ``move``, told as the seat
    sees it in ``label``) and its ``ratings`` of every legal move, the best first.
    ``played`` is the move the recorded game played there (``advice_at``), else None."""

    game: str
    players: int
    seat: int
    strategy: str
    move: int
    label: str
    ratings: tuple[Rating, ...]
    played: int | None = None

    def table(self):
        """The ratings as a pandas DataFrame, a row a legal move, the best first."""
        import pandas as pd

        return pd.DataFrame([{"move": r.move, "label": r.label, "visits": r.visits,
                              "mean_reward": r.mean_reward, "value": r.value,
                              "chosen": r.move == self.move} for r in self.ratings])

    def __str__(self) -> str:
        head = f"P{self.seat + 1} ({self.strategy}) would play: {self.label}"
        lines = [head]
        for r in self.ratings:
            how = []
            if r.visits is not None:
                how.append(f"{r.visits:>6} visits")
                how.append("mean reward " + ("  -  " if r.mean_reward is None
                                              else f"{r.mean_reward:.3f}"))
            if r.value is not None:
                how.append(f"value {r.value:.3f}")
            lines.append(f"  {', '.join(how) + ': ' if how else ''}{r.label}")
        return "\n".join(lines)


def advice(game: str, observation, seat: int, strategy: str = "ismcts+learned", *,
           players: int = 2, seed: int = ADVICE_SEED, weights=None, overrides=None,
           model_mismatch: bool = False) -> Advice:
    """What ``strategy`` would play for ``seat`` from its ``observation`` (int32[state],
    the game's ``observe`` of a position for that seat) in a ``players``-player game of
    ``game`` (data ``overrides``, strategy ``weights`` as ``simkit run`` takes them), and how
    it rates every legal move. Reproducible: the same seed gives the same advice."""
    from simkit.runner import RunSpec, check_seed, plan

    check_seed(seed)
    run = RunSpec.make(game, players, 1, 0, [strategy] * players, overrides, False, weights,
                       model_mismatch=model_mismatch)
    return _advise(plan(run), observation, seat, seed)


def advice_at(folder, game_index: int, decision: int, strategy: str | None = None, *,
              seed: int = ADVICE_SEED, weights=None) -> Advice:
    """``advice`` at decision ``decision`` (from 1, as ``simkit replay`` numbers them) of
    game ``game_index`` of the run folder ``folder``, for the seat that moved there, from
    its observation: by the strategy that played it (its weights and model as in the run),
    or by ``strategy`` on the run's data. ``played`` is the move the game played."""
    from simkit.replay import folder_models, run_game, state_at
    from simkit.runner import RunSpec, check_seed, plan

    check_seed(seed)
    run, row, names = run_game(folder, game_index)
    p = plan(run)
    state, seat, played = state_at(p, int(row["seed"]), names, decision)
    obs = np.empty(p.state_size, np.int32)
    registry.get_game(run.game).rules.observe(p.compiled, state, seat, obs)
    if strategy is not None or weights:
        # the run's weights of that strategy (and of the heuristic its playouts play), then
        # the ones given
        name = strategy or names[seat]
        base = registry.split_budget(name)[0]
        keep = {name, base} | ({"heuristic"} if registry.strategies_for(run.game)[base].searches
                               else set())
        mine = [f"{s}.{k}={v}" for s, k, v in run.weights if s in keep]
        mine += [w for w in folder_models(folder, weights or ())
                 if w.partition(".model=")[0] in keep]
        run = RunSpec.make(run.game, run.players, 1, 0, [name] * run.players,
                           dict(run.overrides), False, mine + list(weights or ()),
                           model_mismatch=run.model_mismatch)
        p = plan(run)
        return _advise(p, obs, seat, seed, played, strategy or names[seat])
    return _advise(p, obs, seat, seed, played, names[seat])


def _advise(p, observation, seat: int, seed: int, played: int | None = None,
            slot: str | None = None) -> Advice:
    from simkit.replay import choice_text_seen

    spec = registry.get_game(p.run.game)
    rules = spec.rules
    n = p.run.players
    obs = np.ascontiguousarray(observation, np.int32)
    if obs.shape != (p.state_size,):
        raise SimkitError(f"an observation of {spec.name} at {n} players is {p.state_size} "
                          f"whole numbers (the game's observe), not an array of shape "
                          f"{obs.shape}")
    if not isinstance(seat, int | np.integer) or not 0 <= seat < n:
        raise SimkitError(f"the seat must be a number from 0 to {n - 1}, not {seat!r}")
    if not hasattr(rules, "determinize"):
        raise SimkitError(f"advice decides from a seat's observation and needs the game's "
                          f"determinize kernel, which {spec.name} does not have")
    seat = int(seat)
    slot = slot or p.slots[0]
    i = p.slots.index(slot)
    strategy = registry.strategies_for(spec.name)[p.base(i)]
    streams = np.empty(1 + n, np.uint64)
    seed_streams(np.uint64(seed), n, streams)
    moves = _legal_moves(p, obs, seat, streams[0:1])
    k, ratings = _decide(p, i, strategy, obs, seat, moves, streams[1 + seat:2 + seat])
    label = {m: choice_text_seen(p, obs, seat, m) for m in moves.tolist()}
    rated = tuple(Rating(int(moves[j]), label[int(moves[j])], *r) for j, r in ratings)
    return Advice(spec.name, n, seat, slot, int(moves[k]), label[int(moves[k])], rated,
                  played)


def _legal_moves(p, obs: np.ndarray, seat: int, stream: np.ndarray) -> np.ndarray:
    """The seat's legal moves, from one determinisation of what it observes (a seat knows
    its own options: the same in every determinisation)."""
    rules = registry.get_game(p.run.game).rules
    state = np.empty(p.state_size, np.int32)
    rules.determinize(p.compiled, obs, seat, state, stream, np.empty(p.state_size, np.int32))
    if rules.is_over(state):
        raise SimkitError("the game is over in this observation: there is no move to advise")
    if int(rules.to_move(state)) != seat:
        raise SimkitError(f"it is P{int(rules.to_move(state)) + 1}'s move in this "
                          f"observation, not P{seat + 1}'s")
    moves = np.empty(p.max_moves, np.int32)
    return moves[:int(rules.legal_moves(p.compiled, state, moves))].copy()


def _decide(p, i: int, strategy, obs, seat: int, moves: np.ndarray, stream: np.ndarray):
    """(the index of the move chosen, [(index, (visits, mean reward, value))] best first)."""
    from simkit.search import KERNELS, Workspace, call_search, load_search, root_moves

    n_moves = len(moves)
    if strategy.search is None:
        w = p.weights[i, :max(1, len(strategy.weights))]
        k = int(strategy.kernel(p.compiled, obs, seat, moves, n_moves, w, stream))
        return k, [(k, (None, None, None))] + [(j, (None, None, None))
                                               for j in range(n_moves) if j != k]
    module = load_search(p.run.game)
    ws = Workspace.make(p.search_nodes, p.run.players, p.state_size, p.max_moves,
                        len(p.item_columns), len(p.slots), p.learned_features)
    if strategy.search == "learned":
        args = (p.compiled, obs, seat, moves, n_moves, p.weights[i], stream, p.run.players,
                p.max_turns, p.teams, ws.state, ws.after, ws.obs, ws.items, ws.scores,
                ws.ranks, ws.reward, ws.feat, ws.values)
        module.learned_scores(*args)  # by its policy, or its values
        values = ws.values[:n_moves].copy()
        k = int(module.learned_pick(ws.values, n_moves, p.weights[i], stream))
        order = sorted(range(n_moves), key=lambda j: (j != k, -values[j], j))
        return k, [(j, (None, None, float(values[j]))) for j in order]
    kernel = getattr(module, KERNELS[strategy.search])
    k = int(call_search(kernel, strategy.search, ws, i, p.compiled, obs, seat, moves, n_moves,
                        p.weights[i], stream, p.run.players, p.max_turns, p.teams,
                        p.rollout_weights))
    root = root_moves(strategy.search, ws, moves, n_moves, seat)
    tried = {j for j, _, _ in root}
    rows = [(j, (v, mean, None)) for j, v, mean in root]
    rows.sort(key=lambda r: r[0] != k)  # the move chosen first (the most visited)
    return k, rows + [(j, (0, None, None)) for j in range(n_moves) if j not in tried]
