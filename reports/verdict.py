"""Verdicts: the few plain sentences a report and a run summary open with, each backed by
the intervals of ``simkit.reports.analysis``. A verdict takes its tables as DataFrames or as
their rows (a list of dicts each): the summary ``simkit run`` prints makes no DataFrame.

A verdict never claims more than its interval allows. Seats are *balanced* when every
seat's advantage (its score share minus the mean share of all seats in the same games) has
its 95% interval inside +-``fair`` (default 1 point); a seat is *ahead* when its interval
lies above 0 and not inside that band; otherwise there are *not enough games to tell*, and
the verdict says roughly how many more games would tell (the interval narrows with the
square root of the number of games).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_FAIR = 0.01
"""The half-width of "fair": seat advantages within +-1 point of score share are balanced."""


@dataclass
class Verdict:
    topic: str  # "seats", "strategies", "items", "whatif"
    kind: str  # e.g. "balanced", "ahead", "unclear", "stronger", "none"
    text: str
    players: int | None = None
    figures: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return clean(asdict(self))


def clean(x):
    """JSON-ready: NaN (and infinity) becomes None, numpy scalars become Python numbers."""
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [clean(v) for v in x]
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def pct(x: float, digits: int = 1) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{100 * x:.{digits}f}%"


def pts(x: float, digits: int = 1) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{100 * x:+.{digits}f}"


def _ci(lo: float, hi: float, fmt=pct) -> str:
    return f"[{fmt(lo)}, {fmt(hi)}]"


def more_games(n: int, half_width: float, target: float) -> int:
    """About how many more games bring an interval of ``half_width`` over ``n`` games down to
    ``target`` (rounded up to two significant figures)."""
    if not (half_width > 0 and target > 0) or n <= 0:
        return 0
    extra = n * ((half_width / target) ** 2 - 1)
    if extra <= 0:
        return 0
    digits = max(0, int(math.floor(math.log10(extra))) - 1)
    return int(math.ceil(extra / 10 ** digits) * 10 ** digits)


def rows(table) -> list[dict]:
    """The rows of a table as dicts: a DataFrame's records, or a list of dicts as it is (the
    summary that ``simkit run`` prints from a ``Tally`` never makes a DataFrame)."""
    if table is None:
        return []
    if isinstance(table, list):
        return table
    return table.to_dict("records")


def _isnan(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def line_up(strategies) -> str:
    """How a verdict names the play its figures come from: "under random play" when every
    seat plays ``random`` (a fact about random play, not about the game), "with seats playing
    A and B" for a mixed line-up, "" for one strategy that is not random."""
    names = list(dict.fromkeys(str(n) for n in strategies or ()))
    if not names:
        return ""
    if names == ["random"]:
        return "under random play"
    if len(names) == 1:
        return ""
    return "with seats playing " + ", ".join(names[:-1]) + " and " + names[-1]


def qualify(text: str, strategies) -> str:
    """``text`` saying whose play it describes (``line_up``): "2 players: ..." becomes
    "2 players, under random play: ..."; any other sentence opens with the phrase."""
    phrase = line_up(strategies)
    if not phrase or phrase in text:
        return text
    head, sep, rest = text.partition(": ")
    if sep and head.endswith(" players") and head.split()[0].isdigit():
        return f"{head}, {phrase}: {rest}"
    return f"{phrase[0].upper()}{phrase[1:]}, {text[:1].lower()}{text[1:]}"


def qualify_all(verdicts: list[Verdict], strategies) -> list[Verdict]:
    """Every verdict (but a comparison of strategies, which names them itself) qualified by
    ``qualify``; the line-up is kept in each verdict's figures."""
    for v in verdicts:
        if v.topic != "strategies":
            v.text = qualify(v.text, strategies)
        v.figures.setdefault("strategies", list(dict.fromkeys(strategies or ())))
    return verdicts


