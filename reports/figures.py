"""Figures of the analysis tables. Each function returns a matplotlib ``Figure`` drawn on the
Agg canvas (no pyplot, no global state, safe off the main thread); save it with
``fig.savefig(path)``. All share one style: light grid, 95% intervals as error bars, rates in
percent, titles that say what is shown and how many games it rests on.
"""

from __future__ import annotations

import textwrap
from contextlib import contextmanager

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator, PercentFormatter
from simkit.reports import figdata as FD

ACCENT = "#2b6cb0"  # estimates
SECOND = "#dd6b20"  # the second series (per-seat points, changed run)
MUTED = "#a0aec0"  # too little data to read
FAIR = "#4a5568"  # reference lines
GOOD = "#2f855a"
BAD = "#c53030"

STYLE = {
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.titleweight": "bold",
    "axes.labelsize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#e2e8f0",
    "grid.linewidth": 0.8,
    "axes.axisbelow": True,
    "legend.frameon": False,
    "legend.fontsize": 9,
    "figure.dpi": 100,
    "savefig.dpi": 110,
    "savefig.bbox": "tight",
    # titles and labels carry card, strategy and seat names: a "$" in one is a character,
    # never the start of a formula matplotlib would fail to parse
    "text.parse_math": False,
}


@contextmanager
def _style():
    with matplotlib.rc_context(STYLE):
        yield


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _err(est, lo, hi) -> np.ndarray:
    """Asymmetric error bar lengths from an interval, 0 where unknown."""
    est, lo, hi = (np.asarray(x, dtype=float) for x in (est, lo, hi))
    return np.nan_to_num(np.vstack([est - lo, hi - est]), nan=0.0).clip(min=0)


def _note(fig: Figure, text: str) -> None:
    """A small footnote under the figure (kept inside by the constrained layout)."""
    fig.supxlabel(textwrap.fill(text, 115), x=0.01, ha="left", fontsize=8, color=FAIR)


def save(fig: Figure, target, dpi: int = 110) -> None:
    """Write ``fig`` as PNG to a path or binary file object, trimmed to its contents."""
    fig.savefig(target, format="png", dpi=dpi, bbox_inches="tight", facecolor="white")


def _empty(title: str, why: str = "no games to show") -> Figure:
    """A small figure that says there is nothing to draw, rather than failing."""
    with _style():
        fig = _figure(5, 1.6)
        ax = fig.subplots()
        ax.set_axis_off()
        ax.text(0.5, 0.5, why, ha="center", va="center", color=FAIR, transform=ax.transAxes)
        ax.set_title(title)
    return fig


def _absmax(*columns, default: float = 0.0) -> float:
    """The largest finite absolute value in ``columns``, or ``default`` when there is none."""
    values = np.abs(np.concatenate([np.asarray(c, dtype=float).ravel() for c in columns]))
    values = values[np.isfinite(values)]
    return float(values.max()) if len(values) else default


def _games_label(n: int) -> str:
    return f"{int(n):,} games"


def _points(values) -> np.ndarray:
    """Shares or differences of shares (0.04) as points (4.0): every advantage is drawn in
    the unit the verdicts and tables give it."""
    return 100 * np.array([_nan(v) for v in values], dtype=float)


POINTS_AXIS = FuncFormatter(lambda v, _: f"{v:+.4g}" if v else "0")
"""Tick labels of an axis in points: signed, as the verdicts write an advantage."""

SHARE_IN_POINTS = FuncFormatter(lambda v, _: f"{100 * v:+.4g}" if v else "0")
"""Tick labels in points of an axis drawn in shares (0.05 reads +5)."""


def _fair_band(ax, fair: float | None, vertical: bool = False) -> None:
    """The band of a balanced game, within +-``fair`` (a share, 0.01 for 1 point) of 0,
    on an axis in points."""
    if not fair:
        return
    band = ax.axvspan if vertical else ax.axhspan
    band(-100 * fair, 100 * fair, color=GOOD, alpha=0.13, lw=0, zorder=0,
         label=f"fair (±{100 * fair:g} point{'s' * (fair != 0.01)})")


def _whole_ticks(ax, values, axis: str = "x") -> None:
    """Whole-number ticks for a key whose values are all whole numbers (a card count never
    reads 3.5)."""
    if all(float(v).is_integer() for v in values):
        getattr(ax, f"{axis}axis").set_major_locator(MaxNLocator(integer=True))


def distinct_labels(labels: list[str], fallback: list[str]) -> list[str]:
    """Short labels that tell runs apart: the parts of each ", "-separated label that not
    every label shares (two runs at 2 players read "heuristic vs random" and "heuristic",
    not "2 players" twice); ``fallback`` (e.g. the folder names) where that leaves two
    alike."""
    parts = [label.split(", ") for label in labels]
    common = set.intersection(*(set(p) for p in parts)) if parts else set()
    short = [", ".join(x for x in p if x not in common) or f for p, f in
             zip(parts, fallback, strict=True)]
    return [f"{s} ({f})" if short.count(s) > 1 else s for s, f in
            zip(short, fallback, strict=True)]


# ---------------------------------------------------------------------------------------------


