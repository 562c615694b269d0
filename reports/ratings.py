"""Ratings of strategies from finished games, and the win matrix between them.

The model (``fit_ratings``) is Plackett-Luce over full finishing orders: a seat of strategy
``k`` in seat ``s`` has strength ``exp(theta_k + delta_s)``, and a game's order, best first,
has the probability of choosing the winner among all seats in proportion to strength, then
the second among the rest, and so on. At two players this is the Bradley-Terry model with a
seat (first-mover) term. ``delta`` absorbs what a seat is worth (first-player advantage, or
the two sides of an asymmetric game) so that ``theta`` rates the strategy alone.

Ties follow the reports' shared-win rule (a tie among k seats gives each 1/k): a game with
tied seats counts as every order of the tied seats, each with weight 1/(number of orders),
so at two players a tie is half a win for each side. A game nobody won ties every seat.

A strategy that won every game against another has no finite maximum-likelihood rating, so
the fit adds, as BayesElo does, ``prior_games`` virtual tied games between every pair of
strategies (1 by default: worth a game in a ladder of hundreds). The fit is a maximum of
this penalised likelihood, found with ``scipy.optimize.minimize`` (BFGS, analytic
gradient); the 95% intervals are normal ones from the inverse of its Hessian (a Laplace
approximation), differenced from the gradient. tests/reports/test_ratings.py checks the
two-player fit against statsmodels' logistic regression (a GLM) on the same games.

Ratings are on the Elo scale (400 points: ten to one odds), with ``anchor`` (``random`` when
it is in the ladder) at 0; an interval is that of the difference from the anchor.
"""

from __future__ import annotations

import math
from itertools import permutations

import numpy as np
from simkit.reports import stats as st

ELO = 400.0 / math.log(10.0)
"""Elo points per unit of log-strength: a gap of 400 points is odds of ten to one."""


def _orders(codes: np.ndarray, ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                          np.ndarray]:
    """Every distinct game pattern as weighted finishing orders.

    ``codes``: int[G, P] strategy of each seat; ``ranks``: int[G, P] (1 best, equal ranks
    tie, all 0: nobody won). Returns ``strat`` int[M, P] and ``seat`` int[M, P], the
    strategy and seat at each place of order m (best first), and ``weight`` float[M]."""
    g, p = codes.shape
    ranks = np.where((ranks == 0).all(axis=1, keepdims=True), 1, ranks)
    key = np.concatenate([codes, ranks], axis=1)
    patterns, counts = np.unique(key, axis=0, return_counts=True)
    strat, seat, weight = [], [], []
    for row, count in zip(patterns, counts, strict=True):
        c, r = row[:p], row[p:]
        groups = [np.flatnonzero(r == v) for v in np.unique(r)]  # best (lowest rank) first
        expansions = [list(permutations(gr.tolist())) for gr in groups]
        n_orders = math.prod(len(e) for e in expansions)
        orders: list[list[int]] = [[]]
        for e in expansions:
            orders = [o + list(x) for o in orders for x in e]
        for o in orders:
            seat.append(o)
            strat.append(c[o].tolist())
            weight.append(count / n_orders)
    return (np.array(strat, np.int64).reshape(-1, p), np.array(seat, np.int64).reshape(-1, p),
            np.array(weight, np.float64))


