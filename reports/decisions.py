"""The decision log's part of a report (``--log-decisions``, decisions.parquet): when each
card or action is chosen, and by whom.

A decision with one legal move is forced: the seat's strategy was not asked, so it counts
apart ("forced") and in no share. Every share is of choices (decisions with two legal moves or
more), so that a strategy's column says how it spends its choices.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from simkit.reports import figures as F

TOP_LABELS = 8
"""The labels a chart by turn draws (the most chosen); the table has them all."""
MIN_CHOICES = 20
"""The fewest choices a turn needs to be drawn by the chart by turn: the last turns of the
longest games rest on a handful, whose shares only jump about."""
COLUMNS = ["game", "turn", "seat", "strategy", "label", "legal_moves"]
"""The columns of decisions.parquet the report reads."""


def read_log(path) -> pd.DataFrame:
    """The columns of a decision log the report needs."""
    import pyarrow.parquet as pq

    return pq.read_table(path, columns=COLUMNS).to_pandas()


def label_table(log: pd.DataFrame) -> pd.DataFrame:
    """A row per label, most chosen first: how often it was chosen and forced, when (the
    median turn and the middle half of the turns it was chosen at), and its share of each
    strategy's choices and of each seat's."""
    chosen = log[log["legal_moves"] > 1]
    forced = log[log["legal_moves"] == 1].groupby("label", observed=True).size()
    rows = []
    strategies = sorted(chosen["strategy"].astype(str).unique())
    seats = sorted(chosen["seat"].unique())
    per_strategy = chosen.groupby(chosen["strategy"].astype(str)).size()
    per_seat = chosen.groupby("seat").size()
    for label, g in chosen.groupby(chosen["label"].astype(str)):
        turns = g["turn"].to_numpy()
        row = {"label": label, "chosen": len(g), "forced": int(forced.get(label, 0)),
               "median turn": float(np.median(turns)),
               "turns (middle half)": f"{np.percentile(turns, 25):g}-"
                                      f"{np.percentile(turns, 75):g}"}
        by = g.groupby(g["strategy"].astype(str)).size()
        for s in strategies:
            row[f"share of {s}'s choices"] = by.get(s, 0) / per_strategy[s]
        by = g.groupby("seat").size()
        for s in seats:
            row[f"share of seat {s}'s"] = by.get(s, 0) / per_seat[s]
        rows.append(row)
    only_forced = sorted(set(map(str, forced.index)) - {r["label"] for r in rows})
    for label in only_forced:  # never a choice: shown, so that nothing logged goes missing
        rows.append({"label": label, "chosen": 0, "forced": int(forced[label])})
    out = pd.DataFrame(rows)
    if len(out):
        out = out.sort_values(["chosen", "forced", "label"], ascending=[False, False, True])
    return out.reset_index(drop=True)


def by_turn(log: pd.DataFrame, top: int = TOP_LABELS) -> pd.DataFrame:
    """The share of the choices made at each turn that chose each of the ``top`` most
    chosen labels (rows: the turns with ``MIN_CHOICES`` choices or more; columns: labels)."""
    chosen = log[log["legal_moves"] > 1]
    labels = chosen["label"].astype(str)
    keep = labels.value_counts().index[:top]
    counts = pd.crosstab(chosen["turn"], labels)
    total = counts.sum(axis=1)
    return counts[list(keep)].div(total, axis=0)[total >= MIN_CHOICES]


def by_turn_figure(shares: pd.DataFrame, title: str):
    """Each label's share of the choices made at each turn, a line a label."""
    if shares.empty:
        return F._empty(title)
    with F._style():
        fig = F._figure(6.5, 3.6)
        ax = fig.subplots()
        for label in shares.columns:
            ax.plot(shares.index, shares[label], marker="." if len(shares) < 40 else None,
                    label=str(label))
        ax.set_xlabel("turn (completed turns before the decision)")
        ax.set_ylabel("share of the turn's choices")
        ax.yaxis.set_major_formatter(F.PercentFormatter(1.0))
        ax.set_title(title)
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def summary_sentence(log: pd.DataFrame, table: pd.DataFrame) -> str:
    """What the log holds, in a sentence."""
    games = log["game"].nunique()
    chosen = int((log["legal_moves"] > 1).sum())
    return (f"The decision log of the run's first {games:,} games: {len(log):,} decisions, "
            f"{chosen:,} of them choices (two legal moves or more) and {len(log) - chosen:,} "
            f"forced; {len(table):,} distinct moves by the game's labels.")
