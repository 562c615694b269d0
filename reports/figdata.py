"""The data of the report's figures: what each chart draws (its series, labels, intervals,
units and notes), apart from how it is drawn. ``reports.figures`` draws its matplotlib
figures from these, and the workbench (``simkit serve``) draws its uPlot charts from the
same dictionaries, so the page and the report cannot show different figures.

Every dictionary is plain JSON: numbers are floats or None (never NaN), labels are text.
Rates are given in the unit the chart shows them in (``unit``): ``"points"`` for shares
and differences of shares (0.04 is 4 points), ``"share"`` for rates drawn as shares of
games (0..1), ``"per game"`` for means of per-game counts (turns, decisions)."""

from __future__ import annotations

import numpy as np
import pandas as pd

RATE_MEASURES = ("win rate", "first-player advantage", "share of games", "item value",
                 "item occurrence")
ITEM_MEASURES = ("item value", "item occurrence")


def _num(x, scale: float = 1.0) -> float | None:
    """``x * scale`` as a float, None where it is not a number."""
    if x is None:
        return None
    x = float(x)
    return None if not np.isfinite(x) else x * scale


def whatif_differences(table: pd.DataFrame, max_items: int = 20) -> dict:
    """The what-if figure's data from ``analysis.compare_runs``'s table: changed minus base
    with 95% intervals, in up to three panels with their own scales: rates (points), items
    (points) and mean game lengths (per game). Of the item rows only the ``max_items``
    clearest changes are kept (largest |difference| / interval half-width), and ``note``
    says how many were left out.

    Returns ``{"title", "n", "panels": [{"unit", "xlabel", "rows": [{"label", "measure",
    "group", "value", "low", "high", "clear", "sign"}]}], "note"}``; ``clear``: the interval
    excludes 0, ``sign``: +1 or -1 for a clear change, 0 otherwise."""
    if len(table) == 0:
        return {"title": "What-if: changed run minus base run", "n": 0, "panels": [],
                "note": "nothing to compare"}
    is_item = table["measure"].isin(ITEM_MEASURES)
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
    panels = [(table[~is_item & table["measure"].isin(RATE_MEASURES)], "points"),
              (items, "points"),
              (table[~is_item & ~table["measure"].isin(RATE_MEASURES)], "per game")]
    out = []
    for t, unit in panels:
        if not len(t):
            continue
        scale = 100.0 if unit == "points" else 1.0
        rows = []
        for r in t.itertuples(index=False):
            lo, hi, d = _num(r.ci_low, scale), _num(r.ci_high, scale), _num(r.difference, scale)
            clear = lo is not None and hi is not None and (lo > 0 or hi < 0)
            rows.append({"label": f"{r.measure}: {r.group}", "measure": str(r.measure),
                         "group": str(r.group), "value": d, "low": lo, "high": hi,
                         "clear": bool(clear),
                         "sign": (1 if d is not None and d > 0 else -1) if clear else 0})
        out.append({"unit": unit, "rows": rows,
                    "xlabel": f"difference, changed - base ({unit}, 95% interval)"})
    n = int(table["n"].iloc[0])
    note = "coloured: the 95% interval excludes 0; grey: it does not"
    if hidden:
        note += (f"; {hidden} item rows with less clear (or no) changes not drawn (the "
                 "table lists them all)")
    return {"title": f"What-if: changed run minus base run ({n:,} paired games)", "n": n,
            "panels": out, "note": note}


def seat_outcomes(table: pd.DataFrame, teams: pd.DataFrame | None = None) -> dict:
    """The outcome-by-seat figure's data from ``analysis.seat_outcomes`` (and
    ``analysis.team_outcomes``): a panel per player count, a row per seat (then per team),
    each with its shares of outright wins, ties and losses and the win rate's 95% Wilson
    interval, as shares of games (0..1).

    Returns ``{"title", "unit": "share", "panels": [{"players", "games", "title", "rows":
    [{"label", "win", "win_low", "win_high", "tie", "loss"}]}]}``."""
    rows: dict[int, list] = {}
    for p, t in table.groupby("players", sort=True):
        rows[int(p)] = [(str(r.name), r) for r in t.itertuples()]
    if teams is not None:
        for r in teams.itertuples():
            rows.setdefault(int(r.players), []).append((f"team {r.team} (seats {r.seats})", r))
    panels = []
    for p, entries in sorted(rows.items()):
        games = int(entries[0][1].games)
        panels.append({"players": p, "games": games, "title": f"{p} players, {games:,} games",
                       "rows": [{"label": name, "win": _num(r.win_rate),
                                 "win_low": _num(r.win_low), "win_high": _num(r.win_high),
                                 "tie": _num(r.tie_rate), "loss": _num(r.loss_rate)}
                                for name, r in entries]})
    return {"title": "Outcome by seat", "unit": "share", "panels": panels,
            "xlabel": "share of games: outright win (95% Wilson interval), tie, loss"}