def seat_outcomes_figure(table: pd.DataFrame, title: str | None = None,
                         teams: pd.DataFrame | None = None) -> Figure:
    """Wins, ties and losses of each seat (``analysis.seat_outcomes``) as stacked bars, the
    95% Wilson interval of the win rate as an error bar; a row per seat (and per team, from
    ``analysis.team_outcomes``), a panel per player count. Drawn from
    ``figdata.seat_outcomes``, the data the workbench charts too."""
    return seat_outcomes_drawn(FD.seat_outcomes(table, teams), title)


def seat_outcomes_drawn(data: dict, title: str | None = None) -> Figure:
    """The outcome-by-seat figure of ``figdata.seat_outcomes``'s data."""
    if not data["panels"]:
        return _empty(title or data["title"])
    with _style():
        n_rows = sum(len(panel["rows"]) for panel in data["panels"])
        fig = _figure(7.2, 1.2 + 0.42 * n_rows + 0.5 * len(data["panels"]))
        axes = fig.subplots(len(data["panels"]), 1, squeeze=False)[:, 0]
        for ax, panel in zip(axes, data["panels"], strict=True):
            entries = panel["rows"]
            y = np.arange(len(entries))[::-1]
            win, tie, loss = (np.array([_nan(r[k]) for r in entries])
                              for k in ("win", "tie", "loss"))
            ax.barh(y, win, color=ACCENT, height=0.6, label="win")
            ax.barh(y, tie, left=win, color=MUTED, height=0.6, label="tie")
            ax.barh(y, loss, left=win + tie, color="#edf2f7", height=0.6, label="loss",
                    edgecolor="#cbd5e0")
            ax.errorbar(win, y, xerr=_err(win, [_nan(r["win_low"]) for r in entries],
                                          [_nan(r["win_high"]) for r in entries]),
                        fmt="none", ecolor="black", capsize=3, lw=1)
            for yi, w, t_ in zip(y, win, tie, strict=True):
                ax.annotate(f"{w:.1%}" + (f" + tie {t_:.1%}" if t_ > 0.0005 else ""),
                            (0.01, yi), xytext=(2, 0), textcoords="offset points",
                            va="center", fontsize=8, color="white" if w > 0.2 else "black")
            ax.set_yticks(y, [r["label"] for r in entries])
            ax.set_xlim(0, 1)
            ax.xaxis.set_major_formatter(PercentFormatter(1.0))
            ax.set_title(panel["title"], fontsize=10, fontweight="normal", loc="left")
            ax.legend(loc="lower right", ncols=3, fontsize=8)
        axes[-1].set_xlabel(data["xlabel"])
        fig.suptitle(title or data["title"], fontweight="bold")
    return fig


def strategy_outcomes_figure(table: pd.DataFrame, title: str | None = None) -> Figure:
    """Score share of each strategy over all its seats (bars, 95% interval) and in each
    seat (points), against the fair share (``analysis.strategy_outcomes``); a panel per
    player count."""
    groups = list(table.groupby("players", sort=True))
    if not groups:
        return _empty(title or "Score share by strategy")
    with _style():
        n_strategies = sum(t["strategy"].nunique() for _, t in groups)
        fig = _figure(7.2, 1.2 + 0.5 * n_strategies + 0.6 * len(groups))
        axes = fig.subplots(len(groups), 1, squeeze=False)[:, 0]
        for ax, (p, t) in zip(axes, groups, strict=True):
            overall = t[t["seat"].astype(str) == "all"].reset_index(drop=True)
            y = np.arange(len(overall))[::-1]
            ax.barh(y, overall["score_share"], color=ACCENT, height=0.55, alpha=0.85,
                    label="all seats")
            ax.errorbar(overall["score_share"], y,
                        xerr=_err(overall["score_share"], overall["share_low"],
                                  overall["share_high"]),
                        fmt="none", ecolor="black", capsize=3, lw=1.2)
            per = t[t["seat"].astype(str) != "all"]
            seats = sorted({int(s) for s in per["seat"]})
            markers = "o^sDvP*X"
            for k, s in enumerate(seats):
                ps = per[per["seat"].astype(int) == s].set_index("strategy")
                yy = [yi for yi, name in zip(y, overall["strategy"], strict=True)
                      if name in ps.index]
                xs = [ps.loc[name, "score_share"] for name in overall["strategy"]
                      if name in ps.index]
                ax.scatter(xs, yy, marker=markers[k % len(markers)], s=22, color=SECOND,
                           zorder=3, label=f"in seat {s}")
            fair = float(t["fair_share"].iloc[0]) if len(t) else np.nan
            ax.axvline(fair, color=FAIR, ls="--", lw=1, label=f"fair share {fair:.1%}")
            ax.set_yticks(y, overall["strategy"])
            ax.xaxis.set_major_formatter(PercentFormatter(1.0))
            ax.set_xlim(0, 1)
            ax.set_title(f"{p} players", fontsize=10, fontweight="normal", loc="left")
            ax.legend(loc="lower right", fontsize=8, ncols=2)
        axes[-1].set_xlabel("score share: win 1, tie among k 1/k (95% interval)")
        fig.suptitle(title or "Score share by strategy", fontweight="bold")
    return fig


