"""A verdict whose figures come from random play says so ("under random play"), and one from a
mixed line-up names its strategies: a designer must not read a fact about random play as a
fact about the game."""

from __future__ import annotations

import numpy as np
from simkit.reports import analysis as A
from simkit.reports import verdict as V
from simkit.reports.summary import summary_dict, summary_text

from .conftest import item_fixture, make_games


def _games(strategies=("random", "random")):
    """Seat 1 wins 70% (a seat verdict that names a seat ahead), with an item (a verdict on
    card values)."""
    _, items = item_fixture(2000)
    ranks = np.where(np.arange(2000)[:, None] % 10 < 7, [1, 2], [2, 1])
    names = tuple(dict.fromkeys(strategies))
    return make_games(ranks, np.tile(strategies, (2000, 1)), names=names), items


def _texts(strategies):
    games, items = _games(strategies)
    meta = {"players": 2, "strategies": strategies}
    d = summary_dict(games, meta, items)
    return [v["text"] for v in d["verdicts"]], summary_text(games, meta, items)


def test_every_verdict_of_random_play_says_so():
    texts, printed = _texts(["random", "random"])
    assert len(texts) >= 2
    assert all("under random play" in t.lower() for t in texts), texts
    assert texts[0].startswith("2 players, under random play: seat 1 is ahead")
    # each verdict says so, and so does the headline above them
    assert printed.lower().count("under random play") == len(texts) + 1
    assert printed.splitlines()[2].startswith("2 players, under random play: seat 1 is ahead")


def test_a_mixed_line_up_names_its_strategies_and_one_strategy_needs_no_word():
    texts, _ = _texts(["heuristic", "random"])
    seat = [t for t in texts if "seat 1 is ahead" in t]
    assert seat and seat[0].startswith("2 players, with seats playing heuristic and random:")
    assert not any("random play" in t for t in texts)
    texts, _ = _texts(["heuristic", "heuristic"])
    assert not any("random" in t or "seats playing" in t for t in texts)


def test_a_whatif_verdict_of_random_play_says_so():
    games, _ = _games()
    changed = games.copy()
    changed["turns"] = changed["turns"] + 3
    table = A.compare_runs(games, changed, {"game": "x"}, {"game": "x"})
    texts = [v.text for v in V.whatif_verdicts(table, strategies=["random", "random"])]
    assert texts and all(t.startswith("Under random play, ") for t in texts), texts
    assert "Under random play, games get longer" in " ".join(texts)
    plain = V.whatif_verdicts(table, strategies=["heuristic"] * 2)
    assert not any("random" in v.text for v in plain)
