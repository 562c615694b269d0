"""How a game feels, in what-ifs, sweeps, ladders and experiment files: the figures at every
point and level, paired differences, the trace settings checked and recorded."""

import json

import pytest
from click.testing import CliRunner

from simkit.cli import main
from simkit.errors import SimkitError
from simkit.experiments import load_experiments, load_explorations, load_ladders
from simkit.explore import make_sweep, run_explore
from simkit.ladder import LadderSpec, run_ladder


def test_a_whatif_compares_the_feel_paired(tmp_path):
    out = tmp_path / "w"
    r = CliRunner().invoke(main, ["whatif", "pig", "--players", "2", "--strategies", "hold-at",
                                  "--set", "target=60", "--games", "600", "--trace-turns",
                                  "300", "--out", str(out), "--quiet", "--json"])
    assert r.exit_code == 0, r.output
    rows = {(d["measure"], d["group"]): d for d in json.loads(r.output)["differences"]}
    decided = rows[("decided at", "share of the game")]
    assert decided["n"] == 300 and "300 traced" in decided["method"]
    assert decided["ci_low"] <= decided["difference"] <= decided["ci_high"]
    lead = rows[("lead changes", "per game")]
    assert lead["difference"] > 0 and lead["ci_low"] > 0  # a longer race changes hands more
    assert ("uncertainty", "1 - mean Gini") in rows
    same = rows[("legal moves a decision", "per decision")]
    assert same["ci_low"] <= same["difference"] <= same["ci_high"]


def test_identical_runs_differ_by_nothing(tmp_path):
    r = CliRunner().invoke(main, ["whatif", "pig", "--players", "2", "--strategies", "hold-at",
                                  "--set", "die_faces=6", "--games", "300", "--trace-turns",
                                  "all", "--out", str(tmp_path / "w"), "--quiet", "--json"])
    assert r.exit_code == 0, r.output
    for d in json.loads(r.output)["differences"]:
        if d["measure"] in ("decided at", "lead changes", "uncertainty", "comebacks"):
            assert d["difference"] == 0, d


def test_a_sweep_measures_the_feel_at_every_point(tmp_path):
    spec = make_sweep("pig", 2, ["target=20,60"], 400, seed=1, strategies="hold-at",
                      trace=200)
    summary = run_explore(spec, tmp_path / "s", workers=1)
    first, last = (p["feel"] for p in summary["points"])
    assert first["traced_games"] == last["traced_games"] == 200
    assert first["decided_at"]["mean"] > last["decided_at"]["mean"]
    assert any("takes the lead for good earlier" in v for v in summary["verdicts"])
    with pytest.raises(SimkitError, match="more games than the run has"):
        make_sweep("pig", 2, ["target=20,60"], 100, strategies="hold-at", trace=101)


def test_a_ladder_measures_the_feel_at_every_level(tmp_path):
    lad = LadderSpec.make("pig", 2, "random,hold-at", 40, level_games=120, seed=3, trace=60)
    from simkit.reports.ladder import summarise

    doc = run_ladder(lad, tmp_path / "l", workers=1)
    summary = summarise(tmp_path / "l", doc)
    for level in summary["balance"]:
        assert level["feel"]["traced_games"] == 60
        assert level["feel"]["decided_at"]["n"] > 0
    assert any("In stronger hands" in v for v in summary["verdicts"])
    assert (tmp_path / "l" / "levels").is_dir()
    traced = [p for p in (tmp_path / "l").rglob("trace.parquet")]
    assert len(traced) == 2  # the levels' self-play only


def test_experiment_files_take_the_trace(tmp_path):
    f = tmp_path / "e.toml"
    f.write_text('[[run]]\ngame = "pig"\nplayers = 3\ngames = 50\ntrace_turns = 20\n'
                 'kingmaking = 5\nstrategies = "hold-at"\n\n[[ladder]]\ngame = "pig"\nplayers = 2\n'
                 'strategies = "random,hold-at"\ngames = 10\ntrace_turns = "all"\n\n'
                 '[[sweep]]\ngame = "pig"\nplayers = 2\nvary = ["target=20,30"]\ngames = 30\n'
                 'trace_turns = 10\n')
    run = load_experiments(f)[0].run
    assert (run.trace, run.kingmaking) == (20, 5)
    assert load_ladders(f)[0].ladder.trace == "all"
    assert load_explorations(f, "sweep")[0].spec.trace == 10
    bad = tmp_path / "b.toml"
    bad.write_text('[[sensitivity]]\ngame = "pig"\nplayers = 2\ntrace_turns = 10\n')
    with pytest.raises(SimkitError, match="trace_turns"):
        load_explorations(bad, "sensitivity")


def test_the_report_shows_how_it_plays(tmp_path):
    r = CliRunner().invoke(main, ["run", "pig", "--players", "2", "--strategies", "hold-at",
                                  "--games", "400", "--trace-turns", "200", "--out",
                                  str(tmp_path / "r"), "--quiet", "--report",
                                  str(tmp_path / "rep")])
    assert r.exit_code == 0, r.output
    html = (tmp_path / "rep" / "index.html").read_text()
    assert "How it plays" in html and "decided at" in html and "uncertainty" in html
    assert (tmp_path / "rep" / "lead_curve.png").is_file()


def test_a_whatif_pairs_kingmaking(tmp_path):
    r = CliRunner().invoke(main, ["whatif", "pig", "--players", "3", "--strategies", "hold-at",
                                  "--set", "target=50", "--games", "60", "--kingmaking", "30",
                                  "--out", str(tmp_path / "w"), "--quiet", "--json"])
    assert r.exit_code == 0, r.output
    rows = [d for d in json.loads(r.output)["differences"] if d["measure"] == "kingmaking"]
    assert len(rows) == 1 and "replayed" in rows[0]["method"]
    assert 0 <= rows[0]["base"] <= 1 and 0 <= rows[0]["changed"] <= 1
