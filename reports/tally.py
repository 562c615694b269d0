"""A run's summary, counted while it is played: ``simkit run`` prints its summary from a
``Tally`` instead of reading games.parquet and items.parquet back.

``Tally.add`` takes each played chunk (``simkit.results.Chunk``) and keeps counts only, so
memory does not grow with the number of games:

- games by the strategy in each seat (a row of strategy codes: one per rotation) and by which
  seats have rank 1 (a bit mask of at most 2**P values): every outcome figure (wins, ties,
  score share, seat advantage, first-player advantage, strategies, outcomes) is a function
  of the mask, given the run's fixed teams;
- end reasons; a histogram of turns and one of decisions (exact means and quantiles);
- per seat, the sum of its scores and of their squares about a shift (and the same for its
  winning margins);
- per strategy and item column, the seat-games, wins, seat-games with the event, their wins
  and the sum of the counts: ``analysis.item_counts``'s table.

``Tally.tables`` turns them into the tables that ``reports.summary`` prints, as rows (a
dict per row, no pandas: a run imports none), with the columns and figures of
``reports.analysis`` (``seat_outcomes``, ``team_outcomes``, ...) on the same games: counts
are exact; means and intervals are the same up to the order of their sums (the last bits),
so the printed summary is the one a run folder gives (tests/reports/test_tally.py).
"""

from __future__ import annotations

import numpy as np
from simkit.reports import stats as st


class _Sums:
    """Count, sum and shifted sum of squares of a stream of values (``mean_ci_sums``)."""

    def __init__(self):
        self.n, self.total, self.squares, self.shift = 0, 0.0, 0.0, None

    def add(self, x: np.ndarray) -> None:
        if len(x) == 0:
            return
        if self.shift is None:
            mean = float(x.mean())
            self.shift = float(np.round(mean)) if np.isfinite(mean) else 0.0
        self.n += len(x)
        self.total += float(x.sum())
        self.squares += float(((x - self.shift) ** 2).sum())

    def mean_ci(self) -> dict:
        return st.mean_ci_sums(self.n, self.total, self.squares, self.shift or 0.0)


