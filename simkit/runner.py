"""The batch runner: plan a run, play it in chunks on local threads or a Dask cluster, and
write its tables in game order.

Determinism: game ``i`` depends only on the master seed, ``i`` and the run's settings, never
on which worker played it or how the games were chunked, and chunks are written in order,
so the same master seed gives identical tables on any number of workers or machines.
"""

from __future__ import annotations

import math
import os
import platform
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from functools import cache
from importlib.metadata import version as pkg_version
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from simkit import data, folders, registry
from simkit.driver import Driver, load_driver
from simkit.errors import SimkitError
from simkit.numeric import games_or_all
from simkit.results import (
    AGAIN,
    SCHEMA_VERSION,
    Chunk,
    RunResult,
    RunWriter,
    check_tables,
    decisions_table,
    games_table,
    items_table,
    trace_table,
)
from simkit.rng import game_seeds

DEFAULT_CHUNK = 25_000
SEARCH_CHUNK = 4
"""The largest chunk of a run with a search strategy (whose games take seconds)."""
LEARNED_CHUNK = 2_000
"""The largest chunk of a run with ``learned`` (a model valued after every legal move)."""
MIN_CHUNK = 2_000
"""Chunks shrink toward the end of a run (see ``chunk_bounds``), but not below this many
games: smaller ones would cost more in table-building than they save in balance."""


MAX_GAMES = 10**10
"""The most games one run plays (about a day of play on two cores even for the fastest
game); more is almost certainly a typo."""
MAX_SEED = 2**64 - 1


def check_trace(spec, trace, games: int) -> int:
    """The number of games ``--trace-turns`` asks to trace (``"all"``: every game); a game
    without a ``progress`` kernel, or more games than the run has, is refused."""
    if trace in (0, None, "0"):
        return 0
    trace = games_or_all(trace, "--trace-turns")
    if trace == "all":
        trace = games
    if trace == 0:
        return 0
    if trace > games:
        raise SimkitError(f"--trace-turns {trace:,} is more games than the run has "
                          f"({games:,}); give at most {games:,}, or 'all'")
    if not spec.has_progress:
        raise SimkitError(f"{spec.name} has no progress kernel, so its games cannot be traced "
                          "turn by turn (--trace-turns); the metrics that need no trace "
                          "(branching factor, forced moves, timeouts) are in every run. "
                          "docs/adding-a-game.md says how to add one")
    return trace


MAX_LOGGED = 100_000
"""The most games ``--log-decisions`` logs: a row a decision, so 100,000 games of a long
game is already tens of millions of rows (docs/metrics.md)."""


def check_log(log, games: int) -> int:
    """The number of games ``--log-decisions`` asks to log (the run's first; ``"all"``:
    every game), at most ``MAX_LOGGED`` and at most the run's games."""
    if log in (0, None, "0"):
        return 0
    log = games_or_all(log, "--log-decisions")
    if log == "all":
        log = games
    if log > MAX_LOGGED:
        raise SimkitError(f"--log-decisions {log:,} is more than the {MAX_LOGGED:,} games a "
                          f"decision log may hold (a row a decision); give at most "
                          f"{MAX_LOGGED:,}")
    if log > games:
        raise SimkitError(f"--log-decisions {log:,} is more games than the run has "
                          f"({games:,}); give at most {games:,}, or 'all'")
    return log


def check_kingmaking(kingmaking, games: int, players: int) -> int:
    """The number of games ``--kingmaking`` asks to replay (``"all"``: every game); refused
    at two players (a kingmaker needs a third seat to hand the win to) and beyond the run."""
    if kingmaking in (0, None, "0"):
        return 0
    kingmaking = games_or_all(kingmaking, "--kingmaking")
    if kingmaking == "all":
        kingmaking = games
    if kingmaking == 0:
        return 0
    if players < 3:
        raise SimkitError("--kingmaking is for 3 or 4 players: at 2 a seat that cannot win "
                          "has nobody else to hand the win to")
    if kingmaking > games:
        raise SimkitError(f"--kingmaking {kingmaking:,} is more games than the run has "
                          f"({games:,}); give at most {games:,}, or 'all'")
    return kingmaking


def check_kingmaking_strategies(game: str, names) -> None:
    """Refuse ``--kingmaking`` when a seat plays ``random``: its playouts are noise, so the
    last seat "chooses the winner" in nearly every game (docs/metrics.md: no figure at all)."""
    if not any(registry.split_budget(n)[0] == "random" for n in names):
        return
    # the game's heuristic, or (a plugin's game) a cheap strategy that is neither a search
    # nor the first legal move
    known = [n for n, s in registry.strategies_for(game).items()
             if n not in ("random", "first") and s.search is None]
    way = "heuristic" if "heuristic" in known or not known else known[0]
    raise SimkitError(f"--kingmaking needs seats that play to win, not random (random "
                      f"playouts make every decision look pivotal): give --strategies {way} "
                      f"(strategies = \"{way}\" in an experiment file)")


def check_seed(seed) -> int:
    """A master or game seed: an integer in 0 .. 2**64 - 1 (every seed is a uint64)."""
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise SimkitError(f"a seed must be an integer from 0 to 2**64 - 1 ({MAX_SEED}), "
                          f"not {seed!r}")
    return seed


def parse_weight(item) -> tuple[str, str, float | str]:
    """``"STRATEGY.KEY=VALUE"`` -> (strategy, key, value), or one line naming the problem.
    The value is a number, or a word for a weight that takes names
    (``ismcts.rollout=heuristic``), resolved and checked when the run is planned."""
    if not isinstance(item, str) or "=" not in item or "." not in item.partition("=")[0]:
        raise SimkitError(f"a weight is STRATEGY.KEY=NUMBER (e.g. heuristic.cost=1.5), not "
                          f"{item!r}")
    key, _, text = item.partition("=")
    sname, _, wname = key.partition(".")
    if wname.strip() == MODEL_WEIGHT:  # a file, not a number (see learned_models)
        if not text.strip():
            raise SimkitError(f"weight {key.strip()} must name a model file")
        return sname.strip(), MODEL_WEIGHT, text.strip()
    value = data.parse_value(text.strip())
    if isinstance(value, str) and value.replace("-", "_").isidentifier():
        return sname.strip(), wname.strip(), value
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value \
            or abs(value) == float("inf"):
        raise SimkitError(f"weight {key.strip()} must be a finite number, not {text.strip()!r}")
    return sname.strip(), wname.strip(), float(value)


MODEL_WEIGHT = "model"
"""``--weight learned.model=FILE``: the model file a ``learned`` seat plays."""


def model_slots(game: str, slots) -> list[str]:
    """The slots of ``slots`` whose strategy plays by a learnt model (``learned``,
    ``ismcts+learned``): each
    gets one (``learned_models``), and ``--train`` fine-tunes it (``simkit.tune``)."""
    specs = registry.strategies_for(game)
    return [s for s in slots if specs[registry.split_budget(s)[0]].needs_model]


def learned_models(game: str, players: int, slots, weights, params, mismatch_ok: bool,
                   given: dict | None = None) -> tuple[tuple[str, str], ...]:
    """The model of each slot played by ``learned`` (``simkit.learn.find_model``: the file of
    ``--weight SLOT.model=FILE``, a model ``given`` by slot, or the one that matches the
    game, player count, VERSION and data), each remembered in this process's store: the
    RunSpec's ``models``: ((slot, digest), ...)."""
    from simkit import learn

    learned = model_slots(game, slots)
    files = {}
    for sname, wname, v in weights:
        if wname != MODEL_WEIGHT:
            continue
        if not any(sname in (s, registry.split_budget(s)[0]) for s in learned):
            raise SimkitError(f"--weight {sname}.model: no seat of this run plays {sname} by "
                              f"a model (a model file is for learned); its strategies: "
                              f"{', '.join(slots)}")
        files[sname] = v
    if not learned:
        return ()
    spec = registry.get_game(game)
    digest = data.data_digest(params)
    default = data.data_digest(spec.data)
    out = []
    for slot in learned:
        base = registry.split_budget(slot)[0]
        if given and slot in given:  # a model in hand (training's yardstick)
            found = learn.Found(given[slot], "given")
            learn.check_fits(found.model, "the model given", game, players,
                             tuple(spec.features))
        else:
            file = files.get(slot, files.get(base))
            found = learn.find_model(spec, players, digest, default,
                                     None if file is None else Path(file), mismatch_ok)
        d = learn.remember(found.model)
        learn.SOURCES.setdefault(d, found.source)
        out.append((slot, d))
    return tuple(out)


