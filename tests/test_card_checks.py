"""Card value that means what it says (issue 28): choices declared column by column (Rabbit
Hunt's bunny placement is an outcome), display names where a person reads, and
``--check-cards N``: a paired what-if without one copy of each card the verdict names, its
wording, and bad N refused with one line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from simkit.reports import verdict as V
from simkit.reports.stats import item_kind, item_name

from simkit import data, registry
from simkit.checks import CopiesRule, removal
from simkit.cli import main
from simkit.errors import SimkitError
from simkit.game import GameSpec

GAMES = ("rabbit-hunt", "war-of-the-wilds", "watership-down", "avalon", "dolina-krolikow")


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


# ------------------------------------------------------------------ choices, column by column

def test_rabbit_hunt_bunny_placement_is_an_outcome_and_a_card_laid_a_choice():
    spec = registry.get_game("rabbit-hunt")
    choices = spec.choices_of(spec.item_columns)
    assert "bunny:placed" not in choices and "move_any_farmer:placed" in choices
    assert not any(c.endswith((":drawn", ":triggered")) or c.startswith("bunny:")
                   for c in choices)
    meta = {"choice_columns": choices, "choice_events": ["placed"]}  # columns win over events
    assert item_kind("bunny:placed", meta) == "outcome"
    assert item_kind("peek:placed", meta) == "choice"


@pytest.mark.parametrize("game", GAMES)
def test_every_game_declares_its_choices_by_column(game):
    spec = registry.get_game(game)
    assert spec.choice_columns is not None
    choices = spec.choices_of(spec.item_columns)
    assert choices and set(choices) < set(spec.item_columns)  # some choices, some outcomes
    for c in choices:  # nothing that happens to a player, or that it is dealt, is a choice
        assert c.partition(":")[2] not in ("drawn", "caught", "lost", "dealt", "died",
                                           "seen", "won", "defeated", "completed", "failed")


def test_the_event_form_still_classifies_a_plugins_columns():
    pig = registry.get_game("pig")  # declares choice_events only
    assert pig.choice_columns is None
    assert pig.choices_of(pig.item_columns) == ["roll:made", "hold:made"]
    assert item_kind("bust:suffered", {"choice_events": ["made"]}) == "outcome"
    assert item_kind("bust:suffered", {}) == "unclassified"


def test_a_choice_column_that_is_no_item_column_is_refused():
    pig = registry.get_game("pig")
    with pytest.raises(ValueError, match="choice_columns"):
        GameSpec(name="x", package_dir=pig.package_dir, rules=pig.rules, players=(2,),
                 compile=pig.compile, item_columns=["roll:made"], end_reasons=["timeout"],
                 choice_columns=["hold:made"])


def test_display_names():
    assert registry.get_game("rabbit-hunt").column_name("move_any_farmer:placed") == \
        "Move any farmer (placed)"
    wotw = registry.get_game("war-of-the-wilds")
    assert wotw.item_name("boar") == "Boar" and wotw.item_name("day_the_fox") == "Day: the fox"
    assert registry.get_game("watership-down").item_name("card_hlessil_3") == "Hlessil card 3"
    # a run folder made before item_names: the code in words
    assert item_name("take_2_carrots:placed", {}) == "Take 2 carrots (placed)"


# ------------------------------------------------------------------ removing one copy

def test_removing_one_copy_follows_each_games_data_rule():
    values = data.values(registry.get_game("war-of-the-wilds").data)
    changes = removal("war-of-the-wilds", values, "boar")  # the deck size goes with it
    assert changes == {"cards.boar.count": values["cards.boar.count"] - 1,
                       "deck_size": values["deck_size"] - 1}
    spec = registry.get_game("war-of-the-wilds")
    spec.compile(data.values(data.apply_overrides(spec.data, changes)), 2)  # still a game
    rh = data.values(registry.get_game("rabbit-hunt").data)
    assert removal("rabbit-hunt", rh, "peek") == {"farmland.peek.count": rh[
        "farmland.peek.count"] - 1}
    with pytest.raises(SimkitError, match="no copy to remove"):  # a count at 0
        removal("rabbit-hunt", {**rh, "farmland.peek.count": 0}, "peek")
    with pytest.raises(SimkitError, match="one of each"):  # a fixed hand
        removal("watership-down", data.values(registry.get_game("watership-down").data),
                "card_elil_tracker")
    with pytest.raises(SimkitError, match="remove_copy"):  # a plugin that says nothing
        removal("pig", {}, "roll")
    rule = CopiesRule(lists=(("tile_", "supply"),))
    assert rule({"supply.dark.count": 2}, "tile_dark") == {"supply.dark.count": 1}
    # a fixed prefix never hides a card of a list whose name starts with it
    rule = CopiesRule(lists=(("", "cards"),), fixed=(("card", "a card redrawn is no card"),))
    assert rule({"cards.cardinal.count": 1}, "cardinal") == {"cards.cardinal.count": 0}
    with pytest.raises(SimkitError, match="a card redrawn is no card"):
        rule({"cards.cardinal.count": 1}, "card")


# ------------------------------------------------------------------ the verdict's words

ROW = {"enough": True, "seat_games": 4000, "occurred": 900}


def test_an_unchecked_card_is_called_an_association():
    rows = [{**ROW, "item": "peek:placed", "name": "Peek (placed)", "difference": 0.08,
             "ci_low": 0.03, "ci_high": 0.13},
            {**ROW, "item": "show_hand:placed", "name": "Show hand (placed)",
             "difference": -0.06, "ci_low": -0.1, "ci_high": -0.02}]
    (v,) = V.item_verdicts(rows, 2)
    assert "Strongest card: Peek (placed), +8.0 points of win rate [+3.0, +13.0], associated " \
           "with winning (not checked)" in v.text
    assert "weakest: Show hand (placed), -6.0 [-10.0, -2.0], associated with losing (not " \
           "checked)" in v.text
    assert ":placed" not in v.text and v.figures["strongest"]["item"] == "peek:placed"


def _check(lo, hi, diff, **extra):
    seat = {"group": "seat 2", "difference": diff, "ci_low": lo, "ci_high": hi}
    return {"peek": {"item": "peek", "name": "Peek", "games": 1000, "moved": seat, **extra}}


def test_a_checked_card_gives_its_paired_effect_or_says_it_did_not_move():
    rows = [{**ROW, "item": "peek:placed", "name": "Peek (placed)", "difference": 0.08,
             "ci_low": 0.03, "ci_high": 0.13}]
    (v,) = V.item_verdicts(rows, 2, checks=_check(-0.05, -0.01, -0.03))
    assert "checked: removing one Peek moves seat 2's win rate by -3.0 points [-5.0, -1.0] " \
           "over 1,000 paired games" in v.text
    assert "associated" not in v.text
    (v,) = V.item_verdicts(rows, 2, checks=_check(-0.02, 0.01, -0.005))
    assert "checked: removing one Peek moves no seat's win rate detectably over 1,000 paired " \
           "games (largest: seat 2 -0.5 [-2.0, +1.0])" in v.text
    strategy = {"group": "heuristic", "kind": "strategy", "difference": 0.004,
                "ci_low": -0.01, "ci_high": 0.018}
    (v,) = V.item_verdicts(rows, 2, checks={"peek": {"item": "peek", "name": "Peek",
                                                     "games": 500, "moved": strategy}})
    assert "checked: removing one Peek does not move heuristic's win rate detectably over " \
           "500 paired games (+0.4 [-1.0, +1.8])" in v.text
    # one check serves two strategies' verdicts, each on its own win rate
    both = {"peek": {"item": "peek", "name": "Peek", "games": 500, "moved": strategy,
                     "strategies": [strategy, {**strategy, "group": "random",
                                               "difference": -0.03, "ci_low": -0.05,
                                               "ci_high": -0.01}]}}
    v1, v2 = V.item_verdicts([{**r, "strategy": s} for s in ("heuristic", "random")
                              for r in rows], 2, checks=both)
    assert "does not move heuristic's win rate" in v1.text
    assert "moves random's win rate by -3.0 points [-5.0, -1.0]" in v2.text
    (v,) = V.item_verdicts(rows, 2, checks={"peek": {"item": "peek", "name": "Peek",
                                                     "reason": "a fixed card"}})
    assert "associated with winning (not checked: a fixed card)" in v.text


# ------------------------------------------------------------------ --check-cards end to end

@pytest.fixture(scope="module")
def checked(tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("checked") / "rh"
    res = invoke("run", "rabbit-hunt", "--players", 2, "--games", 2000, "--seed", 1,
                 "--out", out, "--workers", 1, "--check-cards", 1000, "--json")
    assert res.exit_code == 0, res.output
    return out, json.loads(res.stdout)


def _wins(games: pd.DataFrame, seat: int) -> np.ndarray:
    other = 2 if seat == 1 else 1
    return ((games[f"rank_s{seat}"] == 1) & (games[f"rank_s{other}"] != 1)).to_numpy(float)


def test_check_cards_plays_a_paired_removal_and_the_verdict_says_what_it_did(checked):
    out, summary = checked
    doc = json.loads((out / "checks" / "checks.json").read_text())
    assert doc["games"] == 1000 and doc["cards"]
    card = doc["cards"][0]
    assert set(card["changes"]) == {f"farmland.{card['item']}.count"}
    changed = json.loads((out / card["folder"] / "run.json").read_text())
    assert changed["params"][f"farmland.{card['item']}.count"]["value"] == \
        changed["params"][f"farmland.{card['item']}.count"]["default"] - 1
    assert changed["master_seed"] == 1 and changed["strategies"] == ["random", "random"]
    base = pd.read_parquet(out / "games.parquet").query("game < 1000").sort_values("game")
    other = pd.read_parquet(out / card["folder"] / "games.parquet").sort_values("game")
    assert (base["seed"].to_numpy() == other["seed"].to_numpy()).all()  # the same seeds
    for seat in card["seats"]:
        s = int(seat["group"].split()[1])
        d = _wins(other, s) - _wins(base, s)
        assert seat["difference"] == pytest.approx(d.mean())
        assert seat["ci_low"] < d.mean() < seat["ci_high"] or d.std() == 0
    text = next(v["text"] for v in summary["verdicts"] if v["topic"] == "items")
    assert f"checked: removing one {card['name']} moves" in text
    assert "not checked" not in text and ":placed" not in text
    assert summary["card_checks"]["cards"][0]["item"] == card["item"]
    assert all("name" in r and ":" in r["item"] for r in summary["items"])  # codes kept


def test_the_report_of_a_checked_run_shows_the_check(checked, tmp_path):
    from simkit.reports.build import build_report

    out, _ = checked
    page = (build_report([out], tmp_path / "rep") / "index.html").read_text(encoding="utf-8")
    assert "Checked by removing one copy" in page and "checked: removing one" in page
    assert "bunny:placed" not in page and "Bunny (placed)" in page  # an outcome, by name


@pytest.mark.parametrize("n, words", [("0", "from 1"), ("-3", "from 1"), ("2.5", "whole"),
                                      ("many", "whole"), ("2000000", "1,000,000"),
                                      ("600", "at most 500")])
def test_bad_check_cards_is_one_line_and_writes_nothing(tmp_path, n, words):
    res = CliRunner().invoke(main, ["run", "pig", "--players", "2", "--games", "500",
                                    "--out", str(tmp_path / "r"), "--check-cards", n])
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and "--check-cards" in lines[0] and words in lines[0], lines
    assert not (tmp_path / "r").exists()


def test_check_cards_in_an_experiment_file(tmp_path):
    exp = tmp_path / "e.toml"
    exp.write_text('[[run]]\ngame = "pig"\nplayers = 2\ngames = 300\ncheck_cards = 0\n')
    res = CliRunner().invoke(main, ["run", str(exp), "--out", str(tmp_path / "runs")])
    assert res.exit_code == 2 and "check_cards must be a whole number from 1" in res.output
    exp.write_text('[[run]]\ngame = "pig"\nplayers = 2\ngames = 300\ncheck_cards = 200\n'
                   'strategies = ["hold-at", "random"]\n')
    res = invoke("run", exp, "--out", tmp_path / "runs", "--workers", 1, "--quiet")
    assert res.exit_code == 0, res.output
    doc = json.loads((tmp_path / "runs" / "pig-2p-s0" / "checks" / "checks.json").read_text())
    # Pig's choices are rolls and holds, not cards: each is named and left unchecked
    assert doc["games"] == 200 and doc["cards"]
    assert all("remove_copy" in c["reason"] for c in doc["cards"])


def test_the_check_gives_the_win_rate_of_the_strategy_the_card_was_named_for():
    from simkit.checks import _figures

    def r(measure, group, diff):
        return {"measure": measure, "group": group, "base": 0.5, "changed": 0.5 + diff,
                "difference": diff, "ci_low": diff - 0.01, "ci_high": diff + 0.01, "n": 100}

    table = pd.DataFrame([r("win rate", "seat 1", 0.05), r("win rate", "seat 2", -0.01),
                          r("win rate", "strategy heuristic", 0.002),
                          r("win rate", "strategy random", -0.002),
                          r("first-player advantage", "seat 1 share - mean share", 0.03)])
    names = ["seat 1 (elil)", "seat 2 (hlessil)"]
    assert _figures(table, names, "random")["moved"]["group"] == "random"
    moved = _figures(table, names, None)["moved"]  # one strategy: the seat that moved most,
    assert moved["group"] == "seat 1 (elil)" and moved["kind"] == "seat"
    # its interval widened for the choice among 2 seats (Bonferroni: z 0.9875 / z 0.975)
    assert moved["adjusted_for"] == 2
    assert moved["ci_high"] - moved["difference"] == pytest.approx(0.01 * 2.2414 / 1.9600,
                                                                   rel=1e-3)
    (v,) = V.item_verdicts([{**ROW, "item": "peek:placed", "name": "Peek (placed)",
                             "difference": 0.08, "ci_low": 0.03, "ci_high": 0.13}], 2,
                           checks={"peek": {"item": "peek", "name": "Peek", "games": 100,
                                            "moved": moved}})
    assert "moves seat 1 (elil)'s win rate by +5.0 points [+3.9, +6.1] over 100 paired " \
           "games, its interval widened for picking the largest of 2 seats" in v.text


def test_a_report_of_a_run_made_before_choice_columns_reads_it_as_today(root):
    from simkit.reports.build import load_run
    from simkit.reports.stats import item_kind

    run = load_run(root / "tests" / "fixtures" / "run-v1-rabbit-hunt-4p")
    assert "choice_columns" not in json.loads((run.folder / "run.json").read_text())
    assert item_kind("bunny:placed", run.meta) == "outcome"
    assert item_kind("peek:placed", run.meta) == "choice"
    assert item_name("peek:placed", run.meta) == "Peek (placed)"


def test_ctrl_c_during_a_check_keeps_the_run_and_writes_no_checks(tmp_path, monkeypatch):
    import simkit.runner as R

    real = R.run_games

    def stopped(run, out=None, **kw):
        if "checks" in Path(out).parts:  # the run itself plays; its first check is stopped
            raise R.RunInterrupted(None, out)
        return real(run, out=out, **kw)

    monkeypatch.setattr(R, "run_games", stopped)
    out = tmp_path / "rh"
    res = CliRunner().invoke(main, ["run", "rabbit-hunt", "--players", "2", "--games", "2000",
                                    "--seed", "1", "--out", str(out), "--workers", "1",
                                    "--check-cards", "500", "--quiet"])
    assert res.exit_code == 130, res.output
    assert "its card checks are not" in res.output and "--resume" in res.output
    assert json.loads((out / "run.json").read_text())["complete"]
    assert not (out / "checks" / "checks.json").exists()
