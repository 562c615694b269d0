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
from matplotlib.ticker import PercentFormatter

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


# ---------------------------------------------------------------------------------------------


def seat_win_rates_figure(table: pd.DataFrame, title: str | None = None) -> Figure:
    """Win rate by seat (``analysis.seat_win_rates``) with 95% Wilson interval bars and the
    fair-share line; a panel per player count."""
    groups = list(table.groupby("players", sort=True))
    if not groups:
        return _empty(title or "Win rate by seat")
    with _style():
        fig = _figure(max(4.5, 2.2 + 1.0 * len(table)), 3.6)
        axes = fig.subplots(1, len(groups), squeeze=False, sharey=True)[0]
        for ax, (p, t) in zip(axes, groups, strict=True):
            x = t["seat"].to_numpy()
            ax.bar(x, t["win_rate"], color=ACCENT, width=0.6, alpha=0.85)
            ax.errorbar(x, t["win_rate"], yerr=_err(t["win_rate"], t["ci_low"], t["ci_high"]),
                        fmt="none", ecolor="black", capsize=4, lw=1.2)
            fair = float(t["fair_share"].iloc[0])
            ax.axhline(fair, color=FAIR, ls="--", lw=1, label=f"fair share {fair:.1%}")
            for xi, r, hi in zip(x, t["win_rate"], t["ci_high"], strict=True):
                top = hi if np.isfinite(hi) else r
                ax.annotate(f"{r:.1%}", (xi, top), xytext=(0, 3), textcoords="offset points",
                            ha="center", va="bottom", fontsize=8)
            ax.set_xticks(x, [f"seat {s}" for s in x])
            ax.set_xlabel("seat (1 moves first)")
            ax.set_title(f"{p} players, {_games_label(t['games'].iloc[0])}", fontsize=10,
                         fontweight="normal")
            ax.legend(loc="lower right")
            ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        axes[0].set_ylabel("win rate (95% Wilson interval)")
        top = _absmax(table["ci_high"], default=1.0)
        axes[0].set_ylim(0, min(1.05, max(0.1, top * 1.18)))
        fig.suptitle(title or "Win rate by seat", fontweight="bold")
    return fig


