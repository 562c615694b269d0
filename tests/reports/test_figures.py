"""Figures: every chart draws, says what it shows, and marks what is too thin to read."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from simkit.reports import analysis as A
from simkit.reports import figures as F

from .conftest import item_fixture, make_games, random_games


def titles(fig: Figure) -> str:
    parts = [fig._suptitle.get_text() if fig._suptitle else ""]
    for ax in fig.axes:
        parts += [ax.get_title(), ax.get_title("left"), ax.get_xlabel(), ax.get_ylabel()]
    return " ".join(parts)


def renders(fig: Figure) -> bytes:
    buf = io.BytesIO()
    F.save(fig, buf)
    return buf.getvalue()


def test_every_figure_draws_with_labels():
    games, _ = random_games(600, p=3)
    g2, items = item_fixture()
    base, changed = random_games(500), random_games(500, seed=4)
    figs = {
        "seat": F.seat_outcomes_figure(A.seat_outcomes(games)),
        "strategy": F.strategy_outcomes_figure(A.strategy_outcomes(games)),
        "length": F.game_length_figure(games),
        "endings": F.endings_figure(A.endings(games)),
        "items": F.item_value_figure(A.item_value(g2, None, items)),
        "whatif": F.whatif_figure(A.compare_runs(base[0], changed[0])),
        "fpa": F.fpa_comparison_figure(pd.DataFrame({
            "label": ["2 players", "3 players"], "advantage": [0.04, 0.0],
            "ci_low": [0.03, -0.01], "ci_high": [0.05, 0.01]})),
    }
    expected = {"seat": "Outcome by seat", "strategy": "Score share by strategy",
                "length": "turns per game", "endings": "How games ended",
                "items": "Item value", "whatif": "changed run minus base run",
                "fpa": "First-player advantage"}
    for name, fig in figs.items():
        assert isinstance(fig, Figure)
        assert expected[name] in titles(fig), name
        assert all(ax.get_xlabel() or ax.get_ylabel() for ax in fig.axes), name
        assert renders(fig).startswith(b"\x89PNG")


def test_seat_figure_stacks_wins_ties_and_losses():
    games = make_games(np.array([[1, 2, 2]] * 30 + [[1, 1, 2]] * 10 + [[0, 0, 0]] * 20))
    fig = F.seat_outcomes_figure(A.seat_outcomes(games))
    bars = fig.axes[0].patches
    seat1 = [b.get_width() for b in bars if abs(b.get_y() + b.get_height() / 2 - 2) < 1e-9]
    assert seat1 == pytest.approx([30 / 60, 10 / 60, 20 / 60])  # win, tie, loss


def test_item_figure_greys_thin_items_and_notes_dropped_ones():
    games, items = item_fixture()
    items["rare:made"] = np.zeros(len(items), dtype=np.uint16)
    items.loc[:4, "rare:made"] = 1
    t = A.item_value(games, None, items)
    fig = F.item_value_figure(t)
    labels = {tick.get_text().split()[0]: to_hex(tick.get_color())
              for tick in fig.axes[0].get_yticklabels()}
    assert labels["rare:made"] == F.MUTED
    assert labels["x:made"] != F.MUTED
    assert "never:made" not in labels  # never occurred: nothing to compare
    note = fig._supxlabel.get_text()
    assert "grey" in note and "never occurred" in note


def test_whatif_figure_keeps_the_clearest_item_rows():
    base = {"measure": "win rate", "group": "seat 1", "base": 0.5, "changed": 0.52,
            "difference": 0.02, "ci_low": 0.01, "ci_high": 0.03, "p_value": 0.001, "n": 100,
            "method": "paired by game"}
    rows = [base, {**base, "measure": "mean turns", "group": "per game", "difference": 2.0,
                   "ci_low": 1.0, "ci_high": 3.0}]
    for i in range(30):  # item i: difference 0.01 * i, half-width 0.05; clearest: largest i
        rows.append({**base, "measure": "item value", "group": f"item{i:02d}",
                     "difference": 0.01 * i, "ci_low": 0.01 * i - 0.05,
                     "ci_high": 0.01 * i + 0.05})
    rows.append({**base, "measure": "item value", "group": "never", "difference": np.nan,
                 "ci_low": np.nan, "ci_high": np.nan})
    fig = F.whatif_figure(pd.DataFrame(rows), max_items=5)
    assert len(fig.axes) == 3  # rates, items, game length: each its own scale
    shown = [t.get_text() for t in fig.axes[1].get_yticklabels()]
    assert sorted(shown) == [f"item value: item{i}" for i in range(25, 30)]
    assert "26 item rows" in fig._supxlabel.get_text()
    renders(fig)


def test_figures_of_empty_tables_say_so_instead_of_failing():
    empty = make_games(np.zeros((0, 2)))
    for fig in (F.seat_outcomes_figure(A.seat_outcomes(empty)),
                F.strategy_outcomes_figure(A.strategy_outcomes(empty)),
                F.endings_figure(A.endings(empty)), F.game_length_figure(empty)):
        assert "no games" in fig.axes[0].texts[0].get_text()
        renders(fig)