def _with_budgets(game: str, names: list[str], weights) -> list[str]:
    """Strategy names as the tables record them: a strategy with a budget and none in its
    name gets its effective one (``ismcts`` -> ``ismcts@400``, or the ``--weight
    ismcts.iterations`` given), so every table and report names the budget played."""
    specs = registry.strategies_for(game)
    out = []
    for name in names:
        base, budget = registry.split_budget(name)
        spec = specs[base]
        if spec.budget is not None and budget is None:
            budget = spec.weights[spec.budget]
            if spec.search is not None:
                from simkit.search import knob_defaults

                budget = knob_defaults(game, spec.search)[spec.budget]
            for sname, wname, v in weights:
                if sname == base and wname == spec.budget:
                    budget = v
            if isinstance(budget, str) or budget != int(budget) or budget < 1:
                raise SimkitError(f"{base}: {spec.budget} must be a whole number from 1 to "
                                  f"{registry.MAX_BUDGET:,}, not {budget!r}")
            name = f"{base}@{int(budget)}"
        out.append(name)
    return out


@dataclass(frozen=True)
class RunSpec:
    """Everything that decides a run's games: a picklable recipe, sent as is to workers."""

    game: str
    players: int
    games: int
    seed: int = 0
    strategies: tuple[str, ...] = ("random",)
    overrides: tuple[tuple[str, Any], ...] = ()
    rotate: bool = True
    weights: tuple[tuple[str, str, float], ...] = ()
    compile_with: tuple[str, ...] = ()
    """More strategies to compile into the run's driver than it seats: the runs of a ladder
    share one driver (and its compilation); results do not depend on it."""
    trace: int = 0
    """How many games (the run's first) record each seat's progress turn by turn
    (``--trace-turns``, ``docs/metrics.md``); tracing never changes a game."""
    kingmaking: int = 0
    """How many games (the run's first) are replayed to find kingmakers (``--kingmaking``,
    ``docs/metrics.md``): every decision's moves played out to see who would win."""
    models: tuple[tuple[str, str], ...] = ()
    """The model of each slot played by ``learned``: (slot, the model's digest); the models
    themselves are in this process's store (``simkit.learn``), a Dask worker gets them with
    its chunks, and the run folder keeps a copy of each."""
    model_mismatch: bool = False
    """``--model-mismatch ok``: a learned seat may play a model of other data or another
    VERSION of the game than the run's (the model of the default data, without a file)."""
    log_decisions: int = 0
    """How many games (the run's first) log a row per decision (``--log-decisions``,
    decisions.parquet); logging replays a game and never changes it."""

    @classmethod
    def make(cls, game, players, games, seed=0, strategies="random", overrides=None,
             rotate=True, weights=None, compile_with=(), trace=0, kingmaking=0,
             model_mismatch=False, models=None, log_decisions=0) -> RunSpec:
        """Build and validate a RunSpec from user-facing arguments; ``trace``,
        ``kingmaking`` and ``log_decisions`` are a number of games or ``"all"``; ``models``
        (slot -> a ``simkit.learn.Model``) gives learned seats their model without a file."""
        spec = registry.get_game(game)
        if players not in spec.players:
            raise SimkitError(f"{game} is for {', '.join(map(str, spec.players))} players, "
                              f"not {players}")
        if not isinstance(games, int) or isinstance(games, bool) or not 1 <= games <= MAX_GAMES:
            raise SimkitError(f"the number of games must be an integer from 1 to {MAX_GAMES:,}, "
                              f"not {games!r}")
        check_seed(seed)
        if not isinstance(rotate, bool):
            raise SimkitError(f"rotate must be true or false, not {rotate!r}")
        names = registry.resolve_strategies(game, strategies, players)
        over = data.parse_overrides(overrides)
        effective = data.apply_overrides(spec.data, over)
        w = [parse_weight(item) for item in weights or ()]
        names = _with_budgets(game, names, w)
        found = learned_models(game, players, sorted(set(names)), w, effective,
                                  bool(model_mismatch), models)
        w = [x for x in w if x[1] != MODEL_WEIGHT]
        frozen = tuple(sorted((k, data.freeze(v)) for k, v in over.items()))  # plans cached
        extra = tuple(sorted({registry.split_budget(n)[0] for n in compile_with}))
        traced = check_trace(spec, trace, games)
        kings = check_kingmaking(kingmaking, games, players)
        logged = check_log(log_decisions, games)
        if kings:
            check_kingmaking_strategies(game, names)
        run = cls(game, players, games, seed, tuple(names), frozen, rotate, tuple(w), extra,
                  traced, kings, found, bool(model_mismatch), logged)
        plan(run)  # compile the parameters now, so a bad value fails before any output
        return run


@dataclass
class Plan:
    """A RunSpec resolved in this process: parameters compiled, driver loaded.

    Seats are played by *slots*, the run's distinct strategy names (``ismcts@200`` and
    ``ismcts@1000`` are two slots of ``ismcts``): ``slots`` names them (the tables'
    dictionary of strategy names), ``kernels[i]`` is slot ``i``'s strategy code in the
    driver and ``weights[i]`` its effective weights."""

    run: RunSpec
    params: dict[str, data.Param]
    compiled: tuple
    driver: Driver
    seat_codes: np.ndarray  # int32[P], the slot of each seat before rotation
    weights: np.ndarray  # float64[slots, W]
    max_turns: int
    state_size: int
    max_moves: int
    item_columns: list[str] = field(default_factory=list)
    slots: tuple[str, ...] = ()
    kernels: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    search_nodes: int = 0  # the largest search budget of the run (0: no search)
    rollout_weights: np.ndarray = field(default_factory=lambda: np.zeros(1, np.float64))
    teams: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    phases: tuple[str, ...] = ("all",)  # the game's phases, or one for a game without
    learned_features: int = 0  # the game's features, when a slot plays learned (else 0)
    named_width: int = 0  # the columns of ``weights`` that hold named weights (then models)

    def slot_weights(self, slot: int) -> dict[str, float]:
        """Slot ``slot``'s effective weights by name (a learned slot's model not among
        them)."""
        names = self.driver.weight_names[int(self.kernels[slot])]
        return dict(zip(names, self.weights[slot].tolist()[:len(names)], strict=False))

    def base(self, slot: int) -> str:
        """The strategy that plays slot ``slot`` (``ismcts`` for ``ismcts@1000``)."""
        return self.driver.strategy_names[int(self.kernels[slot])]


def compile_checked(spec, vals: dict, players: int) -> tuple:
    """The game's parameter arrays; a value the game's ``compile`` refuses (a cross-value
    constraint, an unknown name) becomes one line naming it."""
    try:
        return spec.compile(vals, players)
    except SimkitError:
        raise
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise SimkitError(f"{spec.name}: these data values do not make a game at {players} "
                          f"players: {exc}") from exc


def check_params(spec, params: dict) -> None:
    """The check ``run`` makes, for ``rules``: the values compile at every player count."""
    vals = data.values(params)
    for n in spec.players:
        compile_checked(spec, vals, n)


