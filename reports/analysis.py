"""Statistics on result tables: win rates, first-player advantage, endings, game length, item
value and what-if comparisons. Pure pandas/numpy; no plotting. The intervals and tests
themselves, which need no table, are in ``reports.stats`` (and imported here).

Every function takes the ``games`` table of a run (a row per game, see ``simkit.results``) and
the run's ``meta`` (run.json as a dict, or None). A seat *won* a game when its rank is 1, so
tied seats and the seats of a winning team all count as winners, and nobody won a game that
timed out (all ranks 0). A games table may hold several player counts (runs concatenated);
tables then have a row group per player count (the ``players`` column).

All intervals are 95%. Win rates use Wilson score intervals; means of per-game quantities
use a t interval on the per-game values (paired per-game differences for what-if runs).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from simkit.reports.stats import (  # noqa: F401 - analysis names them too
    _QUANTILES,
    _WILSON_Z,
    ALPHA,
    MIN_OCCURRENCES,
    OUTCOME_COLUMNS,
    OUTCOMES,
    Z95,
    _fpa_per_game,
    _item_row,
    _mean_ci_of,
    _newcomb,
    _normal_two_sided_p,
    _outcome_counts_row,
    _outcomes,
    _rate_cols,
    _t_quantile,
    _t_two_sided_p,
    _ttest_p,
    _two_proportion_p,
    _wilson,
    item_kind,
    item_name,
    mean_ci,
    mean_ci_counts,
    mean_ci_sums,
    results_of,
    seat_names,
    wilson,
)

from simkit.errors import SimkitError
from simkit.results import read_items_batches, seat_column

ITEM_BATCH_ROWS = 1 << 20  # rows of items.parquet held at once while streaming


# ---------------------------------------------------------------------------------------------
# small helpers


def _players_groups(games: pd.DataFrame) -> Iterator[tuple[int, pd.DataFrame]]:
    """(player count, its games) for each player count in ``games``, smallest first."""
    if "players" not in games.columns:
        yield _seat_count(games), games
        return
    counts = pd.unique(games["players"])
    if len(counts) == 1:
        yield int(counts[0]), games
        return
    for p in sorted(int(c) for c in counts):
        yield p, games[games["players"] == p]


def _seat_count(games: pd.DataFrame) -> int:
    n = 0
    while seat_column("rank", n + 1) in games.columns:
        n += 1
    if n == 0:
        raise SimkitError("the games table has no rank_s1 column; is it a simkit games table?")
    return n


def _first(games: pd.DataFrame, players: int) -> np.ndarray:
    """bool[G, P]: seat s has rank 1 in game g (tied seats and team mates share rank 1)."""
    return np.stack([games[seat_column("rank", s + 1)].to_numpy(dtype=np.int16) == 1
                     for s in range(players)], axis=1)


def _results(games: pd.DataFrame, players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(won, tied, share) of each seat in each game, each [G, P] (see ``results_of``)."""
    return results_of(_first(games, players), _teams(games, players))


def _won(games: pd.DataFrame, players: int) -> np.ndarray:
    """bool[G, P]: seat s won game g outright (see ``_results``)."""
    return _results(games, players)[0]


def _teams(games: pd.DataFrame, players: int) -> np.ndarray:
    """int[G, P]: the team of each seat (the seat itself when the game has no teams)."""
    cols = []
    for s in range(players):
        col = seat_column("team", s + 1)
        if col in games.columns:
            cols.append(games[col].to_numpy(dtype=np.int16))
        else:
            cols.append(np.full(len(games), s, dtype=np.int16))
    return np.stack(cols, axis=1)


def _strategy_codes(games: pd.DataFrame, players: int,
                    order: list[str] | None = None) -> tuple[list[str], np.ndarray]:
    """(names, int32[G, P] index into names, -1 where unknown) of the strategy in each seat.
    Names come in ``order`` first (the run's strategy list), then as found."""
    names: list[str] = []
    for n in order or ():
        if n not in names:
            names.append(str(n))
    codes = np.full((len(games), players), -1, dtype=np.int32)
    for s in range(players):
        col = seat_column("strategy", s + 1)
        if col not in games.columns:
            continue
        ser = games[col]
        if not isinstance(ser.dtype, pd.CategoricalDtype):
            ser = ser.astype("category")
        cats = [str(c) for c in ser.cat.categories]
        for c in cats:
            if c not in names:
                names.append(c)
        lookup = np.array([names.index(c) for c in cats] + [-1], dtype=np.int32)
        raw = ser.cat.codes.to_numpy()
        codes[:, s] = lookup[np.where(raw < 0, len(cats), raw)]
    used = np.bincount(codes[codes >= 0], minlength=len(names)) > 0
    keep = [i for i in range(len(names)) if used[i]]
    remap = np.full(len(names) + 1, -1, dtype=np.int32)
    remap[keep] = np.arange(len(keep), dtype=np.int32)
    return [names[i] for i in keep], remap[np.where(codes < 0, len(names), codes)]


def _meta_strategies(meta: dict | None) -> list[str]:
    return [str(s) for s in (meta or {}).get("strategies", [])]


