"""The statistics of simkit's reports that need no table: 95% intervals and tests (Wilson,
Newcomb, t, two-proportion z), written out in numpy over the distribution functions of
``scipy.special`` (the very ones ``scipy.stats`` calls), in the same operations as
statsmodels' ``proportion_confint`` (Wilson), ``confint_proportions_2indep`` (Newcomb) and
``proportions_ztest``, and scipy's ``t``, ``norm`` and ``ttest_1samp``, so they give the same
numbers to the last bit (tests/reports/test_analysis.py compares them) without importing
scipy.stats and statsmodels (0.8 s of every `simkit run` summary once); and the outcome of
a game from its rank-1 seats.

No pandas here: the summary that ``simkit run`` prints from a ``reports.tally.Tally`` uses
this module alone, so a run imports no pandas. ``reports.analysis`` builds its tables on it.
"""

from __future__ import annotations

import math
import threading
import warnings

import numpy as np

ALPHA = 0.05
# the normal quantiles of the 95% intervals, as scipy computes them (tests/reports/
# test_analysis.py checks both against scipy.special.ndtri), so that a Wilson interval needs
# no scipy: importing scipy.special takes 0.08 s, most of a small run's summary
Z95 = 1.959963984540054  # scipy.stats.norm.ppf(0.975) = special.ndtri(0.975)
_WILSON_Z = 1.9599639845400545  # statsmodels' norm.isf(0.025) = -special.ndtri(0.025): Wilson


def _special():
    """``scipy.special``, imported on first use (the t distribution's functions)."""
    from scipy import special

    return special


_preparing: threading.Thread | None = None


def prepare() -> None:
    """Import ``scipy.special`` on a thread of its own, while a run plays (its kernels
    release the GIL), so that the summary at its end finds it imported. Python's import lock
    makes a summary that comes first wait for it; the thread imports nothing of simkit's, so
    it cannot deadlock with the imports of the thread that plays."""
    global _preparing
    if _preparing is None:
        _preparing = threading.Thread(target=_import_quietly, name="simkit-import-scipy",
                                      daemon=True)
        _preparing.start()


def _import_quietly() -> None:
    try:
        _special()
    except Exception:  # noqa: BLE001, S110 - the summary's own import says what is wrong
        pass

MIN_OCCURRENCES = 30  # fewer seat-games with (or without) an item: too few to judge its value

# how a game ended, by its rank-1 seats
OUTCOMES = ("one winner", "team win", "tie", "no winner")


