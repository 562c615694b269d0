"""Design exploration: sweeps and sensitivity on common seeds, --precision's stopping rule,
automatic balancing, and their bad input."""

import json

import pandas as pd
import pytest
from click.testing import CliRunner

from simkit.cli import main
from simkit.errors import SimkitError
from simkit.explore import make_sensitivity, make_sweep, parse_vary, run_explore, step_values
from simkit.results import read_run
from simkit.runner import RunSpec, checkpoints, run_games, run_precise


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.mark.parametrize(("text", "values"), [
    ("target=20,30,40", [20, 30, 40]), ("target=3..6", [3, 4, 5, 6]),
    ("target=10:30:10", [10, 20, 30]), ("die_faces=4", [4])])
def test_vary_ranges(text, values):
    assert parse_vary("pig", text)[1] == values


@pytest.mark.parametrize(("text", "message"), [
    ("nope=1,2", "unknown number 'nope'"), ("target=0..3", "outside its bounds 1..1000"),
    ("target=2.5", "whole number"), ("target=5..3", "runs from 5 up to 3"),
    ("target=1:9:0", "step must be positive"), ("target", "KEY=VALUES"),
    ("target=3,3", "a value twice")])
def test_bad_varies_are_one_line(text, message):
    with pytest.raises(SimkitError, match=message):
        parse_vary("pig", text)


def test_a_grid_larger_than_the_limit_is_refused():
    with pytest.raises(SimkitError, match="more than --max-points 10"):
        make_sweep("pig", 2, ["target=1..6", "die_faces=2..3"], 10, max_points=10)


def test_a_sweep_plays_every_point_on_the_same_seeds(tmp_path):
    spec = make_sweep("pig", 2, ["target=10,30,60"], 400, seed=3, strategies="hold-at,random")
    summary = run_explore(spec, tmp_path / "sw", workers=1)
    assert [p["changes"]["target"] for p in summary["points"]] == [10, 30, 60]
    seeds = [read_run(tmp_path / "sw" / p.folder).games["seed"].tolist() for p in spec.points]
    assert seeds[0] == seeds[1] == seeds[2]  # common random numbers
    assert len(summary["steps"]) == 2 and summary["verdicts"]
    assert all(v.startswith("With seats playing hold-at and random, ")
               for v in summary["verdicts"])  # whose play the figures describe
    longer = [p["length"][0]["mean"] for p in summary["points"]]
    assert longer[0] < longer[1] < longer[2]  # a higher target: longer games
    meta = json.loads((tmp_path / "sw" / "explore.json").read_text())
    assert meta["complete"] and meta["spec"]["varies"] == {"target": [10, 30, 60]}


def test_a_paired_difference_of_identical_points_is_exactly_zero(tmp_path):
    from simkit.reports.explore import paired_difference

    games = run_games(RunSpec.make("pig", 3, 300, seed=1)).games
    for measure in ("seat-spread", "first-player-advantage", "length"):
        d = paired_difference(measure, games, games, 3)
        assert d["difference"] == 0 and d["ci_low"] == d["ci_high"] == 0


def test_sensitivity_ranks_the_numbers_and_corrects_for_many(tmp_path):
    spec = make_sensitivity("pig", 2, 600, seed=2, strategies="hold-at,random",
                            keys=["target", "die_faces"], measure="length", step=None)
    assert [p.role for p in spec.points] == ["base", "down", "up", "down", "up"]
    summary = run_explore(spec, tmp_path / "se", workers=1)
    ranked = [k["key"] for k in summary["ranked"]]
    assert set(ranked) == {"target", "die_faces"}
    by = {(r["key"], r["direction"]): r for r in summary["effects"]}
    assert by["target", "up"]["difference"] > 0 > by["target", "down"]["difference"]
    assert all(r["p_holm"] >= r["p_value"] for r in summary["effects"])


def test_a_step_stops_at_the_bounds():
    from simkit.explore import numeric_params

    p = numeric_params("pig", {"target": 1})["target"]
    assert step_values(p, None) == (None, 2)