def _slot_weights(driver: Driver, slots: tuple[str, ...], run_weights, game: str
                  ) -> np.ndarray:
    """Each slot's weights: its strategy's defaults, then ``--weight BASE.KEY=V`` (every
    slot of that strategy), then the budget of ``BASE@N``, then ``--weight
    BASE@N.KEY=V`` (that slot alone). Named values (``rollout=heuristic``) become their
    numbers; every value is checked."""
    bases = [registry.split_budget(s)[0] for s in slots]
    w = np.zeros((len(slots), driver.default_weights.shape[1]), np.float64)
    specs = registry.strategies_for(game)
    for i, b in enumerate(bases):
        w[i] = driver.default_weights[driver.code(b)]
        if specs[b].searches:  # the game's own defaults for the search knobs
            from simkit.search import knob_defaults

            knobs = knob_defaults(game, specs[b].search)
            w[i, : len(knobs)] = list(knobs.values())
    targets = set(slots) | set(bases)
    if any(specs[b].searches for b in bases) and "heuristic" in specs:
        targets.add("heuristic")  # the weights of the searches' heuristic rollouts
    for sname, _, _ in run_weights:
        if sname not in targets:
            raise SimkitError(f"--weight names strategy {sname!r}, which is not in this run; "
                              f"its strategies: {', '.join(sorted(targets))}")
    for exact in (False, True):
        for i, (slot, b) in enumerate(zip(slots, bases, strict=True)):
            spec = specs[b]
            names = driver.weight_names[driver.code(b)]
            if exact and spec.budget is not None and registry.split_budget(slot)[1] is not None:
                w[i, names.index(spec.budget)] = registry.split_budget(slot)[1]
            for sname, wname, v in run_weights:
                if sname != (slot if exact else b) or (exact and slot == b):
                    continue
                if wname not in names:
                    raise SimkitError(f"strategy {b} has no weight {wname!r}; its weights: "
                                      f"{', '.join(names) or 'none'}")
                if isinstance(v, str):
                    choices = spec.named_weights.get(wname, {})
                    if spec.searches and wname == "rollout":
                        from simkit.search import rollout_choices

                        choices = rollout_choices(game)
                    if v not in choices:
                        raise SimkitError(
                            f"weight {sname}.{wname} must be a finite number"
                            + (f" or one of: {', '.join(choices)}" if choices else "")
                            + f", not {v!r}")
                    v = choices[v]
                w[i, names.index(wname)] = v
    for i, (slot, b) in enumerate(zip(slots, bases, strict=True)):
        if specs[b].searches:
            from simkit.search import check_knobs, resolve_knobs

            names = driver.weight_names[driver.code(b)]
            knobs = dict(zip(names, w[i].tolist(), strict=False))
            check_knobs(game, slot, knobs)
            w[i, : len(names)] = list(resolve_knobs(game, knobs).values())
    return w


@cache
def plan(run: RunSpec) -> Plan:
    spec = registry.get_game(run.game)
    params = data.apply_overrides(spec.data, dict(run.overrides))
    vals = data.values(params)
    compiled = compile_checked(spec, vals, run.players)
    slots = tuple(sorted(set(run.strategies)))
    bases = tuple(registry.split_budget(s)[0] for s in slots)
    driver = load_driver(run.game, tuple(sorted(set(bases) | set(run.compile_with))))
    weights = _slot_weights(driver, slots, run.weights, run.game)
    kernels = np.array([driver.code(b) for b in bases], np.int32)
    specs = registry.strategies_for(run.game)
    search_nodes = 0
    rollout = np.zeros(1, np.float64)
    if any(specs[b].searches for b in bases):
        from simkit.search import rollout_weights

        search_nodes = max(int(weights[i, driver.weight_names[kernels[i]].index("iterations")])
                           for i, b in enumerate(bases) if specs[b].searches)
        rollout = rollout_weights(run.game, {k: v for s, k, v in run.weights
                                             if s == "heuristic" and not isinstance(v, str)})
    rules = spec.rules
    named_width = weights.shape[1]
    weights, features = _with_models(run, slots, weights)
    return Plan(
        run, params, compiled, driver,
        np.array([slots.index(n) for n in run.strategies], dtype=np.int32),
        weights, int(vals["max_turns"]),
        int(rules.state_size(compiled, run.players)),
        int(rules.max_moves(compiled, run.players)), spec.columns_for(vals),
        slots, kernels, search_nodes, rollout,
        np.array(spec.teams(run.players), np.int32),
        tuple(spec.phases) if spec.has_phases else ("all",), features, named_width)


def _with_models(run: RunSpec, slots: tuple[str, ...], weights: np.ndarray
                 ) -> tuple[np.ndarray, int]:
    """``weights`` with each learned slot's row grown by its model (``simkit.learn``: its
    named weights, then the flattened model, which the kernels read from ``L_MODEL``), and
    the number of features the models read (0 when no slot plays learned)."""
    if not run.models:
        return weights, 0
    from simkit import learn

    flats = {slot: learn.recall(d).flat() for slot, d in run.models}
    specs = registry.strategies_for(run.game)
    # a slot's model follows its strategy's named weights (learned's 6, the guided search's
    # knobs): search_template's L_MODEL and G_MODEL
    named = {slot: len(specs[registry.split_budget(slot)[0]].weights) for slot in flats}
    width = max(weights.shape[1], max(named[s] + len(f) for s, f in flats.items()))
    out = np.zeros((len(slots), width), np.float64)
    out[:, :weights.shape[1]] = weights
    for slot, d in run.models:
        i = slots.index(slot)
        out[i, named[slot]:named[slot] + len(flats[slot])] = flats[slot]
        if specs[registry.split_budget(slot)[0]].search != "learned":
            continue
        given = {k for s, k, _ in run.weights if s in (slot, registry.split_budget(slot)[0])}
        for k, v in learn.play_defaults(learn.recall(d)).items():
            if k not in given:  # the model's own default (the samples it learnt with)
                out[i, list(learn.NAMED).index(k)] = v
    return out, int(next(iter(flats.values()))[0])


def seat_codes(p: Plan, start: int, count: int) -> np.ndarray:
    """int32[count, P]: the strategy code of each seat in each game. With rotation, game
    ``i`` shifts the strategy list by ``i`` seats, so every strategy sits in every seat
    equally often."""
    n = p.run.players
    idx = np.arange(start, start + count)
    shift = idx % n if p.run.rotate else np.zeros(count, dtype=np.int64)
    seats = (np.arange(n)[None, :] - shift[:, None]) % n
    return p.seat_codes[seats].astype(np.int32)


_thread = threading.local()


def workspace(p: Plan):
    """This thread's search workspace for ``p``: allocated on the thread's first chunk of
    the run and reused by every decision of every game after (a run without search gets a
    tiny one that nothing reads)."""
    from simkit.search import Workspace

    key = (p.run, p.search_nodes, p.learned_features)
    cached = getattr(_thread, "workspace", None)
    if cached is None or cached[0] != key:
        ws = Workspace.make(p.search_nodes, p.run.players, p.state_size, p.max_moves,
                            len(p.item_columns), len(p.slots), p.learned_features)
        cached = (key, ws, ws.arrays(p.teams, p.rollout_weights))
        _thread.workspace = cached
    return cached[1], cached[2]


def batch_args(p: Plan, start: int, count: int) -> tuple[Chunk, np.ndarray, tuple]:
    """The chunk of games ``start`` .. ``start + count - 1`` to fill, its curves' array and
    the arguments of ``play_batch`` that play them (into the chunk's arrays)."""
    n = p.run.players
    k = len(p.item_columns)
    seeds = game_seeds(p.run.seed, start, count)
    codes = seat_codes(p, start, count)
    traced = max(0, min(start + count, p.run.trace) - start)
    c = Chunk(start, seeds, codes, np.empty(count, np.int32), np.empty(count, np.int32),
              np.empty(count, np.int32), np.empty((count, n), np.float64),
              np.empty((count, n), np.int32), np.empty((count, n, k), np.int32),
              counts=np.empty((count, len(p.phases), 4), np.int64))
    curve = (np.full((traced, p.max_turns + 1, n), np.nan, np.float32) if traced
             else np.empty((1, 0, n), np.float32))
    ws, arrays = workspace(p)
    ws.stats[:] = 0
    args = (p.compiled, n, seeds, codes, p.kernels, p.weights, p.max_turns,
            np.empty(p.state_size, np.int32), np.empty(p.state_size, np.int32),
            np.empty(p.max_moves, np.int32), np.empty(1 + n, np.uint64), arrays,
            c.end, c.turns, c.decisions, c.scores, c.ranks, c.items, c.counts, curve,
            np.empty(n, np.float64))
    return c, curve, args


