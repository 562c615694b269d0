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
   In a game with move features (``GameSpec.move_features``) it records each legal move's
   too, and the policy reads them (``learn``'s docstring): a linear term and ``hidden``
   units over the position and the move.
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
    hidden: int = 4  # War of the Wilds: 8 rectified units cost 5.2-6.0 times the heuristic, 4 fit

    def knobs(self) -> dict:
        return {"temperature": self.temperature, "l2": self.l2, "epochs": self.epochs,
                "learning_rate": self.learning_rate, "batch": self.batch,
                "moves": self.moves, "epsilon": self.epsilon, "samples": self.samples,
                "hidden": self.hidden}


KNOB_RANGES = {
    "games": (1, 10**8, True), "temperature": (1e-4, 10, False), "l2": (0, 10, False),
    "epochs": (1, 1000, True), "learning_rate": (1e-6, 1, False), "batch": (1, 10**6, True),
    "moves": (1, 10**6, True), "epsilon": (0, 1, False), "samples": (1, 1000, True),
    "hidden": (0, learn.MAX_POLICY_HIDDEN, True)}
FLAGS = {"games": "--policy-games", "temperature": "--policy-temperature",
         "l2": "--policy-l2", "epochs": "--policy-epochs", "moves": "--policy-moves",
         "hidden": "--policy-hidden", "samples": "--policy-samples"}


def check(ps: PolicySpec) -> None:
    """Every knob in its range, or one line naming it (its flag) and the range."""
    check_ranges(ps, KNOB_RANGES,
                 lambda name: FLAGS.get(name, f"the policy's {name.replace('_', ' ')}"))


@dataclass
class Records:
    """What the teacher's self-play records. Per decision: ``feats`` float32[R, F], ``seat``
    int8[R], ``start`` int64[R] and ``n`` int32[R] (its moves in the arrays below); per
    legal move: ``codes`` int32[C], ``values`` float32[C] (the teacher's), ``move_feats``
    float32[C, G] (G = 0 in a game without move features)."""

    feats: np.ndarray
    seat: np.ndarray
    start: np.ndarray
    n: np.ndarray
    codes: np.ndarray
    values: np.ndarray
    move_feats: np.ndarray


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
                   np.concatenate([p.values for p in parts]),
                   np.concatenate([p.move_feats for p in parts]))


def _chunk(table, row: np.ndarray, actor: np.ndarray, seeds: np.ndarray) -> Records:
    p, n, f = table.plan, table.players, table.features
    g = len(table.spec.move_features) if table.spec.has_move_features else 0
    size, moves = p.state_size, p.max_moves
    k = max(1, len(p.item_columns))
    scratch = (np.empty(size, np.int32), np.empty(size, np.int32), np.empty(moves, np.int32),
               np.empty(1 + n, np.uint64), np.zeros((n, k), np.int32),
               np.empty(size, np.int32), np.empty(size, np.int32), np.empty(size, np.int32),
               np.zeros((n, k), np.int32), np.zeros(n), np.zeros(n, np.int32), np.zeros(n),
               np.zeros(f + learn.SCRATCH), np.zeros(max(moves, n)))
    cap = 128 * len(seeds)
    kept, first = [], 0
    while True:
        out = (np.zeros((cap, f), np.float32), np.zeros(cap, np.int32),
               np.zeros(cap, np.int64), np.zeros(cap, np.int32),
               np.zeros(16 * cap, np.int32), np.zeros(16 * cap, np.float32),
               np.zeros((16 * cap if g else 0, g), np.float32))
        done, r, c = table.module.distill_games(p.compiled, n, seeds, first, row, actor,
                                                p.max_turns, table.teams, *scratch, *out)
        kept.append(Records(out[0][:r].copy(), out[1][:r].astype(np.int8), out[2][:r].copy(),
                            out[3][:r].copy(), out[4][:c].copy(), out[5][:c].copy(),
                            out[6][:c].copy() if g else np.zeros((c, 0), np.float32)))
        if done == len(seeds):
            break
        if r == 0:  # one game alone did not fit: room for twice as many decisions
            cap *= 2
        first = done
    return concat(kept)


def known_moves(codes: np.ndarray, most: int) -> np.ndarray:
    """int64[M]: the ``most`` codes met most often in ``codes`` (ties: the smaller code),
    sorted."""
    found, counts = np.unique(codes, return_counts=True)
    order = np.lexsort((found, -counts))[:most]
    return np.sort(found[order]).astype(np.int64)


