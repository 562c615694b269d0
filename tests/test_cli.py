"""The command line: happy paths end to end, and every kind of bad input gets one clear
line, exit status 2 and no output folder."""

import json
import subprocess
import sys

import pandas as pd
import pytest
from click.testing import CliRunner

from simkit.cli import main


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_games_lists_every_registered_game():
    out = invoke("games").output
    for name in ("rabbit-hunt", "pig"):
        assert name in out


def test_rules_marks_overrides():
    res = invoke("rules", "pig", "--set", "target=50")
    assert res.exit_code == 0
    line = next(ln for ln in res.output.splitlines() if ln.startswith("target"))
    assert "50*" in line and "assumed" in line


def test_run_writes_a_run_folder_and_summary(tmp_path):
    res = invoke("run", "pig", "--players", 2, "--games", 500, "--seed", 4, "--strategies",
                 "hold-at,random", "--out", tmp_path / "r", "--workers", 1)
    assert res.exit_code == 0, res.output
    assert "first-player advantage" in res.output
    meta = json.loads((tmp_path / "r" / "run.json").read_text())
    assert meta["games_completed"] == 500 and meta["complete"]
    assert meta["params"]["target"]["source"] == "assumed"
    games = pd.read_parquet(tmp_path / "r" / "games.parquet")
    assert len(games) == 500


def test_same_seed_same_games_parquet_across_workers(tmp_path):
    for w in (1, 2):
        invoke("run", "pig", "--players", 3, "--games", 2000, "--seed", 11, "--out",
               tmp_path / f"w{w}", "--workers", w, "--quiet")
    a = pd.read_parquet(tmp_path / "w1" / "games.parquet")
    b = pd.read_parquet(tmp_path / "w2" / "games.parquet")
    pd.testing.assert_frame_equal(a, b)


def test_experiment_file_and_report(tmp_path):
    exp = tmp_path / "e.toml"
    exp.write_text('[[run]]\nname = "a"\ngame = "pig"\nplayers = 2\ngames = 400\n'
                   'strategies = ["hold-at", "random"]\n[run.set]\ntarget = 20\n'
                   '[[run]]\nname = "b"\ngame = "pig"\nplayers = 3\ngames = 400\n')
    res = invoke("run", exp, "--out", tmp_path / "runs", "--report", tmp_path / "rep",
                 "--quiet")
    assert res.exit_code == 0, res.output
    assert (tmp_path / "runs" / "a" / "games.parquet").is_file()
    assert json.loads((tmp_path / "runs" / "a" / "run.json").read_text())["overrides"] == {
        "target": 20}
    html = (tmp_path / "rep" / "index.html").read_text()
    assert "data:image/png;base64" in html


def test_whatif_pairs_the_same_seeds(tmp_path):
    res = invoke("whatif", "pig", "--players", 2, "--games", 600, "--set", "target=40",
                 "--strategies", "hold-at,random", "--out", tmp_path / "w")
    assert res.exit_code == 0, res.output
    base = pd.read_parquet(tmp_path / "w" / "base" / "games.parquet")
    changed = pd.read_parquet(tmp_path / "w" / "changed" / "games.parquet")
    assert (base["seed"] == changed["seed"]).all()
    assert changed["turns"].mean() > base["turns"].mean()
    assert (tmp_path / "w" / "report" / "index.html").is_file()


def test_replay_from_a_run_matches_its_row(tmp_path):
    invoke("run", "pig", "--players", 2, "--games", 30, "--strategies", "hold-at,random",
           "--out", tmp_path / "r", "--quiet")
    res = invoke("replay", "--run", tmp_path / "r", "--game", 17)
    assert res.exit_code == 0, res.output
    assert "(matches the recorded row)" in res.output