def test_precision_stops_at_fixed_counts_on_any_number_of_workers(tmp_path):
    from simkit.reports.explore import run_widths

    assert checkpoints(10_000) == [1000, 2000, 4000, 8000, 10_000]
    run = RunSpec.make("pig", 2, 64_000, seed=5, strategies="hold-at,random")
    records = []
    for w in (1, 2):
        records.append(run_precise(run, tmp_path / f"w{w}", 0.02, run_widths, workers=w))
    assert records[0] == records[1] and records[0]["stopped_by"] == "precision"
    stop = records[0]["checks"][-1]
    assert stop["half_width"] <= 0.02 and stop["games"] in checkpoints(64_000)
    a, b = (read_run(tmp_path / f"w{w}").games for w in (1, 2))
    pd.testing.assert_frame_equal(a, b)
    whole = run_games(RunSpec.make("pig", 2, stop["games"], seed=5, strategies="hold-at,random"))
    pd.testing.assert_frame_equal(a, whole.games)  # grown in steps: the same games


def test_cli_sweep_with_precision_and_report(tmp_path):
    res = invoke("sweep", "pig", "--players", 2, "--vary", "target=20,40", "--games", 8000,
                 "--precision", 3, "--strategies", "hold-at,random", "--out", tmp_path / "s",
                 "--report", tmp_path / "rep", "--workers", 1)
    assert res.exit_code == 0, res.output
    assert "closest to zero" in res.output and "stopped by" in res.output
    assert "Sweep: target" in (tmp_path / "rep" / "index.html").read_text()
    played = {p: p.stat().st_mtime_ns for p in (tmp_path / "s").rglob("games.parquet")}
    res = invoke("sweep", "pig", "--players", 2, "--vary", "target=20,40", "--games", 8000,
                 "--precision", 3, "--strategies", "hold-at,random", "--out", tmp_path / "s",
                 "--resume", "--json", "--quiet")
    assert res.exit_code == 0 and len(json.loads(res.stdout)["points"]) == 2
    # the points had stopped (short of --games): resuming plays none of them again
    assert {p: p.stat().st_mtime_ns for p in played} == played


def test_cli_sensitivity_json(tmp_path):
    res = invoke("sensitivity", "pig", "--players", 2, "--keys", "target", "--games", 300,
                 "--out", tmp_path / "s", "--json", "--quiet")
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["measure"] == "seat-spread" and {r["direction"] for r in d["effects"]} == \
        {"down", "up"}
    assert all(v.startswith("Under random play, ") for v in d["verdicts"])


def test_cli_balance_finds_and_confirms_a_setting(tmp_path):
    out = tmp_path / "b"
    res = invoke("balance", "pig", "--players", 2, "--vary", "target=5..40", "--objective",
                 "length=10..14", "--trials", 6, "--games", 300, "--confirm", 2,
                 "--confirm-games", 400, "--strategies", "hold-at", "--out", out, "--json",
                 "--quiet", "--workers", 1)
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["trials_played"] == 6 and d["sampler"] == "TPE"
    trials = pd.read_csv(out / "trials.csv")
    assert trials["trial"].tolist() == list(range(1, 7)) and trials["target"].iloc[0] == 30
    assert (out / "trials.png").is_file() and d["confirmed"]
    c = d["confirmed"][0]
    assert read_run(out / c["folder"]).meta["master_seed"] == 1  # fresh seeds
    assert c["search"]["objective:length=10..14"] == trials[
        "objective:length=10..14"].min()


def test_balance_tries_every_setting_of_a_small_space(tmp_path):
    res = invoke("balance", "pig", "--players", 2, "--vary", "die_faces=4..6", "--trials", 10,
                 "--games", 200, "--confirm", 1, "--confirm-games", 200, "--out",
                 tmp_path / "b", "--json", "--quiet", "--workers", 1)
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["trials_played"] == 3 and d["sampler"].startswith("every setting")
    assert all(v.startswith("Under random play, ") for v in d["verdicts"])