def play_chunk(p: Plan, start: int, count: int) -> Chunk:
    c, curve, args = batch_args(p, start, count)
    p.driver.module.play_batch(*args)
    if curve.shape[1]:  # traced games
        c.curve = curve
    ws, arrays = workspace(p)
    kings = max(0, min(start + count, p.run.kingmaking) - start)
    if kings:
        c.king, c.pivotal = kingmaking(p, c.seeds[:kings], c.codes[:kings], arrays,
                                       last_seats(c.ranks[:kings]))
    if p.search_nodes:
        c.search = ws.stats.copy()
    logged = max(0, min(start + count, p.run.log_decisions) - start)
    if logged:  # after the search statistics: the replay searches again
        c.log, c.log_progress = decision_log(p, c, logged, arrays)
    return c


def decision_log(p: Plan, c: Chunk, logged: int, arrays) -> tuple[np.ndarray, np.ndarray]:
    """The decision log of the chunk's first ``logged`` games (``log_batch``): int32[R, 5]
    (turn, seat, phase, move, legal moves) and float32[R] (the deciding seat's progress),
    a row per decision in game order."""
    n, k = p.run.players, len(p.item_columns)
    offsets = np.zeros(logged + 1, np.int64)
    np.cumsum(c.decisions[:logged], out=offsets[1:])
    rows = int(offsets[-1])
    out = np.empty((rows, 5), np.int32)
    progress = np.empty(rows, np.float32)
    size = p.state_size
    p.driver.module.log_batch(
        p.compiled, n, c.seeds[:logged], c.codes[:logged], p.kernels, p.weights, p.max_turns,
        np.empty(size, np.int32), np.empty(size, np.int32), np.empty(p.max_moves, np.int32),
        np.empty(1 + n, np.uint64), np.zeros((n, k), np.int32), arrays,
        np.empty(n, np.float64), offsets, out, progress)
    return out, progress


def last_seats(ranks: np.ndarray) -> np.ndarray:
    """int32[G, P]: 1 for the seats that finished last (the worst rank, below rank 1) in a
    game somebody won; a game nobody won has none."""
    worst = np.where(ranks == 1, 0, ranks).max(axis=1)
    won = (ranks == 1).any(axis=1)
    return ((ranks == worst[:, None]) & (ranks > 1) & won[:, None]).astype(np.int32)


def kingmaking(p: Plan, seeds: np.ndarray, codes: np.ndarray, arrays, watch: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """int32[G, P] each: per game and seat of ``watch``, the kingmaker's and the pivotal
    decisions, -1 for the other seats (``driver_template.kingmaking_batch``)."""
    n, k = p.run.players, len(p.item_columns)
    king = np.zeros((len(seeds), n), np.int32)
    pivotal = np.zeros((len(seeds), n), np.int32)
    size = p.state_size
    p.driver.module.kingmaking_batch(
        p.compiled, n, seeds, codes, p.kernels, p.weights, p.max_turns,
        np.empty(size, np.int32), np.empty(size, np.int32), np.empty(p.max_moves, np.int32),
        np.empty(1 + n, np.uint64), np.zeros((n, k), np.int32), arrays,
        np.empty(size, np.int32), np.empty(size, np.int32), np.empty(p.max_moves, np.int32),
        np.empty(1 + n, np.uint64), np.zeros((n, k), np.int32), np.empty(n, np.float64),
        np.empty(n, np.int32), np.ascontiguousarray(watch, np.int32), king, pivotal)
    return king, pivotal


def remote_chunk(run: RunSpec, start: int, count: int, models: dict | None = None) -> Chunk:
    """What a Dask worker runs: rebuild the plan in its own process, play one chunk.
    ``models`` (digest -> a model file's bytes) are the run's learnt models, which the
    worker's process may not have."""
    if models:
        from simkit import learn

        for digest, raw in models.items():
            if digest not in learn._STORE:
                learn.remember(learn.model_from_bytes(raw, f"model {digest[:12]}"))
    return play_chunk(plan(run), start, count)


def model_files(run: RunSpec) -> dict[str, bytes]:
    """The files of a run's learnt models, by their path in its folder (run.json's
    ``models``): what ``replay --run`` and ``--resume`` play them from."""
    from simkit import learn

    return {f"models/{slot}.npz": learn.recall(d).to_bytes() for slot, d in run.models}


def models_meta(p: Plan) -> dict | None:
    """run.json's ``models``: per learned slot, its model's digest, its copy in the folder,
    where it was found, the data and VERSION it was trained on, and whether they differ from
    the run's (``--model-mismatch ok``)."""
    if not p.run.models:
        return None
    from simkit import learn

    spec = registry.get_game(p.run.game)
    digest = data.data_digest(p.params)
    out = {}
    for slot, d in p.run.models:
        card = learn.recall(d).card
        out[slot] = {"digest": d, "file": f"models/{slot}.npz",
                     "source": learn.SOURCES.get(d, "given"),
                     "data_digest": card["data_digest"], "game_version": card["game_version"],
                     "default_data": card["data_digest"] == data.data_digest(spec.data),
                     "mismatch": card["data_digest"] != digest
                     or card["game_version"] != spec.version}
        trained = card.get("training") or {}
        if trained.get("from"):  # fine-tuned for this data (--train): from which model,
            # and its accepted generation (0: none beat the base: it plays the base's weights)
            out[slot].update(trained_from=trained["from"], training=trained.get("command"),
                             generation=trained.get("generation"))
    return out


def tables(p: Plan, chunk: Chunk) -> tuple[pa.Table, pa.Table, pa.Table | None]:
    """The games, items, trace and decisions tables of a played chunk (no trace, no log:
    None)."""
    spec = registry.get_game(p.run.game)
    return (games_table(chunk, p.slots, spec.teams(p.run.players),
                        spec.end_reasons, p.phases, p.run.kingmaking > 0),
            items_table(chunk, p.item_columns), trace_table(chunk),
            decisions_table(chunk, p.slots, p.phases, move_labels(p)))


def move_labels(p: Plan) -> Callable[[int], str]:
    """The label of a move code in the decision log: the game's ``move_label`` (``simkit.game``)
    with the run's parameters, or "move N" for a game without it."""
    spec = registry.get_game(p.run.game)
    if spec.move_label is None:
        return lambda move: f"move {move}"
    return lambda move: spec.move_label(p.compiled, p.run.players, move)


def table_schemas(p: Plan) -> dict[str, pa.Schema | None]:
    """The schemas of the tables a run of ``p`` writes (``results.TABLE_NAMES``; None for a
    trace it does not write), from the tables of a chunk of no games: no kernel is run."""
    n, k = p.run.players, len(p.item_columns)
    none = np.zeros(0, np.int32)
    chunk = Chunk(0, np.zeros(0, np.uint64), np.zeros((0, n), np.int32), none, none, none,
                  np.zeros((0, n)), np.zeros((0, n), np.int32), np.zeros((0, n, k), np.int32),
                  counts=np.zeros((0, len(p.phases), 4), np.int64),
                  curve=np.zeros((0, p.max_turns + 1, n), np.float32) if p.run.trace else None,
                  log=np.zeros((0, 5), np.int32) if p.run.log_decisions else None,
                  log_progress=np.zeros(0, np.float32))
    games, items, trace, log = tables(p, chunk)
    return {"games": games.schema, "items": items.schema,
            "trace": trace.schema if trace is not None else None,
            "decisions": log.schema if log is not None else None}


def play_and_tabulate(p: Plan, start: int, count: int
                      ) -> tuple[Chunk, pa.Table, pa.Table, pa.Table | None, pa.Table | None]:
    """What a local thread runs: play a chunk and build its tables, so that the thread
    writing the run folder only writes."""
    chunk = play_chunk(p, start, count)
    return (chunk, *tables(p, chunk))


def chunk_bounds(games: int, workers: int, chunk_size: int | None = None,
                 largest: int = DEFAULT_CHUNK, smallest: int = MIN_CHUNK, start: int = 0
                 ) -> list[tuple[int, int]]:
    """(start, count) of each chunk of games ``start`` .. ``games - 1``. With a
    ``chunk_size``, chunks of that size. Otherwise guided: each chunk takes a quarter of the
    remaining games per worker (between ``smallest`` and ``largest``), so chunks shrink
    toward the end of the run and every worker finishes its last one at about the same time.
    The chunking never changes a game: game ``i`` depends only on the master seed and ``i``."""
    if chunk_size is not None:
        return [(s, min(chunk_size, games - s)) for s in range(start, games, chunk_size)]
    bounds = []
    while start < games:
        remaining = games - start
        size = min(remaining, largest, max(smallest, math.ceil(remaining / (4 * workers))))
        bounds.append((start, size))
        start += size
    return bounds


class _Backend:
    """Where chunks are played: serially here, on local threads, or on a Dask cluster."""

    def __init__(self, p: Plan, workers: int, scheduler: Any):
        self.pool = self.client = None
        self._own_client = False
        if scheduler is not None:
            from distributed import Client

            if isinstance(scheduler, Client):
                self.client = scheduler
            else:
                try:
                    self.client = Client(scheduler, timeout=10)
                except (OSError, TimeoutError, ValueError) as exc:
                    raise SimkitError(f"cannot reach the Dask scheduler at {scheduler}: "
                                      f"{exc}") from exc
                self._own_client = True
            self.name = f"dask:{self.client.scheduler.address}"
            self.pending_max = 2 * max(1, len(self.client.scheduler_info()["workers"]))
            models = {d: raw for (_, d), raw in zip(p.run.models, model_files(p.run).values(),
                                                    strict=True)}
            self.submit = lambda s, c: self.client.submit(remote_chunk, p.run, s, c, models,
                                                          pure=False)
            self.result = lambda future: self._tabulated(future.result())
        elif workers > 1:
            self.pool = ThreadPoolExecutor(workers)
            self.name = f"threads:{workers}"
            self.pending_max = 2 * workers
            self.submit = lambda s, c: self.pool.submit(play_and_tabulate, p, s, c)
            self.result = lambda future: future.result()
        else:
            self.name = "serial"
            self.pending_max = 1
            self.submit = lambda s, c: (s, c)
            self.result = lambda bounds: self._tabulated(play_chunk(p, *bounds))
        self._plan = p

    def _tabulated(self, chunk: Chunk) -> tuple[Chunk, pa.Table, pa.Table, pa.Table | None]:
        return (chunk, *tables(self._plan, chunk))

    def close(self, wait: bool) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=wait, cancel_futures=True)
        if self._own_client:
            self.client.close()