BAD_ENDINGS = ("timeout", "no winner", "tie")
"""Endings drawn as a warning when they happened."""


def endings(table: pd.DataFrame) -> dict:
    """The how-games-ended figure's data from ``analysis.endings``: two panels, the share
    of games by end reason and by outcome (rank-1 seats), each row with its 95% Wilson
    interval and count, as shares of games (0..1); the first player count when there are
    several. ``warn``: a timeout, a game nobody won or a tie that happened.

    Returns ``{"title", "players", "games", "unit": "share", "panels": [{"kind", "title",
    "rows": [{"label", "value", "low", "high", "count", "warn"}]}]}``."""
    if len(table) == 0:
        return {"title": "How games ended", "players": None, "games": 0, "unit": "share",
                "panels": []}
    p = int(table["players"].min())
    t = table[table["players"] == p]
    panels = []
    for kind, title in (("end reason", "by end reason"),
                        ("outcome", "by outcome (rank-1 seats)")):
        part = t[t["kind"] == kind]
        panels.append({"kind": kind, "title": title, "rows": [
            {"label": str(r["name"]), "value": _num(r["share"]), "low": _num(r["ci_low"]),
             "high": _num(r["ci_high"]), "count": int(r["count"]),
             "warn": bool(r["name"] in BAD_ENDINGS and r["count"] > 0)}
            for r in part.to_dict("records")]})
    n = int(t["count"][t["kind"] == "outcome"].sum())
    return {"title": f"How games ended ({p} players, {n:,} games)", "players": p, "games": n,
            "unit": "share", "panels": panels}


def run_figures(games: pd.DataFrame, meta: dict | None) -> dict:
    """A run's figure data, as its report section draws it (``build._run_section``):
    ``{"seats": seat_outcomes(...), "endings": endings(...)}``."""
    from simkit.reports import analysis as A

    teams = A.team_outcomes(games, meta)
    return {"seats": seat_outcomes(A.seat_outcomes(games, meta), teams if len(teams) else None),
            "endings": endings(A.endings(games, meta))}


def tornado(summary: dict, top: int = 20) -> dict:
    """A sensitivity run's tornado from its summary (``reports.explore``): each number's
    effect a step down and a step up on the measure, with 95% intervals, the largest first
    (at most ``top``), in points (turns for ``length``). A step is ``clear`` when Holm's
    correction keeps its effect or the seat ahead changed with it; ``tried``: the value the
    step played.

    Returns ``{"title", "measure", "unit", "games", "xlabel", "note", "rows": [{"key",
    "label", "down", "up"}]}``, ``down`` and ``up`` each ``{"value", "low", "high", "tried",
    "clear"}`` or None when that step could not move."""
    scale = 1 if summary["measure"] == "length" else 100
    unit = "turns" if summary["measure"] == "length" else "points"
    by = {(r["key"], r["direction"]): r for r in summary["effects"]}
    rows = []
    for k in summary["ranked"][:top]:
        key = k["key"]
        label = key if k.get("today") is None else f"{key} = {k['today']} today"
        if k.get("ahead"):
            label += f" (seat ahead {k['ahead']})"
        step = {}
        for direction in ("down", "up"):
            r = by.get((key, direction))
            step[direction] = None if r is None else {
                "value": _num(r["difference"], scale), "low": _num(r["ci_low"], scale),
                "high": _num(r["ci_high"], scale), "tried": str(r["value"]),
                "clear": bool(r["moves"] or r.get("ahead"))}
        rows.append({"key": key, "label": label, **step})
    return {"title": f"Sensitivity: a step down (orange) and up (blue); "
                     f"{summary['games']:,} paired games each",
            "measure": summary["measure"], "unit": unit, "games": summary["games"],
            "xlabel": f"change of the {summary['measure']}"
                      + ("" if unit == "turns" else " (points)"),
            "note": "Grey: no detectable effect (Holm-corrected) and the same seat ahead. "
                    "Beside each bar, the value the step tried.",
            "rows": rows}
