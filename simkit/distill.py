"""A policy for a model, distilled from its own afterstate values (docs/learning.md, "The
policy"; issue 29's fast ``learned``).

``learned`` by values applies every legal move to a determinisation and values the position
each leads to: strong, but 20 to 60 times the heuristic's CPU a decision. A policy scores
each legal move from the seat's observation alone: the features once, then for each move a
row of weights picked by the move's code, ``temperature * (W[code] . z + c[code])`` (the
same standardised features ``z`` as the values). It is learnt as Expert Iteration learns its
apprentice ("Thinking Fast and Slow with Deep Learning and Tree Search", 2017): imitate the
slower, stronger player, here the model's own value player, in self-play only.

1. **Self-play by the teacher.** The model plays ``policy_games`` games against itself by
   its values (``search_template.distill_games``, with the training's ``epsilon``,
   ``samples``), seeded by index from a master seed of its own (``train.derived_seed(seed,
   "distill")``), in fixed chunks of games on threads and concatenated in game order: the
   same data on any number of workers. At every decision of more than one move it records
   the features of the seat's observation, each legal move's code and the teacher's value
   of it.
2. **The moves it knows.** The ``policy_moves`` codes met most often (ties: the smaller
   code) get a row each; any other code shares one more row.
3. **Fit.** Per network, the cross-entropy between the policy's softmax over each decision's
   legal moves and the teacher's softmax of its values at ``policy_temperature`` (in score
   shares), with an L2 penalty ``policy_l2`` on the weights; Adam in numpy over
   ``policy_epochs`` passes, minibatches of ``batch`` decisions in an order drawn from the
   seed. Starts from zeros: the same data give the same weights.

The teacher is the model itself: the heuristic is never a teacher, an opponent or a feature.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from simkit import learn
from simkit.train import Adam, check_ranges, derived_seed

CHUNK = 32
"""Games a task plays: fixed, so the data do not depend on the workers."""


@dataclass(frozen=True)
class PolicySpec:
    """Everything that decides a distilled policy (its card records it)."""

    games: int = 2000
    seed: int = 0
    temperature: float = 0.02
    l2: float = 1e-4
    epochs: int = 6
    learning_rate: float = 0.01
    batch: int = 256
    moves: int = 1024
    epsilon: float = 0.1
    samples: int = 1

    def knobs(self) -> dict:
        return {"temperature": self.temperature, "l2": self.l2, "epochs": self.epochs,
                "learning_rate": self.learning_rate, "batch": self.batch,
                "moves": self.moves, "epsilon": self.epsilon, "samples": self.samples}


KNOB_RANGES = {
    "games": (1, 10**8, True), "temperature": (1e-4, 10, False), "l2": (0, 10, False),
    "epochs": (1, 1000, True), "learning_rate": (1e-6, 1, False), "batch": (1, 10**6, True),
    "moves": (1, 10**6, True), "epsilon": (0, 1, False), "samples": (1, 1000, True)}
FLAGS = {"games": "--policy-games", "temperature": "--policy-temperature",
         "l2": "--policy-l2", "epochs": "--policy-epochs", "moves": "--policy-moves"}


def check(ps: PolicySpec) -> None:
    """Every knob in its range, or one line naming it (its flag) and the range."""
    check_ranges(ps, KNOB_RANGES,
                 lambda name: FLAGS.get(name, f"the policy's {name.replace('_', ' ')}"))


@dataclass
class Records:
    """What the teacher's self-play records. Per decision: ``feats`` float32[R, F], ``seat``
    int8[R], ``start`` int64[R] and ``n`` int32[R] (its moves in the two arrays below); per
    legal move: ``codes`` int32[C], ``values`` float32[C] (the teacher's)."""

    feats: np.ndarray
    seat: np.ndarray
    start: np.ndarray
    n: np.ndarray
    codes: np.ndarray
    values: np.ndarray


def play(table, model: learn.Model, ps: PolicySpec, workers: int = 1,
         student: learn.Model | None = None, round_: int = 0) -> Records:
    """The teacher's self-play records (see the module's docstring), the same on any number
    of ``workers``; with a ``student`` (a policy being learnt) the student plays and the
    teacher labels its decisions (DAgger), on the seeds of round ``round_``."""
    from simkit.rng import game_seeds

    teacher = model.without_policy()
    row = table.row(teacher, epsilon=ps.epsilon, samples=ps.samples,
                    by=learn.BY["values"])
    actor = np.zeros(0) if student is None else table.row(student, epsilon=ps.epsilon)
    seeds = np.ascontiguousarray(game_seeds(derived_seed(ps.seed, "distill", round_), 0,
                                            ps.games), np.uint64)
    bounds = [(s, min(CHUNK, ps.games - s)) for s in range(0, ps.games, CHUNK)]

    def chunk(b):
        return _chunk(table, row, actor, seeds[b[0]:b[0] + b[1]])

    if workers > 1 and len(bounds) > 1:
        with ThreadPoolExecutor(workers) as pool:
            parts = list(pool.map(chunk, bounds))
    else:
        parts = [chunk(b) for b in bounds]
    return concat(parts)


def concat(parts: list[Records]) -> Records:
    """Records one after another, in order."""
    offsets = np.cumsum([0] + [len(p.codes) for p in parts[:-1]])
    return Records(np.concatenate([p.feats for p in parts]),
                   np.concatenate([p.seat for p in parts]),
                   np.concatenate([p.start + o for p, o in zip(parts, offsets, strict=True)]),
                   np.concatenate([p.n for p in parts]),
                   np.concatenate([p.codes for p in parts]),
                   np.concatenate([p.values for p in parts]))


def _chunk(table, row: np.ndarray, actor: np.ndarray, seeds: np.ndarray) -> Records:
    p, n, f = table.plan, table.players, table.features
    size, moves = p.state_size, p.max_moves
    k = max(1, len(p.item_columns))
    scratch = (np.empty(size, np.int32), np.empty(size, np.int32), np.empty(moves, np.int32),
               np.empty(1 + n, np.uint64), np.zeros((n, k), np.int32),
               np.empty(size, np.int32), np.empty(size, np.int32), np.empty(size, np.int32),
               np.zeros((n, k), np.int32), np.zeros(n), np.zeros(n, np.int32), np.zeros(n),
               np.zeros(f), np.zeros(max(moves, n)))
    cap = 128 * len(seeds)
    kept, first = [], 0
    while True:
        out = (np.zeros((cap, f), np.float32), np.zeros(cap, np.int32),
               np.zeros(cap, np.int64), np.zeros(cap, np.int32),
               np.zeros(16 * cap, np.int32), np.zeros(16 * cap, np.float32))
        g, r, c = table.module.distill_games(p.compiled, n, seeds, first, row, actor,
                                             p.max_turns, table.teams, *scratch, *out)
        kept.append(Records(out[0][:r].copy(), out[1][:r].astype(np.int8), out[2][:r].copy(),
                            out[3][:r].copy(), out[4][:c].copy(), out[5][:c].copy()))
        if g == len(seeds):
            break
        if r == 0:  # one game alone did not fit: room for twice as many decisions
            cap *= 2
        first = g
    return concat(kept)


def known_moves(codes: np.ndarray, most: int) -> np.ndarray:
    """int64[M]: the ``most`` codes met most often in ``codes`` (ties: the smaller code),
    sorted."""
    found, counts = np.unique(codes, return_counts=True)
    order = np.lexsort((found, -counts))[:most]
    return np.sort(found[order]).astype(np.int64)


def fit(model: learn.Model, rec: Records, ps: PolicySpec) -> dict:
    """Give ``model`` the policy fitted to ``rec`` (in place) and return the fit's figures:
    per network the mean loss of the last pass and how often the policy's best move is the
    teacher's (``agreement``, on the data it learnt)."""

    known = known_moves(rec.codes, ps.moves)
    rows = learn.move_rows(known, rec.codes)
    k_nets, f, m = model.w1.shape[0], model.n_features, len(known)
    rng = np.random.default_rng(derived_seed(ps.seed, "distill-fit"))
    u = np.zeros((k_nets, m + 1, f))
    c = np.zeros((k_nets, m + 1))
    z = ((rec.feats - model.mean) / model.std).astype(np.float64)
    figures = {}
    for k in range(k_nets):
        mine = np.flatnonzero(np.isin(rec.seat, np.flatnonzero(model.seat_net == k)))
        if len(mine):
            figures[str(k)] = _fit_net([u[k], c[k]], z, rec, rows, mine, ps, rng)
    model.policy_codes, model.policy_w, model.policy_b = known, u, c
    model._bytes = None
    return figures


def _gather(rec: Records, rows: np.ndarray, idx: np.ndarray):
    """The moves of decisions ``idx``: (decision of each within idx, row, teacher value,
    start of each decision's moves in these arrays)."""
    n = rec.n[idx].astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(n)[:-1]])
    at = np.repeat(rec.start[idx] - starts, n) + np.arange(int(n.sum()))
    owner = np.repeat(np.arange(len(idx)), n)
    return owner, rows[at], rec.values[at].astype(np.float64), starts