@pytest.mark.parametrize(("args", "message"), [
    (["sweep", "pig", "--vary", "target=1..600", "--max-points", "50"], "more than"),
    (["sweep", "pig", "--vary", "nope=1"], "unknown number"),
    (["sweep", "pig", "--vary", "target=3", "--precision", "0"], "--precision"),
    (["sensitivity", "pig", "--measure", "luck"], "unknown measure"),
    (["sensitivity", "pig", "--keys", "nope"], "unknown number"),
    (["balance", "pig", "--vary", "target", "--objective", "fun"], "unknown objective"),
    (["balance", "pig", "--vary", "target", "--objective", "length=9"], "length takes"),
    (["balance", "pig", "--vary", "target=2000"], "outside its bounds"),
    (["balance", "pig", "--vary", "target", "--trials", "1"], "--trials"),
])
def test_bad_explorations_write_nothing(tmp_path, args, message):
    out = tmp_path / "o"
    res = CliRunner().invoke(main, [*args, "--players", "2", "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert message in res.output and "Traceback" not in res.output
    assert not out.exists()


def test_experiment_files_take_sweeps_sensitivities_and_balancings(tmp_path):
    exp = tmp_path / "e.toml"
    exp.write_text('[[sweep]]\nname = "s"\ngame = "pig"\nplayers = 2\ngames = 200\n'
                   'vary = ["target=20,40"]\n'
                   '[[sensitivity]]\nname = "t"\ngame = "pig"\nplayers = 2\ngames = 200\n'
                   'keys = ["die_faces"]\n'
                   '[[balance]]\nname = "b"\ngame = "pig"\nplayers = 2\ngames = 200\n'
                   'vary = ["die_faces=4..5"]\ntrials = 2\nconfirm = 1\n'
                   'confirm_games = 200\n')
    out = tmp_path / "runs"
    for kind in ("sweep", "sensitivity", "balance"):
        res = invoke(kind, exp, "--out", out, "--quiet", "--workers", 1)
        assert res.exit_code == 0, (kind, res.output)
    assert (out / "s" / "summary.json").is_file() and (out / "t" / "summary.json").is_file()
    assert json.loads((out / "b" / "summary.json").read_text())["trials_played"] == 2
    res = CliRunner().invoke(main, ["ladder", str(exp)])
    assert res.exit_code == 2 and "[[ladder]]" in res.output


def test_a_balancing_search_stopped_early_resumes(tmp_path, monkeypatch):
    import simkit.balance as B

    real, calls = B._play, []

    def stop_at_the_second(*args, **kw):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kw)

    args = ("balance", "pig", "--players", 2, "--vary", "target=10..50", "--trials", 4,
            "--games", 200, "--confirm", 1, "--confirm-games", 200, "--out", tmp_path / "b",
            "--quiet", "--workers", 1)
    monkeypatch.setattr(B, "_play", stop_at_the_second)
    res = CliRunner().invoke(main, [str(a) for a in args])
    assert res.exit_code == 130
    assert len(json.loads((tmp_path / "b" / "trials.partial.json").read_text())) == 1
    monkeypatch.setattr(B, "_play", real)
    res = invoke(*args, "--resume", "--json")
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["trials_played"] == 4
    assert pd.read_csv(tmp_path / "b" / "trials.csv")["target"].iloc[0] == 30  # today first


def test_a_resumed_tpe_search_tries_what_an_uninterrupted_one_tries(tmp_path, monkeypatch):
    """Stopped after five plays and resumed, a TPE search (13 trials: past its 10 random
    ones) proposes the settings of the uninterrupted search, bit for bit."""
    import simkit.reports.figures as F

    import simkit.balance as B

    monkeypatch.setattr(F, "balance_trials_figure", lambda *a: None)  # not what is tested,
    monkeypatch.setattr(F, "save", lambda fig, to: open(to, "wb").close())  # 2/3 of the time
    args = ["balance", "pig", "--players", 2, "--vary", "target=10..90", "--trials", 13,
            "--games", 20, "--confirm", 1, "--confirm-games", 20, "--quiet", "--workers", 1]
    assert invoke(*args, "--out", tmp_path / "whole").exit_code == 0
    real, calls = B._play, []

    def stop_at_the_sixth(*a, **kw):
        calls.append(1)
        if len(calls) == 6:
            raise KeyboardInterrupt
        return real(*a, **kw)

    monkeypatch.setattr(B, "_play", stop_at_the_sixth)
    assert invoke(*args, "--out", tmp_path / "cut").exit_code == 0  # confirms the five
    assert len(json.loads((tmp_path / "cut" / "trials.partial.json").read_text())) < 13
    monkeypatch.setattr(B, "_play", real)
    assert invoke(*args, "--out", tmp_path / "cut", "--resume").exit_code == 0
    whole, cut = (pd.read_parquet(tmp_path / f / "trials.parquet") for f in ("whole", "cut"))
    assert whole["target"].nunique() > 5
    pd.testing.assert_frame_equal(whole, cut)


def test_settings_the_game_refuses_are_skipped_not_fatal(tmp_path):
    res = invoke("balance", "rabbit-hunt", "--players", 2, "--vary", "carrots.start=1..4",
                 "--vary", "carrots.cap=2..4", "--trials", 12, "--games", 100, "--confirm", 1,
                 "--confirm-games", 100, "--out", tmp_path / "b", "--json", "--quiet",
                 "--workers", 1)
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    trials = pd.read_csv(tmp_path / "b" / "trials.csv", keep_default_na=False)
    refused = trials[trials["refused"] != ""]
    assert d["trials_refused"] == len(refused) > 0
    assert (refused["carrots.cap"] < refused["carrots.start"]).all()
    c = d["confirmed"][0]["setting"]
    assert c["carrots.cap"] >= c["carrots.start"]


def test_a_seat_change_is_claimed_only_when_the_intervals_support_it():
    from simkit.reports.explore import seat_ahead_change

    ahead = (0.088, 0.073, 0.103)
    assert seat_ahead_change(ahead, (-0.102, -0.117, -0.087), True) == "changes"
    assert seat_ahead_change(ahead, (-0.004, -0.019, 0.011), True) == "may change"
    assert seat_ahead_change(ahead, (0.004, -0.011, 0.019), True) is None  # same sign
    wobble = (0.002, -0.010, 0.014)  # a fair game whose estimate only wobbles around 0
    assert seat_ahead_change(wobble, (-0.003, -0.015, 0.009), False) is None
    assert seat_ahead_change(wobble, (-0.003, -0.015, 0.009), True) == "may change"


def test_sensitivity_cannot_hide_a_sign_flip(tmp_path):
    # Rabbit Hunt at 2 players under the heuristic: a carrot cap of 5 instead of 6 hands the
    # advantage from seat 1 (+8.8 points) to seat 2 (-10.2), which the seat spread, an
    # unsigned measure, barely registers; it must not call carrots.cap "no effect"
    res = invoke("sensitivity", "rabbit-hunt", "--players", 2, "--strategies", "heuristic",
                 "--keys", "carrots.cap,hand_size", "--games", 1000, "--out", tmp_path / "s",
                 "--report", tmp_path / "rep", "--workers", 1)
    assert res.exit_code == 0, res.output
    summary = json.loads((tmp_path / "s" / "summary.json").read_text())
    cap = next(k for k in summary["ranked"] if k["key"] == "carrots.cap")
    assert cap["ahead"] == "changes" and cap["fairer"]["direction"] == "today"
    down = next(r for r in summary["effects"] if r["key"] == "carrots.cap"
                and r["direction"] == "down")
    assert down["fpa"]["changed_high"] < 0 < down["fpa"]["base_low"]
    assert down["fpa"]["difference"] < 0 and down["ahead"] == "changes"
    today = f"{100 * summary['first_player_advantage']['advantage']:+.1f}"
    flip = [v for v in summary["verdicts"] if v.startswith("carrots.cap changes which seat")]
    assert flip and f"from {today} [" in flip[0] and "does not show it" in flip[0]
    assert not any("no detectable effect" in v and "carrots.cap" in v
                   for v in summary["verdicts"])
    assert f"first-player advantage {today} [" in res.output  # beside the spread, signed
    md = (tmp_path / "rep" / "summary.md").read_text()
    assert "| seat ahead | fairer than today |" in md and "changes which seat is ahead" in md
    for r in summary["effects"]:  # a folder an older simkit summarised: the page recomputes
        del r["fpa"], r["ahead"]
    (tmp_path / "s" / "summary.json").write_text(json.dumps(summary))
    assert invoke("report", tmp_path / "s", "--out", tmp_path / "old").exit_code == 0
    assert "changes which seat is ahead" in (tmp_path / "old" / "summary.md").read_text()