def results_of(first: np.ndarray, teams: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(won, tied, share) of each seat in each game, each [G, P], from ``first`` (bool[G, P]:
    the seat has rank 1) and ``teams`` (int[G, P]).

    won: the seat won outright: it has rank 1 and every rank-1 seat is on its team (a
    team's shared win counts for each of its seats). tied: it has rank 1 with seats of
    other teams. share: its score share, 1 for a win, 1/k for a tie among k teams, 0
    otherwise (the chess convention), so a game's shares add up to the number of seats on
    the winning side, and to 0 in a game nobody won."""
    # teams with a rank-1 seat, per game: count distinct team ids among rank-1 seats
    ids = np.where(first, teams, -1)
    ids.sort(axis=1)
    distinct = ((ids[:, 1:] != ids[:, :-1]) & (ids[:, 1:] >= 0)).sum(axis=1) + \
        (ids[:, 0] >= 0)
    won = first & (distinct == 1)[:, None]
    tied = first & (distinct > 1)[:, None]
    share = won.astype(float) + np.where(tied, 1.0 / np.maximum(distinct, 1)[:, None], 0.0)
    return won, tied, share


def _outcomes(won: np.ndarray, teams: np.ndarray) -> np.ndarray:
    """int8[G]: index into OUTCOMES. A tie is more than one rank-1 seat not all on one team;
    several rank-1 seats of one team are a team win."""
    n_won = won.sum(axis=1)
    first_team = np.take_along_axis(teams, won.argmax(axis=1)[:, None], axis=1)
    one_team = np.all(~won | (teams == first_team), axis=1)
    out = np.full(len(won), 3, dtype=np.int8)
    out[n_won == 1] = 0
    out[(n_won > 1) & one_team] = 1
    out[(n_won > 1) & ~one_team] = 2
    return out


def wilson(count, nobs) -> tuple[np.ndarray, np.ndarray]:
    """95% Wilson score interval for ``count`` successes in ``nobs`` trials (arrays allowed);
    NaN where ``nobs`` is 0. As statsmodels' ``proportion_confint(method="wilson")``."""
    count = np.asarray(count, dtype=float)
    nobs = np.asarray(nobs, dtype=float)
    safe = np.where(nobs > 0, nobs, 1.0)
    lo, hi = _wilson(count, safe)
    lo = np.where(nobs > 0, lo, np.nan)
    hi = np.where(nobs > 0, hi, np.nan)
    return lo, hi


def _wilson(count, nobs):
    """The Wilson interval in statsmodels' own operations (``nobs`` > 0)."""
    q = count / nobs
    crit2 = _WILSON_Z**2
    denom = 1 + crit2 / nobs
    center = (q + crit2 / (2 * nobs)) / denom
    dist = _WILSON_Z * np.sqrt(q * (1.0 - q) / nobs + crit2 / (4.0 * nobs**2))
    dist /= denom
    return np.clip(center - dist, 0, 1), np.clip(center + dist, 0, 1)


def _t_quantile(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom (``t.ppf``)."""
    return float(_special().stdtrit(df, 1 - ALPHA / 2))


def p_text(p) -> str:
    """A p-value as every page and terminal gives it: "—" when there is none, never "0" (a p
    below what floats hold is tiny, not nil): "< 0.001" below that, else three decimals."""
    if p is None or p != p:
        return "\u2014"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def _t_two_sided_p(t: float, df: int) -> float:
    """Two-sided p-value of a t statistic (``2 * t.sf(|t|, df)``)."""
    return float(2 * _special().stdtr(df, -abs(t)))


def _normal_two_sided_p(z: float) -> float:
    """Two-sided p-value of a normal statistic (``2 * norm.sf(|z|)``)."""
    return float(_special().ndtr(-abs(z)) * 2)


def _ttest_p(x: np.ndarray) -> float:
    """``scipy.stats.ttest_1samp(x, 0).pvalue``, in scipy's operations (len(x) >= 2)."""
    n = len(x)
    mean = x.mean()
    v = np.mean((x - mean) ** 2) * (n / (n - 1.0))
    return float(2 * _special().stdtr(float(n - 1), -abs(mean / np.sqrt(v / n))))


def mean_ci(values: np.ndarray) -> dict:
    """Mean of per-game values with its standard error, 95% t interval and the two-sided
    p-value of ``scipy.stats.ttest_1samp`` against 0.

    When every value is the same (standard error 0) scipy has no answer; the interval is then
    the single point, and p is 1 if the mean is 0, else 0 (the difference is certain)."""
    x = np.asarray(values, dtype=float)
    n = len(x)
    if n == 0:
        return {"mean": np.nan, "se": np.nan, "ci_low": np.nan, "ci_high": np.nan,
                "p_value": np.nan, "n": 0}
    mean = float(x.mean())
    if n < 2:
        return {"mean": mean, "se": np.nan, "ci_low": np.nan, "ci_high": np.nan,
                "p_value": np.nan, "n": n}
    sd = float(x.std(ddof=1))
    se = sd / math.sqrt(n)
    # sd of a constant array is rounding noise, not spread
    if se <= 1e-12 * max(1.0, abs(mean)):
        return {"mean": mean, "se": 0.0, "ci_low": mean, "ci_high": mean,
                "p_value": 1.0 if mean == 0 else 0.0, "n": n}
    half = _t_quantile(n - 1) * se
    p = _ttest_p(x)
    return {"mean": mean, "se": se, "ci_low": mean - half, "ci_high": mean + half,
            "p_value": p, "n": n}


def mean_ci_counts(values, counts) -> dict:
    """``mean_ci`` of a sample given as its distinct ``values`` and how often each occurs
    (``counts``): a run's summary counts score shares per outcome instead of keeping them
    per game. The same interval and test; sums are taken in another order, so figures may
    differ from ``mean_ci``'s in the last bits."""
    v = np.asarray(values, dtype=float)
    c = np.asarray(counts, dtype=np.int64)
    v, c = v[c > 0], c[c > 0]
    n = int(c.sum())
    if n == 0:
        return mean_ci(np.empty(0))
    mean = float((c * v).sum() / n)
    var = float((c * (v - mean) ** 2).sum() / (n - 1)) if n > 1 else np.nan
    return _mean_ci_of(n, mean, var, constant=len(v) == 1)


def mean_ci_sums(n: int, total: float, shifted_squares: float, shift: float) -> dict:
    """``mean_ci`` from the sum of ``n`` values and the sum of their squared differences from
    ``shift`` (any number near their mean: a run's summary sums each chunk's scores)."""
    if n == 0:
        return mean_ci(np.empty(0))
    mean = total / n
    var = max(0.0, (shifted_squares - n * (mean - shift) ** 2) / (n - 1)) if n > 1 else np.nan
    return _mean_ci_of(n, mean, var)


def _mean_ci_of(n: int, mean: float, var: float, constant: bool = False) -> dict:
    if n < 2:
        return {"mean": mean, "se": np.nan, "ci_low": np.nan, "ci_high": np.nan,
                "p_value": np.nan, "n": n}
    se = math.sqrt(var) / math.sqrt(n)
    if constant or se <= 1e-12 * max(1.0, abs(mean)):
        return {"mean": mean, "se": 0.0, "ci_low": mean, "ci_high": mean,
                "p_value": 1.0 if mean == 0 else 0.0, "n": n}
    half = _t_quantile(n - 1) * se
    return {"mean": mean, "se": se, "ci_low": mean - half, "ci_high": mean + half,
            "p_value": _t_two_sided_p(mean / se, n - 1), "n": n}


def seat_names(meta: dict | None, players: int) -> list[str]:
    """How a report names each seat: "seat 1", or "seat 1 (elil)" in a game that names its
    seats (run.json's ``seat_names``)."""
    names = (meta or {}).get("seat_names") or []
    return [f"seat {s + 1}" + (f" ({names[s]})" if s < len(names) and names[s] else "")
            for s in range(players)]


def _rate_cols(prefix: str, count, n) -> dict:
    lo, hi = wilson(count, n)
    rate = np.divide(count, n, out=np.full(np.shape(count), np.nan, dtype=float),
                     where=np.asarray(n) > 0)
    return {f"{prefix}_rate": rate, f"{prefix}_low": lo, f"{prefix}_high": hi}


OUTCOME_COLUMNS = ["wins", "ties", "losses", "win_rate", "win_low", "win_high", "tie_rate",
                   "tie_low", "tie_high", "loss_rate", "loss_low", "loss_high", "score_share",
                   "share_low", "share_high"]


def _outcome_counts_row(n: int, w: int, t: int, share: dict) -> dict:
    """``_outcome_row`` from the counts of wins and ties and ``share``, the ``mean_ci`` of
    the score shares."""
    row = {"wins": w, "ties": t, "losses": n - w - t}
    for prefix, c in (("win", w), ("tie", t), ("loss", n - w - t)):
        row.update({k: float(v) for k, v in _rate_cols(prefix, c, n).items()})
    # a share lies in [0, 1]: so does its interval (the t interval can overshoot near 0, 1)
    row.update(score_share=share["mean"], share_low=float(np.clip(share["ci_low"], 0, 1)),
               share_high=float(np.clip(share["ci_high"], 0, 1)))
    return row


def _fpa_per_game(share: np.ndarray) -> np.ndarray:
    return share[:, 0] - share.mean(axis=1)


_QUANTILES = {"p05": 0.05, "p25": 0.25, "median": 0.5, "p75": 0.75, "p95": 0.95}


def item_kind(column: str, meta: dict | None) -> str:
    """"choice" for an item column that is a player's own choice (a card played, a tile
    taken), "outcome" for one that happens to the player or that the state forces (drawn,
    caught, a bunny placed), as the game declares column by column in run.json's
    ``choice_columns`` (or, in a run made before them, event by event in
    ``choice_events``); "unclassified" when the game declares neither."""
    meta = meta or {}
    columns = meta.get("choice_columns")
    if columns is not None:
        return "choice" if column in set(columns) else "outcome"
    declared = meta.get("choice_events")
    if declared is None:
        return "unclassified"
    return "choice" if column.partition(":")[2] in set(declared) else "outcome"


def item_name(column: str, meta: dict | None) -> str:
    """How a person reads an item column: the game's display name from run.json's
    ``item_names`` ("Move any farmer (placed)"), or, in a run made before them, the code
    in words."""
    names = (meta or {}).get("item_names") or {}
    if column in names:
        return str(names[column])
    item, _, event = str(column).partition(":")
    words = item.replace("_", " ")
    words = words[:1].upper() + words[1:]
    return f"{words} ({event.replace('_', ' ')})" if event else words


def _item_row(name: str, n_total: int, wins_total: int, n1: int, w1: int, count_sum: int,
              min_occurrences: int) -> dict:
    n0, w0 = n_total - n1, wins_total - w1
    r1 = w1 / n1 if n1 else np.nan
    r0 = w0 / n0 if n0 else np.nan
    lo = hi = p = np.nan
    if n1 and n0:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            lo, hi = _newcomb(w1, n1, w0, n0)
            if (w1 + w0) in (0, n1 + n0):
                p = 1.0  # every seat-game won (or lost) alike: no difference at all
            else:
                p = _two_proportion_p(w1, n1, w0, n0)
    return {"item": name, "seat_games": n_total, "occurred": n1,
            "occurred_share": n1 / n_total if n_total else np.nan,
            "win_rate_occurred": r1, "win_rate_not": r0, "difference": r1 - r0,
            "ci_low": float(lo), "ci_high": float(hi), "p_value": p,
            "mean_count": count_sum / n_total if n_total else np.nan,
            "mean_count_occurred": count_sum / n1 if n1 else np.nan,
            "enough": bool(n1 >= min_occurrences and n0 >= min_occurrences)}


def _newcomb(w1: int, n1: int, w0: int, n0: int) -> tuple[float, float]:
    """95% Newcomb interval of w1/n1 - w0/n0 (n1, n0 > 0), as statsmodels'
    ``confint_proportions_2indep(method="newcomb", compare="diff")``."""
    p1, p0 = w1 / n1, w0 / n0
    low1, upp1 = (float(v) for v in _wilson(np.float64(w1), np.float64(n1)))
    low0, upp0 = (float(v) for v in _wilson(np.float64(w0), np.float64(n0)))
    d_low = np.sqrt((p1 - low1) ** 2 + (upp0 - p0) ** 2)
    d_upp = np.sqrt((p0 - low0) ** 2 + (upp1 - p1) ** 2)
    return float((p1 - p0) - d_low), float((p1 - p0) + d_upp)


def _two_proportion_p(w1: int, n1: int, w0: int, n0: int) -> float:
    """Two-sided p-value of the pooled two-proportion z test, as statsmodels'
    ``proportions_ztest([w1, w0], [n1, n0])``."""
    count = np.array([w1, w0])
    nobs = np.array([n1, n0])
    prop = count * 1.0 / nobs
    pooled = np.sum(count) * 1.0 / np.sum(nobs)
    std = np.sqrt(pooled * (1 - pooled) * np.sum(1.0 / nobs))
    return _normal_two_sided_p((prop[0] - prop[1] - 0) / std)