def seat_verdict(seats, endings, players: int, fair: float = DEFAULT_FAIR) -> Verdict:
    """One sentence on the seats of one player count, from ``seat_outcomes`` and
    ``endings`` (DataFrames, or their rows as dicts)."""
    t = [r for r in rows(seats) if r["players"] == players]
    n = int(t[0]["games"])
    tie_share = float(sum(r["share"] for r in rows(endings) if r["players"] == players
                          and r["kind"] == "outcome" and r["name"] == "tie"))
    figures = {"threshold": fair, "games": n, "ties": tie_share,
               "seats": [{"seat": int(r["seat"]), "win_rate": r["win_rate"],
                          "advantage": r["advantage"], "ci_low": r["adv_low"],
                          "ci_high": r["adv_high"]} for r in t]}
    if n < 2 or any(_isnan(r["adv_low"]) for r in t):
        return Verdict("seats", "unclear", f"{players} players: too few games to say anything "
                       "about the seats.", players, figures)
    lead = max(t, key=lambda r: r["advantage"])  # the first of equals, as idxmax
    wins = ", ".join(f"{r['name']} {pct(r['win_rate'])}" for r in t)
    inside = all(r["adv_low"] >= -fair and r["adv_high"] <= fair for r in t)
    if inside:
        edge = ""
        if lead["adv_low"] > 0:
            edge = (f"; {lead['name']} has a small edge of {pts(lead['advantage'], 2)} points "
                    f"{_ci(lead['adv_low'], lead['adv_high'], pts)}")
        return Verdict("seats", "balanced",
                       f"{players} players: no seat advantage larger than ±{100 * fair:.1f} "
                       f"point at 95% confidence (wins: {wins}; ties {pct(tie_share)}){edge}.",
                       players, figures)
    if lead["adv_low"] > 0:
        text = (f"{players} players: {lead['name']} is ahead by {pts(lead['advantage'])} points "
                f"of score share {_ci(lead['adv_low'], lead['adv_high'], pts)}: it wins "
                f"{pct(lead['win_rate'])} {_ci(lead['win_low'], lead['win_high'])}")
        others = [f"{r['name']} {pct(r['win_rate'])}" for r in t if r["seat"] != lead["seat"]]
        text += ", " + ", ".join(others) + f", ties {pct(tie_share)}."
        behind = [r for r in t if r["adv_high"] < 0]
        if players > 2 and behind:
            text = text[:-1] + "; behind: " + ", ".join(
                f"{r['name']} {pts(r['advantage'])}" for r in behind) + "."
        figures["leader"] = int(lead["seat"])
        return Verdict("seats", "ahead", text, players, figures)
    half = float(max((r["adv_high"] - r["adv_low"]) / 2 for r in t))
    worst = float(max(abs(r["advantage"]) for r in t))
    target = max(abs(fair - worst), fair / 4)
    more = more_games(n, half, target)
    figures["more_games"] = more
    return Verdict("seats", "unclear",
                   f"{players} players: not enough games to tell whether a seat is ahead by "
                   f"more than ±{100 * fair:.1f} point (largest seat advantage "
                   f"{pts(float(lead['advantage']))} {_ci(lead['adv_low'], lead['adv_high'], pts)}"
                   f"): run about {more:,} more games.", players, figures)


def _descending(table: list[dict], key: str) -> list[dict]:
    """``table`` by ``key``, largest first, equals in their order, NaN last (as pandas'
    ``sort_values(key, ascending=False)`` of a short table)."""
    return sorted(table, key=lambda r: (_isnan(r[key]), 0.0 if _isnan(r[key]) else -r[key]))


def strategy_verdict(strategies, players: int) -> Verdict | None:
    """Which strategy is stronger, from ``strategy_outcomes`` (a DataFrame or its rows);
    None with one strategy."""
    t = [r for r in rows(strategies) if r["players"] == players and str(r["seat"]) == "all"]
    if len(t) < 2:
        return None
    t = _descending(t, "score_share")
    best, rest = t[0], t[1:]
    figures = {"strategies": [{"strategy": r["strategy"], "score_share": r["score_share"],
                               "ci_low": r["share_low"], "ci_high": r["share_high"],
                               "win_rate": r["win_rate"]} for r in t],
               "fair_share": float(best["fair_share"])}
    others = ", ".join(f"{r['strategy']} {pct(r['score_share'])}" for r in rest)
    highs = [r["share_high"] for r in rest if not _isnan(r["share_high"])]
    if highs and best["share_low"] > max(highs):
        return Verdict("strategies", "stronger",
                       f"{players} players: {best['strategy']} is the strongest strategy: "
                       f"score share {pct(best['score_share'])} "
                       f"{_ci(best['share_low'], best['share_high'])} against {others} (fair "
                       f"share {pct(best['fair_share'])}); it wins {pct(best['win_rate'])} of "
                       "its seat-games.", players, figures)
    return Verdict("strategies", "unclear",
                   f"{players} players: no strategy is clearly stronger at 95% confidence "
                   f"({best['strategy']} {pct(best['score_share'])} "
                   f"{_ci(best['share_low'], best['share_high'])}, {others}).", players, figures)