def fit(model: learn.Model, rec: Records, ps: PolicySpec, move_features=()) -> dict:
    """Give ``model`` the policy fitted to ``rec`` (in place) and return the fit's figures:
    per network the mean loss of the last pass and how often the policy's best move is the
    teacher's (``agreement``, on the data it learnt). With ``move_features`` (the game's
    names, ``rec.move_feats`` holding them) the policy reads them too, with ``ps.hidden``
    hidden units."""

    known = known_moves(rec.codes, ps.moves)
    rows = learn.move_rows(known, rec.codes)
    k_nets, f, m = model.w1.shape[0], model.n_features, len(known)
    g = rec.move_feats.shape[1] if len(move_features) else 0
    q = ps.hidden if g else 0
    rng = np.random.default_rng(derived_seed(ps.seed, "distill-fit"))
    z = ((rec.feats - model.mean) / model.std).astype(np.float64)
    nets = [_Net(m, f, g, q, rng) for _ in range(k_nets)]
    mmean = mstd = y = None
    if g:
        mmean, mstd, y = _standardised(rec.move_feats)
    figures = {}
    for k in range(k_nets):
        mine = np.flatnonzero(np.isin(rec.seat, np.flatnonzero(model.seat_net == k)))
        if len(mine):
            figures[str(k)] = _fit_net(nets[k], z, y, rec, rows, mine, ps, rng)
    model.policy_codes = known
    model.policy_w = np.stack([n.w for n in nets])
    model.policy_b = np.stack([n.c for n in nets])
    if g:
        model.policy_mmean, model.policy_mstd = mmean, mstd
        model.policy_u = np.stack([n.u for n in nets])
        model.policy_a = np.stack([n.a for n in nets])
        model.policy_bm = np.stack([n.b for n in nets])
        model.policy_hb = np.stack([n.hb for n in nets])
        model.policy_v = np.stack([n.v for n in nets])
    model._bytes = None
    return figures


def _standardised(mf: np.ndarray, chunk: int = 1 << 16):
    """The mean and spread (float64[G]) of the moves' features ``mf`` (float32[C, G]) and
    the features standardised by them, float32 and a chunk at a time: the moves of 2,000
    games of a game of many legal moves are millions of rows, and float64 copies of them
    held gigabytes. An entry that never moves keeps a spread of 1."""
    n, g = mf.shape
    total, spread = np.zeros(g), np.zeros(g)
    for a in range(0, n, chunk):
        total += mf[a:a + chunk].sum(axis=0, dtype=np.float64)
    mmean = total / max(n, 1)
    for a in range(0, n, chunk):
        spread += np.square(mf[a:a + chunk] - mmean).sum(axis=0)
    mstd = np.sqrt(spread / max(n, 1))
    mstd = np.where(mstd > 1e-9, mstd, 1.0)
    y = np.empty(mf.shape, np.float32)
    for a in range(0, len(mf), chunk):
        y[a:a + chunk] = (mf[a:a + chunk] - mmean) / mstd
    return mmean, mstd, y


class _Net:
    """One network's policy weights being fitted: per move row ``w`` (float64[M + 1, F])
    and ``c``; with G move features ``u`` (float64[G]) and Q hidden units ``a`` (float64[Q,
    F]), ``b`` (float64[Q, G]), ``hb``, ``v`` (float64[Q]). Rows and ``u`` and ``v`` start
    at zero (every move alike); ``a`` and ``b`` small, drawn, so the units learn apart."""

    def __init__(self, m: int, f: int, g: int, q: int, rng: np.random.Generator):
        self.w, self.c = np.zeros((m + 1, f)), np.zeros(m + 1)
        self.u = np.zeros(g)
        self.a = rng.normal(0.0, 1.0 / np.sqrt(max(f, 1)), (q, f))
        self.b = rng.normal(0.0, 1.0 / np.sqrt(max(g, 1)), (q, g))
        self.hb, self.v = np.zeros(q), np.zeros(q)
        self.g, self.q = g, q

    def params(self) -> list[np.ndarray]:
        return [self.w, self.c] + ([self.u, self.a, self.b, self.hb, self.v] if self.g else [])

    def forward(self, zb, yb, owner, row):
        """The logit of each move (and the hidden units' outputs, for the gradient)."""
        logit = np.einsum("ij,ij->i", self.w[row], zb[owner]) + self.c[row]
        if not self.g:
            return logit, None
        hidden = np.maximum((zb @ self.a.T + self.hb)[owner] + yb @ self.b.T, 0.0)
        return logit + yb @ self.u + hidden @ self.v, hidden

    def gradients(self, gl, zb, yb, owner, row, hidden, starts, l2) -> list[np.ndarray]:
        """d(loss)/d(each of ``params``) from ``gl``, d(loss)/d(each move's logit)."""
        from scipy.sparse import coo_matrix

        spread = coo_matrix((gl, (row, owner)), shape=(len(self.c), len(zb))).tocsr()
        out = [spread @ zb + l2 * self.w, np.bincount(row, weights=gl, minlength=len(self.c))]
        if self.g:
            dpre = (gl[:, None] * self.v) * (hidden > 0)
            out += [gl @ yb + l2 * self.u,
                    np.add.reduceat(dpre, starts).T @ zb + l2 * self.a,
                    dpre.T @ yb + l2 * self.b, dpre.sum(axis=0),
                    gl @ hidden + l2 * self.v]
        return out


