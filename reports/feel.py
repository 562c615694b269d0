"""How a game feels: decisiveness, lead changes, drama, uncertainty, branching and choice
(``docs/metrics.md`` defines each and names its source).

Two kinds of figures, from two kinds of record:

- **Counters** that every game of a run carries (games.parquet's ``decisions``, ``forced``,
  ``legal_moves``, ``legal_moves_sq``, by phase where the game has phases, and the end
  reasons): branching factor and its spread, forced moves, timeouts and draws. They cover
  every game.
- **Curves** of the traced games (``--trace-turns``, trace.parquet): each seat's
  ``progress`` after every turn. From them, per game: when the eventual winner took the lead
  for good, how often the lead changed, how far behind the winner fell, whether it was last
  at some point, the longest stretch in which nobody's standing moved; and per run, how well
  the leader at each point of the game predicts the winner (an AUC by fraction of the game),
  from which the uncertainty, and the mean lead of every seat over the game.

``FeelTally`` counts both from played chunks (``add``), so ``simkit run`` prints them
without reading the tables back, and from a run folder's tables (``from_tables``) in
batches, so memory stays bounded however many games were traced; both give the same
figures (``tests/reports/test_feel.py``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from simkit.reports import stats as st
from simkit.reports.verdict import clean

from simkit.jit import kernel
from simkit.results import winners

if TYPE_CHECKING:
    import pandas as pd

FRACTIONS = np.round(np.linspace(0.0, 1.0, 11), 2)
"""The points of the game (share of its turns played) at which the leader's prediction of
the winner is scored (the AUC curve)."""
CURVE_POINTS = np.round(np.linspace(0.0, 1.0, 21), 2)
"""The points at which the mean lead of each seat is drawn."""
AUC_GAMES = 100_000
"""The most traced games the AUC curve keeps (the run's first): its figures are exact to
well under a point at this size, and memory stays bounded on a 10-million-game trace."""
EXAMPLE_GAMES = 5
"""Traced games drawn as thin lines in the report (the run's first)."""
BOOTSTRAP = 200
"""Poisson bootstrap replicates for the intervals of the AUC and the uncertainty."""
TRACE_BATCH = 20_000
"""Games read from trace.parquet at a time."""

PER_GAME = ("decided_at", "lead_changes", "drama", "behind_share", "stall")
"""The per-game curve metrics averaged over the traced games (``comeback`` is a share)."""


def team_values(curve: np.ndarray, teams: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(float64[G, R, K], team ids): each team's standing, the best of its seats' progress
    (partners hold the same value by the protocol; the best is robust to one that does
    not)."""
    ids = np.unique(teams)
    if len(ids) == len(teams):  # every seat its own team
        order = np.argsort(teams)
        values = curve.astype(np.float64)
        return (values if (order == np.arange(len(order))).all() else values[:, :, order]), ids
    values = np.stack([curve[:, :, teams == k].max(axis=2) for k in ids], axis=2)
    return values.astype(np.float64), ids


def winning_team(ranks: np.ndarray, teams: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """int[G]: the index (in ``ids``) of the team whose seats alone hold rank 1, -1 when no
    seat or seats of several teams won."""
    _, first, one = winners(ranks, teams)
    return np.where(one, np.searchsorted(ids, first), -1)


def per_game(curve: np.ndarray, turns: np.ndarray, ranks: np.ndarray, teams: np.ndarray
             ) -> dict[str, np.ndarray]:
    """The curve metrics of each traced game (``docs/metrics.md``). ``curve``:
    float[G, R, P], row ``t`` each seat's progress after turn ``t`` (rows past a game's last
    turn are ignored); ``turns``, ``ranks``: the games' (ranks 0 for a timeout);
    ``teams``: the 0-based team of each seat.

    Per game: ``winner`` (team index or -1), ``decided_at`` (share of the game after which
    the winner led alone to the end; NaN without a winner), ``lead_changes`` (changes of the
    sole leader, ties skipped), ``drama`` (the winner's largest deficit, in progress units),
    ``behind_share`` (share of turns the winner was behind), ``comeback`` (the winner was
    last at some turn), ``stall`` (the longest stretch of turns in which no team's standing
    changed, as a share of the game), ``team_lead`` (float[G, F, K], each team's lead at
    ``FRACTIONS``) and ``seat_lead`` (float[G, C, P], each seat's lead at
    ``CURVE_POINTS``)."""
    g, r, p = curve.shape
    teams = np.asarray(teams)
    values, ids = team_values(curve, teams)
    last = np.minimum(turns, r - 1).astype(np.int64)  # a game's last row
    winner = winning_team(ranks, teams, ids)
    has = winner >= 0
    gi = np.arange(g)
    m = np.empty((g, 6), np.float64)
    _curve_metrics(values, last, winner.astype(np.int64), m)
    nan = np.full(g, np.nan)
    out = {"winner": winner,
           "decided_at": np.where(has, m[:, 0], nan),
           "lead_changes": m[:, 1],
           "drama": np.where(has, m[:, 2], nan),
           "behind_share": np.where(has, m[:, 3], nan),
           "comeback": has & (m[:, 4] > 0),
           "stall": m[:, 5]}

    at = np.rint(FRACTIONS[None, :] * last[:, None]).astype(np.int64)  # [G, F]
    v_at = values[gi[:, None], at]  # [G, F, K]
    out["team_lead"] = v_at - _best_other(v_at)
    at = np.rint(CURVE_POINTS[None, :] * last[:, None]).astype(np.int64)
    seat_at = curve[gi[:, None], at].astype(np.float64)  # [G, C, P]
    team_at = values[gi[:, None], at]  # [G, C, K]
    seat_team = np.searchsorted(ids, teams)
    rival = _best_other(team_at)  # [G, C, K]: the best other team of each team
    out["seat_lead"] = seat_at - rival[:, :, seat_team]
    return out


@kernel
def _curve_metrics(values, last, winner, out):
    """Per game (``values`` float64[G, R, K], rows to ``last[g]``, ``winner[g]`` a team or
    -1), into ``out[g]``: decided at, lead changes, drama, behind share, comeback (0/1),
    stall (see ``per_game``)."""
    g_n, _, k_n = values.shape
    for g in range(g_n):
        t_end = last[g]
        w = winner[g]
        span = max(t_end, 1)
        changes = 0
        carried = -1
        last_bad = -1
        drama = 0.0
        behind_turns = 0
        comeback = 0
        run = 0
        longest = 0
        for t in range(t_end + 1):
            best = values[g, t, 0]
            leader = 0
            tied = False
            for j in range(1, k_n):
                v = values[g, t, j]
                if v > best:
                    best, leader, tied = v, j, False
                elif v == best:
                    tied = True
            if not tied:
                if carried >= 0 and leader != carried:
                    changes += 1
                carried = leader
            if w >= 0:
                if tied or leader != w:
                    last_bad = t
                mine = values[g, t, w]
                other = -np.inf
                low = np.inf
                for j in range(k_n):
                    if j != w:
                        other = max(other, values[g, t, j])
                        low = min(low, values[g, t, j])
                drama = max(drama, other - mine)
                if t >= 1 and other > mine:
                    behind_turns += 1
                if t >= 1 and mine < low:
                    comeback = 1
            if t >= 1:
                still = True
                for j in range(k_n):
                    if values[g, t, j] != values[g, t - 1, j]:
                        still = False
                        break
                run = run + 1 if still else 0
                longest = max(longest, run)
        out[g, 0] = min(1.0, (last_bad + 1) / span)
        out[g, 1] = changes
        out[g, 2] = drama
        out[g, 3] = behind_turns / span
        out[g, 4] = comeback
        out[g, 5] = longest / span


def _best_other(values: np.ndarray) -> np.ndarray:
    """For every team (last axis), the best value among the other teams."""
    k = values.shape[-1]
    out = np.empty_like(values)
    for j in range(k):
        out[..., j] = np.delete(values, j, axis=-1).max(axis=-1)
    return out


def auc(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None = None) -> float:
    """The area under the ROC curve of ``scores`` for ``labels`` (bool): the chance that a
    winning team's score is above a losing one's, ties counting half; with ``weights``
    (a bootstrap's), each pair weighted by the product of theirs."""
    order = np.argsort(scores, kind="stable")
    return _auc_sorted(scores[order], labels[order],
                       None if weights is None else weights[order])


def _auc_sorted(s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> float:
    w = np.ones(len(s)) if w is None else w
    pos = np.where(y, w, 0.0)
    neg = np.where(y, 0.0, w)
    total_pos, total_neg = pos.sum(), neg.sum()
    if total_pos <= 0 or total_neg <= 0:
        return math.nan
    # ties: group equal scores
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    pos_g = np.add.reduceat(pos, starts)
    neg_g = np.add.reduceat(neg, starts)
    neg_below = np.cumsum(neg_g) - neg_g
    return float((pos_g * (neg_below + 0.5 * neg_g)).sum() / (total_pos * total_neg))


@kernel
def _bootstrap_auc(s, y, game_of, boot, out):
    """The AUC of sorted scores ``s`` (labels ``y``) under each bootstrap replicate's game
    weights (``boot[b, game_of[i]]``), into ``out[b]`` (NaN without both classes)."""
    n = s.shape[0]
    for b in range(boot.shape[0]):
        total_pos = 0.0
        total_neg = 0.0
        area = 0.0
        neg_below = 0.0
        i = 0
        while i < n:
            j = i
            pos_g = 0.0
            neg_g = 0.0
            while j < n and s[j] == s[i]:
                w = boot[b, game_of[j]]
                if y[j]:
                    pos_g += w
                else:
                    neg_g += w
                j += 1
            area += pos_g * (neg_below + 0.5 * neg_g)
            neg_below += neg_g
            total_pos += pos_g
            total_neg += neg_g
            i = j
        out[b] = area / (total_pos * total_neg) if total_pos > 0 and total_neg > 0 \
            else np.nan


class _Ratio:
    """A ratio of sums over games (legal moves per decision, say) with the sums its
    cluster-robust (delta method) interval needs."""

    def __init__(self):
        self.n = 0
        self.sx = self.sy = self.sxx = self.sxy = self.syy = 0.0

    def add(self, x: np.ndarray, y: np.ndarray) -> None:
        x = x.astype(np.float64)
        y = y.astype(np.float64)
        self.n += len(x)
        self.sx += float(x.sum())
        self.sy += float(y.sum())
        self.sxx += float((x * x).sum())
        self.sxy += float((x * y).sum())
        self.syy += float((y * y).sum())

    def ci(self) -> dict:
        if self.n == 0 or self.sy <= 0:
            return {"mean": math.nan, "ci_low": math.nan, "ci_high": math.nan, "n": self.n}
        r = self.sx / self.sy
        if self.n < 2:
            return {"mean": r, "ci_low": math.nan, "ci_high": math.nan, "n": self.n}
        ss = max(0.0, self.sxx - 2 * r * self.sxy + r * r * self.syy)
        ybar = self.sy / self.n
        se = math.sqrt(ss / (self.n * (self.n - 1))) / ybar
        half = 1.959963984540054 * se
        return {"mean": r, "ci_low": r - half, "ci_high": r + half, "n": self.n}


class _Sums:
    def __init__(self):
        self.values: list[np.ndarray] = []
        self.n, self.total, self.squares, self.shift = 0, 0.0, 0.0, None

    def add(self, x: np.ndarray) -> None:
        x = x[np.isfinite(x)]
        if not len(x):
            return
        if self.shift is None:
            self.shift = float(np.round(x.mean(), 3))
        self.n += len(x)
        self.total += float(x.sum())
        self.squares += float(((x - self.shift) ** 2).sum())

    def ci(self) -> dict:
        return st.mean_ci_sums(self.n, self.total, self.squares, self.shift or 0.0)


class FeelTally:
    """The feel figures of one run, counted chunk by chunk (see the module docstring).

    ``teams``: the 0-based team of each seat; ``phases``: the names of the rows of a chunk's
    ``counts`` (``("all",)`` for a game without phases)."""

    def __init__(self, players: int, teams, phases=("all",), progress_unit: str | None = None):
        self.players = int(players)
        self.teams = np.asarray(teams, dtype=np.int64)
        self.phases = tuple(phases)
        self.unit = progress_unit
        self.games = 0
        self.ends = np.zeros(1, np.int64)
        self.draws = 0
        self.branching = [_Ratio() for _ in self.phases]
        self.forced = [_Ratio() for _ in self.phases]
        self.squares = [0.0 for _ in self.phases]
        self.total_branching, self.total_forced = _Ratio(), _Ratio()
        self.traced = 0
        self.with_winner = 0
        self.comebacks = 0
        self.sums = {m: _Sums() for m in PER_GAME}
        self.curve_n = np.zeros(len(CURVE_POINTS))
        self.curve_sum = np.zeros((len(CURVE_POINTS), self.players))
        self.curve_sq = np.zeros((len(CURVE_POINTS), self.players))
        self._auc_lead: list[np.ndarray] = []
        self._auc_label: list[np.ndarray] = []
        self.auc_games = 0
        self.examples: list[dict] = []
        self.km_games = 0  # won games replayed for kingmakers
        self.km_last = 0
        self.pivotal = _Sums()

    # -- counting ---------------------------------------------------------------------------

    def add(self, counts: np.ndarray, end: np.ndarray, ranks: np.ndarray, turns: np.ndarray,
            curve: np.ndarray | None = None, first_game: int = 0, king=None,
            pivotal=None) -> None:
        """Count games: ``counts`` int[G, phases, 4] (decisions, forced, sum and sum of
        squares of legal moves), ``end``, ``ranks``, ``turns`` per game; ``curve``
        (float[T, R, P]) the progress of the first T of them, the run's games
        ``first_game`` on; ``king``, ``pivotal`` (int[K, P], -1 for a game not replayed)
        the kingmaker's and the pivotal decisions of the first K."""
        g = len(end)
        if g == 0:
            return
        if king is not None and len(king):
            self._add_kings(np.asarray(king), np.asarray(pivotal), ranks[:len(king)])
        self.games += g
        self.ends = _grow(self.ends, np.bincount(end))
        sole = winning_team(ranks, self.teams, np.unique(self.teams)) >= 0
        self.draws += int(((end != 0) & ~sole).sum())
        total = counts.sum(axis=1)
        self.total_branching.add(total[:, 2], total[:, 0])
        self.total_forced.add(total[:, 1], total[:, 0])
        for i in range(len(self.phases)):
            dec = counts[:, i, 0]
            self.branching[i].add(counts[:, i, 2], dec)
            self.forced[i].add(counts[:, i, 1], dec)
            self.squares[i] += float(counts[:, i, 3].sum())
        if curve is not None and len(curve):
            self._add_curves(curve, turns[:len(curve)], ranks[:len(curve)], first_game)

    def _add_kings(self, king, pivotal, ranks) -> None:
        """The replayed games' kingmaker counts (-1 for a seat not watched: only the seats
        that finished last are)."""
        watched = king >= 0
        done = watched.any(axis=1)
        self.km_games += int(done.sum())
        self.km_last += int(((king > 0) & watched).any(axis=1)[done].sum())
        self.pivotal.add(np.where(watched, pivotal, 0)[done].sum(axis=1).astype(np.float64))

    def _add_curves(self, curve, turns, ranks, first_game) -> None:
        m = per_game(curve, turns, ranks, self.teams)
        t = len(curve)
        self.traced += t
        has = m["winner"] >= 0
        self.with_winner += int(has.sum())
        self.comebacks += int(m["comeback"][has].sum())
        for name in PER_GAME:
            self.sums[name].add(m[name])
        lead = m["seat_lead"]
        ok = np.isfinite(lead).all(axis=2)
        self.curve_n += ok.sum(axis=0)
        lead0 = np.where(ok[:, :, None], lead, 0.0)
        self.curve_sum += lead0.sum(axis=0)
        self.curve_sq += (lead0 ** 2).sum(axis=0)
        room = AUC_GAMES - self.auc_games
        if room > 0:
            keep = has[:room]
            self._auc_lead.append(m["team_lead"][:room][keep])
            labels = np.arange(m["team_lead"].shape[2])[None, :] == m["winner"][:room][keep,
                                                                                      None]
            self._auc_label.append(labels)
            self.auc_games += int(min(room, t))
        for j in range(min(t, EXAMPLE_GAMES - len(self.examples))):
            rows = int(min(turns[j], curve.shape[1] - 1)) + 1
            self.examples.append({"game": first_game + j,
                                  "progress": curve[j, :rows].astype(float).tolist(),
                                  "winner_team": int(m["winner"][j]) + 1})

    # -- figures ----------------------------------------------------------------------------

    def auc_curve(self, seed: int = 0) -> list[dict]:
        """The AUC of each team's lead for its win, at each of ``FRACTIONS``, with a 95%
        Poisson-bootstrap interval over games (games with a winner)."""
        if not self._auc_lead:
            return []
        lead = np.concatenate(self._auc_lead)  # [N, F, K]
        label = np.concatenate(self._auc_label)  # [N, K]
        n, f, k = lead.shape
        if n < 2:
            return []
        rng = np.random.default_rng(seed)
        boot = rng.poisson(1.0, (BOOTSTRAP, n)).astype(np.float64)
        y = label.reshape(-1)
        out = []
        reps = np.empty((BOOTSTRAP, f))
        est = np.empty(f)
        for j in range(f):
            s = lead[:, j, :].reshape(-1)
            order = np.argsort(s, kind="stable")
            ss, yy = s[order], y[order]
            est[j] = _auc_sorted(ss, yy, None)
            _bootstrap_auc(ss, yy, (np.arange(n * k) // k)[order], boot, reps[:, j])
        for j in range(f):
            lo, hi = np.nanpercentile(reps[:, j], [2.5, 97.5])
            out.append({"fraction": float(FRACTIONS[j]), "auc": float(est[j]),
                        "ci_low": float(lo), "ci_high": float(hi), "games": int(n)})
        self._reps = reps
        self._est = est
        return out

    def uncertainty(self) -> dict:
        """1 minus the mean Gini (2 AUC - 1) of the leader's prediction over the inner
        points of the game (10% to 90%): 1 when the standing says nothing about the winner
        until the end, 0 when the leader at 10% always wins. Call after ``auc_curve``."""
        if not hasattr(self, "_est"):
            return {"mean": math.nan, "ci_low": math.nan, "ci_high": math.nan}
        inner = (FRACTIONS > 0) & (FRACTIONS < 1)
        value = 1 - float(np.mean(2 * self._est[inner] - 1))
        reps = 1 - np.nanmean(2 * self._reps[:, inner] - 1, axis=1)
        lo, hi = np.nanpercentile(reps, [2.5, 97.5])
        return {"mean": value, "ci_low": float(lo), "ci_high": float(hi)}

    def lead_curve(self) -> list[dict]:
        """Each seat's mean lead (its team's standing over the best other team's) at
        ``CURVE_POINTS``, with a 95% interval."""
        out = []
        for c, f in enumerate(CURVE_POINTS):
            n = self.curve_n[c]
            for s in range(self.players):
                r = st.mean_ci_sums(int(n), float(self.curve_sum[c, s]),
                                    float(self.curve_sq[c, s]), 0.0)
                out.append({"fraction": float(f), "seat": s + 1, "lead": r["mean"],
                            "ci_low": r["ci_low"], "ci_high": r["ci_high"], "games": int(n)})
        return out

    def metrics(self, seed: int = 0) -> dict:
        """Every figure, JSON-ready (``docs/metrics.md``)."""
        dec = [b.ci() for b in self.branching]
        spread = []
        for i, b in enumerate(self.branching):
            mean = b.sx / b.sy if b.sy else math.nan
            spread.append(math.sqrt(max(0.0, self.squares[i] / b.sy - mean * mean))
                          if b.sy else math.nan)
        phases = [{"phase": ph, "decisions": int(self.branching[i].sy),
                   "branching": dec[i], "branching_sd": spread[i],
                   "forced": self.forced[i].ci()} for i, ph in enumerate(self.phases)]
        total_b, total_sq = self.total_branching, sum(self.squares)
        mean = total_b.sx / total_b.sy if total_b.sy else math.nan
        timeouts = int(self.ends[0]) if len(self.ends) else 0
        out = {
            "games": self.games,
            "decisions": int(total_b.sy),
            "branching": total_b.ci(),
            "branching_sd": math.sqrt(max(0.0, total_sq / total_b.sy - mean * mean))
            if total_b.sy else math.nan,
            "forced": self.total_forced.ci(),
            "by_phase": phases if len(self.phases) > 1 else [],
            "timeouts": _share(timeouts, self.games),
            "draws": _share(self.draws, self.games),
            "traced_games": self.traced,
            "progress_unit": self.unit,
        }
        if self.traced:
            out.update({name: self.sums[name].ci() for name in PER_GAME})
            out["games_with_winner"] = self.with_winner
            out["comebacks"] = _share(self.comebacks, self.with_winner)
            out["auc"] = self.auc_curve(seed)
            out["uncertainty"] = self.uncertainty()
            out["lead_curve"] = self.lead_curve()
            out["examples"] = self.examples
        if self.km_games or self.pivotal.n:
            out["kingmaking_games"] = self.km_games
            out["kingmaking"] = _share(self.km_last, self.km_games)
            out["pivotal"] = self.pivotal.ci()
        return clean(out)

    # -- from a run folder -------------------------------------------------------------------

    @classmethod
    def from_tables(cls, games: pd.DataFrame, meta: dict, trace=None) -> FeelTally:
        """The tally of a run's games table and trace (a DataFrame, a trace.parquet path, or
        None), read in batches of ``TRACE_BATCH`` games."""
        players = int(meta.get("players") or games["players"].iloc[0])
        teams = np.array([int(t) - 1 for t in (meta.get("teams") or range(1, players + 1))])
        phases = tuple(meta.get("phases") or ("all",))
        tally = cls(players, teams, phases, meta.get("progress_unit"))
        games = games.sort_values("game")
        counts = counts_of(games, phases)
        ends = end_codes(games, meta)
        ranks = games[[f"rank_s{s}" for s in range(1, players + 1)]].to_numpy(np.int64)
        turns = games["turns"].to_numpy(np.int64)
        first = games["game"].to_numpy(np.int64)
        if "kingmaker_s1" in games.columns:
            cols = [f"kingmaker_s{s}" for s in range(1, players + 1)]
            king = games[cols].to_numpy(np.int64)
            piv = games[[c.replace("kingmaker", "pivotal") for c in cols]].to_numpy(np.int64)
            tally._add_kings(king, piv, ranks)
        done = 0
        for batch in _trace_batches(trace, players):
            ids, curve = batch
            sel = np.searchsorted(first, ids)
            if done < sel[0]:  # untraced games before this batch
                tally.add(counts[done:sel[0]], ends[done:sel[0]], ranks[done:sel[0]],
                          turns[done:sel[0]])
                done = sel[0]
            end = sel[-1] + 1
            tally.add(counts[sel[0]:end], ends[sel[0]:end], ranks[sel[0]:end],
                      turns[sel[0]:end], curve, int(ids[0]))
            done = end
        if done < len(games):
            tally.add(counts[done:], ends[done:], ranks[done:], turns[done:])
        return tally


def counts_of(games: pd.DataFrame, phases) -> np.ndarray:
    """int64[G, phases, 4] from a games table's counter columns (a table without them, from
    before December 2026, has none: every count is 0)."""
    g = len(games)
    out = np.zeros((g, len(phases), 4), np.int64)
    if "legal_moves" not in games.columns:
        return out
    if len(phases) == 1:
        names = [("decisions", "forced", "legal_moves", "legal_moves_sq")]
    else:
        names = [(f"decisions:{p}", f"forced:{p}", f"legal_moves:{p}", f"legal_moves_sq:{p}")
                 for p in phases]
    for i, cols in enumerate(names):
        for j, c in enumerate(cols):
            out[:, i, j] = games[c].to_numpy(np.int64)
    return out


def end_codes(games: pd.DataFrame, meta: dict) -> np.ndarray:
    reasons = list(meta.get("end_reasons") or ["timeout"])
    col = games["end_reason"].astype(str)
    return np.array([reasons.index(r) if r in reasons else len(reasons) for r in col],
                    np.int64) if len(col) else np.zeros(0, np.int64)


def _trace_batches(trace, players: int):
    """(game ids, float32[G, R, P] curves) of a trace, ``TRACE_BATCH`` games at a time."""
    if trace is None:
        return
    cols = [f"progress_s{s}" for s in range(1, players + 1)]
    if isinstance(trace, str) or hasattr(trace, "is_file"):
        import pyarrow.parquet as pq

        pf = pq.ParquetFile(trace)
        pending = None
        for batch in pf.iter_batches(200_000, columns=["game", "turn", *cols]):
            df = batch.to_pandas()
            pending = df if pending is None else _concat(pending, df)
            ids = pending["game"].to_numpy()
            games = np.unique(ids)
            if len(games) > TRACE_BATCH:
                cut = games[TRACE_BATCH]
                yield _padded(pending[ids < cut], cols)
                pending = pending[ids >= cut]
        if pending is not None and len(pending):
            yield from _split(pending, cols)
        return
    yield from _split(trace, cols)


def _concat(a, b):
    import pandas as pd

    return pd.concat([a, b], ignore_index=True)


def _split(df, cols):
    ids = df["game"].to_numpy()
    games = np.unique(ids)
    for i in range(0, len(games), TRACE_BATCH):
        part = games[i:i + TRACE_BATCH]
        yield _padded(df[(ids >= part[0]) & (ids <= part[-1])], cols)


def _padded(df, cols) -> tuple[np.ndarray, np.ndarray]:
    ids, inverse = np.unique(df["game"].to_numpy(), return_inverse=True)
    turn = df["turn"].to_numpy(np.int64)
    curve = np.full((len(ids), int(turn.max()) + 1, len(cols)), np.nan, np.float32)
    curve[inverse, turn] = df[cols].to_numpy(np.float32)
    return ids, curve


def _share(k: int, n: int) -> dict:
    lo, hi = st.wilson(k, n)
    return {"count": int(k), "n": int(n), "rate": k / n if n else math.nan,
            "ci_low": float(lo), "ci_high": float(hi)}


def _grow(total: np.ndarray, more: np.ndarray) -> np.ndarray:
    if len(more) > len(total):
        total = np.concatenate([total, np.zeros(len(more) - len(total), total.dtype)])
    total[:len(more)] += more
    return total


def _num(x, fmt: str = "{:.2f}") -> str:
    return "n/a" if x is None else fmt.format(x)


def _ci_text(r: dict, fmt: str = "{:.2f}", scale: float = 1.0) -> str:
    if r is None or r.get("mean") is None:
        return "n/a"
    lo, hi = r.get("ci_low"), r.get("ci_high")
    mid = fmt.format(r["mean"] * scale)
    if lo is None or hi is None:
        return mid
    return f"{mid} [{fmt.format(lo * scale)}, {fmt.format(hi * scale)}]"


def _rate_text(r: dict) -> str:
    if r is None or r.get("rate") is None:
        return "n/a"
    return f"{100 * r['rate']:.1f}% [{100 * r['ci_low']:.1f}, {100 * r['ci_high']:.1f}]"


def _pct_ci(r: dict) -> str:
    """A share with its interval: "56.5% [54.6, 58.4]"."""
    if r is None or r.get("mean") is None:
        return "n/a"
    if r.get("ci_low") is None or r.get("ci_high") is None:
        return f"{100 * r['mean']:.1f}%"
    return f"{100 * r['mean']:.1f}% [{100 * r['ci_low']:.1f}, {100 * r['ci_high']:.1f}]"


def feel_lines(m: dict) -> list[str]:
    """The summary's "How it plays" block, from ``FeelTally.metrics()`` (at most 100
    columns)."""
    if not m or not m.get("games"):
        return []
    if m.get("traced_games"):
        head = (f"How it plays (counters: all {m['games']:,} games; curves: the "
                f"{m['traced_games']:,} traced)")
    else:
        head = (f"How it plays (all {m['games']:,} games; --trace-turns N adds lead, drama "
                "and decisiveness)")
    out = [head]
    if m.get("decisions"):
        sd = m.get("branching_sd")
        out.append(f"  legal moves a decision {_ci_text(m['branching'])}"
                   + (f", sd {sd:.1f}" if sd is not None else "")
                   + f"; forced (one legal move) {_pct_ci(m['forced'])}")
        if m.get("by_phase"):
            parts = [f"{p['phase']} {_num(p['branching']['mean'], '{:.1f}')} (forced "
                     f"{_num(p['forced']['mean'], '{:.1%}')})" for p in m["by_phase"]]
            out.append("    by phase: " + ", ".join(parts))
    out.append(f"  timeouts {_rate_text(m['timeouts'])}; draws and shared wins "
               f"{_rate_text(m['draws'])}")
    if not m.get("traced_games"):
        return out + kingmaking_lines(m)
    unit = m.get("progress_unit") or "points"
    out += [
        f"  decided at {_pct_ci(m['decided_at'])} of the game (the winner leads alone from "
        "there on)",
        f"  lead changes {_ci_text(m['lead_changes'])} a game",
        f"  comebacks {_rate_text(m['comebacks'])} of won games (the winner was last at some "
        "turn)",
        f"  drama: the winner's largest deficit {_ci_text(m['drama'])} {unit}",
        f"    the winner was behind {_pct_ci(m['behind_share'])} of the turns",
        f"  longest stall (no standing moved) {_pct_ci(m['stall'])} of the game",
        f"  uncertainty {_ci_text(m['uncertainty'])} (1: the standing tells nothing of the "
        "winner before the end)",
    ]
    near = {round(a["fraction"], 1): a for a in m.get("auc") or []}
    parts = [f"{int(100 * f)}% {near[f]['auc']:.2f}" for f in (0.2, 0.5, 0.8, 0.9)
             if f in near and near[f]["auc"] is not None]
    if parts:
        out.append("  the leader predicts the winner, AUC after " + ", ".join(parts)
                   + " of the game")
    return out + kingmaking_lines(m)


def kingmaking_lines(m: dict) -> list[str]:
    if not m.get("kingmaking"):
        return []
    return [f"  kingmaking ({m['kingmaking_games']:,} won games replayed): the seat that "
            f"finished last chose the winner in {_rate_text(m['kingmaking'])}",
            f"    its decisions whose moves led to different winners: "
            f"{_ci_text(m['pivotal'])} a game"]


# -- what-if: the paired differences -------------------------------------------------------

SHARE_MEASURES = ("forced moves", "decided at", "comebacks", "winner behind", "longest stall",
                  "kingmaking")
"""Compared measures that are shares (shown in percentage points)."""


def _subset_influence(x: np.ndarray) -> tuple[float, np.ndarray]:
    """The mean of the finite values of ``x`` and each game's linearisation (0 for a game
    without a value), whose mean is 0: a mean over the games that have one (won games, say)
    is paired like a ratio of sums."""
    ok = np.isfinite(x)
    if not ok.any():
        return math.nan, np.zeros(len(x))
    m = float(x[ok].mean())
    return m, np.where(ok, x - m, 0.0) / ok.mean()


def _row(measure, group, pair_b, pair_c, method="paired by game") -> dict:
    from simkit.reports.analysis import _paired_row

    (mb, zb), (mc, zc) = pair_b, pair_c
    row = _paired_row(measure, group, mb, mc, (mc - mb) + (zc - zb), method)
    if math.isnan(mb) or math.isnan(mc):
        row.update(ci_low=np.nan, ci_high=np.nan, p_value=np.nan)
    return row


def _ratio_pair(x: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    total = y.sum()
    if total <= 0:
        return math.nan, np.zeros(len(x))
    r = float(x.sum() / total)
    return r, (x - r * y) / y.mean()


def compare_rows(b: pd.DataFrame, c: pd.DataFrame, bm: dict, cm: dict, b_trace=None,
                 c_trace=None) -> list[dict]:
    """The what-if rows of how the game feels, for two runs' paired games tables (the same
    games in the same order): legal moves a decision and forced moves (overall and by
    phase), timeouts, and, when both runs traced games, every curve metric over the traced
    games both share, each with a paired 95% interval; the uncertainty and the AUC at half
    time with a paired Poisson bootstrap (the same weights for a game in both runs)."""
    rows: list[dict] = []
    if "legal_moves" not in b.columns or "legal_moves" not in c.columns:
        return rows
    phases = tuple(bm.get("phases") or ("all",))
    kb = counts_of(b, phases if tuple(cm.get("phases") or ("all",)) == phases else ("all",))
    kc = counts_of(c, phases if tuple(cm.get("phases") or ("all",)) == phases else ("all",))
    groups = [("per decision", kb.sum(axis=1), kc.sum(axis=1))]
    if kb.shape[1] > 1:
        groups += [(f"phase {ph}", kb[:, i], kc[:, i]) for i, ph in enumerate(phases)]
    for group, xb, xc in groups:
        rows.append(_row("legal moves a decision", group,
                         _ratio_pair(xb[:, 2].astype(float), xb[:, 0].astype(float)),
                         _ratio_pair(xc[:, 2].astype(float), xc[:, 0].astype(float))))
        rows.append(_row("forced moves", group,
                         _ratio_pair(xb[:, 1].astype(float), xb[:, 0].astype(float)),
                         _ratio_pair(xc[:, 1].astype(float), xc[:, 0].astype(float))))
    tb = (b["end_reason"].astype(str) == "timeout").to_numpy(float)
    tc = (c["end_reason"].astype(str) == "timeout").to_numpy(float)
    rows.append(_row("share of games", "timeout", (float(tb.mean()), tb - tb.mean()),
                     (float(tc.mean()), tc - tc.mean())))
    rows += _kingmaking_rows(b, c, int(bm.get("players") or 0))
    if b_trace is None or c_trace is None:
        return rows
    mb, ids_b = _traced_metrics(b, bm, b_trace)
    mc, ids_c = _traced_metrics(c, cm, c_trace)
    common, ib, ic = np.intersect1d(ids_b, ids_c, return_indices=True)
    if len(common) < 2:
        return rows
    unit = bm.get("progress_unit") or "points"
    method = f"paired by game ({len(common):,} traced)"
    for key, measure, group in (("decided_at", "decided at", "share of the game"),
                                ("lead_changes", "lead changes", "per game"),
                                ("drama", f"drama ({unit})"[:24], "winner's deficit"),
                                ("behind_share", "winner behind", "share of turns"),
                                ("stall", "longest stall", "share of the game")):
        rows.append(_row(measure, group, _subset_influence(mb[key][ib]),
                         _subset_influence(mc[key][ic]), method))
    cb = np.where(mb["winner"][ib] >= 0, mb["comeback"][ib].astype(float), np.nan)
    cc = np.where(mc["winner"][ic] >= 0, mc["comeback"][ic].astype(float), np.nan)
    rows.append(_row("comebacks", "share of won games", _subset_influence(cb),
                     _subset_influence(cc), method))
    rows += _bootstrap_rows(mb, mc, ib, ic, int(bm.get("master_seed") or 0), method)
    return rows


def _kingmaking_rows(b: pd.DataFrame, c: pd.DataFrame, players: int) -> list[dict]:
    """Kingmaking in both runs (``--kingmaking``): the share of won replayed games in which
    the seat that finished last chose the winner, paired over the games replayed in both
    (a game is counted where it was won and replayed)."""
    cols = [f"kingmaker_s{s}" for s in range(1, players + 1)]
    if not players or not all(col in b.columns and col in c.columns for col in cols):
        return []
    kb, kc = b[cols].to_numpy(), c[cols].to_numpy()

    def per_game(k):
        done = (k >= 0).any(axis=1)
        return np.where(done, (k > 0).any(axis=1).astype(float), np.nan)

    xb, xc = per_game(kb), per_game(kc)
    return [_row("kingmaking", "last seat chose the winner", _subset_influence(xb),
                 _subset_influence(xc),
                 f"paired by game ({int(np.isfinite(xb).sum()):,} replayed)")]


def _traced_metrics(games: pd.DataFrame, meta: dict, trace) -> tuple[dict, np.ndarray]:
    """The per-game curve metrics of a run's traced games (at most ``AUC_GAMES``, the
    first), and their game indices."""
    players = int(meta.get("players") or games["players"].iloc[0])
    teams = np.array([int(t) - 1 for t in (meta.get("teams") or range(1, players + 1))])
    g = games.set_index("game")
    parts, ids, total = [], [], 0
    for batch_ids, curve in _trace_batches(trace, players):
        sub = g.loc[batch_ids]
        ranks = sub[[f"rank_s{s}" for s in range(1, players + 1)]].to_numpy(np.int64)
        parts.append(per_game(curve, sub["turns"].to_numpy(np.int64), ranks, teams))
        ids.append(batch_ids)
        total += len(batch_ids)
        if total >= AUC_GAMES:
            break
    if not parts:
        return {}, np.zeros(0, np.int64)
    out = {k: np.concatenate([p[k] for p in parts])[:AUC_GAMES] for k in parts[0]}
    return out, np.concatenate(ids)[:AUC_GAMES]


def winner_trailed(games: pd.DataFrame, meta: dict, trace) -> pd.DataFrame:
    """Each traced game's winner against the others, from its progress turn by turn
    (``per_game`` on the run's trace; the first ``AUC_GAMES`` traced games): columns
    ``game``, ``trailed`` (another team's progress was strictly ahead of the winner's after
    some turn: ``behind_share`` > 0), ``last`` (the winner was last at some turn: the
    ``comeback`` of docs/metrics.md) and ``deficit`` (the winner's largest deficit, in
    progress units: ``drama``). Games nobody won alone are left out."""
    import pandas as pd

    m, ids = _traced_metrics(games, meta, trace)
    if not len(ids):
        return pd.DataFrame({"game": np.zeros(0, np.int64), "trailed": np.zeros(0, bool),
                             "last": np.zeros(0, bool), "deficit": np.zeros(0)})
    won = m["winner"] >= 0
    return pd.DataFrame({"game": ids[won], "trailed": m["behind_share"][won] > 0,
                         "last": m["comeback"][won], "deficit": m["drama"][won]})


def _bootstrap_rows(mb, mc, ib, ic, seed, method) -> list[dict]:
    """Uncertainty and the AUC at half time, base and changed, with the difference's 95%
    interval from a paired Poisson bootstrap over the shared traced games."""
    lb, lc = mb["team_lead"][ib], mc["team_lead"][ic]  # [N, F, K]
    wb, wc = mb["winner"][ib], mc["winner"][ic]
    n, f, k = lb.shape
    boot = np.random.default_rng(seed).poisson(1.0, (BOOTSTRAP, n)).astype(float)
    inner = (FRACTIONS > 0) & (FRACTIONS < 1)
    half = int(np.flatnonzero(np.isclose(FRACTIONS, 0.5))[0])

    def figures(lead, winner, weights):
        has = winner >= 0
        y = (np.arange(k)[None, :] == winner[:, None])[has].reshape(-1)
        w = None if weights is None else np.repeat(weights[has], k)
        aucs = np.array([auc(lead[has][:, j, :].reshape(-1), y, w) for j in range(f)])
        return 1 - float(np.nanmean(2 * aucs[inner] - 1)), float(aucs[half])

    est_b, est_c = figures(lb, wb, None), figures(lc, wc, None)
    reps = np.array([np.subtract(figures(lc, wc, boot[i]), figures(lb, wb, boot[i]))
                     for i in range(BOOTSTRAP)])
    rows = []
    for j, (measure, group) in enumerate((("uncertainty", "1 - mean Gini"),
                                          ("leader predicts winner", "AUC at 50%"))):
        lo, hi = np.nanpercentile(reps[:, j], [2.5, 97.5])
        d = est_c[j] - est_b[j]
        se = float(np.nanstd(reps[:, j], ddof=1))
        p = float(st._normal_two_sided_p(d / se)) if se > 0 else (1.0 if d == 0 else 0.0)
        rows.append({"measure": measure, "group": group, "base": est_b[j],
                     "changed": est_c[j], "difference": d, "ci_low": float(lo),
                     "ci_high": float(hi), "p_value": p, "n": int(n),
                     "method": method.replace("paired by game", "paired bootstrap")})
    return rows


# -- report tables ----------------------------------------------------------------------------

def _fmt(r: dict | None, share: bool, digits: int = 2) -> tuple[str, str]:
    if not r or r.get("mean") is None and r.get("rate") is None:
        return "n/a", ""
    mean = r.get("mean", r.get("rate"))
    lo, hi = r.get("ci_low"), r.get("ci_high")
    def f(v):
        return f"{100 * v:.1f}%" if share else f"{v:.{digits}f}"

    return f(mean), ("" if lo is None or hi is None else f"[{f(lo)}, {f(hi)}]")


def feel_table(m: dict) -> pd.DataFrame:
    """The report's table of how the game plays: every metric with its 95% interval, what
    it covers and what it means (``docs/metrics.md``)."""
    import pandas as pd

    every = f"all {m['games']:,} games"
    traced = f"{m.get('traced_games', 0):,} traced games"
    unit = m.get("progress_unit") or "points"
    rows = [("legal moves a decision", m.get("branching"), False, every,
             f"branching factor (sd {m['branching_sd']:.1f} over decisions)"
             if m.get("branching_sd") is not None else "branching factor"),
            ("forced moves", m.get("forced"), True, every, "decisions with one legal move"),
            ("timeouts", m.get("timeouts"), True, every, "games that reached max_turns"),
            ("draws and shared wins", m.get("draws"), True, every,
             "finished games with no sole winning team")]
    if m.get("traced_games"):
        won = f"{m.get('games_with_winner', 0):,} won traced games"
        rows += [("decided at", m.get("decided_at"), True, won,
                  "share of the game after which the winner led alone to the end"),
                 ("lead changes", m.get("lead_changes"), False, traced,
                  "changes of the sole leader a game"),
                 (f"drama ({unit})", m.get("drama"), False, won,
                  "the winner's largest deficit"),
                 ("winner behind", m.get("behind_share"), True, won,
                  "share of turns the eventual winner was behind"),
                 ("comebacks", m.get("comebacks"), True, won,
                  "the winner was last at some turn"),
                 ("longest stall", m.get("stall"), True, traced,
                  "longest stretch in which no standing moved, share of the game"),
                 ("uncertainty", m.get("uncertainty"), False,
                  f"{(m.get('auc') or [{}])[0].get('games', 0):,} won traced games",
                  "1 - mean Gini of the leader's prediction (1: the standing never tells)")]
    if m.get("kingmaking"):
        km = f"{m['kingmaking_games']:,} won games replayed"
        rows += [("kingmaking", m["kingmaking"], True, km,
                  "the seat that finished last, unable to win, chose who won"),
                 ("pivotal decisions", m["pivotal"], False, km,
                  "the last seat's decisions whose moves led to different winners")]
    out = []
    for name, r, share, covers, meaning in rows:
        value, ci = _fmt(r, share)
        out.append({"measure": name, "value": value, "95% interval": ci, "covers": covers,
                    "meaning": meaning})
    return pd.DataFrame(out)


def phase_table(m: dict) -> pd.DataFrame | None:
    import pandas as pd

    if not m.get("by_phase"):
        return None
    out = []
    for p in m["by_phase"]:
        b, bc = _fmt(p["branching"], False)
        f, fc = _fmt(p["forced"], True)
        out.append({"phase": p["phase"], "decisions": f"{p['decisions']:,}",
                    "legal moves a decision": b, "95% interval": bc,
                    "sd": "" if p.get("branching_sd") is None else f"{p['branching_sd']:.1f}",
                    "forced": f, "forced 95%": fc})
    return pd.DataFrame(out)


def auc_table(m: dict) -> pd.DataFrame | None:
    import pandas as pd

    if not m.get("auc"):
        return None
    return pd.DataFrame([{"share of the game played": f"{100 * a['fraction']:.0f}%",
                          "AUC": f"{a['auc']:.3f}" if a["auc"] is not None else "n/a",
                          "95% interval": "" if a["ci_low"] is None else
                          f"[{a['ci_low']:.3f}, {a['ci_high']:.3f}]"} for a in m["auc"]])


def feel_sentences(m: dict) -> list[str]:
    """Plain-language reading of the figures, for the report (no verdict on taste: the
    designer judges whether a game decided at 40% is too early)."""
    out = []
    if m.get("forced") and m["forced"].get("mean") is not None and m["forced"]["mean"] > 0.2:
        out.append(f"{100 * m['forced']['mean']:.0f}% of decisions are forced (one legal "
                   "move): players often have no choice.")
    if not m.get("traced_games"):
        out.append("No game was traced: run with --trace-turns N for lead, drama and "
                   "decisiveness.")
        return out
    d = m.get("decided_at") or {}
    if d.get("mean") is not None:
        out.append(f"On average the eventual winner takes the lead for good after "
                   f"{100 * d['mean']:.0f}% of the game.")
    near = {round(a["fraction"], 1): a for a in m.get("auc") or []}
    if 0.5 in near and near[0.5]["auc"] is not None:
        out.append(f"At half time the leader's standing ranks the winner above a loser "
                   f"{100 * near[0.5]['auc']:.0f}% of the time (AUC {near[0.5]['auc']:.2f}; "
                   "0.5 is a coin).")
    c = m.get("comebacks") or {}
    if c.get("rate") is not None:
        out.append(f"{100 * c['rate']:.0f}% of won games were won by a seat that was last at "
                   "some turn.")
    return out


def compact(m: dict | None) -> dict | None:
    """A run's feel figures without the curves (for a sweep's or a ladder's summary.json)."""
    if not m:
        return m
    return {k: v for k, v in m.items() if k not in ("lead_curve", "examples", "auc")}


def trend_sentence(points: list[dict], what: str, low: str, high: str) -> str | None:
    """How decisiveness moves from the first point to the last (``points``: dicts with
    ``label`` and ``feel``), as one sentence with the difference's 95% interval (the two
    runs taken as independent samples: conservative when they share seeds)."""
    pts = [p for p in points if (p.get("feel") or {}).get("decided_at")]
    if len(pts) < 2:
        return None
    a, b = pts[0]["feel"]["decided_at"], pts[-1]["feel"]["decided_at"]
    if a.get("se") is None or b.get("se") is None or a.get("mean") is None \
            or b.get("mean") is None:
        return None
    d = b["mean"] - a["mean"]
    half = 1.959963984540054 * math.hypot(a["se"], b["se"])
    if d - half > 0:
        word = "later"
    elif d + half < 0:
        word = "earlier"
    else:
        word = "no detectably earlier or later"
    text = (f"{what}, the winner takes the lead for good {word}: decided at "
            f"{100 * a['mean']:.0f}% of the game at {pts[0]['label']} ({low}) and "
            f"{100 * b['mean']:.0f}% at {pts[-1]['label']} ({high}), "
            f"{100 * d:+.1f} points [{100 * (d - half):+.1f}, {100 * (d + half):+.1f}]")
    return text + "."