@pytest.mark.parametrize("args,message", [
    (["run", "nope", "--players", 2], "unknown game 'nope'"),
    (["run", "pig", "--players", 7], "for 2, 3, 4 players, not 7"),
    (["run", "pig", "--players", 2, "--strategies", "smart"], "unknown strategy"),
    (["run", "pig", "--players", 2, "--set", "targt=3"], "unknown parameter 'targt'"),
    (["run", "pig", "--players", 2, "--set", "target=abc"], "must be an integer"),
    (["run", "pig", "--players", 2, "--set", "target=0"], "out of range"),
    (["run", "pig", "--players", 2, "--set", "target"], "KEY=VALUE"),
    (["run", "pig"], "--players is required"),
    (["run", "pig", "--players", 2, "--games", 0], "an integer from 1 to"),
    (["run", "pig", "--players", 2, "--games", 10**12], "an integer from 1 to"),
    (["run", "pig", "--players", 2, "--seed", 2**64], "from 0 to 2**64 - 1"),
    (["run", "pig", "--players", 2, "--seed", -1], "from 0 to 2**64 - 1"),
    (["run", "pig", "--players", 2, "--weight", "hold-at.threshold=abc", "--strategies",
      "hold-at"], "finite number"),
    (["run", "pig", "--players", 2, "--weight", "hold-at.threshold=abc"],
     "not in this run; its strategies: random"),
    (["run", "pig", "--players", 2, "--weight", "hold-at.threshold=inf"], "finite number"),
    (["run", "pig", "--players", 2, "--weight", "hold-at"], "STRATEGY.KEY=NUMBER"),
    (["run", "pig", "--players", 2, "--weight", "hold-at.nope=1", "--strategies", "hold-at"],
     "no weight 'nope'"),
    (["replay", "pig", "--players", 2, "--seed", -1], "from 0 to 2**64 - 1"),
    (["rules", "pig", "--set", "target=0"], "out of range"),
    (["rules", "nope"], "unknown game"),
    (["replay", "pig", "--players", 2], "give GAME --seed S"),
    (["replay", "pig", "--seed", 3], "--players is required"),
    (["whatif", "pig", "--players", 2], "at least one --set"),
])
def test_bad_input_exits_2_with_one_line_and_no_output(tmp_path, args, message):
    out = tmp_path / "out"
    res = CliRunner().invoke(main, [str(a) for a in args] + (
        ["--out", str(out)] if args[0] in ("run", "whatif") else []))
    assert res.exit_code == 2, res.output
    assert message in res.output
    assert not out.exists()


