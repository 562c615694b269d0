"""The skill ladder: its schedule, its runs on paired deals, its folder, resuming after
Ctrl-C, the same tables on any number of workers, and bad input."""

import json
from collections import Counter
from itertools import permutations

import pandas as pd
import pytest
from click.testing import CliRunner

import simkit.runner
from simkit.cli import main
from simkit.errors import SimkitError
from simkit.ladder import LadderSpec, games_for_time, parse_duration, run_ladder


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_two_players_every_pair_in_both_seat_orders():
    lad = LadderSpec.make("pig", 2, "random,hold-at,first", 30)
    matches = [m for m in lad.schedule() if m.part == "match"]
    assert len(lad.tables()) == 3 and len(matches) == 6
    assert {m.seats for m in matches} == set(permutations(lad.strategies, 2))
    assert all(m.games == 15 for m in matches)
    levels = [m for m in lad.schedule() if m.part == "level"]
    assert [m.seats for m in levels] == [(s, s) for s in lad.strategies]


@pytest.mark.parametrize(("k", "players", "tables", "runs_per_table"), [
    (5, 4, 5, 24), (3, 3, 1, 6), (2, 4, 3, None), (2, 3, 2, 3)])
def test_tables_at_three_and_four_players(k, players, tables, runs_per_table):
    names = ["random", "hold-at", "first", "mc@2", "ismcts@2"][:k]
    lad = LadderSpec.make("pig", players, names, 48)
    assert len(lad.tables()) == tables
    for ti, table in enumerate(lad.tables()):
        runs = [m for m in lad.schedule() if m.part == "match" and m.table == ti]
        assert len(runs) == len(set(permutations(table)))
        if runs_per_table:
            assert len(runs) == runs_per_table
        # every strategy of the table sits in every seat as often as it has seats there
        for seat in range(players):
            sat = Counter(m.seats[seat] for m in runs)
            for i, name in enumerate(lad.strategies):
                assert sat[name] * players == table.count(i) * len(runs)
        assert len({s for m in runs for s in m.seats}) == min(k, players)


def test_names_are_recorded_with_their_budgets():
    lad = LadderSpec.make("pig", 2, "random,ismcts", 4, weights=["ismcts.iterations=7"])
    assert lad.strategies == ("random", "ismcts@7")


@pytest.mark.parametrize(("args", "message"), [
    (dict(strategies="random"), "at least two different strategies"),
    (dict(strategies="random,random"), "at least two different strategies"),
    (dict(strategies="random,hold-at,random"), "given twice"),
    (dict(strategies="random,ismcts,ismcts@400"), "given twice"),
    (dict(strategies="random,nope"), "unknown strategy"),
    (dict(strategies="random,ismcts@0"), "from 1 to 1,000,000"),
    (dict(players=7), "for 2, 3, 4 players, not 7"),
    (dict(games=0), "number of games"),
    (dict(weights=["mc.iterations=3"]), "not in this ladder"),
])
def test_bad_ladders_are_refused_in_one_line(args, message):
    kw = dict(game="pig", players=2, strategies="random,hold-at", games=10) | args
    with pytest.raises(SimkitError, match=message):
        LadderSpec.make(**kw)


def test_a_ladder_folder_pairs_its_runs_on_the_same_deals(tmp_path):
    lad = LadderSpec.make("pig", 2, "random,hold-at", 400, level_games=30, seed=5)
    doc = run_ladder(lad, tmp_path / "lad", workers=1)
    assert doc["complete"] and (tmp_path / "lad" / "summary.json").is_file()
    games = pd.read_parquet(tmp_path / "lad" / "games.parquet")
    assert list(games.columns[:3]) == ["part", "run", "table"]
    assert len(games) == 400 + 2 * 30
    ab, ba = (games[games["run"] == m.folder] for m in lad.schedule()[:2])
    assert list(ab["seed"]) == list(ba["seed"])  # both seat orders on the same deals
    assert list(ab["strategy_s1"].unique()) == ["random"] and \
        list(ba["strategy_s1"].unique()) == ["hold-at"]
    summary = json.loads((tmp_path / "lad" / "summary.json").read_text())
    by = {r["strategy"]: r for r in summary["ratings"]["ratings"]}
    assert by["random"]["rating"] == 0 and by["hold-at"]["ci_low"] > 0  # hold-at is better
    assert [b["level"] for b in summary["balance"]] == ["random", "hold-at"]
    assert summary["balance"][0]["games"] == 30
    assert summary["depth"]["from"] == "random" and summary["depth"]["to"] == "hold-at"


