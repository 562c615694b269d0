"""``simkit train``: one generic learner for every game (docs/learning.md).

A model learns a game by self-play, generation after generation:

1. **Self-play.** The last accepted model plays ``games_per_generation`` games against
   itself (``search_template.learned_games``, the kernels ``learned`` plays with, with
   exploration: ``epsilon``, ``temperature``), seeded by index from a seed of its own, as the
   runner seeds a run. Every decision of more than one move is recorded: the features of
   the position it led to, as the deciding seat saw it, the seat, the game, whether it
   ended the game; and each game's score shares.
2. **Fit.** The learner (a network per seat, carried on from generation to generation)
   is fitted to TD(lambda) targets of the data of the last ``buffer`` generations: along
   each seat's afterstates in a game, ``G_t = (1 - lambda) V(x_{t+1}) + lambda G_{t+1}``,
   the last one's target the seat's final score share (lambda 1: the outcome alone), ``V``
   the learner's values before the fit. Cross-entropy to the sigmoid, Adam in numpy, the
   data in an order drawn from the seed: the same data give the same weights.
3. **Acceptance.** The learner plays the last accepted model on ``match_games`` paired
   games (each seed once with the learner in every seat, the accepted model in the
   others); it is accepted when its score share beats the accepted model's at p < 0.05
   (one-sided t-test over the seeds' paired differences). Every accepted generation is
   kept in the training folder.
4. **Yardstick.** The learner plays the game's ``heuristic`` (or ``random`` where there is
   none) on seeds of their own, seats rotated, and its score is printed; no decision
   depends on it. The heuristic is never a teacher, an opponent in training or a feature.

Reproducibility: every random choice derives from the seed and the generation's number
(never from the time or the number of workers); a generation's files are written whole
before train.json records it, so an interrupted training resumes from its last finished
generation and writes the same model bytes as an uninterrupted one.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from simkit import data, learn, registry
from simkit.errors import SimkitError
from simkit.folders import write_json

CHUNK = 32
"""Games a self-play task plays: fixed, so the data do not depend on the workers."""
ACCEPT_P = 0.05


@dataclass(frozen=True)
class TrainSpec:
    """Everything that decides a training's model (a model's card records it)."""

    game: str
    players: int
    seed: int = 0
    games: int | None = None
    """Self-play games in all (None: until ``--time`` runs out, at a generation's end)."""
    overrides: tuple = ()
    hidden: int = 32
    lam: float = 0.8
    learning_rate: float = 0.003
    games_per_generation: int = 1000
    match_games: int = 400
    temperature: float = 0.0
    epsilon: float = 0.1
    samples: int = 1
    epochs: int = 4
    batch: int = 128
    buffer: int = 4
    yardstick: str = ""
    yardstick_games: int = 200
    base: str = ""
    """The digest of the model this training starts from (``--from``: fine-tuning), or ""
    for a training from nothing (generation 0 values every position alike)."""
    base_file: str = ""
    """Where the base model was read (for the command that reproduces the model)."""

    def generation_games(self, g: int) -> int:
        """Self-play games of generation ``g`` (1, 2, ...): the last one of a ``games``
        budget takes what is left."""
        if self.games is None:
            return self.games_per_generation
        return max(0, min(self.games_per_generation,
                          self.games - (g - 1) * self.games_per_generation))

    def generations(self) -> int | None:
        if self.games is None:
            return None
        return math.ceil(self.games / self.games_per_generation)

    def knobs(self) -> dict:
        d = asdict(self)
        for k in ("game", "players", "seed", "games", "overrides", "base", "base_file"):
            d.pop(k)
        return d

    def command(self, games: int | None = None) -> str:
        """The ``simkit train`` command that gives this model (``games`` reached for a
        training bounded by time)."""
        defaults = TrainSpec(self.game, self.players)
        flags = {"hidden": "--hidden", "lam": "--lambda", "learning_rate": "--learning-rate",
                 "games_per_generation": "--generation-games", "match_games": "--match-games",
                 "temperature": "--temperature", "epsilon": "--epsilon",
                 "samples": "--samples", "epochs": "--epochs", "batch": "--batch",
                 "buffer": "--buffer", "yardstick": "--yardstick",
                 "yardstick_games": "--yardstick-games"}
        parts = [f"simkit train {self.game} --players {self.players} --seed {self.seed} "
                 f"--games {games if games is not None else self.games}"]
        for k, v in dict(self.overrides).items():
            parts.append(f"--set {k}={json.dumps(data.thaw(v))}" if not isinstance(v, str)
                         else f"--set {k}={v}")
        if self.base:
            parts.append(f"--from {self.base_file or 'MODEL'}")
        for name, flag in flags.items():
            if getattr(self, name) != getattr(defaults, name) and not (
                    name == "yardstick" and getattr(self, name) == _yardstick(self.game)):
                parts.append(f"{flag} {getattr(self, name):g}" if not isinstance(
                    getattr(self, name), str) else f"{flag} {getattr(self, name)}")
        return " ".join(parts)


def _yardstick(game: str) -> str:
    own = registry.strategies_for(game)
    return "heuristic" if "heuristic" in own else "random"


def make_spec(game: str, players: int, seed: int = 0, games: int | None = None,
              overrides=None, base: learn.Model | None = None, base_file: str = "",
              **knobs) -> TrainSpec:
    """A TrainSpec from user-facing arguments, checked: one line naming the problem.
    ``base``: the model to start from (fine-tuning); its hidden units and the samples it
    plays with are the training's unless given."""
    from simkit.runner import RunSpec, check_seed

    spec = registry.get_game(game)
    registry.check_learnable(game, "simkit train")
    if players not in spec.players:
        raise SimkitError(f"{game} is for {', '.join(map(str, spec.players))} players, "
                          f"not {players}")
    check_seed(seed)
    if games is not None and (not isinstance(games, int) or isinstance(games, bool)
                              or not 1 <= games <= 10**9):
        raise SimkitError(f"--games must be a number of self-play games from 1 to "
                          f"1,000,000,000, not {games!r}")
    over = data.parse_overrides(overrides)
    data.apply_overrides(spec.data, over)
    frozen = tuple(sorted((k, data.freeze(v)) for k, v in over.items()))
    knobs = {k: v for k, v in knobs.items() if v is not None}
    if base is not None:
        learn.check_fits(base, base_file or "the base model", game, players,
                         tuple(spec.features))
        if knobs.get("hidden", base.hidden) != base.hidden:
            raise SimkitError(f"--hidden {knobs['hidden']}: the model to start from has "
                              f"{base.hidden} hidden units; leave --hidden out to keep them")
        knobs["hidden"] = base.hidden
        knobs.setdefault("samples", int(learn.play_defaults(base).get("samples", 1)))
        knobs.update(base=base.digest, base_file=str(base_file))
    ts = TrainSpec(game, players, seed, games, frozen, **knobs)
    if not ts.yardstick:
        ts = replace(ts, yardstick=_yardstick(game))
    _check_knobs(ts)
    RunSpec.make(game, players, 1, overrides=over)  # the data make a game at this count
    return ts


KNOB_RANGES = {
    "hidden": (0, 1024, True), "lam": (0, 1, False), "learning_rate": (1e-6, 1, False),
    "games_per_generation": (1, 10**7, True), "match_games": (2, 10**6, True),
    "temperature": (0, 100, False), "epsilon": (0, 1, False), "samples": (1, 1000, True),
    "epochs": (1, 1000, True), "batch": (1, 10**6, True), "buffer": (1, 1000, True),
    "yardstick_games": (0, 10**6, True)}


def check_ranges(spec, ranges: dict, label=lambda name: name.replace("_", " ")) -> None:
    """Each of ``spec``'s knobs named in ``ranges`` (name: (low, high, whole)) in its
    range, or one line naming it (``label(name)``) and the range."""
    for name, (low, high, whole) in ranges.items():
        v = getattr(spec, name)
        if isinstance(v, bool) or not isinstance(v, int | float) or not low <= v <= high \
                or (whole and v != int(v)):
            kind = "a whole number" if whole else "a number"
            raise SimkitError(f"{label(name)} must be {kind} from {low:g} to {high:,g}, "
                              f"not {v!r}")


def _check_knobs(ts: TrainSpec) -> None:
    check_ranges(ts, KNOB_RANGES)
    own = registry.strategies_for(ts.game)
    if ts.yardstick not in own or own[ts.yardstick].search is not None:
        from simkit.errors import unknown

        raise unknown(f"yardstick for {ts.game} (a strategy that does not search)",
                      ts.yardstick, [k for k, v in own.items() if v.search is None])


@contextlib.contextmanager
def reused_memory():
    """Within it, large arrays come from the heap, and freed ones stay there for the next.

    A generation makes and frees arrays of a gigabyte and more (the window's features, the
    standard deviation's temporary, the self-play records). glibc gives each one pages of its
    own from the kernel (``mmap``) and returns them when it is freed, so the next one faults
    in fresh pages that the kernel must clear: on the 2-core virtual machine that took more
    CPU than the training itself (War of the Wilds at 2 players, 40,000 games: 1,293 s of
    system time against 936 s of user time). Here glibc keeps them (``mallopt``: no
    ``mmap``, no trimming), and at the end gives back what is free (``malloc_trim``) and
    takes glibc's defaults again (its threshold for ``mmap`` then stays where it was,
    no longer moved by what is freed). The arrays' values are the same; elsewhere than
    glibc it does nothing."""
    libc = _glibc()
    if libc is None:
        yield
        return
    libc.mallopt(_M_MMAP_MAX, 0)
    libc.mallopt(_M_TRIM_THRESHOLD, 2**31 - 1)
    try:
        yield
    finally:
        libc.mallopt(_M_MMAP_MAX, 65536)  # glibc's defaults
        libc.mallopt(_M_TRIM_THRESHOLD, 128 * 1024)
        libc.malloc_trim(0)


_M_TRIM_THRESHOLD, _M_MMAP_MAX = -1, -4  # glibc's malloc.h


def _glibc():
    """The C library when it is glibc (``mallopt``), else None."""
    import ctypes
    import platform

    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return None
    try:
        libc = ctypes.CDLL(None)
        return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


def derived_seed(seed: int, purpose: str, generation: int = 0) -> int:
    """A master seed of its own for each use of the training's seed: self-play and matches
    of each generation, the yardstick. The yardstick's seeds are never self-play's."""
    h = hashlib.sha256(f"simkit-train:{seed}:{purpose}:{generation}".encode()).digest()
    return int.from_bytes(h[:8], "little")


# ---------------------------------------------------------------- playing with models

@dataclass
class Games:
    """What ``play`` records. Per decision: ``feats`` float32[N, F], ``seat`` int8[N],
    ``game`` int32[N] (index into the batch), ``ended`` bool[N]; per game: ``shares``
    float64[G, P], ``turns`` int32[G]."""

    feats: np.ndarray
    seat: np.ndarray
    game: np.ndarray
    ended: np.ndarray
    shares: np.ndarray
    turns: np.ndarray


class Table:
    """A game at a player count and data, ready to play learned models on threads."""

    def __init__(self, game: str, players: int, overrides=()):
        from simkit.runner import RunSpec, plan
        from simkit.search import load_search

        self.spec = registry.get_game(game)
        self.plan = plan(RunSpec.make(game, players, 1, overrides=dict(overrides)))
        self.module = load_search(game)
        self.players = players
        self.features = len(self.spec.features)
        self.teams = np.array(self.spec.teams(players), np.int32)

    def row(self, model: learn.Model, **named) -> np.ndarray:
        """The weights row ``learned`` plays ``model`` with."""
        named = {**learn.NAMED, **learn.play_defaults(model), **named}
        return np.concatenate([np.array(list(named.values()), np.float64), model.flat()])

    def play(self, rows: np.ndarray, seat_rows: np.ndarray, seeds: np.ndarray,
             record: bool, workers: int = 1) -> Games:
        """Play the games of ``seeds`` (seat ``s`` of game ``g`` by row ``seat_rows[g,
        s]`` of ``rows``) in chunks of ``CHUNK`` on ``workers`` threads; the results in
        game order."""
        bounds = [(s, min(CHUNK, len(seeds) - s)) for s in range(0, len(seeds), CHUNK)]
        rows = np.ascontiguousarray(rows, np.float64)
        seat_rows = np.ascontiguousarray(seat_rows, np.int32)
        seeds = np.ascontiguousarray(seeds, np.uint64)

        def chunk(b):
            return self._chunk(rows, seat_rows[b[0]:b[0] + b[1]], seeds[b[0]:b[0] + b[1]],
                               record, b[0])

        if workers > 1 and len(bounds) > 1:
            with ThreadPoolExecutor(workers) as pool:
                parts = list(pool.map(chunk, bounds))
        else:
            parts = [chunk(b) for b in bounds]
        return Games(*(np.concatenate([getattr(p, k) for p in parts])
                       for k in ("feats", "seat", "game", "ended", "shares", "turns")))

    def _chunk(self, rows, seat_rows, seeds, record: bool, offset: int) -> Games:
        p, n, f = self.plan, self.players, self.features
        size, moves = p.state_size, p.max_moves
        k = max(1, len(p.item_columns))
        cap = 64 * len(seeds) if record else 0
        out = _outputs(cap, f)
        shares = np.zeros((len(seeds), n))
        turns = np.zeros(len(seeds), np.int32)
        scratch = (np.empty(size, np.int32), np.empty(size, np.int32),
                   np.empty(moves, np.int32), np.empty(1 + n, np.uint64),
                   np.zeros((n, k), np.int32), np.empty(size, np.int32),
                   np.empty(size, np.int32), np.empty(size, np.int32),
                   np.zeros((n, k), np.int32), np.zeros(n), np.zeros(n, np.int32),
                   np.zeros(n), np.zeros(f + learn.SCRATCH), np.zeros(moves))
        kept, first = [], 0
        while True:
            g, r = self.module.learned_games(p.compiled, n, seeds, first, seat_rows, rows,
                                             p.max_turns, self.teams, *scratch, *out, shares,
                                             turns)
            kept.append(tuple(a[:r].copy() for a in out))
            if g == len(seeds):
                break
            if r == 0:  # one game alone did not fit: room for twice as many decisions
                cap *= 2
                out = _outputs(cap, f)
            first = g
        feats, seat, game, ended = (np.concatenate([x[i] for x in kept]) for i in range(4))
        return Games(feats, seat.astype(np.int8), game + offset, ended.astype(bool), shares,
                     turns)


def stack_rows(rows: list[np.ndarray]) -> np.ndarray:
    """Weights rows of models of different sizes as one array (each padded with zeros)."""
    out = np.zeros((len(rows), max(len(r) for r in rows)))
    for i, r in enumerate(rows):
        out[i, :len(r)] = r
    return out


def _outputs(cap: int, f: int) -> tuple:
    return (np.zeros((cap, f), np.float32), np.zeros(cap, np.int32), np.zeros(cap, np.int32),
            np.zeros(cap, np.bool_))


def match(table: Table, candidate: learn.Model, accepted: learn.Model, games: int,
          seed: int, workers: int = 1) -> dict:
    """The candidate against the accepted model on paired games: ``games // P`` seeds, each
    played P times with the candidate in each seat in turn and the accepted model in the
    others, both greedy. Per seed, the candidate's mean share minus the mean share of an
    accepted seat; accepted when their mean is above 0 at p < ``ACCEPT_P`` (one-sided t).
    ``score``: the candidate's share of the two (one half when they are alike)."""
    from simkit.rng import game_seeds

    n = table.players
    pairs = max(2, games // n)
    base = game_seeds(seed, 0, pairs)
    seeds = np.repeat(base, n)
    seat_rows = np.ones((pairs * n, n), np.int32)
    for r in range(n):
        seat_rows[r::n, r] = 0
    rows = stack_rows([table.row(candidate), table.row(accepted)])
    out = table.play(rows, seat_rows, seeds, record=False, workers=workers)
    mine = (out.shares * (seat_rows == 0)).sum(axis=1).reshape(pairs, n).mean(axis=1)
    theirs = (out.shares * (seat_rows == 1)).sum(axis=1).reshape(pairs, n).mean(axis=1)
    theirs = theirs / max(n - 1, 1)
    diff = mine - theirs
    c, a = float(mine.mean()), float(theirs.mean())
    return {"games": int(pairs * n), "score": c / (c + a) if c + a > 0 else 0.5,
            "share": c, "p_value": _one_sided_p(diff)}


def accepts(result: dict) -> bool:
    """The acceptance rule: a score share above one half at p < ``ACCEPT_P``."""
    return result["score"] > 0.5 and result["p_value"] < ACCEPT_P


def _one_sided_p(diff: np.ndarray) -> float:
    """p of a one-sided t-test that ``diff``'s mean is above 0."""
    mean = float(diff.mean())
    sd = float(diff.std(ddof=1)) if len(diff) > 1 else 0.0
    if sd == 0.0:
        return 0.0 if mean > 0 else 1.0
    from scipy.stats import t

    return float(t.sf(mean / (sd / math.sqrt(len(diff))), len(diff) - 1))


def yardstick(ts: TrainSpec, model: learn.Model, workers: int = 1, games: int | None = None,
              seed: int | None = None, against: str | None = None) -> dict:
    """``model`` (greedy) against ``against`` (the yardstick) in every other seat, seats
    rotated, on the yardstick's own seeds: its score share, outright win rate and rating
    (Elo points from the score share against the yardstick's)."""
    from simkit.runner import RunSpec, run_games

    n = ts.players
    games = ts.yardstick_games if games is None else games
    against = against or ts.yardstick
    if games <= 0:
        return {}
    games = max(n, games - games % n)
    run = RunSpec.make(ts.game, n, games, derived_seed(ts.seed, "yardstick")
                       if seed is None else seed, ["learned"] + [against] * (n - 1),
                       dict(ts.overrides), True, models={"learned": model})
    res = run_games(run, workers=workers)
    shares = score_shares_of(res.games, n)
    mine = np.zeros(len(shares))
    won = np.zeros(len(shares))
    for s in range(n):
        is_mine = (res.games[f"strategy_s{s + 1}"] == "learned").to_numpy()
        mine += np.where(is_mine, shares[:, s], 0)
        won += np.where(is_mine, shares[:, s] == 1.0, 0)
    theirs = (shares.sum(axis=1) - mine) / max(n - 1, 1)
    c, a = float(mine.mean()), float(theirs.mean())
    score = c / (c + a) if c + a > 0 else 0.5
    clipped = min(max(score, 1e-3), 1 - 1e-3)
    return {"strategy": against, "games": int(len(shares)), "score": score, "share": c,
            "win_rate": float(won.mean()), "elo": 400 * math.log10(clipped / (1 - clipped))}


def score_shares_of(games, n: int) -> np.ndarray:
    """float[G, P] of a games table: each seat's score share (1 for the seats of a team
    alone at rank 1, 1/k for the rank-1 seats of k teams sharing it, 0 otherwise and at the
    turn cap), as ``search_template.score_shares`` counts it."""
    ranks = np.stack([games[f"rank_s{s + 1}"].to_numpy() for s in range(n)], axis=1)
    teams = np.stack([games[f"team_s{s + 1}"].to_numpy() for s in range(n)], axis=1)
    first = ranks == 1
    k = np.zeros(len(ranks))
    for t in np.unique(teams):
        k += (first & (teams == t)).any(axis=1)
    return np.where(first, 1.0 / np.maximum(k, 1)[:, None], 0.0)


# ---------------------------------------------------------------- learning

def td_targets(model: learn.Model, d: Games, lam: float) -> np.ndarray:
    """float64[N]: the TD(lambda) target of each recorded afterstate (see the module's
    docstring), with ``model``'s values."""
    n = len(d.seat)
    values = np.zeros(n)
    for s in np.unique(d.seat):
        rows = d.seat == s
        values[rows] = model.value(int(s), d.feats[rows])
    outcome = d.shares[d.game, d.seat]
    target = np.empty(n)
    after: dict[tuple[int, int], tuple[float, float]] = {}  # (game, seat) -> (V, G) next
    for i in range(n - 1, -1, -1):
        key = (int(d.game[i]), int(d.seat[i]))
        nxt = after.get(key)
        if nxt is None or d.ended[i]:
            target[i] = outcome[i]
        else:
            target[i] = (1 - lam) * nxt[0] + lam * nxt[1]
        after[key] = (values[i], target[i])
    return target


def restandardise(model: learn.Model, mean: np.ndarray, std: np.ndarray) -> None:
    """Move ``model`` to a new standardisation of its features without changing any value
    it gives: the first layer absorbs the change."""
    ratio = std / model.std
    shift = (mean - model.mean) / model.std
    if model.hidden:
        model.b1 += model.w1 @ shift
        model.w1 *= ratio
    else:
        model.b2 += model.w2 @ shift
        model.w2 *= ratio
    model.mean, model.std = mean.astype(np.float64), std.astype(np.float64)
    model._bytes = None


def fit(model: learn.Model, x: np.ndarray, seat: np.ndarray, target: np.ndarray,
        ts: TrainSpec, rng: np.random.Generator, overwrite: bool = False) -> float:
    """Fit ``model`` in place to ``target`` by cross-entropy, ``ts.epochs`` passes of Adam
    over minibatches of ``ts.batch`` rows in an order drawn from ``rng``, each seat's rows
    to its network. Returns the mean loss of the last pass. With ``overwrite``, ``x``
    (float64) is standardised in place: the caller's rows are spent, and a window of a
    million rows needs no copy of a gigabyte (fresh memory is slow to fault in on a
    virtual machine; the values are the same)."""
    z = np.subtract(x, model.mean, out=x if overwrite else None, dtype=np.float64)
    z /= model.std
    losses = []
    for k in range(model.w1.shape[0]):
        rows = np.flatnonzero(np.isin(seat, np.flatnonzero(model.seat_net == k)))
        if len(rows):
            losses.append(_fit_net(model, k, z, rows, target[rows], ts, rng))
    model._bytes = None
    return float(np.mean(losses)) if losses else float("nan")


class Adam:
    """Adam (Kingma and Ba 2015) over a list of arrays, updated in place: the value
    networks' fit here and the policy's (``simkit.distill``)."""

    def __init__(self, params: list, learning_rate: float, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-8):
        self.params, self.learning_rate = params, learning_rate
        self.beta1, self.beta2, self.eps, self.steps = beta1, beta2, eps, 0
        self.first = [np.zeros_like(q) for q in params]
        self.second = [np.zeros_like(q) for q in params]

    def step(self, grads: list) -> None:
        self.steps += 1
        b1, b2, n = self.beta1, self.beta2, self.steps
        for q, gq, m1, m2 in zip(self.params, grads, self.first, self.second, strict=True):
            m1 *= b1
            m1 += (1 - b1) * gq
            m2 *= b2
            m2 += (1 - b2) * gq * gq
            q -= self.learning_rate * (m1 / (1 - b1 ** n)) / (
                np.sqrt(m2 / (1 - b2 ** n)) + self.eps)


def _fit_net(m: learn.Model, k: int, z: np.ndarray, rows: np.ndarray, t: np.ndarray,
             ts: TrainSpec, rng: np.random.Generator) -> float:
    """Fit network ``k`` to targets ``t`` of the rows ``rows`` of ``z``."""
    h = m.hidden
    params = [m.w1[k], m.b1[k], m.w2[k], m.b2[k:k + 1]] if h else [m.w2[k], m.b2[k:k + 1]]
    adam = Adam(params, ts.learning_rate)
    loss = 0.0
    for _ in range(ts.epochs):
        order = rng.permutation(len(t))
        total = 0.0
        for at in range(0, len(t), ts.batch):
            idx = order[at:at + ts.batch]
            zb, tb = z[rows[idx]], t[idx]
            if h:
                a = np.tanh(zb @ params[0].T + params[1])
                logit = a @ params[2] + params[3][0]
            else:
                logit = zb @ params[0] + params[1][0]
            p = 0.5 * (1 + np.tanh(0.5 * logit))
            total += float(np.sum(np.logaddexp(0, logit) - tb * logit))
            g = (p - tb) / len(tb)
            if h:
                ga = np.outer(g, params[2]) * (1 - a * a)
                grads = [ga.T @ zb, ga.sum(axis=0), a.T @ g, np.array([g.sum()])]
            else:
                grads = [zb.T @ g, np.array([g.sum()])]
            adam.step(grads)
        loss = total / len(t)
    return loss


def standardisation(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each feature's mean and standard deviation over ``x`` (a constant feature: 1)."""
    mean = x.mean(axis=0, dtype=np.float64)
    std = x.std(axis=0, dtype=np.float64)
    return mean, np.where(std > 1e-9, std, 1.0)


# ---------------------------------------------------------------- the training folder

@dataclass
class State:
    """What a training has done: its generations (train.json) and where it stands."""

    spec: dict
    generations: list = field(default_factory=list)
    accepted: int = 0
    games: int = 0


def folder_for(out: Path) -> Path:
    """The training folder beside the model ``out``: ``NAME.training``."""
    out = Path(out)
    return out.with_name(out.name[:-4] + ".training" if out.name.endswith(".npz")
                         else out.name + ".training")


def _card(ts: TrainSpec, table: Table, generation: int, state: State, fitted: dict) -> dict:
    spec = table.spec
    return {
        "kind": learn.KIND, "format": learn.FORMAT, "game": ts.game, "players": ts.players,
        "game_version": spec.version,
        "data_digest": data.data_digest(table.plan.params),
        "features": list(spec.features),
        "architecture": {"hidden": ts.hidden, "activation": "tanh" if ts.hidden else None,
                         "output": "sigmoid: the seat's expected score share",
                         "nets": "one per seat"},
        "training": {"command": ts.command(state.games), "seed": ts.seed,
                     "games": state.games, "generations": len(state.generations),
                     "generation": generation, "overrides": {k: data.thaw(v) for k, v in
                                                             ts.overrides},
                     "knobs": ts.knobs(), "algorithm": "TD(lambda) afterstates, self-play",
                     **({"from": ts.base} if ts.base else {})},
        "play": {"samples": ts.samples},
        "curve": state.generations,
        "rating": fitted,
    }


class Trainer:
    """A training in its folder: ``run`` plays its generations until its budget or
    ``seconds`` run out, ``say`` shows progress (one line a generation)."""

    def __init__(self, ts: TrainSpec, folder: Path, workers: int = 1, say=None,
                 base: learn.Model | None = None):
        if (base.digest if base is not None else "") != ts.base:
            raise ValueError("the base model is not the one the TrainSpec names")
        self.base = base
        self.ts = ts
        self.folder = Path(folder)
        self.workers = workers
        self.say = say or (lambda text: None)
        self.table = Table(ts.game, ts.players, ts.overrides)
        self._x: np.ndarray | None = None  # the window's features (``_window``)

    # -- files
    def _path(self, name: str) -> Path:
        return self.folder / name

    def _spec_doc(self) -> dict:
        d = json.loads(json.dumps(asdict(self.ts), default=str))
        d.pop("games")  # a budget, not a setting: --time may stop anywhere
        d.pop("base_file")  # where the base was read does not matter, its digest does
        return d

    def start(self, resume: bool) -> State:
        """The state to go on from: a new folder's, or (``resume``) the one its train.json
        records, refused in one line when it was trained with other settings."""
        doc_path = self._path("train.json")
        if resume and doc_path.is_file():
            try:
                doc = json.loads(doc_path.read_text(encoding="utf-8"))
                state = State(doc["spec"], doc["generations"], doc["accepted"], doc["games"])
                state.spec.setdefault("base", "")  # trained before fine-tuning existed
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise SimkitError(f"--resume: {doc_path} cannot be read ({exc}); train again "
                                  "with --overwrite") from exc
            if state.spec != self._spec_doc():
                keys = [k for k in self._spec_doc() if state.spec.get(k) !=
                        self._spec_doc()[k]]
                k = keys[0] if keys else "spec"
                raise SimkitError(f"--resume: {self.folder} holds a training with {k} "
                                  f"{state.spec.get(k)!r}, not {self._spec_doc().get(k)!r}; "
                                  "give the same settings, or --overwrite to start again")
            return state
        self.folder.mkdir(parents=True, exist_ok=True)
        return State(self._spec_doc())

    def _save_state(self, state: State) -> None:
        write_json(self._path("train.json"), {"spec": state.spec,
                                              "generations": state.generations,
                                              "accepted": state.accepted,
                                              "games": state.games})

    def initial(self) -> learn.Model:
        """Generation 0: the base model (fine-tuning), or a model that values every
        position alike (it plays at random)."""
        spec = self.table.spec
        card = _card(self.ts, self.table, 0, State(self._spec_doc()), {})
        if self.base is not None:
            return learn.Model(card, *(np.copy(getattr(self.base, k)) for k in learn.ARRAYS))
        rng = np.random.default_rng(derived_seed(self.ts.seed, "init"))
        return learn.new_model(card, len(spec.features), self.ts.hidden,
                               range(self.ts.players), rng)

    def _model(self, name: str) -> learn.Model:
        return learn.read_model(self._path(name), self.ts.game, self.ts.players,
                                tuple(self.table.spec.features), what="the training's model")

    def _data(self, g: int) -> Games:
        with np.load(self._path(f"data-{g:04d}.npz"), allow_pickle=False) as z:
            return Games(*(z[k] for k in ("feats", "seat", "game", "ended", "shares", "turns")))

    # -- one generation
    def run(self, state: State, seconds: float | None = None) -> State:
        """Play generations after those of ``state`` until the budget's last (or until the
        next would end after ``seconds``); each is kept once train.json says so."""
        with reused_memory():
            try:
                return self._run(state, seconds)
            finally:
                self._x = None  # the window's buffer, given back with the rest

    def _run(self, state: State, seconds: float | None = None) -> State:
        ts = self.ts
        if state.generations:
            learner = self._model(f"learner-{len(state.generations):04d}.npz")
            accepted = self._model(f"gen-{state.accepted:04d}.npz")
        else:
            learner = self.initial()
            accepted = learn.Model(**{k: getattr(learner, k) if k == "card"
                                      else np.copy(getattr(learner, k))
                                      for k in ("card", *learn.ARRAYS)})
            learn.write_model(accepted, self._path("gen-0000.npz"))
        started = time.monotonic()
        last = 0.0
        g = len(state.generations)
        while True:
            g += 1
            n_games = ts.generation_games(g)
            if n_games <= 0:
                break
            if seconds is not None and time.monotonic() - started + last > seconds:
                break
            t0 = time.monotonic()
            learner, accepted, record = self.generation(g, n_games, learner, accepted, state)
            state.generations.append(record)
            state.games += n_games
            if record["accepted"]:
                state.accepted = g
            self._save_state(state)  # the generation is done only once this is written
            self._forget(g)
            last = time.monotonic() - t0
            self.say(_progress_line(record, ts, state, last, seconds,
                                    time.monotonic() - started))
        return state

    def generation(self, g: int, n_games: int, learner: learn.Model, accepted: learn.Model,
                   state: State):
        """Play, fit, match and measure generation ``g``; its files written (train.json
        not yet): (learner, last accepted model, the curve's record)."""
        ts, table = self.ts, self.table
        from simkit.rng import game_seeds

        seeds = game_seeds(derived_seed(ts.seed, "self-play", g), 0, n_games)
        row = table.row(accepted, temperature=ts.temperature, epsilon=ts.epsilon,
                        samples=ts.samples)
        played = table.play(row[None], np.zeros((n_games, ts.players), np.int32), seeds,
                            record=True, workers=self.workers)
        np.savez(self._path(f".data-{g:04d}.partial.npz"), **asdict(played))
        os.replace(self._path(f".data-{g:04d}.partial.npz"), self._path(f"data-{g:04d}.npz"))
        window = [self._data(k) for k in range(max(1, g - ts.buffer + 1), g)] + [played]
        x = self._window(sum(len(d.seat) for d in window), table.features)
        np.concatenate([d.feats for d in window], out=x)
        seat = np.concatenate([d.seat for d in window])
        mean, std = standardisation(x)
        restandardise(learner, mean, std)
        target = np.concatenate([td_targets(learner, d, ts.lam) for d in window])
        loss = fit(learner, x, seat, target, ts, np.random.default_rng(
            derived_seed(ts.seed, "fit", g)), overwrite=True)
        result = match(table, learner, accepted, ts.match_games,
                       derived_seed(ts.seed, "match", g), self.workers)
        ok = accepts(result)
        stick = yardstick(ts, learner, self.workers)
        record = {"generation": g, "games": state.games + n_games, "decisions": len(seat),
                  "loss": round(loss, 6), "vs_last": {k: _round(v) for k, v in result.items()},
                  "accepted": ok, "yardstick": {k: _round(v) for k, v in stick.items()}}
        learner.card = _card(ts, table, g, State(state.spec, [*state.generations, record],
                                                 g if ok else state.accepted,
                                                 state.games + n_games), stick)
        learner._bytes = None
        learn.write_model(learner, self._path(f"learner-{g:04d}.npz"))
        if ok:
            accepted = learn.model_from_bytes(learner.to_bytes(), "the learner")
            learn.write_model(accepted, self._path(f"gen-{g:04d}.npz"))
        return learner, accepted, record

    def _window(self, rows: int, features: int) -> np.ndarray:
        """float64[rows, features]: the buffer the window's features are gathered in, kept
        from one generation to the next (the fit standardises it in place), so that a
        generation faults in no gigabyte of fresh memory."""
        if self._x is None or len(self._x) < rows or self._x.shape[1] != features:
            self._x = None
            self._x = np.empty((rows + rows // 4, features))
        return self._x[:rows]

    def _forget(self, g: int) -> None:
        """Remove the files generation ``g`` made old: the learner before it, and self-play
        data the next generation's buffer does not hold."""
        for name in (f"learner-{g - 1:04d}.npz", f"data-{g - self.ts.buffer + 1:04d}.npz"):
            if self._path(name).is_file():
                self._path(name).unlink()

    def final(self, state: State) -> learn.Model:
        """The last accepted model, its card with the whole curve and its rating."""
        model = self._model(f"gen-{state.accepted:04d}.npz")
        rating = next((r["yardstick"] for r in state.generations
                       if r["generation"] == state.accepted), {})
        model.card = _card(self.ts, self.table, state.accepted, state, rating)
        model._bytes = None
        return model


def _round(v):
    return round(v, 6) if isinstance(v, float) else v


def _progress_line(record: dict, ts: TrainSpec, state: State, last: float,
                   seconds: float | None, elapsed: float) -> str:
    from simkit.ladder import say_duration

    vs = record["vs_last"]
    line = (f"generation {record['generation']}"
            + (f"/{ts.generations()}" if ts.generations() else "")
            + f": {state.games:,} games; vs last accepted {vs['score']:.3f} "
            f"(p {'< 0.0001' if vs['p_value'] < 1e-4 else format(vs['p_value'], '.4f')}) "
            f"{'ACCEPTED' if record['accepted'] else 'not accepted'}")
    stick = record["yardstick"]
    if stick:
        line += (f"; vs {stick['strategy']} {stick['score']:.3f} (won {stick['win_rate']:.1%},"
                 f" {stick['elo']:+.0f} Elo)")
    left = None
    if ts.generations():
        left = last * (ts.generations() - record["generation"])
    if seconds is not None:
        left = max(0.0, seconds - elapsed) if left is None else min(left, seconds - elapsed)
    if left is not None:
        line += f"; {say_duration(max(left, 0))} left"
    return line


def remove_folder(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