def _segment_softmax(x: np.ndarray, owner: np.ndarray, starts: np.ndarray) -> np.ndarray:
    top = np.maximum.reduceat(x, starts)
    e = np.exp(x - top[owner])
    return e / np.add.reduceat(e, starts)[owner]


def _forward(net: list, zb: np.ndarray, owner: np.ndarray, row: np.ndarray) -> np.ndarray:
    """The logit of each move: its row's weights . the features of its decision + bias."""
    return np.einsum("ij,ij->i", net[0][row], zb[owner]) + net[1][row]


def _fit_net(net: list, z: np.ndarray, rec: Records, rows: np.ndarray, mine: np.ndarray,
             ps: PolicySpec, rng: np.random.Generator) -> dict:
    from scipy.sparse import coo_matrix

    grads = [np.zeros_like(q) for q in net]
    adam = Adam(net, ps.learning_rate)
    loss = 0.0
    for _ in range(ps.epochs):
        order = mine[rng.permutation(len(mine))]
        total = 0.0
        for at in range(0, len(order), ps.batch):
            idx = order[at:at + ps.batch]
            owner, row, value, starts = _gather(rec, rows, idx)
            zb = z[idx]
            target = _segment_softmax(value / ps.temperature, owner, starts)
            logit = _forward(net, zb, owner, row)
            p = _segment_softmax(logit, owner, starts)
            total -= float(np.sum(target * np.log(np.maximum(p, 1e-300))))
            g = (p - target) / len(idx)
            spread = coo_matrix((g, (row, owner)), shape=(len(net[1]), len(idx))).tocsr()
            grads[0][:] = spread @ zb + ps.l2 * net[0]
            grads[1][:] = np.bincount(row, weights=g, minlength=len(net[1]))
            adam.step(grads)
        loss = total / len(mine)
    return {"decisions": int(len(mine)), "loss": round(loss, 6),
            "agreement": round(_agreement(net, z, rec, rows, mine), 6)}