def card_check(item: str, checks: dict | None, direction: str,
               strategy: str | None = None) -> tuple[str, dict | None]:
    """What a card verdict says of its cause (``docs/statistics.md``): the paired effect of
    removing one copy when ``--check-cards`` checked the card (``checks``: ``{item: check}``,
    ``simkit.checks.check_values``), else that win rate with and without it is an
    association (``direction``: "winning" or "losing"), and why it could not be checked.
    A card valued for ``strategy`` is judged on that strategy's win rate."""
    c = (checks or {}).get(str(item).partition(":")[0])
    if c is None:
        return f"associated with {direction} (not checked)", None
    if c.get("reason"):
        return f"associated with {direction} (not checked: {c['reason']})", c
    moved, n = c.get("moved"), int(c.get("games") or 0)
    mine = [r for r in c.get("strategies") or [] if r.get("group") == strategy]
    if strategy not in (None, "all") and mine:  # one check serves every strategy's verdict
        moved = {**mine[0], "kind": "strategy"}
    if not moved:
        return f"associated with {direction} (not checked)", None
    span = _ci(moved["ci_low"], moved["ci_high"], pts)
    widened = (f", its interval widened for picking the largest of {moved['adjusted_for']} "
               "seats" if moved.get("adjusted_for") else "")
    head = f"checked: removing one {c['name']}"
    if moved["ci_low"] > 0 or moved["ci_high"] < 0:
        return (f"{head} moves {moved['group']}'s win rate by {pts(moved['difference'])} "
                f"points {span} over {n:,} paired games{widened}"), c
    if moved.get("kind") == "strategy":  # the card was valued for this strategy
        return (f"{head} does not move {moved['group']}'s win rate detectably over {n:,} "
                f"paired games ({pts(moved['difference'])} {span})"), c
    return (f"{head} moves no seat's win rate detectably over {n:,} paired games (largest: "
            f"{moved['group']} {pts(moved['difference'])} {span}{widened})"), c


def item_verdicts(values, players: int | None = None, label: str = "card",
                  checks: dict | None = None) -> list[Verdict]:
    """The strongest and weakest items among those with enough games, from
    ``item_value`` (a DataFrame or its rows; choices only; by strategy when it has a
    strategy column): an item is named only when its interval excludes 0, by its display
    name (a ``name`` column) when it has one, with what a check of it found (``checks``:
    ``{item: check}``; ``card_check``)."""
    out = []
    table = rows(values)
    has_strategy = "strategy" in values.columns if hasattr(values, "columns") else \
        any("strategy" in r for r in table)
    groups: dict = {} if has_strategy else {None: []}
    for r in table:  # by strategy in order of appearance, as groupby(sort=False)
        groups.setdefault(r.get("strategy"), []).append(r)
    for strategy, t in groups.items():
        who = f" for {strategy}" if strategy not in (None, "all") else ""
        ok = [r for r in t if r["enough"]]
        thin = len(t) - len(ok)
        figures = {"strategy": strategy, "items_judged": len(ok), "too_few_games": thin}
        if not ok:
            out.append(Verdict("items", "none", f"No {label} has enough games to judge its "
                               f"value{who}.", players, figures))
            continue
        strong = _descending([r for r in ok if r["ci_low"] > 0], "difference")
        weak = sorted([r for r in ok if r["ci_high"] < 0], key=lambda r: r["difference"])
        parts = []
        for role, found, direction in (("strongest", strong, "winning"),
                                       ("weakest", weak, "losing")):
            if not found:
                continue
            r = found[0]
            cause, check = card_check(r["item"], checks, direction, strategy)
            head = f"strongest {label}{who}" if role == "strongest" else f"weakest{who}"
            unit = " points of win rate" if role == "strongest" else ""
            parts.append(f"{head}: {r.get('name') or r['item']}, {pts(r['difference'])}{unit} "
                         f"{_ci(r['ci_low'], r['ci_high'], pts)}, {cause}")
            figures[role] = {"item": r["item"], "name": r.get("name") or r["item"],
                             "difference": r["difference"], "ci_low": r["ci_low"],
                             "ci_high": r["ci_high"], "check": check}
        if not parts:
            text = (f"No {label}'s value{who} differs from zero at 95% confidence "
                    f"({len(ok)} judged).")
            kind = "none"
        else:
            text = "; ".join(parts)
            text = text[0].upper() + text[1:] + (
                f" ({len(ok)} judged, {thin} with too few games)." if thin else
                f" ({len(ok)} judged).")
            kind = "ranked"
        out.append(Verdict("items", kind, text, players, figures))
    return out