def game_length_figure(games: pd.DataFrame, measure: str = "turns",
                       title: str | None = None) -> Figure:
    """Histogram of a game-length measure (``turns`` or ``decisions``) per game, with its
    mean and median marked; a series per player count."""
    if len(games) == 0:
        return _empty(title or f"Game length: {measure} per game")
    with _style():
        fig = _figure(6.5, 3.6)
        ax = fig.subplots()
        groups = list(games.groupby("players", sort=True)) if "players" in games.columns \
            else [(None, games)]
        colors = [ACCENT, SECOND, GOOD, BAD, FAIR]
        for k, (p, g) in enumerate(groups):
            x = g[measure].to_numpy(dtype=np.int64)
            if len(x) == 0:
                continue
            lo, hi = int(x.min()), int(x.max())
            if hi - lo <= 120:  # one bar per value
                counts = np.bincount(x - lo, minlength=hi - lo + 1)
                edges = np.arange(lo, hi + 2) - 0.5
            else:
                counts, edges = np.histogram(x, bins=60)
            share = counts / len(x)
            color = colors[k % len(colors)]
            label = f"{p} players" if p is not None else measure
            ax.stairs(share, edges, fill=len(groups) == 1, alpha=0.75 if len(groups) == 1
                      else 1.0, color=color, label=f"{label} ({_games_label(len(x))})")
            ax.axvline(x.mean(), color=color, ls="--", lw=1.2,
                       label=f"mean {x.mean():.1f}")
            ax.axvline(np.median(x), color=color, ls=":", lw=1.2,
                       label=f"median {np.median(x):g}")
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set_xlabel(f"{measure} per game")
        ax.set_ylabel("share of games")
        ax.legend()
        ax.set_title(title or f"Game length: {measure} per game")
    return fig


def endings_figure(table: pd.DataFrame, title: str | None = None) -> Figure:
    """Share of games by end reason and by outcome (``analysis.endings``), with 95% Wilson
    intervals; the first player count when there are several. Drawn from
    ``figdata.endings``, the data the workbench charts too."""
    return endings_drawn(FD.endings(table), title)


def endings_drawn(data: dict, title: str | None = None) -> Figure:
    """The how-games-ended figure of ``figdata.endings``'s data."""
    if not data["panels"]:
        return _empty(title or data["title"])
    with _style():
        fig = _figure(7.5, 1.4 + 0.32 * sum(len(panel["rows"]) for panel in data["panels"]))
        axes = fig.subplots(1, len(data["panels"]), squeeze=False)[0]
        for ax, panel in zip(axes, data["panels"], strict=True):
            rows = panel["rows"]
            y = np.arange(len(rows))[::-1]
            share, low, high = (np.array([_nan(r[k]) for r in rows])
                                for k in ("value", "low", "high"))
            colors = [BAD if r["warn"] else ACCENT for r in rows]
            ax.barh(y, share, color=colors, height=0.6, alpha=0.85)
            ax.errorbar(share, y, xerr=_err(share, low, high), fmt="none", ecolor="black",
                        capsize=3, lw=1)
            for yi, s, r, hi in zip(y, share, rows, high, strict=True):
                ax.annotate(f"{s:.1%} ({r['count']:,})", (_absmax([s, hi]), yi),
                            xytext=(5, 0), textcoords="offset points", va="center",
                            fontsize=8)
            ax.set_yticks(y, [r["label"] for r in rows])
            ax.set_xlim(0, 1.3)
            ax.set_xticks([0, 0.25, 0.5, 0.75, 1.0])
            ax.xaxis.set_major_formatter(PercentFormatter(1.0))
            ax.set_xlabel("share of games")
            ax.set_title(panel["title"], fontsize=10, fontweight="normal")
        fig.suptitle(title or data["title"], fontweight="bold")
    return fig