class _Likelihood:
    """The negative log-likelihood of the orders (plus the prior's virtual ties) and its
    gradient in ``x = (theta without the anchor, delta without seat 1)``."""

    def __init__(self, blocks, n_strategies: int, anchor: int, n_seats: int):
        self.blocks = blocks  # [(strat[M, P], seat[M, P], weight[M])]
        self.k, self.anchor, self.p = n_strategies, anchor, n_seats
        self.free = [i for i in range(n_strategies) if i != anchor]

    def unpack(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        theta = np.zeros(self.k)
        theta[self.free] = x[: self.k - 1]
        delta = np.zeros(self.p)
        delta[1:] = x[self.k - 1:]
        return theta, delta

    def __call__(self, x: np.ndarray) -> tuple[float, np.ndarray]:
        theta, delta = self.unpack(x)
        g_theta, g_delta = np.zeros(self.k), np.zeros(self.p)
        total = 0.0
        for strat, seat, w in self.blocks:
            u = theta[strat] + delta[seat]  # [M, P]
            # lse[:, j] = log sum_{l >= j} exp(u[:, l]), for the places that choose (j < P-1)
            lse = np.logaddexp.accumulate(u[:, ::-1], axis=1)[:, ::-1][:, :-1]
            total += float(w @ (u[:, :-1].sum(axis=1) - lse.sum(axis=1)))
            reach = np.cumsum(np.exp(-lse), axis=1)  # [M, P-1]
            reach = np.concatenate([reach, reach[:, -1:]], axis=1)  # the last place: all j
            chosen = np.zeros_like(u)
            chosen[:, :-1] = 1.0
            grad_u = (chosen - np.exp(u) * reach) * w[:, None]
            g_theta += np.bincount(strat.ravel(), grad_u.ravel(), self.k)
            g_delta += np.bincount(seat.ravel(), grad_u.ravel(), self.p)
        grad = np.concatenate([g_theta[self.free], g_delta[1:]])
        return -total, -grad


def _hessian(f, x: np.ndarray) -> np.ndarray:
    """The Hessian of ``f`` (which returns value, gradient) at ``x``, by central differences
    of the gradient."""
    n = len(x)
    h = np.empty((n, n))
    for i in range(n):
        step = 1e-5 * max(1.0, abs(x[i]))
        up, down = x.copy(), x.copy()
        up[i] += step
        down[i] -= step
        h[:, i] = (f(up)[1] - f(down)[1]) / (2 * step)
    return (h + h.T) / 2


def fit_ratings(codes: np.ndarray, ranks: np.ndarray, names: list[str],
                anchor: str | None = None, prior_games: float = 1.0,
                seat_names: list[str] | None = None) -> dict:
    """Plackett-Luce ratings of ``names`` from games (see the module docstring).

    ``codes`` int[G, P]: the index in ``names`` of each seat's strategy; ``ranks`` int[G, P]:
    the games' ranks. Returns ``{"model", "anchor", "prior_games", "ratings": [row per
    strategy: strategy, rating, se, ci_low, ci_high, seat_games], "seats": [row per seat:
    seat, name, effect, se, ci_low, ci_high], "covariance": Elo-scale covariance of all
    strategies' ratings (list of lists, the anchor's row zero)}``."""
    from scipy.optimize import minimize

    codes = np.asarray(codes, np.int64)
    ranks = np.asarray(ranks, np.int64)
    g, p = codes.shape
    k = len(names)
    anchor = anchor if anchor in names else names[0]
    a = names.index(anchor)
    blocks = [_orders(codes, ranks)] if g else []
    if prior_games > 0 and k > 1:
        pairs = [(i, j) for i in range(k) for j in range(k) if i != j]
        strat = np.array(pairs, np.int64)
        blocks.append((strat, np.zeros_like(strat), np.full(len(pairs), prior_games / 2)))
    f = _Likelihood(blocks, k, a, p)
    x0 = np.zeros(k - 1 + p - 1)
    res = minimize(f, x0, jac=True, method="BFGS", options={"gtol": 1e-9, "maxiter": 2000})
    x = res.x
    weight = sum(float(w.sum()) for _, _, w in blocks)
    # BFGS may stop at "precision loss" with the maximum reached: judge by the gradient
    converged = bool(np.abs(f(x)[1]).max(initial=0.0) <= 1e-6 * max(1.0, weight))
    h = _hessian(f, x)
    cov = np.linalg.pinv(h)
    theta, delta = f.unpack(x)
    full = np.zeros((k, k))
    free = f.free
    full[np.ix_(free, free)] = cov[: k - 1, : k - 1]
    seat_games = np.bincount(codes.ravel(), minlength=k) if g else np.zeros(k, np.int64)
    ratings = []
    for i, name in enumerate(names):
        se = math.sqrt(max(full[i, i], 0.0)) * ELO
        r = theta[i] * ELO
        ratings.append({"strategy": name, "rating": r, "se": se,
                        "ci_low": r - st.Z95 * se, "ci_high": r + st.Z95 * se,
                        "seat_games": int(seat_games[i])})
    seats = []
    labels = seat_names or [f"seat {s + 1}" for s in range(p)]
    for s in range(p):
        var = cov[k - 1 + s - 1, k - 1 + s - 1] if s else 0.0
        se = math.sqrt(max(var, 0.0)) * ELO
        e = delta[s] * ELO
        seats.append({"seat": s + 1, "name": labels[s], "effect": e, "se": se,
                      "ci_low": e - st.Z95 * se, "ci_high": e + st.Z95 * se})
    return {"model": "Bradley-Terry" if p == 2 else "Plackett-Luce", "anchor": anchor,
            "prior_games": prior_games, "games": int(g), "converged": converged,
            "ratings": ratings, "seats": seats, "covariance": (full * ELO**2).tolist()}


def rating_difference(fit: dict, a: str, b: str) -> dict:
    """Rating of ``a`` minus that of ``b``, with its 95% interval (from the covariance)."""
    names = [r["strategy"] for r in fit["ratings"]]
    i, j = names.index(a), names.index(b)
    cov = np.asarray(fit["covariance"])
    d = fit["ratings"][i]["rating"] - fit["ratings"][j]["rating"]
    se = math.sqrt(max(cov[i, i] + cov[j, j] - 2 * cov[i, j], 0.0))
    return {"difference": d, "se": se, "ci_low": d - st.Z95 * se, "ci_high": d + st.Z95 * se}


def expected_score(rating_difference_: float) -> float:
    """The two-player expected score of a strategy rated ``rating_difference_`` higher."""
    return 1.0 / (1.0 + 10.0 ** (-rating_difference_ / 400.0))


def win_matrix(codes: np.ndarray, ranks: np.ndarray, teams: np.ndarray,
               names: list[str]) -> list[dict]:
    """How often each strategy finished ahead of each other one, row against column.

    For every game and every pair of seats on different teams playing strategies ``a`` and
    ``b`` (a != b), ``a`` scores 1 if it ranked better, 1/2 if equal, 0 if worse; a game
    gives the mean of its pairs, and a cell is the mean over the games where both sat, with
    a 95% Wilson interval of its points among its games (so a strategy that won every game
    still gets an interval below 100%). At two players it is the pairing's score share.
    ``teams``: int[P], the team of each seat."""
    codes = np.asarray(codes, np.int64)
    ranks = np.asarray(ranks, np.int64)
    g, p = codes.shape
    k = len(names)
    sums = np.zeros(g * k * k)
    counts = np.zeros(g * k * k)
    base = np.arange(g) * k * k
    for s in range(p):
        for t in range(p):
            if s == t or teams[s] == teams[t]:
                continue
            a, b = codes[:, s], codes[:, t]
            rs, rt = ranks[:, s], ranks[:, t]
            rs = np.where(rs == 0, 1, rs)
            rt = np.where(rt == 0, 1, rt)
            v = np.where(rs < rt, 1.0, np.where(rs == rt, 0.5, 0.0))
            keep = a != b
            idx = base[keep] + a[keep] * k + b[keep]
            np.add.at(sums, idx, v[keep])
            np.add.at(counts, idx, 1.0)
    sums = sums.reshape(g, k, k)
    counts = counts.reshape(g, k, k)
    rows = []
    for i in range(k):
        for j in range(k):
            if i == j:
                continue
            met = counts[:, i, j] > 0
            n = int(met.sum())
            points = float((sums[met, i, j] / counts[met, i, j]).sum())
            lo, hi = st.wilson(points, n) if n else (np.nan, np.nan)
            rows.append({"row": names[i], "column": names[j], "games": n,
                         "score": points / n if n else np.nan, "ci_low": float(lo),
                         "ci_high": float(hi)})
    return rows