def whatif_verdicts(table: pd.DataFrame, fair: float = DEFAULT_FAIR,
                    strategies=None) -> list[Verdict]:
    """What a what-if change did, from ``compare_runs``: first-player advantage, then the
    win rates that moved (interval excluding 0), then game length; each says whose play it
    describes (``qualify``) when given the runs' ``strategies``."""
    return qualify_all(_whatif_verdicts(table, fair), strategies)


def _whatif_verdicts(table: pd.DataFrame, fair: float) -> list[Verdict]:
    out = []
    f = table[table["measure"] == "first-player advantage"]
    if len(f):
        r = f.iloc[0]
        fig = {"base": r["base"], "changed": r["changed"], "difference": r["difference"],
               "ci_low": r["ci_low"], "ci_high": r["ci_high"]}
        span = f"from {pts(r['base'])} to {pts(r['changed'])} points"
        if r["ci_low"] > 0 or r["ci_high"] < 0:
            out.append(Verdict("whatif", "changed",
                               f"First-player advantage moves by {pts(r['difference'], 2)} "
                               f"points {_ci(r['ci_low'], r['ci_high'], pts)} ({span}).",
                               None, fig))
        elif r["ci_low"] >= -fair and r["ci_high"] <= fair:
            out.append(Verdict("whatif", "same",
                               f"First-player advantage does not move by more than "
                               f"±{100 * fair:.1f} point ({pts(r['difference'], 2)} "
                               f"{_ci(r['ci_low'], r['ci_high'], pts)}).", None, fig))
        else:
            half = (r["ci_high"] - r["ci_low"]) / 2
            more = more_games(int(r["n"]), half, max(fair, abs(r["difference"])) / 2)
            fig["more_games"] = more
            out.append(Verdict("whatif", "unclear",
                               f"Not enough games to tell how first-player advantage moves "
                               f"({pts(r['difference'], 2)} "
                               f"{_ci(r['ci_low'], r['ci_high'], pts)}): run about {more:,} "
                               "more paired games.", None, fig))
    w = table[(table["measure"] == "win rate") & ((table["ci_low"] > 0) |
                                                   (table["ci_high"] < 0))]
    if len(w):
        w = w.reindex(w["difference"].abs().sort_values(ascending=False).index).head(4)
        out.append(Verdict("whatif", "changed", "Win rates that move: " + "; ".join(
            f"{r.group} {pct(r.base)} -> {pct(r.changed)} ({pts(r.difference)} "
            f"{_ci(r.ci_low, r.ci_high, pts)})" for r in w.itertuples()) + ".", None,
            {"rows": w[["group", "base", "changed", "difference", "ci_low",
                        "ci_high"]].to_dict("records")}))
    else:
        out.append(Verdict("whatif", "same", "No seat's or strategy's win rate moves "
                           "detectably (every 95% interval includes 0).", None, {}))
    t = table[table["measure"] == "mean turns"]
    if len(t) and (t.iloc[0]["ci_low"] > 0 or t.iloc[0]["ci_high"] < 0):
        r = t.iloc[0]
        out.append(Verdict("whatif", "changed",
                           f"Games get {'longer' if r['difference'] > 0 else 'shorter'}: "
                           f"{r['base']:.1f} -> {r['changed']:.1f} turns "
                           f"({r['difference']:+.2f} [{r['ci_low']:+.2f}, {r['ci_high']:+.2f}]).",
                           None, {"difference": r["difference"]}))
    return out