def _agreement(net: list, z: np.ndarray, rec: Records, rows: np.ndarray, mine: np.ndarray
               ) -> float:
    """How often the policy's best move is the teacher's best, over decisions ``mine``."""
    same = 0
    for at in range(0, len(mine), 4096):
        idx = mine[at:at + 4096]
        owner, row, value, starts = _gather(rec, rows, idx)
        logit = _forward(net, z[idx], owner, row)
        ends = np.append(starts[1:], len(owner))
        for s, e in zip(starts, ends, strict=True):
            same += int(np.argmax(logit[s:e]) == np.argmax(value[s:e]))
    return same / max(len(mine), 1)


def distill(model: learn.Model, table, ps: PolicySpec, workers: int = 1, command: str = "",
            say=None) -> learn.Model:
    """``model`` with a policy distilled from its values (a new Model; ``model`` is not
    changed): its card gains ``policy`` (the temperature the kernels read, the spec, the
    command that reproduces it, the fit's figures)."""
    check(ps)
    say = say or (lambda text: None)
    out = model.without_policy()
    say(f"distilling a policy: {ps.games:,} self-play games by the model's values")
    rec = play(table, out, ps, workers)
    say(f"fitting the policy to {len(rec.n):,} decisions")
    figures = fit(out, rec, ps)
    out.card["policy"] = {
        "temperature": ps.temperature,
        "algorithm": "distilled from the model's afterstate values (self-play, "
                     "cross-entropy to their softmax at the temperature)",
        "games": ps.games, "seed": ps.seed, "knobs": ps.knobs(), "moves": len(out.policy_codes),
        "decisions": int(len(rec.n)), "fit": figures,
        **({"command": command} if command else {})}
    out._bytes = None
    return out
