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


def _tick_texts(fig: Figure, ax: int = 0, axis: str = "y") -> list[str]:
    fig.canvas.draw()
    a = fig.axes[ax]
    ticks = a.get_yticklabels() if axis == "y" else a.get_xticklabels()
    return [t.get_text() for t in ticks]


def test_first_player_advantage_is_in_points_with_the_fair_band():
    fig = F.fpa_comparison_figure(pd.DataFrame({
        "label": ["a", "b"], "advantage": [0.04, 0.0], "ci_low": [0.03, -0.01],
        "ci_high": [0.05, 0.01]}), fair=0.01)
    ax = fig.axes[0]
    band = [p for p in ax.patches if p.get_label().startswith("fair")]
    assert len(band) == 1 and band[0].get_label() == "fair (±1 point)"
    ys = band[0].get_path().transformed(band[0].get_patch_transform()).vertices[:, 1]
    assert sorted({round(float(y), 6) for y in ys}) == [-1.0, 1.0]  # points, not shares
    assert "+4" in _tick_texts(fig) and "points" in ax.get_ylabel()


def test_runs_are_labelled_by_what_sets_them_apart():
    labels = ["war, 2 players, heuristic vs random", "war, 2 players, heuristic",
              "war, 2 players, heuristic"]
    assert F.distinct_labels(labels, ["a", "b", "c"]) == [
        "heuristic vs random", "heuristic (b)", "heuristic (c)"]
    assert F.distinct_labels(["pig, 2 players", "pig, 3 players"], ["x", "y"]) == [
        "2 players", "3 players"]


def _sweep(values, today):
    seats = [{"name": f"seat {s}", "win_rate": 0.5, "win_low": 0.4, "win_high": 0.6}
             for s in (1, 2)]
    return {"keys": ["cards.boar.count"], "games": 100, "today": {"cards.boar.count": today},
            "points": [{"changes": {"cards.boar.count": v}, "seats": seats,
                        "first_player_advantage": {"advantage": 0.02, "ci_low": -0.01,
                                                   "ci_high": 0.05}} for v in values]}


def test_a_sweep_marks_today_and_draws_whole_numbers_as_whole():
    fig = F.sweep_line_figure(_sweep([3, 4, 5, 6], 4), fair=0.01)
    for ax in range(2):
        ticks = [t for t in _tick_texts(fig, ax, "x") if t]
        assert ticks and all(float(t.replace("−", "-")).is_integer() for t in ticks), ticks
        today = [ln for ln in fig.axes[ax].lines if ln.get_label().startswith("today")]
        assert today and list(today[0].get_xdata()) == [4.0, 4.0]
    assert any(p.get_label().startswith("fair") for p in fig.axes[0].patches)
    fig = F.sweep_line_figure(_sweep([0.5, 1.0, 1.5], 1.0))  # a real key keeps fractions
    assert not all(float(t).is_integer() for t in _tick_texts(fig, 0, "x") if t)


def test_a_tornado_names_today_and_each_step():
    effects = [{"key": "die_faces", "direction": d, "value": v, "difference": x,
                "ci_low": x - 0.01, "ci_high": x + 0.01, "moves": True, "ahead": None}
               for d, v, x in (("down", 5, -0.03), ("up", 7, 0.02))]
    fig = F.tornado_figure({"measure": "seat-spread", "games": 100, "effects": effects,
                            "ranked": [{"key": "die_faces", "today": 6, "ahead": None}]})
    assert _tick_texts(fig) == ["die_faces = 6 today"]
    assert {t.get_text() for t in fig.axes[0].texts} == {"5", "7"}


def test_card_value_by_skill_is_chosen_by_clear_values_not_the_noisiest():
    from simkit.reports.ladder import _item_levels

    def item(name, d, lo, hi, occurred):
        return {"item": name, "difference": d, "ci_low": lo, "ci_high": hi,
                "occurred": occurred, "enough": True}

    summary = {"balance": [
        {"level": "random", "items": [item("noisy", 0.40, -0.10, 0.90, 30),
                                      item("clear", 0.05, 0.02, 0.08, 5000),
                                      item("common", 0.01, -0.01, 0.03, 9000)]},
        {"level": "heuristic", "items": [item("noisy", -0.30, -0.80, 0.20, 31),
                                         item("clear", 0.06, 0.03, 0.09, 5000),
                                         item("common", 0.00, -0.02, 0.02, 9000)]}]}
    assert list(_item_levels(summary, top=2)["card"]) == ["clear", "common"]


def test_a_two_key_sweep_outlines_today_in_points():
    seats = [{"name": "seat 1", "win_rate": 0.5, "win_low": 0.4, "win_high": 0.6}]
    pts = [{"changes": {"a": x, "b": y}, "seats": seats,
            "first_player_advantage": {"advantage": 0.01 * x - 0.02 * y, "ci_low": 0,
                                       "ci_high": 0}} for x in (1, 2, 3) for y in (4, 5)]
    fig = F.sweep_heatmap_figure({"keys": ["a", "b"], "points": pts,
                                  "today": {"a": 2, "b": 5}})
    outline = [p for p in fig.axes[0].patches if p.get_label() == "today"]
    assert len(outline) == 1 and outline[0].get_xy() == (0.5, 0.5)
    fig.canvas.draw()
    assert "+5" in [t.get_text() for t in fig.axes[1].get_yticklabels()]  # points, not %