def item_value_figure(table: pd.DataFrame, title: str | None = None,
                      max_items: int = 40) -> Figure:
    """Win-rate difference when an item event occurred vs when it did not
    (``analysis.item_value``), with 95% intervals, sorted; items with too few seat-games
    with or without the event are greyed. Beyond ``max_items`` only the largest and
    smallest differences are shown, with a note."""
    t = table.dropna(subset=["difference"]).sort_values("difference", ascending=True)
    dropped_empty = len(table) - len(t)
    dropped_thin = cut = 0
    if len(t) > max_items:
        # too many to show: the thin ones go first, then the middle of the rest
        thin = ~t["enough"].to_numpy(dtype=bool)
        dropped_thin = int(min(thin.sum(), len(t) - max_items))
        if dropped_thin:
            support = np.minimum(t["occurred"], t["seat_games"] - t["occurred"])
            t = t.drop(index=support[thin].sort_values(kind="stable").index[:dropped_thin])
        if len(t) > max_items:
            cut = len(t) - max_items
            t = pd.concat([t.head(max_items // 2), t.tail(max_items - max_items // 2)])
    with _style():
        fig = _figure(7.5, 1.6 + 0.28 * max(len(t), 1))
        ax = fig.subplots()
        y = np.arange(len(t))
        enough = t["enough"].to_numpy(dtype=bool)
        colors = np.where(enough, np.where(t["difference"] >= 0, GOOD, BAD), MUTED)
        ax.barh(y, t["difference"], color=colors, height=0.6, alpha=0.85)
        err = _err(t["difference"], t["ci_low"], t["ci_high"])
        ax.errorbar(t["difference"], y, xerr=err, fmt="none", ecolor="black", capsize=2,
                    lw=0.9)
        ax.axvline(0, color=FAIR, lw=1)
        labels = [f"{name}  ({_share(share)})" for name, share in  # display names first
                  zip(t["name"] if "name" in t.columns else t["item"], t["occurred_share"],
                      strict=True)]
        ax.set_yticks(y, labels)
        for tick, ok in zip(ax.get_yticklabels(), enough, strict=True):
            if not ok:
                tick.set_color(MUTED)
        ax.xaxis.set_major_formatter(SHARE_IN_POINTS)
        ax.set_xlabel("win rate when the event occurred minus when it did not (points, 95% "
                      "interval)")
        ax.set_title(title or "Item value: win-rate difference by item event "
                     "(share of seat-games with it)")
        notes = []
        if (~enough).any():
            notes.append(f"grey: fewer than the minimum seat-games with or without the event "
                         f"({int((~enough).sum())} items), too few to judge")
        if dropped_thin:
            notes.append(f"{dropped_thin} items with too few seat-games not shown")
        if dropped_empty:
            notes.append(f"{dropped_empty} items not shown: they never occurred (or always "
                         "did), so there is nothing to compare")
        if cut:
            notes.append(f"{cut} items in the middle not shown (largest and smallest "
                         f"{max_items} kept)")
        if notes:
            _note(fig, "; ".join(notes))
        if len(t) == 0:
            ax.text(0.5, 0.5, "no item with both occurrences and non-occurrences",
                    transform=ax.transAxes, ha="center", va="center", color=FAIR)
    return fig


def _share(x: float) -> str:
    if x >= 0.1 or x == 0:
        return f"{x:.0%}"
    return f"{x:.1%}" if x >= 0.001 else "<0.1%"


_ITEM_MEASURES = FD.ITEM_MEASURES


def whatif_figure(table: pd.DataFrame, title: str | None = None,
                  max_items: int = 20) -> Figure:
    """What-if differences (changed - base, ``analysis.compare_runs``) with 95% intervals, in
    up to three panels with their own scales: rates in percentage points, items in
    percentage points, mean game lengths in their own units. Of the item rows only the
    ``max_items`` clearest changes are drawn (largest |difference| / interval half-width),
    with a note. Drawn from ``figdata.whatif_differences``, the data the workbench charts
    too."""
    return whatif_drawn(FD.whatif_differences(table, max_items), title)


def whatif_drawn(data: dict, title: str | None = None) -> Figure:
    """The what-if figure of ``figdata.whatif_differences``'s data."""
    if not data["panels"]:
        return _empty(title or data["title"], data["note"])
    heights = [max(len(panel["rows"]), 1) for panel in data["panels"]]
    with _style():
        fig = _figure(7.5, 1.5 + 0.3 * sum(heights) + 0.6 * len(heights))
        axes = fig.subplots(len(heights), 1, squeeze=False,
                            gridspec_kw={"height_ratios": heights})[:, 0]
        for ax, panel in zip(axes, data["panels"], strict=True):
            rows = panel["rows"]
            y = np.arange(len(rows))[::-1]
            value, low, high = (np.array([_nan(r[k]) for r in rows])
                                for k in ("value", "low", "high"))
            colors = np.array([{1: GOOD, -1: BAD, 0: MUTED}[r["sign"]] for r in rows])
            ax.scatter(value, y, color=colors, zorder=3, s=28)
            ok = np.isfinite(low) & np.isfinite(high)
            ax.hlines(y[ok], low[ok], high[ok], colors=colors[ok], lw=1.6)
            ax.axvline(0, color=FAIR, lw=1)
            ax.set_yticks(y, [r["label"] for r in rows])
            if panel["unit"] == "points":
                ax.xaxis.set_major_formatter(POINTS_AXIS)
            ax.set_xlabel(panel["xlabel"])
            lim = _absmax(low, high, value)
            if lim == 0:
                lim = 1.0
            ax.set_xlim(-lim * 1.15, lim * 1.15)
        fig.suptitle(title or data["title"], fontweight="bold")
        _note(fig, data["note"])
    return fig


def fpa_comparison_figure(table: pd.DataFrame, title: str | None = None,
                          fair: float | None = None) -> Figure:
    """First-player advantage of several runs side by side, in points: ``table`` has
    columns label, advantage, ci_low, ci_high (a row per run, e.g. 2, 3 and 4 players);
    ``fair`` draws the band of a balanced game (+-fair, a share)."""
    if len(table) == 0:
        return _empty(title or "First-player advantage by run", "no runs to compare")
    with _style():
        fig = _figure(max(4.5, 1.8 + 1.3 * len(table)), 3.8)
        ax = fig.subplots()
        x = np.arange(len(table))
        adv, lo, hi = (_points(table[c]) for c in ("advantage", "ci_low", "ci_high"))
        colors = np.where((lo > 0) | (hi < 0), ACCENT, MUTED)
        _fair_band(ax, fair)
        ax.bar(x, adv, color=colors, width=0.55, alpha=0.85)
        ax.errorbar(x, adv, yerr=_err(adv, lo, hi), fmt="none", ecolor="black", capsize=4,
                    lw=1.2)
        ax.axhline(0, color=FAIR, lw=1)
        ax.set_xticks(x, [textwrap.fill(str(v), 22) for v in table["label"]],
                      rotation=0 if len(table) < 5 else 30)
        ax.yaxis.set_major_formatter(POINTS_AXIS)
        ax.set_ylabel("first-player advantage (points, 95% CI)")
        lim = max(_absmax(lo, hi, adv), 100 * (fair or 0))
        if lim > 0:
            ax.set_ylim(-lim * 1.2, lim * 1.2)
        if fair:
            ax.legend(loc="upper right")
        ax.set_title(title or "First-player advantage by run")
    return fig


# ---------------------------------------------------------------------------------------------
# the skill ladder (``reports.ladder``'s summary)


def _nan(x) -> float:
    return float("nan") if x is None else float(x)


def ratings_figure(summary: dict) -> Figure:
    """Each strategy's rating (Elo, the anchor at 0) with its 95% interval, strongest on
    top."""
    fit = summary["ratings"]
    rows = sorted(fit["ratings"], key=lambda r: r["rating"])
    with _style():
        fig = _figure(6.5, 0.5 + 0.42 * len(rows))
        ax = fig.subplots()
        y = np.arange(len(rows))
        est = [r["rating"] for r in rows]
        err = _err(est, [r["ci_low"] for r in rows], [r["ci_high"] for r in rows])
        ax.errorbar(est, y, xerr=err, fmt="o", color=ACCENT, capsize=3)
        ax.axvline(0, color=FAIR, lw=0.8, ls="--")
        ax.set_yticks(y, [r["strategy"] for r in rows])
        ax.set_xlabel(f"rating (Elo, {fit['anchor']} = 0)")
        ax.set_title(f"Ratings: {fit['model']} fit of {fit['games']:,} games")
    return fig


def win_matrix_figure(summary: dict) -> Figure:
    """The win matrix as a heatmap: the row's score against the column, 50% white."""
    names = summary["strategies"]
    k = len(names)
    grid = np.full((k, k), np.nan)
    for r in summary["win_matrix"]:
        grid[names.index(r["row"]), names.index(r["column"])] = _nan(r["score"])
    with _style():
        fig = _figure(1.6 + 0.95 * k, 1.0 + 0.75 * k)
        ax = fig.subplots()
        ax.grid(False)
        im = ax.imshow(grid, cmap="RdBu", vmin=0, vmax=1)
        for i in range(k):
            for j in range(k):
                text = "-" if np.isnan(grid[i, j]) else f"{grid[i, j]:.0%}"
                ax.text(j, i, text, ha="center", va="center", fontsize=9,
                        color="white" if not np.isnan(grid[i, j]) and abs(grid[i, j] - 0.5)
                        > 0.3 else "black")
        ax.set_xticks(range(k), names, rotation=30, ha="right")
        ax.set_yticks(range(k), names)
        ax.set_xlabel("column")
        ax.set_ylabel("row")
        ax.set_title("Win matrix: row's score against column")
        fig.colorbar(im, ax=ax, format=PercentFormatter(1.0), shrink=0.8)
    return fig


def balance_by_skill_figure(summary: dict, fair: float | None = None) -> Figure:
    """Balance against skill: first-player advantage (points; ``fair`` draws the band of a
    balanced game) and each seat's win rate in each level's self-play, against the level's
    rating, with 95% intervals on both axes."""
    rows = sorted(summary["balance"], key=lambda b: b["rating"])
    if not rows:
        return _empty("Balance by skill", "no level was played")
    with _style():
        fig = _figure(10, 3.6)
        left, right = fig.subplots(1, 2)
        x = np.array([b["rating"] for b in rows])
        xerr = _err(x, [b["rating_low"] for b in rows], [b["rating_high"] for b in rows])
        f = [b["first_player_advantage"] for b in rows]
        est = _points([v["advantage"] for v in f])
        yerr = _err(est, _points([v["ci_low"] for v in f]), _points([v["ci_high"] for v in f]))
        _fair_band(left, fair)
        left.errorbar(x, est, xerr=xerr, yerr=yerr, fmt="o-", color=ACCENT, capsize=3)
        left.axhline(0, color=FAIR, lw=0.8, ls="--")
        for xi, yi, b in zip(x, est, rows, strict=True):
            left.annotate(b["level"], (xi, yi), textcoords="offset points", xytext=(4, 6),
                          fontsize=8, color=FAIR)
        left.yaxis.set_major_formatter(POINTS_AXIS)
        left.set_xlabel("rating of the level (Elo)")
        left.set_ylabel("first-player advantage (points)")
        if fair:
            left.legend(loc="best")
        left.set_title("First-player advantage by skill")
        colors = [ACCENT, SECOND, GOOD, BAD]
        for s, seat in enumerate(rows[0]["seats"]):
            w = np.array([_nan(b["seats"][s]["win_rate"]) for b in rows])
            err = _err(w, [_nan(b["seats"][s]["win_low"]) for b in rows],
                       [_nan(b["seats"][s]["win_high"]) for b in rows])
            right.errorbar(x, w, yerr=err, fmt="o-", capsize=3, label=seat["name"],
                           color=colors[s % len(colors)])
        right.yaxis.set_major_formatter(PercentFormatter(1.0))
        right.set_xlabel("rating of the level (Elo)")
        right.set_ylabel("outright wins")
        right.set_title("Each seat's wins by skill")
        right.legend()
        _note(fig, "Each point is one level's self-play; horizontal bars are the level's "
                   "rating interval, vertical ones the 95% interval of the figure.")
    return fig


def item_value_by_skill_figure(summary: dict, items: list[str]) -> Figure:
    """The value of ``items`` (win rate with the card minus without) in each level's
    self-play, against the level's rating, with 95% intervals."""
    rows = sorted(summary["balance"], key=lambda b: b["rating"])
    with _style():
        fig = _figure(7.5, 3.8)
        ax = fig.subplots()
        x = np.array([b["rating"] for b in rows])
        for n, name in enumerate(items):
            est, lo, hi = [], [], []
            for b in rows:
                it = next((i for i in b["items"] or [] if (i.get("name") or i["item"]) == name
                           and i.get("enough")), None)
                est.append(100 * _nan(it["difference"]) if it else np.nan)
                lo.append(100 * _nan(it["ci_low"]) if it else np.nan)
                hi.append(100 * _nan(it["ci_high"]) if it else np.nan)
            ax.errorbar(x + (n - len(items) / 2) * 4, est, yerr=_err(est, lo, hi), fmt="o-",
                        capsize=2, label=name, lw=1)
        ax.axhline(0, color=FAIR, lw=0.8, ls="--")
        ax.yaxis.set_major_formatter(POINTS_AXIS)
        ax.set_xlabel("rating of the level (Elo)")
        ax.set_ylabel("win rate with minus without (points)")
        ax.set_title("Card value by skill")
        ax.legend(fontsize=7, ncols=2)
        _note(fig, "Each point is one level's self-play; points are nudged sideways so their "
                   "intervals do not hide each other. An association, not a cause.")
    return fig


# ---------------------------------------------------------------------------------------------
# design exploration (``reports.explore``'s summaries)


def sweep_line_figure(summary: dict, fair: float | None = None) -> Figure:
    """One key swept: the first-player advantage (points; ``fair`` draws the band of a
    balanced game) and each seat's win rate at every value, with 95% interval bands;
    today's value (``summary["today"]``) marked, whole-number ticks for a whole-number
    key."""
    key = summary["keys"][0]
    pts = summary["points"]
    x = np.array([float(pt["changes"][key]) for pt in pts])
    today = (summary.get("today") or {}).get(key)
    with _style():
        fig = _figure(10, 3.6)
        left, right = fig.subplots(1, 2)
        f = [pt["first_player_advantage"] for pt in pts]
        est = _points([v["advantage"] for v in f])
        _fair_band(left, fair)
        left.fill_between(x, _points([v["ci_low"] for v in f]),
                          _points([v["ci_high"] for v in f]), color=ACCENT, alpha=0.2, lw=0)
        left.plot(x, est, "o-", color=ACCENT)
        left.axhline(0, color=FAIR, lw=0.8, ls="--")
        left.yaxis.set_major_formatter(POINTS_AXIS)
        left.set_ylabel("first-player advantage (points)")
        left.set_title("First-player advantage")
        colors = [ACCENT, SECOND, GOOD, BAD]
        for s, seat in enumerate(pts[0]["seats"]):
            w = np.array([_nan(pt["seats"][s]["win_rate"]) for pt in pts])
            c = colors[s % len(colors)]
            right.fill_between(x, [_nan(pt["seats"][s]["win_low"]) for pt in pts],
                               [_nan(pt["seats"][s]["win_high"]) for pt in pts], color=c,
                               alpha=0.15, lw=0)
            right.plot(x, w, "o-", color=c, label=seat["name"])
        right.yaxis.set_major_formatter(PercentFormatter(1.0))
        right.set_ylabel("outright wins")
        right.set_title("Each seat's wins")
        for ax in (left, right):
            ax.set_xlabel(key)
            _whole_ticks(ax, list(x) + ([today] if today is not None else []))
            if today is not None:
                ax.axvline(float(today), color=FAIR, lw=1.2, ls=":",
                           label=f"today ({key}={today})")
        left.legend(loc="best")
        right.legend()
        _note(fig, f"{summary['games']:,} games a point, every point on the same seeds; "
                   "bands are 95% intervals.")
    return fig


def sweep_heatmap_figure(summary: dict) -> Figure:
    """Two keys swept: the first-player advantage over the grid (0 white)."""
    kx, ky = summary["keys"]
    xs = sorted({pt["changes"][kx] for pt in summary["points"]})
    ys = sorted({pt["changes"][ky] for pt in summary["points"]})
    grid = np.full((len(ys), len(xs)), np.nan)
    for pt in summary["points"]:
        grid[ys.index(pt["changes"][ky]), xs.index(pt["changes"][kx])] = \
            _nan(pt["first_player_advantage"]["advantage"])
    top = _absmax(grid, default=0.01) or 0.01
    with _style():
        fig = _figure(1.8 + 0.8 * len(xs), 1.4 + 0.55 * len(ys))
        ax = fig.subplots()
        ax.grid(False)
        im = ax.imshow(grid, cmap="RdBu_r", vmin=-top, vmax=top, origin="lower",
                       aspect="auto")
        for i in range(len(ys)):
            for j in range(len(xs)):
                if not np.isnan(grid[i, j]):
                    ax.text(j, i, f"{100 * grid[i, j]:+.1f}", ha="center", va="center",
                            fontsize=8)
        ax.set_xticks(range(len(xs)), [str(v) for v in xs])
        ax.set_yticks(range(len(ys)), [str(v) for v in ys])
        ax.set_xlabel(kx)
        ax.set_ylabel(ky)
        ax.set_title("First-player advantage (points)")
        today = summary.get("today") or {}
        if today.get(kx) in xs and today.get(ky) in ys:  # today's cell outlined
            from matplotlib.patches import Rectangle

            ax.add_patch(Rectangle((xs.index(today[kx]) - 0.5, ys.index(today[ky]) - 0.5), 1,
                                   1, fill=False, lw=2, ec="black", label="today"))
            _note(fig, f"Outlined: today's data ({kx}={today[kx]}, {ky}={today[ky]}).")
        fig.colorbar(im, ax=ax, format=SHARE_IN_POINTS, shrink=0.8)
    return fig


def tornado_figure(summary: dict, top: int = 20) -> Figure:
    """Sensitivity: each number's effect a step down and a step up on the measure, with 95%
    intervals, the largest on top; numbers whose effect Holm's correction keeps in color.
    Drawn from ``figdata.tornado``, the data the workbench charts too."""
    return tornado_drawn(FD.tornado(summary, top))


def tornado_drawn(data: dict) -> Figure:
    """The tornado of ``figdata.tornado``'s data."""
    rows = data["rows"]
    if not rows:
        return _empty("Sensitivity", "no number could move")
    with _style():
        fig = _figure(8, 1.0 + 0.5 * len(rows))  # room for each bar's value
        ax = fig.subplots()
        y = np.arange(len(rows))[::-1]
        for direction, color, dy in (("down", SECOND, -0.17), ("up", ACCENT, 0.17)):
            for yi, row in zip(y, rows, strict=True):
                r = row[direction]
                if r is None:
                    continue
                d = _nan(r["value"])
                ax.barh(yi + dy, d, height=0.32, color=color if r["clear"] else MUTED)
                ax.errorbar(d, yi + dy, xerr=_err([d], [_nan(r["low"])], [_nan(r["high"])]),
                            fmt="none", ecolor=FAIR, capsize=2, lw=0.8)
                # the value the step tried, on the other side of 0 from its bar
                ax.annotate(r["tried"], (0, yi + dy), xytext=(-4 if d >= 0 else 4, 0),
                            textcoords="offset points", ha="right" if d >= 0 else "left",
                            va="center", fontsize=7, color=FAIR)
        ax.axvline(0, color=FAIR, lw=0.8)
        ax.set_yticks(y, [row["label"] for row in rows])
        ax.set_xlabel(data["xlabel"])
        ax.set_title(data["title"])
        _note(fig, data["note"])
    return fig


def balance_trials_figure(trials: pd.DataFrame, spec) -> Figure:
    """A balancing search: each objective's distance at every trial and the best so far
    (distances in points, a length's in turns, as ``simkit.balance`` records them); with
    one number varied, the distance against its value too, today's value marked and a
    whole-number key on whole-number ticks."""
    cols = [f"objective:{o.text}" for o in spec.objectives]
    turns = [o.measure == "length" for o in spec.objectives]
    label = "distance to the objective" + (" (turns)" if all(turns) else "" if any(turns)
                                           else " (points)")

    def distance(c):  # settings the game refused: not drawn
        y = trials[c].to_numpy(float)
        return np.where(y >= 1e5, np.nan, y)

    with _style():
        one = len(spec.dimensions) == 1
        fig = _figure(10 if one else 6.5, 3.4)
        axes = fig.subplots(1, 2 if one else 1)
        ax = axes[0] if one else axes
        colors = [ACCENT, SECOND, GOOD, BAD]
        for i, c in enumerate(cols):
            y = distance(c)
            ax.plot(trials["trial"], y, "o", ms=3, color=colors[i % 4], alpha=0.6)
            ax.plot(trials["trial"], np.minimum.accumulate(np.nan_to_num(y, nan=np.inf)),
                    "-", color=colors[i % 4], label=c.split(":", 1)[1] + " (best so far)")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("trial")
        ax.set_ylabel(label)
        ax.set_title("The search")
        ax.legend()
        if one:
            d = spec.dimensions[0]
            for i, c in enumerate(cols):
                axes[1].plot(trials[d.key], distance(c), "o", ms=4, color=colors[i % 4])
            if d.kind != "choice" and d.today is not None:
                _whole_ticks(axes[1], list(trials[d.key]) + [d.today], "x")
                axes[1].axvline(float(d.today), color=FAIR, lw=1.2, ls=":",
                                label=f"today ({d.key}={d.today})")
                axes[1].legend()
            axes[1].set_xlabel(d.key)
            axes[1].set_ylabel(label)
            axes[1].set_title(f"By {d.key}")
        _note(fig, f"{spec.games:,} games a trial, every trial on the same seeds; trial 1 "
                   "is today's data (when the search space holds it); distances in points "
                   "(a length's in turns).")
    return fig


def lead_curve_figure(feel: dict, seat_labels: list[str], title: str | None = None) -> Figure:
    """Each seat's mean lead over the game (its team's progress minus the best other
    team's, against the share of the game played) with its 95% band, a few traced games in
    thin lines; beside it, how well the leader predicts the winner (AUC) through the
    game."""
    curve = feel.get("lead_curve") or []
    if not curve:
        return _empty(title or "Lead over the game", "no game was traced (--trace-turns)")
    unit = feel.get("progress_unit") or "points"
    colors = [ACCENT, SECOND, GOOD, BAD]
    with _style():
        fig = _figure(10, 3.8)
        left, right = fig.subplots(1, 2, width_ratios=[1.6, 1])
        players = max(r["seat"] for r in curve)
        for s in range(1, players + 1):
            rows = [r for r in curve if r["seat"] == s]
            x = np.array([r["fraction"] for r in rows])
            y = np.array([_nan(r["lead"]) for r in rows])
            lo = np.array([_nan(r["ci_low"]) for r in rows])
            hi = np.array([_nan(r["ci_high"]) for r in rows])
            color = colors[(s - 1) % len(colors)]
            left.plot(x, y, color=color, lw=2, label=seat_labels[s - 1])
            left.fill_between(x, lo, hi, color=color, alpha=0.2, lw=0)
        for ex in feel.get("examples") or []:
            prog = np.array(ex["progress"], dtype=float)  # [rows, P]
            if len(prog) < 2:
                continue
            x = np.linspace(0, 1, len(prog))
            for s in range(prog.shape[1]):
                others = np.delete(prog, s, axis=1).max(axis=1)
                left.plot(x, prog[:, s] - others, color=colors[s % len(colors)], lw=0.5,
                          alpha=0.45)
        left.axhline(0, color=FAIR, lw=0.8, ls="--")
        left.xaxis.set_major_formatter(PercentFormatter(1.0))
        left.set_xlabel("share of the game played")
        left.set_ylabel(f"lead ({unit})")
        left.set_title(title or "Mean lead of each seat")
        left.legend(fontsize=8)
        auc = feel.get("auc") or []
        if auc:
            x = np.array([a["fraction"] for a in auc])
            y = np.array([_nan(a["auc"]) for a in auc])
            err = _err(y, [_nan(a["ci_low"]) for a in auc], [_nan(a["ci_high"]) for a in auc])
            right.errorbar(x, y, yerr=err, fmt="o-", color=ACCENT, capsize=3)
            right.axhline(0.5, color=FAIR, lw=0.8, ls="--")
            right.set_ylim(0.45, 1.02)
            right.xaxis.set_major_formatter(PercentFormatter(1.0))
            right.set_xlabel("share of the game played")
            right.set_ylabel("AUC of the lead for the win")
            right.set_title("Does the leader win?")
        else:
            right.set_axis_off()
        _note(fig, f"Bands: 95% intervals over {feel.get('traced_games', 0):,} traced games; "
                   "thin lines: the first traced games. AUC: the chance that a winner's lead "
                   "at that point is above a loser's (0.5: no better than a coin).")
    return fig


def feel_by_figure(points: list[dict], xlabel: str, title: str) -> Figure:
    """Feel metrics against a swept value or a level's rating: decided at, lead changes,
    uncertainty and legal moves a decision, each with its 95% interval. ``points``: dicts
    with ``x``, ``label`` and ``feel`` (``FeelTally.metrics()``)."""
    pts = [p for p in points if p.get("feel")]
    if not pts:
        return _empty(title, "no feel figures")
    specs = [("decided_at", "decided at (share of game)", True),
             ("lead_changes", "lead changes a game", False),
             ("uncertainty", "uncertainty", False),
             ("branching", "legal moves a decision", False)]
    with _style():
        fig = _figure(12, 3.0)
        axes = fig.subplots(1, len(specs))
        x = np.array([p["x"] for p in pts], dtype=float)
        for ax, (key, label, share) in zip(axes, specs, strict=True):
            vals = [p["feel"].get(key) or {} for p in pts]
            y = np.array([_nan(v.get("mean")) for v in vals])
            if not np.isfinite(y).any():
                ax.set_axis_off()
                ax.set_title(f"{label}: not traced", fontsize=9)
                continue
            err = _err(y, [_nan(v.get("ci_low")) for v in vals],
                       [_nan(v.get("ci_high")) for v in vals])
            ax.errorbar(x, y, yerr=err, fmt="o-", color=ACCENT, capsize=3)
            if share:
                ax.yaxis.set_major_formatter(PercentFormatter(1.0))
            ax.set_xlabel(xlabel)
            ax.set_title(label, fontsize=10)
        fig.suptitle(title)
    return fig