class Tally:
    """The summary's counts of one run (see the module docstring).

    ``teams``: the kernels' 0-based team of each seat; ``strategy_names``: the strategy of
    each code (the driver's); ``strategies``: the run's strategy per seat (their order names
    the strategies in the tables); ``end_reasons`` and ``item_columns``: the game's."""

    def __init__(self, players: int, teams, strategy_names, strategies, end_reasons,
                 item_columns):
        p = self.players = int(players)
        self.teams = np.asarray(teams, dtype=np.int16) + 1  # as the tables' team_s columns
        self.strategy_names = [str(n) for n in strategy_names]
        self.names = list(dict.fromkeys(str(s) for s in strategies))
        self.end_reasons = [str(r) for r in end_reasons]
        self.item_columns = [str(c) for c in item_columns]
        self.games = 0
        masks = np.arange(1 << p)
        self._first = (masks[:, None] >> np.arange(p)[None, :]) & 1 == 1  # bool[M, P]
        teams_m = np.broadcast_to(self.teams, self._first.shape)
        self._won, self._tied, self._share = st.results_of(self._first, teams_m)
        self._outcome = st._outcomes(self._first, teams_m)
        self._place = (len(self.strategy_names) + 1) ** np.arange(p, dtype=np.int64)
        self._combo_index: dict[int, int] = {}
        self.combos = np.empty((0, p), dtype=np.int32)  # strategy codes of each seat
        self.counts = np.empty((0, 1 << p), dtype=np.int64)  # games by [combo, mask]
        self.ends = np.zeros(len(self.end_reasons), dtype=np.int64)
        self.turns = np.zeros(1, dtype=np.int64)  # histograms
        self.decisions = np.zeros(1, dtype=np.int64)
        self.scores = [_Sums() for _ in range(p)]
        self.margins = [_Sums() for _ in range(p)]
        group = np.full(len(self.strategy_names), -1, dtype=np.intp)
        for i, name in enumerate(self.names):
            if name in self.strategy_names:
                group[self.strategy_names.index(name)] = i
        self._group = group
        k, g = len(self.item_columns), len(self.names)
        self.seat_games = np.zeros(g, dtype=np.int64)
        self.seat_wins = np.zeros(g, dtype=np.int64)
        self.occurred = np.zeros((k, g), dtype=np.int64)
        self.occurred_wins = np.zeros((k, g), dtype=np.int64)
        self.count_sum = np.zeros((k, g), dtype=np.int64)

    def __len__(self) -> int:
        return self.games

    # -- counting ---------------------------------------------------------------------------

    feel = None
    """The run's ``reports.feel.FeelTally`` when it counts the feel figures too."""

    def add(self, chunk) -> None:
        """Count one played chunk."""
        g, p = chunk.ranks.shape
        if g == 0:
            return
        if self.feel is not None and chunk.counts is not None:
            self.feel.add(chunk.counts, chunk.end, chunk.ranks, chunk.turns, chunk.curve,
                          chunk.start, chunk.king, chunk.pivotal)
        self.games += g
        mask = np.zeros(g, dtype=np.intp)  # (a loop over seats: sum(axis=1) is 6x slower)
        for s in range(p):
            mask |= (chunk.ranks[:, s] == 1).astype(np.intp) << s
        combo = self._combos_of(chunk.codes)
        m = 1 << p
        self.counts += np.bincount(combo * m + mask, minlength=self.counts.size
                                   ).reshape(self.counts.shape)
        self.ends = _grow_add(self.ends, np.bincount(chunk.end, minlength=len(self.ends)))
        self.turns = _grow_add(self.turns, np.bincount(chunk.turns))
        self.decisions = _grow_add(self.decisions, np.bincount(chunk.decisions))
        won = self._won[mask]
        scores = chunk.scores
        for s in range(p):
            self.scores[s].add(scores[:, s])
            others = np.full(g, -np.inf)  # the best score of another team (a loop over
            for t in range(p):  # seats: numpy's max along rows of 2 to 4 is 3x slower)
                if self.teams[t] != self.teams[s]:
                    np.maximum(others, scores[:, t], out=others)
            mine = won[:, s] & np.isfinite(others)
            self.margins[s].add((scores[:, s] - others)[mine])
        self._add_items(chunk, won)

    def _combos_of(self, codes: np.ndarray) -> np.ndarray:
        """intp[G]: the index of each game's row of strategy codes among ``self.combos``."""
        keys = np.zeros(len(codes), dtype=np.int64)
        for s, place in enumerate(self._place.tolist()):
            keys += codes[:, s].astype(np.int64) * place
        present = np.flatnonzero(np.bincount(keys))
        lookup = np.empty(int(present[-1]) + 1, dtype=np.intp)
        for key in present.tolist():
            if key not in self._combo_index:
                self._combo_index[key] = len(self.combos)
                row = codes[int(np.argmax(keys == key))]
                self.combos = np.vstack([self.combos, row[None, :]])
                self.counts = np.vstack([self.counts, np.zeros((1, self.counts.shape[1]),
                                                               dtype=np.int64)])
            lookup[key] = self._combo_index[key]
        return lookup[keys]

    def _add_items(self, chunk, won: np.ndarray) -> None:
        g, p, k = chunk.items.shape
        group = self._group[chunk.codes].ravel()
        won = won.ravel()
        # a row per item column: numpy sums along rows 4x faster than down columns
        counts = np.ascontiguousarray(chunk.items.reshape(g * p, k).T)
        if k and counts.max() > 65535:
            counts = np.minimum(counts, 65535)  # as items.parquet's uint16
        for gi in range(len(self.names)):
            rows = group == gi
            if rows.all():
                sub, w = counts, won
            else:
                sub, w = counts[:, rows], won[rows]
            self.seat_games[gi] += len(w)
            self.seat_wins[gi] += int(np.count_nonzero(w))
            if k:
                occ = sub > 0
                self.occurred[:, gi] += np.count_nonzero(occ, axis=1)
                self.occurred_wins[:, gi] += np.count_nonzero(occ & w, axis=1)
                self.count_sum[:, gi] += sub.sum(axis=1, dtype=np.int64)

    # -- the summary's tables ---------------------------------------------------------------

    def tables(self, meta: dict | None) -> dict:
        """The tables of ``reports.summary.tables`` (without the verdicts)."""
        meta = meta or {}
        return {"seats": self.seat_outcomes(meta), "teams": self.team_outcomes(),
                "strategies": self.strategy_outcomes(), "fpa": self.first_player_advantage(),
                "scores": self.score_table(meta), "length": self.game_length(),
                "endings": self.endings(), "items": self.item_value(meta)}

    def _by_mask(self) -> np.ndarray:
        return self.counts.sum(axis=0)

    def _outcome_row(self, n: int, seat: int, counts: np.ndarray) -> dict:
        w = int(counts @ self._won[:, seat])
        t = int(counts @ self._tied[:, seat])
        return st._outcome_counts_row(n, w, t, st.mean_ci_counts(self._share[:, seat], counts))

    def seat_outcomes(self, meta: dict) -> list[dict]:
        p, n, cm = self.players, self.games, self._by_mask()
        names = st.seat_names(meta, p)
        fair = self._share.mean(axis=1)
        rows = []
        for s in range(p):
            adv = st.mean_ci_counts(self._share[:, s] - fair, cm)
            rows.append({"players": p, "seat": s + 1, "name": names[s], "games": n,
                         **self._outcome_row(n, s, cm), "advantage": adv["mean"],
                         "adv_low": adv["ci_low"], "adv_high": adv["ci_high"],
                         "adv_p": adv["p_value"]})
        return rows

    def team_outcomes(self) -> list[dict]:
        p, n, cm = self.players, self.games, self._by_mask()
        ids = sorted({int(x) for x in self.teams})
        rows = []
        if len(ids) != p:
            for t in ids:
                seats = [s for s in range(p) if self.teams[s] == t]
                rows.append({"players": p, "team": t,
                             "seats": "+".join(str(s + 1) for s in seats), "games": n,
                             **self._outcome_row(n, seats[0], cm)})
        return rows

    def strategy_outcomes(self) -> list[dict]:
        p = self.players
        per_combo = self.counts.sum(axis=1)
        seated = self.combos[per_combo > 0]
        fair = float((self._by_mask() @ self._share.sum(axis=1)) / (self.games * p)) \
            if self.games else np.nan
        rows = []
        for name in self.names:
            code = self.strategy_names.index(name)
            mine = self.combos == code  # bool[combos, P]
            if not (seated == code).any():
                continue
            entries = [("all", mine)]
            entries += [(s + 1, mine & (np.arange(p) == s)[None, :]) for s in range(p)
                        if (seated[:, s] == code).any()]
            for seat, where in entries:
                cs, ss = np.nonzero(where)
                n = int(per_combo[cs].sum())
                values = np.concatenate([self._share[:, s] for s in ss]) if len(ss) \
                    else np.empty(0)
                counts = np.concatenate([self.counts[c] for c in cs]) if len(cs) \
                    else np.empty(0, dtype=np.int64)
                w = sum(int(self.counts[c] @ self._won[:, s]) for c, s in zip(cs, ss,
                                                                               strict=True))
                t = sum(int(self.counts[c] @ self._tied[:, s]) for c, s in zip(cs, ss,
                                                                                strict=True))
                rows.append({"players": p, "strategy": name, "seat": seat, "seat_games": n,
                             **st._outcome_counts_row(n, w, t,
                                                     st.mean_ci_counts(values, counts)),
                             "fair_share": fair})
        return rows

    def first_player_advantage(self) -> list[dict]:
        p, n, cm = self.players, self.games, self._by_mask()
        share, won = self._share, self._won
        r = st.mean_ci_counts(st._fpa_per_game(share), cm)
        row = {"players": p, "games": n,
               "seat1_win_rate": int(cm @ won[:, 0]) / n if n else np.nan,
               "seat1_score_share": float(cm @ share[:, 0]) / n if n else np.nan,
               "fair_share": float(cm @ share.sum(axis=1)) / (n * p) if n else np.nan,
               "advantage": r["mean"], "se": r["se"], "ci_low": r["ci_low"],
               "ci_high": r["ci_high"], "p_value": r["p_value"],
               "first_minus_second": np.nan, "fms_low": np.nan, "fms_high": np.nan,
               "fms_p": np.nan}
        if p == 2:
            f = st.mean_ci_counts(won[:, 0].astype(float) - won[:, 1], cm)
            row.update(first_minus_second=f["mean"], fms_low=f["ci_low"],
                       fms_high=f["ci_high"], fms_p=f["p_value"])
        return [row]

    def score_table(self, meta: dict) -> list[dict]:
        p = self.players
        names = st.seat_names(meta, p)
        rows = []
        for s in range(p):
            m, mg = self.scores[s].mean_ci(), self.margins[s].mean_ci()
            rows.append({"players": p, "seat": s + 1, "name": names[s], "games": self.games,
                         "mean_score": m["mean"], "score_low": m["ci_low"],
                         "score_high": m["ci_high"], "wins": self.margins[s].n,
                         "mean_margin": mg["mean"], "margin_low": mg["ci_low"],
                         "margin_high": mg["ci_high"]})
        return rows

    def game_length(self) -> list[dict]:
        rows = []
        for measure, hist in (("turns", self.turns), ("decisions", self.decisions)):
            row = {"players": self.players, "measure": measure, "games": self.games}
            figures = _hist_stats(hist) if self.games else {}
            for key in ("mean", "sd", "min", *st._QUANTILES, "max"):  # analysis' column order
                row[key] = figures.get(key, np.nan)
            rows.append(row)
        return rows

    def endings(self) -> list[dict]:
        p, n = self.players, self.games
        rows = []
        for r, c in zip(self.end_reasons, self.ends.tolist(), strict=False):
            lo, hi = st.wilson(c, n)
            rows.append({"players": p, "kind": "end reason", "name": r, "count": c,
                         "share": c / n if n else np.nan, "ci_low": float(lo),
                         "ci_high": float(hi)})
        oc = np.bincount(self._outcome, weights=self._by_mask(),
                         minlength=len(st.OUTCOMES)).round().astype(np.int64)
        for i, name in enumerate(st.OUTCOMES):
            lo, hi = st.wilson(oc[i], n)
            rows.append({"players": p, "kind": "outcome", "name": name, "count": int(oc[i]),
                         "share": oc[i] / n if n else np.nan, "ci_low": float(lo),
                         "ci_high": float(hi)})
        return rows

    def item_counts(self, by_strategy: bool) -> list[dict]:
        """``analysis.item_counts``' table of the run, as rows."""
        groups = [(name, [i]) for i, name in enumerate(self.names)] if by_strategy else \
            [("all", list(range(len(self.names))))]
        return [{"strategy": label, "item": name,
                 "seat_games": int(self.seat_games[gs].sum()),
                 "wins": int(self.seat_wins[gs].sum()),
                 "occurred": int(self.occurred[j, gs].sum()),
                 "occurred_wins": int(self.occurred_wins[j, gs].sum()),
                 "count_sum": int(self.count_sum[j, gs].sum())}
                for label, gs in groups for j, name in enumerate(self.item_columns)]

    def item_value(self, meta: dict) -> list[dict]:
        """``analysis.item_value``'s table, by strategy when the run has several."""
        several = len(set(meta.get("strategies") or [])) > 1
        out = []
        for c in self.item_counts(several):
            row = st._item_row(c["item"], c["seat_games"], c["wins"], c["occurred"],
                              c["occurred_wins"], c["count_sum"], st.MIN_OCCURRENCES)
            out.append({"strategy": c["strategy"], **row} if several else row)
        return out