def test_the_same_seed_gives_the_same_ladder_on_any_number_of_workers(tmp_path):
    lad = LadderSpec.make("pig", 3, "random,hold-at", 60, level_games=20, seed=9)
    for w in (1, 2):
        run_ladder(lad, tmp_path / f"w{w}", workers=w)
    a = pd.read_parquet(tmp_path / "w1" / "games.parquet")
    b = pd.read_parquet(tmp_path / "w2" / "games.parquet")
    pd.testing.assert_frame_equal(a, b)
    sa = json.loads((tmp_path / "w1" / "summary.json").read_text())
    sb = json.loads((tmp_path / "w2" / "summary.json").read_text())
    assert sa == sb


def test_ctrl_c_keeps_the_finished_runs_and_resume_plays_only_the_rest(tmp_path, monkeypatch):
    lad = LadderSpec.make("pig", 2, "random,hold-at,first", 20, level_games=10, seed=2)
    run_ladder(lad, tmp_path / "whole", workers=1)
    real = simkit.runner.run_games
    calls = []

    def stop_at_the_fourth(*args, **kw):
        calls.append(args[0].strategies)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(*args, **kw)

    monkeypatch.setattr(simkit.runner, "run_games", stop_at_the_fourth)
    with pytest.raises(KeyboardInterrupt):
        run_ladder(lad, tmp_path / "cut", workers=1)
    meta = json.loads((tmp_path / "cut" / "ladder.json").read_text())
    assert meta["complete"] is False and not (tmp_path / "cut" / "summary.json").exists()
    calls.clear()
    monkeypatch.setattr(simkit.runner, "run_games", lambda *a, **k: (calls.append(1),
                                                                      real(*a, **k))[1])
    run_ladder(lad, tmp_path / "cut", workers=1, resume=True)
    assert len(calls) == len(lad.schedule()) - 3  # the three finished runs were not replayed
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "whole" / "games.parquet"),
                                  pd.read_parquet(tmp_path / "cut" / "games.parquet"))


def test_a_time_budget_chooses_the_game_counts():
    lad = LadderSpec.make("pig", 2, "random,hold-at", 10)
    costs = {"random": 1e-4, "hold-at": 1e-4}
    timed = games_for_time(lad, costs, 1, 1.0)
    # a pairing of n games (two seat orders of n/2) + two levels of n: 3n * 1e-4 s = 1 s
    assert timed.games == timed.level_games == pytest.approx(3333, rel=0.01)
    assert parse_duration("15m") == 900 and parse_duration("2h") == 7200
    for bad in ("0", "-3m", "soon", "inf"):
        with pytest.raises(SimkitError, match="time budget"):
            parse_duration(bad)