def _gather(rec: Records, rows: np.ndarray, idx: np.ndarray):
    """The moves of decisions ``idx``: (decision of each within idx, row, teacher value,
    start of each decision's moves in these arrays, where each move is in ``rec``)."""
    n = rec.n[idx].astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(n)[:-1]])
    at = np.repeat(rec.start[idx] - starts, n) + np.arange(int(n.sum()))
    owner = np.repeat(np.arange(len(idx)), n)
    return owner, rows[at], rec.values[at].astype(np.float64), starts, at


def _segment_softmax(x: np.ndarray, owner: np.ndarray, starts: np.ndarray) -> np.ndarray:
    top = np.maximum.reduceat(x, starts)
    e = np.exp(x - top[owner])
    return e / np.add.reduceat(e, starts)[owner]


def _fit_net(net: _Net, z: np.ndarray, y: np.ndarray | None, rec: Records, rows: np.ndarray,
             mine: np.ndarray, ps: PolicySpec, rng: np.random.Generator) -> dict:
    params = net.params()
    adam = Adam(params, ps.learning_rate)
    loss = 0.0
    for _ in range(ps.epochs):
        order = mine[rng.permutation(len(mine))]
        total = 0.0
        for at in range(0, len(order), ps.batch):
            idx = order[at:at + ps.batch]
            owner, row, value, starts, where = _gather(rec, rows, idx)
            zb, yb = z[idx], (y[where].astype(np.float64) if net.g else None)
            target = _segment_softmax(value / ps.temperature, owner, starts)
            logit, hidden = net.forward(zb, yb, owner, row)
            p = _segment_softmax(logit, owner, starts)
            total -= float(np.sum(target * np.log(np.maximum(p, 1e-300))))
            gl = (p - target) / len(idx)
            adam.step(net.gradients(gl, zb, yb, owner, row, hidden, starts, ps.l2))
        loss = total / len(mine)
    return {"decisions": int(len(mine)), "loss": round(loss, 6),
            "agreement": round(_agreement(net, z, y, rec, rows, mine), 6)}


def _agreement(net: _Net, z: np.ndarray, y: np.ndarray | None, rec: Records, rows: np.ndarray,
               mine: np.ndarray) -> float:
    """How often the policy's best move is the teacher's best, over decisions ``mine``."""
    same = 0
    for at in range(0, len(mine), 4096):
        idx = mine[at:at + 4096]
        owner, row, value, starts, where = _gather(rec, rows, idx)
        logit, _ = net.forward(z[idx], y[where].astype(np.float64) if net.g else None, owner,
                               row)
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
    names = list(table.spec.move_features) if table.spec.has_move_features else []
    say(f"fitting the policy to {len(rec.n):,} decisions"
        + (f" (with {len(names)} move features, {ps.hidden} hidden units)" if names else ""))
    figures = fit(out, rec, ps, names)
    out.card["policy"] = {
        "temperature": ps.temperature,
        "algorithm": "distilled from the model's afterstate values (self-play, "
                     "cross-entropy to their softmax at the temperature)",
        "games": ps.games, "seed": ps.seed, "knobs": _knobs(ps, names),
        "moves": len(out.policy_codes),
        **({"move_features": names} if names else {}),
        "decisions": int(len(rec.n)), "fit": figures,
        **({"command": command} if command else {})}
    out._bytes = None
    return out


def _knobs(ps: PolicySpec, move_features: list[str]) -> dict:
    """The knobs a card records: ``hidden`` only where the policy reads move features (the
    only place it counts), so a policy without them keeps its bytes."""
    knobs = ps.knobs()
    if not move_features:
        del knobs["hidden"]
    return knobs
