"""Balancing that cannot mislead: the confirmed best named against today's data, each varied
number's own effect measured on the confirmation games, trials counted from 1 everywhere,
points throughout, and a warning when a recommendation puts a number at its bound."""

import json
import re

import pandas as pd
from click.testing import CliRunner
from simkit.reports import stats as st
from simkit.reports.explore import _load, _share

from simkit.balance import bound_warnings, make_balance
from simkit.cli import main


def test_balance_names_the_confirmed_best_and_what_each_number_did(tmp_path):
    out = tmp_path / "b"
    # today's data (target 30, max_turns 400) lies outside this space of four settings;
    # max_turns never binds in Pig to 10 or 60, so it can do nothing
    res = CliRunner().invoke(main, [
        "balance", "pig", "--players", "2", "--vary", "target=10,60", "--vary",
        "max_turns=350,450", "--trials", "4", "--games", "100", "--confirm", "1",
        "--confirm-games", "300", "--out", str(out), "--json", "--workers", "1"],
        catch_exceptions=False)
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    trials = pd.read_csv(out / "trials.csv", keep_default_na=False)
    # one count: trials from 1, in the progress lines, the file and the confirmations
    assert trials["trial"].tolist() == [1, 2, 3, 4]
    assert [int(n) for n in re.findall(r"trial (\d+)/4", res.stderr)] == [1, 2, 3, 4]
    confirming = [int(n) for n in re.findall(r"confirming trial (\d+)", res.stderr)]
    assert confirming and set(confirming) <= set(trials["trial"])
    assert {c["trial"] for c in d["confirmed"] if not c["today"]} <= set(trials["trial"])
    # points: the stored advantage is 100 times the share difference of the games played
    today = next(c for c in d["confirmed"] if c["today"])
    assert today["trial"] is None and today["setting"] == {"target": 30, "max_turns": 400}
    games, _ = _load(out / today["folder"])
    fpa = st._fpa_per_game(_share(games, 2)).mean()
    assert abs(today["first_player_advantage"]["estimate"] - 100 * fpa) < 1e-9
    assert trials["measure:first-player-advantage"].abs().max() > 1  # not a fraction
    # the confirmed best is the confirmed setting nearest the objective, named first
    nearest = min(d["confirmed"], key=lambda c: abs(c["first_player_advantage"]["estimate"]))
    assert d["best"]["setting"] == nearest["setting"]
    assert d["verdicts"][0].startswith("Under random play, confirmed best: target=")
    assert "today's data: first-player advantage" in d["verdicts"][0]
    # each number alone: max_turns measured and found to do nothing, target measured
    keys = {k["key"]: k for k in d["keys"]}
    assert keys["max_turns"]["changed"] and keys["target"]["changed"]
    nothing = keys["max_turns"]["effects"]["first-player-advantage"]
    assert nothing["negligible"] and not nothing["moves"]
    t = keys["target"]["effects"]["first-player-advantage"]
    assert t["ci_low"] <= t["difference"] <= t["ci_high"]
    line = next(v for v in d["verdicts"] if "each number alone" in v)
    assert "max_turns 400 -> " in line and "does nothing to the first-player advantage" in line


def test_a_recommendation_at_a_bound_is_warned_of():
    spec = make_balance("war-of-the-wilds", 2, ["cards.boar.strength", "cards.boar.cost_berry"],
                        ["first-player-advantage"], trials=2, games=10)
    today = {"cards.boar.strength": 4, "cards.boar.cost_berry": 2}
    out = bound_warnings(spec, {"cards.boar.strength": 0, "cards.boar.cost_berry": 2}, today)
    assert len(out) == 1 and "cards.boar.strength=0" in out[0]
    assert "take the boar card out of play" in out[0]
    high = spec.dimensions[1].high
    out = bound_warnings(spec, {"cards.boar.strength": 4, "cards.boar.cost_berry": high}, today)
    assert len(out) == 1 and "price the boar card out of play" in out[0]
    assert bound_warnings(spec, today, today) == []  # today's data is no recommendation
    pig = make_balance("pig", 2, ["target"], ["first-player-advantage"], trials=2, games=10)
    out = bound_warnings(pig, {"target": 1}, {"target": 30})
    assert len(out) == 1 and "beyond the range" in out[0]


def test_the_warning_is_among_the_verdicts(tmp_path):
    # a 20-sided die busts one roll in 20, not one in 6: Pig's games get shorter, so the
    # confirmed best toward a short length is the die at its bound, 20 faces
    res = CliRunner().invoke(main, [
        "balance", "pig", "--players", "2", "--vary", "die_faces=20", "--objective",
        "length=1..5", "--trials", "2", "--games", "60", "--confirm", "1", "--confirm-games",
        "100", "--out", str(tmp_path / "b"), "--json", "--quiet", "--workers", "1"],
        catch_exceptions=False)
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["best"]["setting"] == {"die_faces": 20}
    assert d["warnings"] and d["warnings"][0] in d["verdicts"]
    assert "die_faces=20, at its bound (2..20)" in d["warnings"][0]