def _grow_add(total: np.ndarray, more: np.ndarray) -> np.ndarray:
    if len(more) > len(total):
        total = np.concatenate([total, np.zeros(len(more) - len(total), dtype=total.dtype)])
    total[: len(more)] += more
    return total


def _hist_stats(hist: np.ndarray) -> dict:
    """mean, sd, min, max and ``analysis._QUANTILES`` of the values 0, 1, 2, ... counted by
    ``hist``, as ``game_length`` computes them on the values themselves (numpy's default
    linear quantiles)."""
    values = np.flatnonzero(hist)
    counts = hist[values]
    n = int(counts.sum())
    x = values.astype(float)
    mean = float((counts * x).sum() / n)
    sd = float(np.sqrt((counts * (x - mean) ** 2).sum() / (n - 1))) if n > 1 else np.nan
    ends = np.cumsum(counts)  # sorted position just past each value

    def at(i):
        return x[np.searchsorted(ends, i, side="right")]

    out = {"mean": mean, "sd": sd, "min": x[0], "max": x[-1]}
    for key, q in st._QUANTILES.items():
        virtual = (n - 1) * q
        below = np.floor(virtual)
        gamma = virtual - below
        a, b = at(int(below)), at(min(int(below) + 1, n - 1))
        diff = b - a
        out[key] = b - diff * (1 - gamma) if gamma >= 0.5 else a + diff * gamma
    return out