def _ordered(submit: Callable[[int, int], Any], result: Callable[[Any], Any],
             bounds: list[tuple[int, int]], pending_max: int) -> Iterator[Any]:
    """Submit chunks (at most ``pending_max`` in flight) and yield their results in game
    order."""
    pending: dict[int, Any] = {}
    nxt = 0
    for i, (start, count) in enumerate(bounds):
        pending[i] = submit(start, count)
        while len(pending) >= pending_max:
            yield result(pending.pop(nxt))
            nxt += 1
    while pending:
        yield result(pending.pop(nxt))
        nxt += 1


class _StopRequests:
    """While a run is written: the first Ctrl-C or SIGTERM asks the run to stop after the
    chunk in hand (so games.parquet, items.parquet and run.json always agree); a second
    one stops at once, keeping nothing. Only the main thread can install handlers; elsewhere
    a KeyboardInterrupt simply aborts the run."""

    def __init__(self):
        self.requested = False
        self._old = {}

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._old[sig] = signal.signal(sig, self._handle)
        return self

    def _handle(self, signum, frame):
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def __exit__(self, *exc):
        for sig, old in self._old.items():
            signal.signal(sig, old)
        return False


@cache
def _installed_versions() -> tuple[tuple[str, str], ...]:
    out = {"python": platform.python_version()}
    for name in ("simkit", "numpy", "numba", "pandas", "pyarrow", "dask", "distributed"):
        try:
            out[name] = pkg_version(name)
        except Exception:  # noqa: BLE001 - a missing optional package is not an error
            out[name] = "not installed"
    return tuple(out.items())


def _versions() -> dict[str, str]:
    """The versions of Python and the packages a run depends on (asked once a process)."""
    return dict(_installed_versions())


def progress_bar(total: int, desc: str, initial: int = 0):
    """The progress bar of games played, on stderr: the notebook's in a Jupyter kernel
    (``tqdm.auto``), else the terminal's (``tqdm.auto`` imports asyncio: 45 ms of every
    run that shows a bar)."""
    if "ipykernel" in sys.modules:
        from tqdm.auto import tqdm
    else:
        from tqdm import tqdm
    return tqdm(total=total, initial=initial, unit=" games", unit_scale=True, desc=desc,
                dynamic_ncols=True, mininterval=0.5, file=sys.stderr)


def first_play(p: Plan, show: bool = True) -> Chunk:
    """Play ``p``'s game 0 alone: its driver compiled (with compile-ahead helpers, and a
    notice once a process when it compiles: ``simkit.compiling``) or loaded from numba's
    cache, before timing and threads."""
    from simkit.ahead import helping
    from simkit.compiling import compiling

    with compiling(p.run.game, p.driver, show), helping(p):
        return play_chunk(p, 0, 1)


CHUNK_BYTES = 64 * 2**20
"""The most memory one chunk's arrays and tables take, whatever ``--chunk-size`` says: a
chunk holds at most ``chunk_cap`` games (a run keeps at most two chunks a worker in
flight)."""