def strategy_win_rates_figure(table: pd.DataFrame, title: str | None = None) -> Figure:
    """Win rate by strategy over all seats (bars, 95% Wilson intervals) with its win rate in
    each seat as points (``analysis.strategy_win_rates``); a panel per player count."""
    groups = list(table.groupby("players", sort=True))
    if not groups:
        return _empty(title or "Win rate by strategy")
    n_strat = max((t["strategy"].nunique() for _, t in groups), default=1)
    with _style():
        fig = _figure(6.5, 1.3 + 0.55 * n_strat * len(groups))
        axes = fig.subplots(len(groups), 1, squeeze=False)[:, 0]
        for ax, (p, t) in zip(axes, groups, strict=True):
            overall = t[t["seat"].astype(str) == "all"].reset_index(drop=True)
            y = np.arange(len(overall))[::-1]
            ax.barh(y, overall["win_rate"], color=ACCENT, height=0.55, alpha=0.85,
                    label="all seats")
            ax.errorbar(overall["win_rate"], y,
                        xerr=_err(overall["win_rate"], overall["ci_low"], overall["ci_high"]),
                        fmt="none", ecolor="black", capsize=3, lw=1.2)
            per = t[t["seat"].astype(str) != "all"]
            seats = sorted({int(s) for s in per["seat"]})
            markers = "o^sDvP*X"
            for k, s in enumerate(seats):
                ps = per[per["seat"].astype(int) == s].set_index("strategy")
                yy = [yi for yi, name in zip(y, overall["strategy"], strict=True)
                      if name in ps.index]
                xs = [ps.loc[name, "win_rate"] for name in overall["strategy"]
                      if name in ps.index]
                ax.scatter(xs, yy, marker=markers[k % len(markers)], s=22, color=SECOND,
                           zorder=3, label=f"in seat {s}")
            fair = float(t["fair_share"].iloc[0]) if len(t) else np.nan
            ax.axvline(fair, color=FAIR, ls="--", lw=1, label=f"fair share {fair:.1%}")
            ax.set_yticks(y, overall["strategy"])
            ax.xaxis.set_major_formatter(PercentFormatter(1.0))
            ax.set_xlim(0, min(1.0, max(0.1, _absmax(t["ci_high"], t["win_rate"]) * 1.1 + 0.02)))
            ax.set_title(f"{p} players", fontsize=10, fontweight="normal", loc="left")
            ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5))
        axes[-1].set_xlabel("win rate (95% Wilson interval for all seats)")
        fig.suptitle(title or "Win rate by strategy", fontweight="bold")
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
    intervals; the first player count when there are several."""
    if len(table) == 0:
        return _empty(title or "How games ended")
    p = int(table["players"].min())
    t = table[table["players"] == p]
    with _style():
        fig = _figure(7.5, 1.4 + 0.32 * len(t))
        axes = fig.subplots(1, 2, squeeze=False)[0]
        for ax, kind in zip(axes, ("end reason", "outcome"), strict=True):
            part = t[t["kind"] == kind].reset_index(drop=True)
            y = np.arange(len(part))[::-1]
            colors = [BAD if name in ("timeout", "no winner", "tie") and c > 0 else ACCENT
                      for name, c in zip(part["name"], part["count"], strict=True)]
            ax.barh(y, part["share"], color=colors, height=0.6, alpha=0.85)
            ax.errorbar(part["share"], y, xerr=_err(part["share"], part["ci_low"],
                                                     part["ci_high"]),
                        fmt="none", ecolor="black", capsize=3, lw=1)
            for yi, s, c, hi in zip(y, part["share"], part["count"], part["ci_high"],
                                    strict=True):
                ax.annotate(f"{s:.1%} ({int(c):,})", (_absmax([s, hi]), yi), xytext=(5, 0),
                            textcoords="offset points", va="center", fontsize=8)
            ax.set_yticks(y, part["name"])
            ax.set_xlim(0, 1.3)
            ax.set_xticks([0, 0.25, 0.5, 0.75, 1.0])
            ax.xaxis.set_major_formatter(PercentFormatter(1.0))
            ax.set_xlabel("share of games")
            ax.set_title("by end reason" if kind == "end reason" else
                         "by outcome (rank-1 seats)", fontsize=10, fontweight="normal")
        n = int(t["count"][t["kind"] == "outcome"].sum())
        fig.suptitle(title or f"How games ended ({p} players, {_games_label(n)})",
                     fontweight="bold")
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
        labels = [f"{name}  ({_share(share)})" for name, share in
                  zip(t["item"], t["occurred_share"], strict=True)]
        ax.set_yticks(y, labels)
        for tick, ok in zip(ax.get_yticklabels(), enough, strict=True):
            if not ok:
                tick.set_color(MUTED)
        ax.xaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set_xlabel("win rate when the event occurred minus when it did not (95% interval)")
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


_RATE_MEASURES = ("win rate", "first-player advantage", "share of games", "item value",
                  "item occurrence")
_ITEM_MEASURES = ("item value", "item occurrence")


def whatif_figure(table: pd.DataFrame, title: str | None = None,
                  max_items: int = 20) -> Figure:
    """What-if differences (changed - base, ``analysis.compare_runs``) with 95% intervals, in
    up to three panels with their own scales: rates in percentage points, items in
    percentage points, mean game lengths in their own units. Of the item rows only the
    ``max_items`` clearest changes are drawn (largest |difference| / interval half-width),
    with a note."""
    if len(table) == 0:
        return _empty(title or "What-if: changed run minus base run", "nothing to compare")
    is_item = table["measure"].isin(_ITEM_MEASURES)
    items = table[is_item & table["difference"].notna()]
    hidden = int(is_item.sum()) - len(items)
    if len(items) > max_items:
        diff = items["difference"].abs().to_numpy(dtype=float)
        half = ((items["ci_high"] - items["ci_low"]) / 2).to_numpy(dtype=float)
        clarity = np.zeros(len(items))
        wide = np.isfinite(half) & (half > 0)
        clarity[wide] = diff[wide] / half[wide]
        clarity[~wide & (half == 0) & (diff > 0)] = np.inf  # a certain change
        keep = items.index[np.argsort(-clarity, kind="stable")[:max_items]]
        hidden += len(items) - max_items
        items = items.loc[sorted(keep)]
    panels = [(table[~is_item & table["measure"].isin(_RATE_MEASURES)], True),
              (items, True),
              (table[~is_item & ~table["measure"].isin(_RATE_MEASURES)], False)]
    panels = [(t.reset_index(drop=True), pct) for t, pct in panels if len(t)]
    heights = [max(len(t), 1) for t, _ in panels]
    with _style():
        fig = _figure(7.5, 1.5 + 0.3 * sum(heights) + 0.6 * len(panels))
        axes = fig.subplots(len(panels), 1, squeeze=False,
                            gridspec_kw={"height_ratios": heights})[:, 0]
        for ax, (t, pct) in zip(axes, panels, strict=True):
            y = np.arange(len(t))[::-1]
            sig = (t["ci_low"] > 0) | (t["ci_high"] < 0)
            colors = np.where(sig, np.where(t["difference"] > 0, GOOD, BAD), MUTED)
            ax.scatter(t["difference"], y, color=colors, zorder=3, s=28)
            ok = t["ci_low"].notna() & t["ci_high"].notna()
            ax.hlines(y[ok], t["ci_low"][ok], t["ci_high"][ok], colors=colors[ok], lw=1.6)
            ax.axvline(0, color=FAIR, lw=1)
            ax.set_yticks(y, [f"{m}: {g}" for m, g in zip(t["measure"], t["group"],
                                                         strict=True)])
            if pct:
                ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=1))
                ax.set_xlabel("difference, changed - base (percentage points, 95% interval)")
            else:
                ax.set_xlabel("difference, changed - base (per game, 95% interval)")
            lim = _absmax(t["ci_low"], t["ci_high"], t["difference"])
            if lim == 0:
                lim = 0.01 if pct else 1.0
            ax.set_xlim(-lim * 1.15, lim * 1.15)
        n = int(table["n"].iloc[0]) if len(table) else 0
        fig.suptitle(title or f"What-if: changed run minus base run ({n:,} paired games)",
                     fontweight="bold")
        note = "coloured: the 95% interval excludes 0; grey: it does not"
        if hidden:
            note += (f"; {hidden} item rows with less clear (or no) changes not drawn (the "
                     "table lists them all)")
        _note(fig, note)
    return fig


def fpa_comparison_figure(table: pd.DataFrame, title: str | None = None) -> Figure:
    """First-player advantage of several runs side by side: ``table`` has columns label,
    advantage, ci_low, ci_high (a row per run, e.g. 2, 3 and 4 players)."""
    if len(table) == 0:
        return _empty(title or "First-player advantage by run", "no runs to compare")
    with _style():
        fig = _figure(max(4.5, 1.8 + 1.1 * len(table)), 3.6)
        ax = fig.subplots()
        x = np.arange(len(table))
        adv = table["advantage"].to_numpy(dtype=float)
        colors = np.where((table["ci_low"] > 0) | (table["ci_high"] < 0), ACCENT, MUTED)
        ax.bar(x, adv, color=colors, width=0.55, alpha=0.85)
        ax.errorbar(x, adv, yerr=_err(adv, table["ci_low"], table["ci_high"]), fmt="none",
                    ecolor="black", capsize=4, lw=1.2)
        ax.axhline(0, color=FAIR, lw=1)
        ax.set_xticks(x, table["label"], rotation=0 if len(table) < 5 else 30)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=1))
        ax.set_ylabel("seat 1 win rate - fair share (95% CI)")
        lim = _absmax(table["ci_low"], table["ci_high"], table["advantage"])
        if lim > 0:
            ax.set_ylim(-lim * 1.2, lim * 1.2)
        ax.set_title(title or "First-player advantage by run")
    return fig