# ---------------------------------------------------------------------------------------------
# outcomes: wins, ties, losses and score share


def _outcome_row(n: int, won: np.ndarray, tied: np.ndarray, share: np.ndarray) -> dict:
    """Counts, rates with 95% Wilson intervals and the mean score share with its t
    interval, over ``n`` seat-games given as flat arrays."""
    return _outcome_counts_row(n, int(won.sum()), int(tied.sum()), mean_ci(share))


def seat_outcomes(games: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """Wins, ties and losses of each seat, with the score share and the seat's advantage.

    A seat *wins* a game outright when it has rank 1 and no seat of another team does (the
    seats of a winning team all win); it *ties* when it shares rank 1 with another team; it
    *loses* otherwise, including games nobody won (a timeout). Its *score share* counts a
    win as 1 and a tie among k teams as 1/k. Its *advantage* is its score share minus the
    mean score share of all seats in the same games (so games nobody wins leave it
    unchanged), as a mean of per-game differences with a t interval and p-value.

    Columns: players, seat (1..P), name, games, wins, ties, losses, win_rate, win_low,
    win_high, tie_rate, tie_low, tie_high, loss_rate, loss_low, loss_high (95% Wilson),
    score_share, share_low, share_high, advantage, adv_low, adv_high, adv_p."""
    rows = []
    for p, g in _players_groups(games):
        won, tied, share = _results(g, p)
        names = seat_names(meta, p)
        fair = share.mean(axis=1)
        for s in range(p):
            adv = mean_ci(share[:, s] - fair)
            rows.append({"players": p, "seat": s + 1, "name": names[s], "games": len(g),
                         **_outcome_row(len(g), won[:, s], tied[:, s], share[:, s]),
                         "advantage": adv["mean"], "adv_low": adv["ci_low"],
                         "adv_high": adv["ci_high"], "adv_p": adv["p_value"]})
    return pd.DataFrame(rows, columns=["players", "seat", "name", "games", *OUTCOME_COLUMNS,
                                       "advantage", "adv_low", "adv_high", "adv_p"])


def team_outcomes(games: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """Wins, ties and losses of each team, for games whose teams have several seats (empty
    otherwise). A team wins when its seats alone hold rank 1.

    Columns: players, team, seats ("1+3"), games, then as ``seat_outcomes`` (the score
    share is the team's: 1 for a win, 1/k for a tie among k teams)."""
    rows = []
    for p, g in _players_groups(games):
        teams = _teams(g, p)
        ids = sorted({int(x) for x in np.unique(teams)})
        if len(ids) == p:
            continue
        won, tied, share = _results(g, p)
        for t in ids:
            seats = [s for s in range(p) if (teams[:, s] == t).all()]
            if not seats:
                continue
            s0 = seats[0]
            rows.append({"players": p, "team": t, "seats": "+".join(str(s + 1) for s in seats),
                         "games": len(g),
                         **_outcome_row(len(g), won[:, s0], tied[:, s0], share[:, s0])})
    return pd.DataFrame(rows, columns=["players", "team", "seats", "games", *OUTCOME_COLUMNS])


def strategy_outcomes(games: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """Wins, ties, losses and score share of each strategy over every seat it sat in, then
    per strategy and seat. A strategy in two seats of a game counts twice (seat-games).

    Columns: players, strategy, seat ("all", or the seat 1..P), seat_games, then as
    ``seat_outcomes`` without the advantage; fair_share (the mean score share of all seats:
    1/P without teams, 1/2 in two-team games, less when games end without a winner)."""
    rows = []
    for p, g in _players_groups(games):
        won, tied, share = _results(g, p)
        names, codes = _strategy_codes(g, p, _meta_strategies(meta))
        fair = float(share.mean()) if len(g) else np.nan
        for i, name in enumerate(names):
            mine = codes == i
            entries = [("all", mine)]
            entries += [(s + 1, mine & (np.arange(p) == s)[None, :]) for s in range(p)
                        if mine[:, s].any()]
            for seat, mask in entries:
                rows.append({"players": p, "strategy": name, "seat": seat,
                             "seat_games": int(mask.sum()),
                             **_outcome_row(int(mask.sum()), won[mask], tied[mask],
                                            share[mask]),
                             "fair_share": fair})
    df = pd.DataFrame(rows, columns=["players", "strategy", "seat", "seat_games",
                                     *OUTCOME_COLUMNS, "fair_share"])
    df["seat"] = df["seat"].astype(object)
    return df


def first_player_advantage(games: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """First-player advantage per player count: seat 1's score share minus the mean score
    share of all seats in the same games.

    Columns: players, games, seat1_win_rate (outright), seat1_score_share, fair_share (the
    mean score share of all seats), advantage, se, ci_low, ci_high, p_value; and, at 2
    players (NaN otherwise), first_minus_second (seat 1's outright win rate minus seat 2's),
    fms_low, fms_high, fms_p.

    Why this way: for each game d_i = share_seat1 - mean_s share_s, which is 0 in
    expectation when seats are equal, whatever the game's ties, teams (a team win gives
    every seat of the team a share of 1) and games nobody wins (every share 0, so d_i = 0:
    such games do not bias it). The advantage is the mean of d_i, with the t interval and
    ``scipy.stats.ttest_1samp(d, 0)``; because d_i is one number per game the seats'
    within-game dependence is built into its standard error. At 2 players d_i is half of
    (share_1 - share_2), so the advantage is half of "first wins minus second wins" when
    there are no ties; both are given. With seats rotating strategies (the default) every
    strategy sits in seat 1 equally often, so the advantage is the seat's, not a
    strategy's."""
    rows = []
    for p, g in _players_groups(games):
        won, _, share = _results(g, p)
        r = mean_ci(_fpa_per_game(share))
        row = {"players": p, "games": len(g),
               "seat1_win_rate": float(won[:, 0].mean()) if len(g) else np.nan,
               "seat1_score_share": float(share[:, 0].mean()) if len(g) else np.nan,
               "fair_share": float(share.mean()) if len(g) else np.nan,
               "advantage": r["mean"], "se": r["se"], "ci_low": r["ci_low"],
               "ci_high": r["ci_high"], "p_value": r["p_value"],
               "first_minus_second": np.nan, "fms_low": np.nan, "fms_high": np.nan,
               "fms_p": np.nan}
        if p == 2:
            f = mean_ci(won[:, 0].astype(float) - won[:, 1])
            row.update(first_minus_second=f["mean"], fms_low=f["ci_low"],
                       fms_high=f["ci_high"], fms_p=f["p_value"])
        rows.append(row)
    return pd.DataFrame(rows, columns=["players", "games", "seat1_win_rate",
                                       "seat1_score_share", "fair_share", "advantage", "se",
                                       "ci_low", "ci_high", "p_value", "first_minus_second",
                                       "fms_low", "fms_high", "fms_p"])


def scores(games: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """Each seat's mean score (the game's own points, crowns, acorns...) and its winning
    margin: over the games it won outright, its score minus the best score of a seat of
    another team. Empty when the table has no score columns.

    Columns: players, seat, name, games, mean_score, score_low, score_high (t interval),
    wins, mean_margin, margin_low, margin_high."""
    rows = []
    for p, g in _players_groups(games):
        cols = [seat_column("score", s + 1) for s in range(p)]
        if not all(c in g.columns for c in cols):
            continue
        sc = g[cols].to_numpy(dtype=float)
        won, _, _ = _results(g, p)
        teams = _teams(g, p)
        names = seat_names(meta, p)
        for s in range(p):
            m = mean_ci(sc[:, s])
            others = np.where(teams != teams[:, [s]], sc, -np.inf).max(axis=1)
            mine = won[:, s] & np.isfinite(others)
            mg = mean_ci((sc[:, s] - others)[mine])
            rows.append({"players": p, "seat": s + 1, "name": names[s], "games": len(g),
                         "mean_score": m["mean"], "score_low": m["ci_low"],
                         "score_high": m["ci_high"], "wins": int(mine.sum()),
                         "mean_margin": mg["mean"], "margin_low": mg["ci_low"],
                         "margin_high": mg["ci_high"]})
    return pd.DataFrame(rows, columns=["players", "seat", "name", "games", "mean_score",
                                       "score_low", "score_high", "wins", "mean_margin",
                                       "margin_low", "margin_high"])


# ---------------------------------------------------------------------------------------------
# how games end and how long they last


def endings(games: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """How games ended: each end reason, then each outcome.

    Columns: players, kind ("end reason" or "outcome"), name, count, share, ci_low, ci_high
    (95% Wilson on the share). End reasons are the game's declared ones (the category's
    values and run.json's ``end_reasons``), shown even when they never happened, so a run
    without timeouts says "timeout 0". Outcomes partition the games by their rank-1 seats:
    "one winner", "team win" (several rank-1 seats, all on one team), "tie" (rank-1 seats on
    more than one team) and "no winner" (no seat has rank 1: a timeout, or a game whose
    rules let everybody lose)."""
    declared = [str(r) for r in (meta or {}).get("end_reasons", [])]
    rows = []
    for p, g in _players_groups(games):
        n = len(g)
        reasons = list(declared)
        if "end_reason" in g.columns:
            ser = g["end_reason"]
            if isinstance(ser.dtype, pd.CategoricalDtype):
                reasons += [str(c) for c in ser.cat.categories if str(c) not in reasons]
            counts = ser.astype(str).value_counts() if not isinstance(
                ser.dtype, pd.CategoricalDtype) else ser.value_counts()
            counts = {str(k): int(v) for k, v in counts.items()}
            reasons += [r for r in counts if r not in reasons]
        else:
            counts = {}
        for r in reasons:
            c = counts.get(r, 0)
            lo, hi = wilson(c, n)
            rows.append({"players": p, "kind": "end reason", "name": r, "count": c,
                         "share": c / n if n else np.nan, "ci_low": float(lo),
                         "ci_high": float(hi)})
        oc = np.bincount(_outcomes(_first(g, p), _teams(g, p)), minlength=len(OUTCOMES))
        for i, name in enumerate(OUTCOMES):
            lo, hi = wilson(oc[i], n)
            rows.append({"players": p, "kind": "outcome", "name": name, "count": int(oc[i]),
                         "share": oc[i] / n if n else np.nan, "ci_low": float(lo),
                         "ci_high": float(hi)})
    return pd.DataFrame(rows, columns=["players", "kind", "name", "count", "share", "ci_low",
                                       "ci_high"])


def game_length(games: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """Turns and decisions per game.

    Columns: players, measure ("turns" or "decisions"), games, mean, sd, min, p05, p25,
    median, p75, p95, max (quantiles by numpy's default linear interpolation)."""
    rows = []
    for p, g in _players_groups(games):
        for measure in ("turns", "decisions"):
            if measure not in g.columns:
                continue
            x = g[measure].to_numpy(dtype=float)
            row = {"players": p, "measure": measure, "games": len(x)}
            if len(x):
                q = np.quantile(x, list(_QUANTILES.values()))
                row.update(mean=x.mean(), sd=x.std(ddof=1) if len(x) > 1 else np.nan,
                           min=x.min(), max=x.max(), **dict(zip(_QUANTILES, q, strict=True)))
            rows.append(row)
    cols = ["players", "measure", "games", "mean", "sd", "min", *_QUANTILES, "max"]
    return pd.DataFrame(rows, columns=cols)


# ---------------------------------------------------------------------------------------------
# item value (17lands-style)


class _SeatLookup:
    """For (game, seat) pairs: did the seat win, and (optionally) which strategy sat there;
    joins items rows to the games table without a pandas merge. A dense table indexed by game
    number when the numbers are compact (the usual 0..N-1), else a sorted search.

    Values are int16: -1 for no such game or seat, else ``won + 2 * group`` where group is
    the strategy's index in ``names`` (0 for every seat when not by strategy)."""

    def __init__(self, games: pd.DataFrame, by_strategy: bool = False,
                 order: list[str] | None = None):
        ids = games["game"].to_numpy(dtype=np.int64)
        p = _seat_count(games)
        won = np.full((len(games), p), -1, dtype=np.int16)
        if "players" in games.columns:
            counts = games["players"].to_numpy()
            for players in np.unique(counts):
                mask = counts == players
                rows = games if mask.all() else games[mask]
                won[np.flatnonzero(mask), :players] = _won(rows, int(players))
        else:
            won[:] = _won(games, p)
        self.names = ["all"]
        if by_strategy:
            self.names, codes = _strategy_codes(games, p, order)
            won = np.where((won >= 0) & (codes >= 0), won + 2 * codes, -1).astype(np.int16)
        self.players = p
        self.dense = None
        if len(ids) and ids.min() >= 0 and ids.max() < 2 * len(ids) + 1_000_000:
            self.dense = np.full((int(ids.max()) + 1, p), -1, dtype=np.int16)
            self.dense[ids] = won
        else:
            order_ = np.argsort(ids, kind="stable")
            self.sorted_ids = ids[order_]
            self.values = won[order_]

    def __call__(self, game: np.ndarray, seat: np.ndarray) -> np.ndarray:
        """int16[n]: -1 unknown, else won + 2 * group; ``seat`` counts from 1."""
        game = game.astype(np.int64, copy=False)
        seat = seat.astype(np.int64) - 1
        bad = (seat < 0) | (seat >= self.players) | (game < 0)
        seat = np.where(bad, 0, seat)
        out = np.full(len(game), -1, dtype=np.int16)
        if self.dense is not None:
            inside = ~bad & (game < len(self.dense))
            out[inside] = self.dense[game[inside], seat[inside]]
            return out
        if len(self.sorted_ids) == 0:
            return out
        pos = np.minimum(np.searchsorted(self.sorted_ids, game), len(self.sorted_ids) - 1)
        found = ~bad & (self.sorted_ids[pos] == game)
        out[found] = self.values[pos[found], seat[found]]
        return out


def _item_columns(items, meta: dict | None) -> list[str]:
    if isinstance(items, pd.DataFrame):
        present = [str(c) for c in items.columns]
    else:
        path = Path(items)
        if not path.is_file():
            raise SimkitError(f"{path} is missing")
        present = list(pq.ParquetFile(path).schema_arrow.names)
    for need in ("game", "seat"):
        if need not in present:
            raise SimkitError(f"the items table has no {need!r} column")
    declared = [str(c) for c in (meta or {}).get("item_columns", [])]
    cols = [c for c in declared if c in present]
    cols += [c for c in present if c not in ("game", "seat") and c not in cols]
    return cols


def _count_by(mask: np.ndarray, group: np.ndarray, n_groups: int,
              weights: np.ndarray | None = None) -> np.ndarray:
    if n_groups == 1:
        if weights is None:
            return np.array([np.count_nonzero(mask)], dtype=np.int64)
        return np.array([weights[mask].sum(dtype=np.int64)], dtype=np.int64)
    w = None if weights is None else weights[mask].astype(np.float64)
    return np.round(np.bincount(group[mask], weights=w, minlength=n_groups)).astype(np.int64)


def item_counts(items, games: pd.DataFrame, meta: dict | None = None,
                by_strategy: bool = False, batch_rows: int = ITEM_BATCH_ROWS) -> pd.DataFrame:
    """The raw counts behind ``item_value``, in one streamed pass over ``items`` (a path of an
    items.parquet, read in record batches of ``batch_rows`` rows, or a DataFrame).

    Columns, a row per item column (per strategy and item column with ``by_strategy``):
    strategy ("all" unless by strategy), item, seat_games, wins, occurred (seat-games with
    count > 0), occurred_wins, count_sum."""
    cols = _item_columns(items, meta)
    lookup = _SeatLookup(games, by_strategy, _meta_strategies(meta))
    k, g = len(cols), len(lookup.names)
    n_total = np.zeros(g, dtype=np.int64)
    wins_total = np.zeros(g, dtype=np.int64)
    occ_n = np.zeros((k, g), dtype=np.int64)
    occ_w = np.zeros((k, g), dtype=np.int64)
    count_sum = np.zeros((k, g), dtype=np.int64)
    for batch in read_items_batches(items, cols, batch_rows):
        value = lookup(batch.column(0).to_numpy(zero_copy_only=False),
                       batch.column(1).to_numpy(zero_copy_only=False))
        keep = value >= 0
        all_kept = bool(keep.all())
        if not all_kept:
            value = value[keep]
        w = (value & 1).astype(bool)
        group = (value >> 1).astype(np.intp)
        everything = np.ones(len(value), dtype=bool)
        n_total += _count_by(everything, group, g)
        wins_total += _count_by(w, group, g)
        for j in range(k):
            c = batch.column(2 + j).to_numpy(zero_copy_only=False)
            if not all_kept:
                c = c[keep]
            occ = c > 0
            occ_n[j] += _count_by(occ, group, g)
            occ_w[j] += _count_by(occ & w, group, g)
            count_sum[j] += _count_by(everything, group, g, c)
    rows = [{"strategy": strategy, "item": name, "seat_games": int(n_total[gi]),
             "wins": int(wins_total[gi]), "occurred": int(occ_n[j, gi]),
             "occurred_wins": int(occ_w[j, gi]), "count_sum": int(count_sum[j, gi])}
            for gi, strategy in enumerate(lookup.names) for j, name in enumerate(cols)]
    return pd.DataFrame(rows, columns=["strategy", "item", "seat_games", "wins", "occurred",
                                       "occurred_wins", "count_sum"])


def item_value_from_counts(counts: pd.DataFrame, by_strategy: bool = False,
                           min_occurrences: int = MIN_OCCURRENCES) -> pd.DataFrame:
    """``item_value``'s table from ``item_counts``; pooled over strategies unless
    ``by_strategy`` (so one streamed pass by strategy gives both tables)."""
    if not by_strategy:
        items = pd.unique(counts["item"])
        counts = counts.groupby("item", sort=False).sum(numeric_only=True).reindex(items)
        counts = counts.reset_index().assign(strategy="all")
    rows = []
    for r in counts.itertuples(index=False):
        row = _item_row(str(r.item), int(r.seat_games), int(r.wins), int(r.occurred),
                        int(r.occurred_wins), int(r.count_sum), min_occurrences)
        rows.append({"strategy": r.strategy, **row} if by_strategy else row)
    columns = ["item", "seat_games", "occurred", "occurred_share", "win_rate_occurred",
               "win_rate_not", "difference", "ci_low", "ci_high", "p_value", "mean_count",
               "mean_count_occurred", "enough"]
    return pd.DataFrame(rows, columns=["strategy", *columns] if by_strategy else columns)


def item_value(games: pd.DataFrame, meta: dict | None = None, items=None,
               min_occurrences: int = MIN_OCCURRENCES, by_strategy: bool = False,
               batch_rows: int = ITEM_BATCH_ROWS) -> pd.DataFrame:
    """The value of each item event, in the style of 17lands' card metrics.

    Arguments in the order of the other tables (``games, meta``, then ``items``). The old
    order ``item_value(items, games, meta)`` is still read, with a DeprecationWarning, until
    the next release: it is told apart by its second argument, a games table where ``meta``
    belongs.

    ``items`` is the path of an items.parquet (read in record batches of ``batch_rows`` rows,
    aggregating as it goes, so a 40-million-row file never sits in memory) or an items
    DataFrame. Each (game, seat) row is joined to whether that seat won the game.

    Columns, one row per item column (per strategy and item column, with a leading
    ``strategy`` column, when ``by_strategy``: the seat-games of each strategy apart, as
    17lands splits card metrics by deck colours):
      item, seat_games (seat-games in both tables), occurred (seat-games with count > 0),
      occurred_share, win_rate_occurred, win_rate_not (the seat's win rate when the event
      occurred at least once / never), difference (occurred - not), ci_low, ci_high (95%
      Newcomb interval for a difference of two independent proportions, statsmodels'
      ``confint_proportions_2indep``), p_value (two-proportion z test), mean_count (over
      all seat-games), mean_count_occurred, enough (at least ``min_occurrences`` seat-games
      both with and without the event; fewer and the difference is not worth reading).

    Like 17lands' "games in hand" win rates this is an association, not a causal effect:
    a seat that is winning may trigger some items more (and a seat that plays longer meets
    more of everything)."""
    if isinstance(meta, pd.DataFrame):  # the old order: (items, games, meta)
        warnings.warn("item_value(items, games, meta) is deprecated: write item_value(games, "
                      "meta, items), the order of seat_outcomes and the others",
                      DeprecationWarning, stacklevel=2)
        items, games, meta = games, meta, items
    if items is None:
        raise TypeError("item_value needs the items table: item_value(games, meta, items)")
    counts = item_counts(items, games, meta, by_strategy, batch_rows)
    return item_value_from_counts(counts, by_strategy, min_occurrences)


# ---------------------------------------------------------------------------------------------
# what-if comparison


def _pair(base: pd.DataFrame, changed: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The games both runs played, in the same order, matched by game index."""
    b_ids = base["game"].to_numpy(dtype=np.int64)
    c_ids = changed["game"].to_numpy(dtype=np.int64)
    if np.array_equal(b_ids, c_ids):  # the usual case: no copies of big tables
        b, c = base, changed
    else:
        common, bi, ci = np.intersect1d(b_ids, c_ids, assume_unique=False,
                                        return_indices=True)
        if len(common) == 0:
            raise SimkitError("the two runs have no game index in common, so they cannot be "
                              "paired")
        b = base.iloc[bi].reset_index(drop=True)
        c = changed.iloc[ci].reset_index(drop=True)
    if "seed" in b.columns and "seed" in c.columns:
        same = b["seed"].to_numpy() == c["seed"].to_numpy()
        if not same.all():
            warnings.warn(f"{int((~same).sum())} of {len(same)} paired games have different "
                          "seeds (different master seeds?); the pairing then gains nothing, "
                          "though the paired interval stays valid", stacklevel=3)
    return b, c


def _ratio_influence(wins: np.ndarray, seats: np.ndarray) -> tuple[float, np.ndarray]:
    """A ratio of sums R = sum(wins) / sum(seats) and its per-game linearisation
    (wins_i - R seats_i) / mean(seats), whose mean is 0 and whose sd gives R's standard
    error (the delta method). When every game has the same number of seats this is just
    wins_i / seats_i - R."""
    total = seats.sum()
    if total == 0:
        return np.nan, np.zeros(len(wins))
    r = wins.sum() / total
    return float(r), (wins - r * seats) / seats.mean()


def _paired_row(measure: str, group: str, base: float, changed: float,
                per_game_diff: np.ndarray, method: str) -> dict:
    r = mean_ci(per_game_diff)
    return {"measure": measure, "group": group, "base": base, "changed": changed,
            "difference": changed - base, "ci_low": r["ci_low"], "ci_high": r["ci_high"],
            "p_value": r["p_value"], "n": r["n"], "method": method}


def compare_runs(base_games: pd.DataFrame, changed_games: pd.DataFrame,
                 base_meta: dict | None = None, changed_meta: dict | None = None,
                 base_items=None, changed_items=None, base_trace=None,
                 changed_trace=None) -> pd.DataFrame:
    """The what-if table: what changed between a base run and a changed run that played the
    same seeds (the same game indices with the same master seed).

    Columns: measure, group, base, changed, difference (changed - base), ci_low, ci_high
    (95%), p_value, n (games, or seat-games for items), method.

    Rows: win rate per seat, win rate per strategy, first-player advantage, mean turns, mean
    decisions, share of games with no winner and with a tie and, when both items tables
    (paths or DataFrames) are given, each item's value (win rate when it occurred minus
    when not) and each item's occurrence (share of seat-games in which it occurred).

    Per-game measures are *paired*: games are matched by ``game`` and the interval and
    p-value come from the per-game differences (a t interval and ``ttest_1samp``), which
    removes the variance the two runs share through their common seeds; identical runs give
    a difference of 0 with a zero-width interval. A strategy's win rate is a ratio
    (wins / seats it sat in); it is paired through its per-game delta-method
    linearisation, which is the plain per-game difference when each game seats the strategy
    equally often.

    Item value is not a per-game quantity: the seat-games in which an item occurs differ
    between the runs, so there is nothing to pair. Its difference is treated as one of two
    independent estimates, se = sqrt(se_base^2 + se_changed^2) with each se the unpooled
    normal standard error of a difference of two proportions, a normal interval and a z test.
    The shared seeds make the runs positively correlated, so this interval is, if anything,
    too wide (conservative). Item occurrence, on the other hand, is per game and is paired:
    the two items tables are streamed side by side (both list games in order, a row per
    seat) and each game contributes the change in the share of its seats with the event.

    How the game feels (``reports.feel.compare_rows``): branching and forced moves (paired
    ratios), timeouts, and with both traces (DataFrames or trace.parquet paths) every curve
    metric of the traced games both runs share."""
    bm, cm = base_meta or {}, changed_meta or {}
    if bm.get("game") and cm.get("game") and bm["game"] != cm["game"]:
        raise SimkitError(f"cannot compare runs of different games: {bm['game']!r} and "
                          f"{cm['game']!r}")
    if len(base_games) == 0 or len(changed_games) == 0:
        raise SimkitError("a what-if needs games in both runs; one of them has none")
    pb = sorted({int(x) for x in pd.unique(base_games["players"])}) \
        if "players" in base_games.columns else [_seat_count(base_games)]
    pc = sorted({int(x) for x in pd.unique(changed_games["players"])}) \
        if "players" in changed_games.columns else [_seat_count(changed_games)]
    if pb != pc or len(pb) != 1:
        raise SimkitError(f"a what-if compares runs with one and the same player count; got "
                          f"{pb} and {pc} players")
    p = pb[0]
    b, c = _pair(base_games, changed_games)
    n = len(b)
    (wb, _, sb), (wc, _, sc) = _results(b, p), _results(c, p)
    paired = "paired by game"
    rows = []
    for s in range(p):
        rows.append(_paired_row("win rate", f"seat {s + 1}", float(wb[:, s].mean()),
                                float(wc[:, s].mean()),
                                wc[:, s].astype(float) - wb[:, s], paired))
    order = _meta_strategies(bm) + _meta_strategies(cm)
    names_b, codes_b = _strategy_codes(b, p, order)
    names_c, codes_c = _strategy_codes(c, p, order)
    for name in [*names_b, *(x for x in names_c if x not in names_b)]:
        parts = []
        for names, codes, won in ((names_b, codes_b, wb), (names_c, codes_c, wc)):
            if name in names:
                mine = codes == names.index(name)
                parts.append(_ratio_influence((mine & won).sum(axis=1).astype(float),
                                              mine.sum(axis=1).astype(float)))
            else:
                parts.append((np.nan, np.zeros(n)))
        (rb, zb), (rc, zc) = parts
        diff = (rc - rb) + (zc - zb)
        row = _paired_row("win rate", f"strategy {name}", rb, rc, diff, paired)
        if math.isnan(rb) or math.isnan(rc):
            row.update(ci_low=np.nan, ci_high=np.nan, p_value=np.nan)
        rows.append(row)
    fb, fc = _fpa_per_game(sb), _fpa_per_game(sc)
    rows.append(_paired_row("first-player advantage", "seat 1 share - mean share",
                            float(fb.mean()), float(fc.mean()), fc - fb, paired))
    for measure in ("turns", "decisions"):
        if measure in b.columns and measure in c.columns:
            xb = b[measure].to_numpy(dtype=float)
            xc = c[measure].to_numpy(dtype=float)
            rows.append(_paired_row(f"mean {measure}", "per game", float(xb.mean()),
                                    float(xc.mean()), xc - xb, paired))
    fb, fc = _first(b, p), _first(c, p)
    nb = (~fb.any(axis=1)).astype(float)
    nc = (~fc.any(axis=1)).astype(float)
    rows.append(_paired_row("share of games", "no winner", float(nb.mean()),
                            float(nc.mean()), nc - nb, paired))
    ob = _outcomes(fb, _teams(b, p)) == 2
    oc = _outcomes(fc, _teams(c, p)) == 2
    rows.append(_paired_row("share of games", "tie", float(ob.mean()), float(oc.mean()),
                            oc.astype(float) - ob, paired))
    if base_items is not None and changed_items is not None:
        vb, vc = item_value(b, bm, base_items), item_value(c, cm, changed_items)
        rows += _item_rows(vb, vc)
        shared = [i for i in vb["item"] if i in set(vc["item"])]
        subset = np.sort(b["game"].to_numpy(dtype=np.int64)) \
            if n < max(len(base_games), len(changed_games)) else None
        rows += _item_occurrence_rows(base_items, changed_items, shared, p, subset)
    from simkit.reports.feel import compare_rows

    rows += compare_rows(b, c, bm, cm, base_trace, changed_trace)
    return pd.DataFrame(rows, columns=["measure", "group", "base", "changed", "difference",
                                       "ci_low", "ci_high", "p_value", "n", "method"])


def _aligned_windows(base_items, changed_items, columns: list[str], players: int,
                     batch_rows: int = ITEM_BATCH_ROWS
                     ) -> Iterator[tuple[pa.Table, pa.Table]]:
    """Equal-length windows of whole games from two items tables read side by side (both
    are written in game order, a row per seat), without holding either in memory."""
    its = [iter(read_items_batches(x, columns, batch_rows)) for x in (base_items, changed_items)]
    bufs: list[pa.Table | None] = [None, None]
    done = [False, False]
    step = max(players, batch_rows // players * players)
    while True:
        for k in (0, 1):
            while not done[k] and (bufs[k] is None or bufs[k].num_rows < step):
                try:
                    nxt = pa.Table.from_batches([next(its[k])])
                except StopIteration:
                    done[k] = True
                    break
                bufs[k] = nxt if bufs[k] is None else pa.concat_tables([bufs[k], nxt])
        have = min(0 if b is None else b.num_rows for b in bufs)
        n = min(have, step) // players * players
        if n == 0:
            return
        yield bufs[0].slice(0, n), bufs[1].slice(0, n)
        bufs = [b.slice(n) for b in bufs]


def _item_occurrence_rows(base_items, changed_items, items: list[str], players: int,
                          games: np.ndarray | None) -> list[dict]:
    """Paired per-game change in how often each item event occurs: for game i,
    d_i = (seats where it occurred in the changed run - in the base run) / P, so its mean is
    the change in the share of seat-games with the event. Sums of d and d^2 are kept while
    both items tables stream side by side; rows must line up (same game and seat), else the
    rows are left out with a warning."""
    if not items:
        return []
    k = len(items)
    s_b = np.zeros(k)
    s_c = np.zeros(k)
    s_d = np.zeros(k)
    s_dd = np.zeros(k)
    n = 0
    for wb, wc in _aligned_windows(base_items, changed_items, items, players):
        gb = wb.column(0).to_numpy(zero_copy_only=False)
        if not (np.array_equal(gb, wc.column(0).to_numpy(zero_copy_only=False)) and
                np.array_equal(wb.column(1).to_numpy(zero_copy_only=False),
                               wc.column(1).to_numpy(zero_copy_only=False))):
            warnings.warn("the two items tables do not list the same games in the same "
                          "order; item occurrence is not compared", stacklevel=3)
            return []
        keep = None
        if games is not None:
            first = gb[::players].astype(np.int64)
            pos = np.minimum(np.searchsorted(games, first), len(games) - 1)
            keep = games[pos] == first
        for j in range(k):
            ob = (wb.column(2 + j).to_numpy(zero_copy_only=False) > 0).reshape(-1, players)
            oc = (wc.column(2 + j).to_numpy(zero_copy_only=False) > 0).reshape(-1, players)
            xb = ob.mean(axis=1)
            xc = oc.mean(axis=1)
            if keep is not None:
                xb, xc = xb[keep], xc[keep]
            d = xc - xb
            s_b[j] += xb.sum()
            s_c[j] += xc.sum()
            s_d[j] += d.sum()
            s_dd[j] += (d * d).sum()
        n += int(len(gb) // players if keep is None else keep.sum())
    rows = []
    for j, item in enumerate(items):
        mean = s_d[j] / n if n else np.nan
        lo = hi = p = np.nan
        if n > 1:
            var = max(0.0, (s_dd[j] - n * mean * mean) / (n - 1))
            se = math.sqrt(var / n)
            if se <= 1e-12 * max(1.0, abs(mean)):
                lo = hi = mean
                p = 1.0 if mean == 0 else 0.0
            else:
                half = _t_quantile(n - 1) * se
                lo, hi = mean - half, mean + half
                p = _t_two_sided_p(mean / se, n - 1)
        rows.append({"measure": "item occurrence", "group": item,
                     "base": s_b[j] / n if n else np.nan, "changed": s_c[j] / n if n else np.nan,
                     "difference": mean, "ci_low": lo, "ci_high": hi, "p_value": p, "n": n,
                     "method": "paired by game"})
    return rows


def _item_se(v: pd.Series) -> float:
    n1, n0 = v["occurred"], v["seat_games"] - v["occurred"]
    if not n1 or not n0:
        return np.nan
    p1, p0 = v["win_rate_occurred"], v["win_rate_not"]
    return math.sqrt(p1 * (1 - p1) / n1 + p0 * (1 - p0) / n0)


def _item_rows(vb: pd.DataFrame, vc: pd.DataFrame) -> list[dict]:
    rows = []
    cb = vb.set_index("item")
    cc = vc.set_index("item")
    for item in [*cb.index, *(i for i in cc.index if i not in cb.index)]:
        xb = cb.loc[item] if item in cb.index else None
        xc = cc.loc[item] if item in cc.index else None
        base = float(xb["difference"]) if xb is not None else np.nan
        changed = float(xc["difference"]) if xc is not None else np.nan
        diff = changed - base
        se = math.hypot(_item_se(xb), _item_se(xc)) if xb is not None and xc is not None \
            else np.nan
        lo = hi = p = np.nan
        if not math.isnan(se) and not math.isnan(diff):
            if se > 0:
                lo, hi = diff - Z95 * se, diff + Z95 * se
                p = _normal_two_sided_p(diff / se)
            else:
                lo = hi = diff
                p = 1.0 if diff == 0 else 0.0
        n = min(int(xb["seat_games"]) if xb is not None else 0,
                int(xc["seat_games"]) if xc is not None else 0)
        rows.append({"measure": "item value", "group": item, "base": base, "changed": changed,
                     "difference": diff, "ci_low": lo, "ci_high": hi, "p_value": p, "n": n,
                     "method": "independent (not paired)"})
    return rows