def test_cli_ladder_prints_ratings_and_writes_a_report(tmp_path):
    out, rep = tmp_path / "lad", tmp_path / "rep"
    res = invoke("ladder", "pig", "--players", 2, "--strategies", "random,hold-at",
                 "--games", 40, "--out", out, "--report", rep, "--workers", 1)
    assert res.exit_code == 0, res.output
    for text in ("Ratings (Elo; Bradley-Terry", "Win matrix", "Balance by skill", "Verdict"):
        assert text in res.output
    html = (rep / "index.html").read_text()
    assert "Skill ladder" in html and "Win matrix" in html and "Balance by skill" in html
    res = invoke("report", out, "--out", tmp_path / "rep2", "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["ladders"][0]["strategies"] == ["random", "hold-at"]


def test_cli_ladder_json_and_resume_of_a_finished_ladder(tmp_path):
    out = tmp_path / "lad"
    args = ("ladder", "pig", "--players", 3, "--strategies", "random,hold-at", "--games", 12,
            "--out", out, "--workers", 1)
    res = invoke(*args, "--json", "--quiet")
    assert res.exit_code == 0, res.output
    first = json.loads(res.stdout)
    assert first["ratings"]["model"] == "Plackett-Luce" and len(first["win_matrix"]) == 2
    res = invoke(*args, "--json", "--quiet", "--resume")  # nothing left to play: same answer
    assert res.exit_code == 0, res.output
    again = json.loads(res.stdout)
    assert again["ratings"] == first["ratings"]


def test_experiment_files_take_ladders(tmp_path):
    exp = tmp_path / "e.toml"
    exp.write_text('[[ladder]]\nname = "p2"\ngame = "pig"\nplayers = 2\ngames = 10\n'
                   'strategies = ["random", "hold-at"]\n[ladder.set]\ntarget = 20\n')
    res = invoke("ladder", exp, "--out", tmp_path / "runs", "--quiet")
    assert res.exit_code == 0, res.output
    meta = json.loads((tmp_path / "runs" / "p2" / "ladder.json").read_text())
    assert meta["ladder"]["overrides"] == {"target": 20}
    res = invoke("run", exp)
    assert res.exit_code == 2 and "for `simkit ladder`" in res.output


@pytest.mark.parametrize(("extra", "message"), [
    (["--strategies", "random"], "at least two"),
    (["--strategies", "random,bogus"], "unknown strategy"),
    (["--strategies", "random,ismcts@0"], "from 1 to 1,000,000"),
    (["--strategies", "random,hold-at", "--players", "9"], "not 9"),
    (["--strategies", "random,hold-at", "--games", "5", "--time", "1m"], "not both"),
    (["--strategies", "random,hold-at", "--time", "soon"], "time budget"),
    (["--strategies", "random,hold-at", "--resume"], "not a ladder folder"),
])
def test_cli_bad_ladders_write_nothing(tmp_path, extra, message):
    out = tmp_path / "lad"
    if "--resume" in extra:
        out.mkdir()
        (out / "mine.txt").write_text("a user's file")
    args = ["ladder", "pig", "--out", str(out), *extra]
    if "--players" not in extra:
        args += ["--players", "2"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2, res.output
    assert message in res.output and "Traceback" not in res.output
    assert not out.exists() or sorted(p.name for p in out.iterdir()) == ["mine.txt"]


def test_resume_with_other_settings_is_refused(tmp_path):
    out = tmp_path / "lad"
    invoke("ladder", "pig", "--players", 2, "--strategies", "random,hold-at", "--games", 8,
           "--out", out, "--quiet")
    res = CliRunner().invoke(main, ["ladder", "pig", "--players", "2", "--strategies",
                                    "random,hold-at", "--games", "8", "--seed", "3", "--out",
                                    str(out), "--resume"])
    assert res.exit_code == 2 and "played with seed 0, not 3" in res.output


def test_a_search_level_plays_in_a_ladder(tmp_path):
    lad = LadderSpec.make("pig", 2, "hold-at,ismcts@8", 4, level_games=2, seed=1)
    run_ladder(lad, tmp_path / "lad", workers=2)
    summary = json.loads((tmp_path / "lad" / "summary.json").read_text())
    assert {r["strategy"] for r in summary["ratings"]["ratings"]} == {"hold-at", "ismcts@8"}
    meta = json.loads((tmp_path / "lad" / lad.schedule()[0].folder / "run.json").read_text())
    assert meta["search"]["ismcts@8"]["iterations_per_decision"] == 8