def test_malformed_experiment_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[[run]]\ngame = 'pig'\nplayers = 2\ngames = 10\ncolour = 'red'\n")
    res = CliRunner().invoke(main, ["run", str(bad), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "unknown key(s) colour" in res.output
    bad.write_text("[[run]\n")
    res = CliRunner().invoke(main, ["run", str(bad), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "malformed experiment file" in res.output
    assert not (tmp_path / "o").exists()


def test_existing_output_is_not_overwritten(tmp_path):
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "keep.txt").write_text("mine")
    for extra in ([], ["--overwrite"]):
        res = CliRunner().invoke(main, ["run", "pig", "--players", "2", "--games", "10",
                                        "--out", str(tmp_path / "r"), *extra])
        assert res.exit_code == 2 and "not written by simkit" in res.output
        assert (tmp_path / "r" / "keep.txt").read_text() == "mine"


def test_installed_command_runs_a_real_game(tmp_path):
    """The console script itself, as a user runs it, on one of simkit's own games."""
    proc = subprocess.run(
        [sys.executable, "-m", "simkit", "run", "rabbit-hunt", "--players", "2", "--games",
         "300", "--strategies", "heuristic,random", "--out", str(tmp_path / "rh"),
         "--quiet"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    bad = subprocess.run([sys.executable, "-m", "simkit", "run", "rabbit-hunt", "--players",
                          "5"], capture_output=True, text=True, timeout=600)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_a_signal_mid_run_keeps_what_was_written(tmp_path, sig):
    """A real process, a real signal: the folder holds the finished games, in order, with
    run.json saying complete: false; nothing half-written is left beside it."""
    import signal
    import time

    out = tmp_path / "big"
    proc = subprocess.Popen(
        [sys.executable, "-m", "simkit", "run", "rabbit-hunt", "--players", "2", "--games",
         "50000000", "--chunk-size", "2000", "--workers", "2", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 300
    while time.time() < deadline and not list(tmp_path.glob(".big.partial-*/games.parquet")):
        time.sleep(0.2)
    time.sleep(1.0)
    proc.send_signal(getattr(signal, sig))
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 130, err
    assert "interrupted: kept the" in err
    meta = json.loads((out / "run.json").read_text())
    games = pd.read_parquet(out / "games.parquet")
    assert meta["complete"] is False and 0 < meta["games_completed"] == len(games)
    assert games["game"].tolist() == list(range(len(games)))
    assert [p.name for p in tmp_path.iterdir()] == ["big"]


def test_unreachable_scheduler_is_one_clear_error(tmp_path):
    res = CliRunner().invoke(main, ["run", "pig", "--players", "2", "--games", "10",
                                    "--scheduler", "tcp://127.0.0.1:9", "--out",
                                    str(tmp_path / "o")])
    assert res.exit_code == 2
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in res.output
    assert list(tmp_path.iterdir()) == []


def test_players_may_be_left_out_for_a_one_count_game(tmp_path):
    res = invoke("run", "avalon", "--games", 20, "--quiet", "--out", tmp_path / "a")
    assert res.exit_code == 0, res.output
    assert json.loads((tmp_path / "a" / "run.json").read_text())["players"] == 2
    assert invoke("replay", "avalon", "--seed", 5).exit_code == 0


class _Done:
    def __init__(self, res):
        self.returncode, self.stdout, self.stderr = res.exit_code, res.stdout, res.stderr


def _run_cli(*args):
    """The command with its stdout and stderr apart (in this process, where Pig is
    registered)."""
    return _Done(CliRunner().invoke(main, [str(a) for a in args]))


def test_json_puts_the_summary_alone_on_stdout(tmp_path):
    proc = _run_cli("run", "pig", "--players", 2, "--games", 400, "--strategies",
                    "hold-at,random", "--out", tmp_path / "r", "--json", "--workers", 1)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)  # nothing but JSON on stdout
    assert data["game"] == "pig" and data["games"] == 400 and data["folder"].endswith("r")
    assert [s["seat"] for s in data["seats"]] == [1, 2]
    seat = data["seats"][0]
    assert {"win_rate", "win_low", "win_high", "tie_rate", "loss_rate", "score_share",
            "advantage", "adv_low", "adv_high"} <= set(seat)
    fpa = data["first_player_advantage"][0]
    assert fpa["ci_low"] <= fpa["advantage"] <= fpa["ci_high"]
    kinds = {v["topic"] for v in data["verdicts"]}
    assert {"seats", "strategies"} <= kinds
    assert all(v["text"] for v in data["verdicts"])
    assert "games in" in proc.stderr  # the messages went to stderr


def test_quiet_prints_nothing(tmp_path):
    proc = _run_cli("run", "pig", "--players", 2, "--games", 100, "--out", tmp_path / "r",
                    "--quiet", "--workers", 1)
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    proc = _run_cli("report", tmp_path / "r", "--out", tmp_path / "rep", "--quiet")
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    assert (tmp_path / "rep" / "index.html").is_file()


def test_whatif_json_and_verdicts(tmp_path):
    proc = _run_cli("whatif", "pig", "--players", 2, "--games", 400, "--set", "target=60",
                    "--out", tmp_path / "w", "--json", "--workers", 1)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["changes"] == {"target": 60}
    assert any(v["topic"] == "whatif" for v in data["verdicts"])
    measures = {d["measure"] for d in data["differences"]}
    assert {"win rate", "first-player advantage", "mean turns"} <= measures
    assert "pig" in proc.stderr  # progress and messages on stderr
    text = _run_cli("whatif", "pig", "--players", 2, "--games", 400, "--set", "target=60",
                    "--out", tmp_path / "w", "--overwrite", "--workers", 1)
    assert text.returncode == 0
    head, verdicts = text.stdout.split("\nVerdict\n")
    assert head.splitlines()[1].startswith("target 30 -> 60 (2 players, ")
    # the headline first, in the text (within 100 columns) and the JSON
    assert " ".join(head.split("\n", 1)[1].split()) == data["headline"][0]
    assert max(map(len, head.splitlines())) <= 100


def test_report_json_lists_each_run(tmp_path):
    assert _run_cli("run", "pig", "--players", 2, "--games", 200, "--out", tmp_path / "a",
                    "--quiet").returncode == 0
    proc = _run_cli("report", tmp_path / "a", "--out", tmp_path / "rep", "--json",
                    "--fair", 5)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["report"].endswith("index.html") and len(data["runs"]) == 1
    assert data["runs"][0]["fair_threshold"] == 0.05
    assert data["headline"] == data["runs"][0]["headline"]  # one run: its own headline


def test_export_writes_csv_with_seats_from_one(tmp_path):
    assert _run_cli("run", "pig", "--players", 3, "--games", 50, "--out", tmp_path / "r",
                    "--quiet").returncode == 0
    proc = _run_cli("export", tmp_path / "r", "--format", "csv")
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "r-csv"
    games = pd.read_csv(out / "games.csv")
    items = pd.read_csv(out / "items.csv")
    assert len(games) == 50 and {"rank_s1", "rank_s3", "strategy_s2"} <= set(games.columns)
    assert sorted(items["seat"].unique()) == [1, 2, 3] and len(items) == 150
    assert json.loads((out / "run.json").read_text())["games"] == 50
    again = _run_cli("export", tmp_path / "r")
    assert again.returncode == 2 and "--overwrite" in again.stderr
    bad = _run_cli("export", tmp_path / "r", "--format", "xls")
    assert bad.returncode == 2 and "csv" in bad.stderr
    missing = _run_cli("export", tmp_path / "nothing")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1


def test_experiment_values_are_type_checked(tmp_path):
    cases = {
        'rotate = "no"': "rotate must be true or false",
        'strategies = 5': "strategies must be",
        'players = true': "players must be an integer",
        'weights = "hold-at.threshold=3"': "weights must be a list",
        'seed = 1.5': "seed must be an integer",
    }
    for line, message in cases.items():
        exp = tmp_path / "e.toml"
        base = {"game": '"pig"', "players": "2", "games": "5"}
        base.pop(line.split(" =")[0], None)
        body = "".join(f"{k} = {v}\n" for k, v in base.items())
        exp.write_text(f"[[run]]\n{body}{line}\n")
        res = CliRunner().invoke(main, ["run", str(exp), "--out", str(tmp_path / "o")])
        assert res.exit_code == 2 and message in res.output, (line, res.output)
    (tmp_path / "list.toml").write_text("run = [1, 2]\n")
    (tmp_path / "bin.toml").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe")
    (tmp_path / "dir.toml").mkdir()
    for name, message in (("list", "[[run]] tables"), ("bin", "not a text file"),
                          ("dir", "is a folder")):
        res = CliRunner().invoke(main, ["run", str(tmp_path / f"{name}.toml")])
        assert res.exit_code == 2 and message in res.output, (name, res.output)
    assert not (tmp_path / "o").exists()


def test_a_damaged_items_table_is_one_line(tmp_path, root):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(root / "tests" / "fixtures" / "run-v1-avalon", run)
    data = (run / "items.parquet").read_bytes()
    (run / "items.parquet").write_bytes(data[: len(data) // 3])
    res = CliRunner().invoke(main, ["report", str(run), "--out", str(tmp_path / "r")])
    assert res.exit_code == 2 and "items.parquet is unreadable" in res.output
    assert res.output.count("\n") == 1 and not (tmp_path / "r").exists()


def test_an_internal_error_is_one_line_and_a_log(tmp_path, monkeypatch):
    from simkit import registry

    monkeypatch.setenv("SIMKIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(registry, "games", lambda: 1 / 0)
    res = CliRunner().invoke(main, ["games"])
    assert res.exit_code == 1
    line = res.output.strip()
    assert line.count("\n") == 0 and "internal error (ZeroDivisionError" in line
    log = next((tmp_path / "cache" / "logs").glob("simkit-error-*.log"))
    assert "Traceback" in log.read_text() and "ZeroDivisionError" in log.read_text()
    res = CliRunner().invoke(main, ["--debug", "games"])
    assert isinstance(res.exception, ZeroDivisionError)


def test_an_interrupt_at_start_up_is_one_line_and_130(monkeypatch):
    from simkit import registry

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(registry, "games", interrupted)
    res = CliRunner().invoke(main, ["games"])
    assert res.exit_code == 130 and res.output.strip() == (
        "interrupted: stopped; nothing half-written was kept")


def test_the_command_exits_without_teardown_but_with_its_exit_handlers(tmp_path):
    """``entry`` ends the process with os._exit (the interpreter's teardown took 0.05 s of
    every command): the status is the command's, stdout is complete, and the atexit
    handlers (numba's, Dask's, temporary folders') have run."""
    script = ("import atexit, pathlib, sys\n"
              "marker = pathlib.Path(sys.argv[1])\n"
              "atexit.register(lambda: marker.write_text('ran'))\n"
              "from simkit.cli import entry\n"
              "sys.argv = ['simkit', *sys.argv[2:]]\n"
              "entry()\n")
    marker = tmp_path / "atexit.txt"
    ok = subprocess.run([sys.executable, "-c", script, str(marker), "games"],
                        capture_output=True, text=True, timeout=600)
    assert ok.returncode == 0 and marker.read_text() == "ran"
    assert "rabbit-hunt" in ok.stdout and "watership-down" in ok.stdout  # the whole list
    marker.unlink()
    bad = subprocess.run([sys.executable, "-c", script, str(marker), "run", "no-such-game"],
                         capture_output=True, text=True, timeout=600)
    assert bad.returncode == 2 and "unknown game 'no-such-game'" in bad.stderr
    assert marker.read_text() == "ran"


def test_a_reader_that_goes_away_ends_the_command_silently():
    """``simkit rules GAME | head -1``: the rest of the output has nowhere to go; the
    command ends as one killed by SIGPIPE would (status 141), with nothing on stderr. (A
    command of more output than a pipe holds, so the write surely meets the closed pipe.)"""
    script = ("import sys, click\n"
              "from simkit.cli import entry, main\n"
              "@main.command('spew')\n"
              "def spew():\n"
              "    for _ in range(100_000):\n"
              "        click.echo('x' * 79)\n"
              "sys.argv = ['simkit', 'spew']\n"
              "entry()\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.readline()
    proc.stdout.close()  # as `head -1` does once it has its line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=600) == 141 and err == ""