def chunk_cap(p: Plan) -> int:
    """The most games a chunk of ``p`` holds within ``CHUNK_BYTES``: per game and seat, the
    chunk's int32 item counts and the items table's uint16 copy, with room for the concat
    of a row group (x2), plus the games table and the chunk's own columns."""
    n, k = p.run.players, len(p.item_columns)
    per_game = 2 * (6 * n * k + 40 * n + 80 + 40 * len(p.phases))
    if p.run.trace:  # a traced game's curve, and its rows in the trace table
        per_game += (p.max_turns + 1) * (4 * n + 2 * (10 + 4 * n))
    if p.run.log_decisions:  # a logged game's rows (a guess of 4 decisions a turn)
        per_game += 4 * (p.max_turns + 1) * 2 * 48
    return max(1, CHUNK_BYTES // per_game)


_DEFAULTS = RunSpec("", 0, 0)


def _as_recorded(run: RunSpec) -> dict:
    """``run`` as run.json records it (``run_spec``: tuples become lists)."""
    import json

    return json.loads(json.dumps(asdict(run), default=str))


def is_complete(folder: Path, run: RunSpec) -> bool:
    """Whether ``folder`` holds the complete run of ``run`` (a resumed ladder, sweep or
    sensitivity run skips it)."""
    import json

    try:
        meta = json.loads((Path(folder) / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (isinstance(meta, dict) and meta.get("complete") is True
            and _recorded_spec(meta) == _as_recorded(run))


def _recorded_spec(meta) -> dict | None:
    """The run_spec of a run.json, with the default of any field added since it was
    written."""
    have = meta.get("run_spec") if isinstance(meta, dict) else None
    if not isinstance(have, dict):
        return None
    return {**{k: v for k, v in _as_recorded(_DEFAULTS).items() if k not in have}, **have}


_RESUMED_FIELDS = (("game", str, "a game name"), ("game_version", str, "a version"),
                   ("players", int, "a whole number"), ("games", int, "a whole number"),
                   ("games_completed", int, "a whole number"), ("complete", bool,
                                                                "true or false"),
                   ("run_spec", dict, "an object"))
"""What resuming reads from run.json, each with its type."""


def _is(value, kind) -> bool:
    return isinstance(value, kind) and (kind is bool or not isinstance(value, bool))


def _damaged(path: Path, what: str) -> SimkitError:
    return SimkitError(f"--resume: {path} {what}; {AGAIN}")


def _resumable_meta(out: Path) -> dict | None:
    """run.json of the run folder ``out`` with every field that resuming reads checked;
    None when ``out`` has no run.json. A folder of another layout than today's is refused:
    an older one's tables count seats from 0, a newer one's are unknown."""
    import json

    path = Path(out) / "run.json"
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise _damaged(path, f"cannot be read ({exc})") from exc
    if not isinstance(meta, dict):
        raise _damaged(path, "is not a JSON object")
    version = meta.get("schema_version", 1)
    if not _is(version, int) or version < 1:
        raise _damaged(path, f"is damaged: its schema_version is {version!r}")
    if version > SCHEMA_VERSION:
        raise SimkitError(f"--resume: {out} was written by a newer simkit (run folder schema "
                          f"{version}; this simkit writes schema {SCHEMA_VERSION}): upgrade "
                          f"simkit to resume it, or {AGAIN}")
    if version < SCHEMA_VERSION:
        raise SimkitError(f"--resume: {out} was written by an older simkit (run folder schema "
                          f"{version}; this simkit writes schema {SCHEMA_VERSION}), whose "
                          f"tables today's games cannot follow: {AGAIN}")
    for key, kind, what in _RESUMED_FIELDS:
        if key not in meta:
            raise _damaged(path, f"has no {key}")
        if not _is(meta[key], kind):
            raise _damaged(path, f"is damaged: its {key} is {meta[key]!r}, not {what}")
    elapsed = meta.get("elapsed_seconds", 0)
    if not _is(elapsed, int | float) or not 0 <= elapsed < math.inf:
        raise _damaged(path, f"is damaged: its elapsed_seconds is {elapsed!r}, not a number "
                             "of seconds")
    resumed = meta.get("resumed_at", [])
    if not isinstance(resumed, list) or not all(_is(g, int) for g in resumed):
        raise _damaged(path, f"is damaged: its resumed_at is {resumed!r}, not a list of game "
                             "counts")
    return meta


def _resume_point(run: RunSpec, out: Path, grow: bool = False) -> tuple[int, dict | None]:
    """(games already played, their run.json) of the run to continue in ``out``; (0, None)
    when there is none. A run of other settings, of other rules (the game's version) or of
    damaged tables is refused in one line; with ``grow``, a complete run of the same
    settings and fewer games is continued to ``run.games`` (game ``i`` does not depend on
    how many games the run has)."""
    meta = _resumable_meta(out)
    if meta is None:
        return 0, None
    path = Path(out) / "run.json"
    want = _as_recorded(run)
    have = _recorded_spec(meta)
    if grow and isinstance(have.get("games"), int) and have["games"] <= run.games \
            and meta["complete"]:
        have = {**have, "games": run.games}
    if have != want:
        k = next((k for k in want if have.get(k) != want[k]), "run_spec")
        raise SimkitError(f"--resume: {out} holds a run with {k} {have.get(k)!r}, not "
                          f"{want.get(k)!r}; give the same settings, or --overwrite to start "
                          "again")
    spec = registry.get_game(run.game)
    for key, value in (("game", spec.name), ("players", run.players)):
        if meta[key] != value:
            raise _damaged(path, f"is damaged: its {key} is {meta[key]!r}, but its run_spec "
                                 f"says {value!r}")
    if meta["game_version"] != spec.version:
        raise SimkitError(f"--resume: {out} was played with {spec.name} version "
                          f"{meta['game_version']!r}, and this simkit plays version "
                          f"{spec.version!r}: games of two versions of the rules cannot make "
                          f"one run; {AGAIN}")
    done, games = meta["games_completed"], meta["run_spec"]["games"]
    if not 0 <= done <= games or meta["complete"] != (done == games) \
            or meta["games"] != games:
        raise _damaged(path, f"is damaged: it says {done:,} of {meta['games']:,} games "
                             f"played, complete {str(meta['complete']).lower()}, of a run of "
                             f"{games:,}")
    if done and done < run.games:  # its tables are copied: they must be this run's
        check_tables(out, done, run.players, table_schemas(plan(run)))
    return done, meta


def check_resume(run: RunSpec, out: Path, precision: float | None = None
                 ) -> tuple[int, dict | None]:
    """What ``--resume`` continues in ``out`` for ``run``: (games already played, run.json),
    (0, None) when ``out`` holds no run; a folder that ``run`` cannot continue is refused in
    one line, before anything is played. With ``precision`` (``--precision``) ``run.games``
    is the most games, and ``out`` holds the step of ``run_precise`` in hand."""
    meta = _resumable_meta(out)
    if meta is None:
        return 0, None
    record = meta.get("precision")
    if precision is None:
        if record is not None:
            target = record.get("target") if isinstance(record, dict) else None
            shown = f"{100 * target:g}" if _is(target, int | float) else "?"
            raise SimkitError(f"--resume: {out} holds a --precision run (±{shown} points); "
                              f"resume it with --precision {shown}")
        return _resume_point(run, out)
    if record is None:
        raise SimkitError(f"--resume: {out} holds a run without a --precision record (played "
                          "without --precision, or stopped by an older simkit): resume it "
                          f"without --precision, or {AGAIN}")
    _check_record(record, Path(out) / "run.json")
    if record["target"] != precision:
        raise SimkitError(f"--resume: {out} holds a --precision run to "
                          f"±{100 * record['target']:g} points, not ±{100 * precision:g}; "
                          "give the same settings, or --overwrite to start again")
    if record["max_games"] != run.games:
        raise SimkitError(f"--resume: {out} holds a --precision run of at most "
                          f"{record['max_games']:,} games, not {run.games:,}; give the same "
                          "settings, or --overwrite to start again")
    step = meta["run_spec"].get("games")
    if step not in checkpoints(run.games):
        raise _damaged(Path(out) / "run.json", f"is damaged: its run of {step!r} games is no "
                                               "step of this --precision run")
    return _resume_point(replace(run, games=step), out)


def _check_record(record, path: Path) -> None:
    """``record`` is a precision record as ``run_precise`` writes it, or one line saying
    it is damaged."""
    ok = (isinstance(record, dict) and _is(record.get("target"), int | float)
          and _is(record.get("max_games"), int) and 1 <= record["max_games"] <= MAX_GAMES
          and isinstance(record.get("checks"), list)
          and record.get("stopped_by") in (None, "precision", "games", "both"))
    counts = checkpoints(record["max_games"]) if ok else []
    ok = ok and len(record["checks"]) <= len(counts)
    for check, n in zip(record["checks"] if ok else (), counts, strict=False):
        ok = ok and isinstance(check, dict) and check.get("games") == n \
            and (check.get("half_width") is None or _is(check["half_width"], int | float))
    if not ok:
        raise _damaged(path, "is damaged: its precision record is not one that --precision "
                             "writes")


COPY_NOTICE = 1_000_000
"""From this many games a resume says that it copies them first: a million Rabbit Hunt games
took 15 s on two busy cores."""


_WATCHERS: list[Callable] = []


@contextmanager
def watching(watcher: Callable) -> Iterator[None]:
    """Call ``watcher(plan, out, chunk, done)`` in this process as every ``run_games`` plays:
    once before its first game (``chunk`` None, ``done`` the games already in ``out`` when it
    resumes) and after every chunk, in game order. The workbench's worker (``simkit serve``)
    shows live progress from it; a watcher must be quick and must not raise."""
    _WATCHERS.append(watcher)
    try:
        yield
    finally:
        _WATCHERS.remove(watcher)


def _tell_watchers(p: Plan, out, chunk, done: int) -> None:
    for watcher in _WATCHERS:
        watcher(p, out, chunk, done)


def run_games(run: RunSpec, out: Path | None = None, workers: int | None = None,
              scheduler: Any = None, chunk_size: int | None = None, progress: bool = False,
              overwrite: bool = False, tally: bool = False, bar: Any = None,
              resume: bool = False, grow: bool = False, note: dict | None = None
              ) -> RunResult:
    """Play ``run``; write a run folder to ``out`` (or keep the tables in memory).

    ``workers`` local threads (default: all cores), or a Dask cluster when ``scheduler`` is
    an address (``tcp://host:8786``) or a ``distributed.Client``. Returns the tables as
    DataFrames (None when written to ``out``, to keep memory bounded: ``read_run`` reads
    them) and run.json, and
    with ``tally`` the counts of the run's summary (``simkit.reports.tally.Tally``: what
    ``simkit run`` prints, without reading the tables back).
    On Ctrl-C the games finished so far are kept, marked ``complete: false``.
    ``bar``: a progress bar (``update(n)``) to advance instead of a bar of the run's own, as
    a ladder shows one bar over all its runs; the caller closes it.
    ``resume``: continue the interrupted run of the same settings in ``out`` (its finished
    games are kept and the rest played: the tables are those of an uninterrupted run); a
    complete one is left as it is (the result then has no tally).
    ``note``: more entries of run.json, written with the folder (``run_precise``'s record
    of its checks, so that a run stopped in a step knows where it was)."""
    p = plan(run)
    workers = workers or os.cpu_count() or 1
    first, previous = _resume_point(run, out, grow) if resume and out is not None \
        else (0, None)
    if previous is not None and previous.get("complete") and first == run.games:
        return RunResult(None, None, previous, None)
    cap = chunk_cap(p)
    if chunk_size is not None:
        chunk_size = min(chunk_size, cap)
    if p.search_nodes:  # seconds a game: small chunks, for progress and for Ctrl-C
        bounds = chunk_bounds(run.games, workers, chunk_size, min(SEARCH_CHUNK, cap), 1,
                              start=first)
    elif p.learned_features:  # milliseconds a game in a big game: smaller chunks
        bounds = chunk_bounds(run.games, workers, chunk_size, min(LEARNED_CHUNK, cap),
                              min(LEARNED_CHUNK // 8, cap), start=first)
    else:
        bounds = chunk_bounds(run.games, workers, chunk_size, min(DEFAULT_CHUNK, cap),
                              min(MIN_CHUNK, cap), start=first)
    first_play(p, progress)
    # a run of one chunk is played here: no thread to start for it
    backend = _Backend(p, workers if len(bounds) > 1 else 1, scheduler)
    writer = None
    try:
        writer = RunWriter(out, overwrite or previous is not None) if out is not None else None
        if previous is not None and first:
            if progress and first >= COPY_NOTICE:
                print(f"copying the {first:,} games played in {out}...", file=sys.stderr,
                      flush=True)
            writer.copy_from(Path(out))
            tally = False  # the summary is read from the folder (the first games were not
            # counted here)
    except BaseException as exc:
        if writer is not None:
            writer.abort()
        backend.close(wait=False)
        if isinstance(exc, KeyboardInterrupt) and previous is not None:  # in the copy
            raise RunAbandoned(f"stopped before any game was finished; {out} is as it was "
                               "before") from exc
        if isinstance(exc, OSError) and previous is not None:  # a full disk in the copy
            raise SimkitError(f"writing {out} failed ({exc.strerror or exc}); {out} is as it "
                              "was before") from exc
        raise
    started = time.perf_counter()
    own_bar = progress and bar is None
    if own_bar:
        bar = progress_bar(run.games, run.game, initial=first)
    kept_games: list[pa.Table] = []
    kept_items: list[pa.Table] = []
    kept_trace: list[pa.Table] = []
    kept_log: list[pa.Table] = []
    counts = _tally_for(p) if tally else None
    if counts is not None:
        from simkit.reports.stats import prepare

        prepare()  # the summary's scipy imported while the games play
    done = first
    search_stats = None
    stop = _StopRequests()
    _tell_watchers(p, out, None, first)
    try:
        with stop:
            for chunk, g, it, tr, lg in _ordered(backend.submit, backend.result, bounds,
                                                 backend.pending_max):
                if writer is not None:
                    writer.write(g, it, tr, lg)
                else:
                    kept_games.append(g)
                    kept_items.append(it)
                    if tr is not None:
                        kept_trace.append(tr)
                    if lg is not None:
                        kept_log.append(lg)
                if counts is not None:
                    counts.add(chunk)
                done += len(chunk.seeds)
                _tell_watchers(p, out, chunk, done)
                search_stats = add_search_stats(search_stats, chunk)
                if bar is not None:
                    bar.update(len(chunk.seeds))
                if stop.requested:
                    break
            if stop.requested and done == first:
                raise KeyboardInterrupt
            elapsed = time.perf_counter() - started
            complete = done == run.games
            meta = run_meta(p, backend.name, max((c for _, c in bounds), default=0), elapsed,
                            done, complete, search_stats)
            meta.update(note or {})
            if previous is not None and first:
                meta["elapsed_seconds"] = round(elapsed + previous.get("elapsed_seconds", 0), 3)
                meta["games_per_second"] = round(done / meta["elapsed_seconds"], 1) \
                    if meta["elapsed_seconds"] > 0 else None
                meta["resumed_at"] = sorted({*previous.get("resumed_at", []), first})
                if previous.get("search") and search_stats is not None:
                    meta["search_note"] = ("search statistics cover the games played after "
                                           f"game {first} (the run was resumed there)")
            if writer is not None:
                writer.close(meta, model_files(run))
    except BaseException as exc:
        if writer is not None:
            writer.abort()
            if folders.disk_full(exc):
                raise folders.no_space(out, "nothing was kept and the disk is as it was") \
                    from exc
            if isinstance(exc, OSError):  # a folder removed under us
                raise SimkitError(f"writing {out} failed ({exc.strerror or exc}); nothing "
                                  "was kept and the disk is as it was") from exc
        if isinstance(exc, KeyboardInterrupt) and not isinstance(exc, RunInterrupted):
            played = done - first
            kept = (f"{out} is as it was before" if previous is not None and first
                    else "no run folder was written")
            if played:
                raise RunAbandoned(f"a second Ctrl-C stopped at once: the {played:,} games "
                                   f"played were discarded and {kept}") from exc
            raise RunAbandoned(f"stopped before any game was finished; {kept}") from exc
        raise
    finally:
        if own_bar:
            bar.close()
        backend.close(wait=not stop.requested)
    result_games = result_items = result_trace = None  # written: not read back
    if writer is None:
        result_games = pa.concat_tables(kept_games).to_pandas()
        result_items = pa.concat_tables(kept_items).to_pandas()
        if kept_trace:
            result_trace = pa.concat_tables(kept_trace).to_pandas()
    res = RunResult(result_games, result_items, meta, counts, result_trace,
                    pa.concat_tables(kept_log).to_pandas() if kept_log else None)
    if not complete or stop.requested:
        # a stop asked for during the last chunk (a run of one chunk has only that) still
        # stops what plays this run: a ladder, a sweep, an experiment file's next run
        raise RunInterrupted(res, out)
    return res


def _tally_for(p: Plan):
    from simkit.reports.feel import FeelTally
    from simkit.reports.tally import Tally

    spec = registry.get_game(p.run.game)
    tally = Tally(p.run.players, spec.teams(p.run.players), p.slots,
                  p.run.strategies, spec.end_reasons, p.item_columns)
    tally.feel = FeelTally(p.run.players, spec.teams(p.run.players), p.phases,
                           spec.progress_unit if spec.has_progress else None)
    return tally


class RunAbandoned(KeyboardInterrupt):
    """Raised when a run stops with nothing to keep: before its first chunk finished, or at
    a second Ctrl-C (which stops at once); its message says what became of the games."""


class RunInterrupted(KeyboardInterrupt):
    """Raised after Ctrl-C once the finished games are safely written: all of them when
    the stop came during the last chunk (``result.meta["complete"]`` then says so)."""

    def __init__(self, result: RunResult, out: Path | None):
        super().__init__("interrupted")
        self.result = result
        self.out = out


def add_search_stats(total: np.ndarray | None, chunk: Chunk) -> np.ndarray | None:
    """``total`` with a chunk's search statistics added (the deepest leaf: the larger)."""
    if chunk.search is None:
        return total
    if total is None:
        return chunk.search.copy()
    deepest = np.maximum(total[:, 2], chunk.search[:, 2])
    total = total + chunk.search
    total[:, 2] = deepest
    return total


def search_summary(p: Plan, stats: np.ndarray | None) -> dict | None:
    """What the run's searches did, per search slot: decisions searched, iterations a
    decision, the mean and deepest depth of the leaves reached in the tree, and playout
    decisions an iteration (run.json's ``search``)."""
    if stats is None:
        return None
    out = {}
    specs = registry.strategies_for(p.run.game)
    for i, name in enumerate(p.slots):
        if not specs[p.base(i)].searches:
            continue
        iterations, depth, deepest, playout, decisions = (float(x) for x in stats[i][:5])
        out[name] = {
            "decisions": int(decisions),
            "iterations_per_decision": round(iterations / decisions, 1) if decisions else None,
            "mean_depth": round(depth / iterations, 2) if iterations else None,
            "max_depth": int(deepest),
            "playout_decisions_per_iteration": round(playout / iterations, 1)
            if iterations else None,
        }
    return out


def run_meta(p: Plan, backend: str, chunk_size: int, elapsed: float, done: int,
             complete: bool, search_stats: np.ndarray | None = None) -> dict:
    spec = registry.get_game(p.run.game)
    return {
        "schema_version": SCHEMA_VERSION,
        "game": spec.name,
        "game_version": spec.version,
        "players": p.run.players,
        "games": p.run.games,
        "games_completed": done,
        "complete": complete,
        "master_seed": p.run.seed,
        "strategies": list(p.run.strategies),
        "rotate": p.run.rotate,
        "strategy_weights": {name: p.slot_weights(i) for i, name in enumerate(p.slots)},
        "search": search_summary(p, search_stats),
        "teams": [t + 1 for t in spec.teams(p.run.players)],
        "seat_names": list(spec.seat_names(p.run.players)) if spec.seat_names else None,
        "choice_events": sorted(spec.choice_events) if spec.choice_events is not None
        else None,
        "choice_columns": spec.choices_of(p.item_columns),
        "item_names": {c: spec.column_name(c) for c in p.item_columns},
        "end_reasons": list(spec.end_reasons),
        "item_columns": list(p.item_columns),
        "phases": list(p.phases),
        "trace_games": min(p.run.trace, done),
        "kingmaking_games": min(p.run.kingmaking, done),
        "logged_games": min(p.run.log_decisions, done),
        "progress_unit": spec.progress_unit if spec.has_progress else None,
        "params": {k: {"value": q.value, "default": q.default, "source": q.source,
                       "why": q.why, "changed": q.changed} for k, q in p.params.items()},
        "overrides": {k: data.thaw(v) for k, v in p.run.overrides},
        "data_digest": data.data_digest(p.params),
        "models": models_meta(p),
        "model_mismatch": p.run.model_mismatch,
        "backend": backend,
        "chunk_size": chunk_size,
        "versions": _versions(),
        "elapsed_seconds": round(elapsed, 3),
        "games_per_second": round(done / elapsed, 1) if elapsed > 0 else None,
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "run_spec": asdict(p.run),
    }


PRECISION_START = 1_000
"""The first game count at which ``--precision`` checks its rule; then 2x, 4x, ... that."""


def checkpoints(games: int, start: int = PRECISION_START) -> list[int]:
    """The game counts at which a run with ``--precision`` checks whether it may stop:
    ``start * 2**k`` below ``games``, then ``games``. Fixed counts, never "after this
    chunk", so the same seed stops at the same game on any number of workers."""
    out, n = [], start
    while n < games:
        out.append(n)
        n *= 2
    return out + [games]


PRECISION_RULE = f"checked at {PRECISION_START:,} games and every doubling after"


def run_precise(run: RunSpec, out: Path, precision: float, widths: Callable[[Path], dict],
                workers: int | None = None, scheduler: Any = None, progress: bool = False,
                overwrite: bool = False, resume: bool = False, chunk_size: int | None = None
                ) -> dict:
    """Play ``run`` to ``out`` in steps (``checkpoints``) until every half-width that
    ``widths(out)`` gives (name -> 95% half-width) is at most ``precision``, or until
    ``run.games``. Returns the record of the stop (also written to run.json's
    ``precision``): the target, what stopped it, and the widest half-width at each check.

    The record is in run.json from the first step on, with the checks made so far and
    ``stopped_by`` None until it stops, so that ``resume`` continues a run stopped anywhere
    (in a step, between steps) to the same stop and the same tables as a run never stopped:
    each recorded check is taken as it was, and the step in hand is resumed."""
    record = {"target": precision, "stopped_by": None, "checks": [], "max_games": run.games,
              "rule": PRECISION_RULE}
    played = False  # whether out holds this run's first steps
    if resume:
        _, meta = check_resume(run, out, precision)
        if meta is not None:
            record, played = {**record, **meta["precision"]}, True
            if record["stopped_by"] is not None:  # it had stopped: left as it is
                return record
    checks = record["checks"]
    reached = {c["games"]: c for c in checks}
    try:
        for n in checkpoints(run.games):
            check = reached.get(n)
            if check is None:
                run_games(replace(run, games=n), out=out, workers=workers, scheduler=scheduler,
                          chunk_size=chunk_size, progress=progress,
                          overwrite=overwrite and not played, resume=played, grow=True,
                          note={"precision": {**record, "checks": list(checks)}})
                played = True
                w = widths(out)
                name = max(w, key=w.get) if w else None
                half = w.get(name) if w else None
                if half is not None and not math.isfinite(half):
                    half = None  # too few games to measure (a game alone has no interval)
                check = {"games": n, "widest": name, "half_width": half}
                checks.append(check)
                _record_precision(out, record)
            if check["half_width"] is not None and check["half_width"] <= precision:
                record["stopped_by"] = "precision" if n < run.games else "both"
                break
        else:
            record["stopped_by"] = "games"
        _record_precision(out, record)
    except KeyboardInterrupt as exc:
        if isinstance(exc, RunInterrupted | RunAbandoned) or not played:
            raise
        # Ctrl-C between two steps (reading the tables for a check, or copying them for
        # the next step): the steps played are in out, as a stop within a step keeps them
        raise RunInterrupted(RunResult(None, None, _resumable_meta(out)), out) from exc
    return record


def _record_precision(out: Path, record: dict) -> None:
    """Write ``record`` into run.json's ``precision``, whole or not at all."""
    import json

    from simkit.folders import write_json

    path = Path(out) / "run.json"
    meta = json.loads(path.read_text(encoding="utf-8"))
    meta["precision"] = record
    write_json(path, meta)
